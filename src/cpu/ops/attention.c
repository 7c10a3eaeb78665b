/* attention.c — scaled dot-product attention with GQA, causal limit, bias and soft-cap.
 *
 * One task per (query row, query head): scores for the visible keys only (j ≤ q_start + i when
 * causal, so a large cache capacity costs nothing beyond the filled part), softmax, then the
 * weighted sum of values. Each worker owns a slice of the scratch for its score row.
 */
#include "cpu/ops.h"

#include <math.h>
#include <string.h>

typedef struct {
    const ts_cpu *cpu;
    const ts_attention_shape *s;
    const float *q, *bias;
    const void *k, *v;
    float *out;
    float *scratch; /* lk floats per worker */
} attention_job;

/* Per worker: the score row, then (bf16 caches) one widened value row. */
size_t ts_cpu_attention_scratch_bytes(const ts_attention_shape *s, int n_workers)
{
    return sizeof(float) * (size_t)(s->lk + s->v_dim) * (size_t)n_workers;
}

static void attention_task(void *arg, int64_t task, int worker)
{
    const attention_job *j = arg;
    const ts_attention_shape *s = j->s;
    int64_t i = task / s->q_heads, h = task % s->q_heads;
    int64_t kh = h / (s->q_heads / s->kv_heads);
    int64_t visible = s->lk;
    if (s->q_start >= 0 && s->q_start + i + 1 < visible) visible = s->q_start + i + 1;
    if (visible < 0) visible = 0;
    float *scores = j->scratch + (size_t)worker * (size_t)(s->lk + s->v_dim);
    float *widened = scores + s->lk;
    bool bf16 = s->kv_dtype == TS_DTYPE_BF16;
    const float *qrow = j->q + (i * s->q_heads + h) * s->head_dim;
    float scale = (float)s->scale, cap = (float)s->softcap;
    for (int64_t t = 0; t < visible; t++) {
        size_t at = (size_t)((t * s->kv_heads + kh) * s->head_dim);
        float dot = (bf16 ? j->cpu->kernels->dot_bf16_f32((const uint16_t *)j->k + at, qrow, (size_t)s->head_dim)
                          : j->cpu->kernels->dot_f32(qrow, (const float *)j->k + at, (size_t)s->head_dim)) * scale;
        if (cap > 0) dot = tanhf(dot / cap) * cap;
        if (j->bias) dot += j->bias[i * s->lk + t];
        scores[t] = dot;
    }
    float *o = j->out + (i * s->q_heads + h) * s->v_dim;
    memset(o, 0, sizeof(float) * (size_t)s->v_dim);
    if (visible == 0) { /* no visible key: the decomposition's softmax is 0/0 */
        for (int64_t c = 0; c < s->v_dim; c++) o[c] = NAN;
        return;
    }
    ts_cpu_softmax_row(scores, visible);
    for (int64_t t = 0; t < visible; t++) {
        size_t at = (size_t)((t * s->kv_heads + kh) * s->v_dim);
        const float *vrow = (const float *)j->v + at;
        if (bf16) {
            j->cpu->kernels->bf16_to_f32((const uint16_t *)j->v + at, widened, (size_t)s->v_dim);
            vrow = widened;
        }
        float p = scores[t];
        for (int64_t c = 0; c < s->v_dim; c++) o[c] += p * vrow[c];
    }
}

void ts_cpu_attention(const ts_cpu *cpu, const ts_attention_shape *s, const float *q, const void *k,
                      const void *v, const float *bias, float *out, void *scratch)
{
    attention_job job = {.cpu = cpu, .s = s, .q = q, .bias = bias, .k = k, .v = v, .out = out, .scratch = scratch};
    ts_pool_run(cpu->pool, attention_task, &job, s->lq * s->q_heads);
}
