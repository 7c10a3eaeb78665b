/* lora.c — the per-row LoRA delta (cpu/lora.h), as two linears per adapter over the rows that
 * chose it: t = x_k·Aᵀ [m_k, r], d = t·Bᵀ [m_k, out], y += d · scale. Rows are grouped by adapter
 * (gathered only when the step mixes adapters), so a prefill with one adapter runs the pool's
 * GEMM on its rows in place and a mixed decode step streams each adapter's A and B once. */
#include "cpu/lora.h"

#include <string.h>

size_t ts_cpu_lora_scratch_bytes(const ts_lora_shape *s)
{
    return sizeof(float) * (size_t)s->m * (size_t)(s->in + s->rank + s->out) +
           sizeof(int64_t) * (size_t)s->m;
}

ts_status ts_cpu_lora_delta(const ts_cpu *cpu, const ts_lora_shape *s, const float *x,
                            const void *a, const void *b, const float *scale,
                            const int32_t *index, float *y, void *scratch, ts_error *err)
{
    for (int64_t i = 0; i < s->m; i++)
        if (index[i] < 0 || index[i] >= s->adapters)
            return ts_error_set(err, TS_ERR_RANGE,
                                "lora_linear: row %lld selects adapter %d (0..%lld)", (long long)i,
                                index[i], (long long)s->adapters - 1);
    float *xs = scratch, *t = xs + s->m * s->in, *d = t + s->m * s->rank;
    int64_t *rows = (int64_t *)(void *)(d + s->m * s->out);
    for (int64_t k = 0; k < s->adapters; k++) {
        /* Adapter 0 by convention, and any adapter of scale 0, adds nothing: rows keep the base. */
        if (scale[k] == 0.0f) continue;
        int64_t mk = 0;
        for (int64_t i = 0; i < s->m; i++)
            if (index[i] == k) rows[mk++] = i;
        if (mk == 0) continue;
        const float *xk = x;
        if (mk < s->m) {
            for (int64_t j = 0; j < mk; j++)
                memcpy(xs + j * s->in, x + rows[j] * s->in, sizeof(float) * (size_t)s->in);
            xk = xs;
        }
        size_t size = ts_dtype_size(s->dtype);
        const void *ak = (const uint8_t *)a + (size_t)k * (size_t)(s->rank * s->in) * size,
                   *bk = (const uint8_t *)b + (size_t)k * (size_t)(s->out * s->rank) * size;
        ts_status st = ts_cpu_linear(cpu, xk, mk, s->in, ak, s->dtype, s->rank, NULL,
                                     TS_DTYPE_F32, t, err);
        if (st == TS_OK)
            st = ts_cpu_linear(cpu, t, mk, s->rank, bk, s->dtype, s->out, NULL, TS_DTYPE_F32, d,
                               err);
        if (st != TS_OK) return st;
        for (int64_t j = 0; j < mk; j++) {
            float *yi = y + rows[j] * s->out;
            const float *dj = d + j * s->out;
            for (int64_t o = 0; o < s->out; o++) yi[o] += dj[o] * scale[k];
        }
    }
    return TS_OK;
}
