/* qdot_avx512.c — AVX-512 quantized row dots for decode: integer weights widened to f32 in
 * registers (never to memory), so the weight stream is 1 or ½ byte per weight.
 *
 * Two accumulators per block hide the FMA latency when a block is long (per-channel int8 has a
 * single block of the whole row); tails of blocks that are not a multiple of 32 use masked loads
 * (8-bit) or 16-wide steps and a scalar rest (4-bit).
 */
#include "cpu/kernels.h"

#if defined(__x86_64__)
#define TS_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,fma")))
#include <immintrin.h>

TS_AVX512 static inline __m512 widen_i8(__m128i b) { return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(b)); }
TS_AVX512 static inline __m512 widen_u8(__m128i b) { return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(b)); }

TS_AVX512 float ts_qdot_i8_f32_avx512(const int8_t *q, const float *x, size_t n, size_t block,
                                      const float *scale, const float *zero)
{
    __m512 total0 = _mm512_setzero_ps(), total1 = _mm512_setzero_ps();
    for (size_t b0 = 0, bi = 0; b0 < n; b0 += block, bi++) {
        __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps(), z = _mm512_set1_ps(zero[bi]);
        const int8_t *qb = q + b0;
        const float *xb = x + b0;
        size_t j = 0;
        for (; j + 32 <= block; j += 32) {
            a0 = _mm512_fmadd_ps(_mm512_sub_ps(widen_i8(_mm_loadu_si128((const __m128i *)(qb + j))), z), _mm512_loadu_ps(xb + j), a0);
            a1 = _mm512_fmadd_ps(_mm512_sub_ps(widen_i8(_mm_loadu_si128((const __m128i *)(qb + j + 16))), z), _mm512_loadu_ps(xb + j + 16), a1);
        }
        for (; j < block; j += 16) {
            size_t left = block - j;
            __mmask16 m = left >= 16 ? 0xffff : (__mmask16)((1u << left) - 1);
            /* masked-off lanes: x is 0, so (0 − z)·0 adds nothing */
            a0 = _mm512_fmadd_ps(_mm512_sub_ps(widen_i8(_mm_maskz_loadu_epi8(m, qb + j)), z), _mm512_maskz_loadu_ps(m, xb + j), a0);
        }
        __m512 s = _mm512_set1_ps(scale[bi]);
        if (bi % 2) total1 = _mm512_fmadd_ps(_mm512_add_ps(a0, a1), s, total1);
        else total0 = _mm512_fmadd_ps(_mm512_add_ps(a0, a1), s, total0);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(total0, total1));
}

/* 16 packed bytes → channels 0…15 (e0) and 16…31 (e1) as bytes: low nibble first. */
TS_AVX512 static inline void unpack32(__m128i b, __m128i *e0, __m128i *e1)
{
    const __m128i low = _mm_set1_epi8(15);
    __m128i lo = _mm_and_si128(b, low), hi = _mm_and_si128(_mm_srli_epi16(b, 4), low);
    *e0 = _mm_unpacklo_epi8(lo, hi);
    *e1 = _mm_unpackhi_epi8(lo, hi);
}

TS_AVX512 float ts_qdot_u4_f32_avx512(const uint8_t *q, const float *x, size_t n, size_t block,
                                      const float *scale, const float *zero)
{
    __m512 total0 = _mm512_setzero_ps(), total1 = _mm512_setzero_ps();
    float rest = 0.0f;
    for (size_t b0 = 0, bi = 0; b0 < n; b0 += block, bi++) {
        __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps(), z = _mm512_set1_ps(zero[bi]);
        const uint8_t *qb = q + b0 / 2;
        const float *xb = x + b0;
        size_t j = 0;
        __m128i e0, e1;
        for (; j + 32 <= block; j += 32) {
            unpack32(_mm_loadu_si128((const __m128i *)(qb + j / 2)), &e0, &e1);
            a0 = _mm512_fmadd_ps(_mm512_sub_ps(widen_u8(e0), z), _mm512_loadu_ps(xb + j), a0);
            a1 = _mm512_fmadd_ps(_mm512_sub_ps(widen_u8(e1), z), _mm512_loadu_ps(xb + j + 16), a1);
        }
        if (j + 16 <= block) {
            unpack32(_mm_loadl_epi64((const __m128i *)(qb + j / 2)), &e0, &e1);
            a0 = _mm512_fmadd_ps(_mm512_sub_ps(widen_u8(e0), z), _mm512_loadu_ps(xb + j), a0);
            j += 16;
        }
        float tail = 0.0f;
        for (; j < block; j++) {
            unsigned v = j % 2 ? qb[j / 2] >> 4 : qb[j / 2] & 15u;
            tail += ((float)v - zero[bi]) * xb[j];
        }
        rest += tail * scale[bi];
        __m512 s = _mm512_set1_ps(scale[bi]);
        if (bi % 2) total1 = _mm512_fmadd_ps(_mm512_add_ps(a0, a1), s, total1);
        else total0 = _mm512_fmadd_ps(_mm512_add_ps(a0, a1), s, total0);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(total0, total1)) + rest;
}

TS_AVX512 void ts_dequant_i8_f32_avx512(const int8_t *q, size_t n, size_t block, const float *scale, const float *zero,
                                       float *dst)
{
    for (size_t b0 = 0, bi = 0; b0 < n; b0 += block, bi++) {
        __m512 z = _mm512_set1_ps(zero[bi]), s = _mm512_set1_ps(scale[bi]);
        for (size_t j = 0; j < block; j += 16) {
            size_t left = block - j;
            __mmask16 m = left >= 16 ? 0xffff : (__mmask16)((1u << left) - 1);
            __m512 w = _mm512_sub_ps(widen_i8(_mm_maskz_loadu_epi8(m, q + b0 + j)), z);
            _mm512_mask_storeu_ps(dst + b0 + j, m, _mm512_mul_ps(w, s));
        }
    }
}

TS_AVX512 void ts_dequant_u4_f32_avx512(const uint8_t *q, size_t n, size_t block, const float *scale, const float *zero,
                                       float *dst)
{
    for (size_t b0 = 0, bi = 0; b0 < n; b0 += block, bi++) {
        __m512 z = _mm512_set1_ps(zero[bi]), s = _mm512_set1_ps(scale[bi]);
        const uint8_t *qb = q + b0 / 2;
        size_t j = 0;
        __m128i e0, e1;
        for (; j + 32 <= block; j += 32) {
            unpack32(_mm_loadu_si128((const __m128i *)(qb + j / 2)), &e0, &e1);
            _mm512_storeu_ps(dst + b0 + j, _mm512_mul_ps(_mm512_sub_ps(widen_u8(e0), z), s));
            _mm512_storeu_ps(dst + b0 + j + 16, _mm512_mul_ps(_mm512_sub_ps(widen_u8(e1), z), s));
        }
        for (; j < block; j++) {
            unsigned v = j % 2 ? qb[j / 2] >> 4 : qb[j / 2] & 15u;
            dst[b0 + j] = ((float)v - zero[bi]) * scale[bi];
        }
    }
}
#endif
