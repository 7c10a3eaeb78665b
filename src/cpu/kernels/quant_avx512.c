/* quant_avx512.c — the load-time weight quantizer (kernels.h: quantize_weights_q8/q4) on
 * AVX-512, byte for byte ts_quantize_weights_q8_ref / _q4_ref: a block of 32 is two vectors.
 *
 * Why each step gives the definition's bits: VMAXPS returns its second operand when the first is
 * NaN, so max(|x|, acc) passes a NaN weight over as the scalar `a > amax` does; the scale is the
 * same scalar f16 rounding of the same quotient; VDIVPS is the IEEE division the scalar code
 * does; truncation (VRNDSCALEPS toward zero) then ±1 where the exact remainder reaches ±½ is
 * round-half-away; NaN quotients are 0 in both. The q4 block's scale takes the first weight of
 * largest magnitude, found as the lowest lane equal to the maximum. Profile of a 0.5B checkpoint's
 * --quantize q8 load: the scalar rules were most of its time.
 */
#include "cpu/kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

#define TS_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))

/* max |x| over the block's two vectors, NaN lanes passed over (0 when none is a number). */
TS_AVX512 static inline float block_amax(__m512 x0, __m512 x1)
{
    __m512 m = _mm512_max_ps(_mm512_abs_ps(x0), _mm512_setzero_ps());
    m = _mm512_max_ps(_mm512_abs_ps(x1), m);
    return _mm512_reduce_max_ps(m);
}

/* round_away(x / d) clamped to [lo, hi], as i32 lanes. */
TS_AVX512 static inline __m512i quantized(__m512 x, __m512 d, float lo, float hi)
{
    __m512 v = _mm512_div_ps(x, d);
    v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, v, _CMP_ORD_Q), v);
    __m512 t = _mm512_roundscale_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC), frac = _mm512_sub_ps(v, t);
    const __m512 one = _mm512_set1_ps(1.0f);
    t = _mm512_mask_add_ps(t, _mm512_cmp_ps_mask(frac, _mm512_set1_ps(0.5f), _CMP_GE_OQ), t, one);
    t = _mm512_mask_sub_ps(t, _mm512_cmp_ps_mask(frac, _mm512_set1_ps(-0.5f), _CMP_LE_OQ), t, one);
    t = _mm512_min_ps(_mm512_max_ps(t, _mm512_set1_ps(lo)), _mm512_set1_ps(hi));
    return _mm512_cvtps_epi32(t);
}

TS_AVX512 void ts_quantize_weights_q8_avx512(const float *w, size_t n, size_t block, int8_t *q,
                                             uint16_t *scale)
{
    for (size_t b = 0; b < n / block; b++) {
        const float *x = w + b * block;
        __m512 m = _mm512_setzero_ps(); /* max(|x|, acc): NaN lanes passed over, as block_amax */
        for (size_t j = 0; j < block; j += 16)
            m = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(x + j)), m);
        scale[b] = ts_f32_to_f16(_mm512_reduce_max_ps(m) / 127.0f);
        float d = ts_f16_to_f32_scalar(scale[b]);
        if (!(d > 0.0f)) {
            memset(q + b * block, 0, block);
            continue;
        }
        __m512 dv = _mm512_set1_ps(d);
        for (size_t j = 0; j < block; j += 16)
            _mm_storeu_si128(
                (__m128i *)(q + b * block + j),
                _mm512_cvtepi32_epi8(quantized(_mm512_loadu_ps(x + j), dv, -127.0f, 127.0f)));
    }
}

TS_AVX512 void ts_quantize_weights_q4_avx512(const float *w, size_t n, uint8_t *q, uint16_t *scale)
{
    for (size_t b = 0; b < n / 32; b++) {
        const float *x = w + b * 32;
        __m512 x0 = _mm512_loadu_ps(x), x1 = _mm512_loadu_ps(x + 16);
        float amax = block_amax(x0, x1), m = 0.0f;
        if (amax > 0.0f) { /* the first weight of that magnitude */
            __m512 at = _mm512_set1_ps(amax);
            uint32_t hits = (uint32_t)_mm512_cmp_ps_mask(_mm512_abs_ps(x0), at, _CMP_EQ_OQ) |
                            (uint32_t)_mm512_cmp_ps_mask(_mm512_abs_ps(x1), at, _CMP_EQ_OQ) << 16;
            m = x[__builtin_ctz(hits)];
        }
        scale[b] = ts_f32_to_f16(m / -8.0f + 0.0f);
        float d = ts_f16_to_f32_scalar(scale[b]);
        if (d == 0.0f) {
            memset(q + b * 16, 0x88, 16);
            continue;
        }
        __m512 dv = _mm512_set1_ps(d);
        const __m512i eight = _mm512_set1_epi32(8);
        __m128i lo = _mm512_cvtepi32_epi8(_mm512_add_epi32(quantized(x0, dv, -8.0f, 7.0f), eight));
        __m128i hi = _mm512_cvtepi32_epi8(_mm512_add_epi32(quantized(x1, dv, -8.0f, 7.0f), eight));
        /* channel pairs (2k, 2k + 1) as 16-bit lanes: low byte | high byte << 4 */
        __m256i pairs = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
        __m256i packed = _mm256_or_si256(_mm256_and_si256(pairs, _mm256_set1_epi16(0xff)),
                                         _mm256_slli_epi16(_mm256_srli_epi16(pairs, 8), 4));
        _mm_storeu_si128((__m128i *)(q + b * 16), _mm256_cvtepi16_epi8(packed));
    }
}
#endif
