/* bf16_round_avx512.h — sixteen f32 values rounded to bf16 by the portable rule (kernels.h:
 * f32_to_bf16; ts_f32_to_bf16_scalar): bits + 0x7fff + the kept lsb, NaN kept and made quiet;
 * every variant gives the same bits. Two ways: integer steps on any AVX-512 CPU, or
 * VCVTNEPS2BF16 where the CPU has AVX512_BF16 and no lane is subnormal (the instruction flushes
 * those to ±0). Shared by the kernels that round as they go (the f32_to_bf16 rows, the
 * softmax's bf16 output). x86-64 only; include it inside the file's __x86_64__ section. */
#ifndef TS_CPU_KERNELS_BF16_ROUND_AVX512_H
#define TS_CPU_KERNELS_BF16_ROUND_AVX512_H

#include <immintrin.h>

__attribute__((target("avx512f,avx512bw,avx512vl"))) static inline __m256i
ts_round_bf16_avx512(__m512 x)
{
    __m512i b = _mm512_castps_si512(x), high = _mm512_srli_epi32(b, 16);
    __m512i lsb = _mm512_and_si512(high, _mm512_set1_epi32(1));
    __m512i sum = _mm512_add_epi32(_mm512_add_epi32(b, _mm512_set1_epi32(0x7fff)), lsb);
    __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(b, _mm512_set1_epi32(0x7fffffff)),
                                            _mm512_set1_epi32(0x7f800000));
    __m512i quiet = _mm512_set1_epi32(0x40);
    __m512i r = _mm512_mask_or_epi32(_mm512_srli_epi32(sum, 16), nan, high, quiet);
    return _mm512_cvtepi32_epi16(r);
}

/* The same bits by VCVTNEPS2BF16 (4 instructions instead of 9), which differs from the rule
 * only on subnormal inputs (it flushes them to ±0; the rule rounds them): a vector holding one
 * takes the rule. The subnormals are found by their bits (exponent 0, mantissa not), not by
 * VFPCLASSPS, which MXCSR.DAZ (set by a host built with -ffast-math) would make call them zero.
 * Only for kernels that the AVX512_BF16 tables select. The instruction is written as assembly
 * so that a kernel's one body (compiled for plain AVX-512) serves both tables, each entry point
 * choosing its rounding by a constant. */
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))) static inline __m256i
ts_round_bf16_avx512_cvtne(__m512 x)
{
    /* |bits| − 1 below 0x7fffff (unsigned): exactly the subnormals (0 wraps to the top) */
    __m512i m = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7fffffff));
    __mmask16 subnormal = _mm512_cmplt_epu32_mask(_mm512_sub_epi32(m, _mm512_set1_epi32(1)),
                                                  _mm512_set1_epi32(0x007fffff));
    if (__builtin_expect(subnormal != 0, 0)) return ts_round_bf16_avx512(x);
    __m256i r;
    __asm__("vcvtneps2bf16 %1, %0" : "=v"(r) : "v"(x));
    return r;
}

#endif
