/* decoder.c — Qwen2/Qwen3/Llama decoder layers as a graph, in the order of the Hugging Face
 * modeling files (Qwen2DecoderLayer, Qwen3DecoderLayer, LlamaDecoderLayer):
 *
 *   h = embed_tokens(ids)
 *   for each layer:  r = h;  h = input_layernorm(h);  h = self_attn(h) + r
 *                    r = h;  h = post_attention_layernorm(h);  h = mlp(h) + r
 *   logits = lm_head(norm(h))
 *
 * self_attn: q/k/v projections (+ bias where the checkpoint has one), view as heads, q_norm/k_norm
 * over head_dim where the config has them, rotary embedding from `positions`, write k/v into the cache at `start`, causal
 * attention over the cache with scale head_dim^-0.5, o_proj.
 *
 * Qwen3VLTextModel.forward adds DeepStack after the layer (`_deepstack_process`):
 *                    if i < K:  h[visual_pos_masks] += deepstack_visual_embeds[i]
 */
#include "models/decoder.h"
#include "graph/decompose.h"
#include "models/family.h"
#include "models/weights.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ts_graph *g;
    const ts_decoder_spec *spec;
    const ts_weight_source *weights;
    ts_error *err;
    ts_status status;
} builder;

/* A checkpoint tensor as a weight parameter, checked against the shape the config implies. */
static ts_value weight(builder *b, int rank, const int64_t *dims, const char *fmt, ...)
    TS_PRINTF(4, 5);

static ts_value weight(builder *b, int rank, const int64_t *dims, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ts_value v =
        ts_weight_paramv(b->g, b->weights, &b->status, b->err, rank, dims, rank, dims, fmt, ap);
    va_end(ap);
    return v;
}

static ts_value vec_weight(builder *b, int64_t n, const char *name, int layer)
{
    return weight(b, 1, &n, "%slayers.%d.%s", b->spec->prefix, layer, name);
}

static ts_value mat_weight(builder *b, int64_t out, int64_t in, const char *name, int layer)
{
    int64_t d[2] = {out, in};
    return weight(b, 2, d, "%slayers.%d.%s", b->spec->prefix, layer, name);
}

/* Slices rows [row, row + n) of a [N, ...] value (no-op when it is the whole value). */
static ts_value rows(ts_graph *g, ts_value x, int64_t row, int64_t n)
{
    const ts_type t = *ts_graph_type(g, x);
    if (row == 0 && n == t.dims[0]) return x;
    int64_t start[TS_MAX_DIMS] = {0}, limit[TS_MAX_DIMS];
    for (int i = 0; i < t.rank; i++)
        limit[i] = t.dims[i];
    start[0] = row;
    limit[0] = row + n;
    return ts_graph_slice(g, x, start, limit, NULL);
}

/* Element b of an i32 vector as a scalar. */
static ts_value element(ts_graph *g, ts_value v, int64_t b)
{
    int64_t s = b, l = b + 1;
    return ts_graph_reshape(g, ts_graph_slice(g, v, &s, &l, NULL), 0, NULL);
}

static ts_value heads(ts_graph *g, ts_value x, int64_t n, int64_t h, int64_t d)
{
    int64_t dims[3] = {n, h, d};
    return ts_graph_reshape(g, x, 3, dims);
}

bool ts_decoder_lora_projection(const ts_decoder_spec *spec, int l, int p, char *name, size_t cap,
                                int64_t *out, int64_t *in)
{
    static const char *const tails[TS_LORA_PROJS] = {
        "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
        "mlp.gate_proj",    "mlp.up_proj",      "mlp.down_proj"};
    if (p < 0 || p >= TS_LORA_PROJS || l < 0 || l >= spec->layers) return false;
    if (p >= TS_LORA_GATE && ts_decoder_layer_sparse(spec, l)) return false;
    int64_t H = spec->hidden, q = spec->q_heads * spec->head_dim,
            kv = spec->kv_heads * spec->head_dim, I = spec->inter;
    const int64_t dims[TS_LORA_PROJS][2] = {{q, H}, {kv, H}, {kv, H}, {H, q},
                                            {I, H}, {I, H},  {H, I}};
    *out = dims[p][0], *in = dims[p][1];
    int n = snprintf(name, cap, "%slayers.%d.%s.weight", spec->prefix, l, tails[p]);
    return n > 0 && (size_t)n < cap;
}

/* Projection p's stacked adapters beside its weight name (see ts_decoder_spec). */
static void lora_weights(builder *b, int l, int p, ts_decoder_layer_weights *lw)
{
    lw->lora_a[p] = lw->lora_b[p] = TS_NO_VALUE;
    char name[256];
    int64_t out, in;
    if (b->spec->lora_adapters < 1 ||
        !ts_decoder_lora_projection(b->spec, l, p, name, sizeof(name), &out, &in))
        return;
    name[strlen(name) - strlen(".weight")] = '\0';
    int64_t K = b->spec->lora_adapters, r = b->spec->lora_rank;
    int64_t ad[3] = {K, r, in}, bd[3] = {K, out, r};
    lw->lora_a[p] = weight(b, 3, ad, "%s.lora_A", name);
    lw->lora_b[p] = weight(b, 3, bd, "%s.lora_B", name);
}

ts_status ts_decoder_load_weights(ts_graph *g, const ts_decoder_spec *spec,
                                  const ts_weight_source *source, ts_decoder_weights *w,
                                  ts_error *err)
{
    builder bb = {g, spec, source, err, TS_OK}, *b = &bb;
    if (spec->layers > TS_MAX_LAYERS)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "more than %d layers", TS_MAX_LAYERS);
    int64_t H = spec->hidden, D = spec->head_dim, HQ = spec->q_heads, HKV = spec->kv_heads;
    int64_t vh[2] = {spec->vocab, H};
    ts_graph_set_stage(g, "embed_tokens");
    w->embed = weight(b, 2, vh, "%sembed_tokens.weight", spec->prefix);
    for (int l = 0; l < spec->layers && b->status == TS_OK; l++) {
        ts_graph_set_stage(g, "layer.%d", l);
        ts_decoder_layer_weights *lw = &w->layers[l];
        lw->in_norm = vec_weight(b, H, "input_layernorm.weight", l);
        lw->q = mat_weight(b, HQ * D, H, "self_attn.q_proj.weight", l);
        lw->k = mat_weight(b, HKV * D, H, "self_attn.k_proj.weight", l);
        lw->v = mat_weight(b, HKV * D, H, "self_attn.v_proj.weight", l);
        lw->q_bias =
            spec->qkv_bias ? vec_weight(b, HQ * D, "self_attn.q_proj.bias", l) : TS_NO_VALUE;
        lw->k_bias =
            spec->qkv_bias ? vec_weight(b, HKV * D, "self_attn.k_proj.bias", l) : TS_NO_VALUE;
        lw->v_bias =
            spec->qkv_bias ? vec_weight(b, HKV * D, "self_attn.v_proj.bias", l) : TS_NO_VALUE;
        lw->q_norm = spec->qk_norm ? vec_weight(b, D, "self_attn.q_norm.weight", l) : TS_NO_VALUE;
        lw->k_norm = spec->qk_norm ? vec_weight(b, D, "self_attn.k_norm.weight", l) : TS_NO_VALUE;
        lw->o = mat_weight(b, H, HQ * D, "self_attn.o_proj.weight", l);
        lw->post_norm = vec_weight(b, H, "post_attention_layernorm.weight", l);
        lw->pre_ff_norm = spec->sandwich_norms
                              ? vec_weight(b, H, "pre_feedforward_layernorm.weight", l)
                              : TS_NO_VALUE;
        lw->post_ff_norm = spec->sandwich_norms
                               ? vec_weight(b, H, "post_feedforward_layernorm.weight", l)
                               : TS_NO_VALUE;
        if (ts_decoder_layer_sparse(spec, l)) {
            int64_t E = spec->experts, I = spec->moe_inter, gate_up[3] = {E, H, 2 * I},
                    down[3] = {E, I, H};
            lw->router = mat_weight(b, E, H, "mlp.gate.weight", l);
            lw->experts_gate_up =
                weight(b, 3, gate_up, "%slayers.%d.mlp.experts.gate_up_proj", spec->prefix, l);
            lw->experts_down =
                weight(b, 3, down, "%slayers.%d.mlp.experts.down_proj", spec->prefix, l);
        } else {
            lw->router = lw->experts_gate_up = lw->experts_down = TS_NO_VALUE;
            lw->gate = mat_weight(b, spec->inter, H, "mlp.gate_proj.weight", l);
            lw->up = mat_weight(b, spec->inter, H, "mlp.up_proj.weight", l);
            lw->down = mat_weight(b, H, spec->inter, "mlp.down_proj.weight", l);
        }
        for (int p = 0; p < TS_LORA_PROJS; p++) lora_weights(b, l, p, lw);
    }
    w->adapters = TS_NO_VALUE;
    w->lora_scale = TS_NO_VALUE;
    if (spec->lora_adapters > 0) {
        int64_t K = spec->lora_adapters;
        w->lora_scale = weight(b, 1, &K, "lora.scale");
    }
    ts_graph_set_stage(g, "norm");
    w->final_norm = weight(b, 1, &H, "%snorm.weight", spec->prefix);
    w->lm_head = spec->lm_head ? weight(b, 2, vh, "%s", spec->lm_head) : w->embed;
    return b->status;
}

static void rope_table(ts_graph *g, const ts_decoder_spec *spec, const float *inv_freq,
                       ts_value positions, ts_value *cos, ts_value *sin);

void ts_decoder_rope_tables(ts_graph *g, const ts_decoder_spec *spec, ts_value positions,
                            ts_value cos[2], ts_value sin[2])
{
    rope_table(g, spec, spec->inv_freq, positions, &cos[0], &sin[0]);
    cos[1] = sin[1] = TS_NO_VALUE;
    if (spec->local_rope) rope_table(g, spec, spec->local_inv_freq, positions, &cos[1], &sin[1]);
}

static void rope_table(ts_graph *g, const ts_decoder_spec *spec, const float *inv_freq,
                       ts_value positions, ts_value *cos, ts_value *sin)
{
    const ts_type pt = *ts_graph_type(g, positions);
    int64_t n = pt.dims[pt.rank - 1];
    int64_t half = spec->rotary_dim / 2;
    int64_t d2[2] = {n, half}, zero = 0, one = 1;
    ts_value inv = ts_graph_constant(g, ts_type_make(TS_DTYPE_F32, 1, &half), inv_freq);
    ts_value inv2 = ts_graph_broadcast_in_dim(g, inv, 2, d2, &one);
    ts_value angle;
    if (pt.rank == 1) {
        ts_value pos = ts_graph_broadcast_in_dim(g, ts_graph_convert(g, positions, TS_DTYPE_F32), 2,
                                                 d2, &zero);
        angle = ts_graph_binary(g, TS_OP_MULTIPLY, pos, inv2);
    } else {
        /* One angle table per axis (position · inv_freq in f32, as the reference), then each
         * column picks its axis: cos and sin of a selected angle are the selected cos and sin. */
        ts_value axis_angle[3];
        for (int64_t a = 0; a < 3; a++) {
            int64_t s0[2] = {a, 0}, s1[2] = {a + 1, n};
            ts_value row = ts_graph_reshape(g, ts_graph_slice(g, positions, s0, s1, NULL), 1, &n);
            ts_value pos =
                ts_graph_broadcast_in_dim(g, ts_graph_convert(g, row, TS_DTYPE_F32), 2, d2, &zero);
            axis_angle[a] = ts_graph_binary(g, TS_OP_MULTIPLY, pos, inv2);
        }
        ts_value axis = ts_graph_broadcast_in_dim(
            g, ts_graph_constant(g, ts_type_make(TS_DTYPE_I32, 1, &half), spec->rope_axis), 2, d2,
            &one);
        ts_value is_h = ts_graph_compare(
            g, TS_COMPARE_EQ, axis,
            ts_graph_broadcast_in_dim(g, ts_graph_constant_i32(g, 1), 2, d2, NULL));
        ts_value is_w = ts_graph_compare(
            g, TS_COMPARE_EQ, axis,
            ts_graph_broadcast_in_dim(g, ts_graph_constant_i32(g, 2), 2, d2, NULL));
        angle = ts_graph_select(g, is_h, axis_angle[1],
                                ts_graph_select(g, is_w, axis_angle[2], axis_angle[0]));
    }
    *cos = ts_graph_unary(g, TS_OP_COSINE, angle);
    *sin = ts_graph_unary(g, TS_OP_SINE, angle);
    if (spec->rope_scale != 0.0f && spec->rope_scale != 1.0f) {
        ts_value scale = ts_graph_broadcast_in_dim(
            g, ts_graph_constant(g, ts_type_make(TS_DTYPE_F32, 0, NULL), &spec->rope_scale), 2, d2,
            NULL);
        *cos = ts_graph_binary(g, TS_OP_MULTIPLY, *cos, scale);
        *sin = ts_graph_binary(g, TS_OP_MULTIPLY, *sin, scale);
    }
}

/* A step's tables: longrope's long-factor rows for the sequences the shape marks (each
 * sequence's slice of positions with its own table, joined; the whole step at once when every
 * sequence agrees), else ts_decoder_rope_tables. Row for row the same arithmetic, so a sequence's
 * rows do not depend on its neighbours'. */
static void step_rope_tables(ts_graph *g, const ts_decoder_spec *spec, const ts_step_shape *shape,
                             const int64_t *offset, ts_value positions, ts_value cos[2],
                             ts_value sin[2])
{
    int longs = 0;
    for (int s = 0; s < shape->n_seqs; s++) longs += shape->rope_long[s];
    if (longs == 0 || spec->rope_long_after <= 0) {
        ts_decoder_rope_tables(g, spec, positions, cos, sin);
        return;
    }
    cos[1] = sin[1] = TS_NO_VALUE; /* longrope has no local layers (ts_decoder_spec_init) */
    if (longs == shape->n_seqs) {
        rope_table(g, spec, spec->long_inv_freq, positions, &cos[0], &sin[0]);
        return;
    }
    ts_value c[TS_MAX_BATCH], s_[TS_MAX_BATCH];
    for (int s = 0; s < shape->n_seqs; s++)
        rope_table(g, spec, shape->rope_long[s] ? spec->long_inv_freq : spec->inv_freq,
                   rows(g, positions, offset[s], shape->n_tokens[s]), &c[s], &s_[s]);
    cos[0] = ts_graph_concatenate(g, c, shape->n_seqs, 0);
    sin[0] = ts_graph_concatenate(g, s_, shape->n_seqs, 0);
}

/* x·weightᵀ (+ bias), plus row i's adapter delta when the layer has LoRA on projection p. */
static ts_value project(ts_graph *g, const ts_decoder_weights *w,
                        const ts_decoder_layer_weights *lw, int p, ts_value x, ts_value weight,
                        ts_value bias)
{
    if (lw->lora_a[p] == TS_NO_VALUE) return ts_graph_linear(g, x, weight, bias);
    ts_value y = ts_graph_lora_linear(g, x, weight, lw->lora_a[p], lw->lora_b[p], w->lora_scale,
                                      w->adapters);
    if (bias == TS_NO_VALUE) return y;
    const ts_type t = *ts_graph_type(g, y);
    int64_t last = t.rank - 1;
    ts_value b = ts_graph_convert(g, bias, TS_DTYPE_F32);
    return ts_graph_binary(g, TS_OP_ADD, y, ts_graph_broadcast_in_dim(g, b, t.rank, t.dims, &last));
}

/* Qwen2MLP / LlamaMLP, or Qwen3VLMoeTextSparseMoeBlock (its router renormalises the top-k
 * probabilities: norm_topk_prob). */
static ts_value mlp(ts_graph *g, const ts_decoder_spec *spec, const ts_decoder_weights *w,
                    const ts_decoder_layer_weights *lw, ts_value x)
{
    /* With LoRA the gated MLP runs as its parts, each projection a lora_linear (the gated_mlp
     * composite's own decomposition, with the adapters' deltas). */
    if (lw->lora_a[TS_LORA_GATE] != TS_NO_VALUE) {
        ts_value gate = ts_decompose_activation(
            g, project(g, w, lw, TS_LORA_GATE, x, lw->gate, TS_NO_VALUE), spec->activation);
        ts_value up = project(g, w, lw, TS_LORA_UP, x, lw->up, TS_NO_VALUE);
        return project(g, w, lw, TS_LORA_DOWN, ts_graph_binary(g, TS_OP_MULTIPLY, gate, up),
                       lw->down, TS_NO_VALUE);
    }
    if (lw->router != TS_NO_VALUE)
        return ts_graph_moe_mlp(g, x, lw->router, lw->experts_gate_up, lw->experts_down,
                                (int)spec->experts_per_token, spec->norm_topk_prob,
                                spec->activation);
    return ts_graph_gated_mlp(g, x, lw->gate, lw->up, lw->down, spec->activation);
}

bool ts_decoder_layer_ring(const ts_decoder_spec *spec, const ts_step_shape *shape, int l)
{
    return shape->local_rows > 0 && spec->local_layer[l] && spec->sliding_window > 0;
}

bool ts_decoder_layer_sparse(const ts_decoder_spec *spec, int l)
{
    return spec->experts > 0 && !spec->dense_mlp[l];
}

int ts_decoder_sparse_layers(const ts_decoder_spec *spec)
{
    int n = 0;
    for (int l = 0; l < spec->layers; l++)
        n += ts_decoder_layer_sparse(spec, l);
    return n;
}

/* h[positions[j]] += features[i][j] for every j: StableHLO scatter, add region, rows as windows. */
static ts_value deepstack_add(ts_graph *g, const ts_decoder_spec *spec,
                              const ts_decoder_deepstack *ds, int i, ts_value h)
{
    const ts_type *ft = ts_graph_type(g, ds->features);
    int64_t nv = ft->dims[1], start[3] = {i, 0, 0}, limit[3] = {i + 1, nv, spec->hidden},
            rows2[2] = {nv, spec->hidden};
    ts_value update =
        ts_graph_reshape(g, ts_graph_slice(g, ds->features, start, limit, NULL), 2, rows2);
    ts_dims window = {1, {1}}, inserted = {1, {0}}, to_operand = {1, {0}};
    return ts_graph_scatter_add(g, h, ds->positions, update, &window, &inserted, &to_operand, 1);
}

ts_value ts_decoder_embed(ts_graph *g, const ts_decoder_spec *spec, const ts_decoder_weights *w,
                          ts_value ids)
{
    ts_value h = ts_graph_embedding(g, w->embed, ids);
    if (spec->embed_scale == 0) return h;
    const ts_type t = *ts_graph_type(g, h);
    return ts_graph_binary(
        g, TS_OP_MULTIPLY, h,
        ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, (float)spec->embed_scale), t.rank,
                                  t.dims, NULL));
}

/* Keys at or before window_start + i − window are hidden from query row i: [lq, lk] 0 / −inf. */
static ts_value window_bias(ts_graph *g, const ts_decoder_spec *spec, ts_value window_start,
                            int64_t lq, int64_t lk)
{
    int64_t md[2] = {lq, lk};
    ts_type it = ts_type_make(TS_DTYPE_I32, 2, md);
    ts_value row = ts_graph_iota(g, it, 0), col = ts_graph_iota(g, it, 1);
    ts_value first =
        ts_graph_binary(g, TS_OP_ADD, row, ts_graph_broadcast_in_dim(g, window_start, 2, md, NULL));
    ts_value edge = ts_graph_binary(
        g, TS_OP_SUBTRACT, first,
        ts_graph_broadcast_in_dim(g, ts_graph_constant_i32(g, (int32_t)spec->sliding_window), 2, md,
                                  NULL));
    ts_value inside = ts_graph_compare(g, TS_COMPARE_GT, col, edge);
    return ts_graph_select(
        g, inside, ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, 0.0f), 2, md, NULL),
        ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, -INFINITY), 2, md, NULL));
}

ts_value ts_decoder_attention(ts_graph *g, const ts_decoder_spec *spec, int l, ts_value q,
                              ts_value k, ts_value v, ts_value bias, ts_value q_start,
                              ts_value window_start)
{
    if (spec->local_layer[l] && spec->sliding_window > 0 && window_start != TS_NO_VALUE) {
        ts_value wb = window_bias(g, spec, window_start, ts_graph_type(g, q)->dims[0],
                                  ts_graph_type(g, k)->dims[0]);
        bias = bias == TS_NO_VALUE ? wb : ts_graph_binary(g, TS_OP_ADD, bias, wb);
    }
    double scale = spec->attn_scale > 0 ? spec->attn_scale : 1.0 / sqrt((double)spec->head_dim);
    return ts_graph_attention(g, q, k, v, bias, q_start, scale, spec->attn_softcap);
}

ts_value ts_decoder_layers(ts_graph *g, const ts_decoder_spec *spec, const ts_decoder_weights *w,
                           ts_value h, const ts_value cos[2], const ts_value sin[2],
                           const ts_decoder_attend *attend, ts_value *hidden)
{
    return ts_decoder_layers_deepstack(g, spec, w, h, cos, sin, attend, NULL, hidden);
}

ts_value ts_decoder_layers_deepstack(ts_graph *g, const ts_decoder_spec *spec,
                                     const ts_decoder_weights *w, ts_value h, const ts_value cos[2],
                                     const ts_value sin[2], const ts_decoder_attend *attend,
                                     const ts_decoder_deepstack *deepstack, ts_value *hidden)
{
    int next_deepstack = 0; /* index into spec->deepstack_layers (ascending) */
    int64_t n = ts_graph_type(g, h)->dims[0];
    int64_t D = spec->head_dim, HQ = spec->q_heads, HKV = spec->kv_heads;
    if (hidden) hidden[0] = h;
    for (int l = 0; l < spec->layers; l++) {
        const ts_decoder_layer_weights *lw = &w->layers[l];
        ts_graph_set_stage(g, "layer.%d.attn", l);
        double off = spec->norm_offset;
        ts_value x = ts_graph_rms_norm(g, h, lw->in_norm, spec->rms_eps, off);
        ts_value q = heads(g, project(g, w, lw, TS_LORA_Q, x, lw->q, lw->q_bias), n, HQ, D);
        ts_value k = heads(g, project(g, w, lw, TS_LORA_K, x, lw->k, lw->k_bias), n, HKV, D);
        ts_value v = heads(g, project(g, w, lw, TS_LORA_V, x, lw->v, lw->v_bias), n, HKV, D);
        if (spec->qk_norm) {
            q = ts_graph_rms_norm(g, q, lw->q_norm, spec->rms_eps, off);
            k = ts_graph_rms_norm(g, k, lw->k_norm, spec->rms_eps, off);
        }
        int table = spec->local_rope && spec->local_layer[l];
        q = ts_graph_rope(g, q, cos[table], sin[table], spec->rotary_dim, false);
        k = ts_graph_rope(g, k, cos[table], sin[table], spec->rotary_dim, false);
        ts_value attn = attend->fn(attend->self, g, l, q, k, v);
        int64_t flat[2] = {n, HQ * D};
        attn = project(g, w, lw, TS_LORA_O, ts_graph_reshape(g, attn, 2, flat), lw->o,
                       TS_NO_VALUE);
        if (spec->sandwich_norms)
            attn = ts_graph_rms_norm(g, attn, lw->post_norm, spec->rms_eps, off);
        h = ts_graph_binary(g, TS_OP_ADD, h, attn);
        ts_graph_set_stage(g, "layer.%d.mlp", l);
        ts_value m =
            mlp(g, spec, w, lw,
                ts_graph_rms_norm(g, h, spec->sandwich_norms ? lw->pre_ff_norm : lw->post_norm,
                                  spec->rms_eps, off));
        if (spec->sandwich_norms) m = ts_graph_rms_norm(g, m, lw->post_ff_norm, spec->rms_eps, off);
        h = ts_graph_binary(g, TS_OP_ADD, h, m);
        if (deepstack && next_deepstack < spec->n_deepstack &&
            spec->deepstack_layers[next_deepstack] == l) {
            ts_graph_set_stage(g, "layer.%d.deepstack", l);
            h = deepstack_add(g, spec, deepstack, next_deepstack++, h);
        }
        if (hidden) hidden[l + 1] = h;
    }
    return h;
}

ts_value ts_decoder_logits(ts_graph *g, const ts_decoder_spec *spec, const ts_decoder_weights *w,
                           ts_value h)
{
    ts_graph_set_stage(g, "lm_head");
    ts_value logits =
        ts_graph_linear(g, ts_graph_rms_norm(g, h, w->final_norm, spec->rms_eps, spec->norm_offset),
                        w->lm_head, TS_NO_VALUE);
    if (spec->final_softcap <= 0) return logits;
    const ts_type t = *ts_graph_type(g, logits);
    ts_value cap = ts_graph_broadcast_in_dim(
        g, ts_graph_constant_f32(g, (float)spec->final_softcap), t.rank, t.dims, NULL);
    return ts_graph_binary(
        g, TS_OP_MULTIPLY,
        ts_graph_unary(g, TS_OP_TANH, ts_graph_binary(g, TS_OP_DIVIDE, logits, cap)), cap);
}

/* ---------------------------------------------------------------- the CPU step */

/* Per-sequence caches as separate state parameters, written in place at each sequence's start. */
typedef struct {
    const ts_step_shape *shape;
    int64_t layers;
    const int64_t *offset;
    const ts_value *seq_start;
    ts_value *caches; /* [(s * layers + l) * 2 + {k, v}] */
    ts_dtype kv_dtype;
    const ts_decoder_spec *spec;
    const ts_value *bias; /* [s]: [n_s, n_s] over sequence s's own rows, or TS_NO_VALUE: causal */
} step_attend;

/* ---- sliding-window layers on a ring of R = local_rows rows (position p at row p mod R)
 *
 * The ring always holds the last R positions written (R ≥ window, so every key a later query
 * can see); row j holds position last − ((last − j) mod R) for the newest `last` (negative:
 * never written). Two ways through it, chosen by the step's static row count n:
 *   n = 1 (decode): write the row at start mod R, then attend over the ring rolled into
 *       position order (positions start − R + 1 … start).
 *   n > 1 (prefill chunk, any length, also longer than the ring): attend over [ring | chunk]
 *       (the ring as it was, rolled: positions start − R … start − 1, then the chunk's fresh
 *       rows, so early rows of a long chunk still see keys the chunk's own write would evict),
 *       then gather the last R positions of that into the ring and write it whole.
 * Both mask from positions: key visible iff max(0, q − window + 1) ≤ key ≤ q (negative
 * positions never are). The rolled order is the full cache's, so the sums and the logits are
 * the same as the full-capacity path's. */

/* x mod r for x ≥ 0 (i32 vectors; StableHLO has no remainder in our op set). */
static ts_value mod_rows(ts_graph *g, ts_value x, int64_t r)
{
    const ts_type t = *ts_graph_type(g, x);
    ts_value rv =
        ts_graph_broadcast_in_dim(g, ts_graph_constant_i32(g, (int32_t)r), t.rank, t.dims, NULL);
    return ts_graph_binary(
        g, TS_OP_SUBTRACT, x,
        ts_graph_binary(g, TS_OP_MULTIPLY, ts_graph_binary(g, TS_OP_DIVIDE, x, rv), rv));
}

/* The ring row of a scalar position ≥ 0: position mod r, as a scalar. */
static ts_value ring_row(ts_graph *g, ts_value position, int64_t r)
{
    int64_t one = 1;
    return ts_graph_reshape(g, mod_rows(g, ts_graph_reshape(g, position, 1, &one), r), 0, NULL);
}

/* i32[n]: scalar + iota, the positions of n consecutive rows from `first`. */
static ts_value positions_from(ts_graph *g, ts_value first, int64_t n)
{
    ts_type it = ts_type_make(TS_DTYPE_I32, 1, &n);
    return ts_graph_binary(g, TS_OP_ADD, ts_graph_iota(g, it, 0),
                           ts_graph_broadcast_in_dim(g, first, 1, &n, NULL));
}

/* i32[R]: the position ring row j holds when `last` is the newest one written (last ≥ −1):
 * last − ((last − j + R) mod R); negative for rows never written. */
static ts_value ring_positions(ts_graph *g, ts_value last, int64_t r)
{
    ts_type it = ts_type_make(TS_DTYPE_I32, 1, &r);
    ts_value lastv = ts_graph_broadcast_in_dim(g, last, 1, &r, NULL);
    ts_value back = ts_graph_binary(
        g, TS_OP_ADD, ts_graph_binary(g, TS_OP_SUBTRACT, lastv, ts_graph_iota(g, it, 0)),
        ts_graph_broadcast_in_dim(g, ts_graph_constant_i32(g, (int32_t)r), 1, &r, NULL));
    return ts_graph_binary(g, TS_OP_SUBTRACT, lastv, mod_rows(g, back, r));
}

/* [n, lk] 0 / −inf: key column c (position key_pos[c]) is visible from query row i (position
 * query_pos[i]) iff max(0, query − window + 1) ≤ key ≤ query; without `causal` the upper bound
 * is left to an attention bias of the call's own rows. */
static ts_value window_bias_from_positions(ts_graph *g, const ts_decoder_spec *spec,
                                           ts_value query_pos, ts_value key_pos, bool causal)
{
    int64_t n = ts_graph_type(g, query_pos)->dims[0], lk = ts_graph_type(g, key_pos)->dims[0],
            md[2] = {n, lk}, zero = 0, one = 1;
    ts_value lo = ts_graph_binary(
        g, TS_OP_MAXIMUM,
        ts_graph_binary(
            g, TS_OP_SUBTRACT, query_pos,
            ts_graph_broadcast_in_dim(
                g, ts_graph_constant_i32(g, (int32_t)spec->sliding_window - 1), 1, &n, NULL)),
        ts_graph_broadcast_in_dim(g, ts_graph_constant_i32(g, 0), 1, &n, NULL));
    ts_value key = ts_graph_broadcast_in_dim(g, key_pos, 2, md, &one);
    ts_value above =
        ts_graph_compare(g, TS_COMPARE_GE, key, ts_graph_broadcast_in_dim(g, lo, 2, md, &zero));
    ts_value below = ts_graph_compare(g, TS_COMPARE_LE, key,
                                      ts_graph_broadcast_in_dim(g, query_pos, 2, md, &zero));
    ts_value open = ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, 0.0f), 2, md, NULL);
    ts_value shut = ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, -INFINITY), 2, md, NULL);
    return ts_graph_select(g, above, causal ? ts_graph_select(g, below, open, shut) : open, shut);
}

/* rows[index[j]] for j < len(index): [len, ...] of a [N, ...] value. */
static ts_value gather_rows(ts_graph *g, ts_value x, ts_value index)
{
    const ts_type t = *ts_graph_type(g, x);
    ts_dims offset = {t.rank - 1, {0}}, collapsed = {1, {0}}, sizes = {t.rank, {1}};
    for (int d = 1; d < t.rank; d++)
        offset.v[d - 1] = d, sizes.v[d] = t.dims[d];
    return ts_graph_gather(g, x, index, &offset, &collapsed, &collapsed, 1, &sizes);
}

/* The ring [R, ...] rolled so that row `oldest[0]` comes first: position order, as the full
 * cache sums its keys (softmax and P·V sums run in key order), so the logits match it bit for bit.
 * Costs a copy of 3R rows per layer and step. */
static ts_value rolled(ts_graph *g, ts_value ring, const ts_value *oldest)
{
    const ts_type t = *ts_graph_type(g, ring);
    return ts_graph_dynamic_slice(g, ts_graph_concatenate(g, (ts_value[2]){ring, ring}, 2, 0),
                                  oldest, t.dims);
}

/* One sequence's attention on a local layer's ring; updates *kc, *vc [R, Hkv, D]. bias: the
 * call's own [n, n] rows (an image block seen bidirectionally), or TS_NO_VALUE (causal). */
static ts_value ring_attention(ts_graph *g, const ts_decoder_spec *spec, int l, ts_value q,
                               ts_value k, ts_value v, ts_value start, ts_value bias, ts_value *kc,
                               ts_value *vc)
{
    int64_t n = ts_graph_type(g, q)->dims[0], r = ts_graph_type(g, *kc)->dims[0];
    ts_value zero = ts_graph_constant_i32(g, 0), query_pos = positions_from(g, start, n);
    if (n == 1) {
        ts_value at[3] = {ring_row(g, start, r), zero, zero};
        *kc = ts_graph_dynamic_update_slice(g, *kc, k, at);
        *vc = ts_graph_dynamic_update_slice(g, *vc, v, at);
        ts_value next = ts_graph_binary(g, TS_OP_ADD, start, ts_graph_constant_i32(g, 1));
        ts_value oldest[3] = {ring_row(g, next, r), zero, zero};
        ts_value key_pos = positions_from(
            g, ts_graph_binary(g, TS_OP_SUBTRACT, next, ts_graph_constant_i32(g, (int32_t)r)), r);
        ts_value mask = window_bias_from_positions(g, spec, query_pos, key_pos, true);
        if (bias != TS_NO_VALUE && r > 1) {
            /* A one-row call's own bias is its row's view of itself: the rolled ring's last key. */
            int64_t before[2] = {1, r - 1};
            ts_value none =
                ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, 0.0f), 2, before, NULL);
            mask = ts_graph_binary(g, TS_OP_ADD, mask,
                                   ts_graph_concatenate(g, (ts_value[2]){none, bias}, 2, 1));
        }
        return ts_decoder_attention(g, spec, l, q, rolled(g, *kc, oldest), rolled(g, *vc, oldest),
                                    mask, TS_NO_VALUE, TS_NO_VALUE);
    }
    ts_value at[3] = {ring_row(g, start, r), zero, zero};
    ts_value keys = ts_graph_concatenate(g, (ts_value[2]){rolled(g, *kc, at), k}, 2, 0);
    ts_value values = ts_graph_concatenate(g, (ts_value[2]){rolled(g, *vc, at), v}, 2, 0);
    ts_value key_pos = positions_from(
        g, ts_graph_binary(g, TS_OP_SUBTRACT, start, ts_graph_constant_i32(g, (int32_t)r)), r + n);
    /* Causal from column R (the chunk's first row) lets the kernel skip the chunk's later keys;
     * every ring column lies before it, and the bias masks them by position. With the call's own
     * bias, that bias decides which of the chunk's rows see each other (the window still bounds
     * them from below), laid over the chunk's columns R … R + n − 1. */
    ts_value mask = window_bias_from_positions(g, spec, query_pos, key_pos, bias == TS_NO_VALUE);
    if (bias != TS_NO_VALUE) {
        int64_t before[2] = {n, r};
        ts_value none =
            ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, 0.0f), 2, before, NULL);
        mask = ts_graph_binary(g, TS_OP_ADD, mask,
                               ts_graph_concatenate(g, (ts_value[2]){none, bias}, 2, 1));
    }
    ts_value out = ts_decoder_attention(
        g, spec, l, q, keys, values, mask,
        bias == TS_NO_VALUE ? ts_graph_constant_i32(g, (int32_t)r) : TS_NO_VALUE, TS_NO_VALUE);
    /* Ring row j's new position p = last − ((last − j) mod R) sits at column p − start + R of
     * [rolled ring | chunk] (p > last − R ≥ start − R, so always inside). */
    ts_value last =
        ts_graph_binary(g, TS_OP_ADD, start, ts_graph_constant_i32(g, (int32_t)(n - 1)));
    ts_value index = ts_graph_binary(
        g, TS_OP_ADD, ring_positions(g, last, r),
        ts_graph_broadcast_in_dim(
            g, ts_graph_binary(g, TS_OP_SUBTRACT, ts_graph_constant_i32(g, (int32_t)r), start), 1,
            &r, NULL));
    ts_value origin[3] = {zero, zero, zero};
    *kc = ts_graph_dynamic_update_slice(g, *kc, gather_rows(g, keys, index), origin);
    *vc = ts_graph_dynamic_update_slice(g, *vc, gather_rows(g, values, index), origin);
    return out;
}

/* The step's [n, n] bias widened to the cache's [n, C] keys: rows before start were written by
 * earlier calls and are visible (the chunk's queries all come after them), rows from start + n
 * on are not written yet and are hidden. */
static ts_value cache_bias(ts_graph *g, ts_value bias, ts_value start, int64_t capacity)
{
    int64_t n = ts_graph_type(g, bias)->dims[0], md[2] = {n, capacity};
    ts_value col = ts_graph_iota(g, ts_type_make(TS_DTYPE_I32, 2, md), 1);
    ts_value before =
        ts_graph_compare(g, TS_COMPARE_LT, col, ts_graph_broadcast_in_dim(g, start, 2, md, NULL));
    ts_value base = ts_graph_select(
        g, before, ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, 0.0f), 2, md, NULL),
        ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, -INFINITY), 2, md, NULL));
    return ts_graph_dynamic_update_slice(g, base, bias,
                                         (ts_value[]){ts_graph_constant_i32(g, 0), start});
}

static ts_value step_attention(void *self, ts_graph *g, int l, ts_value q, ts_value k, ts_value v)
{
    step_attend *a = self;
    if (a->kv_dtype != TS_DTYPE_F32) {
        k = ts_graph_convert(g, k, a->kv_dtype);
        v = ts_graph_convert(g, v, a->kv_dtype);
    }
    ts_value per_seq[TS_MAX_BATCH];
    ts_value zero = ts_graph_constant_i32(g, 0);
    bool ring = ts_decoder_layer_ring(a->spec, a->shape, l);
    for (int s = 0; s < a->shape->n_seqs; s++) {
        int64_t rows_s = a->shape->n_tokens[s];
        if (ring) {
            ts_value *kc = &a->caches[(s * a->layers + l) * 2];
            per_seq[s] = ring_attention(
                g, a->spec, l, rows(g, q, a->offset[s], rows_s), rows(g, k, a->offset[s], rows_s),
                rows(g, v, a->offset[s], rows_s), a->seq_start[s], a->bias[s], kc, kc + 1);
            continue;
        }
        ts_value at[3] = {a->seq_start[s], zero, zero};
        ts_value *kc = &a->caches[(s * a->layers + l) * 2], *vc = kc + 1;
        *kc = ts_graph_dynamic_update_slice(g, *kc, rows(g, k, a->offset[s], rows_s), at);
        *vc = ts_graph_dynamic_update_slice(g, *vc, rows(g, v, a->offset[s], rows_s), at);
        /* With a bias it alone masks that sequence's rows: no causal mask from the start. */
        ts_value bias = a->bias[s] == TS_NO_VALUE
                            ? TS_NO_VALUE
                            : cache_bias(g, a->bias[s], a->seq_start[s], a->shape->capacity);
        per_seq[s] = ts_decoder_attention(g, a->spec, l, rows(g, q, a->offset[s], rows_s), *kc, *vc,
                                          bias, bias == TS_NO_VALUE ? a->seq_start[s] : TS_NO_VALUE,
                                          a->seq_start[s]);
    }
    return a->shape->n_seqs == 1 ? per_seq[0]
                                 : ts_graph_concatenate(g, per_seq, a->shape->n_seqs, 0);
}

/* Diagnostic outputs: each MoE layer's router probabilities, from its moe_mlp node's operands
 * by the ops the fused kernel runs (linear, softmax). Returns how many were added. */
static int router_probs(ts_graph *g, ts_value *out)
{
    int n = 0;
    for (int32_t i = 0, nodes = g->n_nodes; i < nodes; i++)
        if (g->nodes[i].op == TS_OP_MOE_MLP) {
            ts_value x = g->nodes[i].inputs[0], router = g->nodes[i].inputs[1];
            ts_graph_set_stage(g, "router_probs.%d", n);
            out[n++] = ts_graph_softmax(g, ts_graph_linear(g, x, router, TS_NO_VALUE), TS_NO_VALUE);
        }
    return n;
}

/* Rows of a step: every sequence's together. */
static int64_t step_rows(const ts_step_shape *shape)
{
    int64_t n = 0;
    for (int s = 0; s < shape->n_seqs; s++) n += shape->n_tokens[s];
    return n;
}

/* A declared DeepStack step: from embeddings (its visual positions count the rows of every
 * sequence together), 1 … rows visual rows, and target
 * layers the stack has, ascending. */
static ts_status check_deepstack_shape(const ts_decoder_spec *spec, const ts_step_shape *shape,
                                       ts_error *err)
{
    if (shape->n_visual == 0) return TS_OK;
    if (spec->n_deepstack < 1)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "step: DeepStack rows declared, but the model has no DeepStack layers");
    if (!shape->from_embeddings)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "step: DeepStack needs a step from embeddings");
    if (shape->n_visual < 0 || shape->n_visual > step_rows(shape))
        return ts_error_set(err, TS_ERR_RANGE, "step: %lld DeepStack rows for a step of %lld rows",
                            (long long)shape->n_visual, (long long)step_rows(shape));
    if (spec->n_deepstack > TS_MAX_DEEPSTACK)
        return ts_error_set(err, TS_ERR_RANGE, "step: %d DeepStack layers (at most %d)",
                            spec->n_deepstack, TS_MAX_DEEPSTACK);
    for (int i = 0; i < spec->n_deepstack; i++)
        if (spec->deepstack_layers[i] < 0 || spec->deepstack_layers[i] >= spec->layers ||
            (i > 0 && spec->deepstack_layers[i] <= spec->deepstack_layers[i - 1]))
            return ts_error_set(
                err, TS_ERR_RANGE,
                "step: DeepStack layer %d (entry %d) is not ascending within 0..%lld",
                spec->deepstack_layers[i], i, (long long)spec->layers - 1);
    return TS_OK;
}

ts_status ts_decoder_check_deepstack(const ts_decoder_spec *spec, const ts_step_shape *shape,
                                     const ts_decoder_deepstack_inputs *in, ts_error *err)
{
    ts_status st = check_deepstack_shape(spec, shape, err);
    if (st != TS_OK) return st;
    int64_t nv = shape->n_visual, rows = step_rows(shape);
    if (nv < 1)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "deepstack: the step declares no DeepStack rows");
    if (!in->visual_positions || !in->layer_features || !in->layer_indices)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "deepstack: %s is NULL",
                            !in->visual_positions ? "visual_positions"
                            : !in->layer_features ? "layer_features"
                                                  : "layer_indices");
    if (in->n_layers != spec->n_deepstack)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "deepstack: layer_indices has %d entries, the program %d", in->n_layers,
                            spec->n_deepstack);
    for (int i = 0; i < in->n_layers; i++)
        if (in->layer_indices[i] != spec->deepstack_layers[i])
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                                "deepstack: layer_indices[%d] = %d, the program's layer is %d", i,
                                in->layer_indices[i], spec->deepstack_layers[i]);
    if (in->n_positions != nv)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "deepstack: visual_positions has %lld entries, the program %lld",
                            (long long)in->n_positions, (long long)nv);
    int64_t want = (int64_t)spec->n_deepstack * nv * spec->hidden;
    if (in->n_features != want)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "deepstack: layer_features has %lld values (%lld bytes), the program "
                            "%lld ([%d, %lld, %lld])",
                            (long long)in->n_features, (long long)in->n_features * 4,
                            (long long)want, spec->n_deepstack, (long long)nv,
                            (long long)spec->hidden);
    for (int64_t j = 0; j < nv; j++) {
        int32_t p = in->visual_positions[j];
        if (p < 0 || p >= rows)
            return ts_error_set(
                err, TS_ERR_RANGE,
                "deepstack: visual_positions[%lld] = %d is outside the step's rows 0..%lld",
                (long long)j, p, (long long)rows - 1);
        if (j > 0 && p <= in->visual_positions[j - 1])
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                                "deepstack: visual_positions[%lld] = %d %s visual_positions[%lld] "
                                "= %d (sorted and unique required)",
                                (long long)j, p,
                                p == in->visual_positions[j - 1] ? "repeats" : "comes after",
                                (long long)j - 1, in->visual_positions[j - 1]);
    }
    for (int64_t i = 0; i < want; i++)
        if (!isfinite(in->layer_features[i]))
            return ts_error_set(
                err, TS_ERR_RANGE,
                "deepstack: layer_features value %lld (level %lld, row %lld) is not finite",
                (long long)i, (long long)(i / (nv * spec->hidden)),
                (long long)(i / spec->hidden % nv));
    return TS_OK;
}

ts_status ts_decoder_check_attention_bias(const float *bias, const int64_t shape[4], int64_t n,
                                          ts_error *err)
{
    if (!bias) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "attention bias: bias is NULL");
    if (shape[0] != 1 || shape[1] != 1 || shape[2] != n || shape[3] != n)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "attention bias: shape [%lld, %lld, %lld, %lld], the call's rows need "
                            "[1, 1, %lld, %lld]",
                            (long long)shape[0], (long long)shape[1], (long long)shape[2],
                            (long long)shape[3], (long long)n, (long long)n);
    for (int64_t q = 0; q < n; q++)
        for (int64_t k = 0; k < n; k++) {
            float v = bias[q * n + k];
            /* -inf hides a key; NaN or +inf would poison the whole row's softmax. */
            if (isnan(v) || v == INFINITY || (q == k && !isfinite(v)))
                return ts_error_set(
                    err, TS_ERR_RANGE, "attention bias: value at [0, 0, %lld, %lld] is %g (%s)",
                    (long long)q, (long long)k, (double)v,
                    q == k ? "a row must see itself: finite" : "NaN and +inf are not allowed");
        }
    return TS_OK;
}

ts_status ts_decoder_build(ts_graph *g, const ts_decoder_spec *spec,
                           const ts_weight_source *weights, const ts_step_shape *shape,
                           ts_error *err)
{
    if (shape->n_seqs < 1 || shape->n_seqs > TS_MAX_BATCH)
        return ts_error_set(err, TS_ERR_RANGE, "step: %d sequences (1..%d allowed)", shape->n_seqs,
                            TS_MAX_BATCH);
    int64_t n = 0, offset[TS_MAX_BATCH];
    for (int s = 0; s < shape->n_seqs; s++) {
        if (shape->n_tokens[s] < 1 || shape->n_tokens[s] > shape->capacity)
            return ts_error_set(err, TS_ERR_RANGE,
                                "step: sequence %d has %lld tokens (1..%lld allowed)", s,
                                (long long)shape->n_tokens[s], (long long)shape->capacity);
        offset[s] = n;
        n += shape->n_tokens[s];
    }
    if (shape->local_rows != 0 &&
        (spec->sliding_window < 1 || shape->local_rows < spec->sliding_window ||
         shape->local_rows > INT32_MAX))
        return ts_error_set(err, TS_ERR_RANGE,
                            "step: %lld ring rows for local layers (the window is %lld)",
                            (long long)shape->local_rows, (long long)spec->sliding_window);
    ts_status st = check_deepstack_shape(spec, shape, err);
    if (st != TS_OK) return st;
    for (int s = 0; s < shape->n_seqs; s++)
        if (shape->attention_bias[s] && !shape->from_embeddings)
            return ts_error_set(err, TS_ERR_UNSUPPORTED,
                                "step: an attention bias needs a step from embeddings");
    /* Weights first, so every failure about the checkpoint comes before any input is declared. */
    ts_decoder_weights *w = malloc(sizeof(*w));
    if (!w) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "decoder: out of memory");
    st = ts_decoder_load_weights(g, spec, weights, w, err);
    if (st != TS_OK) {
        free(w);
        return st;
    }
    ts_graph_set_stage(g, "inputs");
    int64_t bsz = shape->n_seqs;
    int64_t emb_dims[2] = {n, spec->hidden};
    ts_value tokens =
        shape->from_embeddings
            ? ts_graph_parameter(g, "embeddings", TS_PARAM_INPUT,
                                 ts_type_make(TS_DTYPE_F32, 2, emb_dims))
            : ts_graph_parameter(g, "tokens", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 1, &n));
    int64_t pos_dims[2] = {3, n};
    ts_value positions = ts_graph_parameter(g, "positions", TS_PARAM_INPUT,
                                            spec->mrope ? ts_type_make(TS_DTYPE_I32, 2, pos_dims)
                                                        : ts_type_make(TS_DTYPE_I32, 1, &n));
    ts_value starts =
        ts_graph_parameter(g, "starts", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 1, &bsz));
    ts_decoder_deepstack deepstack = {TS_NO_VALUE, TS_NO_VALUE};
    if (shape->n_visual > 0) {
        int64_t fd[3] = {spec->n_deepstack, shape->n_visual, spec->hidden};
        deepstack.positions = ts_graph_parameter(g, "visual_positions", TS_PARAM_INPUT,
                                                 ts_type_make(TS_DTYPE_I32, 1, &shape->n_visual));
        deepstack.features = ts_graph_parameter(g, "layer_features", TS_PARAM_INPUT,
                                                ts_type_make(TS_DTYPE_F32, 3, fd));
    }
    ts_value bias[TS_MAX_BATCH];
    for (int s = 0; s < shape->n_seqs; s++) {
        int64_t bias_dims[2] = {shape->n_tokens[s], shape->n_tokens[s]};
        bias[s] = shape->attention_bias[s]
                      ? ts_graph_parameter(g, "bias", TS_PARAM_INPUT,
                                           ts_type_make(TS_DTYPE_F32, 2, bias_dims))
                      : TS_NO_VALUE;
    }
    if (spec->lora_adapters > 0)
        w->adapters =
            ts_graph_parameter(g, "adapters", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 1, &n));
    int64_t cache_dims[3] = {shape->capacity, spec->kv_heads, spec->head_dim};
    int64_t ring_dims[3] = {shape->local_rows, spec->kv_heads, spec->head_dim};
    ts_dtype kv_dtype = shape->kv_dtype == TS_DTYPE_BF16 ? TS_DTYPE_BF16 : TS_DTYPE_F32;
    ts_type cache_type = ts_type_make(kv_dtype, 3, cache_dims),
            ring_type = ts_type_make(kv_dtype, 3, ring_dims);
    int64_t n_caches = 2 * shape->n_seqs * spec->layers;
    /* One array serves the cache parameters and then the outputs: logits, caches, hidden states,
     * router probabilities. */
    ts_value *outs = malloc(sizeof(ts_value) * (size_t)(1 + n_caches + 2 * spec->layers + 1));
    if (!outs) {
        free(w);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "decoder: out of memory");
    }
    ts_value *caches = outs + 1;
    for (int s = 0; s < shape->n_seqs; s++)
        for (int l = 0; l < spec->layers; l++)
            for (int kv = 0; kv < 2; kv++) {
                char name[64];
                snprintf(name, sizeof(name), "%s_cache.%d.%d", kv ? "v" : "k", s, l);
                caches[(s * spec->layers + l) * 2 + kv] = ts_graph_parameter(
                    g, name, TS_PARAM_STATE,
                    ts_decoder_layer_ring(spec, shape, l) ? ring_type : cache_type);
            }
    ts_value seq_start[TS_MAX_BATCH];
    for (int s = 0; s < shape->n_seqs; s++)
        seq_start[s] = element(g, starts, s);

    ts_graph_set_stage(g, "rope");
    ts_value cos[2], sin[2];
    step_rope_tables(g, spec, shape, offset, positions, cos, sin);
    ts_graph_set_stage(g, "embed_tokens");
    ts_value h = shape->from_embeddings ? tokens : ts_decoder_embed(g, spec, w, tokens);
    step_attend sa = {shape, spec->layers, offset, seq_start, caches, kv_dtype, spec, bias};
    ts_decoder_attend attend = {step_attention, &sa};
    ts_value *hidden = outs + 1 + n_caches;
    h = ts_decoder_layers_deepstack(g, spec, w, h, cos, sin, &attend,
                                    shape->n_visual > 0 ? &deepstack : NULL,
                                    shape->hidden_states ? hidden : NULL);

    ts_value last = h;
    if (!shape->all_logits) {
        ts_value lasts[TS_MAX_BATCH];
        for (int s = 0; s < shape->n_seqs; s++)
            lasts[s] = rows(g, h, offset[s] + shape->n_tokens[s] - 1, 1);
        last = shape->n_seqs == 1 ? lasts[0] : ts_graph_concatenate(g, lasts, shape->n_seqs, 0);
    }
    outs[0] = ts_decoder_logits(g, spec, w, last);
    int n_out = 1 + (int)n_caches;
    if (shape->hidden_states) {
        /* The reference's last hidden state is after the final norm (BaseModelOutput). */
        hidden[spec->layers] =
            ts_graph_rms_norm(g, h, w->final_norm, spec->rms_eps, spec->norm_offset);
        n_out += (int)spec->layers + 1;
        n_out += router_probs(g, outs + n_out);
    }
    ts_graph_set_outputs(g, outs, n_out);
    free(outs);
    free(w);
    return ts_graph_status(g, err);
}

int32_t ts_decoder_first_input(const ts_graph *g)
{
    for (int32_t i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].op == TS_OP_PARAMETER && g->nodes[i].attrs.parameter.role == TS_PARAM_INPUT)
            return g->nodes[i].attrs.parameter.index;
    return -1;
}

/* rope_init_fn "default": inv_freq = 1 / base^(2i/dim), each step in f32 as torch computes it. */
static void default_inv_freq(double base, int dim, float *out)
{
    for (int i = 0; i < dim / 2; i++) {
        float exponent = (float)(2 * i) / (float)dim;
        out[i] = 1.0f / powf((float)base, exponent);
    }
}

/* _compute_llama3_parameters: long wavelengths divided by factor, short ones kept, the band
 * between blended; f32 arithmetic as in the reference. */
static void llama3_inv_freq(const ts_text_config *t, int dim, float *inv)
{
    float factor = (float)t->rope_factor, low = (float)t->rope_low_freq_factor,
          high = (float)t->rope_high_freq_factor;
    float old_len = (float)t->rope_original_max_position;
    float low_wavelen = old_len / low, high_wavelen = old_len / high;
    for (int i = 0; i < dim / 2; i++) {
        float wavelen = 2.0f * (float)M_PI / inv[i];
        float scaled = wavelen > low_wavelen ? inv[i] / factor : inv[i];
        float smooth = (old_len / wavelen - low) / (high - low);
        float smoothed = (1.0f - smooth) * scaled / factor + smooth * scaled;
        bool medium = !(wavelen < high_wavelen) && !(wavelen > low_wavelen);
        inv[i] = medium ? smoothed : scaled;
    }
}

/* _compute_longrope_parameters: inv_freq = 1 / (short_factor · base^(2i/dim)) for forwards up to
 * the pretraining length, long_inv_freq the same with long_factor (the reference computes it with
 * seq_len = original + 1), and the attention factor that scales cos and sin in both,
 * sqrt(1 + ln(factor) / ln(original)) with factor = max / original positions unless the file
 * gives one; f32 steps as torch takes them. */
static ts_status longrope(const ts_text_config *t, ts_decoder_spec *spec, ts_error *err)
{
    int half = spec->rotary_dim / 2;
    if (t->n_rope_short_factor != half || t->n_rope_long_factor != half)
        return ts_error_set(err, TS_ERR_FORMAT,
                            "config.json: rope_scaling short_factor has %d and long_factor %d "
                            "entries; the rotary dimension %d needs %d",
                            t->n_rope_short_factor, t->n_rope_long_factor, spec->rotary_dim, half);
    int64_t original = t->rope_original_max_position > 0 ? t->rope_original_max_position
                                                         : t->max_position_embeddings;
    if (original < 2)
        return ts_error_set(err, TS_ERR_FORMAT, "config.json: original_max_position_embeddings %lld",
                            (long long)original);
    for (int i = 0; i < half; i++) {
        float exponent = (float)(2 * i) / (float)spec->rotary_dim;
        float base = powf((float)t->rope_theta, exponent);
        spec->inv_freq[i] = 1.0f / ((float)t->rope_short_factor[i] * base);
        spec->long_inv_freq[i] = 1.0f / ((float)t->rope_long_factor[i] * base);
    }
    double factor = t->rope_factor > 0 ? t->rope_factor
                                       : (double)t->max_position_embeddings / (double)original;
    double attention = t->rope_attention_factor;
    if (attention <= 0)
        attention = factor <= 1.0 ? 1.0 : sqrt(1.0 + log(factor) / log((double)original));
    spec->rope_scale = (float)attention;
    spec->rope_long_after = original;
    spec->rope_positions = t->max_position_embeddings > original ? t->max_position_embeddings
                                                                 : original;
    return TS_OK;
}

ts_status ts_decoder_spec_init(const ts_model_config *cfg, ts_decoder_spec *spec, ts_error *err)
{
    const ts_text_config *t = &cfg->text;
    memset(spec, 0, sizeof(*spec));
    spec->prefix = "model.";
    spec->lm_head = t->tie_word_embeddings ? NULL : "lm_head.weight";
    if (!cfg->family || !cfg->family->decoder) {
        char built[256] = "";
        int count = 0;
        const ts_family_desc *const *all = ts_family_all(&count);
        for (int i = 0; i < count; i++)
            if (all[i]->decoder)
                snprintf(built + strlen(built), sizeof(built) - strlen(built), "%s%s",
                         built[0] ? ", " : "", all[i]->name);
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "%s: the text decoder for this family is not built yet (supported: %s)",
                            ts_family_name(cfg->family), built);
    }
    ts_status st = cfg->family->decoder(cfg, spec, err);
    if (st != TS_OK) return st;
    spec->vocab = t->vocab_size;
    spec->hidden = t->hidden_size;
    spec->layers = t->num_hidden_layers;
    spec->q_heads = t->num_attention_heads;
    spec->kv_heads = t->num_key_value_heads;
    spec->head_dim = t->head_dim ? t->head_dim : t->hidden_size / t->num_attention_heads;
    spec->inter = t->intermediate_size;
    spec->rms_eps = t->rms_norm_eps;
    double partial = t->partial_rotary_factor > 0 ? t->partial_rotary_factor : 1.0;
    spec->rotary_dim = (int)(spec->head_dim * partial);
    if (spec->layers < 1 || spec->layers > 256 || spec->q_heads < 1 || spec->kv_heads < 1 ||
        spec->q_heads % spec->kv_heads)
        return ts_error_set(
            err, TS_ERR_FORMAT,
            "config.json: %lld layers, %lld heads, %lld kv heads do not describe a decoder",
            (long long)spec->layers, (long long)spec->q_heads, (long long)spec->kv_heads);
    if (spec->n_deepstack > TS_MAX_DEEPSTACK || spec->n_deepstack > spec->layers)
        return ts_error_set(
            err, TS_ERR_UNSUPPORTED,
            "config.json: %d DeepStack levels for %lld language layers (at most %d)",
            spec->n_deepstack, (long long)spec->layers, TS_MAX_DEEPSTACK);
    for (int i = 0; i < spec->n_deepstack; i++)
        spec->deepstack_layers[i] = i;
    if (spec->rotary_dim < 2 || spec->rotary_dim % 2 || spec->rotary_dim / 2 > 512)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "config.json: rotary dimension %d",
                            spec->rotary_dim);
    if (strcmp(t->hidden_act, "silu") == 0)
        spec->activation = TS_ACT_SILU;
    else if (strcmp(t->hidden_act, "gelu_pytorch_tanh") == 0)
        spec->activation = TS_ACT_GELU_TANH;
    else if (strcmp(t->hidden_act, "gelu") == 0)
        spec->activation = TS_ACT_GELU;
    else
        return ts_error_set(
            err, TS_ERR_UNSUPPORTED,
            "config.json: hidden_act \"%s\" (supported: silu, gelu, gelu_pytorch_tanh)",
            t->hidden_act);
    default_inv_freq(t->rope_theta, spec->rotary_dim, spec->inv_freq);
    const int *sec = t->mrope_section;
    if (sec[0] || sec[1] || sec[2]) {
        int half = spec->rotary_dim / 2;
        if (sec[0] < 0 || sec[1] < 0 || sec[2] < 0 || sec[0] + sec[1] + sec[2] != half)
            return ts_error_set(
                err, TS_ERR_FORMAT,
                "config.json: mrope_section [%d, %d, %d] must add up to %d (head_dim / 2)", sec[0],
                sec[1], sec[2], half);
        spec->mrope = true;
        for (int j = 0; j < half; j++) {
            if (t->mrope_interleaved) /* apply_interleaved_mrope: h at 1, 4, … < 3·s1; w at 2, 5, …
                                         < 3·s2 */
                spec->rope_axis[j] = (j % 3 == 1 && j < 3 * sec[1])   ? 1
                                     : (j % 3 == 2 && j < 3 * sec[2]) ? 2
                                                                      : 0;
            else
                spec->rope_axis[j] = j < sec[0] ? 0 : j < sec[0] + sec[1] ? 1 : 2;
        }
    }
    if (strcmp(t->rope_type, "llama3") == 0)
        llama3_inv_freq(t, spec->rotary_dim, spec->inv_freq);
    else if (strcmp(t->rope_type, "linear") == 0)
        for (int i = 0; i < spec->rotary_dim / 2; i++)
            spec->inv_freq[i] /= (float)t->rope_factor; /* positions / factor */
    else if (strcmp(t->rope_type, "longrope") == 0) {
        if (spec->mrope)
            return ts_error_set(err, TS_ERR_UNSUPPORTED,
                                "config.json: rope_type \"longrope\" with mrope_section");
        TS_TRY(longrope(t, spec, err));
    } else if (strcmp(t->rope_type, "default") != 0 && t->rope_type[0])
        return ts_error_set(
            err, TS_ERR_UNSUPPORTED,
            "config.json: rope_type \"%s\" is not implemented yet (default, linear, llama3, "
            "longrope are)",
            t->rope_type);
    if (spec->local_rope_theta > 0) {
        if (spec->rope_long_after > 0)
            return ts_error_set(err, TS_ERR_UNSUPPORTED,
                                "config.json: rope_type \"longrope\" with local rotary layers");
        spec->local_rope = true;
        default_inv_freq(spec->local_rope_theta, spec->rotary_dim, spec->local_inv_freq);
    }
    if (spec->sliding_window < 0 || spec->sliding_window > INT32_MAX)
        return ts_error_set(err, TS_ERR_RANGE, "config.json: sliding_window %lld",
                            (long long)spec->sliding_window);
    return TS_OK;
}
