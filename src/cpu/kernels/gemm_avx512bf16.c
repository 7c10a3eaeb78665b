/* gemm_avx512bf16.c — C[m, n] = A[m, :] · W[n, :] with A and W in bf16, f32 accumulation, by
 * VDPBF16PS: the bf16 compute policy on CPUs with AVX512_BF16 but no AMX (where oneDNN's AMX
 * kernels take over).
 *
 * VDPBF16PS adds a[2i]·b[2i] + a[2i+1]·b[2i+1] into f32 lane i, so the weight panel holds, for
 * each pair of k and each of 32 output columns, the two bf16 values side by side: a 32-bit
 * transpose of W's rows. A row's pair is broadcast to all lanes. 8 rows × 32 columns of
 * accumulators (16 zmm) per tile, as in the f32 kernel. k must be even (hidden sizes are).
 */
#include "cpu/kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "cpu/kernels/gemm_tile_avx512.h"

#define TS_AVX512BF16 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512bf16,fma")))
#define KP 256 /* k pairs per panel: 512 k */
#define NR TS_TILE_COLUMNS
#define MR TS_TILE_ROWS

_Static_assert(KP * NR == TS_GEMM_PANEL_FLOATS, "a 32-bit pair per panel float: the bf16 panel reuses the f32 panel");

/* panel32[p * NR + j] = W[n0 + j][k0 + 2p .. 2p + 1] as one 32-bit pair; missing rows are 0. */
static void pack_pairs(const uint16_t *w, int64_t k, int64_t n0, int64_t n_rows, int64_t k0, int64_t kp, uint32_t *panel)
{
    ts_pack_u32_panel_avx512(w + n0 * k + k0, (size_t)k * sizeof(uint16_t), (int)n_rows, (size_t)kp, 0, panel);
}

/* narrow: the panel's first 16 columns only (one accumulator per row). biased: b0, b1 (the 32
 * columns' bias) added after C. */
TS_AVX512BF16 static inline __attribute__((always_inline)) void
tile(const uint16_t *a, int64_t lda, const uint32_t *panel, int64_t kp, float *c, int64_t ldc,
     int mr, __mmask16 m0, __mmask16 m1, bool accumulate, bool narrow, bool biased, __m512 b0,
     __m512 b1)
{
    __m512 acc[MR][2];
    for (int r = 0; r < MR; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    for (int64_t p = 0; p < kp; p++) {
        __m512bh b0 = (__m512bh)_mm512_load_si512((const void *)(panel + p * NR));
        __m512bh b1 =
            narrow ? b0 : (__m512bh)_mm512_load_si512((const void *)(panel + p * NR + 16));
        for (int r = 0; r < MR; r++) {
            if (r >= mr) break;
            uint32_t pair;
            __builtin_memcpy(&pair, a + r * lda + 2 * p, 4);
            __m512bh av = (__m512bh)_mm512_set1_epi32((int)pair);
            acc[r][0] = _mm512_dpbf16_ps(acc[r][0], av, b0);
            if (!narrow) acc[r][1] = _mm512_dpbf16_ps(acc[r][1], av, b1);
        }
    }
    ts_tile_store(acc, mr, c, ldc, m0, m1, accumulate, narrow, biased, b0, b1);
}

/* Every row of A against one packed panel: tiles of MR rows, then the last rows. */
TS_AVX512BF16 void ts_gemm_bf16_panel_avx512bf16(const uint16_t *a, int64_t lda, int64_t m,
                                                 int64_t kp, const uint32_t *panel, int cols,
                                                 const float *bias, float *c, int64_t ldc,
                                                 bool accumulate)
{
    TS_TILE_PANEL_ENTRY(tile)
}

TS_AVX512BF16 void ts_gemm_bf16_avx512bf16(const uint16_t *a, int64_t m, int64_t k,
                                           const uint16_t *w, int64_t n0, int64_t n1,
                                           const float *bias, float *c, int64_t ldc,
                                           float *panel_space)
{
    uint32_t *panel = (uint32_t *)panel_space;
    for (int64_t nb = n0; nb < n1; nb += NR) {
        int cols = n1 - nb < NR ? (int)(n1 - nb) : NR;
        for (int64_t k0 = 0; k0 < k; k0 += 2 * KP) {
            int64_t kp = (k - k0) / 2 < KP ? (k - k0) / 2 : KP;
            pack_pairs(w, k, nb, cols, k0, kp, panel);
            /* The next panel's weight rows into L2 while this one computes: packing them then
             * reads cache, not memory (the hardware prefetcher sees 32 short strided runs). With
             * the packing in registers (pack_u32_panel), 2–8% on the 512-row prefill shapes
             * (thread CPU time on a loaded machine). */
            int64_t nk0 = k0 + 2 * KP < k ? k0 + 2 * KP : 0, nnb = nk0 ? nb : nb + NR;
            if (nnb < n1) {
                int64_t nkp = (k - nk0) / 2 < KP ? (k - nk0) / 2 : KP;
                for (int64_t j = 0; j < NR && nnb + j < n1; j++)
                    for (int64_t at = 0; at < nkp * 4; at += 64)
                        _mm_prefetch((const char *)(w + (nnb + j) * k + nk0) + at, _MM_HINT_T1);
            }
            bool last = k0 + 2 * KP >= k; /* the bias goes on the finished sums */
            ts_gemm_bf16_panel_avx512bf16(a + k0, k, m, kp, panel, cols,
                                          last && bias ? bias + nb : NULL, c + nb, ldc, k0 > 0);
        }
    }
}
#endif
