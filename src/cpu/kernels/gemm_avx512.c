/* gemm_avx512.c — C[m, n] = A[m, :] · W[n, :] for many rows (prefill), f32 compute.
 *
 * W is the weight in its published [out, in] layout, f32/bf16/f16, read in place; its rows are
 * ldw elements apart (≥ k: attention multiplies by the first k columns of a wider matrix). A block
 * of 32 weight rows × KC columns is widened and transposed into an f32 panel (so bf16 weights cost
 * no extra memory), then an 8×32 register tile (16 zmm accumulators) runs over every 8 rows of A.
 * The caller splits the output columns between threads in multiples of 32; each task owns its
 * panel buffer. Accumulation order over k matches a plain loop within each KC chunk.
 *
 * The panel entry (gemm_f32_panel) runs the same tile over a panel packed once by its caller
 * (attention's keys and values), all of k in one pass.
 *
 * The _kn variant takes W as [k, n] (x·W, the fused MoE experts' published layout, rows ldw
 * apart): its panel rows are W's own rows, so packing is a straight copy (or widening) of 32
 * contiguous elements per k. Its tile rounds each product before adding it (no FMA) and carries
 * the sum from one KC chunk into the next, so every element is exactly the plain loop
 * `acc += a * w` over k in order: the MoE kernel's row loops (used for experts with few tokens)
 * and its tiled experts agree bit for bit, whatever the routing.
 */
#include "cpu/kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

#include "cpu/kernels/gemm_tile_avx512.h"

#define TS_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,fma,f16c")))
#define KC 256
#define NR TS_TILE_COLUMNS
#define MR TS_TILE_ROWS

TS_AVX512 static void pack_panel(const void *w, ts_dtype dtype, int64_t ldw, int64_t n0, int64_t n_rows, int64_t k0,
                                 int64_t kc, float *panel)
{
    /* panel[kk * NR + j] = W[n0 + j][k0 + kk]; rows past n_rows are zero. */
    float row[KC];
    for (int64_t j = 0; j < NR; j++) {
        if (j >= n_rows) {
            for (int64_t kk = 0; kk < kc; kk++) panel[kk * NR + j] = 0.0f;
            continue;
        }
        const float *src;
        if (dtype == TS_DTYPE_BF16) {
            ts_bf16_to_f32_avx512((const uint16_t *)w + (n0 + j) * ldw + k0, row, (size_t)kc);
            src = row;
        } else if (dtype == TS_DTYPE_F16) {
            ts_f16_to_f32_avx512((const uint16_t *)w + (n0 + j) * ldw + k0, row, (size_t)kc);
            src = row;
        } else {
            src = (const float *)w + (n0 + j) * ldw + k0;
        }
        for (int64_t kk = 0; kk < kc; kk++) panel[kk * NR + j] = src[kk];
    }
}

/* panel[kk * NR + j] = W[k0 + kk][n0 + j] of a [k, n] W; columns past n_cols are zero. */
TS_AVX512 static void pack_panel_kn(const void *w, ts_dtype dtype, int64_t ldw, int64_t n0,
                                    int64_t n_cols, int64_t k0, int64_t kc, float *panel)
{
    for (int64_t kk = 0; kk < kc; kk++) {
        float *dst = panel + kk * NR;
        size_t at = (size_t)((k0 + kk) * ldw + n0);
        if (dtype == TS_DTYPE_BF16)
            ts_bf16_to_f32_avx512((const uint16_t *)w + at, dst, (size_t)n_cols);
        else if (dtype == TS_DTYPE_F16)
            ts_f16_to_f32_avx512((const uint16_t *)w + at, dst, (size_t)n_cols);
        else
            memcpy(dst, (const float *)w + at, sizeof(float) * (size_t)n_cols);
        for (int64_t j = n_cols; j < NR; j++)
            dst[j] = 0.0f;
    }
}

/* acc (mr × 32) += A[mr rows, kc] · panel; then C (+)= acc. */
TS_AVX512 static inline __attribute__((always_inline)) void tile(const float *a, int64_t lda, const float *panel,
                                                               int64_t kc, float *c, int64_t ldc, int mr,
                                                               __mmask16 m0, __mmask16 m1, bool accumulate)
{
    __m512 acc[MR][2];
    for (int r = 0; r < MR; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    ts_tile_f32(a, lda, panel, kc, acc, mr, false);
    __m512 zero = _mm512_setzero_ps();
    ts_tile_store(acc, mr, c, ldc, m0, m1, accumulate, false, false, zero, zero);
}

/* The _kn tile: C (+)= A · panel with acc = acc + round(a · b), acc starting from C when
 * accumulating. */
TS_AVX512 static inline __attribute__((always_inline)) void
tile_kn(const float *a, int64_t lda, const float *panel, int64_t kc, float *c, int64_t ldc, int mr,
        __mmask16 m0, __mmask16 m1, bool accumulate)
{
    __m512 acc[MR][2];
    for (int r = 0; r < MR; r++)
        acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    for (int r = 0; accumulate && r < mr; r++) {
        acc[r][0] = _mm512_maskz_loadu_ps(m0, c + r * ldc);
        acc[r][1] = _mm512_maskz_loadu_ps(m1, c + r * ldc + 16);
    }
    for (int64_t kk = 0; kk < kc; kk++) {
        __m512 b0 = _mm512_load_ps(panel + kk * NR), b1 = _mm512_load_ps(panel + kk * NR + 16);
        for (int r = 0; r < MR; r++) {
            if (r >= mr) break;
            __m512 av = _mm512_set1_ps(a[r * lda + kk]);
            acc[r][0] = _mm512_add_ps(acc[r][0], _mm512_mul_ps(av, b0));
            acc[r][1] = _mm512_add_ps(acc[r][1], _mm512_mul_ps(av, b1));
        }
    }
    for (int r = 0; r < MR; r++) {
        if (r >= mr) break;
        _mm512_mask_storeu_ps(c + r * ldc, m0, acc[r][0]);
        _mm512_mask_storeu_ps(c + r * ldc + 16, m1, acc[r][1]);
    }
}

_Static_assert(KC * NR == TS_GEMM_PANEL_FLOATS && NR == TS_GEMM_COLUMNS, "panel size out of step");

TS_AVX512 static inline __attribute__((always_inline)) void
gemm(const float *a, int64_t m, int64_t k, const void *w, ts_dtype w_dtype, int64_t ldw, int64_t n0,
     int64_t n1, float *c, int64_t ldc, float *panel, bool kn)
{
    for (int64_t nb = n0; nb < n1; nb += NR) {
        int64_t n_rows = n1 - nb < NR ? n1 - nb : NR;
        __mmask16 m0, m1;
        ts_tile_masks(n_rows, &m0, &m1);
        for (int64_t k0 = 0; k0 < k; k0 += KC) {
            int64_t kc = k - k0 < KC ? k - k0 : KC;
            if (kn)
                pack_panel_kn(w, w_dtype, ldw, nb, n_rows, k0, kc, panel);
            else
                pack_panel(w, w_dtype, ldw, nb, n_rows, k0, kc, panel);
            bool accumulate = k0 > 0;
            int64_t r = 0;
            if (kn) {
                for (; r + MR <= m; r += MR)
                    tile_kn(a + r * k + k0, k, panel, kc, c + r * ldc + nb, ldc, MR, m0, m1,
                            accumulate);
                if (r < m)
                    tile_kn(a + r * k + k0, k, panel, kc, c + r * ldc + nb, ldc, (int)(m - r), m0,
                            m1, accumulate);
                continue;
            }
            for (; r + MR <= m; r += MR) tile(a + r * k + k0, k, panel, kc, c + r * ldc + nb, ldc, MR, m0, m1, accumulate);
            /* The last rows: the same tile with a run-time row count (once per panel). */
            if (r < m) tile(a + r * k + k0, k, panel, kc, c + r * ldc + nb, ldc, (int)(m - r), m0, m1, accumulate);
        }
    }
}

TS_AVX512 void ts_gemm_f32_avx512(const float *a, int64_t m, int64_t k, const void *w,
                                  ts_dtype w_dtype, int64_t ldw, int64_t n0, int64_t n1, float *c,
                                  int64_t ldc, float *panel)
{
    gemm(a, m, k, w, w_dtype, ldw, n0, n1, c, ldc, panel, false);
}

/* C (+)= A (mr rows, lda apart) · a pre-packed f32 panel over k (+ bias); narrow: 16 columns. */
TS_AVX512 static inline __attribute__((always_inline)) void
panel_tile(const float *a, int64_t lda, const float *panel, int64_t k, float *c, int64_t ldc,
           int mr, __mmask16 m0, __mmask16 m1, bool accumulate, bool narrow, bool biased,
           __m512 b0, __m512 b1)
{
    __m512 acc[MR][2];
    for (int r = 0; r < MR; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    ts_tile_f32(a, lda, panel, k, acc, mr, narrow);
    ts_tile_store(acc, mr, c, ldc, m0, m1, accumulate, narrow, biased, b0, b1);
}

TS_AVX512 void ts_gemm_f32_panel_avx512(const float *a, int64_t lda, int64_t m, int64_t kp,
                                        const float *panel, int cols, const float *bias, float *c,
                                        int64_t ldc, bool accumulate)
{
    TS_TILE_PANEL_ENTRY(panel_tile)
}

TS_AVX512 void ts_gemm_kn_f32_avx512(const float *a, int64_t m, int64_t k, const void *w,
                                     ts_dtype w_dtype, int64_t ldw, int64_t n0, int64_t n1,
                                     float *c, int64_t ldc, float *panel)
{
    gemm(a, m, k, w, w_dtype, ldw, n0, n1, c, ldc, panel, true);
}
#endif
