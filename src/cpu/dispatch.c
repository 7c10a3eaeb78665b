/* dispatch.c — builds the kernel table for a feature mask. */
#include "cpu/kernels.h"

static const ts_kernels portable = {
    .level = "portable",
    .dot_f32 = ts_dot_f32_ref,
    .dot_bf16_f32 = ts_dot_bf16_f32_ref,
    .bf16_to_f32 = ts_bf16_to_f32_ref,
    .dot_f16_f32 = ts_dot_f16_f32_ref,
    .f16_to_f32 = ts_f16_to_f32_ref,
};

#if defined(__x86_64__)
static const ts_kernels avx2 = {
    .level = "avx2",
    .dot_f32 = ts_dot_f32_avx2,
    .dot_bf16_f32 = ts_dot_bf16_f32_avx2,
    .bf16_to_f32 = ts_bf16_to_f32_avx2,
    .dot_f16_f32 = ts_dot_f16_f32_avx2,
    .f16_to_f32 = ts_f16_to_f32_avx2,
};

/* AVX512_BF16's dot rounds activations to bf16, so the f32-compute table keeps the exact kernel;
 * the bf16 variant is offered to the bf16-compute policy by name (ts_dot_bf16_f32_avx512bf16). */
static const ts_kernels avx512 = {
    .level = "avx512",
    .dot_f32 = ts_dot_f32_avx512,
    .dot_bf16_f32 = ts_dot_bf16_f32_avx512,
    .bf16_to_f32 = ts_bf16_to_f32_avx512,
    .dot_f16_f32 = ts_dot_f16_f32_avx512,
    .f16_to_f32 = ts_f16_to_f32_avx512,
    .gemm_f32 = ts_gemm_f32_avx512,
};
#endif

/* AVX-512 plus the bf16 GEMM (the bf16 compute policy's kernel where there is no AMX). */
static const ts_kernels avx512_bf16 = {
    .level = "avx512_bf16",
    .dot_f32 = ts_dot_f32_avx512,
    .dot_bf16_f32 = ts_dot_bf16_f32_avx512,
    .bf16_to_f32 = ts_bf16_to_f32_avx512,
    .dot_f16_f32 = ts_dot_f16_f32_avx512,
    .f16_to_f32 = ts_f16_to_f32_avx512,
    .gemm_f32 = ts_gemm_f32_avx512,
    .gemm_bf16 = ts_gemm_bf16_avx512bf16,
};

const ts_kernels *ts_kernels_select(unsigned features)
{
#if defined(__x86_64__)
    if (features & TS_CPU_AVX512_BF16) return &avx512_bf16;
    if (features & TS_CPU_AVX512) return &avx512;
    if (features & TS_CPU_AVX2) return &avx2;
#else
    (void)features;
#endif
    return &portable;
}
