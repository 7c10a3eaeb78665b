/* graph.c — graph storage, types and the builders with their type checks. */
#include "graph/graph_internal.h"

#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ types */

int64_t ts_type_elements(const ts_type *type)
{
    int64_t n = 1;
    for (int i = 0; i < type->rank; i++) n *= type->dims[i];
    return n;
}

size_t ts_type_bytes(const ts_type *type)
{
    return (size_t)ts_type_elements(type) * ts_dtype_size(type->dtype);
}

bool ts_type_equal(const ts_type *a, const ts_type *b)
{
    if (a->dtype != b->dtype || a->rank != b->rank) return false;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i]) return false;
    return true;
}

const char *ts_type_element_name(ts_dtype dtype)
{
    switch (dtype) {
    case TS_DTYPE_F32: return "f32";
    case TS_DTYPE_F16: return "f16";
    case TS_DTYPE_BF16: return "bf16";
    case TS_DTYPE_I64: return "i64";
    case TS_DTYPE_I32: return "i32";
    case TS_DTYPE_I16: return "i16";
    case TS_DTYPE_I8: return "i8";
    case TS_DTYPE_U8: return "ui8";
    case TS_DTYPE_BOOL: return "i1";
    default: return NULL;
    }
}

const char *ts_type_format(const ts_type *type, char *buf, size_t cap)
{
    size_t at = (size_t)snprintf(buf, cap, "tensor<");
    for (int i = 0; i < type->rank && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%lldx", (long long)type->dims[i]);
    const char *el = ts_type_element_name(type->dtype);
    if (at < cap) snprintf(buf + at, cap - at, "%s>", el ? el : "?");
    return buf;
}

ts_type ts_type_make(ts_dtype dtype, int rank, const int64_t *dims)
{
    ts_type t = {.dtype = dtype, .rank = rank};
    for (int i = 0; i < rank && i < TS_MAX_DIMS; i++) t.dims[i] = dims[i];
    return t;
}

static bool is_float(ts_dtype d) { return d == TS_DTYPE_F32 || d == TS_DTYPE_F16 || d == TS_DTYPE_BF16; }
static bool is_integer(ts_dtype d)
{
    return d == TS_DTYPE_I64 || d == TS_DTYPE_I32 || d == TS_DTYPE_I16 || d == TS_DTYPE_I8 ||
           d == TS_DTYPE_U8;
}

/* ------------------------------------------------------------------ graph */

ts_status ts_graph_create(ts_graph **out, ts_error *err)
{
    *out = NULL;
    ts_graph *g = calloc(1, sizeof(*g));
    if (!g) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "graph: out of memory");
    ts_arena_init(&g->arena, 1 << 20);
    *out = g;
    return TS_OK;
}

void ts_graph_destroy(ts_graph *g)
{
    if (!g) return;
    free(g->nodes);
    ts_arena_fini(&g->arena);
    free(g);
}

ts_status ts_graph_status(const ts_graph *g, ts_error *err)
{
    if (g->error.status != TS_OK && err) *err = g->error;
    return g->error.status;
}

const ts_node *ts_graph_node(const ts_graph *g, ts_value v)
{
    return v >= 0 && v < g->n_nodes ? &g->nodes[v] : NULL;
}

const ts_type *ts_graph_type(const ts_graph *g, ts_value v)
{
    return v >= 0 && v < g->n_nodes ? &g->nodes[v].type : NULL;
}

void ts_graph_set_stage(ts_graph *g, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    g->stage = ts_arena_strndup(&g->arena, buf, strlen(buf));
}

void ts_graph_set_outputs(ts_graph *g, const ts_value *values, int n)
{
    ts_value *copy = ts_arena_alloc(&g->arena, sizeof(ts_value) * (size_t)(n ? n : 1));
    if (!copy) return;
    memcpy(copy, values, sizeof(ts_value) * (size_t)n);
    g->outputs = copy;
    g->n_outputs = n;
}

void ts_graph_alias_output(ts_graph *g, ts_value parameter, int output)
{
    if (g->error.status != TS_OK) return;
    if (parameter < 0 || parameter >= g->n_nodes || g->nodes[parameter].op != TS_OP_PARAMETER ||
        g->nodes[parameter].attrs.parameter.role != TS_PARAM_STATE) {
        ts_graph_fail(g, TS_OP_PARAMETER, TS_ERR_INVALID_ARGUMENT, "only a state parameter can be donated to a result");
        return;
    }
    ts_node *p = &g->nodes[parameter];
    if (output < 0 || output >= g->n_outputs) {
        ts_graph_fail(g, TS_OP_PARAMETER, TS_ERR_INVALID_ARGUMENT, "%s: no result %d to alias (the graph has %d)", p->name, output,
                      g->n_outputs);
        return;
    }
    if (!ts_type_equal(&p->type, ts_graph_type(g, g->outputs[output]))) {
        ts_graph_fail(g, TS_OP_PARAMETER, TS_ERR_INVALID_ARGUMENT, "%s: result %d has another type", p->name, output);
        return;
    }
    for (int32_t i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].op == TS_OP_PARAMETER && g->nodes[i].attrs.parameter.output_alias == output + 1) {
            ts_graph_fail(g, TS_OP_PARAMETER, TS_ERR_INVALID_ARGUMENT, "%s: result %d already takes %s's buffer", p->name, output,
                          g->nodes[i].name);
            return;
        }
    if (p->attrs.parameter.output_alias) {
        ts_graph_fail(g, TS_OP_PARAMETER, TS_ERR_INVALID_ARGUMENT, "%s is already donated to result %d", p->name,
                      p->attrs.parameter.output_alias - 1);
        return;
    }
    p->attrs.parameter.output_alias = output + 1;
}

int ts_graph_parameter_alias(const ts_graph *g, ts_value parameter)
{
    const ts_node *p = &g->nodes[parameter];
    return p->op == TS_OP_PARAMETER ? p->attrs.parameter.output_alias - 1 : -1;
}

ts_value ts_graph_fail(ts_graph *g, ts_op op, ts_status status, const char *fmt, ...)
{
    if (g->error.status != TS_OK) return TS_NO_VALUE;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ts_error_set(&g->error, status, "graph: %s%s%s: %s", g->stage ? g->stage : "",
                 g->stage ? ": " : "", ts_op_get_info(op) ? ts_op_get_info(op)->name : "composite", msg);
    return TS_NO_VALUE;
}

/* Checks the inputs are defined values; returns false (error kept) otherwise. */
bool ts_graph_inputs_defined(ts_graph *g, ts_op op, const ts_value *inputs, int n)
{
    if (g->error.status != TS_OK) return false;
    for (int i = 0; i < n; i++)
        if (inputs[i] < 0 || inputs[i] >= g->n_nodes) {
            ts_graph_fail(g, op, TS_ERR_INTERNAL, "input %d is not a defined value (%d)", i, inputs[i]);
            return false;
        }
    return true;
}

ts_value ts_graph_append(ts_graph *g, ts_op op, ts_type type, const ts_value *inputs, int n_inputs,
                         const ts_attrs *attrs)
{
    if (g->error.status != TS_OK) return TS_NO_VALUE;
    if (type.rank < 0 || type.rank > TS_MAX_DIMS)
        return ts_graph_fail(g, op, TS_ERR_UNSUPPORTED, "rank %d exceeds %d", type.rank, TS_MAX_DIMS);
    for (int i = 0; i < type.rank; i++)
        if (type.dims[i] < 0) return ts_graph_fail(g, op, TS_ERR_INTERNAL, "negative result dimension");
    if (g->n_nodes == g->cap_nodes) {
        int32_t cap = g->cap_nodes ? g->cap_nodes * 2 : 256;
        ts_node *nodes = realloc(g->nodes, sizeof(ts_node) * (size_t)cap);
        if (!nodes) return ts_graph_fail(g, op, TS_ERR_OUT_OF_MEMORY, "out of memory");
        g->nodes = nodes;
        g->cap_nodes = cap;
    }
    ts_value *copy = NULL;
    if (n_inputs) {
        copy = ts_arena_alloc(&g->arena, sizeof(ts_value) * (size_t)n_inputs);
        if (!copy) return ts_graph_fail(g, op, TS_ERR_OUT_OF_MEMORY, "out of memory");
        memcpy(copy, inputs, sizeof(ts_value) * (size_t)n_inputs);
    }
    ts_node *node = &g->nodes[g->n_nodes];
    memset(node, 0, sizeof(*node));
    node->op = op;
    node->type = type;
    node->n_inputs = n_inputs;
    node->inputs = copy;
    if (attrs) node->attrs = *attrs;
    node->name = g->stage;
    return g->n_nodes++;
}

static const ts_type *type_of(ts_graph *g, ts_value v) { return &g->nodes[v].type; }

static const char *fmt_type(const ts_type *t, char *buf) { return ts_type_format(t, buf, 128); }

/* ------------------------------------------------------------------ leaves */

ts_value ts_graph_parameter(ts_graph *g, const char *name, ts_param_role role, ts_type type)
{
    if (g->error.status != TS_OK) return TS_NO_VALUE;
    ts_attrs a = {.parameter = {.index = g->n_parameters, .role = role}};
    ts_value v = ts_graph_append(g, TS_OP_PARAMETER, type, NULL, 0, &a);
    if (v == TS_NO_VALUE) return v;
    g->nodes[v].name = ts_arena_strndup(&g->arena, name, strlen(name));
    g->n_parameters++;
    return v;
}

ts_value ts_graph_constant(ts_graph *g, ts_type type, const void *data)
{
    if (g->error.status != TS_OK) return TS_NO_VALUE;
    size_t bytes = ts_type_bytes(&type);
    void *copy = ts_arena_alloc_aligned(&g->arena, bytes, 64);
    if (!copy) return ts_graph_fail(g, TS_OP_CONSTANT, TS_ERR_OUT_OF_MEMORY, "out of memory");
    memcpy(copy, data, bytes);
    ts_attrs a = {.constant = {.data = copy}};
    return ts_graph_append(g, TS_OP_CONSTANT, type, NULL, 0, &a);
}

ts_value ts_graph_constant_f32(ts_graph *g, float value)
{
    return ts_graph_constant(g, ts_type_make(TS_DTYPE_F32, 0, NULL), &value);
}

ts_value ts_graph_constant_i32(ts_graph *g, int32_t value)
{
    return ts_graph_constant(g, ts_type_make(TS_DTYPE_I32, 0, NULL), &value);
}

ts_value ts_graph_iota(ts_graph *g, ts_type type, int dimension)
{
    if (dimension < 0 || dimension >= type.rank)
        return ts_graph_fail(g, TS_OP_IOTA, TS_ERR_INTERNAL, "iota_dimension %d outside rank %d", dimension, type.rank);
    ts_attrs a = {.iota = {.dimension = dimension}};
    return ts_graph_append(g, TS_OP_IOTA, type, NULL, 0, &a);
}

/* ------------------------------------------------------------------ elementwise */

ts_value ts_graph_convert(ts_graph *g, ts_value x, ts_dtype dtype)
{
    if (!ts_graph_inputs_defined(g, TS_OP_CONVERT, &x, 1)) return TS_NO_VALUE;
    ts_type t = *type_of(g, x);
    t.dtype = dtype;
    return ts_graph_append(g, TS_OP_CONVERT, t, &x, 1, NULL);
}

ts_value ts_graph_unary(ts_graph *g, ts_op op, ts_value x)
{
    if (!ts_op_is_elementwise_unary(op) || op == TS_OP_CONVERT)
        return ts_graph_fail(g, op, TS_ERR_INTERNAL, "not a unary elementwise op");
    if (!ts_graph_inputs_defined(g, op, &x, 1)) return TS_NO_VALUE;
    const ts_type *t = type_of(g, x);
    bool needs_float = op != TS_OP_NEGATE && op != TS_OP_ABS;
    if (needs_float && !is_float(t->dtype)) {
        char b[128];
        return ts_graph_fail(g, op, TS_ERR_INTERNAL, "needs a float operand, got %s", fmt_type(t, b));
    }
    return ts_graph_append(g, op, *t, &x, 1, NULL);
}

/* The type both operands of `op` share; NULL (the graph failed) when one is undefined or their
 * types differ. */
static const ts_type *same_operands(ts_graph *g, ts_op op, ts_value in[2])
{
    if (!ts_graph_inputs_defined(g, op, in, 2)) return NULL;
    const ts_type *ta = type_of(g, in[0]), *tb = type_of(g, in[1]);
    if (!ts_type_equal(ta, tb)) {
        char b1[128], b2[128];
        ts_graph_fail(g, op, TS_ERR_INTERNAL, "operand types differ: %s vs %s", fmt_type(ta, b1),
                      fmt_type(tb, b2));
        return NULL;
    }
    return ta;
}

ts_value ts_graph_binary(ts_graph *g, ts_op op, ts_value a, ts_value b)
{
    if (!ts_op_is_elementwise_binary(op))
        return ts_graph_fail(g, op, TS_ERR_INTERNAL, "not a binary elementwise op");
    ts_value in[2] = {a, b};
    const ts_type *ta = same_operands(g, op, in);
    if (!ta) return TS_NO_VALUE;
    if (ta->dtype == TS_DTYPE_BOOL) return ts_graph_fail(g, op, TS_ERR_INTERNAL, "boolean operands");
    return ts_graph_append(g, op, *ta, in, 2, NULL);
}

ts_value ts_graph_compare(ts_graph *g, ts_compare direction, ts_value a, ts_value b)
{
    ts_value in[2] = {a, b};
    const ts_type *ta = same_operands(g, TS_OP_COMPARE, in);
    if (!ta) return TS_NO_VALUE;
    if ((unsigned)direction >= TS_COMPARE_COUNT) return ts_graph_fail(g, TS_OP_COMPARE, TS_ERR_INTERNAL, "bad direction");
    ts_type t = *ta;
    t.dtype = TS_DTYPE_BOOL;
    ts_attrs attrs = {.compare = {.direction = direction}};
    return ts_graph_append(g, TS_OP_COMPARE, t, in, 2, &attrs);
}

ts_value ts_graph_select(ts_graph *g, ts_value pred, ts_value on_true, ts_value on_false)
{
    ts_value in[3] = {pred, on_true, on_false};
    if (!ts_graph_inputs_defined(g, TS_OP_SELECT, in, 3)) return TS_NO_VALUE;
    const ts_type *tp = type_of(g, pred), *tt = type_of(g, on_true), *tf = type_of(g, on_false);
    if (!ts_type_equal(tt, tf)) return ts_graph_fail(g, TS_OP_SELECT, TS_ERR_INTERNAL, "branch types differ");
    if (tp->dtype != TS_DTYPE_BOOL) return ts_graph_fail(g, TS_OP_SELECT, TS_ERR_INTERNAL, "predicate is not i1");
    bool scalar = tp->rank == 0;
    bool same_shape = tp->rank == tt->rank;
    for (int i = 0; same_shape && i < tp->rank; i++) same_shape = tp->dims[i] == tt->dims[i];
    if (!scalar && !same_shape) return ts_graph_fail(g, TS_OP_SELECT, TS_ERR_INTERNAL, "predicate shape differs");
    return ts_graph_append(g, TS_OP_SELECT, *tt, in, 3, NULL);
}

/* ------------------------------------------------------------------ shape ops */

ts_value ts_graph_broadcast_in_dim(ts_graph *g, ts_value x, int rank, const int64_t *dims,
                                   const int64_t *broadcast_dimensions)
{
    if (!ts_graph_inputs_defined(g, TS_OP_BROADCAST_IN_DIM, &x, 1)) return TS_NO_VALUE;
    const ts_type *t = type_of(g, x);
    if (rank < t->rank || rank > TS_MAX_DIMS)
        return ts_graph_fail(g, TS_OP_BROADCAST_IN_DIM, TS_ERR_INTERNAL, "result rank %d below operand rank %d", rank, t->rank);
    ts_attrs a = {.broadcast = {.dims = {.n = t->rank}}};
    for (int i = 0; i < t->rank; i++) {
        int64_t d = broadcast_dimensions[i];
        if (d < 0 || d >= rank || (i && d <= broadcast_dimensions[i - 1]))
            return ts_graph_fail(g, TS_OP_BROADCAST_IN_DIM, TS_ERR_INTERNAL, "broadcast_dimensions must increase within the result rank");
        if (t->dims[i] != 1 && t->dims[i] != dims[d])
            return ts_graph_fail(g, TS_OP_BROADCAST_IN_DIM, TS_ERR_INTERNAL, "operand dim %d (%lld) cannot broadcast to %lld", i, (long long)t->dims[i], (long long)dims[d]);
        a.broadcast.dims.v[i] = d;
    }
    return ts_graph_append(g, TS_OP_BROADCAST_IN_DIM, ts_type_make(t->dtype, rank, dims), &x, 1, &a);
}

ts_value ts_graph_reshape(ts_graph *g, ts_value x, int rank, const int64_t *dims)
{
    if (!ts_graph_inputs_defined(g, TS_OP_RESHAPE, &x, 1)) return TS_NO_VALUE;
    const ts_type *t = type_of(g, x);
    if (rank < 0 || rank > TS_MAX_DIMS) return ts_graph_fail(g, TS_OP_RESHAPE, TS_ERR_INTERNAL, "bad rank %d", rank);
    ts_type r = ts_type_make(t->dtype, rank, dims);
    if (ts_type_elements(&r) != ts_type_elements(t)) {
        char b1[128], b2[128];
        return ts_graph_fail(g, TS_OP_RESHAPE, TS_ERR_INTERNAL, "%s has a different element count than %s", fmt_type(t, b1), fmt_type(&r, b2));
    }
    return ts_graph_append(g, TS_OP_RESHAPE, r, &x, 1, NULL);
}

ts_value ts_graph_transpose(ts_graph *g, ts_value x, const int64_t *permutation)
{
    if (!ts_graph_inputs_defined(g, TS_OP_TRANSPOSE, &x, 1)) return TS_NO_VALUE;
    const ts_type *t = type_of(g, x);
    ts_attrs a = {.transpose = {.permutation = {.n = t->rank}}};
    ts_type r = {.dtype = t->dtype, .rank = t->rank};
    unsigned seen = 0;
    for (int i = 0; i < t->rank; i++) {
        int64_t p = permutation[i];
        if (p < 0 || p >= t->rank || (seen & (1u << p)))
            return ts_graph_fail(g, TS_OP_TRANSPOSE, TS_ERR_INTERNAL, "permutation is not a permutation of 0..%d", t->rank - 1);
        seen |= 1u << p;
        a.transpose.permutation.v[i] = p;
        r.dims[i] = t->dims[p];
    }
    return ts_graph_append(g, TS_OP_TRANSPOSE, r, &x, 1, &a);
}

ts_value ts_graph_slice(ts_graph *g, ts_value x, const int64_t *start, const int64_t *limit,
                        const int64_t *strides)
{
    if (!ts_graph_inputs_defined(g, TS_OP_SLICE, &x, 1)) return TS_NO_VALUE;
    const ts_type *t = type_of(g, x);
    ts_attrs a;
    memset(&a, 0, sizeof(a));
    a.slice.start.n = a.slice.limit.n = a.slice.strides.n = t->rank;
    ts_type r = {.dtype = t->dtype, .rank = t->rank};
    for (int i = 0; i < t->rank; i++) {
        int64_t s = start[i], l = limit[i], st = strides ? strides[i] : 1;
        if (s < 0 || s > l || l > t->dims[i] || st < 1)
            return ts_graph_fail(g, TS_OP_SLICE, TS_ERR_INTERNAL, "axis %d: [%lld, %lld) step %lld outside 0..%lld", i, (long long)s, (long long)l, (long long)st, (long long)t->dims[i]);
        a.slice.start.v[i] = s;
        a.slice.limit.v[i] = l;
        a.slice.strides.v[i] = st;
        r.dims[i] = (l - s + st - 1) / st;
    }
    return ts_graph_append(g, TS_OP_SLICE, r, &x, 1, &a);
}

static bool scalar_indices(ts_graph *g, ts_op op, const ts_value *starts, int n)
{
    for (int i = 0; i < n; i++) {
        const ts_type *s = type_of(g, starts[i]);
        if (s->rank != 0 || !is_integer(s->dtype)) {
            ts_graph_fail(g, op, TS_ERR_INTERNAL, "start index %d must be an integer scalar", i);
            return false;
        }
    }
    return true;
}

ts_value ts_graph_dynamic_slice(ts_graph *g, ts_value x, const ts_value *starts, const int64_t *sizes)
{
    if (!ts_graph_inputs_defined(g, TS_OP_DYNAMIC_SLICE, &x, 1)) return TS_NO_VALUE;
    const ts_type *t = type_of(g, x);
    ts_value in[1 + TS_MAX_DIMS];
    in[0] = x;
    for (int i = 0; i < t->rank; i++) in[1 + i] = starts[i];
    if (!ts_graph_inputs_defined(g, TS_OP_DYNAMIC_SLICE, in, 1 + t->rank)) return TS_NO_VALUE;
    if (!scalar_indices(g, TS_OP_DYNAMIC_SLICE, starts, t->rank)) return TS_NO_VALUE;
    ts_attrs a = {.dynamic_slice = {.sizes = {.n = t->rank}}};
    for (int i = 0; i < t->rank; i++) {
        if (sizes[i] < 0 || sizes[i] > t->dims[i])
            return ts_graph_fail(g, TS_OP_DYNAMIC_SLICE, TS_ERR_INTERNAL, "slice size %lld exceeds axis %d (%lld)", (long long)sizes[i], i, (long long)t->dims[i]);
        a.dynamic_slice.sizes.v[i] = sizes[i];
    }
    return ts_graph_append(g, TS_OP_DYNAMIC_SLICE, ts_type_make(t->dtype, t->rank, sizes), in, 1 + t->rank, &a);
}

ts_value ts_graph_dynamic_update_slice(ts_graph *g, ts_value x, ts_value update, const ts_value *starts)
{
    ts_value pair[2] = {x, update};
    if (!ts_graph_inputs_defined(g, TS_OP_DYNAMIC_UPDATE_SLICE, pair, 2)) return TS_NO_VALUE;
    const ts_type *t = type_of(g, x), *u = type_of(g, update);
    if (u->rank != t->rank || u->dtype != t->dtype)
        return ts_graph_fail(g, TS_OP_DYNAMIC_UPDATE_SLICE, TS_ERR_INTERNAL, "update rank/dtype differs from operand");
    for (int i = 0; i < t->rank; i++)
        if (u->dims[i] > t->dims[i]) return ts_graph_fail(g, TS_OP_DYNAMIC_UPDATE_SLICE, TS_ERR_INTERNAL, "update larger than operand on axis %d", i);
    ts_value in[2 + TS_MAX_DIMS] = {x, update};
    for (int i = 0; i < t->rank; i++) in[2 + i] = starts[i];
    if (!ts_graph_inputs_defined(g, TS_OP_DYNAMIC_UPDATE_SLICE, in, 2 + t->rank)) return TS_NO_VALUE;
    if (!scalar_indices(g, TS_OP_DYNAMIC_UPDATE_SLICE, starts, t->rank)) return TS_NO_VALUE;
    return ts_graph_append(g, TS_OP_DYNAMIC_UPDATE_SLICE, *t, in, 2 + t->rank, NULL);
}

ts_value ts_graph_concatenate(ts_graph *g, const ts_value *xs, int n, int dimension)
{
    if (n < 1) return ts_graph_fail(g, TS_OP_CONCATENATE, TS_ERR_INTERNAL, "no operands");
    if (!ts_graph_inputs_defined(g, TS_OP_CONCATENATE, xs, n)) return TS_NO_VALUE;
    ts_type r = *type_of(g, xs[0]);
    if (dimension < 0 || dimension >= r.rank) return ts_graph_fail(g, TS_OP_CONCATENATE, TS_ERR_INTERNAL, "dimension %d outside rank %d", dimension, r.rank);
    for (int k = 1; k < n; k++) {
        const ts_type *t = type_of(g, xs[k]);
        if (t->rank != r.rank || t->dtype != r.dtype) return ts_graph_fail(g, TS_OP_CONCATENATE, TS_ERR_INTERNAL, "operand %d rank/dtype differs", k);
        for (int i = 0; i < r.rank; i++)
            if (i != dimension && t->dims[i] != r.dims[i]) return ts_graph_fail(g, TS_OP_CONCATENATE, TS_ERR_INTERNAL, "operand %d differs on axis %d", k, i);
        r.dims[dimension] += t->dims[dimension];
    }
    ts_attrs a = {.concatenate = {.dimension = dimension}};
    return ts_graph_append(g, TS_OP_CONCATENATE, r, xs, n, &a);
}

ts_value ts_graph_pad(ts_graph *g, ts_value x, ts_value pad_value, const int64_t *low,
                      const int64_t *high, const int64_t *interior)
{
    ts_value in[2] = {x, pad_value};
    if (!ts_graph_inputs_defined(g, TS_OP_PAD, in, 2)) return TS_NO_VALUE;
    const ts_type *t = type_of(g, x), *p = type_of(g, pad_value);
    if (p->rank != 0 || p->dtype != t->dtype) return ts_graph_fail(g, TS_OP_PAD, TS_ERR_INTERNAL, "padding value must be a scalar of the operand's dtype");
    ts_attrs a;
    memset(&a, 0, sizeof(a));
    a.pad.low.n = a.pad.high.n = a.pad.interior.n = t->rank;
    ts_type r = {.dtype = t->dtype, .rank = t->rank};
    for (int i = 0; i < t->rank; i++) {
        int64_t in_ = interior ? interior[i] : 0;
        if (in_ < 0) return ts_graph_fail(g, TS_OP_PAD, TS_ERR_INTERNAL, "negative interior padding");
        int64_t d = t->dims[i] ? t->dims[i] + (t->dims[i] - 1) * in_ : 0;
        d += low[i] + high[i];
        if (d < 0) return ts_graph_fail(g, TS_OP_PAD, TS_ERR_INTERNAL, "axis %d pads to a negative size", i);
        a.pad.low.v[i] = low[i];
        a.pad.high.v[i] = high[i];
        a.pad.interior.v[i] = in_;
        r.dims[i] = d;
    }
    return ts_graph_append(g, TS_OP_PAD, r, in, 2, &a);
}

/* Dimension lists are stored with the unused entries zero, so equal attributes are equal bytes
 * whatever the caller's array held past n. */
static ts_dims canonical_dims(const ts_dims *d)
{
    ts_dims out = {.n = d->n < 0 ? 0 : d->n > TS_MAX_DIMS ? TS_MAX_DIMS : d->n};
    for (int i = 0; i < out.n; i++) out.v[i] = d->v[i];
    return out;
}

static bool dims_contains(const ts_dims *d, int64_t x)
{
    for (int i = 0; i < d->n; i++)
        if (d->v[i] == x) return true;
    return false;
}

ts_value ts_graph_gather(ts_graph *g, ts_value operand, ts_value indices, const ts_dims *offset_dims,
                         const ts_dims *collapsed_slice_dims, const ts_dims *start_index_map,
                         int index_vector_dim, const ts_dims *slice_sizes)
{
    ts_value in[2] = {operand, indices};
    if (!ts_graph_inputs_defined(g, TS_OP_GATHER, in, 2)) return TS_NO_VALUE;
    const ts_type *o = type_of(g, operand), *ix = type_of(g, indices);
    if (!is_integer(ix->dtype)) return ts_graph_fail(g, TS_OP_GATHER, TS_ERR_INTERNAL, "indices must be integers");
    if (slice_sizes->n != o->rank) return ts_graph_fail(g, TS_OP_GATHER, TS_ERR_INTERNAL, "slice_sizes needs %d entries", o->rank);
    if (index_vector_dim < 0 || index_vector_dim > ix->rank) return ts_graph_fail(g, TS_OP_GATHER, TS_ERR_INTERNAL, "bad index_vector_dim");
    int64_t index_len = index_vector_dim < ix->rank ? ix->dims[index_vector_dim] : 1;
    if (start_index_map->n != index_len) return ts_graph_fail(g, TS_OP_GATHER, TS_ERR_INTERNAL, "start_index_map has %d entries, index vectors %lld", start_index_map->n, (long long)index_len);
    for (int i = 0; i < o->rank; i++)
        if (slice_sizes->v[i] < 0 || slice_sizes->v[i] > o->dims[i]) return ts_graph_fail(g, TS_OP_GATHER, TS_ERR_INTERNAL, "slice size on axis %d out of range", i);
    for (int i = 0; i < collapsed_slice_dims->n; i++)
        if (slice_sizes->v[collapsed_slice_dims->v[i]] > 1) return ts_graph_fail(g, TS_OP_GATHER, TS_ERR_INTERNAL, "collapsed axis must have slice size ≤ 1");
    /* Result: batch dims (indices minus index_vector_dim) interleaved with offset dims. */
    int64_t batch[TS_MAX_DIMS];
    int n_batch = 0;
    for (int i = 0; i < ix->rank; i++)
        if (i != index_vector_dim) batch[n_batch++] = ix->dims[i];
    int64_t offsets[TS_MAX_DIMS];
    int n_off = 0;
    for (int i = 0; i < o->rank; i++)
        if (!dims_contains(collapsed_slice_dims, i)) offsets[n_off++] = slice_sizes->v[i];
    if (n_off != offset_dims->n) return ts_graph_fail(g, TS_OP_GATHER, TS_ERR_INTERNAL, "offset_dims has %d entries, expected %d", offset_dims->n, n_off);
    int rank = n_batch + n_off;
    if (rank > TS_MAX_DIMS) return ts_graph_fail(g, TS_OP_GATHER, TS_ERR_UNSUPPORTED, "result rank %d", rank);
    ts_type r = {.dtype = o->dtype, .rank = rank};
    int bi = 0, oi = 0;
    for (int i = 0; i < rank; i++) r.dims[i] = dims_contains(offset_dims, i) ? offsets[oi++] : batch[bi++];
    if (bi != n_batch || oi != n_off) return ts_graph_fail(g, TS_OP_GATHER, TS_ERR_INTERNAL, "offset_dims out of range");
    ts_attrs a;
    memset(&a, 0, sizeof(a));
    a.gather.offset_dims = canonical_dims(offset_dims);
    a.gather.collapsed_slice_dims = canonical_dims(collapsed_slice_dims);
    a.gather.start_index_map = canonical_dims(start_index_map);
    a.gather.slice_sizes = canonical_dims(slice_sizes);
    a.gather.index_vector_dim = index_vector_dim;
    return ts_graph_append(g, TS_OP_GATHER, r, in, 2, &a);
}

ts_value ts_graph_scatter_add(ts_graph *g, ts_value operand, ts_value indices, ts_value updates,
                              const ts_dims *update_window_dims, const ts_dims *inserted_window_dims,
                              const ts_dims *scatter_dims_to_operand_dims, int index_vector_dim)
{
    ts_value in[3] = {operand, indices, updates};
    if (!ts_graph_inputs_defined(g, TS_OP_SCATTER_ADD, in, 3)) return TS_NO_VALUE;
    const ts_type *o = type_of(g, operand), *ix = type_of(g, indices), *u = type_of(g, updates);
    if (!is_integer(ix->dtype)) return ts_graph_fail(g, TS_OP_SCATTER_ADD, TS_ERR_INTERNAL, "indices must be integers");
    if (u->dtype != o->dtype) return ts_graph_fail(g, TS_OP_SCATTER_ADD, TS_ERR_INTERNAL, "updates dtype differs");
    if (index_vector_dim < 0 || index_vector_dim > ix->rank) return ts_graph_fail(g, TS_OP_SCATTER_ADD, TS_ERR_INTERNAL, "bad index_vector_dim");
    int64_t index_len = index_vector_dim < ix->rank ? ix->dims[index_vector_dim] : 1;
    if (scatter_dims_to_operand_dims->n != index_len) return ts_graph_fail(g, TS_OP_SCATTER_ADD, TS_ERR_INTERNAL, "scatter_dims_to_operand_dims length");
    int n_scatter = ix->rank - (index_vector_dim < ix->rank ? 1 : 0);
    if (u->rank != n_scatter + update_window_dims->n) return ts_graph_fail(g, TS_OP_SCATTER_ADD, TS_ERR_INTERNAL, "updates rank %d, expected %d", u->rank, n_scatter + update_window_dims->n);
    if (update_window_dims->n + inserted_window_dims->n != o->rank) return ts_graph_fail(g, TS_OP_SCATTER_ADD, TS_ERR_INTERNAL, "window dims do not cover the operand");
    ts_attrs a;
    memset(&a, 0, sizeof(a));
    a.scatter.update_window_dims = canonical_dims(update_window_dims);
    a.scatter.inserted_window_dims = canonical_dims(inserted_window_dims);
    a.scatter.scatter_dims_to_operand_dims = canonical_dims(scatter_dims_to_operand_dims);
    a.scatter.index_vector_dim = index_vector_dim;
    return ts_graph_append(g, TS_OP_SCATTER_ADD, *o, in, 3, &a);
}

ts_value ts_graph_reduce(ts_graph *g, ts_op op, ts_value x, const ts_dims *dimensions)
{
    if (op != TS_OP_REDUCE_SUM && op != TS_OP_REDUCE_MAX) return ts_graph_fail(g, op, TS_ERR_INTERNAL, "not a reduction");
    if (!ts_graph_inputs_defined(g, op, &x, 1)) return TS_NO_VALUE;
    const ts_type *t = type_of(g, x);
    ts_type r = {.dtype = t->dtype, .rank = 0};
    for (int i = 0; i < dimensions->n; i++)
        if (dimensions->v[i] < 0 || dimensions->v[i] >= t->rank || (i && dimensions->v[i] <= dimensions->v[i - 1]))
            return ts_graph_fail(g, op, TS_ERR_INTERNAL, "dimensions must increase within rank %d", t->rank);
    for (int i = 0; i < t->rank; i++)
        if (!dims_contains(dimensions, i)) r.dims[r.rank++] = t->dims[i];
    ts_attrs a = {.reduce = {.dimensions = canonical_dims(dimensions)}};
    return ts_graph_append(g, op, r, &x, 1, &a);
}

ts_value ts_graph_argmax(ts_graph *g, ts_value x, int dimension)
{
    if (!ts_graph_inputs_defined(g, TS_OP_ARGMAX, &x, 1)) return TS_NO_VALUE;
    const ts_type *t = type_of(g, x);
    if (dimension < 0 || dimension >= t->rank) return ts_graph_fail(g, TS_OP_ARGMAX, TS_ERR_INTERNAL, "dimension %d outside rank %d", dimension, t->rank);
    ts_type r = {.dtype = TS_DTYPE_I32, .rank = 0};
    for (int i = 0; i < t->rank; i++)
        if (i != dimension) r.dims[r.rank++] = t->dims[i];
    ts_attrs a = {.argmax = {.dimension = dimension}};
    return ts_graph_append(g, TS_OP_ARGMAX, r, &x, 1, &a);
}

ts_value ts_graph_dot_general(ts_graph *g, ts_value lhs, ts_value rhs, const ts_dims *lhs_batch,
                              const ts_dims *rhs_batch, const ts_dims *lhs_contract,
                              const ts_dims *rhs_contract)
{
    ts_value in[2] = {lhs, rhs};
    if (!ts_graph_inputs_defined(g, TS_OP_DOT_GENERAL, in, 2)) return TS_NO_VALUE;
    const ts_type *l = type_of(g, lhs), *r = type_of(g, rhs);
    if (l->dtype != r->dtype) return ts_graph_fail(g, TS_OP_DOT_GENERAL, TS_ERR_INTERNAL, "operand dtypes differ");
    if (lhs_batch->n != rhs_batch->n || lhs_contract->n != rhs_contract->n)
        return ts_graph_fail(g, TS_OP_DOT_GENERAL, TS_ERR_INTERNAL, "batch/contracting dimension counts differ");
    for (int i = 0; i < lhs_batch->n; i++)
        if (l->dims[lhs_batch->v[i]] != r->dims[rhs_batch->v[i]]) return ts_graph_fail(g, TS_OP_DOT_GENERAL, TS_ERR_INTERNAL, "batch dimension %d sizes differ", i);
    for (int i = 0; i < lhs_contract->n; i++)
        if (l->dims[lhs_contract->v[i]] != r->dims[rhs_contract->v[i]]) {
            char b1[128], b2[128];
            return ts_graph_fail(g, TS_OP_DOT_GENERAL, TS_ERR_INTERNAL, "contracting sizes differ: %s · %s", fmt_type(l, b1), fmt_type(r, b2));
        }
    ts_type t = {.dtype = l->dtype, .rank = 0};
    for (int i = 0; i < lhs_batch->n; i++) t.dims[t.rank++] = l->dims[lhs_batch->v[i]];
    for (int i = 0; i < l->rank; i++)
        if (!dims_contains(lhs_batch, i) && !dims_contains(lhs_contract, i)) t.dims[t.rank++] = l->dims[i];
    for (int i = 0; i < r->rank; i++)
        if (!dims_contains(rhs_batch, i) && !dims_contains(rhs_contract, i)) t.dims[t.rank++] = r->dims[i];
    ts_attrs a;
    memset(&a, 0, sizeof(a));
    a.dot.lhs_batch = canonical_dims(lhs_batch);
    a.dot.rhs_batch = canonical_dims(rhs_batch);
    a.dot.lhs_contract = canonical_dims(lhs_contract);
    a.dot.rhs_contract = canonical_dims(rhs_contract);
    return ts_graph_append(g, TS_OP_DOT_GENERAL, t, in, 2, &a);
}
