/* gemm_tile_avx512.h — the 8-row × 32-column register tile of the f32-accumulating GEMMs
 * (gemm_avx512.c, gemm_avx512bf16.c, gemm_bf16_fma_avx512.c): its f32 product loop over a packed
 * panel, and its store (+ C, then + the bias). Accumulators are acc[row][half], 16 zmm; the
 * functions are always inlined, so with constant row counts they stay in registers. x86-64 only;
 * include it inside the file's __x86_64__ section. */
#ifndef TS_CPU_KERNELS_GEMM_TILE_AVX512_H
#define TS_CPU_KERNELS_GEMM_TILE_AVX512_H

#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>

#define TS_TILE_ROWS 8
#define TS_TILE_COLUMNS 32

#define TS_TILE_TARGET __attribute__((target("avx512f,fma"), always_inline))

/* The store masks of a tile's cols (≤ 32) columns: m0 for 0–15, m1 for 16–31. */
static inline void ts_tile_masks(int64_t cols, __mmask16 *m0, __mmask16 *m1)
{
    *m0 = cols >= 16 ? 0xffff : (__mmask16)((1u << cols) - 1);
    *m1 = cols >= 32 ? 0xffff : cols <= 16 ? 0 : (__mmask16)((1u << (cols - 16)) - 1);
}

/* The bias of a tile's cols columns in two halves (zeros without one). */
TS_TILE_TARGET static inline void ts_tile_bias(const float *bias, int64_t cols, __mmask16 m0,
                                               __mmask16 m1, __m512 *b0, __m512 *b1)
{
    *b0 = bias ? _mm512_maskz_loadu_ps(m0, bias) : _mm512_setzero_ps();
    *b1 = bias && cols > 16 ? _mm512_maskz_loadu_ps(m1, bias + 16) : _mm512_setzero_ps();
}

/* acc[r] += A row r (a + r·lda) · panel over kc, for r < mr: panel[kk·32 + j] the f32 weight of
 * column j at k = kk; each A value broadcast to both halves (narrow: the first only, acc[r][1]
 * untouched). */
TS_TILE_TARGET static inline void ts_tile_f32(const float *a, int64_t lda, const float *panel,
                                              int64_t kc, __m512 acc[TS_TILE_ROWS][2], int mr,
                                              bool narrow)
{
    for (int64_t kk = 0; kk < kc; kk++) {
        __m512 w0 = _mm512_load_ps(panel + kk * TS_TILE_COLUMNS);
        __m512 w1 = narrow ? w0 : _mm512_load_ps(panel + kk * TS_TILE_COLUMNS + 16);
        for (int r = 0; r < TS_TILE_ROWS; r++) {
            if (r >= mr) break;
            __m512 av = _mm512_set1_ps(a[r * lda + kk]);
            acc[r][0] = _mm512_fmadd_ps(av, w0, acc[r][0]);
            if (!narrow) acc[r][1] = _mm512_fmadd_ps(av, w1, acc[r][1]);
        }
    }
}

/* Rows r < mr of C (c + r·ldc) = acc[r] (+ C when accumulate) (+ b0, b1 when biased), the
 * columns in masks m0 (0–15) and m1 (16–31); narrow: the first 16 only, acc[r][1] unused. */
TS_TILE_TARGET static inline void ts_tile_store(__m512 acc[TS_TILE_ROWS][2], int mr, float *c,
                                                int64_t ldc, __mmask16 m0, __mmask16 m1,
                                                bool accumulate, bool narrow, bool biased,
                                                __m512 b0, __m512 b1)
{
    for (int r = 0; r < TS_TILE_ROWS; r++) {
        if (r >= mr) break;
        float *cr = c + r * ldc;
        if (accumulate) {
            acc[r][0] = _mm512_add_ps(acc[r][0], _mm512_maskz_loadu_ps(m0, cr));
            if (!narrow) acc[r][1] = _mm512_add_ps(acc[r][1], _mm512_maskz_loadu_ps(m1, cr + 16));
        }
        if (biased) {
            acc[r][0] = _mm512_add_ps(acc[r][0], b0);
            if (!narrow) acc[r][1] = _mm512_add_ps(acc[r][1], b1);
        }
        _mm512_mask_storeu_ps(cr, m0, acc[r][0]);
        if (!narrow) _mm512_mask_storeu_ps(cr + 16, m1, acc[r][1]);
    }
}

/* The body of a panel entry (kernels.h: gemm_bf16_panel, gemm_f32_panel), in a function with
 * that entry's parameters (a, lda, m, kp, panel, cols, bias, c, ldc, accumulate; kp the entry's
 * depth, pairs or k), around its tile TILE_FN(a, lda, panel, kp, c, ldc, mr, m0, m1, accumulate,
 * narrow, biased, b0, b1): the masks and the bias, then
 * every TS_TILE_ROWS rows. The tile is called with constant row counts and widths where it can,
 * so each copy is specialised. At most 16 columns (80-wide attention heads' last value panel: a
 * sixth of their P·V): narrow, half the products. */
#define TS_TILE_PANEL_ENTRY(TILE_FN)                                                               \
    __mmask16 m0, m1;                                                                              \
    ts_tile_masks(cols, &m0, &m1);                                                                 \
    __m512 b0, b1;                                                                                 \
    ts_tile_bias(bias, cols, m0, m1, &b0, &b1);                                                    \
    bool narrow = cols <= 16, biased = bias != NULL;                                               \
    for (int64_t r = 0; r < m; r += TS_TILE_ROWS) {                                                \
        __typeof__(a) ar = a + r * lda;                                                            \
        float *cr = c + r * ldc;                                                                   \
        int rows = m - r < TS_TILE_ROWS ? (int)(m - r) : TS_TILE_ROWS;                             \
        if (narrow && rows == TS_TILE_ROWS)                                                        \
            TILE_FN(ar, lda, panel, kp, cr, ldc, TS_TILE_ROWS, m0, m1, accumulate, true, biased,  \
                    b0, b1);                                                                       \
        else if (narrow)                                                                           \
            TILE_FN(ar, lda, panel, kp, cr, ldc, rows, m0, m1, accumulate, true, biased, b0, b1);  \
        else if (rows == TS_TILE_ROWS)                                                             \
            TILE_FN(ar, lda, panel, kp, cr, ldc, TS_TILE_ROWS, m0, m1, accumulate, false, biased, \
                    b0, b1);                                                                       \
        else                                                                                       \
            TILE_FN(ar, lda, panel, kp, cr, ldc, rows, m0, m1, accumulate, false, biased, b0, b1); \
    }

#endif
