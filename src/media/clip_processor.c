/* clip_processor.c — CLIP / SigLIP / Gemma3 slow image processors for one image.
 *
 * Reference: transformers @130f1644 models/clip/image_processing_clip.py,
 * models/siglip/image_processing_siglip.py, models/gemma3/image_processing_gemma3.py and
 * image_transforms.py (get_resize_output_image_size, center_crop). Resizing happens on uint8 via
 * PIL, cropping on the uint8 result, then rescale and normalize in float.
 */
#include "media/clip_processor.h"

#include "base/error.h"
#include "media/pixel_normalize.h"
#include "media/resample.h"

#include <stdlib.h>
#include <string.h>

/* Configured sizes are at most a few thousand pixels a side; 8192 leaves room. The resize before
 * a crop can be far larger for thin images, so it gets its own pixel limit (about 800 MB). */
#define MAX_CONFIG_SIDE 8192
#define MAX_RESIZED_PIXELS ((int64_t)1 << 26)

void ts_clip_shortest_edge_size(int width, int height, int shortest_edge, int64_t *out_width,
                                int64_t *out_height)
{
    int s = width <= height ? width : height, l = width <= height ? height : width;
    /* Python: int(size * long / short); int/int true division is one correctly rounded double
     * division (exact operands below 2^53), and int() truncates. Fits: at most 2^13 · 2^31. */
    int64_t new_long = (int64_t)((double)((int64_t)shortest_edge * l) / s);
    if (width <= height) {
        *out_width = shortest_edge;
        *out_height = new_long;
    } else {
        *out_width = new_long;
        *out_height = shortest_edge;
    }
}

static int64_t floor_div2(int64_t x)
{
    return x >= 0 ? x / 2 : -((-x + 1) / 2);
}

/* center_crop: the window starts at floor((in - crop) / 2) on each axis; where it leaves the
 * image (crop larger than the image) the reference pads with zeros. */
static void center_crop(const uint8_t *src, int width, int height, uint8_t *dst, int crop_w,
                        int crop_h)
{
    int64_t top = floor_div2((int64_t)height - crop_h), left = floor_div2((int64_t)width - crop_w);
    for (int r = 0; r < crop_h; r++)
        for (int c = 0; c < crop_w; c++) {
            int64_t y = r + top, x = c + left;
            uint8_t *d = dst + ((size_t)r * crop_w + c) * 3;
            if (y < 0 || y >= height || x < 0 || x >= width)
                memset(d, 0, 3);
            else
                memcpy(d, src + ((size_t)y * width + x) * 3, 3);
        }
}

ts_status ts_clip_preprocess(const ts_preprocessor_config *cfg, const uint8_t *rgb, int width,
                             int height, const ts_image_budget *budget, ts_pixel_values *out,
                             ts_error *err)
{
    (void)budget; /* a fixed-size processor: its size is the tower's */
    int64_t rw = width, rh = height;
    if (cfg->do_resize) {
        if (cfg->resample != TS_RESAMPLE_BILINEAR && cfg->resample != TS_RESAMPLE_BICUBIC)
            return ts_error_set(err, TS_ERR_UNSUPPORTED,
                                "%s: resample %d is not supported (2 bilinear, 3 bicubic)",
                                cfg->image_processor_type, cfg->resample);
        if (cfg->size_shortest_edge > 0 && cfg->size_shortest_edge <= MAX_CONFIG_SIDE) {
            ts_clip_shortest_edge_size(width, height, (int)cfg->size_shortest_edge, &rw, &rh);
        } else if (cfg->size_height > 0 && cfg->size_width > 0 &&
                   cfg->size_height <= MAX_CONFIG_SIDE && cfg->size_width <= MAX_CONFIG_SIDE) {
            rw = cfg->size_width;
            rh = cfg->size_height;
        } else {
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                                "%s: do_resize needs size.shortest_edge or size.height/width "
                                "between 1 and %d",
                                cfg->image_processor_type, MAX_CONFIG_SIDE);
        }
        /* A thin image's long side can truncate to 0 or grow past any sensible size. */
        if (rw < 1 || rh < 1 || rw > (1 << 20) || rh > (1 << 20) || rw * rh > MAX_RESIZED_PIXELS)
            return ts_error_set(err, TS_ERR_RANGE,
                                "%s: image %dx%d would resize to %lldx%lld; need 1 to %lld pixels",
                                cfg->image_processor_type, width, height, (long long)rw,
                                (long long)rh, (long long)MAX_RESIZED_PIXELS);
    } else if ((int64_t)width * height > MAX_RESIZED_PIXELS) {
        return ts_error_set(err, TS_ERR_RANGE, "%s: image %dx%d has more than %lld pixels",
                            cfg->image_processor_type, width, height,
                            (long long)MAX_RESIZED_PIXELS);
    }
    int64_t ow = rw, oh = rh;
    if (cfg->do_center_crop) {
        if (cfg->crop_height <= 0 || cfg->crop_width <= 0 || cfg->crop_height > MAX_CONFIG_SIDE ||
            cfg->crop_width > MAX_CONFIG_SIDE)
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                                "%s: do_center_crop needs crop_size height/width between 1 and %d",
                                cfg->image_processor_type, MAX_CONFIG_SIDE);
        ow = cfg->crop_width;
        oh = cfg->crop_height;
    }
    ts_status st = TS_OK;
    uint8_t *resized = malloc((size_t)rw * rh * 3);
    uint8_t *cropped = malloc((size_t)ow * oh * 3);
    float *data = malloc((size_t)ow * oh * 3 * sizeof(float));
    if (!resized || !cropped || !data) {
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "%s: no memory for a %lldx%lld image",
                          cfg->image_processor_type, (long long)rw, (long long)rh);
        goto done;
    }
    if (cfg->do_resize) {
        if ((st = ts_resample_rgb8(rgb, width, height, resized, (int)rw, (int)rh,
                                   (ts_resample_filter)cfg->resample, err)))
            goto done;
    } else {
        memcpy(resized, rgb, (size_t)rw * rh * 3);
    }
    if (cfg->do_center_crop)
        center_crop(resized, (int)rw, (int)rh, cropped, (int)ow, (int)oh);
    else
        memcpy(cropped, resized, (size_t)ow * oh * 3);
    ts_pixel_normalize_chw(cfg, cropped, (int)ow, (int)oh, data);
    memset(out, 0, sizeof(*out));
    out->data = data;
    data = NULL;
    out->n_dims = 4;
    out->shape[0] = 1;
    out->shape[1] = 3;
    out->shape[2] = oh;
    out->shape[3] = ow;
    out->resized_width = (int)ow;
    out->resized_height = (int)oh;
done:
    free(resized);
    free(cropped);
    free(data);
    return st;
}
