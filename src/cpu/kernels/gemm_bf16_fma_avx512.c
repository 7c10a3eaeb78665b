/* gemm_bf16_fma_avx512.c — gemm_bf16 (A and W in bf16, f32 accumulation) by f32 FMA, for CPUs
 * whose VDPBF16PS issues at half the FMA rate (Intel cores: one port against FMA's two, so the
 * same products in f32 run twice as fast; where AMX is usable, oneDNN takes the linears). k is
 * even, as the contract says: an odd k's last column would be read from whatever the panel held.
 *
 * A product of two bf16 values is exact in f32, so the sums differ from VDPBF16PS's only in
 * order. Each weight panel is packed as bf16 pairs (pack_u32_panel) and spread into f32 rows (the
 * even k is the low half shifted up, the odd one the high half masked): KC k a panel, 32 columns.
 * Each tile's 8 rows of A are widened into a small f32 block first, then broadcast from it, so
 * the inner loop is the f32 kernel's: 2 panel loads and 8 broadcasts to 16 FMAs.
 *
 * There is no gemm_bf16_panel here: attention packs its keys and values widened once and runs
 * gemm_f32_panel (splitting each pair in every tile, and widening the queries again for each
 * 32-key panel, made its attention 10% slower).
 */
#include "cpu/kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "cpu/kernels/gemm_tile_avx512.h"

#define TS_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,fma")))
#define KC 256 /* k a panel (even) */
#define NR TS_TILE_COLUMNS
#define MR TS_TILE_ROWS

_Static_assert(KC * NR == TS_GEMM_PANEL_FLOATS, "the f32 panel fills the caller's panel space");

/* panel[kk·NR + j] = W[n0 + j][k0 + kk] in f32 for kk < kc (even), rows past cols zero. The
 * pairs go to the panel's upper half first, then spread down over it, one pair row (two k) at a
 * time: pair row p is loaded before rows 2p, 2p + 1 are written, and those end at or before
 * pair row p + 1 (2p + 1 ≤ KC / 2 + p for p < KC / 2; at the last p they overwrite p itself). */
TS_AVX512 static void pack_panel(const uint16_t *w, int64_t k, int64_t n0, int cols, int64_t k0,
                                 int64_t kc, float *panel)
{
    uint32_t *pairs = (uint32_t *)panel + KC / 2 * NR;
    ts_pack_u32_panel_avx512(w + n0 * k + k0, (size_t)k * sizeof(uint16_t), cols, (size_t)kc / 2,
                             0, pairs);
    const __m512i high = _mm512_set1_epi32((int)0xffff0000u);
    for (int64_t p = 0; p < kc / 2; p++) {
        __m512i v0 = _mm512_load_si512(pairs + p * NR), v1 = _mm512_load_si512(pairs + p * NR + 16);
        float *even = panel + 2 * p * NR, *odd = even + NR;
        _mm512_store_si512(even, _mm512_slli_epi32(v0, 16));
        _mm512_store_si512(even + 16, _mm512_slli_epi32(v1, 16));
        _mm512_store_si512(odd, _mm512_and_si512(v0, high));
        _mm512_store_si512(odd + 16, _mm512_and_si512(v1, high));
    }
}

/* dst[i] = src[i] widened to f32, i < n: bf16_to_f32's work, inlined. */
TS_AVX512 static inline __attribute__((always_inline)) void widen(const uint16_t *src, float *dst,
                                                                  int64_t n)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i h = _mm256_loadu_si256((const __m256i *)(src + i));
        _mm512_store_si512(dst + i, _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    }
    for (; i < n; i++) {
        uint32_t bits = (uint32_t)src[i] << 16;
        __builtin_memcpy(dst + i, &bits, 4);
    }
}

/* C (+)= block (mr rows) · panel over kc, then + bias when biased. */
TS_AVX512 static inline __attribute__((always_inline)) void
tile(const float *block, const float *panel, int64_t kc, float *c, int64_t ldc, int mr,
     __mmask16 m0, __mmask16 m1, bool accumulate, bool biased, __m512 b0, __m512 b1)
{
    __m512 acc[MR][2];
    for (int r = 0; r < MR; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    ts_tile_f32(block, KC, panel, kc, acc, mr, false);
    ts_tile_store(acc, mr, c, ldc, m0, m1, accumulate, false, biased, b0, b1);
}

TS_AVX512 void ts_gemm_bf16_fma_avx512(const uint16_t *a, int64_t m, int64_t k, const uint16_t *w,
                                       int64_t n0, int64_t n1, const float *bias, float *c,
                                       int64_t ldc, float *panel)
{
    _Alignas(64) float block[MR * KC];
    for (int64_t nb = n0; nb < n1; nb += NR) {
        int cols = n1 - nb < NR ? (int)(n1 - nb) : NR;
        __mmask16 m0, m1;
        ts_tile_masks(cols, &m0, &m1);
        __m512 b0, b1;
        ts_tile_bias(bias ? bias + nb : NULL, cols, m0, m1, &b0, &b1);
        for (int64_t k0 = 0; k0 < k; k0 += KC) {
            int64_t kc = k - k0 < KC ? k - k0 : KC;
            pack_panel(w, k, nb, cols, k0, kc, panel);
            bool accumulate = k0 > 0, biased = bias && k0 + KC >= k;
            for (int64_t r = 0; r < m; r += MR) {
                int rows = m - r < MR ? (int)(m - r) : MR;
                for (int i = 0; i < rows; i++) /* A's rows in f32, KC apart */
                    widen(a + (r + i) * k + k0, block + i * KC, kc);
                if (rows == MR)
                    tile(block, panel, kc, c + r * ldc + nb, ldc, MR, m0, m1, accumulate, biased,
                         b0, b1);
                else
                    tile(block, panel, kc, c + r * ldc + nb, ldc, rows, m0, m1, accumulate, biased,
                         b0, b1);
            }
        }
    }
}

#endif
