/* qwen3_vl_entry.c — the host side of the vision.main layout "patch_rows_deepstack" (contract at
 * the top of models/vision_entry.c): the patch rows as "patch_rows", plus each row's four taps of
 * the learned position table (ts_qwen3_vl_vision_pos_taps), the padding rows the filler taps
 * pos_index 0, pos_weight 0; and the value checks made on those arguments at the runtime boundary.
 */
#include "base/error.h"
#include "models/qwen2_vl/qwen_vl.h"
#include "models/qwen3_vl/qwen3_vl_vision.h"
#include "models/vision_entry.h"

#include <math.h>

static void taps_types(const ts_vision_entry_geometry *geo, int64_t n, int64_t d, ts_type *inputs,
                       ts_type *results)
{
    int64_t taps[2] = {4, n},
            ds[3] = {geo->deepstack, n / (geo->merge * geo->merge), geo->out_hidden};
    ts_qwen_vl_entry_types(geo, n, d, inputs, results);
    inputs[3] = ts_type_make(TS_DTYPE_I32, 2, taps);
    inputs[4] = ts_type_make(TS_DTYPE_F32, 2, taps);
    inputs[5] = ts_type_make(TS_DTYPE_I32, 0, NULL);
    results[1] = ts_type_make(TS_DTYPE_F32, 3, ds);
}

static ts_status taps_prepare(const ts_vision_entry_geometry *geo, const ts_type *px,
                              const ts_pixel_values *images, int n_images, int call, int64_t n,
                              ts_vision_call *out, ts_error *err)
{
    (void)call;
    ts_vision_grid grids[TS_MAX_IMAGES];
    TS_TRY(ts_qwen_vl_entry_rows(geo, px, images, n_images, n, grids, out, err));
    int64_t taps[2] = {4, n};
    int32_t *pos_index = ts_vision_call_add(out, "pos_index", TS_DTYPE_I32, 2, taps);
    float *pos_weight = ts_vision_call_add(out, "pos_weight", TS_DTYPE_F32, 2, taps);
    if (!pos_index || !pos_weight) {
        ts_vision_call_free(out);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory for %lld patches",
                            (long long)n);
    }
    /* The table geometry of ts_qwen3_vl_vision_spec_init, from the manifest; the padding rows keep
     * the zeroed filler. */
    ts_qwen3_vl_vision_spec spec = {.merge = geo->merge, .linspace = TS_LINSPACE_TORCH};
    spec.grid_side = (int64_t)sqrt((double)geo->position_embeddings);
    ts_qwen3_vl_vision_pos_taps(&spec, grids, n_images, n, pos_index, pos_weight);
    ts_vision_call_add_count(out);
    return TS_OK;
}

/* For the rows before count, pos_index within the position table and pos_weight finite; for the
 * padding rows at and past count, exactly the filler pos_index 0, pos_weight 0. */
static ts_status taps_check(const ts_vision_entry_geometry *geo, const ts_type *px, int64_t n,
                            const void *const *data, ts_error *err)
{
    int32_t count = *(const int32_t *)data[5];
    TS_TRY(ts_vision_check_patch_rows(geo, n, px->dims[1], data[0], data[1], data[2], count, err));
    const int32_t *index = data[3];
    const float *weight = data[4];
    for (int k = 0; k < 4; k++)
        for (int64_t r = 0; r < n; r++) {
            int32_t i = index[k * n + r];
            float w = weight[k * n + r];
            if (r >= count && (i != 0 || w != 0.0f))
                return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                                    "vision.main: row %lld is padding (at or past count = %d): its "
                                    "taps must be the filler pos_index 0, "
                                    "pos_weight 0 (tap %d is %d, %g)",
                                    (long long)r, count, k, i, (double)w);
            if (r < count && (i < 0 || i >= geo->position_embeddings))
                return ts_error_set(
                    err, TS_ERR_RANGE,
                    "vision.main: pos_index[%d][%lld] = %d is outside the position table 0..%lld",
                    k, (long long)r, i, (long long)(geo->position_embeddings - 1));
            if (r < count && !isfinite(w))
                return ts_error_set(err, TS_ERR_RANGE, "vision.main: pos_weight[%d][%lld] is %s", k,
                                    (long long)r, isnan(w) ? "NaN" : "infinite");
        }
    return TS_OK;
}

static const char *const taps_inputs[] = {"pixel_values", "positions",  "segments",
                                          "pos_index",    "pos_weight", "count"};
const ts_vision_layout ts_vision_layout_patch_rows_deepstack = {
    "patch_rows_deepstack", 6,         taps_inputs, 2, taps_types, ts_qwen_vl_entry_plan,
    taps_prepare,           taps_check};
