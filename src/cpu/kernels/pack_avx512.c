/* pack_avx512.c — 32 rows of 32-bit units transposed into the tiled GEMMs' panel layout
 * (kernels.h: pack_u32_panel), 16 rows × 16 units at a time in registers: 32-bit and 64-bit
 * unpacks within 128-bit lanes, then two rounds of lane shuffles (the 4 × 4 transpose of the
 * lanes). The tail units by the portable loop. The bf16 GEMM (pairs of k) and the W8A8 GEMM
 * (groups of 4 bytes) pack every weight panel of a prefill this way, once per call: one strided
 * store per unit before; then four rounds of two-source permutes with a per-row test for missing
 * rows, which kept the block on the stack (6.2 → 16 GB/s packing a 0.5B model's 896-wide
 * weights on one thread, ~3% of its bf16 prefill).
 */
#include "cpu/kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define TS_AVX512 __attribute__((target("avx512f")))

/* r[i] = row i's 16 units in, r[j] = unit j's 16 rows out. */
TS_AVX512 static inline __attribute__((always_inline)) void transpose16(__m512i r[16])
{
    __m512i t[16], u[16];
    for (int i = 0; i < 16; i += 2) { /* lane k: rows i, i+1 of units 4k, 4k+1 | 4k+2, 4k+3 */
        t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
    }
    for (int g = 0; g < 16; g += 4) { /* u[g + c] lane k: rows g … g+3 of unit 4k + c */
        u[g] = _mm512_unpacklo_epi64(t[g], t[g + 2]);
        u[g + 1] = _mm512_unpackhi_epi64(t[g], t[g + 2]);
        u[g + 2] = _mm512_unpacklo_epi64(t[g + 1], t[g + 3]);
        u[g + 3] = _mm512_unpackhi_epi64(t[g + 1], t[g + 3]);
    }
    for (int c = 0; c < 4; c++) { /* unit 4k + c: lane k of u[c], u[4 + c], u[8 + c], u[12 + c] */
        __m512i v = _mm512_shuffle_i32x4(u[c], u[4 + c], 0x88);
        __m512i w = _mm512_shuffle_i32x4(u[c], u[4 + c], 0xdd);
        __m512i x = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0x88);
        __m512i y = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0xdd);
        r[c] = _mm512_shuffle_i32x4(v, x, 0x88);
        r[4 + c] = _mm512_shuffle_i32x4(w, y, 0x88);
        r[8 + c] = _mm512_shuffle_i32x4(v, x, 0xdd);
        r[12 + c] = _mm512_shuffle_i32x4(w, y, 0xdd);
    }
}

TS_AVX512 void ts_pack_u32_panel_avx512(const void *src, size_t ld, int rows, size_t count,
                                        uint32_t flip, uint32_t *dst)
{
    const __m512i vflip = _mm512_set1_epi32((int)flip);
    size_t c16 = count / 16 * 16;
    for (int i0 = 0; i0 < 32; i0 += 16) {
        const char *s = (const char *)src + (size_t)i0 * ld;
        int have = rows - i0 < 0 ? 0 : rows - i0 > 16 ? 16 : rows - i0;
        for (size_t j0 = 0; j0 < c16; j0 += 16) {
            __m512i r[16];
            /* Missing rows hold the flip, so they come out 0. */
            if (have == 16)
                for (int i = 0; i < 16; i++) r[i] = _mm512_loadu_si512(s + (size_t)i * ld + j0 * 4);
            else
                for (int i = 0; i < 16; i++)
                    r[i] = i < have ? _mm512_loadu_si512(s + (size_t)i * ld + j0 * 4) : vflip;
            if (flip)
                for (int i = 0; i < 16; i++) r[i] = _mm512_xor_si512(r[i], vflip);
            transpose16(r);
            for (int i = 0; i < 16; i++) _mm512_storeu_si512(dst + (j0 + (size_t)i) * 32 + i0, r[i]);
        }
    }
    if (c16 < count)
        ts_pack_u32_panel_ref((const char *)src + c16 * 4, ld, rows, count - c16, flip,
                              dst + c16 * 32);
}
#endif
