/* pack_avx512.c — 32 rows of 32-bit units transposed into the tiled GEMMs' panel layout
 * (kernels.h: pack_u32_panel), 16 rows × 16 units at a time in registers: four rounds of
 * two-source permutes, each pairing rows s apart and interleaving their blocks of s units. The
 * tail units by the portable loop. The bf16 GEMM (pairs of k) and the W8A8 GEMM (groups of 4 bytes) pack
 * every weight panel of a prefill this way, once per call: one strided store per unit before.
 */
#include "cpu/kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define TS_AVX512 __attribute__((target("avx512f")))

TS_AVX512 void ts_pack_u32_panel_avx512(const void *src, size_t ld, int rows, size_t count, uint32_t flip, uint32_t *dst)
{
    __m512i lo_idx[4], hi_idx[4];
    for (int st = 0; st < 4; st++) {
        int s = 8 >> st;
        int32_t lo[16], hi[16];
        for (int t = 0; t < 16; t++) {
            int c = t / (2 * s), x = t % (2 * s);
            lo[t] = x < s ? c * 2 * s + x : 16 + c * 2 * s + (x - s);
            hi[t] = lo[t] + s;
        }
        lo_idx[st] = _mm512_loadu_si512(lo);
        hi_idx[st] = _mm512_loadu_si512(hi);
    }
    const __m512i vflip = _mm512_set1_epi32((int)flip);
    size_t c16 = count / 16 * 16;
    for (int i0 = 0; i0 < 32; i0 += 16)
        for (size_t j0 = 0; j0 < c16; j0 += 16) {
            __m512i r[16];
            for (int i = 0; i < 16; i++)
                r[i] = i0 + i < rows ? _mm512_xor_si512(_mm512_loadu_si512((const char *)src + (size_t)(i0 + i) * ld + j0 * 4), vflip)
                                     : _mm512_setzero_si512();
            for (int st = 0; st < 4; st++) {
                int s = 8 >> st;
                for (int i = 0; i < 16; i++) {
                    if (i & s) continue;
                    __m512i a = r[i], b = r[i + s];
                    r[i] = _mm512_permutex2var_epi32(a, lo_idx[st], b);
                    r[i + s] = _mm512_permutex2var_epi32(a, hi_idx[st], b);
                }
            }
            for (int i = 0; i < 16; i++) _mm512_storeu_si512(dst + (j0 + (size_t)i) * 32 + i0, r[i]);
        }
    if (c16 < count) ts_pack_u32_panel_ref((const char *)src + c16 * 4, ld, rows, count - c16, flip, dst + c16 * 32);
}
#endif
