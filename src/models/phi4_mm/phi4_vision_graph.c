/* phi4_vision_graph.c — Phi-4-multimodal's image tower for one view as a graph (see
 * phi4_vision.h): the engine's fast path for what ts_phi4_vision_features computes in plain loops.
 *
 * Inputs after the weights: pixel_values f32[3, S, S] (one view as the processor emits it),
 * positions i32[(S/P)²] (the NaViT buckets, ts_phi4_vision_view_inputs) and key_bias f32[(S/P)²]
 * (0 for a real patch, −inf for padding: every query attends to the view's real patches only,
 * as the reference's bidirectional padding mask does). Output: hidden_states[feature_layer]
 * f32[(S/P)², D]. Pooling, the HD layout and the projector stay host-side (ts_phi4_image_rows).
 */
#include "models/phi4_mm/phi4_vision.h"

#include "base/error.h"
#include "graph/decompose.h"
#include "models/weights.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define TOWER "model.embed_tokens_extend.image_embed.img_processor."

typedef struct {
    ts_graph *g;
    const ts_weight_source *src;
    ts_status st;
    ts_error *err;
} wb;

static ts_value weight(wb *b, int rank, const int64_t *dims, const char *name)
{
    return ts_weight_param(b->g, b->src, &b->st, b->err, name, rank, dims, rank, dims);
}

static ts_value layer_weight(wb *b, int64_t layer, int rank, const int64_t *dims, const char *what)
{
    char name[256];
    snprintf(name, sizeof(name), TOWER "encoder.layers.%lld.%s", (long long)layer, what);
    return weight(b, rank, dims, name);
}

void ts_phi4_vision_view_inputs(const ts_phi4_vision_spec *spec, const uint8_t *mask, int32_t *positions,
                                float *key_bias)
{
    int64_t side = spec->image_size / spec->patch;
    for (int64_t p = 0; p < side * side; p++) {
        positions[p] = (int32_t)ts_phi4_vision_position(mask, side, p);
        key_bias[p] = mask[p] ? 0.0f : -INFINITY;
    }
}

ts_status ts_phi4_vision_build(ts_graph *g, const ts_phi4_vision_spec *s, const ts_weight_source *weights,
                               ts_error *err)
{
    wb b = {g, weights, TS_OK, err};
    int64_t side = s->image_size / s->patch, n = side * side, d = s->width, P = s->patch;
    int64_t hd = d / s->heads, pd = 3 * P * P;
    if (s->layers < 0 || s->layers > TS_MAX_LAYERS)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "Phi-4-multimodal image tower: %lld layers (at most %d)",
                            (long long)s->layers, TS_MAX_LAYERS);
    int64_t conv[4] = {d, 3, P, P}, as_mat[2] = {d, pd}, table[2] = {n, d}, dd[2] = {d, d}, up[2] = {s->inter, d},
            down[2] = {d, s->inter};
    ts_value patch_w = ts_weight_param(g, weights, &b.st, err, TOWER "embeddings.patch_embedding.weight", 4, conv, 2,
                                       as_mat);
    ts_value patch_b = weight(&b, 1, &d, TOWER "embeddings.patch_embedding.bias");
    ts_value pos_w = weight(&b, 2, table, TOWER "embeddings.position_embedding.weight");
    /* ln1 w/b, q w/b, k w/b, v w/b, out w/b, ln2 w/b, fc1 w/b, fc2 w/b per layer. */
    static const char *const names[16] = {
        "layer_norm1.weight", "layer_norm1.bias",   "self_attn.q_proj.weight",   "self_attn.q_proj.bias",
        "self_attn.k_proj.weight", "self_attn.k_proj.bias", "self_attn.v_proj.weight", "self_attn.v_proj.bias",
        "self_attn.out_proj.weight", "self_attn.out_proj.bias", "layer_norm2.weight", "layer_norm2.bias",
        "mlp.fc1.weight", "mlp.fc1.bias",           "mlp.fc2.weight",            "mlp.fc2.bias"};
    const int64_t *shapes[16] = {&d, &d, dd, &d, dd, &d, dd, &d, dd, &d, &d, &d, up, &s->inter, down, &d};
    ts_value w[TS_MAX_LAYERS][16];
    for (int64_t l = 0; l < s->layers && !b.st; l++)
        for (int i = 0; i < 16; i++)
            w[l][i] = layer_weight(&b, l, i % 2 == 0 && i != 0 && i != 10 ? 2 : 1, shapes[i], names[i]);
    if (b.st) return b.st;

    int64_t pv[3] = {3, s->image_size, s->image_size};
    ts_value pixels = ts_graph_parameter(g, "pixel_values", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_F32, 3, pv));
    ts_value positions = ts_graph_parameter(g, "positions", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 1, &n));
    ts_value key_bias = ts_graph_parameter(g, "key_bias", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_F32, 1, &n));

    /* Conv2d(kernel = stride = P) as a matmul over [patches, C·P·P] rows in the kernel's byte order. */
    int64_t split[5] = {3, side, P, side, P}, perm[5] = {1, 3, 0, 2, 4}, rows[2] = {n, pd};
    ts_value x = ts_graph_reshape(g, ts_graph_transpose(g, ts_graph_reshape(g, pixels, 5, split), perm), 2, rows);
    ts_value h = ts_graph_linear(g, x, patch_w, patch_b);
    ts_dims offset = {1, {1}}, collapsed = {1, {0}}, sizes = {2, {1, d}};
    ts_value pos = ts_graph_gather(g, pos_w, positions, &offset, &collapsed, &collapsed, 1, &sizes);
    const ts_type *pt = ts_graph_type(g, pos);
    if (pt && pt->dtype != TS_DTYPE_F32) pos = ts_graph_convert(g, pos, TS_DTYPE_F32);
    h = ts_graph_binary(g, TS_OP_ADD, h, pos);
    int64_t nn[2] = {n, n}, split3[3] = {n, s->heads, hd}, flat[2] = {n, d};
    const int64_t as_key = 1; /* key_bias[j] → bias[i, j] */
    ts_value bias = ts_graph_broadcast_in_dim(g, key_bias, 2, nn, &as_key);
    for (int64_t l = 0; l < s->layers; l++) {
        ts_value *lw = w[l];
        ts_value a = ts_graph_layer_norm(g, h, lw[0], lw[1], s->eps);
        ts_value q = ts_graph_reshape(g, ts_graph_linear(g, a, lw[2], lw[3]), 3, split3);
        ts_value k = ts_graph_reshape(g, ts_graph_linear(g, a, lw[4], lw[5]), 3, split3);
        ts_value v = ts_graph_reshape(g, ts_graph_linear(g, a, lw[6], lw[7]), 3, split3);
        a = ts_graph_attention(g, q, k, v, bias, TS_NO_VALUE, 1.0 / sqrt((double)hd), 0);
        h = ts_graph_binary(g, TS_OP_ADD, h, ts_graph_linear(g, ts_graph_reshape(g, a, 2, flat), lw[8], lw[9]));
        a = ts_graph_layer_norm(g, h, lw[10], lw[11], s->eps);
        a = ts_decompose_activation(g, ts_graph_linear(g, a, lw[12], lw[13]), TS_ACT_GELU_TANH);
        h = ts_graph_binary(g, TS_OP_ADD, h, ts_graph_linear(g, a, lw[14], lw[15]));
    }
    ts_graph_set_outputs(g, &h, 1);
    return ts_graph_status(g, err);
}
