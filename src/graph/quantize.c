/* quantize.c — the load-time quantization rewrite (see quantize.h). */
#include "graph/quantize.h"
#include "graph/decompose.h"
#include "graph/graph_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ts_graph *dst;
    int bits;
    /* the quantized pair made for a source weight parameter, by source value */
    ts_value *q, *scale;
} rewriter;

static bool float_weight(const ts_graph *src, ts_value w)
{
    const ts_node *n = ts_graph_node(src, w);
    ts_dtype d = n->type.dtype;
    return n->op == TS_OP_PARAMETER && n->attrs.parameter.role == TS_PARAM_WEIGHT && n->type.rank == 2 &&
           (d == TS_DTYPE_F32 || d == TS_DTYPE_BF16 || d == TS_DTYPE_F16);
}

/* The quantized parameters standing for source weight w (made on first use). */
static bool quantized_pair(rewriter *r, const ts_graph *src, ts_value w, ts_value *q, ts_value *scale)
{
    if (r->q[w] == TS_NO_VALUE) {
        const ts_node *n = ts_graph_node(src, w);
        int64_t out = n->type.dims[0], in = n->type.dims[1];
        if (in % TS_QUANT_BLOCK) {
            ts_graph_fail(r->dst, TS_OP_QLINEAR, TS_ERR_UNSUPPORTED,
                          "%s has %lld input channels, not a multiple of the %d-weight block %d-bit quantization needs",
                          n->name, (long long)in, TS_QUANT_BLOCK, r->bits);
            return false;
        }
        char name[300];
        int64_t qd[2] = {out, r->bits == 8 ? in : in / 2}, sd[2] = {out, in / TS_QUANT_BLOCK};
        snprintf(name, sizeof(name), "%s:q%d", n->name, r->bits);
        r->q[w] = ts_graph_parameter(r->dst, name, TS_PARAM_WEIGHT, ts_type_make(r->bits == 8 ? TS_DTYPE_I8 : TS_DTYPE_U8, 2, qd));
        snprintf(name, sizeof(name), "%s:q%d.scale", n->name, r->bits);
        r->scale[w] = ts_graph_parameter(r->dst, name, TS_PARAM_WEIGHT, ts_type_make(TS_DTYPE_F16, 2, sd));
    }
    *q = r->q[w];
    *scale = r->scale[w];
    return *q != TS_NO_VALUE && *scale != TS_NO_VALUE;
}

static ts_value qlinear(rewriter *r, const ts_graph *src, ts_value x, ts_value src_w, ts_value bias)
{
    ts_value q, s;
    if (!quantized_pair(r, src, src_w, &q, &s)) return TS_NO_VALUE;
    return ts_graph_qlinear(r->dst, x, q, s, TS_NO_VALUE, bias, TS_QUANT_BLOCK);
}

/* One source node in dst, inputs mapped. */
static ts_value rewrite(rewriter *r, const ts_graph *src, const ts_node *n, const ts_value *in)
{
    ts_graph *g = r->dst;
    if (n->op == TS_OP_LINEAR && float_weight(src, n->inputs[1]))
        return qlinear(r, src, in[0], n->inputs[1], n->n_inputs > 2 ? in[2] : TS_NO_VALUE);
    if (n->op == TS_OP_GATED_MLP && float_weight(src, n->inputs[1]) && float_weight(src, n->inputs[2]) &&
        float_weight(src, n->inputs[3])) {
        /* down(act(gate(x)) ⊙ up(x)), in the order of ts_decompose_gated_mlp */
        ts_value gate = ts_decompose_activation(g, qlinear(r, src, in[0], n->inputs[1], TS_NO_VALUE), n->attrs.mlp.activation);
        ts_value up = qlinear(r, src, in[0], n->inputs[2], TS_NO_VALUE);
        return qlinear(r, src, ts_graph_binary(g, TS_OP_MULTIPLY, gate, up), n->inputs[3], TS_NO_VALUE);
    }
    if (n->op == TS_OP_CONSTANT) return ts_graph_constant(g, n->type, n->attrs.constant.data);
    return ts_graph_append(g, n->op, n->type, in, n->n_inputs, &n->attrs);
}

ts_status ts_graph_quantize(const ts_graph *src, int bits, ts_graph **out, ts_error *err)
{
    *out = NULL;
    if (ts_graph_status(src, err) != TS_OK) return src->error.status;
    if (bits != 8 && bits != 4) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "quantize: %d bits (8 or 4)", bits);
    ts_graph *dst;
    ts_status st = ts_graph_create(&dst, err);
    if (st != TS_OK) return st;
    size_t count = (size_t)(src->n_nodes ? src->n_nodes : 1);
    ts_value *map = malloc(sizeof(ts_value) * count);
    rewriter r = {dst, bits, malloc(sizeof(ts_value) * count), malloc(sizeof(ts_value) * count)};
    if (!map || !r.q || !r.scale) {
        ts_graph_fail(dst, TS_OP_COUNT, TS_ERR_OUT_OF_MEMORY, "quantize: out of memory");
    } else {
        for (size_t i = 0; i < count; i++) map[i] = r.q[i] = r.scale[i] = TS_NO_VALUE;
        /* Parameters first, in index order, so each keeps its index whatever uses it. */
        for (int32_t i = 0; i < src->n_nodes; i++)
            if (src->nodes[i].op == TS_OP_PARAMETER) {
                const ts_node *n = &src->nodes[i];
                map[i] = ts_graph_parameter(dst, n->name, n->attrs.parameter.role, n->type);
                if (map[i] != TS_NO_VALUE && dst->nodes[map[i]].attrs.parameter.index != n->attrs.parameter.index)
                    ts_graph_fail(dst, TS_OP_PARAMETER, TS_ERR_INTERNAL, "quantize: parameters out of index order");
            }
        for (int32_t i = 0; i < src->n_nodes && dst->error.status == TS_OK; i++) {
            const ts_node *n = &src->nodes[i];
            if (n->op == TS_OP_PARAMETER) continue;
            ts_value in[64];
            if (n->n_inputs > 64) {
                ts_graph_fail(dst, n->op, TS_ERR_UNSUPPORTED, "more than 64 inputs");
                break;
            }
            for (int k = 0; k < n->n_inputs; k++) in[k] = map[n->inputs[k]];
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
            }
        }
    }
    free(map), free(r.q), free(r.scale);
    st = ts_graph_status(dst, err);
    if (st != TS_OK) {
        ts_graph_destroy(dst);
        return st;
    }
    *out = dst;
    return TS_OK;
}
