/* qwen_vl_processor.c — Qwen2VLImageProcessor._preprocess for one image, slow (PIL) path.
 *
 * Reference: transformers @130f1644 models/qwen2_vl/image_processing_qwen2_vl.py (the research
 * note reference-semantics.md §1, §2). One image is one frame repeated to temporal_patch_size, so
 * the temporal copies are identical and are all written from the same normalised plane.
 */
#include "models/qwen2_vl/qwen_vl_processor.h"

#include "base/error.h"
#include "loader/processor_class.h"
#include "media/pixel_normalize.h"
#include "media/resample.h"

#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Resized images above this are refused rather than allocated: 2^26 pixels (about 800 MB of
 * pixel values) is five times the largest shipped max_pixels. */
#define MAX_RESIZED_PIXELS ((int64_t)1 << 26)

/* Python's round() on a float: ties go to the even integer. */
static double round_half_even(double x)
{
    int saved = fegetround();
    fesetround(FE_TONEAREST);
    double r = nearbyint(x);
    fesetround(saved);
    return r;
}

ts_status ts_qwen_smart_resize(int64_t height, int64_t width, int64_t factor, int64_t min_pixels,
                               int64_t max_pixels, int64_t *out_height, int64_t *out_width,
                               ts_error *err)
{
    if (height <= 0 || width <= 0)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "smart_resize: image %lldx%lld is empty",
                            (long long)width, (long long)height);
    if (factor <= 0)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "smart_resize: factor %lld must be > 0",
                            (long long)factor);
    if (min_pixels <= 0 || max_pixels < min_pixels)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "smart_resize: pixel budget min %lld, max %lld: need 0 < min <= max",
                            (long long)min_pixels, (long long)max_pixels);
    double h = (double)height, w = (double)width, f = (double)factor;
    double aspect = (h > w ? h : w) / (h < w ? h : w);
    if (aspect > 200)
        return ts_error_set(
            err, TS_ERR_RANGE,
            "smart_resize: image %lldx%lld has aspect ratio %.2f; it must be at most "
            "200",
            (long long)width, (long long)height, aspect);
    double hb = round_half_even(h / f) * f;
    double wb = round_half_even(w / f) * f;
    if (hb * wb > (double)max_pixels) {
        /* Two successive float64 divisions, as the reference writes height / beta / factor. */
        double beta = sqrt(h * w / (double)max_pixels);
        hb = floor(h / beta / f) * f;
        wb = floor(w / beta / f) * f;
        /* The pinned commit keeps at least one factor per side. */
        if (hb < f) hb = f;
        if (wb < f) wb = f;
    } else if (hb * wb < (double)min_pixels) {
        double beta = sqrt((double)min_pixels / (h * w));
        hb = ceil(h * beta / f) * f;
        wb = ceil(w * beta / f) * f;
    }
    if (hb > 4e9 || wb > 4e9)
        return ts_error_set(err, TS_ERR_RANGE, "smart_resize: image %lldx%lld resizes to %.0fx%.0f",
                            (long long)width, (long long)height, wb, hb);
    *out_height = (int64_t)hb;
    *out_width = (int64_t)wb;
    return TS_OK;
}

ts_status ts_qwen_vl_preprocess(const ts_preprocessor_config *cfg, const uint8_t *rgb, int width,
                                int height, const ts_image_budget *budget, ts_pixel_values *out,
                                ts_error *err)
{
    const int64_t P = cfg->patch_size, T = cfg->temporal_patch_size, m = cfg->merge_size;
    if (P <= 0 || T <= 0 || m <= 0 || P > 1024 || T > 64 || m > 64)
        return ts_error_set(
            err, TS_ERR_INVALID_ARGUMENT,
            "Qwen-VL processor: patch_size %lld, temporal_patch_size %lld, merge_size "
            "%lld out of range",
            (long long)P, (long long)T, (long long)m);
    int64_t min_pixels = budget && budget->min_pixels ? budget->min_pixels : cfg->min_pixels;
    int64_t max_pixels = budget && budget->max_pixels ? budget->max_pixels : cfg->max_pixels;
    int64_t rh = height, rw = width;
    ts_status st;
    if (cfg->do_resize) {
        if ((st =
                 ts_qwen_smart_resize(height, width, P * m, min_pixels, max_pixels, &rh, &rw, err)))
            return st;
    } else if (height % (P * m) || width % (P * m)) {
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "Qwen-VL processor: do_resize is false but the image %dx%d is not a "
                            "multiple of patch_size·merge_size = %lld",
                            width, height, (long long)(P * m));
    }
    if (rh * rw > MAX_RESIZED_PIXELS)
        return ts_error_set(
            err, TS_ERR_RANGE,
            "Qwen-VL processor: image %dx%d resizes to %lldx%lld (min_pixels %lld), "
            "more than %lld pixels; lower min_pixels",
            width, height, (long long)rw, (long long)rh, (long long)min_pixels,
            (long long)MAX_RESIZED_PIXELS);
    const int H = (int)rh, W = (int)rw;
    uint8_t *resized = malloc((size_t)W * H * 3);
    float *planes = malloc((size_t)W * H * 3 * sizeof(float));
    const int64_t gh = H / P, gw = W / P, row = 3 * T * P * P;
    float *data = malloc((size_t)(gh * gw) * (size_t)row * sizeof(float));
    if (!resized || !planes || !data) {
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY,
                          "Qwen-VL processor: no memory for a %dx%d image", W, H);
        goto fail;
    }
    if ((st = ts_resample_rgb8(rgb, width, height, resized, W, H, TS_RESAMPLE_BICUBIC, err)))
        goto fail;
    ts_pixel_normalize_chw(cfg, resized, W, H, planes);

    /* Rows: (block row, block col, row in block, col in block); columns: (channel, temporal
     * copy, pixel row, pixel col) — the reference's permute (0, 3, 6, 4, 7, 2, 1, 5, 8). */
    float *dst = data;
    const size_t plane = (size_t)W * H;
    for (int64_t by = 0; by < gh / m; by++)
        for (int64_t bx = 0; bx < gw / m; bx++)
            for (int64_t iy = 0; iy < m; iy++)
                for (int64_t ix = 0; ix < m; ix++) {
                    const int64_t y0 = (by * m + iy) * P, x0 = (bx * m + ix) * P;
                    for (int c = 0; c < 3; c++)
                        for (int64_t t = 0; t < T; t++)
                            for (int64_t py = 0; py < P; py++) {
                                memcpy(dst, planes + c * plane + (size_t)(y0 + py) * W + x0,
                                       (size_t)P * sizeof(float));
                                dst += P;
                            }
                }
    free(resized);
    free(planes);
    memset(out, 0, sizeof(*out));
    out->data = data;
    out->n_dims = 2;
    out->shape[0] = gh * gw;
    out->shape[1] = row;
    /* One image is one frame, padded to T frames by repetition: one temporal patch. */
    out->grid_thw[0] = 1;
    out->grid_thw[1] = gh;
    out->grid_thw[2] = gw;
    out->n_tokens = gh * gw / (m * m);
    out->resized_width = W;
    out->resized_height = H;
    return TS_OK;
fail:
    free(resized);
    free(planes);
    free(data);
    return st;
}

/* Qwen2VLImageProcessor.__init__'s defaults. */
static void patch_merge_defaults(ts_preprocessor_config *p)
{
    memcpy(p->image_mean, ts_openai_clip_mean, sizeof(p->image_mean));
    memcpy(p->image_std, ts_openai_clip_std, sizeof(p->image_std));
    p->patch_size = 14;
    p->temporal_patch_size = 2;
    p->merge_size = 2;
    p->min_pixels = 56 * 56;
    p->max_pixels = 28 * 28 * 1280;
}

/* The pixel budget is min_pixels/max_pixels or size.shortest_edge/longest_edge (pixel counts
 * here, not edges); explicit min/max_pixels win. Then the patching. */
static ts_status patch_merge_read(const ts_json_reader *r, const cJSON *root,
                                  ts_preprocessor_config *p)
{
    TS_TRY(ts_processor_read_box(r, root, "size", &p->size_height, &p->size_width, &p->min_pixels,
                                 &p->max_pixels));
    TS_TRY(ts_json_int(r, root, "min_pixels", p->min_pixels, &p->min_pixels));
    TS_TRY(ts_json_int(r, root, "max_pixels", p->max_pixels, &p->max_pixels));
    TS_TRY(ts_json_int(r, root, "patch_size", p->patch_size, &p->patch_size));
    TS_TRY(ts_json_int(r, root, "temporal_patch_size", p->temporal_patch_size,
                       &p->temporal_patch_size));
    TS_TRY(ts_json_int(r, root, "merge_size", p->merge_size, &p->merge_size));
    if (p->min_pixels <= 0 || p->max_pixels < p->min_pixels || p->patch_size <= 0 ||
        p->temporal_patch_size <= 0 || p->merge_size <= 0)
        return ts_error_set(r->err, TS_ERR_RANGE,
                            "%s: need 0 < min_pixels (%lld) <= max_pixels (%lld) and positive "
                            "patch_size, temporal_patch_size, merge_size",
                            r->origin, (long long)p->min_pixels, (long long)p->max_pixels);
    return TS_OK;
}

const ts_image_processor_class ts_qwen2_vl_image_processor = {
    .type = "Qwen2VLImageProcessor",
    .defaults = patch_merge_defaults,
    .read = patch_merge_read,
};
