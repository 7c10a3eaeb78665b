/* kernels.h — the kernel table and its run-time selection by CPU feature.
 *
 * Every kernel has a portable C version (kernels/NAME_ref.c) and optional SIMD siblings
 * (NAME_avx2.c, NAME_avx512.c, NAME_avx512bf16.c) compiled with per-function target attributes,
 * so one binary runs on any x86-64 and non-x86 builds get the portable table only.
 * ts_kernels_select picks, for each entry, the best variant the allowed features permit; the
 * choice is made once (per context) and can be capped to test or to work around a CPU.
 */
#ifndef TS_CPU_KERNELS_H
#define TS_CPU_KERNELS_H

#include "tessera.h"

struct ts_q8_act;

typedef struct ts_kernels {
    const char *level; /* the highest level any entry uses: "portable", "avx2", … */
    /* sum_i a[i]*b[i] */
    float (*dot_f32)(const float *a, const float *b, size_t n);
    /* sum_i bf16(w[i])*x[i]: the decode matvec inner loop for bf16 weights */
    float (*dot_bf16_f32)(const uint16_t *w, const float *x, size_t n);
    /* sum_i f16(w[i])*x[i] */
    float (*dot_f16_f32)(const uint16_t *w, const float *x, size_t n);
    /* out[r] = the dot of w[0:n] with row r of x (rows ≤ 4, ldx floats apart), each bit-identical
     * to the single dot above: a batched decode step must not change a sequence's result. NULL
     * where only the single dots exist. */
    void (*dot_rows_bf16_f32)(const uint16_t *w, const float *x, size_t ldx, int rows, size_t n, float *out);
    void (*dot_rows_f32)(const float *w, const float *x, size_t ldx, int rows, size_t n, float *out);
    /* The same for several weight rows (ldw apart) at once: out[r·W + o] = the dot of weight row o
     * with x row r (rows ≤ 4), each bit-identical to the single dot; one load of x serves every
     * weight row. pair: W = 2, one pass with both of a dot's partial sums live; tile: W =
     * TS_DOT_TILE, a pass per partial sum (fewer x loads, for x rows that outgrow L1). NULL with
     * dot_rows. */
    void (*dot_pair_bf16_f32)(const uint16_t *w, size_t ldw, const float *x, size_t ldx, int rows, size_t n, float *out);
    void (*dot_pair_f32)(const float *w, size_t ldw, const float *x, size_t ldx, int rows, size_t n, float *out);
    void (*dot_tile_bf16_f32)(const uint16_t *w, size_t ldw, const float *x, size_t ldx, int rows, size_t n, float *out);
    void (*dot_tile_f32)(const float *w, size_t ldw, const float *x, size_t ldx, int rows, size_t n, float *out);
    /* The bf16 compute policy's decode dots (VDPBF16PS): x rows already rounded to bf16 (nearest
     * even, as the bf16 GEMM's input), out[r·wrows + o] = Σ bf16 w_o[i]·x_r[i] for `wrows` ∈ {1, 2}
     * weight rows (ldw apart) and rows ≤ 4 x rows (ldx apart); every dot summed as
     * ts_dot_bf16_bf16_ref sums it (VDPBF16PS's lanes, two chains), so each is bit-identical
     * whatever shape computed it. NULL without AVX512_BF16 (the f32-activation dots then serve). */
    void (*dot_bf16_bf16)(const uint16_t *w, size_t ldw, int wrows, const uint16_t *x, size_t ldx, int rows, size_t n,
                          float *out);
    /* A decode row's attention scores for the `heads` query heads (rows ldq apart) of one kv
     * head: scores[h·lds + t] = the dot of q row h with key t (rows ldk apart) for t < keys, each
     * bit-identical to this table's dot_f32 (a head's scores do not depend on the heads or keys
     * beside it); each key row is loaded once per four dots and the lanes' sums of sixteen keys
     * are reduced together. NULL where only the single dots exist. */
    void (*dot_heads_f32)(const float *q, size_t ldq, int heads, const float *k, size_t ldk, size_t keys, size_t n,
                          float *scores, size_t lds);
    /* out[h·ldo + c] = Σ_{t < count} p[h·ldp + t]·v[t·ldv + c] for h < heads, c < n: the sum from
     * 0 in t order, each product rounded then added (no FMA): a decode row's attention P·V for
     * the query heads that share these value rows (each row loaded once for all of them); the
     * same bits in every variant, and a head's do not depend on the heads beside it. Never NULL. */
    void (*weighted_sum_f32)(const float *p, size_t ldp, int heads, size_t count, const float *v, size_t ldv, size_t n,
                             float *out, size_t ldo);
    void (*bf16_to_f32)(const uint16_t *src, float *dst, size_t n);
    void (*f16_to_f32)(const uint16_t *src, float *dst, size_t n);
    /* C[:, n0:n1] = A[m, k] · W[n0:n1, :k]ᵀ (W rows ldw apart, C rows ldc apart), many rows;
     * NULL where no tiled kernel exists (callers fall back to dots). `panel`:
     * TS_GEMM_PANEL_FLOATS floats, 64-aligned. */
    void (*gemm_f32)(const float *a, int64_t m, int64_t k, const void *w, ts_dtype w_dtype, int64_t ldw, int64_t n0,
                     int64_t n1, float *c, int64_t ldc, float *panel);
    /* The same with W as [k, n] (rows ldw apart): C[:, n0:n1] = A[m, k] · W[:k, n0:n1], the x·W
     * layout of fused MoE expert weights, without a transposed copy; each element bit for bit the
     * plain loop acc += a·w over k in order (products rounded, no FMA). NULL with gemm_f32. */
    void (*gemm_kn_f32)(const float *a, int64_t m, int64_t k, const void *w, ts_dtype w_dtype,
                        int64_t ldw, int64_t n0, int64_t n1, float *c, int64_t ldc, float *panel);
    /* The same with A and W in bf16 and f32 accumulation (VDPBF16PS); k even; then + bias[j]
     * for column j when bias is not NULL (f32, indexed from 0 like W's rows), added to each
     * finished sum: the bits of a pass of its own after. NULL without AVX512_BF16. */
    void (*gemm_bf16)(const uint16_t *a, int64_t m, int64_t k, const uint16_t *w, int64_t n0, int64_t n1,
                      const float *bias, float *c, int64_t ldc, float *panel);
    /* C[m, 0:cols] = A[m, 0:2·kp] · the panel's cols weight rows (+ C when accumulate, then +
     * bias[0:cols] when not NULL), A rows lda apart, C rows ldc apart: gemm_bf16's step for one
     * panel, for weights packed once and used many times (attention's keys and values). The
     * panel: TS_GEMM_COLUMNS weight rows' bf16 pairs side by side, u32 [kp][TS_GEMM_COLUMNS]
     * (pair p of row j at p·32 + j: the low half the even k), 64-aligned, rows past cols zero.
     * NULL with gemm_bf16, and where gemm_bf16 runs as f32 FMAs (gemm_f32_panel then). */
    void (*gemm_bf16_panel)(const uint16_t *a, int64_t lda, int64_t m, int64_t kp, const uint32_t *panel, int cols,
                            const float *bias, float *c, int64_t ldc, bool accumulate);
    /* C[m, 0:cols] = A[m, 0:k] · the panel's cols weight rows (+ C when accumulate, then +
     * bias[0:cols] when not NULL), A rows lda apart, C rows ldc apart: gemm_f32's step for one
     * panel packed once and used many times, in f32. The panel: f32 [k][TS_GEMM_COLUMNS] (k = kk
     * of row j at kk·32 + j), 64-aligned, rows past cols zero. Each sum runs over k in order,
     * one FMA a product. Attention's bf16 policy takes it where gemm_bf16_panel is NULL but
     * gemm_bf16 is not: its bf16 values widened once. NULL without gemm_f32. */
    void (*gemm_f32_panel)(const float *a, int64_t lda, int64_t m, int64_t k, const float *panel,
                           int cols, const float *bias, float *c, int64_t ldc, bool accumulate);
    /* dst[j·32 + i] = (unit j of row i) ^ flip for i < rows (0 for rows … 31), j < count: 32
     * rows of 32-bit units (ld bytes apart) transposed into the tiled GEMMs' panel layout (bf16
     * pairs of k; groups of 4 int8 weights, flip 0x80808080 making them unsigned). Never NULL. */
    void (*pack_u32_panel)(const void *src, size_t ld, int rows, size_t count, uint32_t flip, uint32_t *dst);
    /* y[i] = x[i] rounded to bf16 (nearest, ties to even; a NaN kept quiet: its top half | 0x40),
     * the rounding the bf16 compute policies give activations; the same bits in every variant
     * (ts_f32_to_bf16_scalar). Never NULL. */
    void (*f32_to_bf16)(const float *x, uint16_t *y, size_t n);
    /* Quantized row dots for ts_graph_qlinear's weights (i8, or u8 holding two 4-bit values, low
     * nibble first): Σ over blocks b of scale[b] · Σ_{j in b} (q[j] − zero[b]) · x[j], n channels
     * in blocks of `block` (which divides n; even for 4-bit). Scales and zero points widened to
     * f32 by the caller. Never NULL. */
    float (*qdot_i8_f32)(const int8_t *q, const float *x, size_t n, size_t block, const float *scale, const float *zero);
    float (*qdot_u4_f32)(const uint8_t *q, const float *x, size_t n, size_t block, const float *scale, const float *zero);
    /* dst[j] = (q[j] − zero[j / block]) · scale[j / block] in f32 for a row of n: the
     * decomposition's dequantization, bit for bit in every variant (one rounding). Never NULL. */
    void (*dequant_i8_f32)(const int8_t *q, size_t n, size_t block, const float *scale, const float *zero, float *dst);
    void (*dequant_u4_f32)(const uint8_t *q, size_t n, size_t block, const float *scale, const float *zero, float *dst);
    /* W8A8 row dots (ts_q8_act below): out[r·ldo + w] = Σ_c scale_w[c]·d_r[c]·Σ_{j in chunk c}
     * (q_w[j] − zero_w[c])·xq_r[j] for `rows` ≤ TS_Q8_ROWS activation rows and nw weight rows
     * stored back to back (q_w = q + w·n, 4-bit: w·n/2; scale_w = scale + w·n/32, zero_w likewise)
     * of n channels (n a multiple of 32), chunks of 32 channels; scale (and zero, NULL meaning 0
     * for 8-bit, 8 for 4-bit) per chunk in f32. Each chunk's sum is exact in integers; only the
     * f32 scaling and summation order differ between variants, and each (r, w) gets the same bits
     * whatever rows and nw. 8-bit weights take no zero points (q − zero may leave i8). The
     * activations must be quantized with the same `u4` layout flag as the weights' bits. `scale`
     * holds f32, or f16 when `half` (the stored scales of Q8_0/Q4_0-style weights, widened in
     * registers: a decode step then reads them once, in the weights' stream, instead of widening
     * each group of rows in a pass of its own). NULL where no fast kernel exists (qlinear then
     * keeps f32 activations). */
    void (*qdot_i8_q8)(const int8_t *q, size_t nw, const struct ts_q8_act *x, int rows, size_t n,
                       const void *scale, bool half, float *out, size_t ldo);
    void (*qdot_u4_q8)(const uint8_t *q, size_t nw, const struct ts_q8_act *x, int rows, size_t n,
                       const void *scale, bool half, const float *zero, float *out, size_t ldo);
    /* Quantizes one activation row for those dots (ts_quantize_q8_ref; bit-identical in every
     * variant): one scale per `block` values (32, or a multiple of 32 that divides n: the whole
     * row for per-channel weights' GEMM, gemm_q8_channel), each chunk's d[c] its block's. */
    void (*quantize_q8)(const float *x, size_t n, size_t block, bool u4, int8_t *q, float *d,
                        int32_t *xs);
    /* W8A8 GEMM for many rows: c[r, 0:cols] (rows ldc apart) = the qdot_*_q8 sums of m activation
     * rows (natural layout: u4 false) with a panel of TS_Q8_PANEL weight rows packed by
     * ts_q8_pack_panel: unsigned bytes u (8-bit q + 128; 4-bit nibbles) as
     * [k/32][8][TS_Q8_PANEL][4], scales [k/32][TS_Q8_PANEL], and what u is offset by — `offset`
     * for every weight, or per weight row and chunk from `offsets` ([k/32][TS_Q8_PANEL]) when
     * not NULL — so each chunk sums Σ (u − offset)·xq exactly. xsum[r·k/32 + c] = Σ xq over
     * chunk c of row r; `bias` (cols values, or NULL) added to each row's sums as they are
     * stored (the bits of adding it after). NULL where no kernel exists (qlinear then takes the
     * row dots). */
    void (*gemm_q8)(const struct ts_q8_act *x, const int32_t *xsum, int64_t m, size_t k,
                    const uint8_t *panel, const float *scale, int32_t offset,
                    const int32_t *offsets, int cols, const float *bias, float *c, int64_t ldc);
    /* The W8A8 GEMM of per-channel 8-bit weights (one scale a weight row) and activation rows
     * quantized whole (quantize_q8 with block k): c[r·ldc + i] = (float)S · (scale[i] · d_r),
     * then + bias[i] when `bias` is not NULL, where S = Σ_j (u − 128)·xq_r[j] over the whole row
     * in exact int32 (k ≤ TS_Q8_CHANNEL_MAX_K), u the panels of gemm_q8 (q + 128; cols may pass
     * TS_Q8_PANEL: ⌈cols/32⌉ panels of 32·k bytes back to back), d_r = x->d[r·x->ld/32] and
     * xsum[r] = Σ_j xq_r[j]. No rescaling per chunk: the integer sums run the
     * whole row. Every variant gives the same bits. */
    void (*gemm_q8_channel)(const struct ts_q8_act *x, const int32_t *xsum, int64_t m, size_t k,
                            const uint8_t *panel, const float *scale, int cols,
                            const float *bias, float *c, int64_t ldc);
    /* One weight row of n (a multiple of 32) quantized at load by engine/quantized_weights.h's
     * rules (ts_quantize_weights_q8_ref / _q4_ref are their definition; every variant gives the
     * same bytes): q8 i8 values, an f16 scale per `block` (a multiple of 32 dividing n: 32, or
     * n for one scale a row); q4 two nibbles a byte (even channel low), an f16 scale per 32.
     * Never NULL. */
    void (*quantize_weights_q8)(const float *w, size_t n, size_t block, int8_t *q,
                                uint16_t *scale);
    void (*quantize_weights_q4)(const float *w, size_t n, uint8_t *q, uint16_t *scale);
    /* Softmax of y[0..n) in place: m = max y, y[i] = exp(y[i] − m) / Σ exp (the sum in f64, its
     * reciprocal rounded to f32 and multiplied in); every y −inf (or n = 0 rows' NaN rule): all
     * NaN, as the decomposition's 0/0. The portable one uses expf; others within 2 ulp of it per
     * exponential. Never NULL. */
    void (*softmax_f32)(float *y, size_t n);
    /* softmax_f32 of y[i]·scale (+ bias[i], rounded after the product, when bias is not NULL)
     * rounded to bf16 (f32_to_bf16's rule) into out: the bits of scaling y, adding the bias,
     * softmax_f32 and f32_to_bf16 of the same table, without the f32 result's passes (y is
     * scratch: its contents afterwards are unspecified). With out NULL, the rounded values go
     * back into y widened to f32 (for products in f32: gemm_f32_panel). Never NULL. */
    void (*softmax_bf16)(float *y, size_t n, float scale, const float *bias, uint16_t *out);
    /* y[i] = 1 / (1 + exp(−x[i])) (in place allowed): the portable one with expf, others within
     * 3 ulp of it (2 in the exponential, the division exact). Never NULL. */
    void (*logistic_f32)(const float *x, float *y, size_t n);
    /* y[i] = x[i] · logistic(x[i] · c) · u[i], products left to right, the logistic's bits as
     * logistic_f32's: c = *scale (NULL: 1, a SiLU; c = 1.702: a quick GELU), u NULL: no factor
     * (a gated MLP's SiLU(gate) · up). One pass; y may be x or u. Never NULL. */
    void (*silu_f32)(const float *x, const float *scale, const float *u, float *y, size_t n);
} ts_kernels;

/* Activation rows quantized to int8 for the W8A8 dots, by the Q8_0 block rule: per chunk c of 32
 * values (or per row, each chunk's d[c] the row's, for gemm_q8_channel), d[c] = max|x|/127 and
 * xq = round(x/d) (nearest even) in −127…127. The bytes of a
 * chunk pair are stored in the order the weights unpack to (`u4` false: natural; true, for
 * 4-bit weights: per pair of chunks (a, b) the even channels of a, of b, the odd of a, of b,
 * so that low and high nibbles line up; a last unpaired chunk: its even, then odd channels).
 * xs[l] = −offset · the sum of the stored bytes 4l … 4l + 3 (offset 8 in the u4 layout,
 * 128 in the natural one; n/4 per row): the start of a VPDPBUSD lane that multiplies unsigned
 * weights u = w + offset, so that it sums (u − offset)·xq exactly. Row r starts at q + r·ld,
 * d + r·ld/32, xs + r·ld/4. */
typedef struct ts_q8_act {
    const int8_t *q;
    const float *d;
    const int32_t *xs;
    size_t ld;
} ts_q8_act;
/* Weight row w's chunk scales for the W8A8 dots (n channels a row; f16 when `half`, else f32). */
static inline const void *ts_q8_row_scales(const void *scale, bool half, size_t w, size_t n)
{
    return (const char *)scale + w * (n / 32) * (half ? sizeof(uint16_t) : sizeof(float));
}
#define TS_Q8_ROWS 4
#define TS_DOT_TILE 4 /* weight rows per dot_tile_* call */
#define TS_Q8_PANEL 32 /* weight rows per gemm_q8 panel */
/* The widest row gemm_q8_channel sums in int32: every partial sum of −128·Σxq + Σ u·xq stays
 * within (128 + 255)·127·k < 2³¹. */
#define TS_Q8_CHANNEL_MAX_K 32768
/* Position of channel j of a chunk pair's 64 bytes (or a last unpaired chunk's 32) in the u4
 * layout. */
static inline size_t ts_q8_u4_position(size_t j, size_t n)
{
    size_t base = j & ~(size_t)63, i = j & 63, pair = n - base >= 64;
    if (!pair) return base + (i % 2) * 16 + i / 2;
    return base + (i % 2) * 32 + (i / 32) * 16 + (i % 32) / 2;
}

#define TS_GEMM_PANEL_FLOATS (256 * 32)
#define TS_GEMM_COLUMNS 32 /* split output columns between threads in multiples of this */

/* Best table for `features` (a TS_CPU_* mask; pass ts_cpu_features() for all detected). */
const ts_kernels *ts_kernels_select(unsigned features);

/* Portable references, also used by tests to check the SIMD variants. */
float ts_dot_f32_ref(const float *a, const float *b, size_t n);
float ts_dot_bf16_f32_ref(const uint16_t *w, const float *x, size_t n);
float ts_dot_bf16_bf16_ref(const uint16_t *w, const uint16_t *x, size_t n);
void ts_bf16_to_f32_ref(const uint16_t *src, float *dst, size_t n);
float ts_dot_f16_f32_ref(const uint16_t *w, const float *x, size_t n);
void ts_f16_to_f32_ref(const uint16_t *src, float *dst, size_t n);
float ts_f16_to_f32_scalar(uint16_t h);
float ts_qdot_i8_f32_ref(const int8_t *q, const float *x, size_t n, size_t block, const float *scale, const float *zero);
float ts_qdot_u4_f32_ref(const uint8_t *q, const float *x, size_t n, size_t block, const float *scale, const float *zero);
void ts_dequant_i8_f32_ref(const int8_t *q, size_t n, size_t block, const float *scale, const float *zero, float *dst);
void ts_dequant_u4_f32_ref(const uint8_t *q, size_t n, size_t block, const float *scale, const float *zero, float *dst);
void ts_quantize_q8_ref(const float *x, size_t n, size_t block, bool u4, int8_t *q, float *d,
                        int32_t *xs);
uint16_t ts_f32_to_bf16_scalar(float f);
uint16_t ts_f32_to_f16(float f); /* round to nearest even; overflow to ±inf */
void ts_quantize_weights_q8_ref(const float *w, size_t n, size_t block, int8_t *q,
                                uint16_t *scale);
void ts_quantize_weights_q4_ref(const float *w, size_t n, uint8_t *q, uint16_t *scale);
void ts_pack_u32_panel_ref(const void *src, size_t ld, int rows, size_t count, uint32_t flip, uint32_t *dst);
void ts_f32_to_bf16_ref(const float *x, uint16_t *y, size_t n);
void ts_softmax_f32_ref(float *y, size_t n);
void ts_softmax_bf16_ref(float *y, size_t n, float scale, const float *bias, uint16_t *out);
void ts_weighted_sum_f32_ref(const float *p, size_t ldp, int heads, size_t count, const float *v, size_t ldv, size_t n,
                             float *out, size_t ldo);
void ts_logistic_f32_ref(const float *x, float *y, size_t n);
void ts_silu_f32_ref(const float *x, const float *scale, const float *u, float *y, size_t n);
void ts_qdot_i8_q8_ref(const int8_t *q, size_t nw, const ts_q8_act *x, int rows, size_t n,
                       const void *scale, bool half, float *out, size_t ldo);
void ts_qdot_u4_q8_ref(const uint8_t *q, size_t nw, const ts_q8_act *x, int rows, size_t n,
                       const void *scale, bool half, const float *zero, float *out, size_t ldo);
void ts_gemm_q8_channel_ref(const ts_q8_act *x, const int32_t *xsum, int64_t m, size_t k,
                            const uint8_t *panel, const float *scale, int cols, const float *bias,
                            float *c, int64_t ldc);

#if defined(__x86_64__)
float ts_dot_f32_avx2(const float *a, const float *b, size_t n);
float ts_dot_bf16_f32_avx2(const uint16_t *w, const float *x, size_t n);
void ts_bf16_to_f32_avx2(const uint16_t *src, float *dst, size_t n);
float ts_dot_f32_avx512(const float *a, const float *b, size_t n);
float ts_dot_bf16_f32_avx512(const uint16_t *w, const float *x, size_t n);
void ts_bf16_to_f32_avx512(const uint16_t *src, float *dst, size_t n);
void ts_dot_rows_bf16_f32_avx512(const uint16_t *w, const float *x, size_t ldx, int rows, size_t n, float *out);
void ts_dot_rows_f32_avx512(const float *w, const float *x, size_t ldx, int rows, size_t n, float *out);
void ts_dot_heads_f32_avx512(const float *q, size_t ldq, int heads, const float *k, size_t ldk, size_t keys, size_t n,
                             float *scores, size_t lds);
void ts_dot_pair_bf16_f32_avx512(const uint16_t *w, size_t ldw, const float *x, size_t ldx, int rows, size_t n,
                                 float *out);
void ts_dot_pair_f32_avx512(const float *w, size_t ldw, const float *x, size_t ldx, int rows, size_t n, float *out);
void ts_dot_tile_bf16_f32_avx512(const uint16_t *w, size_t ldw, const float *x, size_t ldx, int rows, size_t n,
                                 float *out);
void ts_dot_tile_f32_avx512(const float *w, size_t ldw, const float *x, size_t ldx, int rows, size_t n, float *out);
float ts_dot_f16_f32_avx2(const uint16_t *w, const float *x, size_t n);
void ts_f16_to_f32_avx2(const uint16_t *src, float *dst, size_t n);
float ts_dot_f16_f32_avx512(const uint16_t *w, const float *x, size_t n);
void ts_f16_to_f32_avx512(const uint16_t *src, float *dst, size_t n);
void ts_gemm_f32_avx512(const float *a, int64_t m, int64_t k, const void *w, ts_dtype w_dtype, int64_t ldw, int64_t n0,
                        int64_t n1, float *c, int64_t ldc, float *panel);
void ts_gemm_f32_panel_avx512(const float *a, int64_t lda, int64_t m, int64_t k,
                              const float *panel, int cols, const float *bias, float *c,
                              int64_t ldc, bool accumulate);
void ts_gemm_kn_f32_avx512(const float *a, int64_t m, int64_t k, const void *w, ts_dtype w_dtype,
                           int64_t ldw, int64_t n0, int64_t n1, float *c, int64_t ldc,
                           float *panel);
void ts_gemm_bf16_avx512bf16(const uint16_t *a, int64_t m, int64_t k, const uint16_t *w, int64_t n0, int64_t n1,
                             const float *bias, float *c, int64_t ldc, float *panel);
void ts_gemm_bf16_fma_avx512(const uint16_t *a, int64_t m, int64_t k, const uint16_t *w, int64_t n0,
                             int64_t n1, const float *bias, float *c, int64_t ldc, float *panel);
void ts_gemm_bf16_panel_avx512bf16(const uint16_t *a, int64_t lda, int64_t m, int64_t kp,
                                   const uint32_t *panel, int cols, const float *bias, float *c,
                                   int64_t ldc, bool accumulate);
float ts_dot_bf16_f32_avx512bf16(const uint16_t *w, const float *x, size_t n);
void ts_dot_bf16_bf16_avx512bf16(const uint16_t *w, size_t ldw, int wrows, const uint16_t *x, size_t ldx, int rows,
                                 size_t n, float *out);
float ts_qdot_i8_f32_avx512(const int8_t *q, const float *x, size_t n, size_t block, const float *scale, const float *zero);
float ts_qdot_u4_f32_avx512(const uint8_t *q, const float *x, size_t n, size_t block, const float *scale, const float *zero);
void ts_dequant_i8_f32_avx512(const int8_t *q, size_t n, size_t block, const float *scale, const float *zero, float *dst);
void ts_dequant_u4_f32_avx512(const uint8_t *q, size_t n, size_t block, const float *scale, const float *zero, float *dst);
void ts_quantize_weights_q8_avx512(const float *w, size_t n, size_t block, int8_t *q,
                                   uint16_t *scale);
void ts_quantize_weights_q4_avx512(const float *w, size_t n, uint8_t *q, uint16_t *scale);
void ts_quantize_q8_avx512(const float *x, size_t n, size_t block, bool u4, int8_t *q, float *d,
                           int32_t *xs);
void ts_pack_u32_panel_avx512(const void *src, size_t ld, int rows, size_t count, uint32_t flip, uint32_t *dst);
void ts_f32_to_bf16_avx512(const float *x, uint16_t *y, size_t n);
void ts_f32_to_bf16_avx512bf16(const float *x, uint16_t *y, size_t n);
void ts_softmax_f32_avx512(float *y, size_t n);
void ts_softmax_bf16_avx512(float *y, size_t n, float scale, const float *bias, uint16_t *out);
void ts_softmax_bf16_avx512bf16(float *y, size_t n, float scale, const float *bias, uint16_t *out);
void ts_weighted_sum_f32_avx512(const float *p, size_t ldp, int heads, size_t count, const float *v, size_t ldv,
                                size_t n, float *out, size_t ldo);
void ts_logistic_f32_avx512(const float *x, float *y, size_t n);
void ts_silu_f32_avx512(const float *x, const float *scale, const float *u, float *y, size_t n);
void ts_gemm_q8_avx512vnni(const ts_q8_act *x, const int32_t *xsum, int64_t m, size_t k,
                           const uint8_t *panel, const float *scale, int32_t offset,
                           const int32_t *offsets, int cols, const float *bias, float *c,
                           int64_t ldc);
void ts_gemm_q8_channel_avx512vnni(const ts_q8_act *x, const int32_t *xsum, int64_t m, size_t k,
                                   const uint8_t *panel, const float *scale, int cols,
                                   const float *bias, float *c, int64_t ldc);
void ts_qdot_i8_q8_avx512vnni(const int8_t *q, size_t nw, const ts_q8_act *x, int rows, size_t n,
                              const void *scale, bool half, float *out, size_t ldo);
void ts_qdot_u4_q8_avx512vnni(const uint8_t *q, size_t nw, const ts_q8_act *x, int rows, size_t n,
                              const void *scale, bool half, const float *zero, float *out,
                              size_t ldo);
/* The same dots with the weight stream prefetched into L2 rather than non-temporally (Intel's
 * tables: qdot_avx512vnni.c has the figures); the same bits. */
void ts_qdot_i8_q8_avx512vnni_l2(const int8_t *q, size_t nw, const ts_q8_act *x, int rows, size_t n,
                                 const void *scale, bool half, float *out, size_t ldo);
void ts_qdot_u4_q8_avx512vnni_l2(const uint8_t *q, size_t nw, const ts_q8_act *x, int rows,
                                 size_t n, const void *scale, bool half, const float *zero,
                                 float *out, size_t ldo);
#endif

/* Asks the kernel for AMX tile state (arch_prctl ARCH_REQ_XCOMP_PERM); without it the first tile
 * instruction raises SIGILL. Idempotent. TS_ERR_UNSUPPORTED when the CPU or kernel refuses. */
ts_status ts_amx_request_permission(ts_error *err);

#endif
