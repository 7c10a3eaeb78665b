/* qdot_ref.c — portable quantized row dots (the reference the SIMD variants are tested against).
 *
 * Each block's weights are centred exactly, (q − zero) is a small integer held exactly in f32,
 * multiplied by x and summed in f32; the block's sum is then scaled once. That is the
 * decomposition's (q − zero)·scale·x with the scale factored out of the block's sum.
 */
#include "cpu/kernels.h"

#include <math.h>

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

/* W8A8 (kernels.h: ts_q8_act). Quantization is the one rounding of the activations; the chunk
 * sums that follow are exact integers, so every variant differs only in how the f32 products of
 * those sums and their scales are added. */

void ts_quantize_q8_ref(const float *x, size_t n, size_t block, bool u4, int8_t *q, float *d,
                        int32_t *xs)
{
    for (size_t b = 0; b < n; b += block) {
        float amax = 0.0f;
        for (size_t j = b; j < b + block; j++)
            amax = fmaxf(amax, fabsf(x[j]));
        float db = amax / 127.0f, id = db != 0.0f ? 1.0f / db : 0.0f;
        for (size_t j = b; j < b + block; j++) {
            /* fmaxf first: a NaN becomes −127, as the vector max does */
            float v = nearbyintf(fminf(fmaxf(x[j] * id, -127.0f), 127.0f));
            q[u4 ? ts_q8_u4_position(j, n) : j] = (int8_t)v;
            d[j / 32] = db;
        }
    }
    int32_t offset = u4 ? 8 : 128;
    for (size_t l = 0; l < n / 4; l++)
        xs[l] = -offset * (q[4 * l] + q[4 * l + 1] + q[4 * l + 2] + q[4 * l + 3]);
}

/* Chunk c's weight scale: f32, or f16 when `half`. */
static float scale_at(const void *scale, bool half, size_t c)
{
    return half ? ts_f16_to_f32_scalar(((const uint16_t *)scale)[c]) : ((const float *)scale)[c];
}

/* One weight row (the public entries loop over nw of them). */
static void i8_q8_row(const int8_t *q, const ts_q8_act *x, int rows, size_t n, const void *scale,
                      bool half, float *out, size_t ldo)
{
    for (int r = 0; r < rows; r++) {
        const int8_t *xq = x->q + (size_t)r * x->ld;
        const float *d = x->d + (size_t)r * (x->ld / 32);
        float total = 0.0f;
        for (size_t c = 0; c * 32 < n; c++) {
            int32_t sum = 0;
            for (size_t j = c * 32; j < c * 32 + 32; j++)
                sum += (int32_t)q[j] * xq[j];
            total += scale_at(scale, half, c) * d[c] * (float)sum;
        }
        out[(size_t)r * ldo] = total;
    }
}

static void u4_q8_row(const uint8_t *q, const ts_q8_act *x, int rows, size_t n, const void *scale,
                      bool half, const float *zero, float *out, size_t ldo)
{
    for (int r = 0; r < rows; r++) {
        const int8_t *xq = x->q + (size_t)r * x->ld;
        const float *d = x->d + (size_t)r * (x->ld / 32);
        float total = 0.0f;
        for (size_t c = 0; c * 32 < n; c++) {
            int32_t sum = 0, z = zero ? (int32_t)zero[c] : 8;
            for (size_t j = c * 32; j < c * 32 + 32; j++) {
                int32_t v = j % 2 ? q[j / 2] >> 4 : q[j / 2] & 15;
                sum += (v - z) * xq[ts_q8_u4_position(j, n)];
            }
            total += scale_at(scale, half, c) * d[c] * (float)sum;
        }
        out[(size_t)r * ldo] = total;
    }
}

void ts_qdot_i8_q8_ref(const int8_t *q, size_t nw, const ts_q8_act *x, int rows, size_t n,
                       const void *scale, bool half, float *out, size_t ldo)
{
    for (size_t w = 0; w < nw; w++)
        i8_q8_row(q + w * n, x, rows, n, ts_q8_row_scales(scale, half, w, n), half, out + w, ldo);
}

void ts_qdot_u4_q8_ref(const uint8_t *q, size_t nw, const ts_q8_act *x, int rows, size_t n,
                       const void *scale, bool half, const float *zero, float *out, size_t ldo)
{
    for (size_t w = 0; w < nw; w++)
        u4_q8_row(q + w * (n / 2), x, rows, n, ts_q8_row_scales(scale, half, w, n), half,
                  zero ? zero + w * (n / 32) : NULL, out + w, ldo);
}

void ts_gemm_q8_channel_ref(const ts_q8_act *x, const int32_t *xsum, int64_t m, size_t k,
                            const uint8_t *panel, const float *scale, int cols, const float *bias,
                            float *c, int64_t ldc)
{
    for (int64_t r = 0; r < m; r++) {
        const int8_t *xq = x->q + (size_t)r * x->ld;
        float d = x->d[(size_t)r * (x->ld / 32)];
        for (int i = 0; i < cols; i++) { /* panels of TS_Q8_PANEL weight rows, k·32 bytes each */
            const uint8_t *p = panel + (size_t)(i / TS_Q8_PANEL) * TS_Q8_PANEL * k;
            int32_t sum = -128 * xsum[r];
            for (size_t j = 0; j < k; j++)
                sum += (int32_t)p[((j / 4) * TS_Q8_PANEL + (size_t)(i % TS_Q8_PANEL)) * 4 + j % 4] *
                       xq[j];
            float y = (float)sum * (scale[i] * d);
            c[r * ldc + i] = bias ? y + bias[i] : y;
        }
    }
}
