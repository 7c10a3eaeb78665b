/* qdot_ref.c — portable quantized row dots (the reference the SIMD variants are tested against).
 *
 * Each block's weights are centred exactly, (q − zero) is a small integer held exactly in f32,
 * multiplied by x and summed in f32; the block's sum is then scaled once. That is the
 * decomposition's (q − zero)·scale·x with the scale factored out of the block's sum.
 */
#include "cpu/kernels.h"

float ts_qdot_i8_f32_ref(const int8_t *q, const float *x, size_t n, size_t block, const float *scale,
                         const float *zero)
{
    float total = 0.0f;
    for (size_t b0 = 0, bi = 0; b0 < n; b0 += block, bi++) {
        float acc = 0.0f;
        for (size_t j = b0; j < b0 + block; j++) acc += ((float)q[j] - zero[bi]) * x[j];
        total += acc * scale[bi];
    }
    return total;
}

float ts_qdot_u4_f32_ref(const uint8_t *q, const float *x, size_t n, size_t block, const float *scale,
                         const float *zero)
{
    float total = 0.0f;
    for (size_t b0 = 0, bi = 0; b0 < n; b0 += block, bi++) {
        float acc = 0.0f;
        for (size_t j = b0; j < b0 + block; j++) {
            unsigned v = j % 2 ? q[j / 2] >> 4 : q[j / 2] & 15u;
            acc += ((float)v - zero[bi]) * x[j];
        }
        total += acc * scale[bi];
    }
    return total;
}

void ts_dequant_i8_f32_ref(const int8_t *q, size_t n, size_t block, const float *scale, const float *zero, float *dst)
{
    for (size_t j = 0; j < n; j++) dst[j] = ((float)q[j] - zero[j / block]) * scale[j / block];
}

void ts_dequant_u4_f32_ref(const uint8_t *q, size_t n, size_t block, const float *scale, const float *zero, float *dst)
{
    for (size_t j = 0; j < n; j++) {
        unsigned v = j % 2 ? q[j / 2] >> 4 : q[j / 2] & 15u;
        dst[j] = ((float)v - zero[j / block]) * scale[j / block];
    }
}
