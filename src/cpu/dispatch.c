/* dispatch.c — builds the kernel table for a feature mask. */
#include "cpu/kernels.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

static const ts_kernels portable = {
    .level = "portable",
    .dot_f32 = ts_dot_f32_ref,
    .dot_bf16_f32 = ts_dot_bf16_f32_ref,
    .bf16_to_f32 = ts_bf16_to_f32_ref,
    .dot_f16_f32 = ts_dot_f16_f32_ref,
    .f16_to_f32 = ts_f16_to_f32_ref,
    .qdot_i8_f32 = ts_qdot_i8_f32_ref,
    .qdot_u4_f32 = ts_qdot_u4_f32_ref,
    .dequant_i8_f32 = ts_dequant_i8_f32_ref,
    .dequant_u4_f32 = ts_dequant_u4_f32_ref,
    .qdot_i8_q8 = ts_qdot_i8_q8_ref,
    .qdot_u4_q8 = ts_qdot_u4_q8_ref,
    .quantize_q8 = ts_quantize_q8_ref,
    .gemm_q8_channel = ts_gemm_q8_channel_ref,
    .quantize_weights_q8 = ts_quantize_weights_q8_ref,
    .quantize_weights_q4 = ts_quantize_weights_q4_ref,
    .softmax_f32 = ts_softmax_f32_ref,
    .softmax_bf16 = ts_softmax_bf16_ref,
    .logistic_f32 = ts_logistic_f32_ref,
    .silu_f32 = ts_silu_f32_ref,
    .f32_to_bf16 = ts_f32_to_bf16_ref,
    .pack_u32_panel = ts_pack_u32_panel_ref,
    .weighted_sum_f32 = ts_weighted_sum_f32_ref,
};

#if defined(__x86_64__)
static const ts_kernels avx2 = {
    .level = "avx2",
    .dot_f32 = ts_dot_f32_avx2,
    .dot_bf16_f32 = ts_dot_bf16_f32_avx2,
    .bf16_to_f32 = ts_bf16_to_f32_avx2,
    .dot_f16_f32 = ts_dot_f16_f32_avx2,
    .f16_to_f32 = ts_f16_to_f32_avx2,
    .qdot_i8_f32 = ts_qdot_i8_f32_ref,
    .qdot_u4_f32 = ts_qdot_u4_f32_ref,
    .dequant_i8_f32 = ts_dequant_i8_f32_ref,
    .dequant_u4_f32 = ts_dequant_u4_f32_ref,
    .quantize_weights_q8 = ts_quantize_weights_q8_ref,
    .quantize_weights_q4 = ts_quantize_weights_q4_ref,
    .softmax_f32 = ts_softmax_f32_ref,
    .softmax_bf16 = ts_softmax_bf16_ref,
    .logistic_f32 = ts_logistic_f32_ref,
    .silu_f32 = ts_silu_f32_ref,
    .f32_to_bf16 = ts_f32_to_bf16_ref,
    .pack_u32_panel = ts_pack_u32_panel_ref,
    .weighted_sum_f32 = ts_weighted_sum_f32_ref,
};

/* AVX512_BF16's dots round activations to bf16, so both AVX-512 tables keep the exact f32-activation
 * kernels; AVX512_BF16 adds the bf16 GEMM and decode dots that the bf16 compute policy asks for. */
#define AVX512_KERNELS                                                                             \
    .dot_f32 = ts_dot_f32_avx512, .dot_bf16_f32 = ts_dot_bf16_f32_avx512,                          \
    .bf16_to_f32 = ts_bf16_to_f32_avx512, .dot_f16_f32 = ts_dot_f16_f32_avx512,                    \
    .f16_to_f32 = ts_f16_to_f32_avx512, .gemm_f32 = ts_gemm_f32_avx512,                            \
    .gemm_kn_f32 = ts_gemm_kn_f32_avx512, .gemm_f32_panel = ts_gemm_f32_panel_avx512,              \
    .dot_rows_bf16_f32 = ts_dot_rows_bf16_f32_avx512, .dot_rows_f32 = ts_dot_rows_f32_avx512,    \
    .dot_heads_f32 = ts_dot_heads_f32_avx512,                                                      \
    .dot_pair_bf16_f32 = ts_dot_pair_bf16_f32_avx512, .dot_pair_f32 = ts_dot_pair_f32_avx512,    \
    .dot_tile_bf16_f32 = ts_dot_tile_bf16_f32_avx512, .dot_tile_f32 = ts_dot_tile_f32_avx512,    \
    .qdot_i8_f32 = ts_qdot_i8_f32_avx512, .qdot_u4_f32 = ts_qdot_u4_f32_avx512,                   \
    .dequant_i8_f32 = ts_dequant_i8_f32_avx512, .dequant_u4_f32 = ts_dequant_u4_f32_avx512,         \
    .softmax_f32 = ts_softmax_f32_avx512, .logistic_f32 = ts_logistic_f32_avx512,                 \
    .silu_f32 = ts_silu_f32_avx512,                                                                \
    .pack_u32_panel = ts_pack_u32_panel_avx512,                                                    \
    .weighted_sum_f32 = ts_weighted_sum_f32_avx512,                                               \
    .quantize_weights_q8 = ts_quantize_weights_q8_avx512, .quantize_weights_q4 = ts_quantize_weights_q4_avx512

/* The W8A8 dots need VPDPBUSD; without it (and on AVX2) quantized linears keep f32 activations,
 * as an integer dot of bytes emulated with 16-bit products would not be faster. */
#define VNNI_GEMMS                                                                                 \
    .quantize_q8 = ts_quantize_q8_avx512, .gemm_q8 = ts_gemm_q8_avx512vnni,                     \
    .gemm_q8_channel = ts_gemm_q8_channel_avx512vnni
#define VNNI_KERNELS                                                                               \
    .qdot_i8_q8 = ts_qdot_i8_q8_avx512vnni, .qdot_u4_q8 = ts_qdot_u4_q8_avx512vnni, VNNI_GEMMS
/* Intel's decode dots prefetch the weight stream into L2 (the non-temporal hint, tuned on Zen 5,
 * left a Xeon's q8 decode at about half its read rate): the tables an AMD CPU never takes, the
 * FMA ones and AVX512_VNNI without BF16 (Cascade Lake, Ice Lake). */
#define VNNI_KERNELS_L2                                                                            \
    .qdot_i8_q8 = ts_qdot_i8_q8_avx512vnni_l2, .qdot_u4_q8 = ts_qdot_u4_q8_avx512vnni_l2,          \
    VNNI_GEMMS

/* The bf16 roundings: the integer rule, or VCVTNEPS2BF16 (the same bits) where the CPU has it. */
#define AVX512_ROUNDING .softmax_bf16 = ts_softmax_bf16_avx512, .f32_to_bf16 = ts_f32_to_bf16_avx512
static const ts_kernels avx512 = {.level = "avx512", AVX512_KERNELS, AVX512_ROUNDING};
static const ts_kernels avx512_vnni = {.level = "avx512_vnni", AVX512_KERNELS, AVX512_ROUNDING,
                                       VNNI_KERNELS_L2};
#define BF16_DOTS                                                                                  \
    .dot_bf16_bf16 = ts_dot_bf16_bf16_avx512bf16, .softmax_bf16 = ts_softmax_bf16_avx512bf16,      \
    .f32_to_bf16 = ts_f32_to_bf16_avx512bf16
#define BF16_KERNELS                                                                               \
    .gemm_bf16 = ts_gemm_bf16_avx512bf16, .gemm_bf16_panel = ts_gemm_bf16_panel_avx512bf16,        \
    BF16_DOTS
static const ts_kernels avx512_bf16 = {.level = "avx512_bf16", AVX512_KERNELS, BF16_KERNELS};
static const ts_kernels avx512_bf16_vnni = {.level = "avx512_bf16", AVX512_KERNELS, VNNI_KERNELS, BF16_KERNELS};
/* Intel cores issue VDPBF16PS on one port and FMA on two, so the bf16 policy's many-row products
 * run faster as f32 FMAs on the widened values (a Sapphire-Rapids-class Xeon, one thread:
 * VDPBF16PS 70–80 GFLOP/s at its peak, FMA 165; prefill GEMMs alone 76–80 against 117–128,
 * attention's panels 77–87 against 122–142). Without gemm_bf16_panel, attention packs its
 * rounded keys and values widened to f32 once, for gemm_f32_panel. AMD's Zen 4 runs VDPBF16PS
 * at twice FMA's rate (457 against 227 GFLOP/s on 2 threads) and keeps it. Decode's dots stay on
 * VDPBF16PS: they wait on memory. */
#define BF16_FMA_KERNELS                                                                           \
    .gemm_bf16 = ts_gemm_bf16_fma_avx512, BF16_DOTS
static const ts_kernels avx512_bf16_fma = {.level = "avx512_bf16 (bf16 GEMMs by FMA)",
                                           AVX512_KERNELS, BF16_FMA_KERNELS};
static const ts_kernels avx512_bf16_fma_vnni = {.level = "avx512_bf16 (bf16 GEMMs by FMA)",
                                                AVX512_KERNELS, VNNI_KERNELS_L2, BF16_FMA_KERNELS};

/* "GenuineIntel"; CPUID traps to the hypervisor in a VM, so asked once (race-benign: every
 * thread computes the same value). */
static bool intel_cpu(void)
{
    static volatile int known, intel;
    if (!known) {
        unsigned a, b, c, d;
        intel = __get_cpuid(0, &a, &b, &c, &d) && b == 0x756e6547u && d == 0x49656e69u &&
                c == 0x6c65746eu;
        known = 1;
    }
    return intel;
}
#endif

const ts_kernels *ts_kernels_select(unsigned features)
{
#if defined(__x86_64__)
    bool vnni = features & TS_CPU_AVX512_VNNI;
    if ((features & TS_CPU_AVX512_BF16) && intel_cpu())
        return vnni ? &avx512_bf16_fma_vnni : &avx512_bf16_fma;
    if (features & TS_CPU_AVX512_BF16) return vnni ? &avx512_bf16_vnni : &avx512_bf16;
    if (features & TS_CPU_AVX512) return vnni ? &avx512_vnni : &avx512;
    if (features & TS_CPU_AVX2) return &avx2;
#else
    (void)features;
#endif
    return &portable;
}
