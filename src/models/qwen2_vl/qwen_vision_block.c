/* qwen_vision_block.c — the Qwen-VL towers' shared pieces (see qwen_vision_block.h), written in the
 * order of Qwen2VLVisionBlock / Qwen3VLVisionBlock.forward (transformers): the blocks of the three
 * towers differ only in their norm (LayerNorm or RMSNorm) and MLP (plain or gated), chosen by
 * ts_qwen_vision_dims.
 */
#include "models/qwen2_vl/qwen_vision_block.h"
#include "models/weights.h"

#include "graph/decompose.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- weights */

static ts_value weightv(ts_qwen_vision_loader *l, int rank, const int64_t *dims, int as_rank,
                        const int64_t *as_dims, const char *fmt, va_list ap)
{
    if (l->status != TS_OK) return TS_NO_VALUE;
    char name[256];
    int at = snprintf(name, sizeof(name), "%s", l->prefix);
    int len = at >= 0 && (size_t)at < sizeof(name)
                  ? vsnprintf(name + at, sizeof(name) - (size_t)at, fmt, ap)
                  : -1;
    if (len < 0 || (size_t)(at + len) >= sizeof(name)) {
        l->status = ts_error_set(l->err, TS_ERR_RANGE, "vision: tensor name longer than %zu bytes",
                                 sizeof(name) - 1);
        return TS_NO_VALUE;
    }
    return ts_weight_param(l->g, l->weights, &l->status, l->err, name, rank, dims, as_rank,
                           as_dims);
}

ts_value ts_qwen_vision_weight(ts_qwen_vision_loader *l, int rank, const int64_t *dims, int as_rank,
                               const int64_t *as_dims, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ts_value v = weightv(l, rank, dims, as_rank, as_dims, fmt, ap);
    va_end(ap);
    return v;
}

ts_value ts_qwen_vision_vec(ts_qwen_vision_loader *l, int64_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ts_value v = weightv(l, 1, &n, 1, &n, fmt, ap);
    va_end(ap);
    return v;
}

ts_value ts_qwen_vision_mat(ts_qwen_vision_loader *l, int64_t out, int64_t in, const char *fmt, ...)
{
    int64_t d[2] = {out, in};
    va_list ap;
    va_start(ap, fmt);
    ts_value v = weightv(l, 2, d, 2, d, fmt, ap);
    va_end(ap);
    return v;
}

void ts_qwen_vision_block_load(ts_qwen_vision_loader *l, const ts_qwen_vision_dims *d,
                               const ts_qwen_vision_mlp_names *mlp, int i, ts_qwen_vision_block *w)
{
    int64_t D = d->width;
    w->norm1_w = ts_qwen_vision_vec(l, D, "blocks.%d.norm1.weight", i);
    w->norm1_b = d->rms_norm ? TS_NO_VALUE : ts_qwen_vision_vec(l, D, "blocks.%d.norm1.bias", i);
    w->qkv_w = ts_qwen_vision_mat(l, 3 * D, D, "blocks.%d.attn.qkv.weight", i);
    w->qkv_b = ts_qwen_vision_vec(l, 3 * D, "blocks.%d.attn.qkv.bias", i);
    w->proj_w = ts_qwen_vision_mat(l, D, D, "blocks.%d.attn.proj.weight", i);
    w->proj_b = ts_qwen_vision_vec(l, D, "blocks.%d.attn.proj.bias", i);
    w->norm2_w = ts_qwen_vision_vec(l, D, "blocks.%d.norm2.weight", i);
    w->norm2_b = d->rms_norm ? TS_NO_VALUE : ts_qwen_vision_vec(l, D, "blocks.%d.norm2.bias", i);
    w->fc1_w = ts_qwen_vision_mat(l, d->inter, D, "blocks.%d.mlp.%s.weight", i, mlp->fc1);
    w->fc1_b = ts_qwen_vision_vec(l, d->inter, "blocks.%d.mlp.%s.bias", i, mlp->fc1);
    w->up_w = mlp->up ? ts_qwen_vision_mat(l, d->inter, D, "blocks.%d.mlp.%s.weight", i, mlp->up)
                      : TS_NO_VALUE;
    w->up_b = mlp->up ? ts_qwen_vision_vec(l, d->inter, "blocks.%d.mlp.%s.bias", i, mlp->up)
                      : TS_NO_VALUE;
    w->fc2_w = ts_qwen_vision_mat(l, D, d->inter, "blocks.%d.mlp.%s.weight", i, mlp->fc2);
    w->fc2_b = ts_qwen_vision_vec(l, D, "blocks.%d.mlp.%s.bias", i, mlp->fc2);
}

/* ---------------------------------------------------------------- config helpers */

void ts_qwen_vision_inv_freq(int64_t head_dim, float *inv_freq)
{
    int dim = (int)(head_dim / 2);
    for (int i = 0; i < dim / 2; i++)
        inv_freq[i] = 1.0f / powf(10000.0f, (float)(2 * i) / (float)dim);
}

ts_status ts_qwen_vision_check_geometry(int64_t head_dim, int64_t depth, int64_t merge, int64_t patch, int64_t patch_dim, int64_t inter,
                                        int64_t out_hidden, ts_error *err)
{
    if (head_dim < 4 || head_dim % 4 || head_dim / 4 > 256)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "config.json: vision head_dim %lld (hidden_size / num_heads) must be a multiple of 4, at most 1024",
                            (long long)head_dim);
    if (depth < 1 || depth > TS_MAX_LAYERS || merge < 1 || patch_dim < 1 || out_hidden < 1 || inter < 1)
        return ts_error_set(err, TS_ERR_FORMAT, "config.json: vision_config (depth %lld, merge %lld, patch %lld) does not describe a tower",
                            (long long)depth, (long long)merge, (long long)patch);
    return TS_OK;
}

ts_status ts_qwen_vision_activation(const char *hidden_act, ts_activation *out, ts_error *err)
{
    if (strcmp(hidden_act, "quick_gelu") == 0)
        *out = TS_ACT_QUICK_GELU;
    else if (strcmp(hidden_act, "gelu") == 0)
        *out = TS_ACT_GELU;
    else if (strcmp(hidden_act, "gelu_pytorch_tanh") == 0)
        *out = TS_ACT_GELU_TANH;
    else if (strcmp(hidden_act, "silu") == 0)
        *out = TS_ACT_SILU;
    else
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "config.json: vision_config.hidden_act \"%s\" (supported: quick_gelu, "
                            "gelu, gelu_pytorch_tanh, silu)",
                            hidden_act);
    return TS_OK;
}

/* ---------------------------------------------------------------- graph pieces */

void ts_qwen_vision_rope_tables(ts_graph *g, int64_t head_dim, const float *inv_freq,
                                ts_value positions, ts_value *cos, ts_value *sin)
{
    int64_t n = ts_graph_type(g, positions)->dims[0], quarter = head_dim / 4;
    int64_t d3[3] = {n, 2, quarter}, d2[2] = {n, 2 * quarter}, keep[2] = {0, 1}, last = 2;
    ts_value inv = ts_graph_constant(g, ts_type_make(TS_DTYPE_F32, 1, &quarter), inv_freq);
    ts_value pos =
        ts_graph_broadcast_in_dim(g, ts_graph_convert(g, positions, TS_DTYPE_F32), 3, d3, keep);
    ts_value angle =
        ts_graph_binary(g, TS_OP_MULTIPLY, pos, ts_graph_broadcast_in_dim(g, inv, 3, d3, &last));
    angle = ts_graph_reshape(g, angle, 2, d2);
    *cos = ts_graph_unary(g, TS_OP_COSINE, angle);
    *sin = ts_graph_unary(g, TS_OP_SINE, angle);
}

ts_value ts_qwen_vision_segment_bias(ts_graph *g, ts_value segments)
{
    int64_t n = ts_graph_type(g, segments)->dims[0];
    int64_t d2[2] = {n, n}, as_row = 0, as_col = 1;
    ts_value qs = ts_graph_broadcast_in_dim(g, segments, 2, d2, &as_row);
    ts_value ks = ts_graph_broadcast_in_dim(g, segments, 2, d2, &as_col);
    ts_value same = ts_graph_compare(g, TS_COMPARE_EQ, qs, ks);
    ts_value zero = ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, 0.0f), 2, d2, NULL);
    ts_value masked =
        ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, -INFINITY), 2, d2, NULL);
    return ts_graph_select(g, same, zero, masked);
}

/* Columns [from, from + n) of a [N, C] value, viewed as [N, heads, n / heads]. */
static ts_value head_columns(ts_graph *g, ts_value x, int64_t from, int64_t n, int64_t heads)
{
    int64_t rows = ts_graph_type(g, x)->dims[0];
    int64_t start[2] = {0, from}, limit[2] = {rows, from + n}, dims[3] = {rows, heads, n / heads};
    return ts_graph_reshape(g, ts_graph_slice(g, x, start, limit, NULL), 3, dims);
}

/* LayerNorm, or Qwen2RMSNorm (Qwen2.5-VL, no bias); eps 1e-6 in every tower. */
static ts_value norm(ts_graph *g, const ts_qwen_vision_dims *d, ts_value x, ts_value weight,
                     ts_value bias)
{
    if (d->rms_norm) return ts_graph_rms_norm(g, x, weight, d->norm_eps, 0);
    return ts_graph_layer_norm(g, x, weight, bias, d->norm_eps);
}

/* fc2(act(fc1(x))) or down(act(gate(x)) · up(x)), every Linear with a bias. Neither fits the
 * gated_mlp composite (no gate, or biases), so the activation is written out in the primitives
 * the composite decomposes to. */
static ts_value mlp(ts_graph *g, const ts_qwen_vision_dims *d, const ts_qwen_vision_block *w,
                    ts_value x)
{
    ts_value a =
        ts_decompose_activation(g, ts_graph_linear(g, x, w->fc1_w, w->fc1_b), d->activation);
    if (w->up_w != TS_NO_VALUE)
        a = ts_graph_binary(g, TS_OP_MULTIPLY, a, ts_graph_linear(g, x, w->up_w, w->up_b));
    return ts_graph_linear(g, a, w->fc2_w, w->fc2_b);
}

ts_value ts_qwen_vision_block_apply(ts_graph *g, const ts_qwen_vision_dims *d,
                                    const ts_qwen_vision_block *w, ts_value h, ts_value cos,
                                    ts_value sin, ts_value bias)
{
    int64_t n = ts_graph_type(g, h)->dims[0], D = d->width;
    ts_value x = norm(g, d, h, w->norm1_w, w->norm1_b);
    ts_value qkv = ts_graph_linear(g, x, w->qkv_w, w->qkv_b);
    ts_value q = head_columns(g, qkv, 0, D, d->heads);
    ts_value k = head_columns(g, qkv, D, D, d->heads);
    ts_value v = head_columns(g, qkv, 2 * D, D, d->heads);
    q = ts_graph_rope(g, q, cos, sin, (int)d->head_dim, false);
    k = ts_graph_rope(g, k, cos, sin, (int)d->head_dim, false);
    ts_value a =
        ts_graph_attention(g, q, k, v, bias, TS_NO_VALUE, 1.0 / sqrt((double)d->head_dim), 0);
    int64_t flat[2] = {n, D};
    h = ts_graph_binary(g, TS_OP_ADD, h,
                        ts_graph_linear(g, ts_graph_reshape(g, a, 2, flat), w->proj_w, w->proj_b));
    return ts_graph_binary(g, TS_OP_ADD, h, mlp(g, d, w, norm(g, d, h, w->norm2_w, w->norm2_b)));
}

ts_value ts_qwen_vision_merger_mlp(ts_graph *g, ts_value x, ts_value fc1_w, ts_value fc1_b,
                                   ts_value fc2_w, ts_value fc2_b)
{
    x = ts_decompose_activation(g, ts_graph_linear(g, x, fc1_w, fc1_b), TS_ACT_GELU);
    return ts_graph_linear(g, x, fc2_w, fc2_b);
}
