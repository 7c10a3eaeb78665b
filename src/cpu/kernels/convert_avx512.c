/* convert_avx512.c — f32 rows rounded to bf16, 16 lanes at a time (kernels.h: f32_to_bf16).
 *
 * The rounding is the portable one's integer rule (bf16_round_avx512.h), so every variant gives
 * the same bits. The bf16 compute policy rounds every matmul's activation rows this way, so it
 * runs once per element of every prefill activation: a scalar loop was ~2% of a bf16 prefill.
 */
#include "cpu/kernels.h"

#if defined(__x86_64__)
#include "cpu/kernels/bf16_round_avx512.h"

#define TS_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))

TS_AVX512 static inline __attribute__((always_inline)) void rows(const float *x, uint16_t *y,
                                                                 size_t n, const bool cvtne)
{
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m512 v = _mm512_maskz_loadu_ps(k, x + i);
        __m256i b = cvtne ? ts_round_bf16_avx512_cvtne(v) : ts_round_bf16_avx512(v);
        _mm256_mask_storeu_epi16(y + i, k, b);
    }
}

TS_AVX512 void ts_f32_to_bf16_avx512(const float *x, uint16_t *y, size_t n)
{
    rows(x, y, n, false);
}

/* The same bits by VCVTNEPS2BF16: for AVX512_BF16 CPUs. */
TS_AVX512 void ts_f32_to_bf16_avx512bf16(const float *x, uint16_t *y, size_t n)
{
    rows(x, y, n, true);
}
#endif
