/* decompose.c — each composite written once in primitive ops.
 *
 * These expansions *are* the meaning of the composites: the reference evaluator runs them, the
 * exporter prints them, and the fused CPU kernels are tested against them. Each follows the
 * Hugging Face code it stands for, in the same order of operations (noted per function), because
 * float results depend on that order.
 */
#include "graph/decompose.h"
#include "graph/graph_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ts_dims dims_of(int n, const int64_t *v)
{
    ts_dims d = {.n = n};
    for (int i = 0; i < n; i++) d.v[i] = v[i];
    return d;
}

static ts_dims dims1(int64_t a) { return dims_of(1, &a); }
static const ts_dims no_dims = {0};

/* Broadcasts a scalar f32 constant to `t`. */
static ts_value splat(ts_graph *g, float value, const ts_type *t)
{
    ts_value c = ts_graph_constant_f32(g, value);
    return ts_graph_broadcast_in_dim(g, c, t->rank, t->dims, NULL);
}

/* x reduced over its last axis, broadcast back to x's shape. */
static ts_value reduce_last_keep(ts_graph *g, ts_op op, ts_value x)
{
    const ts_type t = *ts_graph_type(g, x);
    ts_dims last = dims1(t.rank - 1);
    ts_value r = ts_graph_reduce(g, op, x, &last);
    int64_t bdims[TS_MAX_DIMS];
    for (int i = 0; i < t.rank - 1; i++) bdims[i] = i;
    return ts_graph_broadcast_in_dim(g, r, t.rank, t.dims, bdims);
}

/* A [n] vector broadcast along the last axis of `t`. */
static ts_value along_last(ts_graph *g, ts_value v, const ts_type *t)
{
    int64_t last = t->rank - 1;
    return ts_graph_broadcast_in_dim(g, v, t->rank, t->dims, &last);
}

static ts_value as_f32(ts_graph *g, ts_value v)
{
    return ts_graph_type(g, v)->dtype == TS_DTYPE_F32 ? v : ts_graph_convert(g, v, TS_DTYPE_F32);
}

/* Qwen2RMSNorm / LlamaRMSNorm: x * rsqrt(mean(x²) + eps), then weight * that.
 * Gemma3RMSNorm: the same with (1 + weight) — weight_offset = 1. */
ts_value ts_decompose_rms_norm(ts_graph *g, ts_value x, ts_value weight, double eps, double weight_offset)
{
    const ts_type t = *ts_graph_type(g, x);
    int64_t h = t.dims[t.rank - 1];
    ts_value sq = ts_graph_binary(g, TS_OP_MULTIPLY, x, x);
    ts_value mean = ts_graph_binary(g, TS_OP_DIVIDE, reduce_last_keep(g, TS_OP_REDUCE_SUM, sq), splat(g, (float)h, &t));
    ts_value r = ts_graph_unary(g, TS_OP_RSQRT, ts_graph_binary(g, TS_OP_ADD, mean, splat(g, (float)eps, &t)));
    ts_value normed = ts_graph_binary(g, TS_OP_MULTIPLY, x, r);
    ts_value w = as_f32(g, weight);
    if (weight_offset != 0) {
        const ts_type *wt = ts_graph_type(g, w);
        w = ts_graph_binary(g, TS_OP_ADD, w, splat(g, (float)weight_offset, wt));
    }
    return ts_graph_binary(g, TS_OP_MULTIPLY, along_last(g, w, &t), normed);
}

/* torch.nn.LayerNorm: (x - mean) / sqrt(var + eps) * weight + bias, biased variance. */
ts_value ts_decompose_layer_norm(ts_graph *g, ts_value x, ts_value weight, ts_value bias, double eps)
{
    const ts_type t = *ts_graph_type(g, x);
    ts_value n = splat(g, (float)t.dims[t.rank - 1], &t);
    ts_value mean = ts_graph_binary(g, TS_OP_DIVIDE, reduce_last_keep(g, TS_OP_REDUCE_SUM, x), n);
    ts_value xc = ts_graph_binary(g, TS_OP_SUBTRACT, x, mean);
    ts_value var = ts_graph_binary(g, TS_OP_DIVIDE, reduce_last_keep(g, TS_OP_REDUCE_SUM, ts_graph_binary(g, TS_OP_MULTIPLY, xc, xc)), n);
    ts_value r = ts_graph_unary(g, TS_OP_RSQRT, ts_graph_binary(g, TS_OP_ADD, var, splat(g, (float)eps, &t)));
    ts_value y = ts_graph_binary(g, TS_OP_MULTIPLY, ts_graph_binary(g, TS_OP_MULTIPLY, xc, r), along_last(g, as_f32(g, weight), &t));
    return ts_graph_binary(g, TS_OP_ADD, y, along_last(g, as_f32(g, bias), &t));
}

/* softmax(x + bias) over the last axis, max-subtracted. */
ts_value ts_decompose_softmax(ts_graph *g, ts_value x, ts_value bias)
{
    if (bias != TS_NO_VALUE) x = ts_graph_binary(g, TS_OP_ADD, x, bias);
    ts_value m = reduce_last_keep(g, TS_OP_REDUCE_MAX, x);
    ts_value e = ts_graph_unary(g, TS_OP_EXPONENTIAL, ts_graph_binary(g, TS_OP_SUBTRACT, x, m));
    return ts_graph_binary(g, TS_OP_DIVIDE, e, reduce_last_keep(g, TS_OP_REDUCE_SUM, e));
}

/* cos/sin [L, R/2] broadcast over heads to [L, H, R/2]. */
static ts_value over_heads(ts_graph *g, ts_value table, int64_t l, int64_t h, int64_t half)
{
    int64_t dims[3] = {l, h, half}, bd[2] = {0, 2};
    return ts_graph_broadcast_in_dim(g, table, 3, dims, bd);
}

/* apply_rotary_pos_emb: q*cos + rotate_half(q)*sin with cos/sin duplicated over both halves, so
 * out1 = x1*cos - x2*sin and out2 = x2*cos + x1*sin; channels past rotary_dim pass through.
 * Interleaved (GPT-J style) pairs channels (2i, 2i+1) instead of (i, i+half). */
ts_value ts_decompose_rope(ts_graph *g, ts_value x, ts_value cos, ts_value sin, int rotary_dim, bool interleaved)
{
    const ts_type t = *ts_graph_type(g, x);
    int64_t l = t.dims[0], h = t.dims[1], d = t.dims[2], half = rotary_dim / 2;
    ts_value c = over_heads(g, cos, l, h, half), s = over_heads(g, sin, l, h, half);
    ts_value x1, x2;
    if (!interleaved) {
        int64_t s0[3] = {0, 0, 0}, l0[3] = {l, h, half}, s1[3] = {0, 0, half}, l1[3] = {l, h, rotary_dim};
        x1 = ts_graph_slice(g, x, s0, l0, NULL);
        x2 = ts_graph_slice(g, x, s1, l1, NULL);
    } else {
        int64_t st[3] = {1, 1, 2};
        int64_t s0[3] = {0, 0, 0}, s1[3] = {0, 0, 1}, lim[3] = {l, h, rotary_dim};
        x1 = ts_graph_slice(g, x, s0, lim, st);
        x2 = ts_graph_slice(g, x, s1, lim, st);
    }
    ts_value o1 = ts_graph_binary(g, TS_OP_SUBTRACT, ts_graph_binary(g, TS_OP_MULTIPLY, x1, c), ts_graph_binary(g, TS_OP_MULTIPLY, x2, s));
    ts_value o2 = ts_graph_binary(g, TS_OP_ADD, ts_graph_binary(g, TS_OP_MULTIPLY, x2, c), ts_graph_binary(g, TS_OP_MULTIPLY, x1, s));
    ts_value rotated;
    if (!interleaved) {
        ts_value parts[2] = {o1, o2};
        rotated = ts_graph_concatenate(g, parts, 2, 2);
    } else {
        int64_t d4[4] = {l, h, half, 1};
        ts_value parts[2] = {ts_graph_reshape(g, o1, 4, d4), ts_graph_reshape(g, o2, 4, d4)};
        int64_t d3[3] = {l, h, rotary_dim};
        rotated = ts_graph_reshape(g, ts_graph_concatenate(g, parts, 2, 3), 3, d3);
    }
    if (rotary_dim == d) return rotated;
    int64_t s2[3] = {0, 0, rotary_dim}, l2[3] = {l, h, d};
    ts_value parts[2] = {rotated, ts_graph_slice(g, x, s2, l2, NULL)};
    return ts_graph_concatenate(g, parts, 2, 2);
}

/* eager_attention_forward: scores = q·kᵀ·scale (kv heads repeated to the query heads), optional
 * soft-cap tanh(s/cap)·cap, causal mask and additive bias, softmax in f32, then ·v. Query head
 * j·G+i uses kv head j (repeat_kv). Causal: key j visible to query i when j ≤ q_start + i. */
ts_value ts_decompose_attention(ts_graph *g, ts_value q, ts_value k, ts_value v, ts_value bias,
                                ts_value q_start, double scale, double softcap)
{
    k = as_f32(g, k);
    v = as_f32(g, v);
    const ts_type tq = *ts_graph_type(g, q), tk = *ts_graph_type(g, k), tv = *ts_graph_type(g, v);
    int64_t lq = tq.dims[0], hq = tq.dims[1], dk = tq.dims[2], lk = tk.dims[0], hkv = tk.dims[1], dv = tv.dims[2];
    int64_t group = hq / hkv;
    int64_t q4[4] = {lq, hkv, group, dk};
    ts_value qg = ts_graph_reshape(g, q, 4, q4);
    /* [Hkv, Lq, G, Lk] */
    ts_dims lb = dims1(1), rb = dims1(1), lc = dims1(3), rc = dims1(2);
    ts_value scores = ts_graph_dot_general(g, qg, k, &lb, &rb, &lc, &rc);
    const ts_type st = *ts_graph_type(g, scores);
    scores = ts_graph_binary(g, TS_OP_MULTIPLY, scores, splat(g, (float)scale, &st));
    if (softcap > 0) {
        ts_value cap = splat(g, (float)softcap, &st);
        scores = ts_graph_binary(g, TS_OP_MULTIPLY, ts_graph_unary(g, TS_OP_TANH, ts_graph_binary(g, TS_OP_DIVIDE, scores, cap)), cap);
    }
    if (q_start != TS_NO_VALUE) {
        int64_t md[2] = {lq, lk};
        ts_type mt = ts_type_make(TS_DTYPE_I32, 2, md);
        ts_value row = ts_graph_iota(g, mt, 0), col = ts_graph_iota(g, mt, 1);
        ts_value off = ts_graph_broadcast_in_dim(g, q_start, 2, md, NULL);
        ts_value visible = ts_graph_compare(g, TS_COMPARE_LE, col, ts_graph_binary(g, TS_OP_ADD, row, off));
        int64_t bd[2] = {1, 3};
        ts_value vis4 = ts_graph_broadcast_in_dim(g, visible, 4, st.dims, bd);
        scores = ts_graph_select(g, vis4, scores, splat(g, -INFINITY, &st));
    }
    ts_value bias4 = TS_NO_VALUE;
    if (bias != TS_NO_VALUE) {
        int64_t bd[2] = {1, 3};
        bias4 = ts_graph_broadcast_in_dim(g, bias, 4, st.dims, bd);
    }
    ts_value p = ts_decompose_softmax(g, scores, bias4);
    /* [Hkv, Lq, G, Lk] · [Lk, Hkv, Dv] → [Hkv, Lq, G, Dv] */
    ts_dims pb = dims1(0), vb = dims1(1), pc = dims1(3), vc = dims1(0);
    ts_value o = ts_graph_dot_general(g, p, v, &pb, &vb, &pc, &vc);
    int64_t perm[4] = {1, 0, 2, 3};
    int64_t out[3] = {lq, hq, dv};
    return ts_graph_reshape(g, ts_graph_transpose(g, o, perm), 3, out);
}

/* nn.Linear: x · wᵀ + b, weights converted to f32 first. */
ts_value ts_decompose_linear(ts_graph *g, ts_value x, ts_value w, ts_value bias)
{
    const ts_type tx = *ts_graph_type(g, x);
    ts_dims lc = dims1(tx.rank - 1), rc = dims1(1);
    ts_value y = ts_graph_dot_general(g, x, as_f32(g, w), &no_dims, &no_dims, &lc, &rc);
    if (bias == TS_NO_VALUE) return y;
    const ts_type ty = *ts_graph_type(g, y);
    return ts_graph_binary(g, TS_OP_ADD, y, along_last(g, as_f32(g, bias), &ty));
}

static ts_value activation(ts_graph *g, ts_value x, ts_activation act)
{
    const ts_type t = *ts_graph_type(g, x);
    switch (act) {
    case TS_ACT_SILU: return ts_graph_binary(g, TS_OP_MULTIPLY, x, ts_graph_unary(g, TS_OP_LOGISTIC, x));
    case TS_ACT_QUICK_GELU:
        return ts_graph_binary(g, TS_OP_MULTIPLY, x, ts_graph_unary(g, TS_OP_LOGISTIC, ts_graph_binary(g, TS_OP_MULTIPLY, x, splat(g, 1.702f, &t))));
    case TS_ACT_GELU: {
        ts_value e = ts_graph_unary(g, TS_OP_ERF, ts_graph_binary(g, TS_OP_MULTIPLY, x, splat(g, (float)M_SQRT1_2, &t)));
        ts_value one_plus = ts_graph_binary(g, TS_OP_ADD, e, splat(g, 1.0f, &t));
        return ts_graph_binary(g, TS_OP_MULTIPLY, ts_graph_binary(g, TS_OP_MULTIPLY, x, splat(g, 0.5f, &t)), one_plus);
    }
    case TS_ACT_GELU_TANH: {
        ts_value x3 = ts_graph_binary(g, TS_OP_MULTIPLY, ts_graph_binary(g, TS_OP_MULTIPLY, x, x), x);
        ts_value inner = ts_graph_binary(g, TS_OP_ADD, x, ts_graph_binary(g, TS_OP_MULTIPLY, x3, splat(g, 0.044715f, &t)));
        ts_value th = ts_graph_unary(g, TS_OP_TANH, ts_graph_binary(g, TS_OP_MULTIPLY, inner, splat(g, (float)sqrt(2.0 / M_PI), &t)));
        ts_value one_plus = ts_graph_binary(g, TS_OP_ADD, th, splat(g, 1.0f, &t));
        return ts_graph_binary(g, TS_OP_MULTIPLY, ts_graph_binary(g, TS_OP_MULTIPLY, x, splat(g, 0.5f, &t)), one_plus);
    }
    default: return ts_graph_fail(g, TS_OP_GATED_MLP, TS_ERR_INTERNAL, "bad activation %d", (int)act);
    }
}

ts_value ts_decompose_activation(ts_graph *g, ts_value x, ts_activation act) { return activation(g, x, act); }

/* Qwen2MLP / LlamaMLP: down_proj(act(gate_proj(x)) * up_proj(x)). */
ts_value ts_decompose_gated_mlp(ts_graph *g, ts_value x, ts_value w_gate, ts_value w_up, ts_value w_down, ts_activation act)
{
    ts_value gate = activation(g, ts_decompose_linear(g, x, w_gate, TS_NO_VALUE), act);
    ts_value up = ts_decompose_linear(g, x, w_up, TS_NO_VALUE);
    return ts_decompose_linear(g, ts_graph_binary(g, TS_OP_MULTIPLY, gate, up), w_down, TS_NO_VALUE);
}

/* Qwen3VLMoeTextSparseMoeBlock, densely: every expert runs on every token and the routing is a
 * [N, E] weight matrix that is zero off the chosen experts.
 *   router:  probs = softmax(x·routerᵀ) in f32; top_k by repeated argmax (the first maximum, so
 *            ties go to the lowest expert and NaN counts as largest), each pick masked to -inf
 *            for the next; the picked probabilities summed in pick order (largest first) and,
 *            with `normalize`, divided by that sum. torch.topk on CPU also puts NaN first but
 *            orders equal values as std::partial_sort / nth_element leave them (unspecified);
 *            ours is the fixed choice, and exact ties between softmax values of real logits are
 *            not expected.
 *   experts: gate_up = x·W[e] split in halves (gate first), act(gate) ⊙ up, ·down[e], times the
 *            token's weight, summed over experts in index order (index_add_ per expert); experts
 *            not chosen are selected away, not multiplied by 0, so they cannot leak inf/NaN. */
ts_value ts_decompose_moe_mlp(ts_graph *g, ts_value x, ts_value router, ts_value gate_up,
                              ts_value down, int top_k, bool normalize, ts_activation act)
{
    const ts_type tx = *ts_graph_type(g, x), tg = *ts_graph_type(g, gate_up);
    int64_t hidden = tx.dims[tx.rank - 1], n = ts_type_elements(&tx) / (hidden ? hidden : 1);
    int64_t experts = tg.dims[0], inter = tg.dims[2] / 2;
    int64_t nh[2] = {n, hidden}, ne[2] = {n, experts};
    ts_value x2 = tx.rank == 2 ? x : ts_graph_reshape(g, x, 2, nh);
    ts_value probs =
        ts_decompose_softmax(g, ts_decompose_linear(g, x2, router, TS_NO_VALUE), TS_NO_VALUE);
    const ts_type tp = *ts_graph_type(g, probs);
    ts_value expert_id = ts_graph_iota(g, ts_type_make(TS_DTYPE_I32, 2, ne), 1);
    ts_value zeros = splat(g, 0.0f, &tp), masked = splat(g, -INFINITY, &tp);
    ts_value remaining = probs, weights = zeros, total = TS_NO_VALUE;
    ts_dims last = dims1(1);
    int64_t row_dim = 0;
    for (int i = 0; i < top_k; i++) {
        ts_value pick = ts_graph_argmax(g, remaining, 1);
        ts_value hit = ts_graph_compare(g, TS_COMPARE_EQ, expert_id,
                                        ts_graph_broadcast_in_dim(g, pick, 2, ne, &row_dim));
        ts_value value =
            ts_graph_reduce(g, TS_OP_REDUCE_SUM, ts_graph_select(g, hit, probs, zeros), &last);
        total = i == 0 ? value : ts_graph_binary(g, TS_OP_ADD, total, value);
        weights = ts_graph_select(g, hit, probs, weights);
        remaining = ts_graph_select(g, hit, masked, remaining);
    }
    if (normalize)
        weights = ts_graph_binary(g, TS_OP_DIVIDE, weights,
                                  ts_graph_broadcast_in_dim(g, total, 2, ne, &row_dim));
    ts_value chosen = ts_graph_compare(g, TS_COMPARE_EQ, remaining, masked);

    /* [N, H] · [E, H, 2I] → [N, E, 2I] */
    ts_dims xc = dims1(1), wc = dims1(1);
    ts_value gu = ts_graph_dot_general(g, x2, as_f32(g, gate_up), &no_dims, &no_dims, &xc, &wc);
    int64_t s0[3] = {0, 0, 0}, l0[3] = {n, experts, inter}, s1[3] = {0, 0, inter},
            l1[3] = {n, experts, 2 * inter};
    ts_value gate = activation(g, ts_graph_slice(g, gu, s0, l0, NULL), act);
    ts_value mid = ts_graph_binary(g, TS_OP_MULTIPLY, gate, ts_graph_slice(g, gu, s1, l1, NULL));
    /* [N, E, I] · [E, I, H] batched over E → [E, N, H] */
    ts_dims mb = dims1(1), db = dims1(0), mc = dims1(2), dc = dims1(1);
    ts_value out = ts_graph_dot_general(g, mid, as_f32(g, down), &mb, &db, &mc, &dc);
    const ts_type to = *ts_graph_type(g, out);
    int64_t swap[2] = {1, 0}, en[2] = {0, 1};
    ts_value w3 =
        ts_graph_broadcast_in_dim(g, ts_graph_transpose(g, weights, swap), 3, to.dims, en);
    ts_value keep =
        ts_graph_broadcast_in_dim(g, ts_graph_transpose(g, chosen, swap), 3, to.dims, en);
    ts_value scaled = ts_graph_binary(g, TS_OP_MULTIPLY, out, w3);
    ts_dims over_experts = dims1(0);
    ts_value y = ts_graph_reduce(
        g, TS_OP_REDUCE_SUM, ts_graph_select(g, keep, scaled, splat(g, 0.0f, &to)), &over_experts);
    return tx.rank == 2 ? y : ts_graph_reshape(g, y, tx.rank, tx.dims);
}

/* nn.Embedding: rows of the table, as a gather of [1, hidden] slices. */
ts_value ts_decompose_embedding(ts_graph *g, ts_value table, ts_value ids)
{
    const ts_type tt = *ts_graph_type(g, table), ti = *ts_graph_type(g, ids);
    ts_dims offset = dims1(ti.rank), collapsed = dims1(0), start_map = dims1(0);
    int64_t sizes[2] = {1, tt.dims[1]};
    ts_dims slice = dims_of(2, sizes);
    return ts_graph_gather(g, as_f32(g, table), ids, &offset, &collapsed, &start_map, ti.rank, &slice);
}

/* The adapter tensors' rows of each input row: gather(t, index) along axis 0 → [N, t.dims[1:]…]. */
static ts_value per_row(ts_graph *g, ts_value t, ts_value index)
{
    const ts_type tt = *ts_graph_type(g, t);
    int64_t sizes[TS_MAX_DIMS], offs[TS_MAX_DIMS];
    sizes[0] = 1;
    for (int d = 1; d < tt.rank; d++) sizes[d] = tt.dims[d], offs[d - 1] = d;
    ts_dims offset = dims_of(tt.rank - 1, offs), collapsed = dims1(0), start_map = dims1(0);
    ts_dims slice = dims_of(tt.rank, sizes);
    return ts_graph_gather(g, t, index, &offset, &collapsed, &start_map, 1, &slice);
}

/* peft's lora.Linear per row: base + (B·(A·x)) · scale, with row i's adapter index[i]:
 * gather the row's A [r, in], B [out, r] and scale, two batched dots, a multiply, an add. */
ts_value ts_decompose_lora_linear(ts_graph *g, ts_value x, ts_value w, ts_value a, ts_value b,
                                  ts_value scale, ts_value index)
{
    ts_value base = ts_decompose_linear(g, x, w, TS_NO_VALUE);
    ts_dims batch = dims1(0), ac = dims1(2), xc = dims1(1), bc = dims1(2), tc = dims1(1);
    ts_value t = ts_graph_dot_general(g, as_f32(g, per_row(g, a, index)), x, &batch, &batch, &ac, &xc);
    ts_value d = ts_graph_dot_general(g, as_f32(g, per_row(g, b, index)), t, &batch, &batch, &bc, &tc);
    const ts_type td = *ts_graph_type(g, d);
    int64_t along_rows[1] = {0};
    ts_value s = ts_graph_broadcast_in_dim(g, per_row(g, scale, index), td.rank, td.dims, along_rows);
    return ts_graph_binary(g, TS_OP_ADD, base, ts_graph_binary(g, TS_OP_MULTIPLY, d, s));
}

/* erf, which StableHLO lacks (jax writes CHLO's erf; a portable artifact may hold StableHLO only).
 * |x| < 0.5: its Maclaurin series to x¹¹ (the next term is below 3e-8 relative there);
 * otherwise Abramowitz & Stegun 7.1.26, 1 − (a₁t + … + a₅t⁵)·e^(−x²) with t = 1/(1 + p|x|),
 * signed. Measured in f32 over [−6, 6]: within 3.6e-7 absolute and 6.6e-7 relative of erf, so
 * GELU through it stays far inside every tower tolerance (1e-4). The fused kernel uses erff. */
ts_value ts_decompose_erf(ts_graph *g, ts_value x)
{
    const ts_dtype dtype = ts_graph_type(g, x)->dtype;
    x = as_f32(g, x);
    const ts_type t = *ts_graph_type(g, x);
    const double two_over_sqrt_pi = 1.1283791670955126;
    static const double series[] = {1.0, -1.0 / 3, 1.0 / 10, -1.0 / 42, 1.0 / 216, -1.0 / 1320};
    static const double as_a[] = {0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429};
    const double as_p = 0.3275911;

    ts_value x2 = ts_graph_binary(g, TS_OP_MULTIPLY, x, x);
    ts_value s = splat(g, (float)(two_over_sqrt_pi * series[5]), &t);
    for (int k = 4; k >= 0; k--)
        s = ts_graph_binary(g, TS_OP_ADD, ts_graph_binary(g, TS_OP_MULTIPLY, s, x2), splat(g, (float)(two_over_sqrt_pi * series[k]), &t));
    ts_value small = ts_graph_binary(g, TS_OP_MULTIPLY, x, s);

    ts_value ax = ts_graph_unary(g, TS_OP_ABS, x);
    ts_value one = splat(g, 1.0f, &t);
    ts_value tt = ts_graph_binary(g, TS_OP_DIVIDE, one, ts_graph_binary(g, TS_OP_ADD, one, ts_graph_binary(g, TS_OP_MULTIPLY, splat(g, (float)as_p, &t), ax)));
    ts_value poly = splat(g, (float)as_a[4], &t);
    for (int k = 3; k >= 0; k--) poly = ts_graph_binary(g, TS_OP_ADD, ts_graph_binary(g, TS_OP_MULTIPLY, poly, tt), splat(g, (float)as_a[k], &t));
    poly = ts_graph_binary(g, TS_OP_MULTIPLY, poly, tt);
    ts_value y = ts_graph_binary(g, TS_OP_SUBTRACT, one, ts_graph_binary(g, TS_OP_MULTIPLY, poly, ts_graph_unary(g, TS_OP_EXPONENTIAL, ts_graph_unary(g, TS_OP_NEGATE, x2))));
    ts_value zero = splat(g, 0.0f, &t);
    ts_value large = ts_graph_select(g, ts_graph_compare(g, TS_COMPARE_LT, x, zero), ts_graph_unary(g, TS_OP_NEGATE, y), y);

    ts_value r = ts_graph_select(g, ts_graph_compare(g, TS_COMPARE_LT, ax, splat(g, 0.5f, &t)), small, large);
    return dtype == TS_DTYPE_F32 ? r : ts_graph_convert(g, r, dtype);
}

/* A per-block [out, in/block] tensor (f32) repeated over its block: [out, in]. */
static ts_value per_block(ts_graph *g, ts_value v, int64_t block)
{
    const ts_type t = *ts_graph_type(g, v);
    int64_t wide[3] = {t.dims[0], t.dims[1], block}, flat[2] = {t.dims[0], t.dims[1] * block}, keep[2] = {0, 1};
    return ts_graph_reshape(g, ts_graph_broadcast_in_dim(g, v, 3, wide, keep), 2, flat);
}

/* The integer weights as f32 [out, in]: 8-bit converted; 4-bit unpacked from bytes in i32 as
 * lo = b − 16·(b / 16), hi = b / 16 (b ≥ 0, so the division is a floor), interleaved lo, hi. */
static ts_value unpacked_weights(ts_graph *g, ts_value q)
{
    const ts_type t = *ts_graph_type(g, q);
    if (t.dtype == TS_DTYPE_I8) return ts_graph_convert(g, q, TS_DTYPE_F32);
    ts_value b = ts_graph_convert(g, q, TS_DTYPE_I32);
    ts_value sixteen = ts_graph_broadcast_in_dim(g, ts_graph_constant_i32(g, 16), 2, t.dims, NULL);
    ts_value hi = ts_graph_binary(g, TS_OP_DIVIDE, b, sixteen);
    ts_value lo = ts_graph_binary(g, TS_OP_SUBTRACT, b, ts_graph_binary(g, TS_OP_MULTIPLY, hi, sixteen));
    int64_t col[3] = {t.dims[0], t.dims[1], 1}, flat[2] = {t.dims[0], t.dims[1] * 2};
    ts_value pair[2] = {ts_graph_reshape(g, lo, 3, col), ts_graph_reshape(g, hi, 3, col)};
    ts_value both = ts_graph_concatenate(g, pair, 2, 2);
    return ts_graph_convert(g, ts_graph_reshape(g, both, 2, flat), TS_DTYPE_F32);
}

/* Dequantization as GPTQ/AWQ's reference kernels write it, (q − zero) · scale in f32, then
 * nn.Linear on the result: the CPU's fused kernel and every bundle compute this. */
ts_value ts_decompose_qlinear(ts_graph *g, ts_value x, ts_value q, ts_value scale, ts_value zero,
                              ts_value bias, int64_t block)
{
    ts_value w = unpacked_weights(g, q);
    const ts_type tw = *ts_graph_type(g, w);
    ts_value z;
    if (zero != TS_NO_VALUE) z = per_block(g, ts_graph_convert(g, zero, TS_DTYPE_F32), block);
    else z = splat(g, ts_graph_type(g, q)->dtype == TS_DTYPE_I8 ? 0.0f : 8.0f, &tw);
    ts_value centred = ts_graph_binary(g, TS_OP_SUBTRACT, w, z);
    ts_value deq = ts_graph_binary(g, TS_OP_MULTIPLY, centred, per_block(g, as_f32(g, scale), block));
    return ts_decompose_linear(g, x, deq, bias);
}

ts_value ts_decompose_qlinear_node(ts_graph *g, const ts_node *n, const ts_value *in)
{
    int at = 3;
    ts_value zero = n->attrs.qlinear.has_zero ? in[at++] : TS_NO_VALUE;
    ts_value bias = n->attrs.qlinear.has_bias ? in[at] : TS_NO_VALUE;
    return ts_decompose_qlinear(g, in[0], in[1], in[2], zero, bias, n->attrs.qlinear.block);
}

/* Rebuilds one node of `src` in `dst` with inputs already mapped. */
static ts_value rebuild(ts_graph *dst, const ts_graph *src, const ts_node *n, const ts_value *in)
{
    const ts_attrs *a = &n->attrs;
    switch (n->op) {
    case TS_OP_PARAMETER: return ts_graph_parameter(dst, n->name, a->parameter.role, n->type);
    case TS_OP_RMS_NORM: return ts_decompose_rms_norm(dst, in[0], in[1], a->norm.eps, a->norm.weight_offset);
    case TS_OP_LAYER_NORM: return ts_decompose_layer_norm(dst, in[0], in[1], in[2], a->norm.eps);
    case TS_OP_SOFTMAX: return ts_decompose_softmax(dst, in[0], n->n_inputs > 1 ? in[1] : TS_NO_VALUE);
    case TS_OP_ROPE: return ts_decompose_rope(dst, in[0], in[1], in[2], a->rope.rotary_dim, a->rope.interleaved);
    case TS_OP_ATTENTION: {
        ts_value bias = a->attention.has_bias ? in[3] : TS_NO_VALUE;
        ts_value q_start = a->attention.causal ? in[a->attention.has_bias ? 4 : 3] : TS_NO_VALUE;
        return ts_decompose_attention(dst, in[0], in[1], in[2], bias, q_start, a->attention.scale, a->attention.softcap);
    }
    case TS_OP_GATED_MLP: return ts_decompose_gated_mlp(dst, in[0], in[1], in[2], in[3], a->mlp.activation);
    case TS_OP_MOE_MLP:
        return ts_decompose_moe_mlp(dst, in[0], in[1], in[2], in[3], a->moe.top_k, a->moe.normalize,
                                    a->moe.activation);
    case TS_OP_LINEAR: return ts_decompose_linear(dst, in[0], in[1], n->n_inputs > 2 ? in[2] : TS_NO_VALUE);
    case TS_OP_EMBEDDING: return ts_decompose_embedding(dst, in[0], in[1]);
    case TS_OP_ERF: return ts_decompose_erf(dst, in[0]);
    case TS_OP_QLINEAR: return ts_decompose_qlinear_node(dst, n, in);
    case TS_OP_LORA_LINEAR:
        return ts_decompose_lora_linear(dst, in[0], in[1], in[2], in[3], in[4], in[5]);
    default:
        /* Primitives are copied as they are: same type and attributes. */
        (void)src;
        return ts_graph_append(dst, n->op, n->type, in, n->n_inputs, a);
    }
}

ts_status ts_graph_decompose(const ts_graph *src, ts_graph **out, ts_value *map, ts_error *err)
{
    *out = NULL;
    if (ts_graph_status(src, err) != TS_OK) return src->error.status;
    ts_graph *dst;
    ts_status st = ts_graph_create(&dst, err);
    if (st != TS_OK) return st;
    ts_value *local = map ? map : calloc((size_t)(src->n_nodes ? src->n_nodes : 1), sizeof(ts_value));
    if (!local) {
        ts_graph_destroy(dst);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "decompose: out of memory");
    }
    for (int32_t i = 0; i < src->n_nodes && dst->error.status == TS_OK; i++) {
        const ts_node *n = &src->nodes[i];
        ts_value in[64];
        if (n->n_inputs > 64) {
            ts_graph_fail(dst, n->op, TS_ERR_UNSUPPORTED, "more than 64 inputs");
            break;
        }
        for (int k = 0; k < n->n_inputs; k++) in[k] = local[n->inputs[k]];
        if (n->name && n->op != TS_OP_PARAMETER) ts_graph_set_stage(dst, "%s", n->name);
        else dst->stage = NULL;
        if (n->op == TS_OP_CONSTANT) local[i] = ts_graph_constant(dst, n->type, n->attrs.constant.data);
        else local[i] = rebuild(dst, src, n, in);
        if (local[i] != TS_NO_VALUE && !ts_type_equal(&dst->nodes[local[i]].type, &n->type))
            ts_graph_fail(dst, n->op, TS_ERR_INTERNAL, "decomposition changed the result type");
    }
    dst->stage = NULL;
    if (dst->error.status == TS_OK) {
        ts_value *outs = malloc(sizeof(ts_value) * (size_t)(src->n_outputs + 1));
        if (!outs) ts_graph_fail(dst, TS_OP_COUNT, TS_ERR_OUT_OF_MEMORY, "out of memory");
        else {
            for (int32_t i = 0; i < src->n_outputs; i++) outs[i] = local[src->outputs[i]];
            ts_graph_set_outputs(dst, outs, src->n_outputs);
            free(outs);
            /* Donated arguments stay donated to the same results. */
            for (int32_t i = 0; i < src->n_nodes; i++)
                if (src->nodes[i].op == TS_OP_PARAMETER && ts_graph_parameter_alias(src, i) >= 0)
                    ts_graph_alias_output(dst, local[i], ts_graph_parameter_alias(src, i));
        }
    }
    if (!map) free(local);
    st = ts_graph_status(dst, err);
    if (st != TS_OK) {
        ts_graph_destroy(dst);
        return st;
    }
    *out = dst;
    return TS_OK;
}
