/* qlinear.c — y = x · dequant(q)ᵀ (+ b) over integer weights read in place (graph.h: qlinear).
 *
 * Few rows (decode): one quantized dot per (row, output); the work is split over output features
 * as in linear.c, so each thread streams its slice of the packed weights once per call and the
 * weights never exist in f32 outside registers. Many rows (prefill): each task dequantizes
 * TS_GEMM_COLUMNS weight rows at a time into its own f32 panel, exactly as the decomposition
 * does ((q − zero) · scale), and runs the tiled f32 GEMM on them; the dequantization is paid once
 * per weight row and call, shared by every activation row.
 * W8A8 (the int8 compute policy, kernels with VNNI or the portable reference): the activation
 * rows are quantized once per call (int8 per chunk of 32, kernels.h: ts_q8_act; per row for
 * per-channel 8-bit weights, whose GEMM then sums whole rows in integers), then each task
 * streams its weight rows once per tile of rows, TS_Q8_ROWS activation rows per integer dot and
 * (decode) Q8_SCALE_ROWS weight rows per kernel call;
 * many rows with a gemm_q8 kernel: each task packs TS_Q8_PANEL weight rows at a time into the
 * VNNI tile layout (once per call, shared by every activation row) and runs the integer GEMM.
 */
#include "cpu/ops.h"

#include <string.h>


/* W8A8 row dots: this many weight rows per kernel call, their scales widened in one call where
 * the kernel cannot read them as stored (per row, the call would cost a fifth of the row's dot).
 * f16 scales per chunk of 32 (--quantize q8|q4) are read in place: widening them in a pass of
 * its own stalled on each group's cold scales (13% of a q4 decode step's CPU time on Zen 4; q4
 * decode 58–64 → 67–82 tok/s, q8 44–47 → 53–56, 0.5B preset, 2 threads, alternating runs). */
#define Q8_SCALE_ROWS 64

/* gemm_q8_channel's panels per call (q8_channel_task): their bytes fill the f32 panel's room. */
#define CHANNEL_PANELS 4
_Static_assert(CHANNEL_PANELS * TS_Q8_PANEL <= TS_GEMM_COLUMNS * sizeof(float), "room");

/* Per-worker scratch: scales and zero points of one output row in f32, the same per chunk of 32
 * (W8A8), then (GEMM path) the dequantized panel, or the W8A8 panels and their scales. */
static size_t worker_floats(const ts_qlinear_shape *s, bool gemm)
{
    size_t f = 2 * (size_t)(s->k / s->block) + 2 * (size_t)(s->k / 32) * Q8_SCALE_ROWS +
               (gemm ? (size_t)TS_GEMM_COLUMNS * (size_t)s->k + CHANNEL_PANELS * TS_Q8_PANEL : 0);
    return (f + 15) & ~(size_t)15; /* each worker's slice starts on a cache line */
}


/* W8A8 (kernels.h: ts_q8_act) where the policy asks for it and the kernels and shape allow: whole
 * chunks of 32 in every weight block, and no zero points on 8-bit weights. */
static bool use_q8(const ts_cpu *cpu, const ts_qlinear_shape *s, bool has_zero)
{
    const ts_kernels *kern = cpu->kernels;
    if (!cpu->int8_act || !kern->quantize_q8 || s->k % 32 || s->block % 32) return false;
    return s->bits == 4 ? kern->qdot_u4_q8 != NULL : kern->qdot_i8_q8 && !has_zero;
}

/* Per-channel 8-bit weights (one block a row) take one activation scale a row too: the integer
 * sums of gemm_q8_channel then run the whole row, where chunk scales rescale every 32 channels
 * (the f32 conversion, products and sum a chunk: 2B-class vision tower at q8, the GEMM ~73% of
 * the VPDPBUSD peak with them). The row dots take the same activations, each chunk's d the
 * row's. */
static bool channel_act(const ts_qlinear_shape *s, bool has_zero)
{
    return s->bits == 8 && s->block == s->k && !has_zero && s->k <= TS_Q8_CHANNEL_MAX_K;
}

/* Bytes rounded up to a cache line: each array of the quantized activations starts on one (the
 * 4-bit row dots load 64 bytes of xs per step; split lines cost 4-bit decode 17% of its
 * per-thread CPU time, 8-bit 9%). */
static size_t line(size_t bytes) { return (bytes + 63) & ~(size_t)63; }

/* The quantized activations: m rows of k bytes, k/32 scales and k/4 lane sums each, then the
 * GEMM's k/32 chunk sums. */
static size_t act_bytes(const ts_qlinear_shape *s)
{
    if (s->k % 32) return 0;
    size_t mk = (size_t)s->m * (size_t)s->k;
    return line(mk) + line(sizeof(float) * mk / 32) + line(sizeof(int32_t) * mk / 4) +
           sizeof(int32_t) * (mk / 32) + 64;
}

size_t ts_cpu_qlinear_scratch_bytes(const ts_qlinear_shape *s, int n_workers)
{
    return sizeof(float) * worker_floats(s, s->m >= TS_CPU_TILED_ROWS) *
               (size_t)(n_workers > 0 ? n_workers : 1) +
           act_bytes(s) + 64;
}

typedef struct {
    const ts_cpu *cpu;
    const ts_qlinear_shape *s;
    const float *x;
    const void *q, *scale, *bias;
    const int8_t *zero;
    float *y;
    float *scratch;
    size_t per_worker;
    int64_t block; /* output features per task */
    ts_q8_act act; /* W8A8: the quantized rows */
    bool act_u4;   /* in the u4 layout (row dots of 4-bit weights), else natural */
    bool channel;  /* activations quantized per row (channel_act) */
    int32_t *xsum; /* W8A8 GEMM: Σ xq per row and chunk (per row when `channel`) */
} qjob;

/* Output row o's scales and zero points in f32 (the kernels' widening: this runs once per weight
 * row and call, so a scalar loop here would cost as much as the dots themselves). Implicit zero
 * points are filled once per task (`zero_ready`). */
static void row_params(const qjob *j, int64_t o, float *sc, float *zp, bool *zero_ready)
{
    const ts_qlinear_shape *s = j->s;
    const ts_kernels *kern = j->cpu->kernels;
    int64_t nb = s->k / s->block;
    switch (s->scale_dtype) {
    case TS_DTYPE_F16: kern->f16_to_f32((const uint16_t *)j->scale + o * nb, sc, (size_t)nb); break;
    case TS_DTYPE_BF16: kern->bf16_to_f32((const uint16_t *)j->scale + o * nb, sc, (size_t)nb); break;
    default: memcpy(sc, (const float *)j->scale + o * nb, sizeof(float) * (size_t)nb); break;
    }
    if (j->zero) {
        for (int64_t b = 0; b < nb; b++) zp[b] = (float)j->zero[o * nb + b];
    } else if (!*zero_ready) {
        for (int64_t b = 0; b < nb; b++) zp[b] = s->bits == 8 ? 0.0f : 8.0f;
        *zero_ready = true;
    }
}

static size_t row_bytes(const ts_qlinear_shape *s) { return (size_t)(s->bits == 8 ? s->k : s->k / 2); }

static void dot_task(void *arg, int64_t task, int worker)
{
    const qjob *j = arg;
    const ts_qlinear_shape *s = j->s;
    const ts_kernels *kern = j->cpu->kernels;
    float *sc = j->scratch + (size_t)worker * j->per_worker, *zp = sc + s->k / s->block;
    int64_t n0 = task * j->block, n1 = n0 + j->block < s->n ? n0 + j->block : s->n;
    size_t rb = row_bytes(s);
    bool zero_ready = false;
    for (int64_t o = n0; o < n1; o++) {
        row_params(j, o, sc, zp, &zero_ready);
        float b = ts_cpu_bias_at(j->bias, s->bias_dtype, o);
        const void *w = (const uint8_t *)j->q + (size_t)o * rb;
        for (int64_t r = 0; r < s->m; r++) {
            const float *xr = j->x + r * s->k;
            float d = s->bits == 8 ? kern->qdot_i8_f32(w, xr, (size_t)s->k, (size_t)s->block, sc, zp)
                                   : kern->qdot_u4_f32(w, xr, (size_t)s->k, (size_t)s->block, sc, zp);
            j->y[r * s->n + o] = d + b;
        }
    }
}

/* Row o dequantized into dst[k]: (q − zero) · scale, as the decomposition computes it. */
static void dequant_row(const qjob *j, int64_t o, float *sc, float *zp, bool *zero_ready, float *dst)
{
    const ts_qlinear_shape *s = j->s;
    row_params(j, o, sc, zp, zero_ready);
    const void *w = (const uint8_t *)j->q + (size_t)o * row_bytes(s);
    if (s->bits == 8) j->cpu->kernels->dequant_i8_f32(w, (size_t)s->k, (size_t)s->block, sc, zp, dst);
    else j->cpu->kernels->dequant_u4_f32(w, (size_t)s->k, (size_t)s->block, sc, zp, dst);
}

static void gemm_task(void *arg, int64_t task, int worker)
{
    const qjob *j = arg;
    const ts_qlinear_shape *s = j->s;
    float *sc = j->scratch + (size_t)worker * j->per_worker, *zp = sc + s->k / s->block;
    float *wpanel = zp + s->k / s->block;
    _Alignas(64) float panel[TS_GEMM_PANEL_FLOATS];
    int64_t n0 = task * j->block, n1 = n0 + j->block < s->n ? n0 + j->block : s->n;
    bool zero_ready = false;
    for (int64_t c0 = n0; c0 < n1; c0 += TS_GEMM_COLUMNS) {
        int64_t cols = n1 - c0 < TS_GEMM_COLUMNS ? n1 - c0 : TS_GEMM_COLUMNS;
        for (int64_t c = 0; c < cols; c++) dequant_row(j, c0 + c, sc, zp, &zero_ready, wpanel + c * s->k);
        j->cpu->kernels->gemm_f32(j->x, s->m, s->k, wpanel, TS_DTYPE_F32, s->k, 0, cols, j->y + c0, s->n, panel);
        if (j->bias) ts_cpu_add_bias(j->y, s->n, s->m, c0, c0 + cols, j->bias, s->bias_dtype);
    }
}

/* Per-chunk copies of one row's block scales and zero points (blocks are whole chunks). */
static void chunk_params(const ts_qlinear_shape *s, const float *sc, const float *zp, float *sc32,
                         float *zp32)
{
    int64_t per = s->block / 32;
    for (int64_t c = 0; c < s->k / 32; c++)
        sc32[c] = sc[c / per], zp32[c] = zp[c / per];
}

/* Many rows: the x rows one pass over a task's weights serves (L2-sized). */
#define Q8_ROW_TILE 32

/* Weight rows o0 … o0 + count − 1's scales and zero points per chunk of 32 into sc32, zp32
 * (count·k/32 each; zero points only when the weights have them). */
static void chunk_rows(const qjob *j, int64_t o0, int64_t count, float *sc, float *zp, bool *zero_ready, float *sc32,
                       float *zp32)
{
    const ts_qlinear_shape *s = j->s;
    int64_t nc = s->k / 32;
    if (s->block == 32 && s->scale_dtype != TS_DTYPE_F32) {
        const uint16_t *src = (const uint16_t *)j->scale + o0 * nc;
        if (s->scale_dtype == TS_DTYPE_F16) j->cpu->kernels->f16_to_f32(src, sc32, (size_t)(count * nc));
        else j->cpu->kernels->bf16_to_f32(src, sc32, (size_t)(count * nc));
        if (j->zero)
            for (int64_t i = 0; i < count * nc; i++) zp32[i] = (float)j->zero[o0 * nc + i];
        return;
    }
    for (int64_t i = 0; i < count; i++) {
        row_params(j, o0 + i, sc, zp, zero_ready);
        chunk_params(j->s, sc, zp, sc32 + i * nc, zp32 + i * nc);
    }
}

static void q8_task(void *arg, int64_t task, int worker)
{
    const qjob *j = arg;
    const ts_qlinear_shape *s = j->s;
    const ts_kernels *kern = j->cpu->kernels;
    int64_t nb = s->k / s->block, nc = s->k / 32;
    float *sc = j->scratch + (size_t)worker * j->per_worker, *zp = sc + nb, *sc32 = zp + nb, *zp32 = sc32 + nc * Q8_SCALE_ROWS;
    int64_t n0 = task * j->block, n1 = n0 + j->block < s->n ? n0 + j->block : s->n;
    size_t rb = row_bytes(s), k = (size_t)s->k;
    bool zero_ready = false;
    /* f16 scales per chunk (Q8_0/Q4_0-style weights): the kernels read them in place */
    bool half = s->block == 32 && s->scale_dtype == TS_DTYPE_F16;
    for (int64_t t0 = 0; t0 < s->m; t0 += Q8_ROW_TILE) {
        int64_t t1 = t0 + Q8_ROW_TILE < s->m ? t0 + Q8_ROW_TILE : s->m;
        for (int64_t o0 = n0; o0 < n1; o0 += Q8_SCALE_ROWS) {
            int64_t count = n1 - o0 < Q8_SCALE_ROWS ? n1 - o0 : Q8_SCALE_ROWS;
            if (!half || j->zero) chunk_rows(j, o0, count, sc, zp, &zero_ready, sc32, zp32);
            /* one call over the group's weight rows when one call takes the whole tile (decode);
             * else per weight row, all row tiles reading it while it is in L1 */
            int64_t per = t1 - t0 <= TS_Q8_ROWS ? count : 1;
            for (int64_t o = o0; o < o0 + count; o += per) {
                const void *scale = half ? (const void *)((const uint16_t *)j->scale + o * nc)
                                         : (const void *)(sc32 + (o - o0) * nc);
                const float *zero = j->zero ? zp32 + (o - o0) * nc : NULL;
                const void *w = (const uint8_t *)j->q + (size_t)o * rb;
                for (int64_t r = t0; r < t1; r += TS_Q8_ROWS) {
                    int rows = t1 - r < TS_Q8_ROWS ? (int)(t1 - r) : TS_Q8_ROWS;
                    ts_q8_act x = {j->act.q + (size_t)r * k, j->act.d + (size_t)r * k / 32,
                                   j->act.xs + (size_t)r * k / 4, k};
                    float *out = j->y + r * s->n + o;
                    if (s->bits == 8) kern->qdot_i8_q8(w, (size_t)per, &x, rows, k, scale, half, out, (size_t)s->n);
                    else kern->qdot_u4_q8(w, (size_t)per, &x, rows, k, scale, half, zero, out, (size_t)s->n);
                }
            }
            if (j->bias) ts_cpu_add_bias(j->y + t0 * s->n, s->n, t1 - t0, o0, o0 + count, j->bias, s->bias_dtype);
        }
    }
}

static void quantize_task(void *arg, int64_t task, int worker)
{
    (void)worker;
    const qjob *j = arg;
    size_t k = (size_t)j->s->k, r = (size_t)task;
    int8_t *q = (int8_t *)j->act.q + r * k;
    int32_t *xs = (int32_t *)j->act.xs + r * k / 4;
    j->cpu->kernels->quantize_q8(j->x + r * k, k, j->channel ? k : 32, j->act_u4, q,
                                 (float *)j->act.d + r * k / 32, xs);
    if (j->xsum) { /* the natural layout's lanes: xs = −128 · the sum of 4 bytes */
        int32_t row = 0;
        for (size_t c = 0; c < k / 32; c++) {
            int32_t sum = 0;
            for (size_t l = 0; l < 8; l++)
                sum += xs[c * 8 + l];
            if (j->channel) row += -sum / 128;
            else j->xsum[r * k / 32 + c] = -sum / 128;
        }
        if (j->channel) j->xsum[r] = row;
    }
}

/* Weight rows c0 … c0 + cols − 1 as gemm_q8's panel (kernels.h): unsigned bytes in groups of
 * four channels, TS_Q8_PANEL rows side by side; rows past `cols` are zeros with scale 0. */
static void pack_panel(const qjob *j, int64_t c0, int cols, float *sc, float *zp, bool *zero_ready,
                       uint8_t *panel, float *pscale, int32_t *poffsets)
{
    const ts_qlinear_shape *s = j->s;
    size_t k = (size_t)s->k, nc = k / 32, per = (size_t)s->block / 32, rb = row_bytes(s);
    bool u4 = s->bits == 4;
    /* 8-bit weights: their 4-byte groups as they are, + 128 (a transpose: pack_u32_panel). */
    if (!u4)
        j->cpu->kernels->pack_u32_panel((const uint8_t *)j->q + (size_t)c0 * rb, rb, cols, k / 4, 0x80808080u,
                                        (uint32_t *)panel);
    for (int i = 0; i < TS_Q8_PANEL; i++) {
        if (i >= cols) {
            for (size_t g = 0; u4 && g < k / 4; g++)
                memset(panel + (g * TS_Q8_PANEL + (size_t)i) * 4, 0, 4);
            for (size_t c = 0; c < nc; c++) {
                pscale[c * TS_Q8_PANEL + (size_t)i] = 0.0f;
                if (poffsets) poffsets[c * TS_Q8_PANEL + (size_t)i] = 0;
            }
            continue;
        }
        row_params(j, c0 + i, sc, zp, zero_ready);
        for (size_t c = 0; c < nc; c++) {
            pscale[c * TS_Q8_PANEL + (size_t)i] = sc[c / per];
            if (poffsets) poffsets[c * TS_Q8_PANEL + (size_t)i] = (int32_t)zp[c / per];
        }
        /* 4-bit: each group's two bytes widened to four nibbles, low first. */
        const uint8_t *w = (const uint8_t *)j->q + (size_t)(c0 + i) * rb;
        for (size_t g = 0; u4 && g < k / 4; g++) {
            uint32_t b0 = w[g * 2], b1 = w[g * 2 + 1];
            uint32_t v = (b0 & 15) | (b0 >> 4) << 8 | (b1 & 15) << 16 | (b1 >> 4) << 24;
            memcpy(panel + (g * TS_Q8_PANEL + (size_t)i) * 4, &v, 4);
        }
    }
}

/* Per-channel weights (channel_act): CHANNEL_PANELS panels of the task's weight rows packed side
 * by side (the rows' bytes + 128, one scale each) per gemm_q8_channel call, which reads each
 * block of activation rows once for all of them. */
static void q8_channel_task(void *arg, int64_t task, int worker)
{
    const qjob *j = arg;
    const ts_qlinear_shape *s = j->s;
    size_t k = (size_t)s->k, rb = row_bytes(s);
    float *sc = j->scratch + (size_t)worker * j->per_worker, *zp = sc + 1;
    uint8_t *panels = (uint8_t *)(zp + 1 + 2 * (s->k / 32) * Q8_SCALE_ROWS);
    float *pscale = (float *)(panels + CHANNEL_PANELS * TS_Q8_PANEL * k);
    int64_t n0 = task * j->block, n1 = n0 + j->block < s->n ? n0 + j->block : s->n;
    bool zero_ready = false;
    for (int64_t c0 = n0; c0 < n1; c0 += CHANNEL_PANELS * TS_Q8_PANEL) {
        int cols = n1 - c0 < CHANNEL_PANELS * TS_Q8_PANEL ? (int)(n1 - c0)
                                                          : CHANNEL_PANELS * TS_Q8_PANEL;
        for (int p = 0; p < cols; p += TS_Q8_PANEL)
            j->cpu->kernels->pack_u32_panel((const uint8_t *)j->q + (size_t)(c0 + p) * rb, rb,
                                            cols - p < TS_Q8_PANEL ? cols - p : TS_Q8_PANEL,
                                            k / 4, 0x80808080u, (uint32_t *)(panels + p * k));
        for (int i = 0; i < cols; i++) {
            row_params(j, c0 + i, sc, zp, &zero_ready);
            pscale[i] = sc[0];
        }
        float widened[CHANNEL_PANELS * TS_Q8_PANEL];
        const float *bias = ts_cpu_bias_f32(j->bias, s->bias_dtype, c0, cols, widened);
        j->cpu->kernels->gemm_q8_channel(&j->act, j->xsum, s->m, k, panels, pscale, cols, bias,
                                         j->y + c0, s->n);
    }
}

static void q8_gemm_task(void *arg, int64_t task, int worker)
{
    const qjob *j = arg;
    const ts_qlinear_shape *s = j->s;
    int64_t nb = s->k / s->block;
    size_t k = (size_t)s->k;
    float *sc = j->scratch + (size_t)worker * j->per_worker, *zp = sc + nb;
    uint8_t *panel = (uint8_t *)(zp + nb + 2 * (s->k / 32) * Q8_SCALE_ROWS);
    float *pscale = (float *)(panel + TS_Q8_PANEL * k);
    int32_t *poffsets = j->zero ? (int32_t *)(pscale + k) : NULL;
    int64_t n0 = task * j->block, n1 = n0 + j->block < s->n ? n0 + j->block : s->n;
    bool zero_ready = false;
    int32_t offset = s->bits == 8 ? 128 : 8;
    for (int64_t c0 = n0; c0 < n1; c0 += TS_Q8_PANEL) {
        int cols = n1 - c0 < TS_Q8_PANEL ? (int)(n1 - c0) : TS_Q8_PANEL;
        pack_panel(j, c0, cols, sc, zp, &zero_ready, panel, pscale, poffsets);
        /* the bias added by the kernel as it stores (a pass of its own over the panel's columns
         * of every row cost ~3% of a 2B-class vision tower at q8) */
        float widened[TS_Q8_PANEL];
        const float *bias = ts_cpu_bias_f32(j->bias, s->bias_dtype, c0, cols, widened);
        j->cpu->kernels->gemm_q8(&j->act, j->xsum, s->m, k, panel, pscale, offset, poffsets, cols,
                                 bias, j->y + c0, s->n);
    }
}

/* s->m rows by the tiled kernels or by the row dots (the scratch of the whole call serves any
 * run of its rows: both parts only grow with the rows and the tiled choice). */
static void qlinear_run(const ts_cpu *cpu, const ts_qlinear_shape *s, const float *x, const void *q,
                        const void *scale, const int8_t *zero, const void *bias, float *y,
                        void *scratch, bool tiled)
{
    int workers = ts_pool_size(cpu->pool);
    bool gemm = tiled && cpu->kernels->gemm_f32;
    float *base = (float *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    qjob job = {cpu,  s,    x,     q,    scale, bias,  zero, y,
                base, worker_floats(s, tiled), 0, {0}, false, false, NULL};
    if (use_q8(cpu, s, zero != NULL)) {
        /* Activations once per call, then one pass over each task's weights per row tile. */
        int8_t *aq = (int8_t *)(base + job.per_worker * (size_t)workers);
        size_t mk = (size_t)(s->m * s->k);
        float *d = (float *)(aq + line(mk));
        int32_t *xs = (int32_t *)((char *)d + line(sizeof(float) * mk / 32));
        job.act = (ts_q8_act){aq, d, xs, (size_t)s->k};
        job.channel = channel_act(s, zero != NULL);
        bool q8_gemm = tiled && (job.channel ? cpu->kernels->gemm_q8_channel != NULL
                                             : cpu->kernels->gemm_q8 != NULL);
        job.act_u4 = s->bits == 4 && !q8_gemm;
        job.xsum = q8_gemm ? (int32_t *)((char *)xs + line(sizeof(int32_t) * mk / 4)) : NULL;
        if (s->m > 1)
            ts_pool_run(cpu->pool, quantize_task, &job, s->m);
        else
            quantize_task(&job, 0, 0);
        if (q8_gemm) {
            int64_t blocks = (s->n + TS_Q8_PANEL - 1) / TS_Q8_PANEL;
            /* ~8 tasks a worker, as linear.c's bf16 GEMM: the panels cost the same however split.
             * Per-channel weights: up to CHANNEL_PANELS panels a task while each worker still gets
             * two tasks, each call's activation rows read once for all of its panels (a
             * 1280-wide output has 40 panels: at 8 tasks a worker, 2 a task, each streaming the
             * 1024 × 5120 activations of its input). */
            int64_t per = blocks / (workers * 8) > 1 ? blocks / (workers * 8) : 1;
            if (job.channel) {
                per = blocks / (workers * 2) > 1 ? blocks / (workers * 2) : 1;
                per = per < CHANNEL_PANELS ? per : CHANNEL_PANELS;
            }
            job.block = per * TS_Q8_PANEL;
            ts_pool_run(cpu->pool, job.channel ? q8_channel_task : q8_gemm_task, &job,
                        (s->n + job.block - 1) / job.block);
            return;
        }
        job.block = s->n / (workers * 8) > 16 ? s->n / (workers * 8) : 16;
        ts_pool_run(cpu->pool, q8_task, &job, (s->n + job.block - 1) / job.block);
        return;
    }
    if (gemm) {
        int64_t blocks = (s->n + TS_GEMM_COLUMNS - 1) / TS_GEMM_COLUMNS;
        int64_t per = blocks / (workers * 4) > 1 ? blocks / (workers * 4) : 1;
        job.block = per * TS_GEMM_COLUMNS;
        ts_pool_run(cpu->pool, gemm_task, &job, (s->n + job.block - 1) / job.block);
        return;
    }
    /* Enough blocks to balance, not so many that scheduling shows (as linear.c). */
    job.block = s->n / (workers * 8) > 16 ? s->n / (workers * 8) : 16;
    ts_pool_run(cpu->pool, dot_task, &job, (s->n + job.block - 1) / job.block);
}

void ts_cpu_qlinear(const ts_cpu *cpu, const ts_qlinear_shape *s, const float *x, const void *q,
                    const void *scale, const int8_t *zero, const void *bias, float *y,
                    void *scratch)
{
    int64_t rows[64], r = 0;
    bool tiled[64];
    int runs = ts_cpu_row_runs(cpu, s->m, rows, tiled);
    for (int i = 0; i < runs; r += rows[i++]) {
        ts_qlinear_shape part = *s;
        part.m = rows[i];
        qlinear_run(cpu, &part, x + r * s->k, q, scale, zero, bias, y + r * s->n, scratch,
                    tiled[i]);
    }
}
