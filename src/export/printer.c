/* printer.c — ts_graph → StableHLO text (the shared spellings are in spelling.c).
 *
 * Values are numbered in print order (%0, %1, …; %argN for arguments and region block
 * arguments), independent of where parameter nodes sit in the node list, so a graph read back
 * prints to the same bytes. Helper values that the graph does not hold — reduction inits and
 * argmax's index iota — are printed right before the op that consumes them.
 */
#include "export/printer.h"
#include "export/stablehlo_internal.h"
#include "graph/decompose.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ functions */

static void put_type(ts_buf *b, const ts_type *t) { ts_shlo_print_type(b, t); }

static void put_scalar_type(ts_buf *b, ts_dtype dtype)
{
    ts_type t = ts_type_make(dtype, 0, NULL);
    put_type(b, &t);
}

typedef struct decomposition {
    ts_op op;
    char *signature_and_body; /* everything after the symbol name */
    int number;
} decomposition;

typedef struct printer {
    ts_buf *out;
    ts_status status;
    ts_error *err;
    /* decompositions emitted so far (main only) */
    decomposition *decomps;
    int n_decomps, cap_decomps;
    int per_op[TS_OP_COUNT];
} printer;

typedef struct function {
    const ts_graph *g;
    ts_buf *b;
    int32_t *ids; /* parameters: argument index; others: SSA number */
    int next_value, next_arg;
} function;

static void put_value(function *f, ts_value v)
{
    const ts_node *n = &f->g->nodes[v];
    if (n->op == TS_OP_PARAMETER) ts_buf_printf(f->b, "%%arg%d", f->ids[v]);
    else if (n->op == TS_OP_ARGMAX) ts_buf_printf(f->b, "%%%d#1", f->ids[v]);
    else ts_buf_printf(f->b, "%%%d", f->ids[v]);
}

static void put_operands(function *f, const ts_node *n, int first, int count)
{
    for (int i = 0; i < count; i++) {
        if (i) ts_buf_puts(f->b, ", ");
        put_value(f, n->inputs[first + i]);
    }
}

/* "(T0, T1) -> R" */
static void put_functional_type(function *f, const ts_node *n)
{
    ts_buf_puts(f->b, "(");
    for (int i = 0; i < n->n_inputs; i++) {
        if (i) ts_buf_puts(f->b, ", ");
        put_type(f->b, ts_graph_type(f->g, n->inputs[i]));
    }
    ts_buf_puts(f->b, ") -> ");
    put_type(f->b, &n->type);
}

static void put_dims(ts_buf *b, const int64_t *v, int n)
{
    ts_buf_puts(b, "[");
    for (int i = 0; i < n; i++) ts_buf_printf(b, i ? ", %lld" : "%lld", (long long)v[i]);
    ts_buf_puts(b, "]");
}

static void put_array(ts_buf *b, const ts_dims *d)
{
    ts_buf_puts(b, "array<i64");
    for (int i = 0; i < d->n; i++) ts_buf_printf(b, "%s%lld", i ? ", " : ": ", (long long)d->v[i]);
    ts_buf_puts(b, ">");
}

/* MLIR strings: quote and backslash escaped, other control bytes as \XX. */
static void put_string(ts_buf *b, const char *s)
{
    ts_buf_puts(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') ts_buf_printf(b, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f) ts_buf_printf(b, "\\%02X", *p);
        else ts_buf_append(b, (const char *)p, 1);
    }
    ts_buf_puts(b, "\"");
}

static int new_value(function *f, ts_value v)
{
    int id = f->next_value++;
    if (v != TS_NO_VALUE) f->ids[v] = id;
    return id;
}

/* A scalar constant the graph does not hold (reduction init); returns its SSA number. */
static int helper_constant(function *f, ts_op reduction, ts_dtype dtype)
{
    unsigned char scalar[8];
    ts_shlo_identity(reduction, dtype, scalar);
    int id = new_value(f, TS_NO_VALUE);
    ts_type t = ts_type_make(dtype, 0, NULL);
    ts_buf_printf(f->b, "    %%%d = stablehlo.constant ", id);
    ts_shlo_print_dense(f->b, &t, scalar);
    ts_buf_puts(f->b, " : ");
    put_type(f->b, &t);
    ts_buf_puts(f->b, "\n");
    return id;
}

static void put_gather_dims(ts_buf *b, const char *key, const ts_dims *d, bool *first)
{
    if (d->n == 0) return; /* MLIR omits empty lists */
    ts_buf_printf(b, "%s%s = ", *first ? "" : ", ", key);
    put_dims(b, d->v, d->n);
    *first = false;
}

static void put_index_vector_dim(ts_buf *b, int dim, bool first)
{
    if (dim) ts_buf_printf(b, "%sindex_vector_dim = %d", first ? "" : ", ", dim);
}

static void print_reduce(function *f, ts_value v, const ts_node *n)
{
    const ts_type *x = ts_graph_type(f->g, n->inputs[0]);
    int init = helper_constant(f, n->op, x->dtype);
    int id = new_value(f, v);
    ts_buf_printf(f->b, "    %%%d = \"stablehlo.reduce\"(", id);
    put_value(f, n->inputs[0]);
    ts_buf_printf(f->b, ", %%%d) <{dimensions = ", init);
    put_array(f->b, &n->attrs.reduce.dimensions);
    ts_buf_puts(f->b, "}> ");
    ts_shlo_print_region(f->b, n->op == TS_OP_REDUCE_SUM ? TS_SHLO_REGION_ADD : TS_SHLO_REGION_MAX, x->dtype, "    ",
                         &f->next_arg, &f->next_value);
    ts_buf_puts(f->b, " : (");
    put_type(f->b, x);
    ts_buf_puts(f->b, ", ");
    put_scalar_type(f->b, x->dtype);
    ts_buf_puts(f->b, ") -> ");
    put_type(f->b, &n->type);
}

static void print_argmax(function *f, ts_value v, const ts_node *n)
{
    const ts_type *x = ts_graph_type(f->g, n->inputs[0]);
    ts_type index_type = *x;
    index_type.dtype = TS_DTYPE_I32;
    int iota = new_value(f, TS_NO_VALUE);
    ts_buf_printf(f->b, "    %%%d = stablehlo.iota dim = %d : ", iota, n->attrs.argmax.dimension);
    put_type(f->b, &index_type);
    ts_buf_puts(f->b, "\n");
    int init_value = helper_constant(f, TS_OP_ARGMAX, x->dtype);
    int init_index = helper_constant(f, TS_OP_REDUCE_SUM, TS_DTYPE_I32);
    int id = new_value(f, v);
    ts_buf_printf(f->b, "    %%%d:2 = \"stablehlo.reduce\"(", id);
    put_value(f, n->inputs[0]);
    ts_buf_printf(f->b, ", %%%d, %%%d, %%%d) <{dimensions = array<i64: %d>}> ", iota, init_value, init_index,
                     n->attrs.argmax.dimension);
    ts_shlo_print_region(f->b, TS_SHLO_REGION_ARGMAX, x->dtype, "    ", &f->next_arg, &f->next_value);
    ts_buf_puts(f->b, " : (");
    put_type(f->b, x);
    ts_buf_puts(f->b, ", ");
    put_type(f->b, &index_type);
    ts_buf_puts(f->b, ", ");
    put_scalar_type(f->b, x->dtype);
    ts_buf_puts(f->b, ", tensor<i32>) -> (");
    ts_type value_type = n->type;
    value_type.dtype = x->dtype;
    put_type(f->b, &value_type);
    ts_buf_puts(f->b, ", ");
    put_type(f->b, &n->type);
    ts_buf_puts(f->b, ")");
}

static bool decompose_symbol(printer *p, const ts_node *n, const ts_graph *g, char *symbol, size_t cap);

static void print_composite(printer *p, function *f, ts_value v, const ts_node *n)
{
    char symbol[64];
    if (!decompose_symbol(p, n, f->g, symbol, sizeof(symbol))) return;
    const ts_attrs *a = &n->attrs;
    ts_buf_printf(f->b, "    %%%d = stablehlo.composite \"%s\" ", new_value(f, v), ts_op_get_info(n->op)->stablehlo);
    put_operands(f, n, 0, n->n_inputs);
    ts_buf_puts(f->b, " {");
    /* Keys in sorted order, as MLIR prints a dictionary. */
    switch (n->op) {
    case TS_OP_RMS_NORM:
        ts_buf_puts(f->b, "composite_attributes = {eps = ");
        ts_shlo_print_f64(f->b, a->norm.eps);
        ts_buf_puts(f->b, " : f64, weight_offset = ");
        ts_shlo_print_f64(f->b, a->norm.weight_offset);
        ts_buf_puts(f->b, " : f64}, ");
        break;
    case TS_OP_LAYER_NORM:
        ts_buf_puts(f->b, "composite_attributes = {eps = ");
        ts_shlo_print_f64(f->b, a->norm.eps);
        ts_buf_puts(f->b, " : f64}, ");
        break;
    case TS_OP_ROPE:
        ts_buf_printf(f->b, "composite_attributes = {interleaved = %s, rotary_dim = %d : i64}, ",
                         a->rope.interleaved ? "true" : "false", a->rope.rotary_dim);
        break;
    case TS_OP_ATTENTION:
        ts_buf_printf(f->b, "composite_attributes = {causal = %s, has_bias = %s, scale = ",
                         a->attention.causal ? "true" : "false", a->attention.has_bias ? "true" : "false");
        ts_shlo_print_f64(f->b, a->attention.scale);
        ts_buf_puts(f->b, " : f64, softcap = ");
        ts_shlo_print_f64(f->b, a->attention.softcap);
        ts_buf_puts(f->b, " : f64}, ");
        break;
    case TS_OP_GATED_MLP:
        ts_buf_printf(f->b, "composite_attributes = {activation = \"%s\"}, ",
                         ts_shlo_activation_name(a->mlp.activation));
        break;
    case TS_OP_MOE_MLP:
        ts_buf_printf(
            f->b,
            "composite_attributes = {activation = \"%s\", normalize = %s, top_k = %d : i64}, ",
            ts_shlo_activation_name(a->moe.activation), a->moe.normalize ? "true" : "false",
            a->moe.top_k);
        break;
    case TS_OP_QLINEAR:
        ts_buf_printf(f->b,
                         "composite_attributes = {bits = %d : i64, block = %lld : i64, has_bias = %s, has_zero = %s}, ",
                         a->qlinear.bits, (long long)a->qlinear.block, a->qlinear.has_bias ? "true" : "false",
                         a->qlinear.has_zero ? "true" : "false");
        break;
    default: break;
    }
    ts_buf_printf(f->b, "decomposition = @%s} : ", symbol);
    put_functional_type(f, n);
}

static void print_node(printer *p, function *f, ts_value v)
{
    const ts_node *n = &f->g->nodes[v];
    const ts_attrs *a = &n->attrs;
    const char *name = ts_op_get_info(n->op)->stablehlo;
    ts_buf *b = f->b;
    if (ts_op_get_info(n->op)->composite) {
        print_composite(p, f, v, n);
    } else if (n->op == TS_OP_REDUCE_SUM || n->op == TS_OP_REDUCE_MAX) {
        print_reduce(f, v, n);
    } else if (n->op == TS_OP_ARGMAX) {
        print_argmax(f, v, n);
    } else {
        if (n->op == TS_OP_GATHER || n->op == TS_OP_SCATTER_ADD) ts_buf_printf(b, "    %%%d = \"%s\"(", new_value(f, v), name);
        else ts_buf_printf(b, "    %%%d = %s ", new_value(f, v), name);
        switch (n->op) {
        case TS_OP_CONSTANT:
            ts_shlo_print_dense(b, &n->type, a->constant.data);
            ts_buf_puts(b, " : ");
            put_type(b, &n->type);
            break;
        case TS_OP_IOTA:
            ts_buf_printf(b, "dim = %d : ", a->iota.dimension);
            put_type(b, &n->type);
            break;
        case TS_OP_CONVERT:
        case TS_OP_RESHAPE:
            put_operands(f, n, 0, 1);
            ts_buf_puts(b, " : ");
            put_functional_type(f, n);
            break;
        case TS_OP_COMPARE: {
            const ts_type *t = ts_graph_type(f->g, n->inputs[0]);
            ts_buf_printf(b, " %s, ", ts_compare_name(a->compare.direction));
            put_operands(f, n, 0, 2);
            ts_buf_printf(b, ",  %s : ", ts_shlo_compare_type(t->dtype));
            put_functional_type(f, n);
            break;
        }
        case TS_OP_SELECT: {
            const ts_type *pt = ts_graph_type(f->g, n->inputs[0]);
            put_operands(f, n, 0, 3);
            ts_buf_puts(b, " : ");
            put_type(b, pt);
            ts_buf_puts(b, ", ");
            put_type(b, &n->type);
            break;
        }
        case TS_OP_BROADCAST_IN_DIM:
            put_operands(f, n, 0, 1);
            ts_buf_puts(b, ", dims = ");
            put_dims(b, a->broadcast.dims.v, a->broadcast.dims.n);
            ts_buf_puts(b, " : ");
            put_functional_type(f, n);
            break;
        case TS_OP_TRANSPOSE:
            put_operands(f, n, 0, 1);
            ts_buf_puts(b, ", dims = ");
            put_dims(b, a->transpose.permutation.v, a->transpose.permutation.n);
            ts_buf_puts(b, " : ");
            put_functional_type(f, n);
            break;
        case TS_OP_SLICE:
            put_operands(f, n, 0, 1);
            ts_buf_puts(b, " [");
            for (int i = 0; i < a->slice.start.n; i++) {
                ts_buf_printf(b, "%s%lld:%lld", i ? ", " : "", (long long)a->slice.start.v[i], (long long)a->slice.limit.v[i]);
                if (a->slice.strides.v[i] != 1) ts_buf_printf(b, ":%lld", (long long)a->slice.strides.v[i]);
            }
            ts_buf_puts(b, "] : ");
            put_functional_type(f, n);
            break;
        case TS_OP_DYNAMIC_SLICE:
            put_operands(f, n, 0, n->n_inputs);
            ts_buf_puts(b, ", sizes = ");
            put_dims(b, a->dynamic_slice.sizes.v, a->dynamic_slice.sizes.n);
            ts_buf_puts(b, " : ");
            put_functional_type(f, n);
            break;
        case TS_OP_DYNAMIC_UPDATE_SLICE:
            put_operands(f, n, 0, n->n_inputs);
            ts_buf_puts(b, " : ");
            put_functional_type(f, n);
            break;
        case TS_OP_CONCATENATE:
            put_operands(f, n, 0, n->n_inputs);
            ts_buf_printf(b, ", dim = %d : ", a->concatenate.dimension);
            put_functional_type(f, n);
            break;
        case TS_OP_PAD:
            put_operands(f, n, 0, 2);
            ts_buf_puts(b, ", low = ");
            put_dims(b, a->pad.low.v, a->pad.low.n);
            ts_buf_puts(b, ", high = ");
            put_dims(b, a->pad.high.v, a->pad.high.n);
            ts_buf_puts(b, ", interior = ");
            put_dims(b, a->pad.interior.v, a->pad.interior.n);
            ts_buf_puts(b, " : ");
            put_functional_type(f, n);
            break;
        case TS_OP_GATHER: {
            bool first = true;
            put_operands(f, n, 0, 2);
            ts_buf_puts(b, ") <{dimension_numbers = #stablehlo.gather<");
            put_gather_dims(b, "offset_dims", &a->gather.offset_dims, &first);
            put_gather_dims(b, "collapsed_slice_dims", &a->gather.collapsed_slice_dims, &first);
            put_gather_dims(b, "start_index_map", &a->gather.start_index_map, &first);
            put_index_vector_dim(b, a->gather.index_vector_dim, first);
            ts_buf_puts(b, ">, slice_sizes = ");
            put_array(b, &a->gather.slice_sizes);
            ts_buf_puts(b, "}> : ");
            put_functional_type(f, n);
            break;
        }
        case TS_OP_SCATTER_ADD: {
            bool first = true;
            put_operands(f, n, 0, 3);
            ts_buf_puts(b, ") <{scatter_dimension_numbers = #stablehlo.scatter<");
            put_gather_dims(b, "update_window_dims", &a->scatter.update_window_dims, &first);
            put_gather_dims(b, "inserted_window_dims", &a->scatter.inserted_window_dims, &first);
            put_gather_dims(b, "scatter_dims_to_operand_dims", &a->scatter.scatter_dims_to_operand_dims, &first);
            put_index_vector_dim(b, a->scatter.index_vector_dim, first);
            ts_buf_puts(b, ">}> ");
            ts_shlo_print_region(b, TS_SHLO_REGION_ADD, n->type.dtype, "    ", &f->next_arg, &f->next_value);
            ts_buf_puts(b, " : ");
            put_functional_type(f, n);
            break;
        }
        case TS_OP_DOT_GENERAL:
            put_operands(f, n, 0, 2);
            if (a->dot.lhs_batch.n) {
                ts_buf_puts(b, ", batching_dims = ");
                put_dims(b, a->dot.lhs_batch.v, a->dot.lhs_batch.n);
                ts_buf_puts(b, " x ");
                put_dims(b, a->dot.rhs_batch.v, a->dot.rhs_batch.n);
            }
            if (a->dot.lhs_contract.n) {
                ts_buf_puts(b, ", contracting_dims = ");
                put_dims(b, a->dot.lhs_contract.v, a->dot.lhs_contract.n);
                ts_buf_puts(b, " x ");
                put_dims(b, a->dot.rhs_contract.v, a->dot.rhs_contract.n);
            }
            ts_buf_puts(b, " : ");
            put_functional_type(f, n);
            break;
        default:
            /* elementwise: "%a, %b : T" */
            put_operands(f, n, 0, n->n_inputs);
            ts_buf_puts(b, " : ");
            put_type(b, &n->type);
            break;
        }
    }
    if (n->name) {
        ts_buf_puts(b, " loc(");
        put_string(b, n->name);
        ts_buf_puts(b, ")");
    }
    ts_buf_puts(b, "\n");
}

static const char *role_name(ts_param_role role)
{
    switch (role) {
    case TS_PARAM_WEIGHT: return "weight";
    case TS_PARAM_INPUT: return "input";
    case TS_PARAM_STATE: return "state";
    default: return "?";
    }
}

/* Writes "(%arg0: T {…}, …) -> (R, …) {\n …body… }\n" for g. */
static void print_function(printer *p, const ts_graph *g, ts_buf *b, bool with_names)
{
    function f = {.g = g, .b = b};
    f.ids = calloc((size_t)(g->n_nodes ? g->n_nodes : 1), sizeof(int32_t));
    const ts_node **params = calloc((size_t)(g->n_parameters ? g->n_parameters : 1), sizeof(*params));
    if (!f.ids || !params) {
        b->failed = true;
        free(f.ids);
        free(params);
        return;
    }
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const ts_node *n = &g->nodes[i];
        if (n->op != TS_OP_PARAMETER) continue;
        int idx = n->attrs.parameter.index;
        if (idx >= 0 && idx < g->n_parameters) params[idx] = n;
        f.ids[i] = idx;
    }
    ts_buf_puts(b, "(");
    for (int32_t i = 0; i < g->n_parameters; i++) {
        if (!params[i]) continue;
        ts_buf_printf(b, "%s%%arg%d: ", i ? ", " : "", (int)i);
        put_type(b, &params[i]->type);
        if (with_names) {
            ts_buf_puts(b, " {tessera.name = ");
            put_string(b, params[i]->name ? params[i]->name : "");
            ts_buf_printf(b, ", tessera.role = \"%s\"", role_name(params[i]->attrs.parameter.role));
            /* A donated buffer: the attribute XLA (jax's donate_argnums) and IREE read as
             * "result N may be written over this argument". */
            if (params[i]->attrs.parameter.output_alias)
                ts_buf_printf(b, ", tf.aliasing_output = %d : i32", params[i]->attrs.parameter.output_alias - 1);
            ts_buf_puts(b, "}");
        }
    }
    ts_buf_puts(b, ")");
    if (g->n_outputs == 1) {
        ts_buf_puts(b, " -> ");
        put_type(b, ts_graph_type(g, g->outputs[0]));
    } else if (g->n_outputs > 1) {
        ts_buf_puts(b, " -> (");
        for (int32_t i = 0; i < g->n_outputs; i++) {
            if (i) ts_buf_puts(b, ", ");
            put_type(b, ts_graph_type(g, g->outputs[i]));
        }
        ts_buf_puts(b, ")");
    }
    ts_buf_puts(b, " {\n");
    f.next_arg = g->n_parameters;
    for (int32_t i = 0; i < g->n_nodes && p->status == TS_OK; i++)
        if (g->nodes[i].op != TS_OP_PARAMETER) print_node(p, &f, i);
    ts_buf_puts(b, "    return");
    for (int32_t i = 0; i < g->n_outputs; i++) {
        ts_buf_puts(b, i ? ", " : " ");
        put_value(&f, g->outputs[i]);
    }
    for (int32_t i = 0; i < g->n_outputs; i++) {
        ts_buf_puts(b, i ? ", " : " : ");
        put_type(b, ts_graph_type(g, g->outputs[i]));
    }
    ts_buf_puts(b, "\n  }\n");
    free(f.ids);
    free(params);
}

/* The decomposition of one composite node as a graph of its own: arguments are the composite's
 * operands, the single result its value. */
static ts_status decomposition_graph(const ts_node *n, const ts_graph *src, ts_graph **out, ts_error *err)
{
    ts_graph *g;
    ts_status st = ts_graph_create(&g, err);
    if (st != TS_OK) return st;
    ts_value in[8];
    for (int i = 0; i < n->n_inputs && i < 8; i++) {
        char name[16];
        snprintf(name, sizeof(name), "arg%d", i);
        in[i] = ts_graph_parameter(g, name, TS_PARAM_INPUT, *ts_graph_type(src, n->inputs[i]));
    }
    const ts_attrs *a = &n->attrs;
    ts_value r = TS_NO_VALUE;
    switch (n->op) {
    case TS_OP_RMS_NORM: r = ts_decompose_rms_norm(g, in[0], in[1], a->norm.eps, a->norm.weight_offset); break;
    case TS_OP_LAYER_NORM: r = ts_decompose_layer_norm(g, in[0], in[1], in[2], a->norm.eps); break;
    case TS_OP_SOFTMAX: r = ts_decompose_softmax(g, in[0], n->n_inputs > 1 ? in[1] : TS_NO_VALUE); break;
    case TS_OP_ROPE: r = ts_decompose_rope(g, in[0], in[1], in[2], a->rope.rotary_dim, a->rope.interleaved); break;
    case TS_OP_ATTENTION: {
        ts_value bias = a->attention.has_bias ? in[3] : TS_NO_VALUE;
        ts_value q_start = a->attention.causal ? in[a->attention.has_bias ? 4 : 3] : TS_NO_VALUE;
        r = ts_decompose_attention(g, in[0], in[1], in[2], bias, q_start, a->attention.scale, a->attention.softcap);
        break;
    }
    case TS_OP_GATED_MLP: r = ts_decompose_gated_mlp(g, in[0], in[1], in[2], in[3], a->mlp.activation); break;
    case TS_OP_MOE_MLP:
        r = ts_decompose_moe_mlp(g, in[0], in[1], in[2], in[3], a->moe.top_k, a->moe.normalize,
                                 a->moe.activation);
        break;
    case TS_OP_LINEAR: r = ts_decompose_linear(g, in[0], in[1], n->n_inputs > 2 ? in[2] : TS_NO_VALUE); break;
    case TS_OP_EMBEDDING: r = ts_decompose_embedding(g, in[0], in[1]); break;
    case TS_OP_ERF: r = ts_decompose_erf(g, in[0]); break;
    case TS_OP_QLINEAR: r = ts_decompose_qlinear_node(g, n, in); break;
    case TS_OP_LORA_LINEAR:
        r = ts_decompose_lora_linear(g, in[0], in[1], in[2], in[3], in[4], in[5]);
        break;
    default: break;
    }
    if (r != TS_NO_VALUE) ts_graph_set_outputs(g, &r, 1);
    st = ts_graph_status(g, err);
    if (st == TS_OK && r == TS_NO_VALUE) st = ts_error_set(err, TS_ERR_INTERNAL, "stablehlo: no decomposition for %s", ts_op_get_info(n->op)->name);
    if (st != TS_OK) {
        ts_graph_destroy(g);
        return st;
    }
    *out = g;
    return TS_OK;
}

/* The symbol of n's decomposition function, printing it on first use; false on failure. */
static bool decompose_symbol(printer *p, const ts_node *n, const ts_graph *src, char *symbol, size_t cap)
{
    ts_graph *g;
    if (p->status != TS_OK) return false;
    p->status = decomposition_graph(n, src, &g, p->err);
    if (p->status != TS_OK) return false;
    ts_buf body;
    ts_buf_init(&body);
    print_function(p, g, &body, false);
    ts_graph_destroy(g);
    if (body.failed) {
        ts_buf_fini(&body);
        p->status = ts_error_set(p->err, TS_ERR_OUT_OF_MEMORY, "stablehlo: out of memory");
        return false;
    }
    const char *op_name = ts_op_get_info(n->op)->stablehlo;
    for (int i = 0; i < p->n_decomps; i++)
        if (p->decomps[i].op == n->op && strcmp(p->decomps[i].signature_and_body, body.data) == 0) {
            ts_buf_fini(&body);
            snprintf(symbol, cap, "%s.%d", op_name, p->decomps[i].number);
            return true;
        }
    if (p->n_decomps == p->cap_decomps) {
        int cap = p->cap_decomps ? p->cap_decomps * 2 : 16;
        decomposition *d = realloc(p->decomps, sizeof(*d) * (size_t)cap);
        if (!d) {
            ts_buf_fini(&body);
            p->status = ts_error_set(p->err, TS_ERR_OUT_OF_MEMORY, "stablehlo: out of memory");
            return false;
        }
        p->decomps = d;
        p->cap_decomps = cap;
    }
    decomposition *d = &p->decomps[p->n_decomps++];
    d->op = n->op;
    d->number = p->per_op[n->op]++;
    d->signature_and_body = ts_buf_take(&body, NULL);
    snprintf(symbol, cap, "%s.%d", op_name, d->number);
    return true;
}

ts_status ts_shlo_print_decomposition(const ts_graph *src, ts_value composite, ts_buf *out, ts_error *err)
{
    ts_graph *g;
    ts_status st = decomposition_graph(ts_graph_node(src, composite), src, &g, err);
    if (st != TS_OK) return st;
    st = ts_shlo_print_function(g, out, err);
    ts_graph_destroy(g);
    return st;
}

ts_status ts_shlo_print_function(const ts_graph *g, ts_buf *out, ts_error *err)
{
    printer p = {.status = TS_OK, .err = err};
    print_function(&p, g, out, false);
    /* Nested composites (erf inside an activation) name their own decompositions; the caller
     * compares bodies, so those functions are not printed here. */
    for (int i = 0; i < p.n_decomps; i++) free(p.decomps[i].signature_and_body);
    free(p.decomps);
    if (p.status == TS_OK && out->failed) p.status = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "stablehlo: out of memory");
    return p.status;
}

static bool bare_identifier(const char *s)
{
    if (!*s || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) return false;
    for (; *s; s++)
        if (!(*s == '_' || *s == '$' || *s == '.' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

ts_status ts_stablehlo_print(const ts_graph *g, const char *module_name, char **text, size_t *len, ts_error *err)
{
    *text = NULL;
    if (len) *len = 0;
    ts_status st = ts_graph_status(g, err);
    if (st != TS_OK) return st;
    for (int32_t i = 0; i < g->n_nodes; i++)
        if (!ts_type_element_name(g->nodes[i].type.dtype))
            return ts_error_set(err, TS_ERR_UNSUPPORTED, "stablehlo: value %d has a dtype StableHLO text cannot carry", (int)i);
    printer p = {.status = TS_OK, .err = err};
    ts_buf out;
    ts_buf_init(&out);
    p.out = &out;
    ts_buf_puts(&out, "module @");
    if (bare_identifier(module_name ? module_name : "")) ts_buf_puts(&out, module_name);
    else put_string(&out, module_name ? module_name : "");
    ts_buf_puts(&out, " {\n  func.func public @main");
    print_function(&p, g, &out, true);
    for (int i = 0; i < p.n_decomps; i++) {
        const decomposition *d = &p.decomps[i];
        ts_buf_printf(&out, "  func.func private @%s.%d", ts_op_get_info(d->op)->stablehlo, d->number);
        ts_buf_puts(&out, d->signature_and_body);
    }
    ts_buf_puts(&out, "}\n");
    for (int i = 0; i < p.n_decomps; i++) free(p.decomps[i].signature_and_body);
    free(p.decomps);
    if (p.status != TS_OK) {
        ts_buf_fini(&out);
        return p.status;
    }
    if (out.failed) {
        ts_buf_fini(&out);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "stablehlo: out of memory");
    }
    *text = ts_buf_take(&out, len);
    return TS_OK;
}
