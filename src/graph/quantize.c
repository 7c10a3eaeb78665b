/* quantize.c — the quantization rewrite (see quantize.h). */
#include "graph/quantize.h"
#include "graph/decompose.h"
#include "graph/graph_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ts_graph *dst;
    ts_quant_chooser choose;
    void *user;
    /* per source value: the quantized parameters made for a weight, and the choice */
    ts_value *q, *scale, *zero, *perm;
    ts_quant_choice *choice;
    signed char *chosen; /* -1 not asked yet, 0 no, 1 yes */
} rewriter;

static bool chosen(rewriter *r, const ts_graph *src, ts_value w)
{
    const ts_node *n = ts_graph_node(src, w);
    ts_dtype d = n->type.dtype;
    if (n->op != TS_OP_PARAMETER || n->attrs.parameter.role != TS_PARAM_WEIGHT || n->type.rank != 2 ||
        (d != TS_DTYPE_F32 && d != TS_DTYPE_BF16 && d != TS_DTYPE_F16))
        return false;
    if (r->chosen[w] < 0) r->chosen[w] = r->choose(r->user, n->name, n->type.dims[0], n->type.dims[1], &r->choice[w]) ? 1 : 0;
    return r->chosen[w] == 1;
}

/* Which nodes are rewritten: linears over a chosen weight, gated MLPs whose three are. */
static bool rewritten(rewriter *r, const ts_graph *src, const ts_node *n)
{
    if (n->op == TS_OP_LINEAR) return chosen(r, src, n->inputs[1]);
    if (n->op == TS_OP_GATED_MLP) return chosen(r, src, n->inputs[1]) && chosen(r, src, n->inputs[2]) && chosen(r, src, n->inputs[3]);
    return false;
}

static ts_value new_param(rewriter *r, const char *base, const char *suffix, ts_dtype dtype, int64_t a, int64_t b)
{
    char name[300];
    int64_t dims[2] = {a, b};
    snprintf(name, sizeof(name), "%s%s", base, suffix);
    return ts_graph_parameter(r->dst, name, TS_PARAM_WEIGHT, ts_type_make(dtype, 2, dims));
}

/* The quantized parameters standing for weight w, made once (its first use). */
static bool make_params(rewriter *r, const ts_graph *src, ts_value w)
{
    if (r->q[w] != TS_NO_VALUE) return true;
    const ts_node *n = ts_graph_node(src, w);
    const ts_quant_choice *c = &r->choice[w];
    int64_t out = n->type.dims[0], in = n->type.dims[1];
    if (c->block < 1 || in % c->block || (c->bits != 8 && c->bits != 4) || (c->bits == 4 && c->block % 2)) {
        ts_graph_fail(r->dst, TS_OP_QLINEAR, TS_ERR_UNSUPPORTED, "%s has %lld input channels, which %d-bit blocks of %lld weights do not divide",
                      n->name, (long long)in, c->bits, (long long)c->block);
        return false;
    }
    char suffix[32];
    snprintf(suffix, sizeof(suffix), ":q%d", c->bits);
    r->q[w] = new_param(r, n->name, suffix, c->bits == 8 ? TS_DTYPE_I8 : TS_DTYPE_U8, out, c->bits == 8 ? in : in / 2);
    snprintf(suffix, sizeof(suffix), ":q%d.scale", c->bits);
    r->scale[w] = new_param(r, n->name, suffix, TS_DTYPE_F16, out, in / c->block);
    snprintf(suffix, sizeof(suffix), ":q%d.zero", c->bits);
    if (c->has_zero) r->zero[w] = new_param(r, n->name, suffix, TS_DTYPE_I8, out, in / c->block);
    if (c->has_perm) {
        char name[300];
        snprintf(name, sizeof(name), "%s:q%d.perm", n->name, c->bits);
        r->perm[w] = ts_graph_parameter(r->dst, name, TS_PARAM_WEIGHT, ts_type_make(TS_DTYPE_I32, 1, &in));
    }
    return true;
}

/* x[..., perm]: the last axis gathered by the i32 [in] indices (jnp.take's form of stablehlo.gather:
 * each index a start on that axis, the slice every other axis whole). */
static ts_value gather_channels(ts_graph *g, ts_value x, ts_value perm)
{
    const ts_type *t = ts_graph_type(g, x);
    if (!t) return TS_NO_VALUE;
    int rank = t->rank;
    ts_dims offset = {.n = rank - 1}, collapsed = {.n = 1, .v = {rank - 1}}, map = {.n = 1, .v = {rank - 1}}, sizes = {.n = rank};
    for (int d = 0; d < rank; d++) {
        if (d < rank - 1) offset.v[d] = d;
        sizes.v[d] = d < rank - 1 ? t->dims[d] : 1;
    }
    return ts_graph_gather(g, x, perm, &offset, &collapsed, &map, 1, &sizes);
}

static ts_value qlinear(rewriter *r, const ts_graph *src, ts_value x, ts_value w, ts_value bias)
{
    const ts_quant_choice *c = &r->choice[w];
    if (!make_params(r, src, w)) return TS_NO_VALUE;
    if (c->has_perm) x = gather_channels(r->dst, x, r->perm[w]);
    return ts_graph_qlinear(r->dst, x, r->q[w], r->scale[w], c->has_zero ? r->zero[w] : TS_NO_VALUE, bias, c->block);
}

/* One source node in dst, inputs mapped. */
static ts_value rewrite(rewriter *r, const ts_graph *src, const ts_node *n, const ts_value *in)
{
    ts_graph *g = r->dst;
    if (n->op == TS_OP_LINEAR && rewritten(r, src, n))
        return qlinear(r, src, in[0], n->inputs[1], n->n_inputs > 2 ? in[2] : TS_NO_VALUE);
    if (n->op == TS_OP_GATED_MLP && rewritten(r, src, n)) {
        /* down(act(gate(x)) ⊙ up(x)), in the order of ts_decompose_gated_mlp */
        ts_value gate = ts_decompose_activation(g, qlinear(r, src, in[0], n->inputs[1], TS_NO_VALUE), n->attrs.mlp.activation);
        ts_value up = qlinear(r, src, in[0], n->inputs[2], TS_NO_VALUE);
        return qlinear(r, src, ts_graph_binary(g, TS_OP_MULTIPLY, gate, up), n->inputs[3], TS_NO_VALUE);
    }
    if (n->op == TS_OP_CONSTANT) return ts_graph_constant(g, n->type, n->attrs.constant.data);
    return ts_graph_append(g, n->op, n->type, in, n->n_inputs, &n->attrs);
}

ts_status ts_graph_quantize(const ts_graph *src, ts_quant_chooser choose, void *user, ts_graph **out, ts_error *err)
{
    return ts_graph_quantize_keeping(src, choose, user, NULL, NULL, out, err);
}

ts_status ts_graph_quantize_keeping(const ts_graph *src, ts_quant_chooser choose, void *user, ts_weight_keeper keep, void *keep_user,
                                    ts_graph **out, ts_error *err)
{
    *out = NULL;
    if (ts_graph_status(src, err) != TS_OK) return src->error.status;
    ts_graph *dst;
    ts_status st = ts_graph_create(&dst, err);
    if (st != TS_OK) return st;
    size_t count = (size_t)(src->n_nodes ? src->n_nodes : 1);
    ts_value *map = malloc(sizeof(ts_value) * count);
    int32_t *uses = calloc(count, sizeof(int32_t));
    rewriter r = {dst, choose, user, malloc(sizeof(ts_value) * count), malloc(sizeof(ts_value) * count),
                  malloc(sizeof(ts_value) * count), malloc(sizeof(ts_value) * count), calloc(count, sizeof(ts_quant_choice)), malloc(count)};
    if (!map || !uses || !r.q || !r.scale || !r.zero || !r.perm || !r.choice || !r.chosen) {
        ts_graph_fail(dst, TS_OP_COUNT, TS_ERR_OUT_OF_MEMORY, "quantize: out of memory");
    } else {
        for (size_t i = 0; i < count; i++) map[i] = r.q[i] = r.scale[i] = r.zero[i] = r.perm[i] = TS_NO_VALUE, r.chosen[i] = -1;
        /* Uses that survive: every operand, except the weights of rewritten matmuls. */
        for (int32_t i = 0; i < src->n_nodes; i++) {
            const ts_node *n = &src->nodes[i];
            bool rw = rewritten(&r, src, n);
            for (int k = 0; k < n->n_inputs; k++)
                if (!(rw && k >= 1 && (n->op == TS_OP_GATED_MLP || k == 1))) uses[n->inputs[k]]++;
        }
        for (int32_t i = 0; i < src->n_outputs; i++) uses[src->outputs[i]]++;
        /* Parameters first: the weights kept, in index order (those only the rewrite consumed are
         * dropped), then the quantized ones in the order the rewrite uses them, then the inputs
         * and state, so every weight still comes before the first input (a bundle's contract). */
        for (int pass = 0; pass < 2; pass++) {
            for (int32_t i = 0; pass == 1 && i < src->n_nodes; i++) {
                const ts_node *n = &src->nodes[i];
                if (!rewritten(&r, src, n)) continue;
                for (int k = 1; k < (n->op == TS_OP_GATED_MLP ? 4 : 2); k++) make_params(&r, src, n->inputs[k]);
            }
            for (int32_t i = 0; i < src->n_nodes; i++)
                if (src->nodes[i].op == TS_OP_PARAMETER) {
                    const ts_node *n = &src->nodes[i];
                    if ((n->attrs.parameter.role == TS_PARAM_WEIGHT) != (pass == 0)) continue;
                    if (n->attrs.parameter.role == TS_PARAM_WEIGHT && !uses[i] && r.chosen[i] == 1 && !(keep && keep(keep_user, n->name)))
                        continue;
                    map[i] = ts_graph_parameter(dst, n->name, n->attrs.parameter.role, n->type);
                }
        }
        for (int32_t i = 0; i < src->n_nodes && dst->error.status == TS_OK; i++) {
            const ts_node *n = &src->nodes[i];
            if (n->op == TS_OP_PARAMETER) continue;
            ts_value in[64];
            if (n->n_inputs > 64) {
                ts_graph_fail(dst, n->op, TS_ERR_UNSUPPORTED, "more than 64 inputs");
                break;
            }
            bool rw = rewritten(&r, src, n);
            for (int k = 0; k < n->n_inputs; k++) in[k] = rw && k >= 1 && (n->op == TS_OP_GATED_MLP || k == 1) ? TS_NO_VALUE : map[n->inputs[k]];
            if (n->name) ts_graph_set_stage(dst, "%s", n->name);
            else dst->stage = NULL;
            map[i] = rewrite(&r, src, n, in);
        }
        dst->stage = NULL;
        if (dst->error.status == TS_OK) {
            ts_value *outs = malloc(sizeof(ts_value) * (size_t)(src->n_outputs + 1));
            if (!outs) ts_graph_fail(dst, TS_OP_COUNT, TS_ERR_OUT_OF_MEMORY, "quantize: out of memory");
            else {
                for (int32_t i = 0; i < src->n_outputs; i++) outs[i] = map[src->outputs[i]];
                ts_graph_set_outputs(dst, outs, src->n_outputs);
                free(outs);
                /* Donated arguments stay donated to the same results. */
                for (int32_t i = 0; i < src->n_nodes; i++)
                    if (src->nodes[i].op == TS_OP_PARAMETER && ts_graph_parameter_alias(src, i) >= 0)
                        ts_graph_alias_output(dst, map[i], ts_graph_parameter_alias(src, i));
            }
        }
    }
    free(map), free(uses), free(r.q), free(r.scale), free(r.zero), free(r.perm), free(r.choice), free(r.chosen);
    st = ts_graph_status(dst, err);
    if (st != TS_OK) {
        ts_graph_destroy(dst);
        return st;
    }
    *out = dst;
    return TS_OK;
}

/* A matmul weight still in floats: a rank-2 float weight parameter (after the rewrite, every
 * chosen one feeds a quantized linear instead). */
static bool float_matrix(const ts_graph *g, ts_value w)
{
    const ts_node *n = &g->nodes[w];
    return n->op == TS_OP_PARAMETER && n->attrs.parameter.role == TS_PARAM_WEIGHT && n->type.rank == 2 &&
           (n->type.dtype == TS_DTYPE_F32 || n->type.dtype == TS_DTYPE_BF16 || n->type.dtype == TS_DTYPE_F16);
}

void ts_graph_float_matrices(const ts_graph *g, int64_t block, ts_float_matrices *out)
{
    memset(out, 0, sizeof(*out));
    bool *seen = calloc((size_t)g->n_nodes + 1, sizeof(bool)), named_narrow = false;
    if (!seen) return;
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const ts_node *n = &g->nodes[i];
        int first = n->op == TS_OP_LINEAR || n->op == TS_OP_GATED_MLP ? 1 : n->n_inputs;
        int last = n->op == TS_OP_GATED_MLP ? 3 : 1;
        for (int k = first; k <= last && k < n->n_inputs; k++) {
            ts_value w = n->inputs[k];
            if (seen[w] || !float_matrix(g, w)) continue;
            seen[w] = true;
            const ts_type *t = &g->nodes[w].type;
            bool narrow = t->dims[1] % block != 0;
            if (!out->count || (narrow && !named_narrow)) {
                snprintf(out->example, sizeof(out->example), "%s", g->nodes[w].name);
                named_narrow = narrow;
            }
            out->count++;
            out->bytes += t->dims[0] * t->dims[1] * (int64_t)ts_dtype_size(t->dtype);
        }
    }
    free(seen);
}
