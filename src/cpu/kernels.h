/* kernels.h — the kernel table and its run-time selection by CPU feature.
 *
 * Every kernel has a portable C version (kernels/NAME_ref.c) and optional SIMD siblings
 * (NAME_avx2.c, NAME_avx512.c, NAME_avx512bf16.c) compiled with per-function target attributes,
 * so one binary runs on any x86-64 and non-x86 builds get the portable table only.
 * ts_kernels_select picks, for each entry, the best variant the allowed features permit; the
 * choice is made once (per context) and can be capped to test or to work around a CPU.
 */
#ifndef TS_CPU_KERNELS_H
#define TS_CPU_KERNELS_H

#include "tessera.h"

typedef struct ts_kernels {
    const char *level; /* the highest level any entry uses: "portable", "avx2", … */
    /* sum_i a[i]*b[i] */
    float (*dot_f32)(const float *a, const float *b, size_t n);
    /* sum_i bf16(w[i])*x[i]: the decode matvec inner loop for bf16 weights */
    float (*dot_bf16_f32)(const uint16_t *w, const float *x, size_t n);
    /* sum_i f16(w[i])*x[i] */
    float (*dot_f16_f32)(const uint16_t *w, const float *x, size_t n);
    /* out[r] = the dot of w[0:n] with row r of x (rows ≤ 4, ldx floats apart), each bit-identical
     * to the single dot above: a batched decode step must not change a sequence's result. NULL
     * where only the single dots exist. */
    void (*dot_rows_bf16_f32)(const uint16_t *w, const float *x, size_t ldx, int rows, size_t n, float *out);
    void (*dot_rows_f32)(const float *w, const float *x, size_t ldx, int rows, size_t n, float *out);
    void (*bf16_to_f32)(const uint16_t *src, float *dst, size_t n);
    void (*f16_to_f32)(const uint16_t *src, float *dst, size_t n);
    /* C[:, n0:n1] = A[m, k] · W[n0:n1, :k]ᵀ (W rows ldw apart, C rows ldc apart), many rows;
     * NULL where no tiled kernel exists (callers fall back to dots). `panel`:
     * TS_GEMM_PANEL_FLOATS floats, 64-aligned. */
    void (*gemm_f32)(const float *a, int64_t m, int64_t k, const void *w, ts_dtype w_dtype, int64_t ldw, int64_t n0,
                     int64_t n1, float *c, int64_t ldc, float *panel);
    /* The same with W as [k, n] (rows ldw apart): C[:, n0:n1] = A[m, k] · W[:k, n0:n1], the x·W
     * layout of fused MoE expert weights, without a transposed copy; each element bit for bit the
     * plain loop acc += a·w over k in order (products rounded, no FMA). NULL with gemm_f32. */
    void (*gemm_kn_f32)(const float *a, int64_t m, int64_t k, const void *w, ts_dtype w_dtype,
                        int64_t ldw, int64_t n0, int64_t n1, float *c, int64_t ldc, float *panel);
    /* The same with A and W in bf16 and f32 accumulation (VDPBF16PS); k even. NULL without
     * AVX512_BF16. */
    void (*gemm_bf16)(const uint16_t *a, int64_t m, int64_t k, const uint16_t *w, int64_t n0, int64_t n1,
                      float *c, int64_t ldc, float *panel);
    /* Quantized row dots for ts_graph_qlinear's weights (i8, or u8 holding two 4-bit values, low
     * nibble first): Σ over blocks b of scale[b] · Σ_{j in b} (q[j] − zero[b]) · x[j], n channels
     * in blocks of `block` (which divides n; even for 4-bit). Scales and zero points widened to
     * f32 by the caller. Never NULL. */
    float (*qdot_i8_f32)(const int8_t *q, const float *x, size_t n, size_t block, const float *scale, const float *zero);
    float (*qdot_u4_f32)(const uint8_t *q, const float *x, size_t n, size_t block, const float *scale, const float *zero);
    /* dst[j] = (q[j] − zero[j / block]) · scale[j / block] in f32 for a row of n: the
     * decomposition's dequantization, bit for bit in every variant (one rounding). Never NULL. */
    void (*dequant_i8_f32)(const int8_t *q, size_t n, size_t block, const float *scale, const float *zero, float *dst);
    void (*dequant_u4_f32)(const uint8_t *q, size_t n, size_t block, const float *scale, const float *zero, float *dst);
} ts_kernels;

#define TS_GEMM_PANEL_FLOATS (256 * 32)
#define TS_GEMM_COLUMNS 32 /* split output columns between threads in multiples of this */

/* Best table for `features` (a TS_CPU_* mask; pass ts_cpu_features() for all detected). */
const ts_kernels *ts_kernels_select(unsigned features);

/* Portable references, also used by tests to check the SIMD variants. */
float ts_dot_f32_ref(const float *a, const float *b, size_t n);
float ts_dot_bf16_f32_ref(const uint16_t *w, const float *x, size_t n);
void ts_bf16_to_f32_ref(const uint16_t *src, float *dst, size_t n);
float ts_dot_f16_f32_ref(const uint16_t *w, const float *x, size_t n);
void ts_f16_to_f32_ref(const uint16_t *src, float *dst, size_t n);
float ts_f16_to_f32_scalar(uint16_t h);
float ts_qdot_i8_f32_ref(const int8_t *q, const float *x, size_t n, size_t block, const float *scale, const float *zero);
float ts_qdot_u4_f32_ref(const uint8_t *q, const float *x, size_t n, size_t block, const float *scale, const float *zero);
void ts_dequant_i8_f32_ref(const int8_t *q, size_t n, size_t block, const float *scale, const float *zero, float *dst);
void ts_dequant_u4_f32_ref(const uint8_t *q, size_t n, size_t block, const float *scale, const float *zero, float *dst);

#if defined(__x86_64__)
float ts_dot_f32_avx2(const float *a, const float *b, size_t n);
float ts_dot_bf16_f32_avx2(const uint16_t *w, const float *x, size_t n);
void ts_bf16_to_f32_avx2(const uint16_t *src, float *dst, size_t n);
float ts_dot_f32_avx512(const float *a, const float *b, size_t n);
float ts_dot_bf16_f32_avx512(const uint16_t *w, const float *x, size_t n);
void ts_bf16_to_f32_avx512(const uint16_t *src, float *dst, size_t n);
void ts_dot_rows_bf16_f32_avx512(const uint16_t *w, const float *x, size_t ldx, int rows, size_t n, float *out);
void ts_dot_rows_f32_avx512(const float *w, const float *x, size_t ldx, int rows, size_t n, float *out);
float ts_dot_f16_f32_avx2(const uint16_t *w, const float *x, size_t n);
void ts_f16_to_f32_avx2(const uint16_t *src, float *dst, size_t n);
float ts_dot_f16_f32_avx512(const uint16_t *w, const float *x, size_t n);
void ts_f16_to_f32_avx512(const uint16_t *src, float *dst, size_t n);
void ts_gemm_f32_avx512(const float *a, int64_t m, int64_t k, const void *w, ts_dtype w_dtype, int64_t ldw, int64_t n0,
                        int64_t n1, float *c, int64_t ldc, float *panel);
void ts_gemm_kn_f32_avx512(const float *a, int64_t m, int64_t k, const void *w, ts_dtype w_dtype,
                           int64_t ldw, int64_t n0, int64_t n1, float *c, int64_t ldc,
                           float *panel);
void ts_gemm_bf16_avx512bf16(const uint16_t *a, int64_t m, int64_t k, const uint16_t *w, int64_t n0, int64_t n1,
                             float *c, int64_t ldc, float *panel);
float ts_dot_bf16_f32_avx512bf16(const uint16_t *w, const float *x, size_t n);
float ts_qdot_i8_f32_avx512(const int8_t *q, const float *x, size_t n, size_t block, const float *scale, const float *zero);
float ts_qdot_u4_f32_avx512(const uint8_t *q, const float *x, size_t n, size_t block, const float *scale, const float *zero);
void ts_dequant_i8_f32_avx512(const int8_t *q, size_t n, size_t block, const float *scale, const float *zero, float *dst);
void ts_dequant_u4_f32_avx512(const uint8_t *q, size_t n, size_t block, const float *scale, const float *zero, float *dst);
#endif

/* Asks the kernel for AMX tile state (arch_prctl ARCH_REQ_XCOMP_PERM); without it the first tile
 * instruction raises SIGILL. Idempotent. TS_ERR_UNSUPPORTED when the CPU or kernel refuses. */
ts_status ts_amx_request_permission(ts_error *err);

#endif
