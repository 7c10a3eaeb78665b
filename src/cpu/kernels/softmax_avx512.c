/* softmax_avx512.c — a softmax row in place (or scaled and rounded to bf16), the logistic
 * function and the SiLU, 16 lanes at a time (kernels.h: softmax_f32, softmax_bf16, logistic_f32,
 * silu_f32): the exponential's users.
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

#include "cpu/kernels/bf16_round_avx512.h"

#define TS_AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,fma")))

/* exp of x ≤ 0 (or NaN): clamped below at −104 only, as exp16's upper clamp is the identity
 * there; the softmax's exponentials (scores less their maximum) skip it. A NaN x stays NaN
 * (MAXPS returns its second operand then). */
TS_AVX512 static inline __m512 exp16_nonpositive(__m512 x)
{
    x = _mm512_max_ps(_mm512_set1_ps(-104.0f), x);
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

/* Any x, clamped to [−104, 100] (2^n then underflows to 0 or overflows to inf; ±inf too); a NaN
 * stays NaN (MINPS, like MAXPS, returns its second operand then). */
TS_AVX512 static inline __m512 exp16(__m512 x)
{
    return exp16_nonpositive(_mm512_min_ps(_mm512_set1_ps(100.0f), x));
}

static inline __mmask16 tail(size_t n, size_t i)
{
    return n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
}

/* The softmax of y, normalised in place; or when `rounded`, of y·scale + bias (the same sums a
 * pass of its own for each would store, made in the maximum's and the exponentials' passes),
 * rounded to bf16 into `out` (or, without one, back into y widened) as the values are made
 * (ts_f32_to_bf16_avx512's bits) instead of stored and read again: for attention's bf16 path
 * three passes over a row instead of five (the scores of a vision tower's attention, 1024 keys:
 * scale, softmax and rounding were 36% of its single-thread time, 14% less time in all after),
 * or of seven with a bias (a tower's segment mask: 8% of its attention). */
TS_AVX512 static inline __attribute__((always_inline)) __m512 scaled_scores(__m512 x, bool scaled,
                                                                           __m512 vs,
                                                                           const float *bias,
                                                                           __mmask16 k)
{
    if (!scaled) return x;
    x = _mm512_mul_ps(x, vs);
    return bias ? _mm512_add_ps(x, _mm512_maskz_loadu_ps(k, bias)) : x;
}

TS_AVX512 static inline __attribute__((always_inline)) void
softmax_row(float *y, size_t n, float scale, const float *bias, const bool rounded, uint16_t *out,
            const bool cvtne)
{
    const __m512 vs = _mm512_set1_ps(scale), minf = _mm512_set1_ps(-INFINITY);
    __m512 vm = minf;
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail(n, i);
        __m512 x = _mm512_maskz_loadu_ps(k, y + i);
        x = scaled_scores(x, rounded, vs, bias ? bias + i : NULL, k);
        vm = _mm512_max_ps(vm, _mm512_mask_mov_ps(minf, k, x));
    }
    float m = _mm512_reduce_max_ps(vm);
    if (m == -INFINITY || m != m) { /* every score masked (or a NaN): as the portable row */
        if (rounded) ts_softmax_bf16_ref(y, n, scale, bias, out);
        else ts_softmax_f32_ref(y, n);
        return;
    }
    vm = _mm512_set1_ps(m);
    __m512d s0 = _mm512_setzero_pd(), s1 = _mm512_setzero_pd();
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail(n, i);
        __m512 x = _mm512_maskz_loadu_ps(k, y + i);
        __m512 xs = scaled_scores(x, rounded, vs, bias ? bias + i : NULL, k);
        __m512 e = _mm512_maskz_mov_ps(k, exp16_nonpositive(_mm512_sub_ps(xs, vm)));
        _mm512_mask_storeu_ps(y + i, k, e);
        s0 = _mm512_add_pd(s0, _mm512_cvtps_pd(_mm512_castps512_ps256(e)));
        s1 = _mm512_add_pd(s1, _mm512_cvtps_pd(_mm512_extractf32x8_ps(e, 1)));
    }
    __m512 inv = _mm512_set1_ps((float)(1.0 / _mm512_reduce_add_pd(_mm512_add_pd(s0, s1))));
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail(n, i);
        __m512 p = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, y + i), inv);
        if (!rounded) {
            _mm512_mask_storeu_ps(y + i, k, p);
            continue;
        }
        __m256i h = cvtne ? ts_round_bf16_avx512_cvtne(p) : ts_round_bf16_avx512(p);
        if (out) _mm256_mask_storeu_epi16(out + i, k, h);
        else _mm512_mask_storeu_epi32(y + i, k, _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    }
}

TS_AVX512 void ts_softmax_f32_avx512(float *y, size_t n)
{
    softmax_row(y, n, 1.0f, NULL, false, NULL, false);
}

/* Four copies: without a bias, none of its loads or adds in the loops; without `out`, the
 * widened stores. */
TS_AVX512 static inline __attribute__((always_inline)) void
softmax_bf16(float *y, size_t n, float scale, const float *bias, uint16_t *out, const bool cvtne)
{
    if (bias && out) softmax_row(y, n, scale, bias, true, out, cvtne);
    else if (bias) softmax_row(y, n, scale, bias, true, NULL, cvtne);
    else if (out) softmax_row(y, n, scale, NULL, true, out, cvtne);
    else softmax_row(y, n, scale, NULL, true, NULL, cvtne);
}

TS_AVX512 void ts_softmax_bf16_avx512(float *y, size_t n, float scale, const float *bias,
                                      uint16_t *out)
{
    softmax_bf16(y, n, scale, bias, out, false);
}

/* The same bits, rounded by VCVTNEPS2BF16 (bf16_round_avx512.h): for AVX512_BF16 CPUs. */
TS_AVX512 void ts_softmax_bf16_avx512bf16(float *y, size_t n, float scale, const float *bias,
                                          uint16_t *out)
{
    softmax_bf16(y, n, scale, bias, out, true);
}

TS_AVX512 static inline __m512 logistic16(__m512 x)
{
    __m512 one = _mm512_set1_ps(1.0f);
    __m512 e = exp16(_mm512_sub_ps(_mm512_setzero_ps(), x)); /* +inf past 88.7 */
    return _mm512_div_ps(one, _mm512_add_ps(one, e));
}

TS_AVX512 void ts_logistic_f32_avx512(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail(n, i);
        _mm512_mask_storeu_ps(y + i, k, logistic16(_mm512_maskz_loadu_ps(k, x + i)));
    }
}

/* The activation in one pass over x (and u), where the logistic and then the products each took
 * a pass of their own (in scalar code): the quick GELU of a vision tower's MLP, 168 M values an
 * encode, was ~2% of it. */
TS_AVX512 static inline __attribute__((always_inline)) void silu(const float *x, const float *scale,
                                                                const float *u, float *y, size_t n)
{
    __m512 c = _mm512_set1_ps(scale ? *scale : 1.0f);
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail(n, i);
        __m512 v = _mm512_maskz_loadu_ps(k, x + i);
        v = _mm512_mul_ps(v, logistic16(scale ? _mm512_mul_ps(v, c) : v));
        if (u) v = _mm512_mul_ps(v, _mm512_maskz_loadu_ps(k, u + i));
        _mm512_mask_storeu_ps(y + i, k, v);
    }
}

TS_AVX512 void ts_silu_f32_avx512(const float *x, const float *scale, const float *u, float *y,
                                  size_t n)
{
    /* a copy for each use, so the loop tests nothing */
    if (scale && u) silu(x, scale, u, y, n);
    else if (scale) silu(x, scale, NULL, y, n);
    else if (u) silu(x, NULL, u, y, n);
    else silu(x, NULL, NULL, y, n);
}
#endif
