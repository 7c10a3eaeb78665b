/* qwen3_vl_vision.c — Qwen3-VL's vision tower as a graph, in the order of
 * Qwen3VLVisionModel.forward (transformers, modeling_qwen3_vl.py):
 *
 *   h = patch_embed(pixel_values)              Conv3d with kernel = stride and bias: one linear
 *   h = h + fast_pos_embed_interpolate(grid)   4 taps of pos_embed per row (host-computed rows
 *                                              and weights), Σ taps in order 0..3
 *   cos, sin = rot_pos_emb(positions)          2-D rotary, as Qwen2-VL
 *   for each block i:  h = block(h)            LayerNorm; qkv; rope; per-frame attention;
 *                                              LayerNorm; linear_fc1 → hidden_act → linear_fc2
 *     if i in deepstack_visual_indexes:        deepstack_merger_list[j](h): merge² rows side by
 *                                              side, LayerNorm over merge²·D, MLP
 *   image_embeds = merger(h)                   LayerNorm over D per patch, side by side, MLP
 *
 * The block, the rotary tables, the frame mask and the mergers' MLP (Linear → exact GELU →
 * Linear) are qwen_vision_block.c's, shared with Qwen2-VL; the rows' positions and segments are
 * ts_qwen2_vl_vision_layout's (rot_pos_emb and cu_seqlens are the same as Qwen2-VL's).
 *
 * The f32 arithmetic of the taps (linspace, truncation, dh, the weight products) is done on the
 * host in the reference's order; this file is compiled as ISO C, where GCC does not contract
 * a·b + c into one rounding (-ffp-contract=off), so every product rounds as torch's does.
 */
#include "models/qwen3_vl/qwen3_vl_vision.h"
#include "models/family.h"
#include "models/qwen2_vl/qwen2_vl_vision.h"
#include "models/qwen2_vl/qwen_vision_block.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- position taps */

float ts_qwen3_vl_linspace(float end, int64_t n, int64_t i, ts_linspace_rule rule)
{
    if (n <= 1) return 0.0f; /* torch fills a one-step linspace with start */
    const float start = 0.0f, step = end / (float)(n - 1);
    int64_t half = n / 2, first = i;
    if (rule == TS_LINSPACE_TORCH_VEC8 && i < n / 16 * 16) first = i / 8 * 8;
    float base = first < half ? start + step * (float)first : end - step * (float)(n - first - 1);
    if (first == i) return base;
    return base + (float)(i - first) * step; /* Vectorized<float>::arange(base, step) */
}

/* The four taps of patch (y, x) of an h×w grid, written as row r of rows. */
static void row_taps(const ts_qwen3_vl_vision_spec *s, int64_t h, int64_t w, int64_t y, int64_t x,
                     int64_t r, int64_t rows, int32_t *index, float *weight)
{
    const int64_t side = s->grid_side;
    const float end = (float)(side - 1);
    float hv = ts_qwen3_vl_linspace(end, h, y, s->linspace),
          wv = ts_qwen3_vl_linspace(end, w, x, s->linspace);
    /* .int() truncates (the values are ≥ 0); ceil = floor + 1, clipped to the last row/column. */
    int64_t h0 = (int64_t)hv, w0 = (int64_t)wv;
    int64_t h1 = h0 + 1 < side ? h0 + 1 : side - 1, w1 = w0 + 1 < side ? w0 + 1 : side - 1;
    float dh = hv - (float)h0, dw = wv - (float)w0;
    float ch = 1.0f - dh, cw = 1.0f - dw;
    const int64_t taps[4] = {h0 * side + w0, h0 * side + w1, h1 * side + w0, h1 * side + w1};
    const float weights[4] = {ch * cw, ch * dw, dh * cw, dh * dw};
    for (int k = 0; k < 4; k++) {
        index[k * rows + r] = (int32_t)taps[k];
        weight[k * rows + r] = weights[k];
    }
}

void ts_qwen3_vl_vision_pos_taps(const ts_qwen3_vl_vision_spec *spec, const ts_vision_grid *grids,
                                 int n_grids, int64_t rows, int32_t *index, float *weight)
{
    const int64_t m = spec->merge;
    int64_t r = 0;
    for (int i = 0; i < n_grids; i++) {
        const ts_vision_grid *gr = &grids[i];
        /* Merge-block order, as the pixel rows: blocks in raster order, raster inside a block. */
        for (int64_t t = 0; t < gr->t; t++)
            for (int64_t by = 0; by < gr->h / m; by++)
                for (int64_t bx = 0; bx < gr->w / m; bx++)
                    for (int64_t k = 0; k < m * m; k++)
                        row_taps(spec, gr->h, gr->w, by * m + k / m, bx * m + k % m, r++, rows,
                                 index, weight);
    }
}

/* ---------------------------------------------------------------- graph */

typedef struct {
    ts_value norm_w, norm_b, fc1_w, fc1_b, fc2_w, fc2_b;
} merger_weights;

/* Qwen3VLVisionPatchMerger's weights under `name` ("merger", "deepstack_merger_list.j"): the norm
 * is over D per patch, or over merge²·D after the shuffle (use_postshuffle_norm). */
static void load_merger(ts_qwen_vision_loader *l, const ts_qwen3_vl_vision_spec *s,
                        const char *name, bool postshuffle, merger_weights *w)
{
    int64_t merged = s->width * s->merge * s->merge, normed = postshuffle ? merged : s->width;
    w->norm_w = ts_qwen_vision_vec(l, normed, "%s.norm.weight", name);
    w->norm_b = ts_qwen_vision_vec(l, normed, "%s.norm.bias", name);
    w->fc1_w = ts_qwen_vision_mat(l, merged, merged, "%s.linear_fc1.weight", name);
    w->fc1_b = ts_qwen_vision_vec(l, merged, "%s.linear_fc1.bias", name);
    w->fc2_w = ts_qwen_vision_mat(l, s->out_hidden, merged, "%s.linear_fc2.weight", name);
    w->fc2_b = ts_qwen_vision_vec(l, s->out_hidden, "%s.linear_fc2.bias", name);
}

/* forward: norm(x.view(-1, merge²·D)) or norm(x).view(-1, merge²·D), then the MLP. */
static ts_value merger(ts_graph *g, const ts_qwen3_vl_vision_spec *s, const merger_weights *w,
                       bool postshuffle, ts_value h)
{
    int64_t n = ts_graph_type(g, h)->dims[0], unit = s->merge * s->merge,
            units[2] = {n / unit, s->width * unit};
    ts_value x;
    if (postshuffle)
        x = ts_graph_layer_norm(g, ts_graph_reshape(g, h, 2, units), w->norm_w, w->norm_b,
                                s->norm_eps);
    else
        x = ts_graph_reshape(g, ts_graph_layer_norm(g, h, w->norm_w, w->norm_b, s->norm_eps), 2,
                             units);
    return ts_qwen_vision_merger_mlp(g, x, w->fc1_w, w->fc1_b, w->fc2_w, w->fc2_b);
}

/* Σ_k pos_embed[index[k]] · weight[k], added left to right as the reference's
 * pos_embeds[0] + pos_embeds[1] + pos_embeds[2] + pos_embeds[3]. */
static ts_value interpolated_positions(ts_graph *g, ts_value table, ts_value index, ts_value weight,
                                       int64_t n, int64_t d)
{
    int64_t d3[3] = {4, n, d}, keep[2] = {0, 1}, flat[2] = {n, d};
    ts_value rows = ts_graph_embedding(g, table, index);
    ts_value taps =
        ts_graph_binary(g, TS_OP_MULTIPLY, rows, ts_graph_broadcast_in_dim(g, weight, 3, d3, keep));
    ts_value sum = TS_NO_VALUE;
    for (int64_t k = 0; k < 4; k++) {
        int64_t start[3] = {k, 0, 0}, limit[3] = {k + 1, n, d};
        ts_value tap = ts_graph_reshape(g, ts_graph_slice(g, taps, start, limit, NULL), 2, flat);
        sum = k == 0 ? tap : ts_graph_binary(g, TS_OP_ADD, sum, tap);
    }
    return sum;
}

ts_status ts_qwen3_vl_vision_build(ts_graph *g, const ts_qwen3_vl_vision_spec *spec,
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
    if (spec->n_deepstack < 0 || spec->n_deepstack > TS_QWEN3_VL_MAX_DEEPSTACK)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "vision: %d DeepStack mergers (0..%d supported)", spec->n_deepstack,
                            TS_QWEN3_VL_MAX_DEEPSTACK);
    ts_qwen_vision_loader ld = {g, weights, spec->prefix, TS_OK, err}, *l = &ld;
    const ts_qwen_vision_dims dims = {spec->width,    spec->heads, spec->head_dim,  spec->inter,
                                      spec->norm_eps, false,       spec->activation};
    const ts_qwen_vision_mlp_names mlp_names = {"linear_fc1", NULL, "linear_fc2"};
    int64_t d = spec->width;

    /* Weights first, so every failure about the checkpoint comes before any input is declared. */
    ts_graph_set_stage(g, "vision.patch_embed");
    int64_t conv[5] = {d, spec->in_channels, spec->temporal, spec->patch, spec->patch},
            as_mat[2] = {d, spec->patch_dim};
    ts_value patch_w = ts_qwen_vision_weight(l, 5, conv, 2, as_mat, "patch_embed.proj.weight");
    ts_value patch_b = ts_qwen_vision_vec(l, d, "patch_embed.proj.bias");
    ts_graph_set_stage(g, "vision.pos_embed");
    ts_value table = ts_qwen_vision_mat(l, spec->n_positions, d, "pos_embed.weight");
    ts_qwen_vision_block bw[TS_MAX_LAYERS];
    for (int i = 0; i < spec->depth && l->status == TS_OK; i++) {
        ts_graph_set_stage(g, "vision.block.%d", i);
        ts_qwen_vision_block_load(l, &dims, &mlp_names, i, &bw[i]);
    }
    ts_graph_set_stage(g, "vision.merger");
    merger_weights main_merger, ds_merger[TS_QWEN3_VL_MAX_DEEPSTACK];
    load_merger(l, spec, "merger", false, &main_merger);
    /* Which merger (its position in deepstack_visual_indexes) follows each block; −1: none. */
    int merger_after[TS_MAX_LAYERS];
    for (int i = 0; i < spec->depth; i++)
        merger_after[i] = -1;
    for (int j = 0; j < spec->n_deepstack && l->status == TS_OK; j++) {
        ts_graph_set_stage(g, "vision.deepstack_merger.%d", j);
        char name[48];
        snprintf(name, sizeof(name), "deepstack_merger_list.%d", j);
        load_merger(l, spec, name, true, &ds_merger[j]);
        merger_after[spec->deepstack_block[j]] = j;
    }
    if (l->status != TS_OK) return l->status;

    ts_graph_set_stage(g, "vision.inputs");
    int64_t pv[2] = {n_patches, spec->patch_dim}, pos[2] = {n_patches, 2}, taps[2] = {4, n_patches};
    ts_value pixels =
        ts_graph_parameter(g, "pixel_values", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_F32, 2, pv));
    ts_value positions =
        ts_graph_parameter(g, "positions", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 2, pos));
    ts_value segments = ts_graph_parameter(g, "segments", TS_PARAM_INPUT,
                                           ts_type_make(TS_DTYPE_I32, 1, &n_patches));
    ts_value pos_index =
        ts_graph_parameter(g, "pos_index", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 2, taps));
    ts_value pos_weight =
        ts_graph_parameter(g, "pos_weight", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_F32, 2, taps));

    /* outs: image_embeds, deepstack (K > 0), then patch_embed, pos_embed, blocks_input, blocks. */
    ts_value outs[5 + TS_MAX_LAYERS], deepstack[TS_QWEN3_VL_MAX_DEEPSTACK];
    int n_out = 1 + (spec->n_deepstack > 0), n_features = 0;
    ts_graph_set_stage(g, "vision.patch_embed");
    ts_value h = ts_graph_linear(g, pixels, patch_w, patch_b);
    outs[n_out] = h;
    ts_graph_set_stage(g, "vision.pos_embed");
    ts_value pos_embed = interpolated_positions(g, table, pos_index, pos_weight, n_patches, d);
    h = ts_graph_binary(g, TS_OP_ADD, h, pos_embed);
    outs[n_out + 1] = pos_embed;
    outs[n_out + 2] = h;
    ts_graph_set_stage(g, "vision.rope");
    ts_value cos, sin;
    ts_qwen_vision_rope_tables(g, spec->head_dim, spec->inv_freq, positions, &cos, &sin);
    ts_graph_set_stage(g, "vision.mask");
    ts_value frame_bias = ts_qwen_vision_segment_bias(g, segments);
    int64_t one_feature[3] = {1, n_patches / unit, spec->out_hidden};
    for (int i = 0; i < spec->depth; i++) {
        ts_graph_set_stage(g, "vision.block.%d", i);
        h = ts_qwen_vision_block_apply(g, &dims, &bw[i], h, cos, sin, frame_bias);
        outs[n_out + 3 + i] = h;
        if (merger_after[i] < 0) continue;
        ts_graph_set_stage(g, "vision.deepstack.%d", n_features);
        ts_value feature = merger(g, spec, &ds_merger[merger_after[i]], true, h);
        deepstack[n_features++] = ts_graph_reshape(g, feature, 3, one_feature);
    }
    ts_graph_set_stage(g, "vision.merger");
    outs[0] = merger(g, spec, &main_merger, false, h);
    if (n_features > 0) {
        ts_graph_set_stage(g, "vision.deepstack");
        outs[1] =
            n_features == 1 ? deepstack[0] : ts_graph_concatenate(g, deepstack, n_features, 0);
    }
    ts_graph_set_outputs(g, outs, diagnostics ? n_out + 3 + (int)spec->depth : n_out);
    return ts_graph_status(g, err);
}

/* ---------------------------------------------------------------- config */

ts_status ts_qwen3_vl_vision_spec_init(const ts_model_config *cfg, ts_qwen3_vl_vision_spec *spec,
                                       ts_error *err)
{
    const ts_vision_config *v = &cfg->vision;
    memset(spec, 0, sizeof(*spec));
    if ((!ts_family_is(cfg->family, "qwen3_vl") && !ts_family_is(cfg->family, "qwen3_vl_moe")) || !cfg->has_vision)
        return ts_error_set(
            err, TS_ERR_UNSUPPORTED,
            "%s: not a Qwen3-VL vision tower (this builder takes qwen3_vl, qwen3_vl_moe)",
            ts_family_name(cfg->family));
    spec->prefix = "model.visual.";
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
    spec->n_positions = v->num_position_embeddings;
    /* int(num_position_embeddings ** 0.5), as the reference computes it. */
    spec->grid_side = spec->n_positions > 0 ? (int64_t)sqrt((double)spec->n_positions) : 0;
    spec->linspace = TS_LINSPACE_TORCH;
    ts_status st = ts_qwen_vision_check_geometry(spec->head_dim, spec->depth, spec->merge, spec->patch, spec->patch_dim, spec->inter,
                                                 spec->out_hidden, err);
    if (st != TS_OK) return st;
    if (spec->grid_side < 1 || spec->grid_side > (1 << 15) ||
        spec->grid_side * spec->grid_side > spec->n_positions)
        return ts_error_set(
            err, TS_ERR_FORMAT,
            "config.json: vision_config.num_position_embeddings %lld does not hold a square table",
            (long long)spec->n_positions);
    st = ts_qwen_vision_activation(v->hidden_act, &spec->activation, err);
    if (st != TS_OK) return st;
    if (v->n_deepstack_visual_indexes > TS_QWEN3_VL_MAX_DEEPSTACK)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "config.json: %d deepstack_visual_indexes (at most %d supported)",
                            v->n_deepstack_visual_indexes, TS_QWEN3_VL_MAX_DEEPSTACK);
    spec->n_deepstack = v->n_deepstack_visual_indexes;
    for (int j = 0; j < spec->n_deepstack; j++) {
        spec->deepstack_block[j] = v->deepstack_visual_indexes[j];
        if (spec->deepstack_block[j] < 0 || spec->deepstack_block[j] >= spec->depth)
            return ts_error_set(err, TS_ERR_FORMAT,
                                "config.json: vision_config.deepstack_visual_indexes[%d] = %lld is "
                                "outside the %lld blocks",
                                j, (long long)spec->deepstack_block[j], (long long)spec->depth);
        for (int i = 0; i < j; i++)
            if (spec->deepstack_block[i] == spec->deepstack_block[j])
                return ts_error_set(
                    err, TS_ERR_UNSUPPORTED,
                    "config.json: vision_config.deepstack_visual_indexes names block %lld twice",
                    (long long)spec->deepstack_block[j]);
    }
    ts_qwen_vision_inv_freq(spec->head_dim, spec->inv_freq);
    return TS_OK;
}
