/* mlp.c — gated MLP: down(act(x·gateᵀ) ⊙ x·upᵀ), and the activations.
 *
 * Under the one-pass bf16 policy with many rows, act(gate) ⊙ up is rounded to bf16 as it is made,
 * straight into the buffer that the down projection reads (one pass over the [m, inter] product
 * instead of three: it is the largest activation of a prefill); with our own bf16 GEMM, gate and
 * up themselves are made a column block at a time beside it, so neither is ever a whole f32
 * product. SiLU takes the vector logistic kernel (within 3 ulp of expf; the f32 policy keeps
 * expf).
 */
#include "cpu/ops.h"

#include <math.h>

float ts_cpu_activation(ts_activation act, float x)
{
    switch (act) {
    case TS_ACT_SILU: return x / (1.0f + expf(-x));
    case TS_ACT_GELU: return 0.5f * x * (1.0f + erff(x * (float)M_SQRT1_2));
    case TS_ACT_GELU_TANH: {
        float inner = (float)sqrt(2.0 / M_PI) * (x + 0.044715f * x * x * x);
        return 0.5f * x * (1.0f + tanhf(inner));
    }
    case TS_ACT_QUICK_GELU: return x / (1.0f + expf(-1.702f * x));
    default: return NAN;
    }
}

size_t ts_cpu_gated_mlp_scratch_bytes(int64_t m, int64_t inter) { return sizeof(float) * (size_t)(2 * m * inter); }

typedef struct {
    const ts_kernels *kern; /* its logistic kernel for SiLU, or NULL: expf */
    float *gate;
    const float *up;
    int64_t n, pieces; /* pieces of GATE_PIECE values a row, a task each */
    ts_activation act;
} gate_job;

#define GATE_PIECE 1024

/* out[i] = act(g[i]) · u[i] (out may be g). */
static void gate_row(ts_activation act, const float *g, const float *u, float *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = ts_cpu_activation(act, g[i]) * u[i];
}

/* One piece of one row, so that a decode step's few rows still use every thread. */
static void gate_task(void *arg, int64_t task, int worker)
{
    (void)worker;
    const gate_job *j = arg;
    int64_t row = task / j->pieces, c0 = task % j->pieces * GATE_PIECE;
    int64_t len = j->n - c0 < GATE_PIECE ? j->n - c0 : GATE_PIECE;
    float *g = j->gate + row * j->n + c0;
    const float *u = j->up + row * j->n + c0;
    if (!j->kern) {
        gate_row(j->act, g, u, g, len);
        return;
    }
    j->kern->silu_f32(g, NULL, u, g, (size_t)len); /* SiLU(g) · u by the vector kernel */
}

typedef struct {
    const ts_kernels *kern;
    const float *gate, *up;
    uint16_t *out;
    int64_t n;
    ts_activation act;
} gate_bf16_job;

static void gate_bf16_task(void *arg, int64_t row, int worker)
{
    (void)worker;
    const gate_bf16_job *j = arg;
    const float *g = j->gate + row * j->n, *u = j->up + row * j->n;
    float t[256];
    for (int64_t c0 = 0; c0 < j->n; c0 += 256) {
        size_t len = (size_t)(j->n - c0 < 256 ? j->n - c0 : 256);
        if (j->act == TS_ACT_SILU) {
            j->kern->silu_f32(g + c0, NULL, u + c0, t, len);
        } else {
            gate_row(j->act, g + c0, u + c0, t, (int64_t)len);
        }
        j->kern->f32_to_bf16(t, j->out + row * j->n + c0, len);
    }
}

/* Columns of gate and up per task of the fused path: every row's products for them, in the
 * worker's own buffers, then act(gate)·up rounded to bf16. */
#define GATE_UP_COLUMNS TS_GEMM_COLUMNS

typedef struct {
    const ts_kernels *kern;
    const uint16_t *xb; /* x rounded to bf16 */
    int64_t m, h, inter;
    const uint16_t *w_gate, *w_up;
    ts_activation act;
    uint16_t *out;
    float *local; /* per worker: gate, then up, m × GATE_UP_COLUMNS floats each */
} gate_up_job;

static void gate_up_task(void *arg, int64_t task, int worker)
{
    const gate_up_job *j = arg;
    _Alignas(64) float panel[TS_GEMM_PANEL_FLOATS];
    int64_t n0 = task * GATE_UP_COLUMNS, cols = j->inter - n0 < GATE_UP_COLUMNS ? j->inter - n0 : GATE_UP_COLUMNS;
    float *g = j->local + (size_t)worker * 2 * (size_t)(j->m * GATE_UP_COLUMNS), *u = g + j->m * cols;
    j->kern->gemm_bf16(j->xb, j->m, j->h, j->w_gate + n0 * j->h, 0, cols, NULL, g, cols, panel);
    j->kern->gemm_bf16(j->xb, j->m, j->h, j->w_up + n0 * j->h, 0, cols, NULL, u, cols, panel);
    float t[GATE_UP_COLUMNS];
    for (int64_t r = 0; r < j->m; r++) {
        const float *gr = g + r * cols, *ur = u + r * cols;
        if (j->act == TS_ACT_SILU) j->kern->silu_f32(gr, NULL, ur, t, (size_t)cols);
        else gate_row(j->act, gr, ur, t, cols);
        j->kern->f32_to_bf16(t, j->out + r * j->inter + n0, (size_t)cols);
    }
}

/* The fused bf16 path applies: one-pass bf16 products, bf16 weights, one tiled run of rows. */
static bool fused_bf16(const ts_cpu *cpu, int64_t m, int64_t inter, ts_dtype w_dtype)
{
    int64_t rows[64];
    bool tiled[64];
    return cpu->act && cpu->bf16_passes == 1 && w_dtype == TS_DTYPE_BF16 && inter % 2 == 0 &&
           (cpu->kernels->gemm_bf16 || cpu->onednn) && ts_cpu_row_runs(cpu, m, rows, tiled) == 1 && tiled[0];
}

ts_status ts_cpu_gated_mlp(const ts_cpu *cpu, const float *x, int64_t m, int64_t h, const void *w_gate,
                           const void *w_up, const void *w_down, ts_dtype w_dtype, int64_t inter,
                           ts_activation act, float *y, void *scratch, ts_error *err)
{
    float *gate = scratch, *up = gate + m * inter;
    /* Our own bf16 kernel: gate and up a few columns at a time, act(gate)·up made while they are
     * in cache, in bf16 (the same bits as the three passes below, which wrote and read two f32
     * [m, inter] products that outgrow the caches: pp512 of the 0.5B preset on 2 threads of a
     * Zen 4, alternating, 333–404 → 440–455 tok/s). Its output and the workers' buffers share
     * the scratch. */
    size_t out_bytes = (sizeof(uint16_t) * (size_t)(m * inter) + 63) & ~(size_t)63;
    size_t local_floats = 2 * (size_t)(m * GATE_UP_COLUMNS) * (size_t)ts_pool_size(cpu->pool);
    if (fused_bf16(cpu, m, inter, w_dtype) && !cpu->onednn && cpu->kernels->gemm_bf16 && h % 2 == 0 &&
        out_bytes + sizeof(float) * local_floats <= ts_cpu_gated_mlp_scratch_bytes(m, inter)) {
        const uint16_t *xb = ts_cpu_act_bf16(cpu, x, m, h, 1);
        if (!xb) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "gated MLP: out of memory");
        gate_up_job job = {cpu->kernels, xb, m, h, inter, w_gate, w_up, act, scratch,
                           (float *)((char *)scratch + out_bytes)};
        ts_pool_run(cpu->pool, gate_up_task, &job, (inter + GATE_UP_COLUMNS - 1) / GATE_UP_COLUMNS);
        return ts_cpu_linear_bf16_rows(cpu, job.out, m, inter, w_down, h, y, err);
    }
    ts_status st = ts_cpu_linear(cpu, x, m, h, w_gate, w_dtype, inter, NULL, TS_DTYPE_F32, gate, err);
    if (st == TS_OK) st = ts_cpu_linear(cpu, x, m, h, w_up, w_dtype, inter, NULL, TS_DTYPE_F32, up, err);
    if (st != TS_OK) return st;
    if (fused_bf16(cpu, m, inter, w_dtype)) {
        gate_bf16_job fj = {cpu->kernels, gate, up, ts_cpu_act_reserve(cpu, (size_t)(m * inter)), inter, act};
        if (fj.out) {
            ts_pool_run(cpu->pool, gate_bf16_task, &fj, m);
            return ts_cpu_linear_bf16_rows(cpu, fj.out, m, inter, w_down, h, y, err);
        }
    }
    /* The bf16 policy's SiLU is the vector kernel's, as in the fused path (decode rows too, so
     * that a row's bits do not depend on which path ran it); the f32 policy keeps expf. */
    bool vector_silu = act == TS_ACT_SILU && cpu->bf16_passes == 1 && w_dtype == TS_DTYPE_BF16;
    gate_job job = {vector_silu ? cpu->kernels : NULL, gate, up, inter, (inter + GATE_PIECE - 1) / GATE_PIECE, act};
    ts_pool_run(cpu->pool, gate_task, &job, m * job.pieces);
    return ts_cpu_linear(cpu, gate, m, inter, w_down, w_dtype, h, NULL, TS_DTYPE_F32, y, err);
}
