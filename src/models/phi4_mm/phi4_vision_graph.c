/* phi4_vision_graph.c — Phi-4-multimodal's image embedding as one graph per view count (see
 * phi4_vision.h): the engine's and vision.main's path for what phi4_vision.c computes in plain
 * loops (the tests' reference).
 *
 * Inputs after the weights, for V views (global first, then the crops; views past the image's are
 * padding): pixel_values f32[V, 3, S, S], positions i32[V, (S/P)²] (the NaViT buckets),
 * key_bias f32[V, (S/P)²] (0 for a real patch, −inf for padding: every query attends to its own
 * view's real patches only, as the reference's bidirectional padding mask does) and layout
 * i32[ts_phi4_image_rows_max(V)] (the HD layout as row indices into the pooled table, see
 * ts_phi4_image_inputs). Output: image_embeds f32[rows_max, text_width], the image's tokens
 * first.
 *
 * Per view the tower runs on its (S/P)² rows (the linear layers over all views' rows at once,
 * attention sliced per view); AvgPool2d(2) is a reshape and a sum over the 2×2 axes; the table
 * [V·(S/2P)² pooled rows, sub_img_feature_extensor, global_img_feature_extensor] is gathered by
 * layout; then img_projection_up → gelu(erf) → img_projection_down.
 */
#include "models/phi4_mm/phi4_vision.h"

#include "base/error.h"
#include "graph/decompose.h"
#include "models/weights.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define EMBED "model.embed_tokens_extend.image_embed."
#define TOWER EMBED "img_processor."

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

/* x as f32 (a BF16 checkpoint's table rows). */
static ts_value as_f32(ts_graph *g, ts_value x)
{
    const ts_type *t = ts_graph_type(g, x);
    return t && t->dtype != TS_DTYPE_F32 ? ts_graph_convert(g, x, TS_DTYPE_F32) : x;
}

int64_t ts_phi4_image_rows_max(const ts_phi4_vision_spec *s, int64_t views)
{
    int64_t half = s->image_size / s->patch / 2;
    /* Every view's pooled rows, a separator after each of at most V·half grid rows, the global
     * separator. */
    return views * half * half + views * half + 1;
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

ts_status ts_phi4_image_inputs(const ts_phi4_vision_spec *s, const ts_phi4_hd_image *im, int64_t views,
                               int32_t *positions, float *key_bias, int32_t *layout, ts_error *err)
{
    int64_t side = s->image_size / s->patch, n = side * side, half = side / 2, rows = ts_phi4_image_rows_max(s, views);
    if (im->crop != s->image_size || im->patch != s->patch || im->views < 1 || im->views > views)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "Phi-4-multimodal image: %d views of %d px in %d-px patches; this graph takes at "
                            "most %lld views of %lld px in %lld-px patches",
                            im->views, im->crop, im->patch, (long long)views, (long long)s->image_size,
                            (long long)s->patch);
    for (int64_t v = 0; v < views; v++) {
        if (v < im->views) {
            ts_phi4_vision_view_inputs(s, im->mask + v * n, positions + v * n, key_bias + v * n);
            continue;
        }
        /* A padding view: every key real (no all-masked softmax); its rows are never gathered. */
        memset(positions + v * n, 0, sizeof(int32_t) * (size_t)n);
        memset(key_bias + v * n, 0, sizeof(float) * (size_t)n);
    }
    int uh, uw;
    ts_phi4_hd_useful(im, &uh, &uw);
    const int32_t sub = (int32_t)(views * half * half), glob = sub + 1;
    int64_t r = 0;
    /* The crops' grid (crop (y/half, x/half) at its pooled (y%half, x%half)), useful part; each
     * grid row followed by a separator. */
    for (int64_t y = 0; y < uh && r < rows; y++) {
        for (int64_t x = 0; x < uw && r < rows; x++) {
            int64_t view = 1 + (y / half) * im->grid_w + x / half;
            layout[r++] = (int32_t)((view * half + y % half) * half + x % half);
        }
        if (r < rows) layout[r++] = sub;
    }
    if (r < rows) layout[r++] = glob;
    for (int64_t y = 0; y < half && r < rows; y++) {
        for (int64_t x = 0; x < half && r < rows; x++)
            layout[r++] = (int32_t)(y * half + x);
        if (r < rows) layout[r++] = sub;
    }
    if (r != im->tokens || r > rows)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "Phi-4-multimodal image: the HD layout has %lld rows, the processor counted %lld "
                            "tokens",
                            (long long)r, (long long)im->tokens);
    for (; r < rows; r++)
        layout[r] = 0;
    return TS_OK;
}

ts_status ts_phi4_vision_build(ts_graph *g, const ts_phi4_vision_spec *s, const ts_weight_source *weights,
                               int64_t views, ts_error *err)
{
    wb b = {g, weights, TS_OK, err};
    int64_t side = s->image_size / s->patch, n = side * side, d = s->width, P = s->patch, V = views;
    int64_t hd = d / s->heads, pd = 3 * P * P, half = side / 2, D = s->text_width;
    if (s->layers < 0 || s->layers > TS_MAX_LAYERS || V < 1 || V > TS_PHI4_MAX_VIEWS || side % 2)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "Phi-4-multimodal image graph: %lld layers (at most %d), %lld views (1..%d), a %lld-patch "
                            "side (even for the 2×2 pooling)",
                            (long long)s->layers, TS_MAX_LAYERS, (long long)V, TS_PHI4_MAX_VIEWS, (long long)side);
    int64_t conv[4] = {d, 3, P, P}, as_mat[2] = {d, pd}, ext[4] = {1, 1, 1, d}, gext[3] = {1, 1, d}, table[2] = {n, d}, dd[2] = {d, d}, up[2] = {s->inter, d},
            down[2] = {d, s->inter}, one_row[2] = {1, d}, proj_up[2] = {D, d}, proj_down[2] = {D, D};
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
    ts_value sub_ext = ts_weight_param(g, weights, &b.st, err, EMBED "sub_img_feature_extensor", 4, ext, 2, one_row);
    ts_value glob_ext =
        ts_weight_param(g, weights, &b.st, err, EMBED "global_img_feature_extensor", 3, gext, 2, one_row);
    ts_value up_w = weight(&b, 2, proj_up, EMBED "img_projection_up.weight");
    ts_value up_b = weight(&b, 1, &D, EMBED "img_projection_up.bias");
    ts_value down_w = weight(&b, 2, proj_down, EMBED "img_projection_down.weight");
    ts_value down_b = weight(&b, 1, &D, EMBED "img_projection_down.bias");
    if (b.st) return b.st;

    int64_t pv[4] = {V, 3, s->image_size, s->image_size}, vn[2] = {V, n}, T = ts_phi4_image_rows_max(s, V);
    ts_value pixels = ts_graph_parameter(g, "pixel_values", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_F32, 4, pv));
    ts_value positions = ts_graph_parameter(g, "positions", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 2, vn));
    ts_value key_bias = ts_graph_parameter(g, "key_bias", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_F32, 2, vn));
    ts_value layout = ts_graph_parameter(g, "layout", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 1, &T));

    /* Conv2d(kernel = stride = P) as a matmul over [V·patches, C·P·P] rows in the kernel's byte
     * order. */
    int64_t split[6] = {V, 3, side, P, side, P}, perm[6] = {0, 2, 4, 1, 3, 5}, rows[2] = {V * n, pd};
    ts_value x = ts_graph_reshape(g, ts_graph_transpose(g, ts_graph_reshape(g, pixels, 6, split), perm), 2, rows);
    ts_value h = ts_graph_linear(g, x, patch_w, patch_b);
    int64_t flat_n = V * n;
    ts_dims offset = {1, {1}}, collapsed = {1, {0}}, sizes = {2, {1, d}};
    ts_value pos = ts_graph_gather(g, pos_w, ts_graph_reshape(g, positions, 1, &flat_n), &offset, &collapsed,
                                   &collapsed, 1, &sizes);
    h = ts_graph_binary(g, TS_OP_ADD, h, as_f32(g, pos));
    int64_t nn[2] = {n, n}, split3[3] = {V * n, s->heads, hd}, flat[2] = {V * n, d};
    const int64_t as_key = 1; /* key_bias[v, j] → bias_v[i, j] */
    ts_value bias[TS_PHI4_MAX_VIEWS];
    for (int64_t v = 0; v < V; v++) {
        int64_t lo[2] = {v, 0}, hi[2] = {v + 1, n}, one[2] = {1, 1};
        ts_value kb = ts_graph_reshape(g, ts_graph_slice(g, key_bias, lo, hi, one), 1, &n);
        bias[v] = ts_graph_broadcast_in_dim(g, kb, 2, nn, &as_key);
    }
    for (int64_t l = 0; l < s->layers; l++) {
        ts_value *lw = w[l];
        ts_value a = ts_graph_layer_norm(g, h, lw[0], lw[1], s->eps);
        ts_value q = ts_graph_reshape(g, ts_graph_linear(g, a, lw[2], lw[3]), 3, split3);
        ts_value k = ts_graph_reshape(g, ts_graph_linear(g, a, lw[4], lw[5]), 3, split3);
        ts_value v = ts_graph_reshape(g, ts_graph_linear(g, a, lw[6], lw[7]), 3, split3);
        ts_value per_view[TS_PHI4_MAX_VIEWS];
        for (int64_t i = 0; i < V; i++) {
            int64_t lo[3] = {i * n, 0, 0}, hi[3] = {(i + 1) * n, s->heads, hd}, one[3] = {1, 1, 1};
            per_view[i] = ts_graph_attention(g, ts_graph_slice(g, q, lo, hi, one), ts_graph_slice(g, k, lo, hi, one),
                                             ts_graph_slice(g, v, lo, hi, one), bias[i], TS_NO_VALUE,
                                             1.0 / sqrt((double)hd), 0);
        }
        a = V == 1 ? per_view[0] : ts_graph_concatenate(g, per_view, (int)V, 0);
        h = ts_graph_binary(g, TS_OP_ADD, h, ts_graph_linear(g, ts_graph_reshape(g, a, 2, flat), lw[8], lw[9]));
        a = ts_graph_layer_norm(g, h, lw[10], lw[11], s->eps);
        a = ts_decompose_activation(g, ts_graph_linear(g, a, lw[12], lw[13]), TS_ACT_GELU_TANH);
        h = ts_graph_binary(g, TS_OP_ADD, h, ts_graph_linear(g, a, lw[14], lw[15]));
    }
    /* AvgPool2d(2): [V, half, 2, half, 2, d] summed over the 2×2 axes, × 1/4. */
    int64_t grid[6] = {V, half, 2, half, 2, d}, pooled_rows[2] = {V * half * half, d};
    ts_dims pool_axes = {2, {2, 4}};
    ts_value pooled = ts_graph_reduce(g, TS_OP_REDUCE_SUM, ts_graph_reshape(g, h, 6, grid), &pool_axes);
    pooled = ts_graph_binary(g, TS_OP_MULTIPLY, pooled,
                             ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, 0.25f), 4,
                                                       (const int64_t[]){V, half, half, d}, NULL));
    ts_value parts[3] = {ts_graph_reshape(g, pooled, 2, pooled_rows), as_f32(g, sub_ext),
                         as_f32(g, glob_ext)};
    ts_value table_rows = ts_graph_concatenate(g, parts, 3, 0);
    ts_value hd_rows = ts_graph_gather(g, table_rows, layout, &offset, &collapsed, &collapsed, 1, &sizes);
    ts_value mid = ts_decompose_activation(g, ts_graph_linear(g, hd_rows, up_w, up_b), TS_ACT_GELU);
    ts_value out = ts_graph_linear(g, mid, down_w, down_b);
    ts_graph_set_outputs(g, &out, 1);
    return ts_graph_status(g, err);
}
