/* quant_ref.c — the load-time weight quantizer's rules (engine/quantized_weights.h) in portable
 * C: the definition the vector variants must equal byte for byte, and ts_f32_to_f16. */
#include "cpu/kernels.h"

#include <math.h>
#include <string.h>

uint16_t ts_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, e = (x >> 23) & 0xffu, m = x & 0x7fffffu;
    if (e == 0xff) return (uint16_t)(sign | 0x7c00u | (m ? 0x200u : 0)); /* inf, NaN */
    int exp = (int)e - 127 + 15;
    if (exp >= 31) return (uint16_t)(sign | 0x7c00u);
    if (exp <= 0) { /* subnormal or zero in f16 */
        if (exp < -10) return (uint16_t)sign;
        m |= 0x800000u;
        int shift = 14 - exp; /* 24-bit mantissa down to the f16 subnormal step */
        uint32_t half = m >> shift, rest = m & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1))) half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = sign | ((uint32_t)exp << 10) | (m >> 13), rest = m & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1))) half++; /* may carry into the exponent: still right */
    return (uint16_t)half;
}

/* round(v) half away from zero (C's roundf) for |v| < 2^31 (x / d stays within ±254 here); a
 * NaN (a NaN weight) gives 0. */
static inline float round_away(float v)
{
    if (!(v == v)) return 0.0f;
    float t = (float)(int32_t)v; /* toward zero; v − t is exact */
    float frac = v - t;
    return frac >= 0.5f ? t + 1.0f : frac <= -0.5f ? t - 1.0f : t;
}

void ts_quantize_weights_q8_ref(const float *w, size_t n, size_t block, int8_t *q,
                                uint16_t *scale)
{
    for (size_t b = 0; b < n / block; b++) {
        const float *x = w + b * block;
        float amax = 0.0f;
        for (size_t j = 0; j < block; j++) {
            float a = fabsf(x[j]);
            amax = a > amax ? a : amax; /* fmaxf's result: a NaN is passed over */
        }
        scale[b] = ts_f32_to_f16(amax / 127.0f);
        float d = ts_f16_to_f32_scalar(scale[b]);
        for (size_t j = 0; j < block; j++) {
            float v = d > 0.0f ? round_away(x[j] / d) : 0.0f;
            q[b * block + j] = (int8_t)(v > 127.0f ? 127 : v < -127.0f ? -127 : v);
        }
    }
}

void ts_quantize_weights_q4_ref(const float *w, size_t n, uint8_t *q, uint16_t *scale)
{
    for (size_t b = 0; b < n / 32; b++) {
        const float *x = w + b * 32;
        float m = 0.0f;
        for (int j = 0; j < 32; j++)
            if (fabsf(x[j]) > fabsf(m)) m = x[j];
        scale[b] = ts_f32_to_f16(m / -8.0f + 0.0f); /* + 0: an all-zero block gets +0, not −0 */
        float d = ts_f16_to_f32_scalar(scale[b]);
        uint8_t *out = q + b * 32 / 2;
        for (int j = 0; j < 32; j += 2) {
            unsigned pair[2];
            for (int k = 0; k < 2; k++) {
                float v = d != 0.0f ? round_away(x[j + k] / d) : 0.0f;
                pair[k] = (unsigned)((v > 7.0f ? 7 : v < -8.0f ? -8 : (int)v) + 8);
            }
            out[j / 2] = (uint8_t)(pair[0] | pair[1] << 4);
        }
    }
}

