/* moe.c — the sparse mixture-of-experts MLP: each token runs only its top_k experts.
 *
 * 1. Router: logits = x·routerᵀ (ts_cpu_linear), softmax in f32 per row; top_k by repeated
 *    first-maximum (ties to the lowest expert, NaN wins, as the decomposition's argmax), the
 *    picked probabilities summed in pick order and divided by that sum under `normalize`.
 * 2. Grouping: the routed (token, slot) pairs are listed per expert, in token order.
 * 3. Experts. Weights stay in the published layout ([H, 2I] and [I, H] per expert, used as x·W).
 *    An expert with at least GEMM_MIN_ROWS tokens (prefill), where the CPU has the tiled kernel
 *    (gemm_kn_f32, the GEMM ts_cpu_linear uses, reading W as [k, n]): its tokens' rows gathered
 *    contiguous, gate/up as one tiled matmul, the activation, down as another, tasks over
 *    (expert, column block). Otherwise a task is up to BLOCK pairs of one expert: the product is a
 *    sum of weight rows scaled by activations, each weight row widened once for every row of the
 *    block. Either way every output element is the same sum, acc += a·w over its inner index in
 *    order (gemm_kn_f32 guarantees it), so the two paths agree bit for bit and a token's result
 *    does not depend on which other tokens share its step (batched decode equals single decode,
 *    a padded bundle prefill equals the engine's, bit for bit).
 * 4. Combine: per token, the weighted expert outputs added in expert order, as index_add_ over
 *    the experts does in the reference.
 */
#include "cpu/ops.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

#define BLOCK 8
/* Tokens of one expert from which the tiled matmul pays for its packing (as ts_cpu_linear's). */
#define GEMM_MIN_ROWS 16
#define GEMM_BLOCK (2 * TS_GEMM_COLUMNS) /* output columns per tiled task */

typedef struct {
    float *probs;      /* [m, E] */
    int64_t *pick;     /* [m, k] expert of each slot */
    float *weight;     /* [m, k] routing weight of each slot */
    int64_t *order;    /* [m·k] slot entries (token·k + slot) grouped by expert */
    int64_t *start;    /* [E + 1] each expert's range in order */
    int64_t *task_at;  /* [m·k + E] first order index of each task */
    int64_t *task_exp; /* [m·k + E] expert of each task */
    float *out;        /* [m·k, H] weighted expert output of each slot */
    float *work;       /* per worker: BLOCK·2I activations, then one widened weight row */
    /* Tiled experts (only when m ≥ GEMM_MIN_ROWS), rows in `order` positions: */
    float *rows;    /* [m·k, H] the tokens' inputs, then the down projections */
    float *gu;      /* [m·k, 2I] gate and up */
    float *act;     /* [m·k, I] act(gate) ⊙ up */
    int64_t *tiled; /* [E] the tiled experts */
} moe_scratch;

static size_t round64(size_t n)
{
    return (n + 63) & ~(size_t)63;
}

static size_t work_floats(int64_t h, int64_t inter)
{
    return (size_t)(BLOCK * 2 * inter + (2 * inter > h ? 2 * inter : h));
}

/* Carves the scratch regions (64-byte aligned) from base; returns the bytes used. */
static size_t layout(void *base, int64_t m, int64_t h, int64_t experts, int64_t inter, int top_k,
                     int n_workers, moe_scratch *s)
{
    size_t slots = (size_t)(m * top_k), at = 0;
    uint8_t *b = base;
#define CARVE(field, type, count)                                                                  \
    do {                                                                                           \
        if (s) s->field = (type *)(void *)(b + at);                                                \
        at += round64(sizeof(type) * (size_t)(count));                                             \
    } while (0)
    CARVE(probs, float, m *experts);
    CARVE(pick, int64_t, slots);
    CARVE(weight, float, slots);
    CARVE(order, int64_t, slots);
    CARVE(start, int64_t, experts + 1);
    CARVE(task_at, int64_t, (int64_t)slots + experts);
    CARVE(task_exp, int64_t, (int64_t)slots + experts);
    CARVE(out, float, (int64_t)slots *h);
    CARVE(work, float, (int64_t)work_floats(h, inter) * n_workers);
    if (m >= GEMM_MIN_ROWS) {
        CARVE(rows, float, (int64_t)slots *h);
        CARVE(gu, float, (int64_t)slots * 2 * inter);
        CARVE(act, float, (int64_t)slots *inter);
        CARVE(tiled, int64_t, experts);
    }
#undef CARVE
    return at;
}

size_t ts_cpu_moe_mlp_scratch_bytes(int64_t m, int64_t h, int64_t experts, int64_t inter, int top_k,
                                    int n_workers)
{
    return layout(NULL, m, h, experts, inter, top_k, n_workers, NULL);
}

typedef struct {
    const ts_cpu *cpu;
    const float *x;
    int64_t h, experts, inter;
    int top_k;
    bool normalize;
    ts_activation act;
    const void *gate_up, *down;
    ts_dtype w_dtype;
    moe_scratch s;
    float *y;
    int64_t n_tiled;
} moe_job;

/* Top-k of one probability row (see the file comment). */
static void route_task(void *arg, int64_t row, int worker)
{
    (void)worker;
    const moe_job *j = arg;
    const float *p = j->s.probs + row * j->experts;
    int64_t *pick = j->s.pick + row * j->top_k;
    float *weight = j->s.weight + row * j->top_k, total = 0;
    for (int i = 0; i < j->top_k; i++) {
        int64_t best = -1;
        float bv = 0;
        for (int64_t e = 0; e < j->experts; e++) {
            bool taken = false;
            for (int t = 0; t < i && !taken; t++)
                taken = pick[t] == e;
            if (taken) continue;
            float v = p[e];
            if (best < 0 || isnan(v) || v > bv) best = e, bv = v;
            if (isnan(v)) break;
        }
        pick[i] = best;
        weight[i] = bv;
        total = i == 0 ? bv : total + bv;
    }
    if (j->normalize)
        for (int i = 0; i < j->top_k; i++)
            weight[i] /= total;
}

/* Row `row` of an expert matrix as f32: in place for f32 weights, else widened into buf. */
static const float *weight_row(const moe_job *j, const void *w, int64_t row, int64_t n, float *buf)
{
    size_t at = (size_t)(row * n);
    switch (j->w_dtype) {
    case TS_DTYPE_BF16:
        j->cpu->kernels->bf16_to_f32((const uint16_t *)w + at, buf, (size_t)n);
        return buf;
    case TS_DTYPE_F16:
        j->cpu->kernels->f16_to_f32((const uint16_t *)w + at, buf, (size_t)n);
        return buf;
    default:
        return (const float *)w + at;
    }
}

static void expert_task(void *arg, int64_t task, int worker)
{
    const moe_job *j = arg;
    int64_t e = j->s.task_exp[task], first = j->s.task_at[task];
    int64_t end = first + BLOCK < j->s.start[e + 1] ? first + BLOCK : j->s.start[e + 1];
    int rows = (int)(end - first);
    int64_t h = j->h, inter = j->inter, wide = 2 * inter;
    float *gu = j->s.work + (size_t)worker * work_floats(h, inter), *buf = gu + BLOCK * wide;
    const float *xr[BLOCK];
    float *o[BLOCK];
    for (int r = 0; r < rows; r++) {
        int64_t entry = j->s.order[first + r];
        xr[r] = j->x + (entry / j->top_k) * h;
        o[r] = j->s.out + entry * h;
    }
    memset(gu, 0, sizeof(float) * (size_t)(rows * wide));
    for (int64_t k = 0; k < h; k++) {
        const float *w = weight_row(j, j->gate_up, e * h + k, wide, buf);
        for (int r = 0; r < rows; r++) {
            float a = xr[r][k], *acc = gu + r * wide;
            for (int64_t c = 0; c < wide; c++)
                acc[c] += a * w[c];
        }
    }
    for (int r = 0; r < rows; r++) {
        float *g = gu + r * wide;
        for (int64_t i = 0; i < inter; i++)
            g[i] = ts_cpu_activation(j->act, g[i]) * g[inter + i];
        memset(o[r], 0, sizeof(float) * (size_t)h);
    }
    for (int64_t i = 0; i < inter; i++) {
        const float *w = weight_row(j, j->down, e * inter + i, h, buf);
        for (int r = 0; r < rows; r++) {
            float a = gu[r * wide + i], *acc = o[r];
            for (int64_t c = 0; c < h; c++)
                acc[c] += a * w[c];
        }
    }
    for (int r = 0; r < rows; r++) {
        float wgt = j->s.weight[j->s.order[first + r]];
        for (int64_t c = 0; c < h; c++)
            o[r][c] *= wgt;
    }
}

/* Element size of the expert weights. */
static size_t weight_size(ts_dtype dtype)
{
    return dtype == TS_DTYPE_F32 ? 4 : 2;
}

/* gate/up of a tiled expert: task = expert × column block of 2I. */
static void tiled_gate_up_task(void *arg, int64_t task, int worker)
{
    (void)worker;
    const moe_job *j = arg;
    _Alignas(64) float panel[TS_GEMM_PANEL_FLOATS];
    int64_t wide = 2 * j->inter, blocks = (wide + GEMM_BLOCK - 1) / GEMM_BLOCK;
    int64_t e = j->s.tiled[task / blocks], n0 = task % blocks * GEMM_BLOCK;
    int64_t n1 = n0 + GEMM_BLOCK < wide ? n0 + GEMM_BLOCK : wide, at = j->s.start[e];
    const uint8_t *w =
        (const uint8_t *)j->gate_up + (size_t)(e * j->h * wide) * weight_size(j->w_dtype);
    j->cpu->kernels->gemm_kn_f32(j->s.rows + at * j->h, j->s.start[e + 1] - at, j->h, w, j->w_dtype,
                                 wide, n0, n1, j->s.gu + at * wide, wide, panel);
}

/* down of a tiled expert: task = expert × column block of H, into `rows` (inputs no longer
 * needed). */
static void tiled_down_task(void *arg, int64_t task, int worker)
{
    (void)worker;
    const moe_job *j = arg;
    _Alignas(64) float panel[TS_GEMM_PANEL_FLOATS];
    int64_t blocks = (j->h + GEMM_BLOCK - 1) / GEMM_BLOCK;
    int64_t e = j->s.tiled[task / blocks], n0 = task % blocks * GEMM_BLOCK;
    int64_t n1 = n0 + GEMM_BLOCK < j->h ? n0 + GEMM_BLOCK : j->h, at = j->s.start[e];
    const uint8_t *w =
        (const uint8_t *)j->down + (size_t)(e * j->inter * j->h) * weight_size(j->w_dtype);
    j->cpu->kernels->gemm_kn_f32(j->s.act + at * j->inter, j->s.start[e + 1] - at, j->inter, w,
                                 j->w_dtype, j->h, n0, n1, j->s.rows + at * j->h, j->h, panel);
}

/* One row (order position) of a tiled expert: act(gate) ⊙ up; rows of row-loop experts are
 * skipped. */
static void tiled_act_task(void *arg, int64_t pos, int worker)
{
    (void)worker;
    const moe_job *j = arg;
    int64_t e = j->s.pick[j->s.order[pos]];
    if (j->s.start[e + 1] - j->s.start[e] < GEMM_MIN_ROWS) return;
    const float *g = j->s.gu + pos * 2 * j->inter;
    float *a = j->s.act + pos * j->inter;
    for (int64_t i = 0; i < j->inter; i++)
        a[i] = ts_cpu_activation(j->act, g[i]) * g[j->inter + i];
}

/* The tiled experts' tokens: inputs gathered to their order positions, both matmuls, the
 * routing weight applied as the row loop does (after the down projection). */
static void run_tiled(const ts_cpu *cpu, moe_job *j)
{
    int64_t h = j->h;
    for (int64_t t = 0; t < j->n_tiled; t++) {
        int64_t e = j->s.tiled[t];
        for (int64_t pos = j->s.start[e]; pos < j->s.start[e + 1]; pos++)
            memcpy(j->s.rows + pos * h, j->x + (j->s.order[pos] / j->top_k) * h,
                   sizeof(float) * (size_t)h);
    }
    int64_t wide_blocks = (2 * j->inter + GEMM_BLOCK - 1) / GEMM_BLOCK,
            h_blocks = (h + GEMM_BLOCK - 1) / GEMM_BLOCK;
    ts_pool_run(cpu->pool, tiled_gate_up_task, j, j->n_tiled * wide_blocks);
    ts_pool_run(cpu->pool, tiled_act_task, j, j->s.start[j->experts]);
    ts_pool_run(cpu->pool, tiled_down_task, j, j->n_tiled * h_blocks);
    for (int64_t t = 0; t < j->n_tiled; t++) {
        int64_t e = j->s.tiled[t];
        for (int64_t pos = j->s.start[e]; pos < j->s.start[e + 1]; pos++) {
            int64_t entry = j->s.order[pos];
            float wgt = j->s.weight[entry], *o = j->s.out + entry * h;
            const float *r = j->s.rows + pos * h;
            for (int64_t c = 0; c < h; c++)
                o[c] = r[c] * wgt;
        }
    }
}

static void combine_task(void *arg, int64_t row, int worker)
{
    (void)worker;
    const moe_job *j = arg;
    int k = j->top_k;
    const int64_t *pick = j->s.pick + row * k;
    float *y = j->y + row * j->h;
    /* Slots in expert order (k is small: insertion sort). */
    int slot[64];
    for (int i = 0; i < k; i++) {
        int at = i;
        while (at > 0 && pick[slot[at - 1]] > pick[i])
            slot[at] = slot[at - 1], at--;
        slot[at] = i;
    }
    memcpy(y, j->s.out + (row * k + slot[0]) * j->h, sizeof(float) * (size_t)j->h);
    for (int i = 1; i < k; i++) {
        const float *o = j->s.out + (row * k + slot[i]) * j->h;
        for (int64_t c = 0; c < j->h; c++)
            y[c] += o[c];
    }
}

ts_status ts_cpu_moe_mlp(const ts_cpu *cpu, const float *x, int64_t m, int64_t h,
                         const void *router, ts_dtype router_dtype, const void *gate_up,
                         const void *down, ts_dtype w_dtype, int64_t experts, int64_t inter,
                         int top_k, bool normalize, ts_activation act, float *y, void *scratch,
                         ts_error *err)
{
    if (top_k < 1 || top_k > 64 || top_k > experts)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "moe_mlp: top_k %d (1..min(64, %lld) supported)", top_k,
                            (long long)experts);
    moe_job j = {cpu, x,       h,    experts, inter, top_k, normalize,
                 act, gate_up, down, w_dtype, {0},   y,     0};
    layout(scratch, m, h, experts, inter, top_k, ts_pool_size(cpu->pool), &j.s);
    ts_status st = ts_cpu_linear(cpu, x, m, h, router, router_dtype, experts, NULL, TS_DTYPE_F32,
                                 j.s.probs, err);
    if (st != TS_OK) return st;
    ts_cpu_softmax(cpu, j.s.probs, NULL, m, experts, j.s.probs);
    ts_pool_run(cpu->pool, route_task, &j, m);

    /* Group the slots by expert, tokens ascending within each, and cut the groups into tasks. */
    int64_t slots = m * top_k, n_tasks = 0;
    memset(j.s.start, 0, sizeof(int64_t) * (size_t)(experts + 1));
    for (int64_t i = 0; i < slots; i++)
        j.s.start[j.s.pick[i] + 1]++;
    for (int64_t e = 0; e < experts; e++)
        j.s.start[e + 1] += j.s.start[e];
    for (int64_t e = 0; e < experts; e++)
        j.s.task_at[e] = j.s.start[e]; /* fill cursors, reused below */
    for (int64_t i = 0; i < slots; i++)
        j.s.order[j.s.task_at[j.s.pick[i]]++] = i;
    bool tiling = cpu->kernels->gemm_kn_f32 && m >= GEMM_MIN_ROWS;
    for (int64_t e = 0; e < experts; e++) {
        if (tiling && j.s.start[e + 1] - j.s.start[e] >= GEMM_MIN_ROWS) {
            j.s.tiled[j.n_tiled++] = e;
            continue;
        }
        for (int64_t at = j.s.start[e]; at < j.s.start[e + 1]; at += BLOCK) {
            j.s.task_at[n_tasks] = at;
            j.s.task_exp[n_tasks++] = e;
        }
    }
    ts_pool_run(cpu->pool, expert_task, &j, n_tasks);
    if (j.n_tiled) run_tiled(cpu, &j);
    ts_pool_run(cpu->pool, combine_task, &j, m);
    return TS_OK;
}
