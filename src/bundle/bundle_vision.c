/* bundle_vision.c — images through a bundle's vision.main: admission of a request's images to a
 * vision bucket, the module's arguments, and its calls, validated as every entry call is (at the
 * API against the manifest with the values, again against the module graph).
 *
 * What the arguments are is the manifest's layout's (ts_vision_layout, models/vision_entry.h):
 * the layout plans the calls the images take and the patch rows each needs, this file admits
 * each call to the smallest bucket that holds it, asks the layout for the call's arguments and
 * value checks, runs the module and keeps each result's image rows (a second result is the
 * DeepStack levels [K, rows, width]). What a prompt does with the rows is ts_mm_inputs_build's.
 */
#include "base/error.h"
#include "bundle/bundle_internal.h"
#include "models/vision_entry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- vision.main */

/* The layout's geometry, from the manifest (its layout was found at open). */
static ts_vision_entry_geometry geometry_of(const ts_vision_manifest *v)
{
    return (ts_vision_entry_geometry){v->layout,
                                      v->patch_size,
                                      v->temporal_patch_size,
                                      v->merge_size,
                                      v->width,
                                      v->depth,
                                      v->out_hidden,
                                      strcmp(v->layout, "fixed_image") == 0 ? v->patches[0] : v->view_patches,
                                      v->deepstack_levels,
                                      v->position_embeddings,
                                      v->window};
}

static ts_status check_values(const ts_bundle *b, int bucket, const void *const *data,
                              ts_error *err)
{
    const ts_vision_manifest *v = &b->man.vision;
    const ts_vision_layout *layout = ts_vision_layout_find(v->layout);
    const ts_vision_entry_geometry geo = geometry_of(v);
    return layout->check(&geo, &v->entries[bucket].inputs[0].type, v->patches[bucket], data, err);
}

ts_status ts_bundle_run_vision(ts_bundle *b, int bucket, const ts_tensor_arg *args, int n_args,
                               const void **outputs, ts_error *err)
{
    static const char *const entry = "vision.main";
    const ts_vision_manifest *v = &b->man.vision;
    if (v->n_buckets == 0)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "vision: this bundle has no vision.main entries");
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
    ts_status st = check_values(b, bucket, data, err);
    /* Second layer: the module graph's own parameters, and the values again. */
    if (st == TS_OK)
        st = ts_bundle_bind_args(b->vision_graphs[bucket], v->n_weights, b->vision_params[bucket],
                                 entry, args, n_args, data, err);
    if (st == TS_OK) st = check_values(b, bucket, data, err);
    if (st == TS_OK)
        st = ts_program_run(b->vision_programs[bucket], b->vision_params[bucket], outputs, err);
    return st;
}

int ts_bundle_vision_buckets(const ts_bundle *b, const int64_t **patches)
{
    if (patches) *patches = b->man.vision.patches;
    return b->man.vision.n_buckets;
}

int ts_bundle_vision_levels(const ts_bundle *b)
{
    const ts_vision_manifest *v = &b->man.vision;
    return v->n_buckets && ts_vision_layout_find(v->layout)->n_results > 1 ? v->deepstack_levels
                                                                           : 0;
}

/* The smallest bucket that holds `rows` patches, or TS_ERR_RANGE listing the buckets. */
static ts_status admit(const ts_vision_manifest *v, int64_t rows, int *bucket, ts_error *err)
{
    int i = 0;
    while (i < v->n_buckets && v->patches[i] < rows)
        i++;
    if (i < v->n_buckets) return *bucket = i, TS_OK;
    char list[256] = "";
    for (int k = 0, at = 0; k < v->n_buckets && at < (int)sizeof(list); k++)
        at += snprintf(list + at, sizeof(list) - (size_t)at, "%s%lld", k ? ", " : "",
                       (long long)v->patches[k]);
    return ts_error_set(err, TS_ERR_RANGE,
                        "vision: %lld patches do not fit the bundle's vision buckets (%s)",
                        (long long)rows, list);
}

/* One planned call: its arguments from the layout, the module, and the image rows of each
 * result appended at out[level] + *done rows (out[0]: image_embeds, out[1 + j]: DeepStack j). */
static ts_status run_call(ts_bundle *b, const ts_vision_layout *layout,
                          const ts_vision_entry_geometry *geo, const ts_pixel_values *images,
                          int n_images, int call, int bucket, float **out, int64_t *capacity,
                          int64_t *done, ts_error *err)
{
    const ts_vision_manifest *v = &b->man.vision;
    const ts_entry_descriptors *ed = &v->entries[bucket];
    ts_vision_call c;
    ts_status st = layout->prepare(geo, &ed->inputs[0].type, images, n_images, call,
                                   v->patches[bucket], &c, err);
    if (st != TS_OK) return st;
    ts_tensor_arg args[TS_VISION_MAX_ARGS];
    for (int i = 0; i < c.n_args; i++) {
        const ts_vision_arg *a = &c.args[i];
        args[i] = (ts_tensor_arg){a->name, a->type.dtype, a->type.rank, {0}, a->data, a->n_bytes};
        memcpy(args[i].dims, a->type.dims, sizeof(int64_t) * (size_t)a->type.rank);
    }
    const void *outs[2];
    st = ts_bundle_run_vision(b, bucket, args, c.n_args, outs, err);
    /* Result 0 is [rows, width]; result 1 [K, rows, width]: each level's first `tokens` rows. */
    int64_t rows = ed->results[0].type.dims[0],
            tokens = c.tokens < 0 || c.tokens > rows ? rows : c.tokens;
    int levels = 1 + (layout->n_results > 1 ? v->deepstack_levels : 0);
    size_t width = (size_t)v->out_hidden;
    if (st == TS_OK && *done + tokens > *capacity) {
        int64_t grown = *capacity * 2 > *done + tokens ? *capacity * 2 : *done + tokens;
        for (int l = 0; st == TS_OK && l < levels; l++) {
            float *p = realloc(out[l], sizeof(float) * width * (size_t)grown);
            if (!p)
                st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY,
                                  "vision: out of memory for %lld image rows", (long long)grown);
            else
                out[l] = p;
        }
        if (st == TS_OK) *capacity = grown;
    }
    for (int l = 0; st == TS_OK && l < levels; l++) {
        const float *src =
            l == 0 ? outs[0] : (const float *)outs[1] + (size_t)(l - 1) * (size_t)rows * width;
        memcpy(out[l] + (size_t)*done * width, src, sizeof(float) * width * (size_t)tokens);
    }
    if (st == TS_OK) *done += tokens;
    ts_vision_call_free(&c);
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
    const ts_vision_layout *layout = ts_vision_layout_find(v->layout);
    const ts_vision_entry_geometry geo = geometry_of(v);
    int n_calls = 0, bucket = 0;
    int64_t rows = 0, capacity = 0, done = 0;
    ts_status st =
        layout->plan(&geo, &v->entries[0].inputs[0].type, images, n_images, &n_calls, &rows, err);
    if (st == TS_OK) st = admit(v, rows, &bucket, err);
    int levels = 1 + (layout->n_results > 1 ? v->deepstack_levels : 0);
    float *level[1 + TS_MAX_DEEPSTACK] = {NULL};
    for (int call = 0; st == TS_OK && call < n_calls; call++)
        st =
            run_call(b, layout, &geo, images, n_images, call, bucket, level, &capacity, &done, err);
    if (st == TS_OK && levels > 1) {
        /* [K][rows][width], one level after another. */
        size_t per = sizeof(float) * (size_t)(done * v->out_hidden);
        out->deepstack = malloc(per * (size_t)(levels - 1));
        if (!out->deepstack) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory");
        for (int l = 1; st == TS_OK && l < levels; l++)
            memcpy((char *)out->deepstack + per * (size_t)(l - 1), level[l], per);
        out->deepstack_levels = levels - 1;
    }
    for (int l = 1; l < levels; l++)
        free(level[l]);
    if (st != TS_OK) {
        free(level[0]), free(out->deepstack);
        memset(out, 0, sizeof(*out));
        return st;
    }
    out->rows = level[0], out->n_rows = done, out->hidden = v->out_hidden;
    return TS_OK;
}
