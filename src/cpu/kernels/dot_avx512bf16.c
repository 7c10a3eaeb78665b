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

/* The bf16 compute policy's decode dots: bf16 weights × activations already rounded to bf16, on
 * VDPBF16PS (32 products per instruction instead of 16 FMAs after widening). One dot is two
 * chains of 16-lane dpbf16 steps: chain 0 the first 32 values of every 64, then the rest of the
 * row in masked steps of 32; chain 1 the second 32 of every 64; the chains added and reduced at
 * the end. Every (weight row, x row) pair is summed that way whatever the call's shape, so the
 * single, rows and pair forms all give a row the same bits (a batched decode step = each
 * sequence's step alone). ts_dot_bf16_bf16_ref is the same sum in portable C. */
TS_AVX512BF16 static inline __m512bh load_bh(const uint16_t *p, __mmask32 m)
{
    return (__m512bh)_mm512_maskz_loadu_epi16(m, p);
}

static inline __mmask32 mask32(size_t left) { return left >= 32 ? (__mmask32)~0u : (__mmask32)((1u << left) - 1); }

/* Each weight row's stream is prefetched this far ahead (into the rows after it), two lines per
 * step, into L2: the hardware prefetcher alone left the decode dots waiting on memory. Synthetic
 * 0.5B preset in bf16, 2 threads, alternating runs on a noisy VM: on Zen 5 (into L1) one sequence
 * 47.6 → 52.7 tok/s best of 3–8 (median 36 → 39), eight sequences 221 → 262 tok/s, 2–16 KB ahead
 * within the noise; on Zen 4, where the L1 fills cost more than they saved, into L2 instead: median
 * of 8 25.0 → 29.2 tok/s (no prefetch 26.4, median of 6). */
#define PF_BYTES_AHEAD 8192
#define DP(acc, a, b) acc = _mm512_dpbf16_ps(acc, a, b)
#define XB(r, at, m) (rows > r ? load_bh(x + r * ldx + (at), m) : zb)
#define WB(o, at, m) (wr > o ? load_bh(w + o * ldw + (at), m) : zb)
/* Both chains live, for wr ≤ 2 weight rows: accumulators c<chain>_<o>_<r> (16 at most). */
#define LIVE_ACC(o) __m512 c0_##o##_0 = z, c1_##o##_0 = z, c0_##o##_1 = z, c1_##o##_1 = z, c0_##o##_2 = z, \
                           c1_##o##_2 = z, c0_##o##_3 = z, c1_##o##_3 = z;
#define LIVE_STEP(o, r)                                                                                                  \
    if (wr > o && rows > r) DP(c0_##o##_##r, w##o##a, x##r##a), DP(c1_##o##_##r, w##o##b, x##r##b);
#define LIVE_TAIL(o, r)                                                                                                  \
    if (wr > o && rows > r) DP(c0_##o##_##r, w##o##a, x##r##a);
#define LIVE_SUM(o, r)                                                                                                   \
    if (wr > o && rows > r) out[r * wr + o] = _mm512_reduce_add_ps(_mm512_add_ps(c0_##o##_##r, c1_##o##_##r));
#define LIVE_ALL(M) M(0, 0) M(0, 1) M(0, 2) M(0, 3) M(1, 0) M(1, 1) M(1, 2) M(1, 3)

TS_AVX512BF16 static inline __attribute__((always_inline)) void bf16_live(const uint16_t *w, size_t ldw, const int wr,
                                                                         const uint16_t *x, size_t ldx, const int rows,
                                                                         size_t n, float *out)
{
    __m512 z = _mm512_setzero_ps();
    __m512bh zb = (__m512bh)_mm512_setzero_si512();
    LIVE_ACC(0) LIVE_ACC(1)
    size_t i = 0, full = n / 64 * 64;
    const char *pf = (const char *)w + PF_BYTES_AHEAD;
    for (; i < full; i += 64) {
        for (int o = 0; o < wr; o++) {
            _mm_prefetch(pf + (o * ldw + i) * 2, _MM_HINT_T1);
            _mm_prefetch(pf + (o * ldw + i) * 2 + 64, _MM_HINT_T1);
        }
        __m512bh w0a = WB(0, i, ~0u), w0b = WB(0, i + 32, ~0u), w1a = WB(1, i, ~0u), w1b = WB(1, i + 32, ~0u);
        __m512bh x0a = XB(0, i, ~0u), x0b = XB(0, i + 32, ~0u), x1a = XB(1, i, ~0u), x1b = XB(1, i + 32, ~0u);
        __m512bh x2a = XB(2, i, ~0u), x2b = XB(2, i + 32, ~0u), x3a = XB(3, i, ~0u), x3b = XB(3, i + 32, ~0u);
        LIVE_ALL(LIVE_STEP)
    }
    for (; i < n; i += 32) {
        __mmask32 m = mask32(n - i);
        __m512bh w0a = WB(0, i, m), w1a = WB(1, i, m);
        __m512bh x0a = XB(0, i, m), x1a = XB(1, i, m), x2a = XB(2, i, m), x3a = XB(3, i, m);
        LIVE_ALL(LIVE_TAIL)
    }
    LIVE_ALL(LIVE_SUM)
}

#define LIVE_CASE(WR, R)                                                                                                 \
    case WR * 8 + R: bf16_live(w, ldw, WR, x, ldx, R, n, out); break;

/* One copy per shape, so that the shape is a constant in each and the accumulators stay in
 * registers. */
TS_AVX512BF16 void ts_dot_bf16_bf16_avx512bf16(const uint16_t *w, size_t ldw, int wrows, const uint16_t *x, size_t ldx,
                                               int rows, size_t n, float *out)
{
    switch (wrows * 8 + rows) {
        LIVE_CASE(1, 1) LIVE_CASE(1, 2) LIVE_CASE(1, 3) LIVE_CASE(1, 4)
        LIVE_CASE(2, 1) LIVE_CASE(2, 2) LIVE_CASE(2, 3) LIVE_CASE(2, 4)
    default: break; /* the contract's shapes only */
    }
}
#endif
