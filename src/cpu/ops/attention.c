/* attention.c — scaled dot-product attention with GQA, causal limit, bias and soft-cap.
 *
 * Few query rows (decode): one task per (query row, query head): scores for the visible keys
 * only (j ≤ q_start + i when causal, so a large cache capacity costs nothing beyond the filled
 * part), softmax, then the weighted sum of values.
 *
 * Many query rows (prefill, vision towers), where the CPU has the tiled GEMM: one task per query
 * head. The head's keys are copied contiguous and its values transposed once, then blocks of
 * queries (block_rows) run S = Q·Kᵀ and O = P·V as GEMMs over the visible keys of the block. Each worker
 * owns its slice of the scratch.
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

#define GEMM_MIN_QUERIES 4

/* Query rows per block on the GEMM path: each block repacks the head's keys and values into GEMM
 * panels, so more rows per block amortise that (a 1024-patch tower's attention: 64 → 256 rows,
 * 54 → 46 ms per layer on one thread), as long as the block's scores stay within 4 MB
 * (1M floats). Every element's sums run over the same keys in the same order whatever the
 * block, so the results do not depend on it. */
static int64_t block_rows(const ts_attention_shape *s)
{
    int64_t bq = 256;
    while (bq > 64 && bq * s->lk > ((int64_t)1 << 20)) bq /= 2;
    return bq < s->lq ? bq : s->lq;
}

static bool use_gemm(const ts_cpu *cpu, const ts_attention_shape *s)
{
    return cpu->kernels->gemm_f32 && s->lq >= GEMM_MIN_QUERIES && s->kv_dtype == TS_DTYPE_F32;
}

/* Floats per worker on the GEMM path: K [lk, d], Vᵀ [dv, lk], Q block [bq, d], S [bq, lk],
 * O block [bq, dv], one GEMM panel. */
static size_t gemm_floats(const ts_attention_shape *s)
{
    int64_t bq = block_rows(s);
    return (size_t)(s->lk * s->head_dim + s->v_dim * s->lk + bq * s->head_dim + bq * s->lk + bq * s->v_dim) + TS_GEMM_PANEL_FLOATS + 16;
}

/* Per worker: the score row, then (bf16 caches) one widened value row; or the GEMM path's. */
size_t ts_cpu_attention_scratch_bytes(const ts_attention_shape *s, int n_workers)
{
    size_t row = (size_t)(s->lk + s->v_dim), gemm = s->lq >= GEMM_MIN_QUERIES ? gemm_floats(s) : 0;
    return sizeof(float) * (row > gemm ? row : gemm) * (size_t)n_workers;
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
    ts_cpu_softmax_row(j->cpu->kernels, scores, visible);
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

static void head_task(void *arg, int64_t h, int worker)
{
    const attention_job *j = arg;
    const ts_attention_shape *s = j->s;
    int64_t bq = block_rows(s), d = s->head_dim, dv = s->v_dim, lk = s->lk, kh = h / (s->q_heads / s->kv_heads);
    float *base = j->scratch + (size_t)worker * gemm_floats(s);
    float *kc = base, *vt = kc + lk * d, *qb = vt + dv * lk, *sc = qb + bq * d, *ob = sc + bq * lk;
    float *panel = (float *)(((uintptr_t)(ob + bq * dv) + 63) & ~(uintptr_t)63);
    /* The visible keys of the whole head: causal rows never look past q_start + lq − 1. */
    int64_t keys = lk;
    if (s->q_start >= 0 && s->q_start + s->lq < keys) keys = s->q_start + s->lq;
    const float *k = j->k, *v = j->v;
    for (int64_t t = 0; t < keys; t++) memcpy(kc + t * d, k + (t * s->kv_heads + kh) * d, sizeof(float) * (size_t)d);
    /* Vᵀ in tiles of 16 keys, so each of vt's rows is written 16 floats at a time (one key at a
     * time, every store went to another row: ~8% of a tower layer's attention). */
    for (int64_t t0 = 0; t0 < keys; t0 += 16) {
        int64_t t1 = t0 + 16 < keys ? t0 + 16 : keys;
        for (int64_t c = 0; c < dv; c++)
            for (int64_t t = t0; t < t1; t++) vt[c * keys + t] = v[(t * s->kv_heads + kh) * dv + c];
    }
    float scale = (float)s->scale, cap = (float)s->softcap;
    for (int64_t i0 = 0; i0 < s->lq; i0 += bq) {
        int64_t rows = s->lq - i0 < bq ? s->lq - i0 : bq;
        int64_t block_keys = keys;
        if (s->q_start >= 0 && s->q_start + i0 + rows < block_keys) block_keys = s->q_start + i0 + rows;
        for (int64_t r = 0; r < rows; r++) memcpy(qb + r * d, j->q + ((i0 + r) * s->q_heads + h) * d, sizeof(float) * (size_t)d);
        j->cpu->kernels->gemm_f32(qb, rows, d, kc, TS_DTYPE_F32, d, 0, block_keys, sc, block_keys, panel);
        for (int64_t r = 0; r < rows; r++) {
            float *row = sc + r * block_keys;
            int64_t visible = block_keys;
            if (s->q_start >= 0 && s->q_start + i0 + r + 1 < visible) visible = s->q_start + i0 + r + 1;
            /* Scale, soft-cap, bias: in that order, one pass each (the common one vectorizes). */
            for (int64_t t = 0; t < visible; t++) row[t] *= scale;
            if (cap > 0)
                for (int64_t t = 0; t < visible; t++) row[t] = tanhf(row[t] / cap) * cap;
            if (j->bias)
                for (int64_t t = 0; t < visible; t++) row[t] += j->bias[(i0 + r) * lk + t];
            for (int64_t t = visible; t < block_keys; t++) row[t] = -INFINITY; /* softmax weight exactly 0 */
            ts_cpu_softmax_row(j->cpu->kernels, row, block_keys);
        }
        /* O = P · V: V transposed is the GEMM's [out, in] weight; its rows are `keys` apart and
         * a causal block uses the first block_keys columns. */
        j->cpu->kernels->gemm_f32(sc, rows, block_keys, vt, TS_DTYPE_F32, keys, 0, dv, ob, dv, panel);
        for (int64_t r = 0; r < rows; r++) memcpy(j->out + ((i0 + r) * s->q_heads + h) * dv, ob + r * dv, sizeof(float) * (size_t)dv);
    }
}

void ts_cpu_attention(const ts_cpu *cpu, const ts_attention_shape *s, const float *q, const void *k,
                      const void *v, const float *bias, float *out, void *scratch)
{
    if (use_gemm(cpu, s)) {
        attention_job job = {.cpu = cpu, .s = s, .q = q, .bias = bias, .k = k, .v = v, .out = out, .scratch = scratch};
        ts_pool_run(cpu->pool, head_task, &job, s->q_heads);
        return;
    }
    attention_job job = {.cpu = cpu, .s = s, .q = q, .bias = bias, .k = k, .v = v, .out = out, .scratch = scratch};
    ts_pool_run(cpu->pool, attention_task, &job, s->lq * s->q_heads);
}
