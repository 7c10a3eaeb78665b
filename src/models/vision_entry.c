/* vision_entry.c — the bundle's vision.main, and the table of its layouts (ts_vision_layout: the
 * host side of each, which the bundle runtime calls by the manifest's layout name).
 *
 * "patch_rows", one module per static patch-count bucket N (a tower attending within each frame):
 *
 *   vision.main(weights…, pixel_values f32[N, C·T·P·P], positions i32[N, 2], segments i32[N],
 *               count i32[]) → image_embeds f32[N / merge², out_hidden]
 *
 * The images fill the first `count` rows; the rows after them are padding in their own segment
 * (−1), so the block-diagonal mask keeps them from every real row. Output rows past
 * count / merge² are zero. count must be a multiple of merge² in merge²…N (checked by the bundle
 * before and at execution).
 *
 * "patch_rows_windowed", one module per bucket N likewise, for a tower whose blocks attend within
 * windows of window×window merge units except the full-attention blocks, which attend within a
 * frame (Qwen2_5_VisionTransformerPretrainedModel's get_window_index, cu_window_seqlens and
 * cu_seqlens):
 *
 *   vision.main(weights…, pixel_values f32[N, C·T·P·P], positions i32[N, 2], segments i32[N],
 *               windows i32[N], window_index i32[N / merge²], count i32[])
 *     → image_embeds f32[N / merge², out_hidden]
 *
 * pixel_values are in the processor's order; window_index[k] is the merge unit placed at window
 * order slot k (the graph gathers the patch embeddings into window order and scatters the merger
 * output back, the reverse order, so image_embeds are in the processor's order); positions,
 * segments (the frame: the full-attention mask) and windows (the window: the windowed mask) are
 * given in window order. Padding: rows at and past count have segment −1 and window −1 (so both
 * masks hide them from every real row), pixels and positions 0, and their units stay in place
 * (window_index[k] = k for k ≥ count / merge²); the real slots are a permutation of the real
 * units. window (merge units per window side) is in the manifest's vision section. Output rows
 * past count / merge² are zero.
 *
 * "patch_rows_deepstack", one module per bucket N likewise (a tower with a learned position
 * table and side outputs), with the
 * position-table taps as inputs and the DeepStack rows as a second result:
 *
 *   vision.main(weights…, pixel_values f32[N, C·T·P·P], positions i32[N, 2], segments i32[N],
 *               pos_index i32[4, N], pos_weight f32[4, N], count i32[])
 *     → image_embeds f32[N / merge², out_hidden], deepstack f32[K, N / merge², out_hidden]
 *
 * Padding rows as patch_rows' (segment −1, pixels and positions 0), and their taps are the filler
 * pos_index 0, pos_weight 0 (checked by the bundle: a padding row reads no table row). Real rows
 * take table rows 0..position_embeddings − 1 with finite weights. Rows of both results past
 * count / merge² are zero. K and the table's rows are in the manifest's vision section.
 *
 * "fixed_image", one module for the tower's image size S (its bucket is the (S/P)² patches of
 * that image; the CLIP and SigLIP towers):
 *
 *   vision.main(weights…, pixel_values f32[C, S, S]) → image_embeds f32[tokens, LM hidden]
 *
 * one image per call.
 *
 * "hd_views", one module per bucket of V views (an HD image: a global view and its crops, each an
 * S×S picture of (S/P)² patches; the bucket's patches are V·(S/P)², view_patches = (S/P)² in the
 * manifest's vision section; Phi-4-multimodal):
 *
 *   vision.main(weights…, pixel_values f32[V, 3, S, S], positions i32[V, (S/P)²],
 *               key_bias f32[V, (S/P)²], layout i32[R]) → image_embeds f32[R, out_hidden]
 *
 * one image per call, global view first; positions are the position-table rows of each view's
 * patches (0 for a crop's padding patch), key_bias 0 for a real patch and −inf for padding (a
 * view attends to its own real patches only; every view has one). The tower's features are
 * 2×2-pooled into a table of V·(S/2P)² rows followed by the sub-image and global separators;
 * layout[r] is the table row of the image's r-th token (R = V·(S/2P)² + V·S/2P + 1, the most a
 * V-view image has; rows past the image's tokens are padding, index 0). Views past the image's
 * are padding: zero pixels, positions 0, key_bias 0, never indexed by layout.
 */
#include "models/vision_entry.h"
#include "base/error.h"
#include "models/family.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ts_tower_ops *entry_ops(const ts_model_config *cfg, ts_error *err)
{
    const ts_tower_ops *ops =
        cfg->has_vision && cfg->family && cfg->family->tower ? cfg->family->tower : NULL;
    if (ops && ops->entry_geometry && ops->entry_build) return ops;
    char exported[256] = "";
    int count = 0;
    const ts_family_desc *const *all = ts_family_all(&count);
    for (int i = 0; i < count; i++)
        if (all[i]->tower && all[i]->tower->entry_build)
            snprintf(exported + strlen(exported), sizeof(exported) - strlen(exported), "%s%s",
                     exported[0] ? ", " : "", all[i]->name);
    ts_error_set(err, TS_ERR_UNSUPPORTED,
                 "vision.main: bundle entries exist for the towers of %s only (this is %s)",
                 exported, ts_family_name(cfg->family));
    return NULL;
}

ts_status ts_vision_entry_geometry_of(const ts_model_config *cfg, ts_vision_entry_geometry *out,
                                      ts_error *err)
{
    const ts_tower_ops *ops = entry_ops(cfg, err);
    return ops ? ops->entry_geometry(cfg, out, err) : TS_ERR_UNSUPPORTED;
}

ts_status ts_vision_entry_build(ts_graph *g, const ts_model_config *cfg,
                                const ts_weight_source *source, int64_t n_patches, ts_error *err)
{
    ts_vision_entry_geometry geometry;
    ts_status st = ts_vision_entry_geometry_of(cfg, &geometry, err);
    if (st == TS_OK) st = cfg->family->tower->entry_build(g, cfg, source, n_patches, err);
    /* A fixed-size image is the whole bucket: nothing to mask. */
    if (st != TS_OK || geometry.image_patches > 0) return st;
    int n_out = g->n_outputs;
    ts_value outs[2] = {g->outputs[0], n_out > 1 ? g->outputs[1] : TS_NO_VALUE};
    ts_graph_set_stage(g, "count");
    ts_value count =
        ts_graph_parameter(g, "count", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 0, NULL));
    ts_value unit = ts_graph_constant_i32(g, (int32_t)(geometry.merge * geometry.merge));
    ts_value tokens = ts_graph_binary(g, TS_OP_DIVIDE, count, unit);
    /* Rows past count / merge² are zero: image_embeds' dimension 0, deepstack's dimension 1. */
    for (int k = 0; k < n_out; k++) {
        const ts_type t = *ts_graph_type(g, outs[k]);
        ts_type rows_type = ts_type_make(TS_DTYPE_I32, t.rank, t.dims);
        ts_value row = ts_graph_iota(g, rows_type, t.rank - 2);
        ts_value keep = ts_graph_compare(
            g, TS_COMPARE_LT, row, ts_graph_broadcast_in_dim(g, tokens, t.rank, t.dims, NULL));
        ts_value zero =
            ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, 0.0f), t.rank, t.dims, NULL);
        outs[k] = ts_graph_select(g, keep, outs[k], zero);
    }
    ts_graph_set_outputs(g, outs, n_out);
    return ts_graph_status(g, err);
}

/* ---------------------------------------------------------------- the layouts */

void ts_vision_call_free(ts_vision_call *call)
{
    for (int i = 0; i < TS_VISION_MAX_ARGS; i++)
        free(call->owned[i]);
    memset(call, 0, sizeof(*call));
}

void *ts_vision_call_add(ts_vision_call *call, const char *name, ts_dtype dtype, int rank,
                         const int64_t *dims)
{
    if (call->n_args >= TS_VISION_MAX_ARGS) return NULL;
    ts_type t = ts_type_make(dtype, rank, dims);
    size_t bytes = ts_type_bytes(&t);
    void *buffer = calloc(bytes ? bytes : 1, 1);
    if (!buffer) return NULL;
    call->owned[call->n_args] = buffer;
    call->args[call->n_args++] = (ts_vision_arg){name, t, buffer, bytes};
    return buffer;
}

void ts_vision_call_add_count(ts_vision_call *call)
{
    if (call->n_args < TS_VISION_MAX_ARGS)
        call->args[call->n_args++] = (ts_vision_arg){"count", ts_type_make(TS_DTYPE_I32, 0, NULL),
                                                     &call->count, sizeof(int32_t)};
}

ts_status ts_vision_check_range(const int32_t *v, int64_t n, int64_t lo, int64_t hi,
                                const char *name, ts_error *err)
{
    for (int64_t i = 0; i < n; i++)
        if (v[i] < lo || v[i] > hi)
            return ts_error_set(err, TS_ERR_RANGE,
                                "vision.main: %s[%lld] = %d is outside %lld..%lld", name,
                                (long long)i, v[i], (long long)lo, (long long)hi);
    return TS_OK;
}

ts_status ts_vision_check_pixels(const float *f, int64_t values, ts_error *err)
{
    for (int64_t j = 0; j < values; j++)
        if (isnan(f[j]))
            return ts_error_set(err, TS_ERR_RANGE, "vision.main: pixel_values[%lld] is NaN",
                                (long long)j);
    return TS_OK;
}

ts_status ts_vision_check_patch_rows(const ts_vision_entry_geometry *geo, int64_t n,
                                     int64_t patch_dim, const float *pixels,
                                     const int32_t *positions, const int32_t *segments,
                                     int32_t count, ts_error *err)
{
    int64_t unit = geo->merge * geo->merge;
    if (count < unit || count > n || count % unit)
        return ts_error_set(err, TS_ERR_RANGE,
                            "vision.main: count = %d is not a multiple of %lld in %lld..%lld",
                            count, (long long)unit, (long long)unit, (long long)n);
    TS_TRY(ts_vision_check_range(positions, 2 * n, 0, n - 1, "positions", err));
    TS_TRY(ts_vision_check_range(segments, n, -1, n - 1, "segments", err));
    return ts_vision_check_pixels(pixels, n * patch_dim, err);
}

/* fixed_image: each [k, C, S, S] image is k calls of one f32[C, S, S] picture. */
static ts_status fixed_plan(const ts_vision_entry_geometry *geo, const ts_type *px,
                            const ts_pixel_values *images, int n_images, int *n_calls,
                            int64_t *rows, ts_error *err)
{
    int64_t count = 0;
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
    if (count > TS_MAX_IMAGES)
        return ts_error_set(err, TS_ERR_RANGE, "vision: %lld images (1..%d allowed)",
                            (long long)count, TS_MAX_IMAGES);
    *n_calls = (int)count, *rows = geo->image_patches;
    return TS_OK;
}

static ts_status fixed_prepare(const ts_vision_entry_geometry *geo, const ts_type *px,
                               const ts_pixel_values *images, int n_images, int call, int64_t n,
                               ts_vision_call *out, ts_error *err)
{
    (void)geo, (void)n, (void)err;
    int64_t pixels = ts_type_elements(px), j = call;
    int i = 0;
    while (i < n_images - 1 && j >= images[i].shape[0])
        j -= images[i++].shape[0];
    memset(out, 0, sizeof(*out));
    out->n_args = 1;
    out->args[0] = (ts_vision_arg){"pixel_values", *px, images[i].data + j * pixels,
                                   sizeof(float) * (size_t)pixels};
    out->tokens = -1; /* every row */
    return TS_OK;
}

static ts_status fixed_check(const ts_vision_entry_geometry *geo, const ts_type *px, int64_t n,
                             const void *const *data, ts_error *err)
{
    (void)geo, (void)n;
    return ts_vision_check_pixels(data[0], ts_type_elements(px), err);
}

static const char *const fixed_inputs[] = {"pixel_values"};
static const ts_vision_layout fixed_image = {"fixed_image", 1,          fixed_inputs,  1,
                                             NULL,          fixed_plan, fixed_prepare, fixed_check};

static const ts_vision_layout *const layouts[] = {
    &ts_vision_layout_patch_rows, &ts_vision_layout_patch_rows_windowed,
    &ts_vision_layout_patch_rows_deepstack, &fixed_image, &ts_vision_layout_hd_views};

const ts_vision_layout *ts_vision_layout_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof(layouts) / sizeof(layouts[0]); i++)
        if (strcmp(layouts[i]->name, name) == 0) return layouts[i];
    return NULL;
}

const char *ts_vision_layout_names(void)
{
    return "\"patch_rows\", \"patch_rows_windowed\", \"patch_rows_deepstack\", \"fixed_image\" or \"hd_views\"";
}
