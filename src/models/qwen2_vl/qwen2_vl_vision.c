/* qwen2_vl_vision.c — Qwen2-VL's vision tower as a graph, in the order of
 * Qwen2VisionTransformerPretrainedModel.forward (transformers, modeling_qwen2_vl.py):
 *
 *   h = patch_embed(pixel_values)                 Conv3d with kernel = stride: one matmul per row
 *   cos, sin = rot_pos_emb(positions)             2-D rotary: [h·inv_freq, w·inv_freq]
 *   for each block:  h = h + attn(norm1(h))       LayerNorm; qkv; rope on q, k; per-frame attention
 *                    h = h + mlp(norm2(h))        fc1 → hidden_act → fc2
 *   image_embeds = merger(h)                      ln_q; merge² rows side by side; Linear → GELU → Linear
 *
 * Qwen2.5-VL (Qwen2_5_VisionTransformerPretrainedModel, modular_qwen2_5_vl.py) differs in: rows
 * permuted into window order after patch_embed and back after the merger, window-local
 * attention except in fullatt_block_indexes, RMSNorm for norm1/norm2/ln_q, and a SiLU-gated MLP
 * with biases (the gated_mlp composite has no biases, so it is written with linear ops).
 */
#include "models/qwen2_vl/qwen2_vl_vision.h"
#include "models/family.h"
#include "models/qwen2_vl/qwen_vision_block.h"

#include <string.h>

static bool is_qwen2_5(const ts_qwen2_vl_vision_spec *s) { return s->windowed; }

/* Moves merge units (groups of n_rows / n_units consecutive rows) by `index` (i32[n_units]):
 * gather puts unit index[k] at slot k (into window order); scatter puts slot k at unit index[k]
 * (back, the argsort(window_index) of the reference). The scatter adds into zeros, which is exact
 * for a permutation. */
static ts_value unit_rows(ts_graph *g, ts_value x, int64_t n_units, ts_value index, bool scatter)
{
    const ts_type t = *ts_graph_type(g, x);
    int64_t width = ts_type_elements(&t) / n_units, grouped[2] = {n_units, width};
    ts_value units = ts_graph_reshape(g, x, 2, grouped);
    ts_dims window = {.n = 1, .v = {1}}, unit_axis = {.n = 1, .v = {0}};
    ts_value moved;
    if (scatter) {
        ts_value zero =
            ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, 0.0f), 2, grouped, NULL);
        moved = ts_graph_scatter_add(g, zero, index, units, &window, &unit_axis, &unit_axis, 1);
    } else {
        ts_dims sizes = {.n = 2, .v = {1, width}};
        moved = ts_graph_gather(g, units, index, &window, &unit_axis, &unit_axis, 1, &sizes);
    }
    return ts_graph_reshape(g, moved, t.rank, t.dims);
}

/* The block constants of either tower: Qwen2-VL's LayerNorm and fc1 → act → fc2, Qwen2.5-VL's
 * RMSNorm and SiLU-gated MLP with biases. */
static ts_qwen_vision_dims block_dims(const ts_qwen2_vl_vision_spec *s)
{
    return (ts_qwen_vision_dims){s->width,    s->heads,      s->head_dim,  s->inter,
                                 s->norm_eps, is_qwen2_5(s), s->activation};
}

ts_status ts_qwen2_vl_vision_build(ts_graph *g, const ts_qwen2_vl_vision_spec *spec,
                                   const ts_weight_source *weights, int64_t n_patches,
                                   bool diagnostics, ts_error *err)
{
    int64_t unit = spec->merge * spec->merge;
    if (n_patches < unit || n_patches % unit)
        return ts_error_set(err, TS_ERR_RANGE,
                            "vision: %lld patches is not a positive multiple of merge² = %lld",
                            (long long)n_patches, (long long)unit);
    if (spec->depth < 1 || spec->depth > TS_MAX_LAYERS)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "vision: depth %lld (1..%d supported)",
                            (long long)spec->depth, TS_MAX_LAYERS);
    ts_qwen_vision_loader ld = {g, weights, spec->prefix, TS_OK, err}, *l = &ld;
    const ts_qwen_vision_dims dims = block_dims(spec);
    bool v2_5 = is_qwen2_5(spec);
    const ts_qwen_vision_mlp_names mlp_names =
        v2_5 ? (ts_qwen_vision_mlp_names){"gate_proj", "up_proj", "down_proj"}
             : (ts_qwen_vision_mlp_names){"fc1", NULL, "fc2"};
    int64_t d = spec->width, merged = d * unit;

    /* Weights first, so every failure about the checkpoint comes before any input is declared. */
    ts_graph_set_stage(g, "vision.patch_embed");
    int64_t conv[5] = {d, spec->in_channels, spec->temporal, spec->patch, spec->patch},
            as_mat[2] = {d, spec->patch_dim};
    ts_value patch_w = ts_qwen_vision_weight(l, 5, conv, 2, as_mat, "patch_embed.proj.weight");
    ts_qwen_vision_block bw[TS_MAX_LAYERS];
    for (int i = 0; i < spec->depth && l->status == TS_OK; i++) {
        ts_graph_set_stage(g, "vision.block.%d", i);
        ts_qwen_vision_block_load(l, &dims, &mlp_names, i, &bw[i]);
    }
    ts_graph_set_stage(g, "vision.merger");
    ts_value ln_q_w = ts_qwen_vision_vec(l, d, "merger.ln_q.weight");
    ts_value ln_q_b = v2_5 ? TS_NO_VALUE : ts_qwen_vision_vec(l, d, "merger.ln_q.bias");
    ts_value mlp0_w = ts_qwen_vision_mat(l, merged, merged, "merger.mlp.0.weight"),
             mlp0_b = ts_qwen_vision_vec(l, merged, "merger.mlp.0.bias");
    ts_value mlp2_w = ts_qwen_vision_mat(l, spec->out_hidden, merged, "merger.mlp.2.weight");
    ts_value mlp2_b = ts_qwen_vision_vec(l, spec->out_hidden, "merger.mlp.2.bias");
    if (l->status != TS_OK) return l->status;

    ts_graph_set_stage(g, "vision.inputs");
    int64_t n_units = n_patches / unit;
    int64_t pv[2] = {n_patches, spec->patch_dim}, pos[2] = {n_patches, 2};
    ts_type per_row = ts_type_make(TS_DTYPE_I32, 1, &n_patches);
    ts_value pixels =
        ts_graph_parameter(g, "pixel_values", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_F32, 2, pv));
    ts_value positions =
        ts_graph_parameter(g, "positions", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 2, pos));
    ts_value segments = ts_graph_parameter(g, "segments", TS_PARAM_INPUT, per_row);
    ts_value windows = TS_NO_VALUE, window_index = TS_NO_VALUE;
    if (v2_5) {
        windows = ts_graph_parameter(g, "windows", TS_PARAM_INPUT, per_row);
        window_index = ts_graph_parameter(g, "window_index", TS_PARAM_INPUT,
                                          ts_type_make(TS_DTYPE_I32, 1, &n_units));
    }

    /* outs: image_embeds, patch_embed, blocks_input, block 0 … depth−1, merger output. */
    ts_value outs[4 + TS_MAX_LAYERS];
    ts_graph_set_stage(g, "vision.patch_embed");
    ts_value h = ts_graph_linear(g, pixels, patch_w, TS_NO_VALUE);
    outs[1] = h;
    if (v2_5) {
        ts_graph_set_stage(g, "vision.window_order");
        h = unit_rows(g, h, n_units, window_index, false);
    }
    outs[2] = h;
    ts_graph_set_stage(g, "vision.rope");
    ts_value cos, sin;
    ts_qwen_vision_rope_tables(g, spec->head_dim, spec->inv_freq, positions, &cos, &sin);
    ts_graph_set_stage(g, "vision.mask");
    ts_value frame_bias = ts_qwen_vision_segment_bias(g, segments);
    ts_value window_bias = v2_5 ? ts_qwen_vision_segment_bias(g, windows) : TS_NO_VALUE;
    for (int i = 0; i < spec->depth; i++) {
        ts_graph_set_stage(g, "vision.block.%d", i);
        bool whole_frame = !v2_5 || spec->full_attention[i];
        h = ts_qwen_vision_block_apply(g, &dims, &bw[i], h, cos, sin,
                                       whole_frame ? frame_bias : window_bias);
        outs[3 + i] = h;
    }
    /* PatchMerger: ln_q per patch, then each merge unit's rows side by side (a view), then the MLP.
     */
    ts_graph_set_stage(g, "vision.merger");
    int64_t units[2] = {n_units, merged};
    ts_value ln = v2_5 ? ts_graph_rms_norm(g, h, ln_q_w, spec->norm_eps, 0)
                       : ts_graph_layer_norm(g, h, ln_q_w, ln_q_b, spec->norm_eps);
    ts_value x = ts_qwen_vision_merger_mlp(g, ts_graph_reshape(g, ln, 2, units), mlp0_w, mlp0_b,
                                           mlp2_w, mlp2_b);
    outs[3 + spec->depth] = x;
    if (v2_5) {
        ts_graph_set_stage(g, "vision.processor_order");
        x = unit_rows(g, x, n_units, window_index, true);
    }
    outs[0] = x;
    ts_graph_set_outputs(g, outs, diagnostics ? (int)(4 + spec->depth) : 1);
    return ts_graph_status(g, err);
}

/* ---------------------------------------------------------------- layout from the grids */

ts_status ts_qwen2_vl_vision_count(const ts_vision_grid *grids, int n_grids, int64_t merge, int64_t *rows,
                                   int64_t *frames, ts_error *err)
{
    *rows = 0, *frames = 0;
    if (n_grids < 1) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "vision: no image grids");
    for (int i = 0; i < n_grids; i++) {
        const ts_vision_grid *gr = &grids[i];
        /* Positions are i32 inputs; keep every count far from overflow. */
        const int64_t limit = 1 << 20;
        if (gr->t < 1 || gr->h < 1 || gr->w < 1 || gr->t > limit || gr->h > limit || gr->w > limit)
            return ts_error_set(err, TS_ERR_RANGE, "vision: grid %d is (%lld, %lld, %lld); each side must be 1..%lld", i,
                                (long long)gr->t, (long long)gr->h, (long long)gr->w, (long long)limit);
        if (gr->h % merge || gr->w % merge)
            return ts_error_set(err, TS_ERR_RANGE, "vision: grid %d is %lld×%lld patches; both sides must be multiples of the merge size %lld",
                                i, (long long)gr->h, (long long)gr->w, (long long)merge);
        *rows += gr->t * gr->h * gr->w;
        *frames += gr->t;
        if (*rows > INT32_MAX / 2)
            return ts_error_set(err, TS_ERR_RANGE, "vision: more than %d patches", INT32_MAX / 2);
    }
    return TS_OK;
}

void ts_qwen2_vl_vision_layout(const ts_vision_grid *grids, int n_grids, int64_t merge, int32_t *positions,
                               int32_t *segments, int64_t *cu_seqlens)
{
    int64_t r = 0, frame = 0;
    if (cu_seqlens) cu_seqlens[0] = 0;
    for (int i = 0; i < n_grids; i++) {
        const ts_vision_grid *gr = &grids[i];
        for (int64_t t = 0; t < gr->t; t++, frame++) {
            for (int64_t bh = 0; bh < gr->h / merge; bh++)
                for (int64_t bw = 0; bw < gr->w / merge; bw++)
                    for (int64_t ih = 0; ih < merge; ih++)
                        for (int64_t iw = 0; iw < merge; iw++, r++) {
                            positions[2 * r] = (int32_t)(bh * merge + ih);
                            positions[2 * r + 1] = (int32_t)(bw * merge + iw);
                            segments[r] = (int32_t)frame;
                        }
            if (cu_seqlens) cu_seqlens[frame + 1] = r;
        }
    }
}

void ts_qwen2_5_vl_vision_layout(const ts_vision_grid *grids, int n_grids, int64_t merge, int64_t window,
                                 int32_t *positions, int32_t *segments, int32_t *windows, int32_t *window_index)
{
    int64_t unit = merge * merge, slot = 0, first_unit = 0, frame = 0, n_windows = 0;
    for (int i = 0; i < n_grids; i++) {
        const ts_vision_grid *gr = &grids[i];
        int64_t uh = gr->h / merge, uw = gr->w / merge;
        /* The reference pads to the next multiple, plus a whole empty window when divisible;
         * empty windows hold no unit and get no number, so the count below suffices. */
        int64_t win_rows = uh / window + 1, win_cols = uw / window + 1;
        for (int64_t t = 0; t < gr->t; t++, frame++)
            for (int64_t wr = 0; wr < win_rows; wr++)
                for (int64_t wc = 0; wc < win_cols; wc++) {
                    bool any = false;
                    for (int64_t r = wr * window; r < (wr + 1) * window && r < uh; r++)
                        for (int64_t c = wc * window; c < (wc + 1) * window && c < uw; c++, slot++) {
                            any = true;
                            window_index[slot] = (int32_t)(first_unit + (t * uh + r) * uw + c);
                            for (int64_t k = 0; k < unit; k++) {
                                int64_t row = slot * unit + k;
                                positions[2 * row] = (int32_t)(r * merge + k / merge);
                                positions[2 * row + 1] = (int32_t)(c * merge + k % merge);
                                segments[row] = (int32_t)frame;
                                windows[row] = (int32_t)n_windows;
                            }
                        }
                    n_windows += any;
                }
        first_unit += gr->t * uh * uw;
    }
}

/* ---------------------------------------------------------------- config */

ts_status ts_qwen2_vl_vision_spec_init(const ts_model_config *cfg, ts_qwen2_vl_vision_spec *spec, ts_error *err)
{
    const ts_vision_config *v = &cfg->vision;
    memset(spec, 0, sizeof(*spec));
    if ((!ts_family_is(cfg->family, "qwen2_vl") && !ts_family_is(cfg->family, "qwen2_5_vl")) || !cfg->has_vision)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: not a Qwen2-VL or Qwen2.5-VL vision tower (this builder takes qwen2_vl, qwen2_5_vl)",
                            ts_family_name(cfg->family));
    spec->windowed = ts_family_is(cfg->family, "qwen2_5_vl");
    spec->prefix = "visual.";
    spec->depth = v->depth;
    spec->width = v->hidden_size;
    spec->heads = v->num_heads;
    spec->head_dim = v->num_heads > 0 ? v->hidden_size / v->num_heads : 0;
    spec->inter = v->intermediate_size;
    spec->out_hidden = v->out_hidden_size;
    spec->in_channels = v->in_channels;
    spec->temporal = v->temporal_patch_size;
    spec->patch = v->patch_size;
    spec->merge = v->spatial_merge_size;
    spec->patch_dim = spec->in_channels * spec->temporal * spec->patch * spec->patch;
    spec->norm_eps = v->layer_norm_eps;
    ts_status st = ts_qwen_vision_check_geometry(spec->head_dim, spec->depth, spec->merge, spec->patch, spec->patch_dim, spec->inter,
                                                 spec->out_hidden, err);
    if (st != TS_OK) return st;
    st = ts_qwen_vision_activation(v->hidden_act, &spec->activation, err);
    if (st != TS_OK) return st;
    if (spec->windowed) {
        /* get_window_index: vit_merger_window_size = window_size // spatial_merge_size // patch_size. */
        spec->window = v->window_size / spec->merge / spec->patch;
        if (spec->window < 1)
            return ts_error_set(err, TS_ERR_UNSUPPORTED, "config.json: vision_config.window_size %lld is under one merge unit (%lld pixels)",
                                (long long)v->window_size, (long long)(spec->merge * spec->patch));
        for (int i = 0; i < v->n_fullatt_block_indexes; i++) spec->full_attention[v->fullatt_block_indexes[i]] = true;
    }
    ts_qwen_vision_inv_freq(spec->head_dim, spec->inv_freq);
    return TS_OK;
}

ts_status ts_qwen2_vl_vision_grids(const ts_pixel_values *images, int n_images, int64_t patch_dim, int64_t merge,
                                   ts_vision_grid *grids, int64_t *rows, int64_t *frames, ts_error *err)
{
    for (int i = 0; i < n_images; i++) {
        const ts_pixel_values *p = &images[i];
        if (!p->data || p->n_dims != 2 || p->shape[1] != patch_dim || p->shape[0] != p->grid_thw[0] * p->grid_thw[1] * p->grid_thw[2])
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "vision: image %d is not [t·h·w, %lld] patch rows for this tower", i,
                                (long long)patch_dim);
        grids[i] = (ts_vision_grid){p->grid_thw[0], p->grid_thw[1], p->grid_thw[2]};
    }
    return ts_qwen2_vl_vision_count(grids, n_images, merge, rows, frames, err);
}

void ts_qwen2_vl_vision_pack(const ts_pixel_values *images, int n_images, int64_t patch_dim, float *pixels)
{
    int64_t at = 0;
    for (int i = 0; i < n_images; i++) {
        memcpy(pixels + at * patch_dim, images[i].data, sizeof(float) * (size_t)(images[i].shape[0] * patch_dim));
        at += images[i].shape[0];
    }
}
