/* softmax_avx512.c — a softmax row in place and the logistic function, 16 lanes at a time
 * (kernels.h: softmax_f32, logistic_f32): the exponential's two users.
 *
 * Scalar expf with a serial double sum was half of a vision tower's attention (1024-key rows),
 * and the logistic (SiLU, quick GELU spelled out) 5–10% of a quantized tower or prefill.
 * exp(x) = 2^n · p(r) with n = round(x·log2 e), r = x − n·ln 2 in two parts (Cody–Waite) and p
 * Cephes' degree-6 expf polynomial: within 2 ulp of expf (kernels_test checks every value
 * against the portable one). x is clamped below at −104, where 2^n underflows to 0 through
 * VSCALEFPS, so a masked score (−inf) gives exactly 0, and x = 0 gives exactly 1; above 100 it
 * is clamped too (2^n overflows to +inf, as expf does past 88.7). The sum is
 * kept in f64 lanes (8 + 8 per vector), added in a different order from the portable loop; the
 * maximum and the final scaling are exact, so they match the portable row's.
 */
#include "cpu/kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <math.h>

#define TS_AVX512 __attribute__((target("avx512f,avx512dq,fma")))

TS_AVX512 static inline __m512 exp16(__m512 x)
{
    /* Clamped to [−104, 100] (2^n then underflows to 0 or overflows to inf; ±inf too); a NaN x
     * stays NaN (MAXPS/MINPS return their second operand then). */
    x = _mm512_min_ps(_mm512_set1_ps(100.0f), _mm512_max_ps(_mm512_set1_ps(-104.0f), x));
    __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    return _mm512_scalef_ps(p, n);
}

static inline __mmask16 tail(size_t n, size_t i)
{
    return n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
}

TS_AVX512 void ts_softmax_f32_avx512(float *y, size_t n)
{
    __m512 vm = _mm512_set1_ps(-INFINITY);
    for (size_t i = 0; i < n; i += 16) vm = _mm512_max_ps(vm, _mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), tail(n, i), y + i));
    float m = _mm512_reduce_max_ps(vm);
    if (m == -INFINITY || m != m) { /* every score masked (or a NaN): as the portable row */
        ts_softmax_f32_ref(y, n);
        return;
    }
    vm = _mm512_set1_ps(m);
    __m512d s0 = _mm512_setzero_pd(), s1 = _mm512_setzero_pd();
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail(n, i);
        __m512 e = _mm512_maskz_mov_ps(k, exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, y + i), vm)));
        _mm512_mask_storeu_ps(y + i, k, e);
        s0 = _mm512_add_pd(s0, _mm512_cvtps_pd(_mm512_castps512_ps256(e)));
        s1 = _mm512_add_pd(s1, _mm512_cvtps_pd(_mm512_extractf32x8_ps(e, 1)));
    }
    __m512 inv = _mm512_set1_ps((float)(1.0 / _mm512_reduce_add_pd(_mm512_add_pd(s0, s1))));
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail(n, i);
        _mm512_mask_storeu_ps(y + i, k, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, y + i), inv));
    }
}

TS_AVX512 void ts_logistic_f32_avx512(const float *x, float *y, size_t n)
{
    __m512 one = _mm512_set1_ps(1.0f), zero = _mm512_setzero_ps();
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail(n, i);
        __m512 e = exp16(_mm512_sub_ps(zero, _mm512_maskz_loadu_ps(k, x + i))); /* +inf past 88.7 */
        _mm512_mask_storeu_ps(y + i, k, _mm512_div_ps(one, _mm512_add_ps(one, e)));
    }
}
#endif
