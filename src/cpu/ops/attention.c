/* attention.c — scaled dot-product attention with GQA, causal limit, bias and soft-cap.
 *
 * Few query rows (decode): one task per (query row, kv head, part of its group of query heads):
 * scores for the visible keys only (j ≤ q_start + i when causal, so a large cache capacity costs
 * nothing beyond the filled part), softmax, then the weighted sum of values, each key and value
 * row loaded once for the group's heads.
 *
 * Many query rows (prefill, vision towers), where the CPU has the tiled GEMM: one task per query
 * head. The head's keys are copied contiguous and its values transposed once, then blocks of
 * queries (block_rows) run S = Q·Kᵀ and O = P·V as GEMMs over the visible keys of the block. Each worker
 * owns its slice of the scratch.
 *
 * Under the one-pass bf16 policy in a program with bf16 or quantized weights (ts_cpu.
 * bf16_attention; where the kernels have gemm_bf16_panel or gemm_f32_panel, head_dim even):
 * queries, keys and values rounded to bf16 once per call in memory order (queries regrouped head
 * by head), keys and values then packed into the bf16 GEMM's panels (shared by the query heads
 * of a group), then one task per (query head, block of BF16_ROWS queries): S = Q·Kᵀ over the
 * 32-key panels the block can see (a causal block skips the rest), softmax in f32, P rounded to
 * bf16, O = P·V written in place. VDPBF16PS doubles the f32 FMA rate on AMD cores; Intel's table
 * has no pair panel (its FMAs are twice VDPBF16PS's rate there), so the packs are widened to f32
 * once and the same products run as FMAs (widened()). The small blocks skip most of the causal
 * triangle's masked half. A row's result depends only on that row (masked keys add exact zeros),
 * so it does not depend on the block or the row count.
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
    float *scratch; /* per worker: GROUP_HEADS score rows of lk, one value row (or the GEMM path's) */
    int64_t parts;  /* decode: group_parts */
} attention_job;

#define GEMM_MIN_QUERIES 4

/* Query heads per decode task at most: the heads of a kv head's group share each key and value
 * row loaded (dot_heads_f32, weighted_sum_f32); their score rows are the task's scratch. */
#define GROUP_HEADS 8

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

#define BF16_ROWS 64
#define PANEL 32 /* keys (S) or value columns (O) per packed panel: TS_GEMM_COLUMNS */
/* S's rows (and P's widened) are a panel's keys + 16 floats apart: at 1024 keys, 4 KB apart, a
 * tile's 8 rows fell in one L1 set. */
#define S_PAD 16

/* From TS_CPU_TILED_ROWS queries, as the linears' bf16 tiles: fewer rows (decode, speculative
 * verify) keep the f32 path, so a verify row gets the bits the plain decode row gets. `bf16_shape`:
 * what the program's shape decides (its scratch is sized by it); use_bf16 adds the call's. */
static bool bf16_shape(const ts_cpu *cpu, const ts_attention_shape *s)
{
    const ts_kernels *k = cpu->kernels;
    return cpu->bf16_attention && k->gemm_bf16 && (k->gemm_bf16_panel || k->gemm_f32_panel) &&
           s->lq >= TS_CPU_TILED_ROWS && s->head_dim % 2 == 0 && s->head_dim > 0 && s->v_dim > 0;
}

static bool use_bf16(const ts_cpu *cpu, const ts_attention_shape *s)
{
    return bf16_shape(cpu, s) && !cpu->decode_rows && s->kv_dtype == TS_DTYPE_F32;
}

/* Where the table's bf16 products run as f32 FMAs (no gemm_bf16_panel), the rounded keys and
 * values are packed widened to f32 once, for gemm_f32_panel, and each block's queries and
 * weights widened once: the pair panel's tile split every pair and widened its queries again
 * for each 32-key panel (a fifth of its issue slots). The products and the order of their sums
 * are those of that pair tile (one FMA a product, k in order), so are the bits; VDPBF16PS's pair
 * panel sums in another order. */
static bool widened(const ts_kernels *k) { return !k->gemm_bf16_panel; }

/* u32 words a pair of packed keys' or values' elements takes: one pair, or two widened floats. */
static int64_t pack_words(const ts_kernels *k) { return widened(k) ? 2 : 1; }

static int64_t round_up(int64_t n, int64_t to) { return (n + to - 1) / to * to; }

/* bf16 path bytes: packed keys [kv][lk/32][d/2][32] and values [kv][dv/32][lk/2][32] (u32 pairs;
 * widened, twice the bytes: f32 [d][32] and [lk][32]), the rounded queries [heads][lq][d], keys
 * [lk][kv][d] and values [lk][kv][dv]; then per worker S [bq, lk + S_PAD] in f32 and P [bq, lk]
 * in bf16, or when widened S (then P in f32 over it) and the block's queries [bq, d] in f32. */
static size_t bf16_shared_bytes(const ts_kernels *k, const ts_attention_shape *s)
{
    int64_t lk = round_up(s->lk, PANEL);
    int64_t packed = s->kv_heads * lk * (s->head_dim + round_up(s->v_dim, PANEL));
    int64_t rounded =
        s->q_heads * s->lq * s->head_dim + s->lk * s->kv_heads * (s->head_dim + s->v_dim);
    int64_t bytes = (int64_t)sizeof(uint16_t) * (pack_words(k) * packed + rounded);
    return (size_t)round_up(bytes, 64);
}

static size_t bf16_worker_bytes(const ts_kernels *k, const ts_attention_shape *s)
{
    int64_t lk = round_up(s->lk, PANEL), bq = BF16_ROWS, scores = bq * (lk + S_PAD);
    int64_t bytes = widened(k) ? (int64_t)sizeof(float) * (scores + bq * s->head_dim)
                               : (int64_t)(sizeof(float) * scores + sizeof(uint16_t) * bq * lk);
    return (size_t)round_up(bytes, 64);
}

static bool use_gemm(const ts_cpu *cpu, const ts_attention_shape *s)
{
    return cpu->kernels->gemm_f32 && !cpu->decode_rows && s->lq >= GEMM_MIN_QUERIES && s->kv_dtype == TS_DTYPE_F32;
}

/* Floats per worker on the GEMM path: K [lk, d], Vᵀ [dv, lk], Q block [bq, d], S [bq, lk],
 * O block [bq, dv], one GEMM panel. */
static size_t gemm_floats(const ts_attention_shape *s)
{
    int64_t bq = block_rows(s);
    return (size_t)(s->lk * s->head_dim + s->v_dim * s->lk + bq * s->head_dim + bq * s->lk + bq * s->v_dim) + TS_GEMM_PANEL_FLOATS + 16;
}

/* Per worker: GROUP_HEADS score rows, then (bf16 caches) one widened value row; or the GEMM path's. */
size_t ts_cpu_attention_scratch_bytes(const ts_cpu *cpu, const ts_attention_shape *s)
{
    int n_workers = ts_pool_size(cpu->pool);
    size_t row = (size_t)(GROUP_HEADS * s->lk + s->v_dim), gemm = s->lq >= GEMM_MIN_QUERIES ? gemm_floats(s) : 0;
    size_t f32 = sizeof(float) * (row > gemm ? row : gemm) * (size_t)n_workers;
    size_t bf16 = bf16_shape(cpu, s)
                      ? 64 + bf16_shared_bytes(cpu->kernels, s) +
                            bf16_worker_bytes(cpu->kernels, s) * (size_t)n_workers
                      : 0;
    return f32 > bf16 ? f32 : bf16;
}

/* Of the first `keys` keys, those the query rows before row `end` can see: all of them, or when
 * causal up to q_start + end (row i sees keys j ≤ q_start + i). */
static int64_t causal_keys(const ts_attention_shape *s, int64_t end, int64_t keys)
{
    return s->q_start >= 0 && s->q_start + end < keys ? s->q_start + end : keys;
}

/* Query row i's scores over the first `keys` keys (raw Q·K in row[]) made its softmax weights:
 * scale, soft-cap, bias, in that order, one pass each (the common one vectorizes); keys past the
 * causal limit −inf, so their weight is exactly 0. When `rounded`, the weights are rounded to
 * bf16 by softmax_bf16, into `out` (row[] is then scratch) or without one back into row[], which
 * also applies the scale and the bias when nothing comes between them and the softmax (no cap; a
 * positive scale keeps −inf at −inf; every key visible, as the bias is not added to the masked
 * ones), else a scale of 1. */
static void softmax_scores(const ts_kernels *kern, const ts_attention_shape *s, const float *bias,
                           int64_t i, float *row, int64_t keys, bool rounded, uint16_t *out)
{
    float scale = (float)s->scale, cap = (float)s->softcap;
    int64_t visible = causal_keys(s, i + 1, keys);
    const float *bias_row = bias ? bias + i * s->lk : NULL;
    bool kernel_scales = rounded && !(cap > 0) && scale > 0 && (!bias || visible == keys);
    for (int64_t t = 0; !kernel_scales && t < visible; t++) row[t] *= scale;
    if (cap > 0)
        for (int64_t t = 0; t < visible; t++) row[t] = tanhf(row[t] / cap) * cap;
    for (int64_t t = 0; bias && !kernel_scales && t < visible; t++) row[t] += bias_row[t];
    for (int64_t t = visible; t < keys; t++) row[t] = -INFINITY;
    if (!rounded) ts_cpu_softmax_row(kern, row, keys);
    else if (kernel_scales) kern->softmax_bf16(row, (size_t)keys, scale, bias_row, out);
    else kern->softmax_bf16(row, (size_t)keys, 1.0f, NULL, out);
}

/* Parts each kv head's group of query heads is split into: no part over GROUP_HEADS, and enough
 * tasks for the workers. A head's numbers do not depend on the heads beside it, so neither the
 * split nor the row count changes any result. */
static int64_t group_parts(const ts_cpu *cpu, const ts_attention_shape *s)
{
    int64_t group = s->q_heads / s->kv_heads, parts = (group + GROUP_HEADS - 1) / GROUP_HEADS;
    while (parts < group && s->lq * s->kv_heads * parts < ts_pool_size(cpu->pool)) parts++;
    return parts;
}

/* Scores of query heads h0 … h0 + nh − 1 (one kv head's) for query row i over its visible keys. */
static void group_scores(const attention_job *j, int64_t i, int64_t h0, int nh, int64_t kh, int64_t visible,
                         float *scores)
{
    const ts_attention_shape *s = j->s;
    const ts_kernels *kern = j->cpu->kernels;
    size_t ldk = (size_t)(s->kv_heads * s->head_dim), d = (size_t)s->head_dim, lk = (size_t)s->lk;
    const float *q = j->q + (i * s->q_heads + h0) * s->head_dim;
    bool bf16 = s->kv_dtype == TS_DTYPE_BF16;
    if (!bf16 && kern->dot_heads_f32) {
        kern->dot_heads_f32(q, d, nh, (const float *)j->k + kh * s->head_dim, ldk, (size_t)visible, d, scores, lk);
        return;
    }
    for (int h = 0; h < nh; h++)
        for (int64_t t = 0; t < visible; t++) {
            size_t at = (size_t)((t * s->kv_heads + kh) * s->head_dim);
            scores[(size_t)h * lk + (size_t)t] = bf16 ? kern->dot_bf16_f32((const uint16_t *)j->k + at, q + h * d, d)
                                                      : kern->dot_f32(q + h * d, (const float *)j->k + at, d);
        }
}

/* One task per (query row, kv head, part of its group of query heads): scores for the visible
 * keys only (j ≤ q_start + i when causal, so a large cache capacity costs nothing beyond the
 * filled part), softmax, then the weighted sum of values. */
static void attention_task(void *arg, int64_t task, int worker)
{
    const attention_job *j = arg;
    const ts_attention_shape *s = j->s;
    int64_t parts = j->parts, group = s->q_heads / s->kv_heads;
    int64_t i = task / (s->kv_heads * parts), kh = task / parts % s->kv_heads, part = task % parts;
    int64_t h0 = kh * group + part * group / parts, h1 = kh * group + (part + 1) * group / parts;
    int nh = (int)(h1 - h0);
    int64_t visible = causal_keys(s, i + 1, s->lk);
    if (visible < 0) visible = 0;
    float *scores = j->scratch + (size_t)worker * (size_t)(GROUP_HEADS * s->lk + s->v_dim);
    float *widened = scores + GROUP_HEADS * s->lk;
    float *o = j->out + (i * s->q_heads + h0) * s->v_dim;
    if (visible == 0) { /* no visible key: the decomposition's softmax is 0/0 */
        for (int64_t c = 0; c < nh * s->v_dim; c++) o[c] = NAN;
        return;
    }
    group_scores(j, i, h0, nh, kh, visible, scores);
    const ts_kernels *kern = j->cpu->kernels;
    for (int h = 0; h < nh; h++)
        softmax_scores(kern, s, j->bias, i, scores + h * s->lk, visible, false, NULL);
    size_t ldv = (size_t)(s->kv_heads * s->v_dim);
    if (s->kv_dtype != TS_DTYPE_BF16) {
        kern->weighted_sum_f32(scores, (size_t)s->lk, nh, (size_t)visible, (const float *)j->v + kh * s->v_dim, ldv,
                               (size_t)s->v_dim, o, (size_t)s->v_dim);
        return;
    }
    memset(o, 0, sizeof(float) * (size_t)(nh * s->v_dim));
    for (int64_t t = 0; t < visible; t++) { /* bf16 values: each row widened once, then the same sums */
        kern->bf16_to_f32((const uint16_t *)j->v + (t * s->kv_heads + kh) * s->v_dim, widened, (size_t)s->v_dim);
        for (int h = 0; h < nh; h++) {
            float p = scores[h * s->lk + t], *oh = o + h * s->v_dim;
            for (int64_t c = 0; c < s->v_dim; c++) oh[c] += p * widened[c];
        }
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
    int64_t keys = causal_keys(s, s->lq, lk);
    const float *k = j->k, *v = j->v;
    for (int64_t t = 0; t < keys; t++) memcpy(kc + t * d, k + (t * s->kv_heads + kh) * d, sizeof(float) * (size_t)d);
    /* Vᵀ in tiles of 16 keys, so each of vt's rows is written 16 floats at a time (one key at a
     * time, every store went to another row: ~8% of a tower layer's attention). */
    for (int64_t t0 = 0; t0 < keys; t0 += 16) {
        int64_t t1 = t0 + 16 < keys ? t0 + 16 : keys;
        for (int64_t c = 0; c < dv; c++)
            for (int64_t t = t0; t < t1; t++) vt[c * keys + t] = v[(t * s->kv_heads + kh) * dv + c];
    }
    for (int64_t i0 = 0; i0 < s->lq; i0 += bq) {
        int64_t rows = s->lq - i0 < bq ? s->lq - i0 : bq;
        int64_t block_keys = causal_keys(s, i0 + rows, keys);
        for (int64_t r = 0; r < rows; r++) memcpy(qb + r * d, j->q + ((i0 + r) * s->q_heads + h) * d, sizeof(float) * (size_t)d);
        j->cpu->kernels->gemm_f32(qb, rows, d, kc, TS_DTYPE_F32, d, 0, block_keys, sc, block_keys, panel);
        for (int64_t r = 0; r < rows; r++)
            softmax_scores(j->cpu->kernels, s, j->bias, i0 + r, sc + r * block_keys, block_keys,
                           false, NULL);
        /* O = P · V: V transposed is the GEMM's [out, in] weight; its rows are `keys` apart and
         * a causal block uses the first block_keys columns. */
        j->cpu->kernels->gemm_f32(sc, rows, block_keys, vt, TS_DTYPE_F32, keys, 0, dv, ob, dv, panel);
        for (int64_t r = 0; r < rows; r++) memcpy(j->out + ((i0 + r) * s->q_heads + h) * dv, ob + r * dv, sizeof(float) * (size_t)dv);
    }
}

typedef struct {
    const ts_cpu *cpu;
    const ts_attention_shape *s;
    const float *q, *k, *v, *bias;
    float *out;
    int64_t keys, lk; /* visible keys of the whole call; lk rounded up to PANEL */
    int64_t used;     /* key panels holding visible keys (only those are packed) */
    uint32_t *kpack, *vpack; /* u32 pairs, or f32 when widened */
    uint16_t *qb, *kb, *vb; /* rounded: queries [heads][lq][d], keys [keys][kv][d], values
                             * [keys][kv][dv] */
    uint8_t *workers;
} bf16_job;

#define ROUND_ROWS 16 /* query or key rows per rounding task */

/* Rows r0 … r0 + 15 of the queries, then of the visible keys and values, rounded to bf16 (the
 * scalar rounding's bits) in memory order: the queries into head-major rows, each head's block
 * then one A operand; the keys and values as they lie. Rounding them where they were used read
 * 80-float rows 5 KB apart (a tower's 16 heads), each a cache and TLB miss: a tenth of a tower
 * layer's attention on one thread. */
static void bf16_round_task(void *arg, int64_t task, int worker)
{
    (void)worker;
    const bf16_job *j = arg;
    const ts_attention_shape *s = j->s;
    const ts_kernels *kern = j->cpu->kernels;
    int64_t q_tasks = (s->lq + ROUND_ROWS - 1) / ROUND_ROWS, d = s->head_dim, dv = s->v_dim;
    bool query = task < q_tasks;
    int64_t r0 = (query ? task : task - q_tasks) * ROUND_ROWS, rows = query ? s->lq : j->keys;
    int64_t r1 = r0 + ROUND_ROWS < rows ? r0 + ROUND_ROWS : rows;
    int64_t kd = s->kv_heads * d, kdv = s->kv_heads * dv;
    for (int64_t r = r0; r < r1; r++) {
        if (query) {
            for (int64_t h = 0; h < s->q_heads; h++)
                kern->f32_to_bf16(j->q + (r * s->q_heads + h) * d, j->qb + (h * s->lq + r) * d,
                                  (size_t)d);
            continue;
        }
        kern->f32_to_bf16(j->k + r * kd, j->kb + r * kd, (size_t)kd);
        kern->f32_to_bf16(j->v + r * kdv, j->vb + r * kdv, (size_t)kdv);
    }
}

/* Keys t0 … t0 + 31 of kv head kh (rounded) into their key panel, transposed by
 * pack_u32_panel, and their rows of the value panels, pairs of keys interleaved; or when widened,
 * both in f32. */
static void bf16_pack_task(void *arg, int64_t task, int worker)
{
    (void)worker;
    const bf16_job *j = arg;
    const ts_attention_shape *s = j->s;
    const ts_kernels *kern = j->cpu->kernels;
    int64_t kh = task / j->used, t0 = task % j->used * PANEL;
    int64_t d = s->head_dim, dv = s->v_dim, dvp = round_up(dv, PANEL), ldv = s->kv_heads * dv;
    int rows = j->keys - t0 < PANEL ? (int)(j->keys - t0) : PANEL;
    const uint16_t *kb = j->kb + (t0 * s->kv_heads + kh) * d, *vb = j->vb + t0 * ldv + kh * dv;
    size_t ldk = sizeof(uint16_t) * (size_t)(s->kv_heads * d);
    if (widened(kern)) {
        /* the key panel [d][32]: its pairs [d/2][32] into the upper half, then spread down (pair
         * row p is read before rows 2p, 2p + 1 are written, and those end where p + 1 begins) */
        uint32_t *kp = j->kpack + (kh * j->lk + t0) * d, *pairs = kp + d / 2 * PANEL;
        kern->pack_u32_panel(kb, ldk, rows, (size_t)(d / 2), 0, pairs);
        for (int64_t p = 0; p < d / 2; p++) {
            uint32_t row[PANEL];
            memcpy(row, pairs + p * PANEL, sizeof(row));
            for (int c = 0; c < PANEL; c++) {
                kp[2 * p * PANEL + c] = row[c] << 16;
                kp[(2 * p + 1) * PANEL + c] = row[c] & 0xffff0000u;
            }
        }
        /* value panel cb: [lk][32], key t's row its values cb·32 … in f32 */
        for (int64_t cb = 0; cb < dvp / PANEL; cb++) {
            float *vp = (float *)j->vpack + ((kh * (dvp / PANEL) + cb) * j->lk + t0) * PANEL;
            int64_t cols = dv - cb * PANEL < PANEL ? dv - cb * PANEL : PANEL;
            for (int t = 0; t < PANEL; t++) {
                float *out = vp + t * PANEL;
                int64_t filled = t < rows ? cols : 0;
                if (t < rows) kern->bf16_to_f32(vb + t * ldv + cb * PANEL, out, (size_t)cols);
                for (int64_t c = filled; c < PANEL; c++) out[c] = 0.0f;
            }
        }
        return;
    }
    /* panel t0/32: [d/2][32], keys past the visible ones zero */
    kern->pack_u32_panel(kb, ldk, rows, (size_t)(d / 2), 0, j->kpack + (kh * j->lk + t0) * (d / 2));
    /* Branch-free loops over each pair's real columns, which the compiler vectorises (a test per
     * value made this pass 6% of a tower's attention on one thread). */
    for (int64_t cb = 0; cb < dvp / PANEL; cb++) {
        uint32_t *vp = j->vpack + ((kh * (dvp / PANEL) + cb) * j->lk + t0) / 2 * PANEL; /* pairs of keys */
        int64_t cols = dv - cb * PANEL < PANEL ? dv - cb * PANEL : PANEL;
        for (int p = 0; p < PANEL / 2; p++) {
            uint32_t *out = vp + p * PANEL;
            int64_t filled = 2 * p < rows ? cols : 0;
            if (2 * p + 1 < rows) {
                const uint16_t *r0 = vb + 2 * p * ldv + cb * PANEL, *r1 = r0 + ldv;
                for (int64_t c = 0; c < cols; c++) out[c] = r0[c] | (uint32_t)r1[c] << 16;
            } else if (2 * p < rows) {
                const uint16_t *r0 = vb + 2 * p * ldv + cb * PANEL;
                for (int64_t c = 0; c < cols; c++) out[c] = r0[c];
            }
            for (int64_t c = filled; c < PANEL; c++) out[c] = 0;
        }
    }
}

static void bf16_task(void *arg, int64_t task, int worker)
{
    const bf16_job *j = arg;
    const ts_attention_shape *s = j->s;
    const ts_kernels *kern = j->cpu->kernels;
    int64_t blocks = (s->lq + BF16_ROWS - 1) / BF16_ROWS, h = task / blocks, i0 = task % blocks * BF16_ROWS;
    int64_t d = s->head_dim, dv = s->v_dim, dvp = round_up(dv, PANEL), kh = h / (s->q_heads / s->kv_heads);
    int64_t rows = s->lq - i0 < BF16_ROWS ? s->lq - i0 : BF16_ROWS;
    int64_t block_keys = causal_keys(s, i0 + rows, j->keys);
    int64_t lkb = round_up(block_keys, PANEL); /* P's row stride: whole panels */
    int64_t lds = lkb + S_PAD;                 /* S's */
    float *sc = (float *)(j->workers + (size_t)worker * bf16_worker_bytes(kern, s));
    bool wide = widened(kern);
    uint16_t *pb = wide ? NULL : (uint16_t *)(sc + BF16_ROWS * lds); /* pairs: P */
    float *qf = wide ? sc + BF16_ROWS * lds : NULL; /* widened: the block's queries */
    const uint16_t *qb = j->qb + (h * s->lq + i0) * d;
    if (wide) kern->bf16_to_f32(qb, qf, (size_t)(rows * d));
    for (int64_t t0 = 0; t0 < block_keys; t0 += PANEL) {
        int keys = block_keys - t0 < PANEL ? (int)(block_keys - t0) : PANEL;
        if (wide)
            kern->gemm_f32_panel(qf, d, rows, d, (const float *)j->kpack + (kh * j->lk + t0) * d,
                                 keys, NULL, sc + t0, lds, false);
        else
            kern->gemm_bf16_panel(qb, d, rows, d / 2, j->kpack + (kh * j->lk + t0) * (d / 2),
                                  keys, NULL, sc + t0, lds, false);
    }
    for (int64_t r = 0; r < rows; r++) { /* P: in bf16, or widened over S */
        float *row = sc + r * lds;
        uint16_t *prow = wide ? NULL : pb + r * lkb;
        softmax_scores(kern, s, j->bias, i0 + r, row, block_keys, true, prow);
        for (int64_t t = block_keys; t < lkb; t++) /* the last panel's padding */
            if (wide) row[t] = 0.0f;
            else prow[t] = 0;
    }
    float *o = j->out + (i0 * s->q_heads + h) * dv;
    for (int64_t cb = 0; cb < dvp / PANEL; cb++) {
        int cols = dv - cb * PANEL < PANEL ? (int)(dv - cb * PANEL) : PANEL;
        int64_t panel = (kh * (dvp / PANEL) + cb) * j->lk;
        if (wide)
            kern->gemm_f32_panel(sc, lds, rows, lkb, (const float *)j->vpack + panel * PANEL, cols,
                                 NULL, o + cb * PANEL, s->q_heads * dv, false);
        else
            kern->gemm_bf16_panel(pb, lkb, rows, lkb / 2, j->vpack + panel / 2 * PANEL, cols, NULL,
                                  o + cb * PANEL, s->q_heads * dv, false);
    }
}

static void attention_bf16(const ts_cpu *cpu, const ts_attention_shape *s, const float *q, const float *k,
                           const float *v, const float *bias, float *out, void *scratch)
{
    bf16_job j = {.cpu = cpu, .s = s, .q = q, .k = k, .v = v, .bias = bias, .out = out, .lk = round_up(s->lk, PANEL)};
    j.keys = causal_keys(s, s->lq, s->lk);
    j.kpack = (uint32_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    int64_t unit = pack_words(cpu->kernels);
    j.vpack = j.kpack + unit * s->kv_heads * j.lk * s->head_dim / 2;
    j.qb = (uint16_t *)(j.vpack + unit * s->kv_heads * j.lk * round_up(s->v_dim, PANEL) / 2);
    j.kb = j.qb + s->q_heads * s->lq * s->head_dim;
    j.vb = j.kb + s->lk * s->kv_heads * s->head_dim;
    j.workers = (uint8_t *)j.kpack + bf16_shared_bytes(cpu->kernels, s);
    /* Only the visible keys are rounded and packed (a cache's capacity past them costs nothing). */
    j.used = round_up(j.keys, PANEL) / PANEL;
    int64_t round_tasks =
        (s->lq + ROUND_ROWS - 1) / ROUND_ROWS + (j.keys + ROUND_ROWS - 1) / ROUND_ROWS;
    ts_pool_run(cpu->pool, bf16_round_task, &j, round_tasks);
    ts_pool_run(cpu->pool, bf16_pack_task, &j, s->kv_heads * j.used);
    ts_pool_run(cpu->pool, bf16_task, &j, s->q_heads * ((s->lq + BF16_ROWS - 1) / BF16_ROWS));
}

void ts_cpu_attention(const ts_cpu *cpu, const ts_attention_shape *s, const float *q, const void *k,
                      const void *v, const float *bias, float *out, void *scratch)
{
    if (use_bf16(cpu, s)) {
        attention_bf16(cpu, s, q, k, v, bias, out, scratch);
        return;
    }
    if (use_gemm(cpu, s)) {
        attention_job job = {.cpu = cpu, .s = s, .q = q, .bias = bias, .k = k, .v = v, .out = out, .scratch = scratch};
        ts_pool_run(cpu->pool, head_task, &job, s->q_heads);
        return;
    }
    attention_job job = {.cpu = cpu, .s = s, .q = q, .bias = bias, .k = k, .v = v, .out = out, .scratch = scratch,
                         .parts = group_parts(cpu, s)};
    ts_pool_run(cpu->pool, attention_task, &job, s->lq * s->kv_heads * job.parts);
}
