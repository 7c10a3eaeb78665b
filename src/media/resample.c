/* resample.c — PIL's separable convolution resize for RGB8, reproduced byte for byte.
 *
 * Pillow (src/libImaging/Resample.c) computes per output index a window [first, first+count) of
 * source pixels and double weights normalised to sum 1, turns the weights into 22-bit fixed point,
 * and accumulates integer products starting from half a unit. The horizontal pass runs first, over
 * only the source rows the vertical pass will read; a pass whose size does not change is skipped.
 * Any deviation (float weights, another rounding, the other pass order) changes some bytes, so
 * each of those choices is kept here.
 */
#include "media/resample.h"

#include "base/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 8 bits of pixel, 1 sign bit and 1 bit of headroom for kernels whose partial sums exceed 1. */
#define PRECISION_BITS 22

typedef struct filter {
    double (*weight)(double x);
    double support; /* half-width of the kernel at scale 1 */
} filter;

static double bilinear_weight(double x)
{
    if (x < 0.0) x = -x;
    return x < 1.0 ? 1.0 - x : 0.0;
}

/* Keys' cubic convolution with a = -0.5, written in the same nesting as Pillow so the double
 * results (and hence the rounded fixed-point weights) agree to the last bit. */
static double bicubic_weight(double x)
{
    const double a = -0.5;
    if (x < 0.0) x = -x;
    if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
    if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
    return 0.0;
}

/* Weights of one pass: output index i reads `count[i]` source pixels from `first[i]`, with
 * fixed-point weights coeff[i·taps …]. */
typedef struct pass_plan {
    int taps;
    int bits; /* fixed-point fraction bits of coeff */
    int *first;
    int *count;
    int32_t *coeff;
} pass_plan;

static void plan_free(pass_plan *p)
{
    free(p->first);
    free(p->count);
    free(p->coeff);
    memset(p, 0, sizeof(*p));
}

/* torch's uint8 antialias kernel (_compute_index_ranges_int16_weights) stores the same normalised
 * weights as int16 with as many fraction bits as the pass's largest weight allows (< 2^15). */
static int torch_int16_bits(const double *w, size_t n)
{
    double wmax = n ? w[0] : 0.0;
    for (size_t i = 1; i < n; i++)
        if (wmax < w[i]) wmax = w[i];
    int bits;
    for (bits = 0; bits < 22; bits++)
        if ((int)(0.5 + wmax * (1 << (bits + 1))) >= (1 << 15)) break;
    return bits;
}

/* torch_bits: the int16 precision of torch's kernel instead of Pillow's 22 bits. */
static ts_status plan_pass(int in_size, int out_size, const filter *f, bool torch_bits, pass_plan *p,
                           ts_error *err)
{
    memset(p, 0, sizeof(*p));
    /* Pillow takes the box edges as float and subtracts them in float before widening. */
    float in0 = 0.0f, in1 = (float)in_size;
    double scale = (double)(in1 - in0) / out_size;
    double filterscale = scale < 1.0 ? 1.0 : scale;
    double support = f->support * filterscale;
    p->taps = (int)ceil(support) * 2 + 1;
    size_t n = (size_t)out_size * (size_t)p->taps;
    p->first = malloc((size_t)out_size * sizeof(int));
    p->count = malloc((size_t)out_size * sizeof(int));
    p->coeff = malloc(n * sizeof(int32_t));
    double *w = malloc(n * sizeof(double));
    if (!p->first || !p->count || !p->coeff || !w) {
        free(w);
        plan_free(p);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "resample: no memory for %zu weights", n);
    }
    double inv = 1.0 / filterscale;
    for (int i = 0; i < out_size; i++) {
        double center = in0 + (i + 0.5) * scale;
        /* (int) truncates toward zero, as in Pillow; negative starts are then clamped to 0. */
        int lo = (int)(center - support + 0.5);
        if (lo < 0) lo = 0;
        int hi = (int)(center + support + 0.5);
        if (hi > in_size) hi = in_size;
        int count = hi - lo;
        double sum = 0.0, *wi = w + (size_t)i * p->taps;
        for (int x = 0; x < count; x++) {
            wi[x] = f->weight((x + lo - center + 0.5) * inv);
            sum += wi[x];
        }
        for (int x = 0; x < p->taps; x++)
            wi[x] = x < count ? (sum != 0.0 ? wi[x] / sum : wi[x]) : 0.0;
        p->first[i] = lo;
        p->count[i] = count;
    }
    p->bits = torch_bits ? torch_int16_bits(w, n) : PRECISION_BITS;
    for (size_t j = 0; j < n; j++) {
        /* Round half away from zero, then truncate: Pillow's normalize_coeffs_8bpc (torch's too). */
        double v = w[j] * (1 << p->bits);
        p->coeff[j] = (int32_t)(v < 0 ? -0.5 + v : 0.5 + v);
    }
    free(w);
    return TS_OK;
}

/* Accumulators are int32 as in Pillow: normalised bilinear/bicubic weights keep every partial sum
 * below 255·1.2·2^22 + 2^21 < 2^31. */
static inline uint8_t clip8(int32_t acc, int bits)
{
    if (acc < 0) return 0;
    int32_t v = acc >> bits;
    return v > 255 ? 255 : (uint8_t)v;
}

/* Rows [row0, row0+rows) of src (width in_w) → `rows` rows of dst (width out_w). */
static void horizontal(const uint8_t *src, int in_w, int row0, int rows, uint8_t *dst, int out_w,
                       const pass_plan *p)
{
    for (int y = 0; y < rows; y++) {
        const uint8_t *s = src + ((size_t)(row0 + y) * in_w) * 3;
        uint8_t *d = dst + (size_t)y * out_w * 3;
        for (int x = 0; x < out_w; x++) {
            const int32_t *k = p->coeff + (size_t)x * p->taps;
            const uint8_t *px = s + (size_t)p->first[x] * 3;
            int32_t a0 = 1 << (p->bits - 1), a1 = a0, a2 = a0;
            for (int t = 0; t < p->count[x]; t++) {
                a0 += px[3 * t + 0] * k[t];
                a1 += px[3 * t + 1] * k[t];
                a2 += px[3 * t + 2] * k[t];
            }
            d[3 * x + 0] = clip8(a0, p->bits);
            d[3 * x + 1] = clip8(a1, p->bits);
            d[3 * x + 2] = clip8(a2, p->bits);
        }
    }
}

/* src rows are numbered from `row0` of the original image (the horizontal pass dropped the rows
 * before it). */
static void vertical(const uint8_t *src, int width, int row0, uint8_t *dst, int out_h,
                     const pass_plan *p, int32_t *acc)
{
    size_t stride = (size_t)width * 3;
    for (int y = 0; y < out_h; y++) {
        const int32_t *k = p->coeff + (size_t)y * p->taps;
        const uint8_t *s = src + (size_t)(p->first[y] - row0) * stride;
        uint8_t *d = dst + (size_t)y * stride;
        /* Tap-major over a row of accumulators: the same sums in the same order, read row by row.
         */
        for (size_t c = 0; c < stride; c++)
            acc[c] = 1 << (p->bits - 1);
        for (int t = 0; t < p->count[y]; t++) {
            const uint8_t *row = s + (size_t)t * stride;
            for (size_t c = 0; c < stride; c++)
                acc[c] += row[c] * k[t];
        }
        for (size_t c = 0; c < stride; c++)
            d[c] = clip8(acc[c], p->bits);
    }
}

static ts_status resample(const uint8_t *src, int width, int height, uint8_t *dst, int out_width,
                          int out_height, ts_resample_filter filter_id, bool torch_bits, ts_error *err)
{
    static const filter bilinear = {bilinear_weight, 1.0};
    static const filter bicubic = {bicubic_weight, 2.0};
    const filter *f = filter_id == TS_RESAMPLE_BILINEAR  ? &bilinear
                      : filter_id == TS_RESAMPLE_BICUBIC ? &bicubic
                                                         : NULL;
    if (!f)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "resample: filter %d is not supported (2 bilinear, 3 bicubic)",
                            (int)filter_id);
    if (width <= 0 || height <= 0 || out_width <= 0 || out_height <= 0)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "resample: %dx%d -> %dx%d: sizes must be > 0", width, height, out_width,
                            out_height);
    /* Float box edges are exact only below 2^24; keep far inside that. */
    const int limit = 1 << 20;
    if (width > limit || height > limit || out_width > limit || out_height > limit)
        return ts_error_set(err, TS_ERR_RANGE, "resample: %dx%d -> %dx%d: sides above %d pixels",
                            width, height, out_width, out_height, limit);
    bool need_h = out_width != width, need_v = out_height != height;
    if (!need_h && !need_v) {
        memcpy(dst, src, (size_t)width * height * 3);
        return TS_OK;
    }
    pass_plan vp = {0}, hp = {0};
    uint8_t *tmp = NULL;
    int32_t *acc = NULL;
    ts_status st = TS_OK;
    if (need_v && (st = plan_pass(height, out_height, f, torch_bits, &vp, err))) return st;
    const uint8_t *mid = src;
    int row0 = 0;
    if (need_h) {
        /* Only the rows the vertical pass reads are resampled horizontally. */
        int rows = height;
        if (need_v) {
            row0 = vp.first[0];
            rows = vp.first[out_height - 1] + vp.count[out_height - 1] - row0;
        }
        if ((st = plan_pass(width, out_width, f, torch_bits, &hp, err))) goto done;
        uint8_t *out = dst;
        if (need_v) {
            tmp = malloc((size_t)out_width * rows * 3);
            if (!tmp) {
                st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "resample: no memory for %dx%d",
                                  out_width, rows);
                goto done;
            }
            out = tmp;
        }
        horizontal(src, width, row0, rows, out, out_width, &hp);
        mid = tmp;
    }
    if (need_v) {
        acc = malloc((size_t)out_width * 3 * sizeof(int32_t));
        if (!acc) {
            st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "resample: no memory for a %d-pixel row",
                              out_width);
            goto done;
        }
        vertical(mid, out_width, row0, dst, out_height, &vp, acc);
    }
done:
    free(acc);
    free(tmp);
    plan_free(&hp);
    plan_free(&vp);
    return st;
}

ts_status ts_resample_rgb8(const uint8_t *src, int width, int height, uint8_t *dst, int out_width,
                           int out_height, ts_resample_filter filter, ts_error *err)
{
    return resample(src, width, height, dst, out_width, out_height, filter, false, err);
}

ts_status ts_resample_rgb8_torch(const uint8_t *src, int width, int height, uint8_t *dst,
                                 int out_width, int out_height, ts_resample_filter filter,
                                 ts_error *err)
{
    return resample(src, width, height, dst, out_width, out_height, filter, true, err);
}
