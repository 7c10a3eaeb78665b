/* qdot_avx512vnni.c — W8A8 on AVX512_VNNI (kernels.h: ts_q8_act): row dots for decode, a tiled
 * GEMM for many rows, and the activation quantizer they read.
 *
 * VPDPBUSD multiplies unsigned bytes by signed ones. 8-bit weights give it their magnitude and
 * lend their sign to the activation (|w| · (sign(w)·x) = w·x; |−128| = 128 is a valid unsigned
 * byte, activations stay in −127…127 so negating one cannot overflow). 4-bit weights go in as
 * the unsigned nibbles u they unpack to, each lane starting at the quantizer's xs (−8·Σxq of its
 * four activations; times z/8 for zero points z), so it sums (u − z)·xq = w·xq exactly with one
 * load per row and step instead of a zero-point subtract, abs, sign mask and masked negation,
 * and two accumulators per row break the f32 FMA chain. Per-thread CPU time over one
 * 0.5B preset layer's matrices (Zen 5, loaded machine, variants interleaved, least of 15–100):
 * 4-bit +20% (unsigned) and +25% (both) weights/s whether L3- or DRAM-resident; the same for
 * 8-bit (w XOR 0x80 and −128·Σxq) lost 6% from L3 and 28% streaming from DRAM, two
 * accumulators +6% from L3 but −13% from DRAM, so 8-bit keeps the sign trick.
 * One 64-byte load of 8-bit weights covers two chunks of 32 (lanes 0–7, 8–15); 32
 * bytes of packed nibbles unpack to [low nibbles | high nibbles], which the u4 activation layout
 * matches (lanes 0–3 and 8–11 one chunk, 4–7 and 12–15 the other). Each lane's integer sum is
 * exact; it is scaled by scale·d in f32 and accumulated (f16 weight scales widened in registers,
 * prefetched SCALE_ROWS_AHEAD rows ahead as their own stream). Up to TS_Q8_ROWS activation rows share
 * one pass over the weight row (batched decode). The GEMM's panel likewise holds unsigned weights
 * and each chunk's accumulator starts at −offset·Σxq (per chunk: one activation broadcast meets
 * 32 weight rows); 4 rows × 32 weight rows per tile, measured at ≈ 725 GOP/s
 * on one thread of the Zen-4 machine (the 2-thread VPDPBUSD peak there is 915).
 */
#include "cpu/kernels.h"

#if defined(__x86_64__)
#define TS_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,fma")))
#define TS_VNNI __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,fma")))
#include <immintrin.h>

/* 16 i32 lanes → 16 bytes (values already in −127…127). */
TS_AVX512 static inline __m128i narrow(__m512i v)
{
    return _mm512_cvtepi32_epi8(v);
}

/* The lane sums xs (ts_quantize_q8_ref's, the same values): each lane's four stored bytes summed
 * by two multiply-adds with ones (exact: |sum| ≤ 512), times −offset as a shift. A scalar loop
 * here cost a W8A8 prefill more than the quantization itself (0.5B preset at q8, pp512, 2
 * threads: 3.0% of the perf samples against the GEMM's 37.3%). */
TS_AVX512 static void lane_sums(const int8_t *q, size_t n, bool u4, int32_t *xs)
{
    const __m512i ones8 = _mm512_set1_epi8(1), ones16 = _mm512_set1_epi16(1);
    const unsigned shift = u4 ? 3 : 7; /* offset 8 or 128 */
    for (size_t base = 0; base < n; base += 64) {
        bool whole = n - base >= 64;
        __m512i v = _mm512_maskz_loadu_epi8(whole ? ~0ull : 0xffffffffull, q + base);
        __m512i sum = _mm512_madd_epi16(_mm512_maddubs_epi16(ones8, v), ones16);
        __m512i lanes = _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_slli_epi32(sum, shift));
        _mm512_mask_storeu_epi32(xs + base / 4, whole ? 0xffff : 0xff, lanes);
    }
}

/* Chunk c of a row of n rounded by `inverse` (1/d, or 0 for an all-zero block) into q, in the
 * natural or the u4 layout. */
TS_AVX512 __attribute__((always_inline)) static inline void chunk_out(const float *x, size_t n,
                                                                      size_t c, float inverse,
                                                                      bool u4, int8_t *q)
{
    const __m512 lo = _mm512_set1_ps(-127.0f), hi = _mm512_set1_ps(127.0f);
    __m512 x0 = _mm512_loadu_ps(x + c * 32), x1 = _mm512_loadu_ps(x + c * 32 + 16);
    __m512 s = _mm512_set1_ps(inverse);
    __m512 r0 = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(x0, s), lo), hi),
           r1 = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(x1, s), lo), hi);
    __m512i v0 = _mm512_cvtps_epi32(r0), v1 = _mm512_cvtps_epi32(r1);
    if (!u4) {
        _mm_storeu_si128((__m128i *)(q + c * 32), narrow(v0));
        _mm_storeu_si128((__m128i *)(q + c * 32 + 16), narrow(v1));
        return;
    }
    const __m512i even =
        _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    size_t base = c / 2 * 64;
    bool pair = n - base >= 64, second = c % 2;
    __m128i ev = narrow(_mm512_permutex2var_epi32(v0, even, v1)),
            od = narrow(_mm512_permutex2var_epi32(v0, odd, v1));
    _mm_storeu_si128((__m128i *)(q + base + (second ? 16 : 0)), ev);
    _mm_storeu_si128((__m128i *)(q + base + (pair ? 32 : 16) + (second ? 16 : 0)), od);
}

/* Blocks wider than a chunk (a whole row): the block's maximum, one scalar d and inverse (the
 * same correctly rounded divisions as the vector ones), then its chunks. */
TS_AVX512 static void quantize_blocks(const float *x, size_t n, size_t block, bool u4, int8_t *q,
                                      float *d)
{
    for (size_t b = 0; b < n; b += block) {
        __m512 m = _mm512_setzero_ps(); /* max(|x|, acc): a NaN lane keeps acc, as fmaxf does */
        for (size_t j = b; j < b + block; j += 16)
            m = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(x + j)), m);
        float db = _mm512_reduce_max_ps(m) / 127.0f, inverse = db != 0.0f ? 1.0f / db : 0.0f;
        for (size_t c = b / 32; c < (b + block) / 32; c++) {
            d[c] = db;
            chunk_out(x, n, c, inverse, u4, q);
        }
    }
}

/* Sixteen chunks at a time: their maxima first (independent chains), then d = max/127 and its
 * inverse for all sixteen in two vector divisions (correctly rounded, as the scalar ones: the
 * same values), then the chunks rounded. One chunk at a time, each chunk's reduction and two
 * divisions were one chain of latencies: the quantizer was 4% of a 2B-class vision tower at
 * q8. */
TS_AVX512 void ts_quantize_q8_avx512(const float *x, size_t n, size_t block, bool u4, int8_t *q,
                                     float *d, int32_t *xs)
{
    if (block != 32) {
        quantize_blocks(x, n, block, u4, q, d);
        lane_sums(q, n, u4, xs);
        return;
    }
    size_t nc = n / 32;
    for (size_t c0 = 0; c0 < nc; c0 += 16) {
        size_t count = nc - c0 < 16 ? nc - c0 : 16;
        _Alignas(64) float amax[16] = {0}, inverse[16];
        for (size_t i = 0; i < count; i++) {
            const float *xc = x + (c0 + i) * 32;
            /* max(|x|, acc): a NaN lane keeps acc, as fmaxf does */
            __m512 m = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(xc)), _mm512_setzero_ps());
            m = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(xc + 16)), m);
            amax[i] = _mm512_reduce_max_ps(m);
        }
        __m512 dc = _mm512_div_ps(_mm512_load_ps(amax), _mm512_set1_ps(127.0f));
        __mmask16 nonzero = _mm512_cmp_ps_mask(dc, _mm512_setzero_ps(), _CMP_NEQ_OQ);
        _mm512_store_ps(inverse, _mm512_maskz_div_ps(nonzero, _mm512_set1_ps(1.0f), dc));
        _mm512_mask_storeu_ps(d + c0, (__mmask16)(count == 16 ? 0xffffu : (1u << count) - 1), dc);
        for (size_t i = 0; i < count; i++)
            chunk_out(x, n, c0 + i, inverse[i], u4, q);
    }
    lane_sums(q, n, u4, xs);
}

/* Zero points (f32) of chunks c and c + 1 spread over the lanes of `idx`. */
TS_VNNI __attribute__((always_inline)) static inline __m512 spread(const float *z, size_t c,
                                                                   __m512i idx)
{
    return _mm512_permutexvar_ps(idx, _mm512_maskz_loadu_ps(3, z + c));
}

/* How far ahead (in weight rows) the kernels prefetch the scales: a stream of their own beside
 * the weights'. */
#define SCALE_ROWS_AHEAD 8

/* 8-bit: rows activation rows × one 64-byte (two-chunk) step, the weights' sign lent to the
 * activations: `aw` the weights' magnitudes, `neg` their signs, `bytes` the mask of a last single
 * chunk; each lane's integer sum times its chunk's scale·d, lane i of sd[r] after `pick`
 * (permutexvar: the step's two chunks over lanes 0–7 and 8–15; `lanes` zeroes the others). */
TS_VNNI __attribute__((always_inline)) static inline void step(__m512 *acc, int rows,
                                                               const ts_q8_act *x, size_t j,
                                                               __m512i aw, __mmask64 neg,
                                                               const __m512 *sd, __m512i pick,
                                                               __mmask64 bytes, __mmask16 lanes)
{
    for (int r = 0; r < rows; r++) {
        __m512i xv = _mm512_maskz_loadu_epi8(bytes, x->q + (size_t)r * x->ld + j);
        xv = _mm512_mask_sub_epi8(xv, neg, _mm512_setzero_si512(), xv);
        __m512i dp = _mm512_dpbusd_epi32(_mm512_setzero_si512(), aw, xv);
        __m512 scale_d = _mm512_maskz_permutexvar_ps(lanes, pick, sd[r]);
        acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dp), scale_d, acc[r]);
    }
}

/* 4-bit: the same step with the unsigned nibbles `u`, each lane starting at xs (−8·Σxq; times
 * z/8 per lane from `zl` when `zero`); `pick` as in step, in the u4 lanes. */
TS_VNNI __attribute__((always_inline)) static inline void ustep(__m512 *acc, int rows,
                                                                const ts_q8_act *x, size_t j,
                                                                __m512i u, bool zero, __m512i zl,
                                                                const __m512 *sd, __m512i pick,
                                                                __mmask64 bytes, __mmask16 lanes)
{
    for (int r = 0; r < rows; r++) {
        __m512i xv = _mm512_maskz_loadu_epi8(bytes, x->q + (size_t)r * x->ld + j);
        __m512i start = _mm512_maskz_loadu_epi32(lanes, x->xs + (size_t)r * (x->ld / 4) + j / 4);
        if (zero) start = _mm512_mullo_epi32(_mm512_srai_epi32(start, 3), zl);
        __m512 scale_d = _mm512_maskz_permutexvar_ps(lanes, pick, sd[r]);
        acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_dpbusd_epi32(start, u, xv)), scale_d,
                                 acc[r]);
    }
}

/* How far ahead the weight stream is prefetched (bytes of weights; past the row, into the next
 * rows of the matrix). On a Zen 5 core (≈ 35 GB/s streaming read per thread) a q8 GEMV over a
 * 145 MB matrix moved 61–68% of the read rate with 1 KB, 82% with 8 KB (75% with 4 or 16 KB),
 * per-thread CPU time, min of 12 runs. */
#define PREFETCH_AHEAD 8192

/* The weight and scale streams' prefetch: non-temporal (the tuning above, on Zen 5), or into L2
 * (l2; the _l2 entries, Intel's tables: on a Sapphire-Rapids-class Xeon the non-temporal hint
 * left a q8 decode of the 0.5B preset at 52–65% of the streaming read, 27 tok/s, and T1 on the
 * weights took it to 86–100%, 41–45 tok/s; q4 43–46 → 60–71 tok/s; T1 on the scales too: the
 * least thread's CPU time a step 2–5% lower in 6 of 6 pairs; 2 threads, alternating runs). */
#define PREFETCH_STREAM(p, l2)                                                                     \
    do {                                                                                           \
        if (l2) __builtin_prefetch((p), 0, 2);                                                     \
        else __builtin_prefetch((p), 0, 0);                                                        \
    } while (0)

/* Chunks c0 … c0 + count − 1 of nc (count ≤ 16, returned): each row's scale·d products, lane
 * i chunk c0 + i's, into sd[r] (the weights' scales f16 as stored when `half`, widened). */
TS_VNNI __attribute__((always_inline)) static inline size_t scale_d16(const void *scale, bool half,
                                                                      const ts_q8_act *x, int rows,
                                                                      size_t c0, size_t nc,
                                                                      __m512 *sd)
{
    size_t count = nc - c0 < 16 ? nc - c0 : 16;
    __mmask16 m = (__mmask16)(count == 16 ? 0xffffu : (1u << count) - 1);
    __m512 s = half ? _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, (const uint16_t *)scale + c0))
                    : _mm512_maskz_loadu_ps(m, (const float *)scale + c0);
    for (int r = 0; r < rows; r++)
        sd[r] = _mm512_mul_ps(s, _mm512_maskz_loadu_ps(m, x->d + (size_t)r * (x->ld / 32) + c0));
    return count;
}

/* Sixteen chunks (512 weights) at a time: their scale·d products made once per row (one
 * multiply for sixteen chunks: the products the lanes made one by one), then one permute a step
 * hands each lane its chunk's. Against loading, widening and spreading the scales and multiplying
 * by the spread d at every step: per 64 weights 15 → 12 instructions for one row, 39 → 33 for
 * four; the same bits (checked against the old kernel on every n from 32 to 6144, 1–4 rows, f16
 * and f32 scales). 0.5B preset at q8 from its checkpoint, 2 threads, 6 alternating runs on the
 * loaded Zen 4, least CPU time of a step over all threads: one sequence 33.3 → 31.1 ms (median),
 * four 56.9 → 51.8, lower in every pair; tok/s unchanged within the noise (the weight stream
 * bounds the wall time), so the gain is core time: batched steps, a core other load shares. */
TS_VNNI __attribute__((always_inline)) static inline void i8_rows(const int8_t *q,
                                                                  const ts_q8_act *x, int rows,
                                                                  size_t n, const void *scale,
                                                                  bool half, bool l2, float *out,
                                                                  size_t ldo)
{
    __m512 acc[TS_Q8_ROWS], sd[TS_Q8_ROWS];
    for (int r = 0; r < rows; r++)
        acc[r] = _mm512_setzero_ps();
    size_t nc = n / 32;
    for (size_t c0 = 0; c0 < nc; c0 += 16) {
        size_t count = scale_d16(scale, half, x, rows, c0, nc, sd);
        size_t c = 0;
        __m512i pick = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
        for (; c + 2 <= count; c += 2, pick = _mm512_add_epi32(pick, _mm512_set1_epi32(2))) {
            size_t j = (c0 + c) * 32;
            PREFETCH_STREAM(q + j + PREFETCH_AHEAD, l2);
            __m512i w = _mm512_loadu_si512(q + j);
            step(acc, rows, x, j, _mm512_abs_epi8(w), _mm512_movepi8_mask(w), sd, pick, ~0ull,
                 0xffff);
        }
        if (c < count) { /* a last single chunk */
            size_t j = (c0 + c) * 32;
            __m512i w = _mm512_maskz_loadu_epi8(0xffffffffull, q + j);
            step(acc, rows, x, j, _mm512_abs_epi8(w), _mm512_movepi8_mask(w), sd,
                 _mm512_set1_epi32((int)c), 0xffffffffull, 0xff);
        }
    }
    for (int r = 0; r < rows; r++)
        out[(size_t)r * ldo] = _mm512_reduce_add_ps(acc[r]);
}

/* One function per row count, each looping over the weight rows: the accumulators stay in
 * registers, and a call (with the frame four rows' spills need) is paid once per nw weight rows,
 * not once per row, where it cost a fifth of a 896-weight row's time. */
#define I8_ROWS(R, L2, NAME)                                                                       \
    TS_VNNI __attribute__((noinline)) static void NAME(const int8_t *q, size_t nw,                 \
                                                       const ts_q8_act *x, size_t n,               \
                                                       const void *scale, bool half, float *out,   \
                                                       size_t ldo)                                 \
    {                                                                                              \
        for (size_t w = 0; w < nw; w++) {                                                          \
            PREFETCH_STREAM(ts_q8_row_scales(scale, half, w + SCALE_ROWS_AHEAD, n), L2);           \
            if (half)                                                                              \
                i8_rows(q + w * n, x, R, n, ts_q8_row_scales(scale, true, w, n), true, L2,         \
                        out + w, ldo);                                                             \
            else                                                                                   \
                i8_rows(q + w * n, x, R, n, ts_q8_row_scales(scale, false, w, n), false, L2,       \
                        out + w, ldo);                                                             \
        }                                                                                          \
    }
/* ROWS_FUNCTIONS(M, L2, PREFIX): M's function for 1 … TS_Q8_ROWS activation rows, PREFIX1 … */
#define ROWS_FUNCTIONS(M, L2, PREFIX)                                                              \
    M(1, L2, PREFIX##1) M(2, L2, PREFIX##2) M(3, L2, PREFIX##3) M(4, L2, PREFIX##4)
ROWS_FUNCTIONS(I8_ROWS, false, i8_rows_nt_)
ROWS_FUNCTIONS(I8_ROWS, true, i8_rows_l2_)

/* The public entries: one function per row count (kernels.h: TS_Q8_ROWS). */
#define QDOT_ENTRY(NAME, ROWS, PARAMS, ARGS)                                                       \
    TS_VNNI void NAME PARAMS                                                                       \
    {                                                                                              \
        switch (rows) {                                                                            \
        case 1: ROWS##1 ARGS; break;                                                               \
        case 2: ROWS##2 ARGS; break;                                                               \
        case 3: ROWS##3 ARGS; break;                                                               \
        default: ROWS##4 ARGS; break;                                                              \
        }                                                                                          \
    }
#define I8_PARAMS                                                                                  \
    (const int8_t *q, size_t nw, const ts_q8_act *x, int rows, size_t n, const void *scale,       \
     bool half, float *out, size_t ldo)
#define I8_ARGS (q, nw, x, n, scale, half, out, ldo)
QDOT_ENTRY(ts_qdot_i8_q8_avx512vnni, i8_rows_nt_, I8_PARAMS, I8_ARGS)
QDOT_ENTRY(ts_qdot_i8_q8_avx512vnni_l2, i8_rows_l2_, I8_PARAMS, I8_ARGS)

/* 32 bytes of packed nibbles → 64 unsigned bytes [low nibbles | high nibbles]. */
TS_VNNI static inline __m512i nibbles(const uint8_t *p)
{
    __m256i v = _mm256_loadu_si256((const __m256i *)p);
    return _mm512_and_si512(
        _mm512_inserti64x4(_mm512_castsi256_si512(v), _mm256_srli_epi16(v, 4), 1),
        _mm512_set1_epi8(15));
}

/* Two accumulators per row (even and odd steps): one f32 FMA chain per step was the limit. The
 * scales as i8_rows takes them, sixteen chunks' scale·d a row at a time; the steps in the same
 * order and accumulators as when each step spread its own (the same bits). */
TS_VNNI __attribute__((always_inline)) static inline void u4_rows(const uint8_t *q,
                                                                  const ts_q8_act *x, int rows,
                                                                  size_t n, const void *scale,
                                                                  bool half, bool l2,
                                                                  const float *zero, float *out,
                                                                  size_t ldo)
{
    /* lanes 0–3 and 8–11 are a step's first chunk, 4–7 and 12–15 its second */
    const __m512i idx = _mm512_set_epi32(1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0);
    const __m512i two = _mm512_set1_epi32(2);
    __m512i zl = _mm512_setzero_si512();
    __m512 acc[TS_Q8_ROWS], acc2[TS_Q8_ROWS], sd[TS_Q8_ROWS];
    for (int r = 0; r < rows; r++)
        acc[r] = acc2[r] = _mm512_setzero_ps();
    size_t nc = n / 32;
    for (size_t c0 = 0; c0 < nc; c0 += 16) {
        size_t count = scale_d16(scale, half, x, rows, c0, nc, sd);
        size_t c = 0;
        __m512i pick = idx;
        for (; c + 4 <= count; c += 4) { /* 128 channels: a step into each accumulator */
            size_t j = (c0 + c) * 32;
            PREFETCH_STREAM(q + j / 2 + PREFETCH_AHEAD, l2);
            if (zero) zl = _mm512_cvttps_epi32(spread(zero, j / 32, idx));
            ustep(acc, rows, x, j, nibbles(q + j / 2), zero != NULL, zl, sd, pick, ~0ull, 0xffff);
            pick = _mm512_add_epi32(pick, two);
            if (zero) zl = _mm512_cvttps_epi32(spread(zero, j / 32 + 2, idx));
            ustep(acc2, rows, x, j + 64, nibbles(q + j / 2 + 32), zero != NULL, zl, sd, pick, ~0ull,
                  0xffff);
            pick = _mm512_add_epi32(pick, two);
        }
        if (c + 2 <= count) {
            size_t j = (c0 + c) * 32;
            if (zero) zl = _mm512_cvttps_epi32(spread(zero, j / 32, idx));
            ustep(acc, rows, x, j, nibbles(q + j / 2), zero != NULL, zl, sd, pick, ~0ull, 0xffff);
            c += 2;
        }
        if (c < count) { /* a last single chunk: lanes 0–7 (lanes 8–15 meet zero bytes) */
            size_t j = (c0 + c) * 32;
            __m128i p = _mm_loadu_si128((const __m128i *)(q + j / 2));
            __m512i u = _mm512_zextsi256_si512(_mm256_and_si256(
                _mm256_inserti128_si256(_mm256_castsi128_si256(p), _mm_srli_epi16(p, 4), 1),
                _mm256_set1_epi8(15)));
            if (zero) zl = _mm512_set1_epi32((int)zero[j / 32]);
            ustep(acc2, rows, x, j, u, zero != NULL, zl, sd, _mm512_set1_epi32((int)c),
                  0xffffffffull, 0xff);
        }
    }
    for (int r = 0; r < rows; r++)
        out[(size_t)r * ldo] = _mm512_reduce_add_ps(_mm512_add_ps(acc[r], acc2[r]));
}

#define U4_ROWS(R, L2, NAME)                                                                       \
    TS_VNNI __attribute__((noinline)) static void NAME(const uint8_t *q, size_t nw,                \
                                                       const ts_q8_act *x, size_t n,               \
                                                       const void *scale, bool half,               \
                                                       const float *zero, float *out, size_t ldo)  \
    {                                                                                              \
        for (size_t w = 0; w < nw; w++) {                                                          \
            const float *z = zero ? zero + w * (n / 32) : NULL;                                    \
            PREFETCH_STREAM(ts_q8_row_scales(scale, half, w + SCALE_ROWS_AHEAD, n), L2);           \
            if (half)                                                                              \
                u4_rows(q + w * (n / 2), x, R, n, ts_q8_row_scales(scale, true, w, n), true, L2,   \
                        z, out + w, ldo);                                                          \
            else                                                                                   \
                u4_rows(q + w * (n / 2), x, R, n, ts_q8_row_scales(scale, false, w, n), false, L2, \
                        z, out + w, ldo);                                                          \
        }                                                                                          \
    }
ROWS_FUNCTIONS(U4_ROWS, false, u4_rows_nt_)
ROWS_FUNCTIONS(U4_ROWS, true, u4_rows_l2_)

#define U4_PARAMS                                                                                  \
    (const uint8_t *q, size_t nw, const ts_q8_act *x, int rows, size_t n, const void *scale,      \
     bool half, const float *zero, float *out, size_t ldo)
#define U4_ARGS (q, nw, x, n, scale, half, zero, out, ldo)
QDOT_ENTRY(ts_qdot_u4_q8_avx512vnni, u4_rows_nt_, U4_PARAMS, U4_ARGS)
QDOT_ENTRY(ts_qdot_u4_q8_avx512vnni_l2, u4_rows_l2_, U4_PARAMS, U4_ARGS)

/* The W8A8 GEMM's tile: R activation rows × the panel's 32 weight rows, two 16-lane i32
 * accumulators per row, reset per chunk to −offset·Σxq so each chunk's sum Σ (u − offset)·xq
 * is exact; then scaled by scale·d into f32. Per chunk: 16·R VPDPBUSD against 6·R f32 ops. */
TS_VNNI __attribute__((always_inline)) static inline void
gemm_tile(const ts_q8_act *x, const int32_t *xsum, int R, size_t k, const uint8_t *panel,
          const float *scale, int32_t offset, const int32_t *offsets, __mmask16 m0, __mmask16 m1,
          const float *bias, float *c, int64_t ldc)
{
    size_t nc = k / 32;
    __m512 acc[4][2];
    for (int r = 0; r < R; r++)
        acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    for (size_t ch = 0; ch < nc; ch++) {
        __m512i a[4][2];
        if (offsets) {
            __m512i o0 = _mm512_loadu_si512(offsets + ch * TS_Q8_PANEL),
                    o1 = _mm512_loadu_si512(offsets + ch * TS_Q8_PANEL + 16);
            for (int r = 0; r < R; r++) {
                __m512i sum = _mm512_set1_epi32(-xsum[(size_t)r * nc + ch]);
                a[r][0] = _mm512_mullo_epi32(o0, sum), a[r][1] = _mm512_mullo_epi32(o1, sum);
            }
        } else {
            for (int r = 0; r < R; r++)
                a[r][0] = a[r][1] = _mm512_set1_epi32(-offset * xsum[(size_t)r * nc + ch]);
        }
        const uint8_t *p = panel + ch * 32 * TS_Q8_PANEL;
        for (int t = 0; t < 8; t++) {
            __m512i w0 = _mm512_loadu_si512(p + t * 4 * TS_Q8_PANEL),
                    w1 = _mm512_loadu_si512(p + t * 4 * TS_Q8_PANEL + 64);
            for (int r = 0; r < R; r++) {
                int32_t four;
                __builtin_memcpy(&four, x->q + (size_t)r * x->ld + ch * 32 + (size_t)t * 4, 4);
                __m512i xb = _mm512_set1_epi32(four);
                a[r][0] = _mm512_dpbusd_epi32(a[r][0], w0, xb);
                a[r][1] = _mm512_dpbusd_epi32(a[r][1], w1, xb);
            }
        }
        __m512 s0 = _mm512_loadu_ps(scale + ch * TS_Q8_PANEL),
               s1 = _mm512_loadu_ps(scale + ch * TS_Q8_PANEL + 16);
        for (int r = 0; r < R; r++) {
            __m512 d = _mm512_set1_ps(x->d[(size_t)r * nc + ch]);
            acc[r][0] =
                _mm512_fmadd_ps(_mm512_cvtepi32_ps(a[r][0]), _mm512_mul_ps(s0, d), acc[r][0]);
            acc[r][1] =
                _mm512_fmadd_ps(_mm512_cvtepi32_ps(a[r][1]), _mm512_mul_ps(s1, d), acc[r][1]);
        }
    }
    __m512 b0 = _mm512_setzero_ps(), b1 = b0;
    if (bias) b0 = _mm512_maskz_loadu_ps(m0, bias), b1 = _mm512_maskz_loadu_ps(m1, bias + 16);
    for (int r = 0; r < R; r++) {
        if (bias)
            acc[r][0] = _mm512_add_ps(acc[r][0], b0), acc[r][1] = _mm512_add_ps(acc[r][1], b1);
        _mm512_mask_storeu_ps(c + r * ldc, m0, acc[r][0]);
        _mm512_mask_storeu_ps(c + r * ldc + 16, m1, acc[r][1]);
    }
}

TS_VNNI void ts_gemm_q8_avx512vnni(const ts_q8_act *x, const int32_t *xsum, int64_t m, size_t k,
                                   const uint8_t *panel, const float *scale, int32_t offset,
                                   const int32_t *offsets, int cols, const float *bias, float *c,
                                   int64_t ldc)
{
    __mmask16 m0 = cols >= 16 ? 0xffff : (__mmask16)((1u << cols) - 1);
    __mmask16 m1 = cols >= 32 ? 0xffff : cols <= 16 ? 0 : (__mmask16)((1u << (cols - 16)) - 1);
    size_t nc = k / 32;
    for (int64_t r = 0; r < m; r += 4) {
        ts_q8_act xr = {x->q + (size_t)r * x->ld, x->d + (size_t)r * nc, NULL, x->ld};
        const int32_t *sr = xsum + (size_t)r * nc;
        float *cr = c + r * ldc;
        switch (m - r < 4 ? (int)(m - r) : 4) {
        case 1:
            gemm_tile(&xr, sr, 1, k, panel, scale, offset, offsets, m0, m1, bias, cr, ldc);
            break;
        case 2:
            gemm_tile(&xr, sr, 2, k, panel, scale, offset, offsets, m0, m1, bias, cr, ldc);
            break;
        case 3:
            gemm_tile(&xr, sr, 3, k, panel, scale, offset, offsets, m0, m1, bias, cr, ldc);
            break;
        default:
            gemm_tile(&xr, sr, 4, k, panel, scale, offset, offsets, m0, m1, bias, cr, ldc);
            break;
        }
    }
}




/* gemm_q8_channel's tile: 8 activation rows × the panel's 32 weight rows, two i32 accumulators a
 * row that run the whole k, started at −128·Σxq, then scaled into f32 once: per-channel weights
 * and whole-row activation scales leave one f32 scaling a sum. Per four channels: two panel
 * loads, eight broadcasts, 16 VPDPBUSD in independent chains. Fewer rows (a tail) repeat the
 * last one and store only theirs. The accumulators are named variables: as an array indexed by
 * row, GCC copied each between registers around every VPDPBUSD (the tile ran slower than
 * gemm_q8's). Passes of 512 channels (the panel's slice in L1, partial sums parked in c between
 * them) lost in place: a 2B-class vision tower at q8, 2 threads, 3 pairs, the q8 linears'
 * CPU time 8.0 → 7.1, 8.3 → 6.8, 7.8 → 7.3 s without them (the tile alone, one thread, k = 1280:
 * 585 → 706 GOP/s; k = 5120 the same). */
#define CH_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
TS_VNNI static void channel_tile(const ts_q8_act *x, const int32_t *xsum, int rows, size_t k,
                                 const uint8_t *panel, __m512 s0, __m512 s1, __mmask16 m0,
                                 __mmask16 m1, const float *bias, float *c, int64_t ldc)
{
#define CH_START(r)                                                                                \
    int row##r = (r) < rows ? (r) : rows - 1;                                                      \
    const int8_t *x##r = x->q + (size_t)row##r * x->ld;                                            \
    __m512i a##r##0 = _mm512_set1_epi32(-128 * xsum[row##r]), a##r##1 = a##r##0;
    CH_ROWS(CH_START)
    for (size_t g = 0; g < k / 4; g++) {
        const uint8_t *p = panel + g * 4 * TS_Q8_PANEL;
        __m512i w0 = _mm512_loadu_si512(p), w1 = _mm512_loadu_si512(p + 64);
#define CH_STEP(r)                                                                                 \
    {                                                                                              \
        int32_t four;                                                                              \
        __builtin_memcpy(&four, x##r + g * 4, 4);                                                  \
        __m512i xb = _mm512_set1_epi32(four);                                                      \
        a##r##0 = _mm512_dpbusd_epi32(a##r##0, w0, xb);                                            \
        a##r##1 = _mm512_dpbusd_epi32(a##r##1, w1, xb);                                            \
    }
        CH_ROWS(CH_STEP)
    }
#define CH_OUT(r) a##r##0, a##r##1,
    __m512i sums[16] = {CH_ROWS(CH_OUT)};
#undef CH_OUT
#undef CH_STEP
#undef CH_START
    __m512 b0 = _mm512_setzero_ps(), b1 = b0;
    if (bias) b0 = _mm512_maskz_loadu_ps(m0, bias), b1 = _mm512_maskz_loadu_ps(m1, bias + 16);
    for (int r = 0; r < rows; r++) {
        __m512 d = _mm512_set1_ps(x->d[(size_t)r * (x->ld / 32)]);
        __m512 y0 = _mm512_mul_ps(_mm512_cvtepi32_ps(sums[2 * r]), _mm512_mul_ps(s0, d)),
               y1 = _mm512_mul_ps(_mm512_cvtepi32_ps(sums[2 * r + 1]), _mm512_mul_ps(s1, d));
        if (bias) y0 = _mm512_add_ps(y0, b0), y1 = _mm512_add_ps(y1, b1);
        _mm512_mask_storeu_ps(c + r * ldc, m0, y0);
        _mm512_mask_storeu_ps(c + r * ldc + 16, m1, y1);
    }
}
#undef CH_ROWS

/* Rows per block: their activations (64 × k bytes: 320 KB at k = 5120) stay in L2 while every
 * panel of the call reads them; streamed from L3 once per panel instead, a 5120-wide GEMM ran at
 * 60% of a 1280-wide one's rate (one thread, 1024 rows: 340 against 573 GOP/s). */
#define CHANNEL_ROWS 64

TS_VNNI void ts_gemm_q8_channel_avx512vnni(const ts_q8_act *x, const int32_t *xsum, int64_t m,
                                           size_t k, const uint8_t *panel, const float *scale,
                                           int cols, const float *bias, float *c, int64_t ldc)
{
    for (int64_t r0 = 0; r0 < m; r0 += CHANNEL_ROWS) {
        int64_t r1 = r0 + CHANNEL_ROWS < m ? r0 + CHANNEL_ROWS : m;
        for (int p0 = 0; p0 < cols; p0 += TS_Q8_PANEL) {
            int pc = cols - p0 < TS_Q8_PANEL ? cols - p0 : TS_Q8_PANEL;
            __mmask16 m0 = pc >= 16 ? 0xffff : (__mmask16)((1u << pc) - 1);
            __mmask16 m1 = pc >= 32 ? 0xffff : pc <= 16 ? 0 : (__mmask16)((1u << (pc - 16)) - 1);
            __m512 s0 = _mm512_maskz_loadu_ps(m0, scale + p0),
                   s1 = _mm512_maskz_loadu_ps(m1, scale + p0 + 16);
            for (int64_t r = r0; r < r1; r += 8) {
                ts_q8_act xr = {x->q + (size_t)r * x->ld, x->d + (size_t)r * (x->ld / 32), NULL,
                                x->ld};
                channel_tile(&xr, xsum + r, r1 - r < 8 ? (int)(r1 - r) : 8, k,
                             panel + (size_t)p0 * k, s0, s1, m0, m1, bias ? bias + p0 : NULL,
                             c + r * ldc + p0, ldc);
            }
        }
    }
}
#endif
