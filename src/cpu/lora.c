/* lora.c — the per-row LoRA delta (cpu/lora.h). Plain loops: the delta costs r·(in + out) per row
 * against the base's in·out, so it stays well under the base matmul for the published ranks. */
#include "cpu/lora.h"

ts_status ts_cpu_lora_delta(const ts_cpu *cpu, const ts_lora_shape *s, const float *x,
                            const float *a, const float *b, const float *scale,
                            const int32_t *index, float *y, void *scratch, ts_error *err)
{
    (void)cpu;
    for (int64_t i = 0; i < s->m; i++)
        if (index[i] < 0 || index[i] >= s->adapters)
            return ts_error_set(err, TS_ERR_RANGE,
                                "lora_linear: row %lld selects adapter %d (0..%lld)", (long long)i,
                                index[i], (long long)s->adapters - 1);
    float *t = scratch;
    for (int64_t i = 0; i < s->m; i++) {
        int32_t k = index[i];
        /* Adapter 0 by convention and any adapter with scale 0 add nothing: skip the work. */
        if (scale[k] == 0.0f) continue;
        const float *xi = x + i * s->in, *ak = a + (size_t)k * (size_t)(s->rank * s->in);
        float *ti = t + i * s->rank;
        for (int64_t j = 0; j < s->rank; j++) {
            const float *row = ak + j * s->in;
            float acc = 0.0f;
            for (int64_t c = 0; c < s->in; c++) acc += row[c] * xi[c];
            ti[j] = acc;
        }
        const float *bk = b + (size_t)k * (size_t)(s->out * s->rank);
        float *yi = y + i * s->out;
        for (int64_t o = 0; o < s->out; o++) {
            const float *row = bk + o * s->rank;
            float acc = 0.0f;
            for (int64_t j = 0; j < s->rank; j++) acc += row[j] * ti[j];
            yi[o] += acc * scale[k];
        }
    }
    return TS_OK;
}
