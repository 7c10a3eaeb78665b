/* composite.c — builders for the fused ops, with their type rules.
 *
 * A composite's semantics are defined by its decomposition (decompose.c); these builders only
 * check operand types and give the result type. Float math is f32: weights may be bf16/f16
 * (they are converted), activations are f32.
 */
#include "graph/graph_internal.h"

#define reject(g, op, ...) ts_graph_fail(g, op, TS_ERR_INTERNAL, __VA_ARGS__)

static bool defined(ts_graph *g, const ts_value *v, int n) { return ts_graph_inputs_defined(g, TS_OP_COUNT, v, n); }

static bool is_weight_dtype(ts_dtype d) { return d == TS_DTYPE_F32 || d == TS_DTYPE_BF16 || d == TS_DTYPE_F16; }

ts_value ts_graph_rms_norm(ts_graph *g, ts_value x, ts_value weight, double eps, double weight_offset)
{
    ts_value in[2] = {x, weight};
    if (!defined(g, in, 2)) return TS_NO_VALUE;
    const ts_type *t = ts_graph_type(g, x), *w = ts_graph_type(g, weight);
    if (t->dtype != TS_DTYPE_F32 || t->rank < 1) return reject(g, TS_OP_RMS_NORM, "x must be f32 with rank ≥ 1");
    if (w->rank != 1 || w->dims[0] != t->dims[t->rank - 1] || !is_weight_dtype(w->dtype))
        return reject(g, TS_OP_RMS_NORM, "weight must be [%lld]", (long long)t->dims[t->rank - 1]);
    ts_attrs a = {.norm = {.eps = eps, .weight_offset = weight_offset}};
    return ts_graph_append(g, TS_OP_RMS_NORM, *t, in, 2, &a);
}

ts_value ts_graph_layer_norm(ts_graph *g, ts_value x, ts_value weight, ts_value bias, double eps)
{
    ts_value in[3] = {x, weight, bias};
    if (!defined(g, in, 3)) return TS_NO_VALUE;
    const ts_type *t = ts_graph_type(g, x);
    if (t->dtype != TS_DTYPE_F32 || t->rank < 1) return reject(g, TS_OP_LAYER_NORM, "x must be f32 with rank ≥ 1");
    for (int i = 1; i < 3; i++) {
        const ts_type *w = ts_graph_type(g, in[i]);
        if (w->rank != 1 || w->dims[0] != t->dims[t->rank - 1] || !is_weight_dtype(w->dtype))
            return reject(g, TS_OP_LAYER_NORM, "%s must be [%lld]", i == 1 ? "weight" : "bias", (long long)t->dims[t->rank - 1]);
    }
    ts_attrs a = {.norm = {.eps = eps}};
    return ts_graph_append(g, TS_OP_LAYER_NORM, *t, in, 3, &a);
}

ts_value ts_graph_softmax(ts_graph *g, ts_value x, ts_value bias)
{
    ts_value in[2] = {x, bias};
    int n = bias == TS_NO_VALUE ? 1 : 2;
    if (!defined(g, in, n)) return TS_NO_VALUE;
    const ts_type *t = ts_graph_type(g, x);
    if (t->dtype != TS_DTYPE_F32 || t->rank < 1) return reject(g, TS_OP_SOFTMAX, "x must be f32 with rank ≥ 1");
    if (n == 2 && !ts_type_equal(t, ts_graph_type(g, bias))) return reject(g, TS_OP_SOFTMAX, "bias type differs from x");
    return ts_graph_append(g, TS_OP_SOFTMAX, *t, in, n, NULL);
}

ts_value ts_graph_rope(ts_graph *g, ts_value x, ts_value cos, ts_value sin, int rotary_dim, bool interleaved)
{
    ts_value in[3] = {x, cos, sin};
    if (!defined(g, in, 3)) return TS_NO_VALUE;
    const ts_type *t = ts_graph_type(g, x), *c = ts_graph_type(g, cos), *s = ts_graph_type(g, sin);
    /* x [L, H, D]; cos/sin [L, rotary_dim/2]. */
    if (t->dtype != TS_DTYPE_F32 || t->rank != 3) return reject(g, TS_OP_ROPE, "x must be f32 [L, heads, head_dim]");
    if (rotary_dim <= 0 || rotary_dim % 2 || rotary_dim > t->dims[2]) return reject(g, TS_OP_ROPE, "rotary_dim %d invalid for head_dim %lld", rotary_dim, (long long)t->dims[2]);
    int64_t want[2] = {t->dims[0], rotary_dim / 2};
    ts_type tab = ts_type_make(TS_DTYPE_F32, 2, want);
    if (!ts_type_equal(c, &tab) || !ts_type_equal(s, &tab))
        return reject(g, TS_OP_ROPE, "cos/sin must be f32 [%lld, %d]", (long long)want[0], rotary_dim / 2);
    ts_attrs a = {.rope = {.rotary_dim = rotary_dim, .interleaved = interleaved}};
    return ts_graph_append(g, TS_OP_ROPE, *t, in, 3, &a);
}

ts_value ts_graph_attention(ts_graph *g, ts_value q, ts_value k, ts_value v, ts_value bias,
                            ts_value q_start, double scale, double softcap)
{
    ts_value in[5] = {q, k, v};
    int n = 3;
    if (bias != TS_NO_VALUE) in[n++] = bias;
    if (q_start != TS_NO_VALUE) in[n++] = q_start;
    if (!defined(g, in, n)) return TS_NO_VALUE;
    const ts_type *tq = ts_graph_type(g, q), *tk = ts_graph_type(g, k), *tv = ts_graph_type(g, v);
    /* k/v may be a bf16 cache: they are widened to f32 (decomposition: convert). */
    bool kv_ok = tk->dtype == tv->dtype && (tk->dtype == TS_DTYPE_F32 || tk->dtype == TS_DTYPE_BF16);
    if (tq->rank != 3 || tk->rank != 3 || tv->rank != 3 || tq->dtype != TS_DTYPE_F32 || !kv_ok)
        return reject(g, TS_OP_ATTENTION, "q must be f32, k and v both f32 or both bf16, all [L, heads, dim]");
    if (tk->dims[0] != tv->dims[0] || tk->dims[1] != tv->dims[1] || tq->dims[2] != tk->dims[2])
        return reject(g, TS_OP_ATTENTION, "k/v shapes disagree with q");
    if (tk->dims[1] == 0 || tq->dims[1] % tk->dims[1])
        return reject(g, TS_OP_ATTENTION, "%lld query heads not a multiple of %lld kv heads", (long long)tq->dims[1], (long long)tk->dims[1]);
    if (bias != TS_NO_VALUE) {
        int64_t bd[2] = {tq->dims[0], tk->dims[0]};
        ts_type bt = ts_type_make(TS_DTYPE_F32, 2, bd);
        if (!ts_type_equal(ts_graph_type(g, bias), &bt)) return reject(g, TS_OP_ATTENTION, "bias must be f32 [%lld, %lld]", (long long)bd[0], (long long)bd[1]);
    }
    if (q_start != TS_NO_VALUE) {
        const ts_type *ts = ts_graph_type(g, q_start);
        if (ts->rank != 0 || ts->dtype != TS_DTYPE_I32) return reject(g, TS_OP_ATTENTION, "q_start must be an i32 scalar");
    }
    int64_t rd[3] = {tq->dims[0], tq->dims[1], tv->dims[2]};
    ts_attrs a = {.attention = {.scale = scale, .softcap = softcap, .causal = q_start != TS_NO_VALUE, .has_bias = bias != TS_NO_VALUE}};
    return ts_graph_append(g, TS_OP_ATTENTION, ts_type_make(TS_DTYPE_F32, 3, rd), in, n, &a);
}

static bool linear_ok(ts_graph *g, ts_op op, const ts_type *x, const ts_type *w, int64_t in_dim)
{
    if (w->rank != 2 || !is_weight_dtype(w->dtype) || w->dims[1] != in_dim) {
        reject(g, op, "weight must be [out, %lld] f32/bf16/f16", (long long)in_dim);
        return false;
    }
    (void)x;
    return true;
}

ts_value ts_graph_linear(ts_graph *g, ts_value x, ts_value w, ts_value bias)
{
    ts_value in[3] = {x, w, bias};
    int n = bias == TS_NO_VALUE ? 2 : 3;
    if (!defined(g, in, n)) return TS_NO_VALUE;
    const ts_type *tx = ts_graph_type(g, x), *tw = ts_graph_type(g, w);
    if (tx->dtype != TS_DTYPE_F32 || tx->rank < 1) return reject(g, TS_OP_LINEAR, "x must be f32 with rank ≥ 1");
    if (!linear_ok(g, TS_OP_LINEAR, tx, tw, tx->dims[tx->rank - 1])) return TS_NO_VALUE;
    if (n == 3) {
        const ts_type *tb = ts_graph_type(g, bias);
        if (tb->rank != 1 || tb->dims[0] != tw->dims[0] || !is_weight_dtype(tb->dtype))
            return reject(g, TS_OP_LINEAR, "bias must be [%lld]", (long long)tw->dims[0]);
    }
    ts_type r = *tx;
    r.dims[r.rank - 1] = tw->dims[0];
    return ts_graph_append(g, TS_OP_LINEAR, r, in, n, NULL);
}

ts_value ts_graph_gated_mlp(ts_graph *g, ts_value x, ts_value w_gate, ts_value w_up, ts_value w_down,
                            ts_activation activation)
{
    ts_value in[4] = {x, w_gate, w_up, w_down};
    if (!defined(g, in, 4)) return TS_NO_VALUE;
    const ts_type *tx = ts_graph_type(g, x);
    if (tx->dtype != TS_DTYPE_F32 || tx->rank < 1) return reject(g, TS_OP_GATED_MLP, "x must be f32 with rank ≥ 1");
    int64_t hidden = tx->dims[tx->rank - 1];
    const ts_type *tg = ts_graph_type(g, w_gate), *tu = ts_graph_type(g, w_up), *td = ts_graph_type(g, w_down);
    if (!linear_ok(g, TS_OP_GATED_MLP, tx, tg, hidden) || !linear_ok(g, TS_OP_GATED_MLP, tx, tu, hidden)) return TS_NO_VALUE;
    if (tg->dims[0] != tu->dims[0]) return reject(g, TS_OP_GATED_MLP, "gate and up widths differ");
    if (!linear_ok(g, TS_OP_GATED_MLP, tx, td, tg->dims[0])) return TS_NO_VALUE;
    if ((unsigned)activation >= TS_ACT_COUNT) return reject(g, TS_OP_GATED_MLP, "bad activation");
    ts_type r = *tx;
    r.dims[r.rank - 1] = td->dims[0];
    ts_attrs a = {.mlp = {.activation = activation}};
    return ts_graph_append(g, TS_OP_GATED_MLP, r, in, 4, &a);
}

ts_value ts_graph_moe_mlp(ts_graph *g, ts_value x, ts_value router, ts_value gate_up, ts_value down,
                          int top_k, bool normalize, ts_activation activation)
{
    ts_value in[4] = {x, router, gate_up, down};
    if (!defined(g, in, 4)) return TS_NO_VALUE;
    const ts_type *tx = ts_graph_type(g, x);
    if (tx->dtype != TS_DTYPE_F32 || tx->rank < 1)
        return reject(g, TS_OP_MOE_MLP, "x must be f32 with rank ≥ 1");
    int64_t hidden = tx->dims[tx->rank - 1];
    const ts_type *tr = ts_graph_type(g, router), *tg = ts_graph_type(g, gate_up),
                  *td = ts_graph_type(g, down);
    if (!linear_ok(g, TS_OP_MOE_MLP, tx, tr, hidden)) return TS_NO_VALUE;
    int64_t experts = tr->dims[0];
    if (tg->rank != 3 || !is_weight_dtype(tg->dtype) || tg->dims[0] != experts ||
        tg->dims[1] != hidden || tg->dims[2] < 2 || tg->dims[2] % 2)
        return reject(g, TS_OP_MOE_MLP, "gate_up must be [%lld, %lld, 2·inter] f32/bf16/f16",
                      (long long)experts, (long long)hidden);
    int64_t inter = tg->dims[2] / 2;
    if (td->rank != 3 || td->dtype != tg->dtype || td->dims[0] != experts || td->dims[1] != inter ||
        td->dims[2] != hidden)
        return reject(g, TS_OP_MOE_MLP, "down must be [%lld, %lld, %lld] of gate_up's dtype",
                      (long long)experts, (long long)inter, (long long)hidden);
    if (top_k < 1 || top_k > experts)
        return reject(g, TS_OP_MOE_MLP, "top_k %d outside 1..%lld", top_k, (long long)experts);
    if ((unsigned)activation >= TS_ACT_COUNT) return reject(g, TS_OP_MOE_MLP, "bad activation");
    ts_attrs a = {.moe = {.top_k = top_k, .normalize = normalize, .activation = activation}};
    return ts_graph_append(g, TS_OP_MOE_MLP, *tx, in, 4, &a);
}

ts_value ts_graph_embedding(ts_graph *g, ts_value table, ts_value ids)
{
    ts_value in[2] = {table, ids};
    if (!defined(g, in, 2)) return TS_NO_VALUE;
    const ts_type *tt = ts_graph_type(g, table), *ti = ts_graph_type(g, ids);
    if (tt->rank != 2 || !is_weight_dtype(tt->dtype)) return reject(g, TS_OP_EMBEDDING, "table must be [vocab, hidden] f32/bf16/f16");
    if (ti->dtype != TS_DTYPE_I32 || ti->rank >= TS_MAX_DIMS) return reject(g, TS_OP_EMBEDDING, "ids must be i32");
    ts_type r = *ti;
    r.dtype = TS_DTYPE_F32;
    r.dims[r.rank++] = tt->dims[1];
    return ts_graph_append(g, TS_OP_EMBEDDING, r, in, 2, NULL);
}

ts_value ts_graph_qlinear(ts_graph *g, ts_value x, ts_value q, ts_value scale, ts_value zero,
                          ts_value bias, int64_t block)
{
    ts_value in[5] = {x, q, scale};
    int n = 3;
    if (zero != TS_NO_VALUE) in[n++] = zero;
    if (bias != TS_NO_VALUE) in[n++] = bias;
    if (!defined(g, in, n)) return TS_NO_VALUE;
    const ts_type *tx = ts_graph_type(g, x), *tq = ts_graph_type(g, q), *ts = ts_graph_type(g, scale);
    if (tx->dtype != TS_DTYPE_F32 || tx->rank < 1) return reject(g, TS_OP_QLINEAR, "x must be f32 with rank ≥ 1");
    int64_t k = tx->dims[tx->rank - 1];
    if (tq->rank != 2 || (tq->dtype != TS_DTYPE_I8 && tq->dtype != TS_DTYPE_U8))
        return reject(g, TS_OP_QLINEAR, "weights must be i8 [out, in] (8-bit) or u8 [out, in/2] (4-bit)");
    int bits = tq->dtype == TS_DTYPE_I8 ? 8 : 4;
    int64_t out = tq->dims[0];
    if (tq->dims[1] != (bits == 8 ? k : k / 2) || (bits == 4 && k % 2))
        return reject(g, TS_OP_QLINEAR, "%d-bit weights must be [out, %lld] for %lld input channels", bits,
                      (long long)(bits == 8 ? k : k / 2), (long long)k);
    if (block < 1 || k % block || (bits == 4 && block % 2))
        return reject(g, TS_OP_QLINEAR, "block %lld must divide %lld input channels%s", (long long)block, (long long)k,
                      bits == 4 ? " and be even" : "");
    int64_t sd[2] = {out, k / block};
    ts_type want = ts_type_make(TS_DTYPE_F32, 2, sd);
    want.dtype = ts->dtype;
    if (!is_weight_dtype(ts->dtype) || !ts_type_equal(ts, &want))
        return reject(g, TS_OP_QLINEAR, "scale must be f16/bf16/f32 [%lld, %lld]", (long long)sd[0], (long long)sd[1]);
    if (zero != TS_NO_VALUE) {
        want.dtype = TS_DTYPE_I8;
        if (!ts_type_equal(ts_graph_type(g, zero), &want))
            return reject(g, TS_OP_QLINEAR, "zero points must be i8 [%lld, %lld]", (long long)sd[0], (long long)sd[1]);
    }
    if (bias != TS_NO_VALUE) {
        const ts_type *tb = ts_graph_type(g, bias);
        if (tb->rank != 1 || tb->dims[0] != out || !is_weight_dtype(tb->dtype))
            return reject(g, TS_OP_QLINEAR, "bias must be [%lld]", (long long)out);
    }
    ts_type r = *tx;
    r.dims[r.rank - 1] = out;
    ts_attrs a = {.qlinear = {.bits = bits, .block = block, .has_zero = zero != TS_NO_VALUE, .has_bias = bias != TS_NO_VALUE}};
    return ts_graph_append(g, TS_OP_QLINEAR, r, in, n, &a);
}

ts_value ts_graph_lora_linear(ts_graph *g, ts_value x, ts_value w, ts_value a, ts_value b,
                              ts_value scale, ts_value index)
{
    ts_value in[6] = {x, w, a, b, scale, index};
    if (!defined(g, in, 6)) return TS_NO_VALUE;
    const ts_type *tx = ts_graph_type(g, x), *tw = ts_graph_type(g, w), *ta = ts_graph_type(g, a),
                  *tb = ts_graph_type(g, b), *ts = ts_graph_type(g, scale),
                  *ti = ts_graph_type(g, index);
    if (tx->dtype != TS_DTYPE_F32 || tx->rank != 2)
        return reject(g, TS_OP_LORA_LINEAR, "x must be f32 [rows, in]");
    if (!linear_ok(g, TS_OP_LORA_LINEAR, tx, tw, tx->dims[1])) return TS_NO_VALUE;
    int64_t n = tx->dims[0], in_dim = tx->dims[1], out = tw->dims[0];
    if (!is_weight_dtype(ta->dtype) || ta->rank != 3 || ta->dims[2] != in_dim || ta->dims[0] < 1)
        return reject(g, TS_OP_LORA_LINEAR, "a must be f32/bf16/f16 [adapters, rank, %lld]",
                      (long long)in_dim);
    int64_t k = ta->dims[0], r = ta->dims[1];
    if (tb->dtype != ta->dtype || tb->rank != 3 || tb->dims[0] != k || tb->dims[1] != out ||
        tb->dims[2] != r)
        return reject(g, TS_OP_LORA_LINEAR, "b must be [%lld, %lld, %lld] of a's dtype",
                      (long long)k, (long long)out, (long long)r);
    if (ts->dtype != TS_DTYPE_F32 || ts->rank != 1 || ts->dims[0] != k)
        return reject(g, TS_OP_LORA_LINEAR, "scale must be f32 [%lld]", (long long)k);
    if (ti->dtype != TS_DTYPE_I32 || ti->rank != 1 || ti->dims[0] != n)
        return reject(g, TS_OP_LORA_LINEAR, "index must be i32 [%lld]", (long long)n);
    ts_type t = *tx;
    t.dims[1] = out;
    return ts_graph_append(g, TS_OP_LORA_LINEAR, t, in, 6, NULL);
}
