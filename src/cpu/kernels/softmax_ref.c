/* softmax_ref.c — a softmax row in place (or scaled and rounded to bf16), the logistic function
 * and the SiLU, portable (kernels.h: softmax_f32, softmax_bf16, logistic_f32, silu_f32): the
 * exponential's users. */
#include "cpu/kernels.h"

#include <math.h>
#include <string.h>

void ts_softmax_f32_ref(float *y, size_t n)
{
    float m = -INFINITY;
    for (size_t i = 0; i < n; i++) m = y[i] > m ? y[i] : m;
    if (m == -INFINITY) { /* every score masked: the decomposition gives NaN (0/0) too */
        for (size_t i = 0; i < n; i++) y[i] = NAN;
        return;
    }
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        y[i] = expf(y[i] - m);
        sum += y[i];
    }
    float inv = (float)(1.0 / sum);
    for (size_t i = 0; i < n; i++) y[i] *= inv;
}

void ts_softmax_bf16_ref(float *y, size_t n, float scale, const float *bias, uint16_t *out)
{
    for (size_t i = 0; i < n; i++) y[i] *= scale;
    for (size_t i = 0; bias && i < n; i++) y[i] += bias[i];
    ts_softmax_f32_ref(y, n);
    if (out) {
        ts_f32_to_bf16_ref(y, out, n);
        return;
    }
    for (size_t i = 0; i < n; i++) { /* rounded in place */
        uint32_t bits = (uint32_t)ts_f32_to_bf16_scalar(y[i]) << 16;
        memcpy(&y[i], &bits, sizeof(bits));
    }
}

static float logistic(float x) { return 1.0f / (1.0f + expf(-x)); }

void ts_logistic_f32_ref(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) y[i] = logistic(x[i]);
}

void ts_silu_f32_ref(const float *x, const float *scale, const float *u, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v = x[i] * logistic(scale ? x[i] * *scale : x[i]);
        y[i] = u ? v * u[i] : v;
    }
}
