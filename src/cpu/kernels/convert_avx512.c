/* convert_avx512.c — f32 rows rounded to bf16, 16 lanes at a time (kernels.h: f32_to_bf16).
 *
 * The rounding is the portable one's integer rule (bits + 0x7fff + lsb, NaN kept quiet), not
 * VCVTNEPS2BF16, which treats denormal inputs as zero: every variant gives the same bits. The bf16
 * compute policy rounds every matmul's activation rows this way, so it runs once per element
 * of every prefill activation: a scalar loop was ~2% of a bf16 prefill.
 */
#include "cpu/kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define TS_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))

TS_AVX512 void ts_f32_to_bf16_avx512(const float *x, uint16_t *y, size_t n)
{
    const __m512i lsb = _mm512_set1_epi32(1), bias = _mm512_set1_epi32(0x7fff), abs = _mm512_set1_epi32(0x7fffffff),
                  inf = _mm512_set1_epi32(0x7f800000), quiet = _mm512_set1_epi32(0x40);
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m512i b = _mm512_maskz_loadu_epi32(k, x + i);
        __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(b, bias), _mm512_and_si512(_mm512_srli_epi32(b, 16), lsb)), 16);
        __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(b, abs), inf);
        __m512i r = _mm512_mask_or_epi32(rounded, nan, _mm512_srli_epi32(b, 16), quiet);
        _mm256_mask_storeu_epi16(y + i, k, _mm512_cvtepi32_epi16(r));
    }
}
#endif
