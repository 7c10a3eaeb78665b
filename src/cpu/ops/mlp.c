/* mlp.c — gated MLP: down(act(x·gateᵀ) ⊙ x·upᵀ), and the activations.
 *
 * Under the one-pass bf16 policy with many rows, act(gate) ⊙ up is rounded to bf16 as it is made,
 * straight into the program's activation buffer that the down projection reads (one pass over
 * the [m, inter] product instead of three: it is the largest activation of a prefill), and SiLU
 * takes the vector logistic kernel (within 3 ulp of expf; the f32 policy keeps expf).
 */
#include "cpu/ops.h"

#include <math.h>
#include <string.h>

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

/* out[i] = SiLU(g[i]) · u[i] by the vector logistic kernel (out must not be g). */
static void silu_up(const ts_kernels *kern, const float *g, const float *u, float *out, size_t n)
{
    kern->logistic_f32(g, out, n);
    for (size_t i = 0; i < n; i++) out[i] = g[i] * out[i] * u[i];
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
    float t[GATE_PIECE];
    silu_up(j->kern, g, u, t, (size_t)len);
    memcpy(g, t, sizeof(float) * (size_t)len);
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
            silu_up(j->kern, g + c0, u + c0, t, len);
        } else {
            gate_row(j->act, g + c0, u + c0, t, (int64_t)len);
        }
        j->kern->f32_to_bf16(t, j->out + row * j->n + c0, len);
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
