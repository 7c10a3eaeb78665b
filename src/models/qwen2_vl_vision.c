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
#include "models/qwen2_vl_vision.h"
#include "models/weights.h"

#include "graph/decompose.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    ts_graph *g;
    const ts_qwen2_vl_vision_spec *spec;
    const ts_weight_source *weights;
    ts_error *err;
    ts_status status;
} builder;

/* Qwen2-VL uses fc1/fc2 and LayerNorm biases; Qwen2.5-VL gate/up/down and no norm biases. */
typedef struct {
    ts_value norm1_w, norm1_b, qkv_w, qkv_b, proj_w, proj_b, norm2_w, norm2_b;
    ts_value fc1_w, fc1_b, fc2_w, fc2_b;
    ts_value gate_w, gate_b, up_w, up_b, down_w, down_b;
} block_weights;

static bool is_qwen2_5(const ts_qwen2_vl_vision_spec *s) { return s->family == TS_FAMILY_QWEN2_5_VL; }

/* A checkpoint tensor checked against its published shape `dims` and declared as a parameter of
 * shape `as_dims` with the same element count: the bytes are bound unchanged, so a Conv3d kernel
 * [D, C, T, P, P] becomes the matmul weight [D, C·T·P·P] without a copy. */
static ts_value weight_as(builder *b, int rank, const int64_t *dims, int as_rank, const int64_t *as_dims, const char *fmt, ...)
    TS_PRINTF(6, 7);

static ts_value weight_as(builder *b, int rank, const int64_t *dims, int as_rank, const int64_t *as_dims, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ts_value v = ts_weight_paramv(b->g, b->weights, &b->status, b->err, rank, dims, as_rank, as_dims, fmt, ap);
    va_end(ap);
    return v;
}

static ts_value vec(builder *b, int64_t n, const char *what, int block)
{
    if (block < 0) return weight_as(b, 1, &n, 1, &n, "%s%s", b->spec->prefix, what);
    return weight_as(b, 1, &n, 1, &n, "%sblocks.%d.%s", b->spec->prefix, block, what);
}

static ts_value mat(builder *b, int64_t out, int64_t in, const char *what, int block)
{
    int64_t d[2] = {out, in};
    if (block < 0) return weight_as(b, 2, d, 2, d, "%s%s", b->spec->prefix, what);
    return weight_as(b, 2, d, 2, d, "%sblocks.%d.%s", b->spec->prefix, block, what);
}

/* Columns [from, from + n) of a [N, C] value, viewed as [N, heads, n / heads]. */
static ts_value head_columns(ts_graph *g, ts_value x, int64_t from, int64_t n, int64_t heads)
{
    int64_t rows = ts_graph_type(g, x)->dims[0];
    int64_t start[2] = {0, from}, limit[2] = {rows, from + n}, dims[3] = {rows, heads, n / heads};
    return ts_graph_reshape(g, ts_graph_slice(g, x, start, limit, NULL), 3, dims);
}

/* rot_pos_emb: freqs = outer(arange, inv_freq) looked up at h and at w and flattened, i.e.
 * angle[r] = [h_r·inv_freq, w_r·inv_freq] (head_dim/2 values). apply_rotary_pos_emb_vision uses
 * cat(angle, angle) with rotate_half, which is the half-split rope over the whole head with
 * cos/sin of `angle`. The products are f32, as torch.outer of f32 operands. */
static void rope_tables(ts_graph *g, const ts_qwen2_vl_vision_spec *spec, ts_value positions, ts_value *cos, ts_value *sin)
{
    int64_t n = ts_graph_type(g, positions)->dims[0], quarter = spec->head_dim / 4;
    int64_t d3[3] = {n, 2, quarter}, d2[2] = {n, 2 * quarter}, keep[2] = {0, 1}, last = 2;
    ts_value inv = ts_graph_constant(g, ts_type_make(TS_DTYPE_F32, 1, &quarter), spec->inv_freq);
    ts_value pos = ts_graph_broadcast_in_dim(g, ts_graph_convert(g, positions, TS_DTYPE_F32), 3, d3, keep);
    ts_value angle = ts_graph_binary(g, TS_OP_MULTIPLY, pos, ts_graph_broadcast_in_dim(g, inv, 3, d3, &last));
    angle = ts_graph_reshape(g, angle, 2, d2);
    *cos = ts_graph_unary(g, TS_OP_COSINE, angle);
    *sin = ts_graph_unary(g, TS_OP_SINE, angle);
}

/* The cu_seqlens mask as an additive bias: query i sees key j iff segments[i] == segments[j]. */
static ts_value segment_bias(ts_graph *g, ts_value segments)
{
    int64_t n = ts_graph_type(g, segments)->dims[0];
    int64_t d2[2] = {n, n}, as_row = 0, as_col = 1;
    ts_value qs = ts_graph_broadcast_in_dim(g, segments, 2, d2, &as_row);
    ts_value ks = ts_graph_broadcast_in_dim(g, segments, 2, d2, &as_col);
    ts_value same = ts_graph_compare(g, TS_COMPARE_EQ, qs, ks);
    ts_value zero = ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, 0.0f), 2, d2, NULL);
    ts_value masked = ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, -INFINITY), 2, d2, NULL);
    return ts_graph_select(g, same, zero, masked);
}

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
        ts_value zero = ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, 0.0f), 2, grouped, NULL);
        moved = ts_graph_scatter_add(g, zero, index, units, &window, &unit_axis, &unit_axis, 1);
    } else {
        ts_dims sizes = {.n = 2, .v = {1, width}};
        moved = ts_graph_gather(g, units, index, &window, &unit_axis, &unit_axis, 1, &sizes);
    }
    return ts_graph_reshape(g, moved, t.rank, t.dims);
}

static void load_block(builder *b, int i, block_weights *w)
{
    const ts_qwen2_vl_vision_spec *s = b->spec;
    int64_t d = s->width;
    bool v2_5 = is_qwen2_5(s);
    w->norm1_w = vec(b, d, "norm1.weight", i);
    w->norm1_b = v2_5 ? TS_NO_VALUE : vec(b, d, "norm1.bias", i);
    w->qkv_w = mat(b, 3 * d, d, "attn.qkv.weight", i);
    w->qkv_b = vec(b, 3 * d, "attn.qkv.bias", i);
    w->proj_w = mat(b, d, d, "attn.proj.weight", i);
    w->proj_b = vec(b, d, "attn.proj.bias", i);
    w->norm2_w = vec(b, d, "norm2.weight", i);
    w->norm2_b = v2_5 ? TS_NO_VALUE : vec(b, d, "norm2.bias", i);
    if (v2_5) {
        w->gate_w = mat(b, s->inter, d, "mlp.gate_proj.weight", i);
        w->gate_b = vec(b, s->inter, "mlp.gate_proj.bias", i);
        w->up_w = mat(b, s->inter, d, "mlp.up_proj.weight", i);
        w->up_b = vec(b, s->inter, "mlp.up_proj.bias", i);
        w->down_w = mat(b, d, s->inter, "mlp.down_proj.weight", i);
        w->down_b = vec(b, d, "mlp.down_proj.bias", i);
    } else {
        w->fc1_w = mat(b, s->inter, d, "mlp.fc1.weight", i);
        w->fc1_b = vec(b, s->inter, "mlp.fc1.bias", i);
        w->fc2_w = mat(b, d, s->inter, "mlp.fc2.weight", i);
        w->fc2_b = vec(b, d, "mlp.fc2.bias", i);
    }
}

/* LayerNorm (Qwen2-VL) or Qwen2RMSNorm (Qwen2.5-VL, no bias), both eps 1e-6. */
static ts_value norm(ts_graph *g, const ts_qwen2_vl_vision_spec *s, ts_value x, ts_value weight, ts_value bias)
{
    if (is_qwen2_5(s)) return ts_graph_rms_norm(g, x, weight, s->norm_eps, 0);
    return ts_graph_layer_norm(g, x, weight, bias, s->norm_eps);
}

/* VisionMlp: fc2(act(fc1(x))); Qwen2_5_VLMLP: down(act(gate(x)) · up(x)), every Linear with a
 * bias. Neither fits the gated_mlp composite (no gate, or biases), so the activation is written
 * out in the primitives the composite decomposes to. */
static ts_value mlp(ts_graph *g, const ts_qwen2_vl_vision_spec *s, const block_weights *w, ts_value x)
{
    if (!is_qwen2_5(s))
        return ts_graph_linear(g, ts_decompose_activation(g, ts_graph_linear(g, x, w->fc1_w, w->fc1_b), s->activation), w->fc2_w, w->fc2_b);
    ts_value gate = ts_decompose_activation(g, ts_graph_linear(g, x, w->gate_w, w->gate_b), s->activation);
    ts_value up = ts_graph_linear(g, x, w->up_w, w->up_b);
    return ts_graph_linear(g, ts_graph_binary(g, TS_OP_MULTIPLY, gate, up), w->down_w, w->down_b);
}

/* Qwen2VLVisionBlock: h + attn(norm1(h)), then h + mlp(norm2(h)). VisionAttention splits qkv as
 * reshape(N, 3, heads, head_dim), so q, k, v are consecutive column blocks of width D. `bias` is
 * the segment mask this block attends under (frames, or Qwen2.5-VL's windows). */
static ts_value block(ts_graph *g, const ts_qwen2_vl_vision_spec *s, const block_weights *w, ts_value h, ts_value cos,
                      ts_value sin, ts_value bias)
{
    int64_t n = ts_graph_type(g, h)->dims[0], d = s->width;
    ts_value x = norm(g, s, h, w->norm1_w, w->norm1_b);
    ts_value qkv = ts_graph_linear(g, x, w->qkv_w, w->qkv_b);
    ts_value q = head_columns(g, qkv, 0, d, s->heads);
    ts_value k = head_columns(g, qkv, d, d, s->heads);
    ts_value v = head_columns(g, qkv, 2 * d, d, s->heads);
    q = ts_graph_rope(g, q, cos, sin, (int)s->head_dim, false);
    k = ts_graph_rope(g, k, cos, sin, (int)s->head_dim, false);
    ts_value a = ts_graph_attention(g, q, k, v, bias, TS_NO_VALUE, 1.0 / sqrt((double)s->head_dim), 0);
    int64_t flat[2] = {n, d};
    h = ts_graph_binary(g, TS_OP_ADD, h, ts_graph_linear(g, ts_graph_reshape(g, a, 2, flat), w->proj_w, w->proj_b));
    return ts_graph_binary(g, TS_OP_ADD, h, mlp(g, s, w, norm(g, s, h, w->norm2_w, w->norm2_b)));
}

ts_status ts_qwen2_vl_vision_build(ts_graph *g, const ts_qwen2_vl_vision_spec *spec, const ts_weight_source *weights,
                                   int64_t n_patches, bool diagnostics, ts_error *err)
{
    int64_t unit = spec->merge * spec->merge;
    if (n_patches < unit || n_patches % unit)
        return ts_error_set(err, TS_ERR_RANGE, "vision: %lld patches is not a positive multiple of merge² = %lld",
                            (long long)n_patches, (long long)unit);
    if (spec->depth < 1 || spec->depth > TS_MAX_LAYERS)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "vision: depth %lld (1..%d supported)", (long long)spec->depth, TS_MAX_LAYERS);
    builder bb = {g, spec, weights, err, TS_OK}, *b = &bb;
    int64_t d = spec->width, merged = d * unit;

    /* Weights first, so every failure about the checkpoint comes before any input is declared. */
    ts_graph_set_stage(g, "vision.patch_embed");
    int64_t conv[5] = {d, spec->in_channels, spec->temporal, spec->patch, spec->patch}, as_mat[2] = {d, spec->patch_dim};
    ts_value patch_w = weight_as(b, 5, conv, 2, as_mat, "%spatch_embed.proj.weight", spec->prefix);
    block_weights bw[TS_MAX_LAYERS];
    for (int i = 0; i < spec->depth && b->status == TS_OK; i++) {
        ts_graph_set_stage(g, "vision.block.%d", i);
        load_block(b, i, &bw[i]);
    }
    ts_graph_set_stage(g, "vision.merger");
    bool v2_5 = is_qwen2_5(spec);
    ts_value ln_q_w = vec(b, d, "merger.ln_q.weight", -1), ln_q_b = v2_5 ? TS_NO_VALUE : vec(b, d, "merger.ln_q.bias", -1);
    ts_value mlp0_w = mat(b, merged, merged, "merger.mlp.0.weight", -1), mlp0_b = vec(b, merged, "merger.mlp.0.bias", -1);
    ts_value mlp2_w = mat(b, spec->out_hidden, merged, "merger.mlp.2.weight", -1);
    ts_value mlp2_b = vec(b, spec->out_hidden, "merger.mlp.2.bias", -1);
    if (b->status != TS_OK) return b->status;

    ts_graph_set_stage(g, "vision.inputs");
    int64_t n_units = n_patches / unit;
    int64_t pv[2] = {n_patches, spec->patch_dim}, pos[2] = {n_patches, 2};
    ts_type per_row = ts_type_make(TS_DTYPE_I32, 1, &n_patches);
    ts_value pixels = ts_graph_parameter(g, "pixel_values", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_F32, 2, pv));
    ts_value positions = ts_graph_parameter(g, "positions", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 2, pos));
    ts_value segments = ts_graph_parameter(g, "segments", TS_PARAM_INPUT, per_row);
    ts_value windows = TS_NO_VALUE, window_index = TS_NO_VALUE;
    if (v2_5) {
        windows = ts_graph_parameter(g, "windows", TS_PARAM_INPUT, per_row);
        window_index = ts_graph_parameter(g, "window_index", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 1, &n_units));
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
    rope_tables(g, spec, positions, &cos, &sin);
    ts_graph_set_stage(g, "vision.mask");
    ts_value frame_bias = segment_bias(g, segments);
    ts_value window_bias = v2_5 ? segment_bias(g, windows) : TS_NO_VALUE;
    for (int i = 0; i < spec->depth; i++) {
        ts_graph_set_stage(g, "vision.block.%d", i);
        bool whole_frame = !v2_5 || spec->full_attention[i];
        h = block(g, spec, &bw[i], h, cos, sin, whole_frame ? frame_bias : window_bias);
        outs[3 + i] = h;
    }
    /* PatchMerger: ln_q per patch, then each merge unit's rows side by side (a view), then the MLP
     * with nn.GELU() — exact erf, whatever the blocks' activation is. */
    ts_graph_set_stage(g, "vision.merger");
    int64_t units[2] = {n_units, merged};
    ts_value x = ts_graph_reshape(g, norm(g, spec, h, ln_q_w, ln_q_b), 2, units);
    x = ts_decompose_activation(g, ts_graph_linear(g, x, mlp0_w, mlp0_b), TS_ACT_GELU);
    x = ts_graph_linear(g, x, mlp2_w, mlp2_b);
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
    if ((cfg->family != TS_FAMILY_QWEN2_VL && cfg->family != TS_FAMILY_QWEN2_5_VL) || !cfg->has_vision)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: not a Qwen2-VL or Qwen2.5-VL vision tower (this builder takes qwen2_vl, qwen2_5_vl)",
                            ts_family_name(cfg->family));
    spec->family = cfg->family;
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
    /* The 2-D rotary splits head_dim/2 rotated pairs evenly between h and w. */
    if (spec->head_dim < 4 || spec->head_dim % 4 || spec->head_dim / 4 > 256)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "config.json: vision head_dim %lld (embed_dim / num_heads) must be a multiple of 4, at most 1024",
                            (long long)spec->head_dim);
    if (spec->depth < 1 || spec->depth > TS_MAX_LAYERS || spec->merge < 1 || spec->patch_dim < 1 || spec->out_hidden < 1)
        return ts_error_set(err, TS_ERR_FORMAT, "config.json: vision_config (depth %lld, merge %lld, patch %lld) does not describe a tower",
                            (long long)spec->depth, (long long)spec->merge, (long long)spec->patch);
    if (strcmp(v->hidden_act, "quick_gelu") == 0) spec->activation = TS_ACT_QUICK_GELU;
    else if (strcmp(v->hidden_act, "gelu") == 0) spec->activation = TS_ACT_GELU;
    else if (strcmp(v->hidden_act, "gelu_pytorch_tanh") == 0) spec->activation = TS_ACT_GELU_TANH;
    else if (strcmp(v->hidden_act, "silu") == 0) spec->activation = TS_ACT_SILU;
    else
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "config.json: vision_config.hidden_act \"%s\" (supported: quick_gelu, gelu, gelu_pytorch_tanh, silu)",
                            v->hidden_act);
    if (spec->family == TS_FAMILY_QWEN2_5_VL) {
        /* get_window_index: vit_merger_window_size = window_size // spatial_merge_size // patch_size. */
        spec->window = v->window_size / spec->merge / spec->patch;
        if (spec->window < 1)
            return ts_error_set(err, TS_ERR_UNSUPPORTED, "config.json: vision_config.window_size %lld is under one merge unit (%lld pixels)",
                                (long long)v->window_size, (long long)(spec->merge * spec->patch));
        for (int i = 0; i < v->n_fullatt_block_indexes; i++) spec->full_attention[v->fullatt_block_indexes[i]] = true;
    }
    /* VisionRotaryEmbedding(head_dim/2): inv_freq = 1 / 10000^(2i/dim), each step in f32. */
    int dim = (int)(spec->head_dim / 2);
    for (int i = 0; i < dim / 2; i++) spec->inv_freq[i] = 1.0f / powf(10000.0f, (float)(2 * i) / (float)dim);
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
