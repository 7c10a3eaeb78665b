/* qwen_vl_entry.c — the host side of the patch-row vision.main layouts "patch_rows" and
 * "patch_rows_windowed" (contracts at the top of models/vision_entry.c): every image's patch rows
 * in one call, padded to the bucket with rows that change nothing, and the value checks made on
 * those arguments at the runtime boundary. The part every patch-row layout shares
 * (ts_qwen_vl_entry_plan, ts_qwen_vl_entry_rows) is also the DeepStack layout's.
 */
#include "base/error.h"
#include "models/qwen2_vl/qwen2_vl_vision.h"
#include "models/qwen2_vl/qwen_vl.h"
#include "models/vision_entry.h"

#include <stdlib.h>
#include <string.h>

void ts_qwen_vl_entry_types(const ts_vision_entry_geometry *geo, int64_t n, int64_t d,
                            ts_type *inputs, ts_type *results)
{
    int64_t pd[2] = {n, d}, pos[2] = {n, 2},
            out[2] = {n / (geo->merge * geo->merge), geo->out_hidden};
    inputs[0] = ts_type_make(TS_DTYPE_F32, 2, pd);
    inputs[1] = ts_type_make(TS_DTYPE_I32, 2, pos);
    inputs[2] = ts_type_make(TS_DTYPE_I32, 1, &n);
    results[0] = ts_type_make(TS_DTYPE_F32, 2, out);
}

ts_status ts_qwen_vl_entry_plan(const ts_vision_entry_geometry *geo, const ts_type *px,
                                const ts_pixel_values *images, int n_images, int *n_calls,
                                int64_t *rows, ts_error *err)
{
    ts_vision_grid grids[TS_MAX_IMAGES];
    int64_t frames;
    if (n_images < 1 || n_images > TS_MAX_IMAGES)
        return ts_error_set(err, TS_ERR_RANGE, "vision: %d images (1..%d allowed)", n_images,
                            TS_MAX_IMAGES);
    TS_TRY(ts_qwen2_vl_vision_grids(images, n_images, px->dims[1], geo->merge, grids, rows, &frames,
                                    err));
    *n_calls = 1;
    return TS_OK;
}

ts_status ts_qwen_vl_entry_rows(const ts_vision_entry_geometry *geo, const ts_type *px,
                                const ts_pixel_values *images, int n_images, int64_t n,
                                ts_vision_grid *grids, ts_vision_call *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    int64_t patch_dim = px->dims[1], rows, frames;
    TS_TRY(ts_qwen2_vl_vision_grids(images, n_images, patch_dim, geo->merge, grids, &rows, &frames,
                                    err));
    if (rows > n)
        return ts_error_set(err, TS_ERR_RANGE, "vision: %lld patches do not fit a bucket of %lld",
                            (long long)rows, (long long)n);
    int64_t pd[2] = {n, patch_dim}, pos[2] = {n, 2};
    float *pixels = ts_vision_call_add(out, "pixel_values", TS_DTYPE_F32, 2, pd);
    int32_t *positions = ts_vision_call_add(out, "positions", TS_DTYPE_I32, 2, pos);
    int32_t *segments = ts_vision_call_add(out, "segments", TS_DTYPE_I32, 1, &n);
    if (!pixels || !positions || !segments) {
        ts_vision_call_free(out);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory for %lld patches",
                            (long long)n);
    }
    ts_qwen2_vl_vision_pack(images, n_images, patch_dim, pixels);
    ts_qwen2_vl_vision_layout(grids, n_images, geo->merge, positions, segments, NULL);
    for (int64_t r = rows; r < n; r++)
        segments[r] = -1; /* padding: its own segment, hidden from every image row */
    out->count = (int32_t)rows;
    out->tokens = rows / (geo->merge * geo->merge);
    return TS_OK;
}

/* ---------------------------------------------------------------- patch_rows */

static void rows_types(const ts_vision_entry_geometry *geo, int64_t n, int64_t d, ts_type *inputs,
                       ts_type *results)
{
    ts_qwen_vl_entry_types(geo, n, d, inputs, results);
    inputs[3] = ts_type_make(TS_DTYPE_I32, 0, NULL);
}

static ts_status rows_prepare(const ts_vision_entry_geometry *geo, const ts_type *px,
                              const ts_pixel_values *images, int n_images, int call, int64_t n,
                              ts_vision_call *out, ts_error *err)
{
    (void)call;
    ts_vision_grid grids[TS_MAX_IMAGES];
    TS_TRY(ts_qwen_vl_entry_rows(geo, px, images, n_images, n, grids, out, err));
    ts_vision_call_add_count(out);
    return TS_OK;
}

static ts_status rows_check(const ts_vision_entry_geometry *geo, const ts_type *px, int64_t n,
                            const void *const *data, ts_error *err)
{
    return ts_vision_check_patch_rows(geo, n, px->dims[1], data[0], data[1], data[2],
                                      *(const int32_t *)data[3], err);
}

static const char *const rows_inputs[] = {"pixel_values", "positions", "segments", "count"};
const ts_vision_layout ts_vision_layout_patch_rows = {
    "patch_rows", 4, rows_inputs, 1, rows_types, ts_qwen_vl_entry_plan, rows_prepare, rows_check};

/* ---------------------------------------------------------------- patch_rows_windowed */

static void windowed_types(const ts_vision_entry_geometry *geo, int64_t n, int64_t d,
                           ts_type *inputs, ts_type *results)
{
    int64_t units = n / (geo->merge * geo->merge);
    ts_qwen_vl_entry_types(geo, n, d, inputs, results);
    inputs[3] = ts_type_make(TS_DTYPE_I32, 1, &n);
    inputs[4] = ts_type_make(TS_DTYPE_I32, 1, &units);
    inputs[5] = ts_type_make(TS_DTYPE_I32, 0, NULL);
}

/* The rows in window order (ts_qwen2_5_vl_vision_layout), then the padding: segment and window
 * −1, its units in place. */
static ts_status windowed_prepare(const ts_vision_entry_geometry *geo, const ts_type *px,
                                  const ts_pixel_values *images, int n_images, int call, int64_t n,
                                  ts_vision_call *out, ts_error *err)
{
    (void)call;
    ts_vision_grid grids[TS_MAX_IMAGES];
    TS_TRY(ts_qwen_vl_entry_rows(geo, px, images, n_images, n, grids, out, err));
    int64_t unit = geo->merge * geo->merge, units = n / unit, rows = out->count;
    int32_t *windows = ts_vision_call_add(out, "windows", TS_DTYPE_I32, 1, &n);
    int32_t *window_index = ts_vision_call_add(out, "window_index", TS_DTYPE_I32, 1, &units);
    if (!windows || !window_index) {
        ts_vision_call_free(out);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory for %lld patches",
                            (long long)n);
    }
    int32_t *positions = out->owned[1], *segments = out->owned[2];
    memset(positions, 0, sizeof(int32_t) * (size_t)(2 * n));
    ts_qwen2_5_vl_vision_layout(grids, n_images, geo->merge, geo->window, positions, segments,
                                windows, window_index);
    for (int64_t r = rows; r < n; r++)
        segments[r] = -1, windows[r] = -1;
    for (int64_t k = rows / unit; k < units; k++)
        window_index[k] = (int32_t)k;
    ts_vision_call_add_count(out);
    return TS_OK;
}

static ts_status windowed_check(const ts_vision_entry_geometry *geo, const ts_type *px, int64_t n,
                                const void *const *data, ts_error *err)
{
    const int32_t *segments = data[2], *windows = data[3], *window_index = data[4];
    int32_t count = *(const int32_t *)data[5];
    TS_TRY(ts_vision_check_patch_rows(geo, n, px->dims[1], data[0], data[1], segments, count, err));
    TS_TRY(ts_vision_check_range(windows, n, -1, n - 1, "windows", err));
    for (int64_t r = 0; r < n; r++)
        if ((r >= count) != (segments[r] < 0) || (r >= count) != (windows[r] < 0))
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                                "vision.main: row %lld %s (count = %d): its segment and window "
                                "must be %s (they are %d, %d)",
                                (long long)r, r >= count ? "is padding" : "is an image row", count,
                                r >= count ? "-1" : "non-negative", segments[r], windows[r]);
    int64_t unit = geo->merge * geo->merge, units = n / unit, real = count / unit;
    TS_TRY(ts_vision_check_range(window_index, units, 0, units - 1, "window_index", err));
    bool *seen = calloc((size_t)units, sizeof(bool));
    if (!seen) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision.main: out of memory");
    ts_status st = TS_OK;
    for (int64_t k = 0; st == TS_OK && k < units; k++) {
        int32_t u = window_index[k];
        if (k >= real && u != k)
            st = ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                              "vision.main: window_index[%lld] = %d: padding units (at or past "
                              "count / %lld = %lld) stay in place",
                              (long long)k, u, (long long)unit, (long long)real);
        else if (k < real && (u >= real || seen[u]))
            st = ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                              "vision.main: window_index[%lld] = %d: the first %lld slots must be "
                              "a permutation of the image units "
                              "0..%lld",
                              (long long)k, u, (long long)real, (long long)(real - 1));
        else
            seen[u] = true;
    }
    free(seen);
    return st;
}

static const char *const windowed_inputs[] = {"pixel_values", "positions",    "segments",
                                              "windows",      "window_index", "count"};
const ts_vision_layout ts_vision_layout_patch_rows_windowed = {
    "patch_rows_windowed", 6,
    windowed_inputs,       1,
    windowed_types,        ts_qwen_vl_entry_plan,
    windowed_prepare,      windowed_check};
