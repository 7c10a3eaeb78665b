/* dot_ref.c — portable dot products and bf16 widening: the reference for every SIMD variant. */
#include "cpu/kernels.h"

#include <string.h>

static inline float bf16_to_f32(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

float ts_dot_f32_ref(const float *a, const float *b, size_t n)
{
    /* Four partial sums: the same association the SIMD versions approximate, and faster. */
    float s[4] = {0, 0, 0, 0};
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++) s[k] += a[i + k] * b[i + k];
    for (; i < n; i++) s[0] += a[i] * b[i];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

float ts_dot_bf16_f32_ref(const uint16_t *w, const float *x, size_t n)
{
    float s[4] = {0, 0, 0, 0};
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++) s[k] += bf16_to_f32(w[i + k]) * x[i + k];
    for (; i < n; i++) s[0] += bf16_to_f32(w[i]) * x[i];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

void ts_bf16_to_f32_ref(const uint16_t *src, float *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) dst[i] = bf16_to_f32(src[i]);
}

float ts_f16_to_f32_scalar(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: shift the mantissa up until the implicit bit appears */
            uint32_t e = 113;
            while (!(man & 0x400)) {
                man <<= 1;
                e--;
            }
            bits = sign | (e << 23) | ((man & 0x3ff) << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000 | (man << 13);
    } else {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

float ts_dot_f16_f32_ref(const uint16_t *w, const float *x, size_t n)
{
    float s[4] = {0, 0, 0, 0};
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++) s[k] += ts_f16_to_f32_scalar(w[i + k]) * x[i + k];
    for (; i < n; i++) s[0] += ts_f16_to_f32_scalar(w[i]) * x[i];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

void ts_f16_to_f32_ref(const uint16_t *src, float *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) dst[i] = ts_f16_to_f32_scalar(src[i]);
}

/* VDPBF16PS's arithmetic on one f32 lane: inputs with a zero exponent read as zero (DAZ), each
 * product exact (8 × 8 significant bits), added in round-to-nearest-even with a subnormal result
 * flushed to zero (FTZ), the odd element of the pair first. */
static inline float bf16_daz(uint16_t h) { return (h & 0x7f80) ? bf16_to_f32(h) : bf16_to_f32(h & 0x8000); }

static inline float ftz(float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof(bits));
    if (!(bits & 0x7f800000)) bits &= 0x80000000u;
    memcpy(&v, &bits, sizeof(v));
    return v;
}

float ts_dot_bf16_bf16_ref(const uint16_t *w, const uint16_t *x, size_t n)
{
    /* The two chains of 16 lanes (kernels.h: chain 0 the first 32 values of every 64 and the
     * tail, chain 1 the second 32), a lane holding a pair of consecutive values. */
    float lane[2][16] = {{0}};
    size_t full = n / 64 * 64;
    for (size_t i = 0; i < n; i += 32) {
        int chain = i < full ? (int)(i / 32 % 2) : 0;
        for (size_t l = 0; l < 16; l++)
            for (size_t e = 2; e-- > 0;) {
                size_t j = i + 2 * l + e;
                if (j < n) lane[chain][l] = ftz(lane[chain][l] + bf16_daz(w[j]) * bf16_daz(x[j]));
            }
    }
    /* Added and reduced as _mm512_reduce_add_ps does: halves, quarters, pairs. */
    float v[16];
    for (int l = 0; l < 16; l++) v[l] = lane[0][l] + lane[1][l];
    for (int half = 8; half >= 1; half /= 2)
        for (int l = 0; l < half; l++) v[l] = v[l] + v[l + half];
    return v[0];
}

void ts_weighted_sum_f32_ref(const float *p, size_t ldp, int heads, size_t count, const float *v, size_t ldv, size_t n,
                             float *out, size_t ldo)
{
    for (int h = 0; h < heads; h++) {
        float *o = out + (size_t)h * ldo;
        const float *ph = p + (size_t)h * ldp;
        for (size_t c = 0; c < n; c++) o[c] = 0.0f;
        for (size_t t = 0; t < count; t++)
            for (size_t c = 0; c < n; c++) {
                float product = ph[t] * v[t * ldv + c];
                o[c] += product;
            }
    }
}
