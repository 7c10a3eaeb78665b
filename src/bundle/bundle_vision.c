/* bundle_vision.c — images through a bundle's vision.main: admission of a request's patch rows to
 * a patch bucket, the module's arguments, and its calls, validated as every entry call is (at
 * the API against the manifest with the values, again against the module graph).
 *
 * ts_bundle_encode_images admits Qwen2-VL and Qwen3-VL images to the smallest patch bucket, pads
 * the rows in a segment of their own (so the block-diagonal mask hides them; Qwen3-VL's padding
 * taps are the filler pos_index 0, pos_weight 0) and passes the real count; a Qwen3-VL
 * vision.main also gives the DeepStack rows. LLaVA's fixed-size images run one per call. What a
 * prompt does with the rows is ts_mm_inputs_build's.
 */
#include "base/error.h"
#include "bundle/bundle_internal.h"
#include "models/qwen2_vl/qwen2_vl_vision.h"
#include "models/qwen3_vl/qwen3_vl_vision.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- vision.main */

/* vision.main's value checks, made at the API (ts_bundle_run_vision) and again at execution:
 * count a multiple of merge² within the bucket, segments −1 (padding) or a frame index, positions
 * non-negative and below the bucket, pixels not NaN; patch_rows_deepstack also the taps: for the
 * rows before count, pos_index within the position table and pos_weight finite; for the padding
 * rows at and past count, exactly the filler pos_index 0, pos_weight 0. */
static ts_status check_vision_values(const ts_bundle *b, int64_t n, const void *const *data,
                                     ts_error *err)
{
    const ts_vision_manifest *v = &b->man.vision;
    bool deepstack = strcmp(v->layout, "patch_rows_deepstack") == 0;
    int64_t unit = v->merge_size * v->merge_size;
    int32_t count = *(const int32_t *)data[deepstack ? 5 : 3];
    if (count < unit || count > n || count % unit)
        return ts_error_set(err, TS_ERR_RANGE,
                            "vision.main: count = %d is not a multiple of %lld in %lld..%lld",
                            count, (long long)unit, (long long)unit, (long long)n);
    ts_status st = ts_bundle_range_i32(data[1], 2 * n, 0, n - 1, "vision.main", "positions", err);
    if (st == TS_OK)
        st = ts_bundle_range_i32(data[2], n, -1, n - 1, "vision.main", "segments", err);
    const float *f = data[0];
    int64_t values = n * v->entries[0].inputs[0].type.dims[1];
    for (int64_t j = 0; st == TS_OK && j < values; j++)
        if (isnan(f[j]))
            st = ts_error_set(err, TS_ERR_RANGE, "vision.main: pixel_values[%lld] is NaN",
                              (long long)j);
    const int32_t *index = deepstack ? data[3] : NULL;
    const float *weight = deepstack ? data[4] : NULL;
    for (int k = 0; st == TS_OK && deepstack && k < 4; k++)
        for (int64_t r = 0; st == TS_OK && r < n; r++) {
            int32_t i = index[k * n + r];
            float w = weight[k * n + r];
            if (r >= count && (i != 0 || w != 0.0f))
                st = ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                                  "vision.main: row %lld is padding (at or past count = %d): its "
                                  "taps must be the filler pos_index 0, "
                                  "pos_weight 0 (tap %d is %d, %g)",
                                  (long long)r, count, k, i, (double)w);
            else if (r < count && (i < 0 || i >= v->position_embeddings))
                st = ts_error_set(
                    err, TS_ERR_RANGE,
                    "vision.main: pos_index[%d][%lld] = %d is outside the position table 0..%lld",
                    k, (long long)r, i, (long long)(v->position_embeddings - 1));
            else if (r < count && !isfinite(w))
                st = ts_error_set(err, TS_ERR_RANGE, "vision.main: pos_weight[%d][%lld] is %s", k,
                                  (long long)r, isnan(w) ? "NaN" : "infinite");
        }
    return st;
}

ts_status ts_bundle_run_vision(ts_bundle *b, int bucket, const ts_tensor_arg *args, int n_args,
                               const void **outputs, ts_error *err)
{
    static const char *const entry = "vision.main";
    const ts_vision_manifest *v = &b->man.vision;
    if (v->n_buckets == 0 || strcmp(v->layout, "fixed_image") == 0)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "vision: this bundle has no patch-row vision.main entries");
    if (bucket < 0 || bucket >= v->n_buckets)
        return ts_error_set(err, TS_ERR_RANGE, "vision bucket %d (the bundle has %d)", bucket,
                            v->n_buckets);
    /* First layer: the manifest's descriptors and the values. */
    const ts_entry_descriptors *ed = &v->entries[bucket];
    if (n_args != ed->n_inputs)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "%s: %d arguments given, %d expected",
                            entry, n_args, ed->n_inputs);
    const void *data[16];
    for (int i = 0; i < n_args; i++) {
        const ts_descriptor *d = &ed->inputs[i];
        const ts_tensor_arg *a = &args[i];
        ts_type given = ts_type_make(a->dtype, a->rank, a->dims);
        if (!a->name || strcmp(a->name, d->name) != 0)
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                                "%s: argument %d is '%s', expected '%s' (argument order)", entry, i,
                                a->name ? a->name : "(unnamed)", d->name);
        if (!ts_type_equal(&given, &d->type) || a->n_bytes != ts_type_bytes(&d->type) || !a->data) {
            char want[128], got[128];
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                                "%s: %s is %s, %zu bytes; expected %s", entry, d->name,
                                ts_type_string(&given, got, sizeof(got)), a->n_bytes,
                                ts_type_string(&d->type, want, sizeof(want)));
        }
        data[i] = a->data;
    }
    int64_t n = v->patches[bucket];
    ts_status st = check_vision_values(b, n, data, err);
    /* Second layer: the module graph's own parameters, and the values again. */
    if (st == TS_OK)
        st = ts_bundle_bind_args(b->vision_graphs[bucket], v->n_weights, b->vision_params[bucket],
                                 entry, args, n_args, data, err);
    if (st == TS_OK) st = check_vision_values(b, n, data, err);
    if (st == TS_OK)
        st = ts_program_run(b->vision_programs[bucket], b->vision_params[bucket], outputs, err);
    return st;
}

int ts_bundle_vision_buckets(const ts_bundle *b, const int64_t **patches)
{
    if (patches) *patches = b->man.vision.patches;
    return b->man.vision.n_buckets;
}

/* LLaVA: each [k, C, S, S] image runs through the one module, one image at a time. */
static ts_status encode_fixed_images(ts_bundle *b, const ts_pixel_values *images, int n_images,
                                     float **embeds, int64_t *n_rows, ts_error *err)
{
    const ts_vision_manifest *v = &b->man.vision;
    const ts_type *px = &v->entries[0].inputs[0].type;
    int64_t tokens = v->entries[0].results[0].type.dims[0], count = 0,
            pixels = ts_type_elements(px);
    for (int i = 0; i < n_images; i++) {
        const ts_pixel_values *p = &images[i];
        if (!p->data || p->n_dims != 4 || p->shape[0] < 1 || p->shape[1] != px->dims[0] ||
            p->shape[2] != px->dims[1] || p->shape[3] != px->dims[2])
            return ts_error_set(
                err, TS_ERR_INVALID_ARGUMENT,
                "vision: image %d is not [k, %lld, %lld, %lld] pixel values for this tower", i,
                (long long)px->dims[0], (long long)px->dims[1], (long long)px->dims[2]);
        count += p->shape[0];
    }
    if (count > 64)
        return ts_error_set(err, TS_ERR_RANGE, "vision: %lld images (1..64 allowed)",
                            (long long)count);
    size_t per_image = (size_t)(tokens * v->out_hidden);
    float *out = malloc(sizeof(float) * per_image * (size_t)count);
    ts_status st = out ? TS_OK
                       : ts_error_set(err, TS_ERR_OUT_OF_MEMORY,
                                      "vision: out of memory for %lld images", (long long)count);
    int64_t done = 0;
    for (int i = 0; st == TS_OK && i < n_images; i++)
        for (int64_t j = 0; st == TS_OK && j < images[i].shape[0]; j++, done++) {
            const float *image = images[i].data + j * pixels;
            const ts_tensor_arg arg = {"pixel_values",
                                       TS_DTYPE_F32,
                                       3,
                                       {px->dims[0], px->dims[1], px->dims[2]},
                                       image,
                                       sizeof(float) * (size_t)pixels};
            const void *data[16], *outs[1];
            st = ts_bundle_bind_args(b->vision_graphs[0], v->n_weights, b->vision_params[0],
                                     "vision.main", &arg, 1, data, err);
            for (int64_t k = 0; st == TS_OK && k < pixels; k++)
                if (isnan(image[k]))
                    st = ts_error_set(err, TS_ERR_RANGE, "vision.main: pixel_values[%lld] is NaN",
                                      (long long)k);
            if (st == TS_OK)
                st = ts_program_run(b->vision_programs[0], b->vision_params[0], outs, err);
            if (st == TS_OK)
                memcpy(out + (size_t)done * per_image, outs[0], sizeof(float) * per_image);
        }
    if (st != TS_OK) {
        free(out);
        return st;
    }
    *embeds = out, *n_rows = count * tokens;
    return TS_OK;
}

int ts_bundle_vision_levels(const ts_bundle *b)
{
    return b->man.vision.n_buckets && strcmp(b->man.vision.layout, "patch_rows_deepstack") == 0
               ? b->man.vision.deepstack_levels
               : 0;
}
/* Patch rows (Qwen2-VL, Qwen3-VL): the smallest bucket that holds every row, the padding rows in
 * a segment of their own (so the block-diagonal mask hides them) with zero pixels and positions
 * and, for Qwen3-VL, the filler taps (pos_index 0, pos_weight 0); the real count. */
static ts_status encode_rows(ts_bundle *b, const ts_pixel_values *images, int n_images,
                             float **embeds, float **deepstack, int *levels, int64_t *n_rows,
                             ts_error *err)
{
    const ts_vision_manifest *v = &b->man.vision;
    bool taps = strcmp(v->layout, "patch_rows_deepstack") == 0;
    int64_t patch_dim = v->entries[0].inputs[0].type.dims[1];
    ts_vision_grid grids[64];
    int64_t rows, frames;
    ts_status st = ts_qwen2_vl_vision_grids(images, n_images, patch_dim, v->merge_size, grids,
                                            &rows, &frames, err);
    if (st != TS_OK) return st;
    /* Admission: the smallest patch bucket that holds every row. */
    int bucket = 0;
    while (bucket < v->n_buckets && v->patches[bucket] < rows)
        bucket++;
    if (bucket == v->n_buckets) {
        char list[256] = "";
        for (int i = 0, at = 0; i < v->n_buckets && at < (int)sizeof(list); i++)
            at += snprintf(list + at, sizeof(list) - (size_t)at, "%s%lld", i ? ", " : "",
                           (long long)v->patches[i]);
        return ts_error_set(err, TS_ERR_RANGE,
                            "vision: %lld patches do not fit the bundle's vision buckets (%s)",
                            (long long)rows, list);
    }
    int64_t n = v->patches[bucket];
    float *pixels = calloc((size_t)(n * patch_dim), sizeof(float)),
          *pos_weight = taps ? calloc((size_t)(4 * n), sizeof(float)) : NULL;
    int32_t *positions = calloc((size_t)(2 * n), sizeof(int32_t)),
            *segments = malloc(sizeof(int32_t) * (size_t)n);
    int32_t *pos_index = taps ? calloc((size_t)(4 * n), sizeof(int32_t)) : NULL;
    if (!pixels || !positions || !segments || (taps && (!pos_index || !pos_weight)))
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory for %lld patches",
                          (long long)n);
    if (st == TS_OK) {
        ts_qwen2_vl_vision_pack(images, n_images, patch_dim, pixels);
        ts_qwen2_vl_vision_layout(grids, n_images, v->merge_size, positions, segments, NULL);
        for (int64_t r = rows; r < n; r++)
            segments[r] = -1; /* padding: its own segment, hidden from every image row */
        if (taps) {
            /* The table geometry of ts_qwen3_vl_vision_spec_init, from the manifest; the padding
             * rows keep calloc's filler. */
            ts_qwen3_vl_vision_spec spec = {.merge = v->merge_size, .linspace = TS_LINSPACE_TORCH};
            spec.grid_side = (int64_t)sqrt((double)v->position_embeddings);
            ts_qwen3_vl_vision_pos_taps(&spec, grids, n_images, n, pos_index, pos_weight);
        }
        int32_t count = (int32_t)rows;
        const ts_tensor_arg args[6] = {
            {"pixel_values",
             TS_DTYPE_F32,
             2,
             {n, patch_dim},
             pixels,
             sizeof(float) * (size_t)(n * patch_dim)},
            {"positions", TS_DTYPE_I32, 2, {n, 2}, positions, sizeof(int32_t) * (size_t)(2 * n)},
            {"segments", TS_DTYPE_I32, 1, {n}, segments, sizeof(int32_t) * (size_t)n},
            taps ? (ts_tensor_arg){"pos_index",
                                   TS_DTYPE_I32,
                                   2,
                                   {4, n},
                                   pos_index,
                                   sizeof(int32_t) * (size_t)(4 * n)}
                 : (ts_tensor_arg){"count", TS_DTYPE_I32, 0, {0}, &count, sizeof(int32_t)},
            {"pos_weight", TS_DTYPE_F32, 2, {4, n}, pos_weight, sizeof(float) * (size_t)(4 * n)},
            {"count", TS_DTYPE_I32, 0, {0}, &count, sizeof(int32_t)},
        };
        const void *out[2];
        st = ts_bundle_run_vision(b, bucket, args, taps ? 6 : 4, out, err);
        int64_t tokens = rows / (v->merge_size * v->merge_size),
                unit_rows = n / (v->merge_size * v->merge_size);
        size_t level = (size_t)(tokens * v->out_hidden);
        int k = deepstack && taps ? v->deepstack_levels : 0;
        if (st == TS_OK) {
            *embeds = malloc(sizeof(float) * level);
            if (k) *deepstack = malloc(sizeof(float) * level * (size_t)k);
            if (!*embeds || (k && !*deepstack))
                st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory");
        }
        if (st == TS_OK) {
            memcpy(*embeds, out[0], sizeof(float) * level);
            /* deepstack[j] of the bucket is [unit_rows][out_hidden]: its first `tokens` rows are
             * the images'. */
            for (int j = 0; j < k; j++)
                memcpy(*deepstack + (size_t)j * level,
                       (const float *)out[1] + (size_t)j * (size_t)(unit_rows * v->out_hidden),
                       sizeof(float) * level);
            *n_rows = tokens;
            if (levels) *levels = k;
        } else {
            free(*embeds), *embeds = NULL;
            if (deepstack) free(*deepstack), *deepstack = NULL;
        }
    }
    free(pixels), free(positions), free(segments), free(pos_index), free(pos_weight);
    return st;
}

ts_status ts_bundle_encode_images(ts_bundle *b, const ts_pixel_values *images, int n_images,
                                  ts_encoded_media *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    const ts_vision_manifest *v = &b->man.vision;
    if (v->n_buckets == 0)
        return ts_error_set(
            err, TS_ERR_UNSUPPORTED,
            "vision: this bundle has no vision.main entries (export it with vision buckets)");
    if (n_images < 1 || n_images > 64)
        return ts_error_set(err, TS_ERR_RANGE, "vision: %d images (1..64 allowed)", n_images);
    out->hidden = v->out_hidden;
    if (strcmp(v->layout, "fixed_image") == 0)
        return encode_fixed_images(b, images, n_images, &out->rows, &out->n_rows, err);
    return encode_rows(b, images, n_images, &out->rows, &out->deepstack, &out->deepstack_levels,
                       &out->n_rows, err);
}
