/* phi4_image_processor.c — Phi4MultimodalImageProcessor's dynamic-HD crops (see
 * phi4_image_processor.h). Each step keeps the reference's arithmetic: the grid search's float
 * comparisons in double as Python does, torch's int16-weight uint8 resize, the fused
 * normalisation (x − 127.5) / 127.5 in float, and torch's float bicubic (A = −0.75, taps
 * clamped at the edges, rows of 4 taps summed first, then the 4 rows, with torch's fused
 * multiply-adds) for the global view.
 */
#include "models/phi4_mm/phi4_image_processor.h"

#include "base/error.h"
#include "loader/json_fields.h"
#include "media/resample.h"


#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Phi4MultimodalImageProcessor.__init__: 448 × 448 crops of 14-px patches, dynamic_hd 36,
 * mean = std = 0.5, bicubic (resample is not what the HD resize uses: torch's bilinear). */
static void class_defaults(ts_preprocessor_config *p)
{
    ts_square_processor_defaults(p);
    p->size_height = p->size_width = 448;
    p->patch_size = 14;
    p->max_crops = 36;
}

static ts_status class_read(const ts_json_reader *r, const cJSON *root, ts_preprocessor_config *p)
{
    TS_TRY(ts_processor_read_box(r, root, "size", &p->size_height, &p->size_width, NULL, NULL));
    TS_TRY(ts_json_int(r, root, "patch_size", p->patch_size, &p->patch_size));
    return ts_json_int(r, root, "dynamic_hd", p->max_crops, &p->max_crops);
}

const ts_image_processor_class ts_phi4_image_processor = {
    .type = "Phi4MultimodalImageProcessor",
    .defaults = class_defaults,
    .read = class_read,
};

ts_status ts_phi4_hd_settings_from(const ts_preprocessor_config *p, ts_phi4_hd_settings *s, ts_error *err)
{
    int64_t h = p->size_height, w = p->size_width, patch = p->patch_size, hd = p->max_crops;
    bool half = true;
    for (int c = 0; c < 3 && half; c++)
        half = p->image_mean[c] == 0.5 && p->image_std[c] == 0.5;
    const char *bad = !ts_image_processor_type_is(p->image_processor_type, ts_phi4_image_processor.type)
                          ? "image_processor_type"
                      : h != w || h <= 0 || h > 4096                 ? "size"
                      : patch <= 0 || h % patch                       ? "patch_size"
                      : hd < 1 || hd > 1024                           ? "dynamic_hd"
                      : !half                                         ? "image_mean/image_std"
                      : fabs(p->rescale_factor - 1.0 / 255) > 1e-12   ? "rescale_factor"
                      : !p->do_rescale || !p->do_normalize            ? "do_rescale/do_normalize"
                                                                      : NULL;
    if (bad)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "%s: %s: not supported by the Phi-4-multimodal image processor",
                            p->image_processor_type[0] ? p->image_processor_type : "image processor", bad);
    s->crop = (int)h, s->patch = (int)patch, s->max_crops = (int)hd;
    return TS_OK;
}

ts_status ts_phi4_hd_settings_load(const char *model_dir, ts_phi4_hd_settings *s, ts_error *err)
{
    ts_preprocessor_config p;
    TS_TRY(ts_preprocessor_config_load(model_dir, &p, err));
    return ts_phi4_hd_settings_from(&p, s, err);
}

void ts_phi4_hd_free(ts_phi4_hd_image *im)
{
    if (!im) return;
    free(im->pixels);
    free(im->mask);
    memset(im, 0, sizeof(*im));
}

/* find_closest_aspect_ratio over the (i, j), i·j ≤ max, in the reference's order: sorted by the
 * area (Python's sort is stable; the set's iteration order decides ties of equal area, and for
 * equal areas only an equal aspect ratio can tie, which the area test then settles the same way
 * whichever comes first). */
static void closest_ratio(double aspect, int max_num, int width, int height, int size, int *gw,
                          int *gh)
{
    double best_diff = INFINITY;
    int bw = 1, bh = 1;
    double area = (double)width * height;
    for (int n = 1; n <= max_num; n++) /* every (i, j) with i·j == n, area order */
        for (int i = 1; i <= n; i++) {
            if (n % i) continue;
            int j = n / i;
            double diff = fabs(aspect - (double)i / j);
            if (diff < best_diff) {
                best_diff = diff;
                bw = i, bh = j;
            } else if (diff == best_diff && area > 0.5 * size * size * i * j) {
                bw = i, bh = j;
            }
        }
    *gw = bw, *gh = bh;
}

/* torch.nn.functional.interpolate(mode="bicubic", align_corners=False, antialias=False) on one
 * axis: for output i the 4 source indices (clamped) and weights. */
static void bicubic_taps(int in, int out, int *idx, float *w)
{
    const float a = -0.75f, scale = (float)in / (float)out;
    for (int i = 0; i < out; i++) {
        float real = scale * ((float)i + 0.5f) - 0.5f;
        int64_t base = (int64_t)floorf(real);
        if (base > in - 1) base = in - 1;
        float t = real - (float)base;
        t = t < 0.f ? 0.f : t > 1.f ? 1.f : t;
        float x1 = t + 1.f, x2 = 1.f - t, x3 = x2 + 1.f;
        w[4 * i + 0] = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a;
        w[4 * i + 1] = ((a + 2) * t - (a + 3)) * t * t + 1;
        w[4 * i + 2] = ((a + 2) * x2 - (a + 3)) * x2 * x2 + 1;
        w[4 * i + 3] = ((a * x3 - 5 * a) * x3 + 8 * a) * x3 - 4 * a;
        for (int j = 0; j < 4; j++) {
            int64_t k = base - 1 + j;
            idx[4 * i + j] = (int)(k < 0 ? 0 : k > in - 1 ? in - 1 : k);
        }
    }
}

/* torch's 4-tap sum `out = v0·w0; out += v_j·w_j` as its AVX2 build compiles it (contracted):
 * fma(v0, w0, v1·w1), then fma for taps 2 and 3. Plain float sums differ in the last bit for
 * about a third of the pixels; this order matched every one (the fixture's whole tensor). */
static inline float taps4(const float v[4], const float *w)
{
    float o = fmaf(v[0], w[0], v[1] * w[1]);
    o = fmaf(v[2], w[2], o);
    return fmaf(v[3], w[3], o);
}

/* One channel plane in_w × in_h → out × out: each of the 4 source rows interpolated along x,
 * then the 4 results along y (torch's dimension order). */
static void bicubic_plane(const float *src, int in_w, float *dst, int out, const int *xi,
                          const float *xw, const int *yi, const float *yw)
{
    for (int y = 0; y < out; y++)
        for (int x = 0; x < out; x++) {
            float t[4];
            for (int r = 0; r < 4; r++) {
                const float *row = src + (size_t)yi[4 * y + r] * in_w;
                const float v[4] = {row[xi[4 * x]], row[xi[4 * x + 1]], row[xi[4 * x + 2]],
                                    row[xi[4 * x + 3]]};
                t[r] = taps4(v, xw + 4 * x);
            }
            dst[(size_t)y * out + x] = taps4(t, yw + 4 * y);
        }
}

void ts_phi4_hd_useful(const ts_phi4_hd_image *im, int *rows, int *cols)
{
    int m = im->crop / im->patch, n = (m + 1) / 2;
    int r = 0, c = 0;
    /* The grid's first column lives in the crops of column 0, its first row in those of row 0. */
    for (int gy = 0; gy < im->grid_h; gy++)
        for (int k = 0; k < n; k++)
            r += im->mask[(size_t)(1 + gy * im->grid_w) * m * m + (size_t)(2 * k) * m] != 0;
    for (int gx = 0; gx < im->grid_w; gx++)
        for (int k = 0; k < n; k++)
            c += im->mask[(size_t)(1 + gx) * m * m + 2 * k] != 0;
    *rows = r, *cols = c;
}

/* The patch masks and the token count of an image whose views are laid out (crop, patch, grid,
 * resized size set; mask allocated): the canvas's last floor(pad / P) patch columns (rows) are
 * padding; tokens n² global + 1 + the downsampled sub-image mask's sum + one per its rows (its
 * first column's sum) + n for the global rows' separators. */
static void layout(ts_phi4_hd_image *out)
{
    int m = out->crop / out->patch, gw = out->grid_w, gh = out->grid_h, patch = out->patch;
    int pad_w = out->crop * gw - out->resized_w, pad_h = out->crop * gh - out->resized_h;
    int zero_cols = pad_w >= patch ? pad_w / patch : 0, zero_rows = pad_h >= patch ? pad_h / patch : 0;
    int mw = m * gw, mh = m * gh;
    memset(out->mask, 1, (size_t)m * m);
    for (int gy = 0; gy < gh; gy++)
        for (int gx = 0; gx < gw; gx++) {
            uint8_t *v = out->mask + (size_t)(1 + gy * gw + gx) * m * m;
            for (int y = 0; y < m; y++)
                for (int x = 0; x < m; x++)
                    v[y * m + x] = gy * m + y < mh - zero_rows && gx * m + x < mw - zero_cols;
        }
    int n = (m + 1) / 2;
    int64_t sum = 0;
    for (int k = 1; k < out->views; k++)
        for (int y = 0; y < m; y += 2)
            for (int x = 0; x < m; x += 2)
                sum += out->mask[(size_t)k * m * m + (size_t)y * m + x];
    int rows, cols;
    ts_phi4_hd_useful(out, &rows, &cols);
    out->tokens = (int64_t)n * n + 1 + sum + rows + n;
}

ts_status ts_phi4_hd_preprocess(const uint8_t *rgb, int width, int height, int crop, int patch,
                                int max_crops, ts_phi4_hd_image *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    if (crop <= 0 || patch <= 0 || crop % patch || crop > 4096 || max_crops < 1 || max_crops > 1024)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "phi4 image processor: crop %d, patch %d, dynamic_hd %d out of range", crop,
                            patch, max_crops);
    if (width <= 0 || height <= 0)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "phi4 image processor: image %dx%d", width,
                            height);
    int gw = (width + crop - 1) / crop, gh = (height + crop - 1) / crop;
    if ((int64_t)gw * gh > max_crops)
        closest_ratio((double)width / height, max_crops, width, height, crop, &gw, &gh);
    int tw = crop * gw, th = crop * gh;
    double rw = (double)tw / width, rh = (double)th / height;
    int nw, nh; /* the rest of the canvas is padding (layout: the masks) */
    if (rw < rh) {
        nw = tw, nh = (int)(height * rw);
    } else {
        nw = (int)(width * rh), nh = th;
    }
    if ((nh < th ? nh : th) < 10 || (nw < tw ? nw : tw) < 10)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "phi4 image processor: the aspect ratio of a %dx%d image is very extreme "
                            "(resized to %dx%d)",
                            width, height, nw, nh);
    int m = crop / patch;
    out->crop = crop, out->patch = patch, out->grid_w = gw, out->grid_h = gh;
    out->views = 1 + gw * gh;
    size_t plane = (size_t)crop * crop, cplane = (size_t)tw * th;
    uint8_t *canvas = malloc(cplane * 3);
    float *norm = malloc(cplane * 3 * sizeof(float));
    int *xi = malloc(sizeof(int) * 4 * (size_t)crop), *yi = malloc(sizeof(int) * 4 * (size_t)crop);
    float *xw = malloc(sizeof(float) * 4 * (size_t)crop), *yw = malloc(sizeof(float) * 4 * (size_t)crop);
    out->pixels = malloc((size_t)out->views * 3 * plane * sizeof(float));
    out->mask = malloc((size_t)out->views * m * m);
    ts_status st = TS_OK;
    if (!canvas || !norm || !xi || !yi || !xw || !yw || !out->pixels || !out->mask) {
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "phi4 image processor: no memory for a %dx%d canvas",
                          tw, th);
        goto done;
    }
    /* Resized image top-left, white elsewhere. */
    memset(canvas, 255, cplane * 3);
    uint8_t *resized = malloc((size_t)nw * nh * 3);
    if (!resized) {
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "phi4 image processor: no memory for %dx%d", nw, nh);
        goto done;
    }
    st = ts_resample_rgb8_torch(rgb, width, height, resized, nw, nh, TS_RESAMPLE_BILINEAR, err);
    for (int y = 0; st == TS_OK && y < nh; y++)
        memcpy(canvas + (size_t)y * tw * 3, resized + (size_t)y * nw * 3, (size_t)nw * 3);
    free(resized);
    if (st) goto done;
    /* (x − 0.5·255) / (0.5·255): the fused rescale-and-normalise, two float operations. */
    float table[256];
    for (int v = 0; v < 256; v++)
        table[v] = ((float)v - 127.5f) / 127.5f;
    for (size_t i = 0; i < cplane; i++)
        for (int c = 0; c < 3; c++)
            norm[c * cplane + i] = table[canvas[3 * i + c]];
    /* The global view, then the crops row-major. */
    bicubic_taps(tw, crop, xi, xw);
    bicubic_taps(th, crop, yi, yw);
    for (int c = 0; c < 3; c++)
        bicubic_plane(norm + c * cplane, tw, out->pixels + c * plane, crop, xi, xw, yi, yw);
    for (int gy = 0; gy < gh; gy++)
        for (int gx = 0; gx < gw; gx++) {
            float *v = out->pixels + (size_t)(1 + gy * gw + gx) * 3 * plane;
            for (int c = 0; c < 3; c++)
                for (int y = 0; y < crop; y++)
                    memcpy(v + c * plane + (size_t)y * crop,
                           norm + c * cplane + (size_t)(gy * crop + y) * tw + (size_t)gx * crop,
                           sizeof(float) * crop);
        }
    out->resized_w = nw, out->resized_h = nh;
    layout(out);
done:
    free(canvas);
    free(norm);
    free(xi), free(yi), free(xw), free(yw);
    if (st) ts_phi4_hd_free(out);
    return st;
}

void ts_phi4_hd_to_pixels(ts_phi4_hd_image *im, ts_pixel_values *pv)
{
    *pv = (ts_pixel_values){.data = im->pixels,
                            .n_dims = 4,
                            .shape = {im->views, 3, im->crop, im->crop},
                            .grid_thw = {1, im->grid_h, im->grid_w},
                            .n_tokens = im->tokens,
                            .resized_width = im->resized_w,
                            .resized_height = im->resized_h};
    im->pixels = NULL;
    ts_phi4_hd_free(im);
}

ts_status ts_phi4_hd_view(const ts_pixel_values *pv, int patch, ts_phi4_hd_image *im, ts_error *err)
{
    memset(im, 0, sizeof(*im));
    int64_t views = pv->shape[0], side = pv->shape[2], gh = pv->grid_thw[1], gw = pv->grid_thw[2];
    const char *bad = !pv->data || pv->n_dims != 4 || pv->shape[1] != 3 || pv->shape[3] != side
                          ? "shape"
                      : patch <= 0 || side < patch || side > 4096 || side % patch ? "view size"
                      : pv->grid_thw[0] != 1 || gh < 1 || gw < 1 || gh * gw > 1024 || views != 1 + gh * gw
                          ? "crop grid"
                      : pv->resized_width < 1 || pv->resized_width > side * gw || pv->resized_height < 1 ||
                              pv->resized_height > side * gh
                          ? "resized size"
                          : NULL;
    if (bad)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "Phi-4-multimodal image: pixel values of shape [%lld, %lld, %lld, %lld], grid %lldx%lld, "
                            "image %dx%d: the %s is not an HD image's",
                            (long long)pv->shape[0], (long long)pv->shape[1], (long long)pv->shape[2],
                            (long long)pv->shape[3], (long long)gw, (long long)gh, pv->resized_width,
                            pv->resized_height, bad);
    int m = (int)side / patch;
    *im = (ts_phi4_hd_image){.crop = (int)side,
                             .patch = patch,
                             .grid_w = (int)gw,
                             .grid_h = (int)gh,
                             .views = (int)views,
                             .resized_w = pv->resized_width,
                             .resized_h = pv->resized_height,
                             .pixels = pv->data};
    if (!(im->mask = malloc((size_t)views * m * m)))
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "Phi-4-multimodal image: out of memory");
    layout(im);
    return TS_OK;
}
