/* mlp.c — gated MLP: down(act(x·gateᵀ) ⊙ x·upᵀ), and the activations. */
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
    float *gate;
    const float *up;
    int64_t n;
    ts_activation act;
} gate_job;

static void gate_task(void *arg, int64_t row, int worker)
{
    (void)worker;
    const gate_job *j = arg;
    float *g = j->gate + row * j->n;
    const float *u = j->up + row * j->n;
    for (int64_t i = 0; i < j->n; i++) g[i] = ts_cpu_activation(j->act, g[i]) * u[i];
}

ts_status ts_cpu_gated_mlp(const ts_cpu *cpu, const float *x, int64_t m, int64_t h, const void *w_gate,
                           const void *w_up, const void *w_down, ts_dtype w_dtype, int64_t inter,
                           ts_activation act, float *y, void *scratch, ts_error *err)
{
    float *gate = scratch, *up = gate + m * inter;
    ts_status st = ts_cpu_linear(cpu, x, m, h, w_gate, w_dtype, inter, NULL, TS_DTYPE_F32, gate, err);
    if (st == TS_OK) st = ts_cpu_linear(cpu, x, m, h, w_up, w_dtype, inter, NULL, TS_DTYPE_F32, up, err);
    if (st != TS_OK) return st;
    gate_job job = {gate, up, inter, act};
    ts_pool_run(cpu->pool, gate_task, &job, m);
    return ts_cpu_linear(cpu, gate, m, inter, w_down, w_dtype, h, NULL, TS_DTYPE_F32, y, err);
}
