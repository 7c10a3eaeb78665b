/* dot_avx512bf16.c — bf16 dot with VDPBF16PS.
 *
 * The activation is rounded to bf16 (round-to-nearest-even, as VCVTNE2PS2BF16 does), so the
 * result differs from the f32-activation kernels by bf16 rounding of x; callers that need f32
 * compute use the avx512 variant. Selected only for the bf16-compute policy.
 */
#include "cpu/kernels.h"

#if defined(__x86_64__)
#define TS_AVX512BF16 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512bf16,fma")))
#include <immintrin.h>

TS_AVX512BF16 float ts_dot_bf16_f32_avx512bf16(const uint16_t *w, const float *x, size_t n)
{
    __m512 s = _mm512_setzero_ps();
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m512bh xb = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(x + i + 16), _mm512_loadu_ps(x + i));
        __m512bh wb = (__m512bh)_mm512_loadu_si512((const void *)(w + i));
        s = _mm512_dpbf16_ps(s, wb, xb);
    }
    float tail = ts_dot_bf16_f32_ref(w + i, x + i, n - i);
    return _mm512_reduce_add_ps(s) + tail;
}
#endif
