/* dot_avx512.c — AVX-512 dot products and bf16 widening; masked loads handle the tails. */
#include "cpu/kernels.h"

#if defined(__x86_64__)
#define TS_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,fma,f16c")))
#include <immintrin.h>

TS_AVX512 static inline __m512 load_bf16x16(const uint16_t *w, __mmask16 m)
{
    __m256i h = _mm256_maskz_loadu_epi16(m, w);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

static inline __mmask16 tail_mask(size_t left) { return (__mmask16)((1u << left) - 1); }

TS_AVX512 float ts_dot_f32_avx512(const float *a, const float *b, size_t n)
{
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
        s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), s1);
    }
    for (; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? 0xffff : tail_mask(n - i);
        s0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i), s0);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
}

TS_AVX512 float ts_dot_bf16_f32_avx512(const uint16_t *w, const float *x, size_t n)
{
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        s0 = _mm512_fmadd_ps(load_bf16x16(w + i, 0xffff), _mm512_loadu_ps(x + i), s0);
        s1 = _mm512_fmadd_ps(load_bf16x16(w + i + 16, 0xffff), _mm512_loadu_ps(x + i + 16), s1);
    }
    for (; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? 0xffff : tail_mask(n - i);
        s0 = _mm512_fmadd_ps(load_bf16x16(w + i, m), _mm512_maskz_loadu_ps(m, x + i), s0);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
}

/* Up to four rows of x against one weight row, each row summed exactly as
 * ts_dot_bf16_f32_avx512 sums it (same lanes, same order), so a batched decode step gives every
 * sequence the bits it gets alone; the weight row is widened once for all of them. */
/* Named accumulators rather than arrays: with `rows` a constant after inlining, the unused rows
 * vanish and the rest stay in registers (arrays of vectors are kept on the stack). */
#define ROW_STEP32(r, X0, X1)                                                                                            \
    if (rows > r) {                                                                                                      \
        s0_##r = _mm512_fmadd_ps(w0, X0, s0_##r);                                                                        \
        s1_##r = _mm512_fmadd_ps(w1, X1, s1_##r);                                                                        \
    }
#define ROW_TAIL(r, X0)                                                                                                  \
    if (rows > r) s0_##r = _mm512_fmadd_ps(w0, X0, s0_##r);
#define ROW_SUM(r)                                                                                                       \
    if (rows > r) out[r] = _mm512_reduce_add_ps(_mm512_add_ps(s0_##r, s1_##r));
#define ROW_ACCUMULATORS                                                                                                 \
    __m512 z = _mm512_setzero_ps(), s0_0 = z, s1_0 = z, s0_1 = z, s1_1 = z, s0_2 = z, s1_2 = z, s0_3 = z, s1_3 = z;
#define X_AT(r, off) _mm512_loadu_ps(x + r * ldx + i + off)
#define X_TAIL(r) _mm512_maskz_loadu_ps(m, x + r * ldx + i)

TS_AVX512 static inline __attribute__((always_inline)) void dot_rows_bf16(const uint16_t *w, const float *x, size_t ldx, const int rows,
                                                                           size_t n, float *out)
{
    ROW_ACCUMULATORS
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m512 w0 = load_bf16x16(w + i, 0xffff), w1 = load_bf16x16(w + i + 16, 0xffff);
        ROW_STEP32(0, X_AT(0, 0), X_AT(0, 16))
        ROW_STEP32(1, X_AT(1, 0), X_AT(1, 16))
        ROW_STEP32(2, X_AT(2, 0), X_AT(2, 16))
        ROW_STEP32(3, X_AT(3, 0), X_AT(3, 16))
    }
    for (; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? 0xffff : tail_mask(n - i);
        __m512 w0 = load_bf16x16(w + i, m);
        ROW_TAIL(0, X_TAIL(0)) ROW_TAIL(1, X_TAIL(1)) ROW_TAIL(2, X_TAIL(2)) ROW_TAIL(3, X_TAIL(3))
    }
    ROW_SUM(0) ROW_SUM(1) ROW_SUM(2) ROW_SUM(3)
}

/* The f32-weight sibling, summing as ts_dot_f32_avx512 does; with `lanes`, each row's 16 lanes
 * (the two chains added) are stored there instead of their sum. */
#define ROW_LANES(r)                                                                                                     \
    if (rows > r) lanes[r] = _mm512_add_ps(s0_##r, s1_##r);
TS_AVX512 static inline __attribute__((always_inline)) void dot_rows_f32(const float *w, const float *x, size_t ldx, const int rows,
                                                                          size_t n, float *out, __m512 *lanes)
{
    ROW_ACCUMULATORS
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m512 w0 = _mm512_loadu_ps(w + i), w1 = _mm512_loadu_ps(w + i + 16);
        ROW_STEP32(0, X_AT(0, 0), X_AT(0, 16))
        ROW_STEP32(1, X_AT(1, 0), X_AT(1, 16))
        ROW_STEP32(2, X_AT(2, 0), X_AT(2, 16))
        ROW_STEP32(3, X_AT(3, 0), X_AT(3, 16))
    }
    for (; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? 0xffff : tail_mask(n - i);
        __m512 w0 = _mm512_maskz_loadu_ps(m, w + i);
        ROW_TAIL(0, X_TAIL(0)) ROW_TAIL(1, X_TAIL(1)) ROW_TAIL(2, X_TAIL(2)) ROW_TAIL(3, X_TAIL(3))
    }
    if (lanes) {
        ROW_LANES(0) ROW_LANES(1) ROW_LANES(2) ROW_LANES(3)
        return;
    }
    ROW_SUM(0) ROW_SUM(1) ROW_SUM(2) ROW_SUM(3)
}

/* One copy per row count: with `rows` a constant the row loops unroll and the accumulators stay in
 * registers (a variable count spills them to the stack every step). */
TS_AVX512 void ts_dot_rows_bf16_f32_avx512(const uint16_t *w, const float *x, size_t ldx, int rows, size_t n, float *out)
{
    switch (rows) {
    case 1: dot_rows_bf16(w, x, ldx, 1, n, out); break;
    case 2: dot_rows_bf16(w, x, ldx, 2, n, out); break;
    case 3: dot_rows_bf16(w, x, ldx, 3, n, out); break;
    default: dot_rows_bf16(w, x, ldx, 4, n, out); break;
    }
}

TS_AVX512 void ts_dot_rows_f32_avx512(const float *w, const float *x, size_t ldx, int rows, size_t n, float *out)
{
    switch (rows) {
    case 1: dot_rows_f32(w, x, ldx, 1, n, out, NULL); break;
    case 2: dot_rows_f32(w, x, ldx, 2, n, out, NULL); break;
    case 3: dot_rows_f32(w, x, ldx, 3, n, out, NULL); break;
    default: dot_rows_f32(w, x, ldx, 4, n, out, NULL); break;
    }
}

/* Two weight rows (ldw apart) × `rows` ≤ 4 rows of x: out[r·2 + o] = the dot of weight row o with
 * x row r, each summed exactly as the single dot above (the same two chains of 16-lane FMAs: the
 * first half of every 32, then the tail; the second halves; added and reduced at the end), so
 * each is bit-identical to it; one pass over the weights with both chains live, each x load
 * serving both weight rows. */
#define PAIR_ACC(o) __m512 p0_##o##_0 = z, p1_##o##_0 = z, p0_##o##_1 = z, p1_##o##_1 = z, p0_##o##_2 = z, p1_##o##_2 = z, \
                           p0_##o##_3 = z, p1_##o##_3 = z;
#define PAIR_STEP32(r)                                                                                                   \
    if (rows > r) {                                                                                                      \
        __m512 xa = X_AT(r, 0), xb = X_AT(r, 16);                                                                        \
        p0_0_##r = _mm512_fmadd_ps(wa0, xa, p0_0_##r);                                                                   \
        p1_0_##r = _mm512_fmadd_ps(wa1, xb, p1_0_##r);                                                                   \
        p0_1_##r = _mm512_fmadd_ps(wb0, xa, p0_1_##r);                                                                   \
        p1_1_##r = _mm512_fmadd_ps(wb1, xb, p1_1_##r);                                                                   \
    }
#define PAIR_TAIL(r)                                                                                                     \
    if (rows > r) {                                                                                                      \
        __m512 xa = X_TAIL(r);                                                                                           \
        p0_0_##r = _mm512_fmadd_ps(wa0, xa, p0_0_##r);                                                                   \
        p0_1_##r = _mm512_fmadd_ps(wb0, xa, p0_1_##r);                                                                   \
    }
#define PAIR_SUM(r)                                                                                                      \
    if (rows > r) {                                                                                                      \
        out[r * 2] = _mm512_reduce_add_ps(_mm512_add_ps(p0_0_##r, p1_0_##r));                                            \
        out[r * 2 + 1] = _mm512_reduce_add_ps(_mm512_add_ps(p0_1_##r, p1_1_##r));                                        \
    }
#define PAIR_BODY(LOADW)                                                                                                 \
    __m512 z = _mm512_setzero_ps();                                                                                      \
    PAIR_ACC(0) PAIR_ACC(1)                                                                                              \
    size_t i = 0;                                                                                                        \
    for (; i + 32 <= n; i += 32) {                                                                                       \
        __m512 wa0 = LOADW(w, i, 0xffff), wa1 = LOADW(w, i + 16, 0xffff);                                                \
        __m512 wb0 = LOADW(w + ldw, i, 0xffff), wb1 = LOADW(w + ldw, i + 16, 0xffff);                                    \
        PAIR_STEP32(0) PAIR_STEP32(1) PAIR_STEP32(2) PAIR_STEP32(3)                                                      \
    }                                                                                                                    \
    for (; i < n; i += 16) {                                                                                             \
        __mmask16 m = n - i >= 16 ? 0xffff : tail_mask(n - i);                                                           \
        __m512 wa0 = LOADW(w, i, m), wb0 = LOADW(w + ldw, i, m);                                                         \
        PAIR_TAIL(0) PAIR_TAIL(1) PAIR_TAIL(2) PAIR_TAIL(3)                                                              \
    }                                                                                                                    \
    PAIR_SUM(0) PAIR_SUM(1) PAIR_SUM(2) PAIR_SUM(3)
#define LOAD_BF16(p, at, m) load_bf16x16((p) + (at), m)
#define LOAD_F32(p, at, m) _mm512_maskz_loadu_ps(m, (p) + (at))

TS_AVX512 static inline __attribute__((always_inline)) void pair_bf16(const uint16_t *w, size_t ldw, const float *x, size_t ldx,
                                                                       const int rows, size_t n, float *out)
{
    PAIR_BODY(LOAD_BF16)
}

TS_AVX512 static inline __attribute__((always_inline)) void pair_f32(const float *w, size_t ldw, const float *x, size_t ldx,
                                                                      const int rows, size_t n, float *out)
{
    PAIR_BODY(LOAD_F32)
}

#define PAIR_CASES(F)                                                                                                    \
    switch (rows) {                                                                                                      \
    case 1: F(w, ldw, x, ldx, 1, n, out); break;                                                                         \
    case 2: F(w, ldw, x, ldx, 2, n, out); break;                                                                         \
    case 3: F(w, ldw, x, ldx, 3, n, out); break;                                                                         \
    default: F(w, ldw, x, ldx, 4, n, out); break;                                                                        \
    }

TS_AVX512 void ts_dot_pair_bf16_f32_avx512(const uint16_t *w, size_t ldw, const float *x, size_t ldx, int rows, size_t n,
                                           float *out)
{
    PAIR_CASES(pair_bf16)
}

TS_AVX512 void ts_dot_pair_f32_avx512(const float *w, size_t ldw, const float *x, size_t ldx, int rows, size_t n, float *out)
{
    PAIR_CASES(pair_f32)
}

/* A tile of four weight rows (ldw apart) × `rows` ≤ 4 rows of x: out[r·4 + o] = the dot of weight
 * row o with x row r, each bit-identical to the single dot above. A single dot is two independent
 * chains of 16-lane FMAs (chain 0: the first half of every 32, then the tail; chain 1: the second
 * halves) added and reduced at the end, so the tile runs chain 0 of all its dots, keeps it, then
 * chain 1: with one chain live, 4 × 4 dots fit in 16 registers, and each x load serves four weight
 * rows (with 16 decode rows the x rows outgrow L1; reloading them per weight row bound the step). */
#define TILE_ACC(o) __m512 a##o##_0 = z, a##o##_1 = z, a##o##_2 = z, a##o##_3 = z;
#define TILE_ROW(r, XV)                                                                                                  \
    if (rows > r) {                                                                                                      \
        __m512 xv = XV;                                                                                                  \
        a0_##r = _mm512_fmadd_ps(w0, xv, a0_##r);                                                                        \
        a1_##r = _mm512_fmadd_ps(w1, xv, a1_##r);                                                                        \
        a2_##r = _mm512_fmadd_ps(w2, xv, a2_##r);                                                                        \
        a3_##r = _mm512_fmadd_ps(w3, xv, a3_##r);                                                                        \
    }
#define TILE_STEP(LOADW, LOADX)                                                                                          \
    {                                                                                                                    \
        __m512 w0 = LOADW(0), w1 = LOADW(1), w2 = LOADW(2), w3 = LOADW(3);                                               \
        TILE_ROW(0, LOADX(0)) TILE_ROW(1, LOADX(1)) TILE_ROW(2, LOADX(2)) TILE_ROW(3, LOADX(3))                          \
    }
#define TILE_KEEP(o)                                                                                                     \
    keep[o * 4 + 0] = a##o##_0, keep[o * 4 + 1] = a##o##_1, keep[o * 4 + 2] = a##o##_2, keep[o * 4 + 3] = a##o##_3;
/* One chain of every dot of the tile into keep[o·4 + r]. */
#define TILE_CHAIN(FULL_W, MASK_W)                                                                                       \
    {                                                                                                                    \
        __m512 z = _mm512_setzero_ps();                                                                                  \
        TILE_ACC(0) TILE_ACC(1) TILE_ACC(2) TILE_ACC(3)                                                                  \
        size_t full = n / 32 * 32;                                                                                       \
        for (size_t i = (size_t)chain * 16; i < full; i += 32) TILE_STEP(FULL_W, X_FULL)                                 \
        for (size_t i = full; chain == 0 && i < n; i += 16) {                                                            \
            __mmask16 m = n - i >= 16 ? 0xffff : tail_mask(n - i);                                                       \
            TILE_STEP(MASK_W, X_MASK)                                                                                    \
        }                                                                                                                \
        TILE_KEEP(0) TILE_KEEP(1) TILE_KEEP(2) TILE_KEEP(3)                                                              \
    }
#define X_FULL(r) _mm512_loadu_ps(x + r * ldx + i)
#define X_MASK(r) _mm512_maskz_loadu_ps(m, x + r * ldx + i)
#define BF16_FULL(o) load_bf16x16(w + o * ldw + i, 0xffff)
#define BF16_MASK(o) load_bf16x16(w + o * ldw + i, m)
#define F32_FULL(o) _mm512_loadu_ps(w + o * ldw + i)
#define F32_MASK(o) _mm512_maskz_loadu_ps(m, w + o * ldw + i)

TS_AVX512 static inline __attribute__((always_inline)) void tile_chain_bf16(const uint16_t *w, size_t ldw, const float *x, size_t ldx,
                                                                             const int rows, size_t n, const int chain, __m512 *keep)
{
    TILE_CHAIN(BF16_FULL, BF16_MASK)
}

TS_AVX512 static inline __attribute__((always_inline)) void tile_chain_f32(const float *w, size_t ldw, const float *x, size_t ldx,
                                                                            const int rows, size_t n, const int chain, __m512 *keep)
{
    TILE_CHAIN(F32_FULL, F32_MASK)
}

/* The two chains added and reduced as the single dot does. */
TS_AVX512 static inline __attribute__((always_inline)) void tile_sum(const __m512 *c0, const __m512 *c1, int rows, float *out)
{
    for (int r = 0; r < rows; r++)
        for (int o = 0; o < 4; o++) out[r * 4 + o] = _mm512_reduce_add_ps(_mm512_add_ps(c0[o * 4 + r], c1[o * 4 + r]));
}

#define TILE_CASES(CHAIN)                                                                                                \
    switch (rows) {                                                                                                      \
    case 1: CHAIN(w, ldw, x, ldx, 1, n, 0, c0), CHAIN(w, ldw, x, ldx, 1, n, 1, c1); break;                                 \
    case 2: CHAIN(w, ldw, x, ldx, 2, n, 0, c0), CHAIN(w, ldw, x, ldx, 2, n, 1, c1); break;                                 \
    case 3: CHAIN(w, ldw, x, ldx, 3, n, 0, c0), CHAIN(w, ldw, x, ldx, 3, n, 1, c1); break;                                 \
    default: CHAIN(w, ldw, x, ldx, 4, n, 0, c0), CHAIN(w, ldw, x, ldx, 4, n, 1, c1); break;                                \
    }

TS_AVX512 void ts_dot_tile_bf16_f32_avx512(const uint16_t *w, size_t ldw, const float *x, size_t ldx, int rows, size_t n,
                                           float *out)
{
    __m512 c0[16], c1[16];
    TILE_CASES(tile_chain_bf16)
    tile_sum(c0, c1, rows < 4 ? rows : 4, out);
}

TS_AVX512 void ts_dot_tile_f32_avx512(const float *w, size_t ldw, const float *x, size_t ldx, int rows, size_t n, float *out)
{
    __m512 c0[16], c1[16];
    TILE_CASES(tile_chain_f32)
    tile_sum(c0, c1, rows < 4 ? rows : 4, out);
}

TS_AVX512 void ts_bf16_to_f32_avx512(const uint16_t *src, float *dst, size_t n)
{
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? 0xffff : tail_mask(n - i);
        _mm512_mask_storeu_ps(dst + i, m, load_bf16x16(src + i, m));
    }
}

TS_AVX512 float ts_dot_f16_f32_avx512(const uint16_t *w, const float *x, size_t n)
{
    __m512 s0 = _mm512_setzero_ps();
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? 0xffff : tail_mask(n - i);
        __m512 wf = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, w + i));
        s0 = _mm512_fmadd_ps(wf, _mm512_maskz_loadu_ps(m, x + i), s0);
    }
    return _mm512_reduce_add_ps(s0);
}

TS_AVX512 void ts_f16_to_f32_avx512(const uint16_t *src, float *dst, size_t n)
{
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? 0xffff : tail_mask(n - i);
        _mm512_mask_storeu_ps(dst + i, m, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, src + i)));
    }
}
/* The horizontal sums of 16 vectors as one vector (lane t: v[t]'s), each by
 * _mm512_reduce_add_ps's tree (lanes i and i + 8 added, then i + 4, i + 2, i + 1): sixteen
 * reductions for the shuffles and adds of about five. */
TS_AVX512 static inline __m512 sum16(const __m512 *v)
{
    __m512 w[8], x[4], y[2];
    for (int a = 0; a < 8; a++) /* per half: v[2a]'s lanes i + (i + 8), v[2a + 1]'s */
        w[a] = _mm512_add_ps(_mm512_shuffle_f32x4(v[2 * a], v[2 * a + 1], 0x44),
                             _mm512_shuffle_f32x4(v[2 * a], v[2 * a + 1], 0xee));
    for (int b = 0; b < 4; b++) /* per quarter q: v[4b + q]'s i + (i + 4) */
        x[b] = _mm512_add_ps(_mm512_shuffle_f32x4(w[2 * b], w[2 * b + 1], 0x88),
                             _mm512_shuffle_f32x4(w[2 * b], w[2 * b + 1], 0xdd));
    for (int c = 0; c < 2; c++) /* quarter q: v[8c + q]'s i + (i + 2) twice, then v[8c + 4 + q]'s */
        y[c] = _mm512_add_ps(_mm512_shuffle_ps(x[2 * c], x[2 * c + 1], 0x44),
                             _mm512_shuffle_ps(x[2 * c], x[2 * c + 1], 0xee));
    /* lane 4q + e: v[4e + q]'s sum; moved to lane 4e + q */
    __m512 z = _mm512_add_ps(_mm512_shuffle_ps(y[0], y[1], 0x88), _mm512_shuffle_ps(y[0], y[1], 0xdd));
    return _mm512_permutexvar_ps(_mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0), z);
}

TS_AVX512 void ts_dot_heads_f32_avx512(const float *q, size_t ldq, int heads, const float *k, size_t ldk, size_t keys, size_t n,
                                       float *scores, size_t lds)
{
    for (size_t t0 = 0; t0 < keys; t0 += 16) {
        size_t nt = keys - t0 < 16 ? keys - t0 : 16;
        const float *kt = k + t0 * ldk;
        for (int h = 0; h < heads; h++) {
            const float *qh = q + (size_t)h * ldq;
            __m512 v[16];
            size_t t = 0;
            for (; t + 4 <= nt; t += 4) dot_rows_f32(qh, kt + t * ldk, ldk, 4, n, NULL, v + t);
            switch (nt - t) {
            case 3: dot_rows_f32(qh, kt + t * ldk, ldk, 3, n, NULL, v + t); break;
            case 2: dot_rows_f32(qh, kt + t * ldk, ldk, 2, n, NULL, v + t); break;
            case 1: dot_rows_f32(qh, kt + t * ldk, ldk, 1, n, NULL, v + t); break;
            default: break;
            }
            for (t = nt; t < 16; t++) v[t] = _mm512_setzero_ps();
            _mm512_mask_storeu_ps(scores + (size_t)h * lds + t0, (__mmask16)((1u << nt) - 1), sum16(v));
        }
    }
}

/* Up to 64 columns at a time in four accumulators, every value row's product rounded then added
 * (mul, add: the reference's order and rounding). */
TS_AVX512 static inline __attribute__((always_inline)) void weighted_heads(const float *p, size_t ldp, const int heads,
                                                                            size_t count, const float *v, size_t ldv,
                                                                            size_t n, float *out, size_t ldo)
{
    for (size_t c0 = 0; c0 < n; c0 += 64) {
        __mmask16 m[4];
        for (int i = 0; i < 4; i++) {
            size_t at = c0 + 16 * (size_t)i, left = at < n ? n - at : 0;
            m[i] = left >= 16 ? 0xffff : tail_mask(left);
        }
        __m512 a[4][4];
        for (int h = 0; h < heads; h++)
            for (int i = 0; i < 4; i++) a[h][i] = _mm512_setzero_ps();
        for (size_t t = 0; t < count; t++) {
            const float *row = v + t * ldv + c0;
            __m512 r[4];
            for (int i = 0; i < 4; i++) r[i] = _mm512_maskz_loadu_ps(m[i], row + 16 * i);
            for (int h = 0; h < heads; h++) {
                __m512 pt = _mm512_set1_ps(p[(size_t)h * ldp + t]);
                for (int i = 0; i < 4; i++) a[h][i] = _mm512_add_ps(a[h][i], _mm512_mul_ps(pt, r[i]));
            }
        }
        for (int h = 0; h < heads; h++)
            for (int i = 0; i < 4; i++) _mm512_mask_storeu_ps(out + (size_t)h * ldo + c0 + 16 * i, m[i], a[h][i]);
    }
}

/* Up to four heads × 64 columns at a time in sixteen accumulators, every value row's product
 * rounded then added (mul, add: the reference's order and rounding), each value row loaded once
 * for the heads. */
TS_AVX512 void ts_weighted_sum_f32_avx512(const float *p, size_t ldp, int heads, size_t count, const float *v, size_t ldv,
                                          size_t n, float *out, size_t ldo)
{
    for (int h = 0; h < heads; h += 4) {
        const float *ph = p + (size_t)h * ldp;
        float *oh = out + (size_t)h * ldo;
        switch (heads - h < 4 ? heads - h : 4) {
        case 1: weighted_heads(ph, ldp, 1, count, v, ldv, n, oh, ldo); break;
        case 2: weighted_heads(ph, ldp, 2, count, v, ldv, n, oh, ldo); break;
        case 3: weighted_heads(ph, ldp, 3, count, v, ldv, n, oh, ldo); break;
        default: weighted_heads(ph, ldp, 4, count, v, ldv, n, oh, ldo); break;
        }
    }
}
#endif
