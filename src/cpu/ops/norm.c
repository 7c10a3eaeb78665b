/* norm.c — RMSNorm and LayerNorm over the last axis, one row per task.
 *
 * Sums accumulate in double: rows are short (≤ a few thousand) and this keeps the fused result
 * within f32 rounding of the decomposition whatever the summation order.
 */
#include "cpu/ops.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    const float *x;
    int64_t h;
    const void *w, *b;
    ts_dtype w_dtype, b_dtype;
    double eps, offset;
    float *y;
} norm_job;

/* Σ (x[i] − mean)² in f64, in four partial sums so that the adds do not wait on each other (one
 * chain was most of a tower's 1280-wide layer norm, and ~1.2% of a bf16 prefill's RMS norms); each
 * square is exact in f64, so the order moves the f32 result almost never. */
static double squares(const float *x, int64_t h, float mean)
{
    double v4[4] = {0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 4 <= h; i += 4)
        for (int l = 0; l < 4; l++) v4[l] += (double)(x[i + l] - mean) * (x[i + l] - mean);
    double sum = (v4[0] + v4[1]) + (v4[2] + v4[3]);
    for (; i < h; i++) sum += (double)(x[i] - mean) * (x[i] - mean);
    return sum;
}

static void rms_task(void *arg, int64_t row, int worker)
{
    (void)worker;
    const norm_job *j = arg;
    const float *x = j->x + row * j->h;
    float *y = j->y + row * j->h;
    double ss = squares(x, j->h, 0.0f); /* x − 0 is x: the sum of x² */
    /* HF: x * rsqrt(mean + eps) in f32, then weight * that. */
    float r = (float)(1.0 / sqrt((float)(ss / (double)j->h) + (float)j->eps));
    float offset = (float)j->offset;
    /* One loop per weight dtype, so each vectorises; the same operations per element. */
    if (j->w_dtype == TS_DTYPE_BF16) {
        const uint16_t *w = j->w;
        for (int64_t i = 0; i < j->h; i++) {
            uint32_t bits = (uint32_t)w[i] << 16;
            float wf;
            __builtin_memcpy(&wf, &bits, 4);
            y[i] = (wf + offset) * (x[i] * r);
        }
    } else if (j->w_dtype == TS_DTYPE_F32) {
        const float *w = j->w;
        for (int64_t i = 0; i < j->h; i++) y[i] = (w[i] + offset) * (x[i] * r);
    } else {
        for (int64_t i = 0; i < j->h; i++) y[i] = (ts_cpu_bias_at(j->w, j->w_dtype, i) + offset) * (x[i] * r);
    }
}

static void layer_task(void *arg, int64_t row, int worker)
{
    (void)worker;
    const norm_job *j = arg;
    const float *x = j->x + row * j->h;
    float *y = j->y + row * j->h;
    int64_t h = j->h, i = 0;
    /* Four partial sums, so the double adds do not wait on each other (a tower's 1280-wide rows
     * spent most of the op in that chain). */
    double s4[4] = {0, 0, 0, 0};
    for (; i + 4 <= h; i += 4)
        for (int l = 0; l < 4; l++) s4[l] += x[i + l];
    double sum = (s4[0] + s4[1]) + (s4[2] + s4[3]);
    for (; i < h; i++) sum += x[i];
    float mean = (float)(sum / (double)h);
    double var = squares(x, h, mean);
    float r = (float)(1.0 / sqrt((float)(var / (double)h) + (float)j->eps));
    if (j->w_dtype == TS_DTYPE_F32 && j->b_dtype == TS_DTYPE_F32) { /* f32 weights: see ts_cpu_layer_norm */
        const float *w = j->w, *b = j->b;
        for (i = 0; i < h; i++) y[i] = (x[i] - mean) * r * w[i] + b[i];
    } else {
        for (i = 0; i < h; i++) y[i] = (x[i] - mean) * r * ts_cpu_bias_at(j->w, j->w_dtype, i) + ts_cpu_bias_at(j->b, j->b_dtype, i);
    }
}

void ts_cpu_rms_norm(const ts_cpu *cpu, const float *x, int64_t rows, int64_t h, const void *w,
                     ts_dtype w_dtype, double eps, double weight_offset, float *y)
{
    norm_job job = {x, h, w, NULL, w_dtype, TS_DTYPE_F32, eps, weight_offset, y};
    ts_pool_run(cpu->pool, rms_task, &job, rows);
}

void ts_cpu_layer_norm(const ts_cpu *cpu, const float *x, int64_t rows, int64_t h, const void *w,
                       ts_dtype w_dtype, const void *b, ts_dtype b_dtype, double eps, float *y)
{
    /* The weight and bias widened to f32 once per call, not per element of every row (the same
     * values; without the memory the per-element widening serves). */
    float *wb = (w_dtype != TS_DTYPE_F32 || b_dtype != TS_DTYPE_F32) ? malloc(sizeof(float) * 2 * (size_t)h) : NULL;
    if (wb) {
        for (int64_t i = 0; i < h; i++) wb[i] = ts_cpu_bias_at(w, w_dtype, i), wb[h + i] = ts_cpu_bias_at(b, b_dtype, i);
        w = wb, b = wb + h, w_dtype = b_dtype = TS_DTYPE_F32;
    }
    norm_job job = {x, h, w, b, w_dtype, b_dtype, eps, 0, y};
    ts_pool_run(cpu->pool, layer_task, &job, rows);
    free(wb);
}
