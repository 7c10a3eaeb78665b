/* phi4_vision_entry.c — the host side of vision.main's "hd_views" layout (Phi-4-multimodal's HD
 * images; the contract is at the top of models/vision_entry.c): one call per image, its views in
 * the smallest bucket of V views that holds them (padding views zero pixels, every key real,
 * never gathered), the crop masks as positions and key_bias, the HD layout as row indices; and
 * the value checks made on those arguments at the runtime boundary. The module is the engine's
 * own image graph (ts_phi4_vision_build) for V views.
 */
#include "base/error.h"
#include "models/phi4_mm/phi4_image_processor.h"
#include "models/phi4_mm/phi4_vision.h"
#include "models/vision_entry.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What the layout needs of the spec, from the manifest's geometry: the view side S = P·√patches
 * of a view, the projector's width. */
static ts_phi4_vision_spec spec_of(const ts_vision_entry_geometry *geo)
{
    int64_t side = (int64_t)llround(sqrt((double)geo->image_patches));
    return (ts_phi4_vision_spec){.width = geo->width, .patch = geo->patch, .image_size = side * geo->patch,
                                 .text_width = geo->out_hidden};
}

static int64_t views_of(const ts_vision_entry_geometry *geo, int64_t n)
{
    return geo->image_patches > 0 ? n / geo->image_patches : 0;
}

static void hd_types(const ts_vision_entry_geometry *geo, int64_t n, int64_t d, ts_type *inputs, ts_type *results)
{
    (void)d;
    ts_phi4_vision_spec s = spec_of(geo);
    int64_t V = views_of(geo, n), S = s.image_size, rows = ts_phi4_image_rows_max(&s, V);
    int64_t px[4] = {V, 3, S, S}, per_view[2] = {V, geo->image_patches}, out[2] = {rows, geo->out_hidden};
    inputs[0] = ts_type_make(TS_DTYPE_F32, 4, px);
    inputs[1] = ts_type_make(TS_DTYPE_I32, 2, per_view);
    inputs[2] = ts_type_make(TS_DTYPE_F32, 2, per_view);
    inputs[3] = ts_type_make(TS_DTYPE_I32, 1, &rows);
    results[0] = ts_type_make(TS_DTYPE_F32, 2, out);
}

/* Image i's HD header checked for this tower (views of S px in P-px patches). */
static ts_status view_of(const ts_vision_entry_geometry *geo, const ts_pixel_values *images, int i,
                         ts_phi4_hd_image *im, ts_error *err)
{
    ts_phi4_vision_spec s = spec_of(geo);
    TS_TRY(ts_phi4_hd_view(&images[i], (int)geo->patch, im, err));
    if (im->crop == s.image_size) return TS_OK;
    free(im->mask);
    return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "vision: image %d has %d-px views, vision.main takes %lld", i,
                        im->crop, (long long)s.image_size);
}

static ts_status hd_plan(const ts_vision_entry_geometry *geo, const ts_type *px, const ts_pixel_values *images,
                         int n_images, int *n_calls, int64_t *rows, ts_error *err)
{
    (void)px;
    if (n_images < 1 || n_images > TS_MAX_IMAGES)
        return ts_error_set(err, TS_ERR_RANGE, "vision: %d images (1..%d allowed)", n_images, TS_MAX_IMAGES);
    int64_t most = 0;
    for (int i = 0; i < n_images; i++) {
        ts_phi4_hd_image im;
        TS_TRY(view_of(geo, images, i, &im, err));
        if (im.views > most) most = im.views;
        free(im.mask);
    }
    /* One call per image, in the bucket that holds the most views (a bucket is V views' patches). */
    *n_calls = n_images, *rows = most * geo->image_patches;
    return TS_OK;
}

static ts_status hd_prepare(const ts_vision_entry_geometry *geo, const ts_type *px, const ts_pixel_values *images,
                            int n_images, int call, int64_t n, ts_vision_call *out, ts_error *err)
{
    (void)n_images;
    memset(out, 0, sizeof(*out));
    ts_phi4_vision_spec s = spec_of(geo);
    int64_t V = views_of(geo, n), np = geo->image_patches, rows = ts_phi4_image_rows_max(&s, V);
    ts_phi4_hd_image im;
    TS_TRY(view_of(geo, images, call, &im, err));
    int64_t per_view[2] = {V, np};
    float *pixels = ts_vision_call_add(out, "pixel_values", TS_DTYPE_F32, px->rank, px->dims);
    int32_t *positions = ts_vision_call_add(out, "positions", TS_DTYPE_I32, 2, per_view);
    float *key_bias = ts_vision_call_add(out, "key_bias", TS_DTYPE_F32, 2, per_view);
    int32_t *layout = ts_vision_call_add(out, "layout", TS_DTYPE_I32, 1, &rows);
    ts_status st = pixels && positions && key_bias && layout
                       ? ts_phi4_image_inputs(&s, &im, V, positions, key_bias, layout, err)
                       : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory for %lld views", (long long)V);
    if (st == TS_OK) {
        /* The image's views first; the bucket's padding views stay zero. */
        memcpy(pixels, im.pixels, sizeof(float) * (size_t)(im.views * 3 * s.image_size * s.image_size));
        out->tokens = im.tokens;
    }
    free(im.mask);
    if (st != TS_OK) ts_vision_call_free(out);
    return st;
}

/* Every view's key_bias 0 (a real patch) or −inf (padding) with at least one real key; positions
 * within the position table, layout within the pooled table and its two separators. */
static ts_status hd_check(const ts_vision_entry_geometry *geo, const ts_type *px, int64_t n, const void *const *data,
                          ts_error *err)
{
    ts_phi4_vision_spec s = spec_of(geo);
    int64_t V = views_of(geo, n), np = geo->image_patches, half = s.image_size / s.patch / 2;
    const float *key_bias = data[2];
    for (int64_t v = 0; v < V; v++) {
        int64_t real = 0;
        for (int64_t p = 0; p < np; p++) {
            float b = key_bias[v * np + p];
            if (b != 0.0f && !(isinf(b) && b < 0))
                return ts_error_set(err, TS_ERR_RANGE, "vision.main: key_bias[%lld, %lld] is %g (0 or -inf)",
                                    (long long)v, (long long)p, (double)b);
            real += b == 0.0f;
        }
        if (!real)
            return ts_error_set(err, TS_ERR_RANGE, "vision.main: key_bias masks every patch of view %lld",
                                (long long)v);
    }
    TS_TRY(ts_vision_check_range(data[1], V * np, 0, np - 1, "positions", err));
    TS_TRY(ts_vision_check_range(data[3], ts_phi4_image_rows_max(&s, V), 0, V * half * half + 1, "layout", err));
    return ts_vision_check_pixels(data[0], ts_type_elements(px), err);
}

static const char *const hd_inputs[] = {"pixel_values", "positions", "key_bias", "layout"};
const ts_vision_layout ts_vision_layout_hd_views = {"hd_views", 4,          hd_inputs, 1,
                                                    hd_types,   hd_plan, hd_prepare, hd_check};
