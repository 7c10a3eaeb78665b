/* stablehlo_test.c — StableHLO printer and reader.
 *
 * (a) graphs covering every ts_op (primitives in f32/bf16/f16/i32/i1/…, every composite and
 *     variant) print → read → print to the same bytes, read back with the same nodes, and the read
 *     graph computes bit-identical outputs (reference evaluator for primitives, CPU executor for
 *     composites) on random inputs; (b) exact text for small graphs; (c) malformed text fails with
 *     line:column messages; (d) the Qwen2 fixture's decoder graph round-trips and its logits match.
 */
#include "base/context.h"
#include "cpu/executor.h"
#include "cpu/reference.h"
#include "export/printer.h"
#include "export/reader.h"
#include "graph/decompose.h"
#include "models/decoder.h"
#include "check.h"

#include <math.h>

static char *print_graph(const ts_graph *g, const char *name)
{
    char *text;
    size_t len;
    ts_error err;
    if (ts_stablehlo_print(g, name, &text, &len, &err) != TS_OK) {
        fprintf(stderr, "print: %s\n", err.message);
        return NULL;
    }
    if (strlen(text) != len) {
        free(text);
        return NULL;
    }
    return text;
}

static ts_graph *read_graph(const char *text, ts_error *err)
{
    ts_graph *g = NULL;
    if (ts_stablehlo_read(text, strlen(text), "test.mlir", &g, err) != TS_OK) return NULL;
    return g;
}

/* Reports the first differing line of two texts. */
static void show_difference(const char *a, const char *b)
{
    int line = 1;
    const char *la = a, *lb = b;
    while (*a && *a == *b) {
        if (*a == '\n') {
            line++;
            la = a + 1;
            lb = b + 1;
        }
        a++, b++;
    }
    fprintf(stderr, "texts differ at line %d:\n  first:  %.200s\n  second: %.200s\n", line, la, lb);
}

static uint32_t next(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Random bytes for a parameter: floats in [-1, 1), integers in [0, int_range), i1 either. */
static void *random_param(const ts_type *t, uint32_t *seed, int int_range)
{
    int64_t n = ts_type_elements(t);
    void *p = calloc(1, ts_type_bytes(t) + 1);
    for (int64_t i = 0; i < n; i++) {
        double v;
        switch (t->dtype) {
        case TS_DTYPE_F32:
        case TS_DTYPE_F16:
        case TS_DTYPE_BF16: v = (double)next(seed) / 16777216.0 * 2.0 - 1.0; break;
        case TS_DTYPE_BOOL: v = next(seed) & 1; break;
        default: v = (double)(next(seed) % (uint32_t)int_range); break;
        }
        ts_reference_set(t->dtype, p, i, v);
    }
    return p;
}

static ts_context *make_ctx(void)
{
    ts_context *ctx = NULL;
    ts_error err;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    ts_context_create(&o, &ctx, &err);
    return ctx;
}

/* Output k of g as computed by the executor (composites) or the reference (primitives); an
 * owned copy, NULL on failure. */
static void **evaluate(const ts_graph *g, void **params, bool fused)
{
    ts_error err;
    void **outs = calloc((size_t)g->n_outputs + 1, sizeof(void *));
    if (fused) {
        ts_context *ctx = make_ctx();
        ts_program *prog;
        const void **o = calloc((size_t)g->n_outputs + 1, sizeof(void *));
        if (ts_program_create(g, ctx, &prog, &err) != TS_OK) {
            fprintf(stderr, "program: %s\n", err.message);
            free(o), free(outs), ts_context_destroy(ctx);
            return NULL;
        }
        if (ts_program_run(prog, params, o, &err) != TS_OK) {
            fprintf(stderr, "run: %s\n", err.message);
            free(o), free(outs), ts_program_destroy(prog), ts_context_destroy(ctx);
            return NULL;
        }
        for (int k = 0; k < g->n_outputs; k++) {
            size_t bytes = ts_type_bytes(ts_graph_type(g, g->outputs[k]));
            outs[k] = malloc(bytes + 1);
            memcpy(outs[k], o[k], bytes);
        }
        free(o);
        ts_program_destroy(prog);
        ts_context_destroy(ctx);
    } else {
        void **vals;
        if (ts_reference_run(g, (const void *const *)params, &vals, &err) != TS_OK) {
            fprintf(stderr, "reference: %s\n", err.message);
            free(outs);
            return NULL;
        }
        for (int k = 0; k < g->n_outputs; k++) {
            size_t bytes = ts_type_bytes(ts_graph_type(g, g->outputs[k]));
            outs[k] = malloc(bytes + 1);
            memcpy(outs[k], vals[g->outputs[k]], bytes);
        }
        ts_reference_free(g, vals);
    }
    return outs;
}

static void free_outputs(const ts_graph *g, void **outs)
{
    if (!outs) return;
    for (int k = 0; k < g->n_outputs; k++) free(outs[k]);
    free(outs);
}

/* The non-parameter nodes of a and b, in order: same ops, types, stage labels and attributes. */
static bool same_structure(const ts_graph *a, const ts_graph *b)
{
    if (a->n_parameters != b->n_parameters || a->n_outputs != b->n_outputs) return false;
    const ts_node **pa = calloc((size_t)a->n_parameters + 1, sizeof(*pa)), **pb = calloc((size_t)b->n_parameters + 1, sizeof(*pb));
    for (int i = 0; i < a->n_nodes; i++)
        if (a->nodes[i].op == TS_OP_PARAMETER) pa[a->nodes[i].attrs.parameter.index] = &a->nodes[i];
    for (int i = 0; i < b->n_nodes; i++)
        if (b->nodes[i].op == TS_OP_PARAMETER) pb[b->nodes[i].attrs.parameter.index] = &b->nodes[i];
    bool same = a->n_nodes == b->n_nodes;
    for (int i = 0; same && i < a->n_parameters; i++)
        same = pa[i] && pb[i] && strcmp(pa[i]->name, pb[i]->name) == 0 && pa[i]->attrs.parameter.role == pb[i]->attrs.parameter.role &&
               ts_type_equal(&pa[i]->type, &pb[i]->type);
    free(pa);
    free(pb);
    int ia = 0, ib = 0;
    while (same) {
        while (ia < a->n_nodes && a->nodes[ia].op == TS_OP_PARAMETER) ia++;
        while (ib < b->n_nodes && b->nodes[ib].op == TS_OP_PARAMETER) ib++;
        if (ia == a->n_nodes || ib == b->n_nodes) {
            same = ia == a->n_nodes && ib == b->n_nodes;
            break;
        }
        const ts_node *x = &a->nodes[ia++], *y = &b->nodes[ib++];
        same = x->op == y->op && ts_type_equal(&x->type, &y->type) && x->n_inputs == y->n_inputs &&
               ((!x->name && !y->name) || (x->name && y->name && strcmp(x->name, y->name) == 0));
        if (same && x->op == TS_OP_CONSTANT) same = memcmp(x->attrs.constant.data, y->attrs.constant.data, ts_type_bytes(&x->type)) == 0;
        else if (same && x->op != TS_OP_PARAMETER) same = memcmp(&x->attrs, &y->attrs, sizeof(x->attrs)) == 0;
        if (!same) fprintf(stderr, "node %d (%s) differs from %d (%s)\n", ia - 1, ts_op_get_info(x->op)->name, ib - 1, ts_op_get_info(y->op)->name);
    }
    return same;
}

/* print → read → print is byte-identical, the read graph has the same nodes, and both compute
 * the same bits on random inputs. */
static bool ops_seen[TS_OP_COUNT];

/* TS_STABLEHLO_DUMP=folder writes each printed text there (to read it; the fuzz seeds). */
static void dump(const char *name, const char *text)
{
    if (!getenv("TS_STABLEHLO_DUMP")) return;
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s.mlir", getenv("TS_STABLEHLO_DUMP"), name);
    FILE *f = fopen(path, "w");
    if (f) fputs(text, f), fclose(f);
}

static void check_round_trip(ts_graph *g, const char *name, bool fused, int int_range)
{
    for (int i = 0; i < g->n_nodes; i++) ops_seen[g->nodes[i].op] = true;
    ts_error err;
    CHECK(ts_graph_status(g, &err) == TS_OK);
    if (g->error.status != TS_OK) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        return;
    }
    char *text = print_graph(g, name);
    CHECK(text != NULL);
    if (!text) return;
    dump(name, text);
    ts_graph *back = read_graph(text, &err);
    CHECK(back != NULL);
    if (!back) {
        fprintf(stderr, "%s: read: %s\n", name, err.message);
        free(text);
        return;
    }
    char *again = print_graph(back, name);
    CHECK(again != NULL && strcmp(text, again) == 0);
    if (again && strcmp(text, again) != 0) show_difference(text, again);
    CHECK(same_structure(g, back));

    uint32_t seed = 12345;
    void **params = calloc((size_t)g->n_parameters + 1, sizeof(void *));
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].op == TS_OP_PARAMETER) params[g->nodes[i].attrs.parameter.index] = random_param(&g->nodes[i].type, &seed, int_range);
    void **want = evaluate(g, params, fused), **got = evaluate(back, params, fused);
    CHECK(want && got);
    for (int k = 0; want && got && k < g->n_outputs; k++) {
        size_t bytes = ts_type_bytes(ts_graph_type(g, g->outputs[k]));
        if (memcmp(want[k], got[k], bytes) != 0) {
            fprintf(stderr, "%s: output %d differs after the round trip\n", name, k);
            CHECK(false);
        } else {
            CHECK(true);
        }
    }
    free_outputs(g, want);
    free_outputs(back, got);
    for (int i = 0; i < g->n_parameters; i++) free(params[i]);
    free(params);
    free(again);
    free(text);
    ts_graph_destroy(back);
}

static ts_type ty(ts_dtype d, int rank, int64_t a, int64_t b, int64_t c)
{
    int64_t dims[3] = {a, b, c};
    return ts_type_make(d, rank, dims);
}

static ts_dims dl(int n, int64_t a, int64_t b)
{
    ts_dims d = {.n = n, .v = {a, b}};
    return d;
}

/* ------------------------------------------------------------------ (a) every op */

static void test_elementwise_round_trip(void)
{
    ts_graph *g;
    ts_error err;
    ts_graph_create(&g, &err);
    ts_value a = ts_graph_parameter(g, "a", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 2, 2, 3, 0));
    ts_value b = ts_graph_parameter(g, "b", TS_PARAM_WEIGHT, ty(TS_DTYPE_F32, 2, 2, 3, 0));
    ts_value ia = ts_graph_parameter(g, "ia", TS_PARAM_INPUT, ty(TS_DTYPE_I32, 2, 2, 3, 0));
    ts_value ib = ts_graph_parameter(g, "ib", TS_PARAM_STATE, ty(TS_DTYPE_I32, 2, 2, 3, 0));
    ts_value ha = ts_graph_parameter(g, "h\"a\\\n", TS_PARAM_INPUT, ty(TS_DTYPE_BF16, 1, 4, 0, 0));
    ts_value fa = ts_graph_parameter(g, "model.layers.0.f16", TS_PARAM_WEIGHT, ty(TS_DTYPE_F16, 1, 4, 0, 0));
    ts_value pred = ts_graph_parameter(g, "p", TS_PARAM_INPUT, ty(TS_DTYPE_BOOL, 2, 2, 3, 0));
    ts_value outs[96];
    int n = 0;
    ts_graph_set_stage(g, "binary");
    for (ts_op op = TS_OP_ADD; op <= TS_OP_POWER; op++) outs[n++] = ts_graph_binary(g, op, a, b);
    for (ts_op op = TS_OP_ADD; op <= TS_OP_MINIMUM; op++) outs[n++] = ts_graph_binary(g, op, ia, ib);
    outs[n++] = ts_graph_binary(g, TS_OP_MULTIPLY, ha, ha);
    outs[n++] = ts_graph_binary(g, TS_OP_ADD, fa, fa);
    ts_graph_set_stage(g, "unary");
    for (ts_op op = TS_OP_NEGATE; op <= TS_OP_ERF; op++) outs[n++] = ts_graph_unary(g, op, a);
    outs[n++] = ts_graph_unary(g, TS_OP_NEGATE, ia);
    outs[n++] = ts_graph_unary(g, TS_OP_ABS, ia);
    outs[n++] = ts_graph_unary(g, TS_OP_EXPONENTIAL, ha);
    outs[n++] = ts_graph_unary(g, TS_OP_TANH, fa);
    g->stage = NULL;
    for (int d = 0; d < TS_COMPARE_COUNT; d++) {
        outs[n++] = ts_graph_compare(g, (ts_compare)d, a, b);
        outs[n++] = ts_graph_compare(g, (ts_compare)d, ia, ib);
    }
    outs[n++] = ts_graph_compare(g, TS_COMPARE_NE, pred, ts_graph_compare(g, TS_COMPARE_LT, a, b));
    outs[n++] = ts_graph_select(g, pred, a, b);
    ts_value scalar_pred = ts_graph_compare(g, TS_COMPARE_GT, ts_graph_constant_f32(g, 2.0f), ts_graph_constant_f32(g, 1.0f));
    outs[n++] = ts_graph_select(g, scalar_pred, ia, ib);
    outs[n++] = ts_graph_convert(g, a, TS_DTYPE_F16);
    outs[n++] = ts_graph_convert(g, a, TS_DTYPE_BF16);
    outs[n++] = ts_graph_convert(g, a, TS_DTYPE_I32);
    outs[n++] = ts_graph_convert(g, ia, TS_DTYPE_F32);
    outs[n++] = ts_graph_convert(g, pred, TS_DTYPE_I32);
    outs[n++] = ts_graph_convert(g, ha, TS_DTYPE_F32);
    /* constants of every dtype, scalars and tensors */
    ts_graph_set_stage(g, "constants");
    float f6[6] = {1.0f, -2.5f, 0.0f, -0.0f, INFINITY, 3.14159f};
    int32_t i6[6] = {1, -2, 2147483647, -2147483647 - 1, 0, 42};
    uint8_t b6[6] = {1, 0, 1, 1, 0, 0};
    uint16_t h4[4] = {0x3F80, 0xBF80, 0x7FC0, 0x0001};
    int64_t l1 = INT64_MIN;
    uint8_t u3[3] = {0, 200, 255};
    int8_t c3[3] = {-128, 0, 127};
    int16_t s3[3] = {-32768, 1, 32767};
    outs[n++] = ts_graph_binary(g, TS_OP_ADD, a, ts_graph_constant(g, ty(TS_DTYPE_F32, 2, 2, 3, 0), f6));
    outs[n++] = ts_graph_binary(g, TS_OP_ADD, ia, ts_graph_constant(g, ty(TS_DTYPE_I32, 2, 2, 3, 0), i6));
    outs[n++] = ts_graph_constant(g, ty(TS_DTYPE_BOOL, 2, 2, 3, 0), b6);
    outs[n++] = ts_graph_constant(g, ty(TS_DTYPE_BF16, 1, 4, 0, 0), h4);
    outs[n++] = ts_graph_constant(g, ty(TS_DTYPE_F16, 0, 0, 0, 0), h4);
    outs[n++] = ts_graph_constant(g, ty(TS_DTYPE_I64, 0, 0, 0, 0), &l1);
    outs[n++] = ts_graph_constant(g, ty(TS_DTYPE_U8, 1, 3, 0, 0), u3);
    outs[n++] = ts_graph_constant(g, ty(TS_DTYPE_I8, 1, 3, 0, 0), c3);
    outs[n++] = ts_graph_constant(g, ty(TS_DTYPE_I16, 1, 3, 0, 0), s3);
    outs[n++] = ts_graph_constant(g, ty(TS_DTYPE_F32, 1, 0, 0, 0), f6);
    outs[n++] = ts_graph_constant(g, ty(TS_DTYPE_BOOL, 0, 0, 0, 0), b6);
    outs[n++] = ts_graph_iota(g, ty(TS_DTYPE_I32, 2, 2, 3, 0), 1);
    outs[n++] = ts_graph_iota(g, ty(TS_DTYPE_F32, 1, 5, 0, 0), 0);
    ts_graph_set_outputs(g, outs, n);
    check_round_trip(g, "elementwise", false, 7);
    ts_graph_destroy(g);
}

static void test_shape_round_trip(void)
{
    ts_graph *g;
    ts_error err;
    ts_graph_create(&g, &err);
    ts_value x = ts_graph_parameter(g, "x", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 3, 2, 3, 4));
    ts_value v3 = ts_graph_parameter(g, "v3", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 1, 3, 0, 0));
    ts_value table = ts_graph_parameter(g, "table", TS_PARAM_WEIGHT, ty(TS_DTYPE_F32, 2, 5, 4, 0));
    ts_value ids = ts_graph_parameter(g, "ids", TS_PARAM_INPUT, ty(TS_DTYPE_I32, 1, 3, 0, 0));
    ts_value ids2 = ts_graph_parameter(g, "ids2", TS_PARAM_INPUT, ty(TS_DTYPE_I32, 2, 3, 1, 0));
    ts_value upd = ts_graph_parameter(g, "upd", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 2, 3, 4, 0));
    ts_value start = ts_graph_parameter(g, "start", TS_PARAM_INPUT, ty(TS_DTYPE_I32, 0, 0, 0, 0));
    ts_value y = ts_graph_parameter(g, "y", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 3, 2, 4, 5));
    ts_value iy = ts_graph_parameter(g, "iy", TS_PARAM_INPUT, ty(TS_DTYPE_I32, 2, 3, 4, 0));
    ts_value by = ts_graph_parameter(g, "by", TS_PARAM_INPUT, ty(TS_DTYPE_BF16, 2, 3, 4, 0));
    ts_value outs[64];
    int n = 0;
    int64_t d234[3] = {2, 3, 4}, one[1] = {1}, d64[2] = {6, 4}, perm[3] = {2, 0, 1};
    outs[n++] = ts_graph_broadcast_in_dim(g, v3, 3, d234, one);
    outs[n++] = ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, 0.5f), 2, d64, NULL);
    outs[n++] = ts_graph_reshape(g, x, 2, d64);
    outs[n++] = ts_graph_transpose(g, x, perm);
    int64_t s0[3] = {0, 1, 0}, l0[3] = {2, 3, 4}, st[3] = {1, 1, 2};
    outs[n++] = ts_graph_slice(g, x, s0, l0, st);
    outs[n++] = ts_graph_slice(g, x, s0, l0, NULL);
    ts_value zero = ts_graph_constant_i32(g, 0);
    ts_value starts[3] = {zero, start, zero};
    int64_t sizes[3] = {1, 2, 4};
    ts_value piece = ts_graph_dynamic_slice(g, x, starts, sizes);
    outs[n++] = piece;
    outs[n++] = ts_graph_dynamic_update_slice(g, x, ts_graph_unary(g, TS_OP_NEGATE, piece), starts);
    ts_value parts[3] = {x, x, ts_graph_unary(g, TS_OP_EXPONENTIAL, x)};
    outs[n++] = ts_graph_concatenate(g, parts, 3, 1);
    int64_t lo[3] = {1, -1, 0}, hi[3] = {0, 2, 1}, in[3] = {1, 0, 2};
    outs[n++] = ts_graph_pad(g, x, ts_graph_constant_f32(g, -7.0f), lo, hi, in);
    ts_dims off = dl(1, 1, 0), coll = dl(1, 0, 0), map = dl(1, 0, 0), ss = dl(2, 1, 4);
    outs[n++] = ts_graph_gather(g, table, ids, &off, &coll, &map, 1, &ss);
    outs[n++] = ts_graph_gather(g, table, ids2, &off, &coll, &map, 1, &ss);
    ts_dims uw = dl(1, 1, 0), iw = dl(1, 0, 0), sd = dl(1, 0, 0);
    outs[n++] = ts_graph_scatter_add(g, table, ids2, upd, &uw, &iw, &sd, 1);
    ts_dims r1 = dl(1, 1, 0), r02 = dl(2, 0, 2);
    outs[n++] = ts_graph_reduce(g, TS_OP_REDUCE_SUM, x, &r1);
    outs[n++] = ts_graph_reduce(g, TS_OP_REDUCE_SUM, x, &r02);
    outs[n++] = ts_graph_reduce(g, TS_OP_REDUCE_MAX, x, &r1);
    outs[n++] = ts_graph_reduce(g, TS_OP_REDUCE_MAX, iy, &r1);
    outs[n++] = ts_graph_reduce(g, TS_OP_REDUCE_SUM, iy, &r1);
    outs[n++] = ts_graph_reduce(g, TS_OP_REDUCE_SUM, by, &r1);
    ts_graph_set_stage(g, "head");
    outs[n++] = ts_graph_argmax(g, x, 2);
    outs[n++] = ts_graph_argmax(g, iy, 0);
    outs[n++] = ts_graph_argmax(g, by, 1);
    ts_dims b0 = dl(1, 0, 0), c2 = dl(1, 2, 0), c1 = dl(1, 1, 0), none = {0};
    outs[n++] = ts_graph_dot_general(g, x, y, &b0, &b0, &c2, &c1);
    outs[n++] = ts_graph_dot_general(g, ts_graph_reshape(g, x, 2, d64), table, &none, &none, &c1, &c1);
    outs[n++] = ts_graph_dot_general(g, v3, v3, &none, &none, &none, &none);
    ts_graph_set_outputs(g, outs, n);
    check_round_trip(g, "shapes", false, 3);
    ts_graph_destroy(g);
}

/* One of every composite and variant; every operand is a parameter. Returns the output count. */
static int build_composites(ts_graph *g)
{
    ts_value x = ts_graph_parameter(g, "x", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 2, 3, 8, 0));
    ts_value wb = ts_graph_parameter(g, "w.bf16", TS_PARAM_WEIGHT, ty(TS_DTYPE_BF16, 1, 8, 0, 0));
    ts_value wf = ts_graph_parameter(g, "w.f32", TS_PARAM_WEIGHT, ty(TS_DTYPE_F32, 1, 8, 0, 0));
    ts_value wh = ts_graph_parameter(g, "w.f16", TS_PARAM_WEIGHT, ty(TS_DTYPE_F16, 1, 8, 0, 0));
    ts_value bias = ts_graph_parameter(g, "bias", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 2, 3, 8, 0));
    ts_value xr = ts_graph_parameter(g, "xr", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 3, 3, 2, 8));
    ts_value cs = ts_graph_parameter(g, "cos", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 2, 3, 2, 0));
    ts_value sn = ts_graph_parameter(g, "sin", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 2, 3, 2, 0));
    ts_value cs4 = ts_graph_parameter(g, "cos4", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 2, 3, 4, 0));
    ts_value sn4 = ts_graph_parameter(g, "sin4", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 2, 3, 4, 0));
    ts_value q = ts_graph_parameter(g, "q", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 3, 3, 4, 8));
    ts_value k = ts_graph_parameter(g, "k", TS_PARAM_STATE, ty(TS_DTYPE_F32, 3, 5, 2, 8));
    ts_value v = ts_graph_parameter(g, "v", TS_PARAM_STATE, ty(TS_DTYPE_F32, 3, 5, 2, 8));
    ts_value abias = ts_graph_parameter(g, "abias", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 2, 3, 5, 0));
    ts_value q_start = ts_graph_parameter(g, "q_start", TS_PARAM_INPUT, ty(TS_DTYPE_I32, 0, 0, 0, 0));
    ts_value wg = ts_graph_parameter(g, "wg", TS_PARAM_WEIGHT, ty(TS_DTYPE_BF16, 2, 16, 8, 0));
    ts_value wu = ts_graph_parameter(g, "wu", TS_PARAM_WEIGHT, ty(TS_DTYPE_BF16, 2, 16, 8, 0));
    ts_value wd = ts_graph_parameter(g, "wd", TS_PARAM_WEIGHT, ty(TS_DTYPE_BF16, 2, 8, 16, 0));
    ts_value wl = ts_graph_parameter(g, "wl", TS_PARAM_WEIGHT, ty(TS_DTYPE_F32, 2, 16, 8, 0));
    ts_value wh2 = ts_graph_parameter(g, "wh2", TS_PARAM_WEIGHT, ty(TS_DTYPE_F16, 2, 16, 8, 0));
    ts_value lb = ts_graph_parameter(g, "lb", TS_PARAM_WEIGHT, ty(TS_DTYPE_F16, 1, 16, 0, 0));
    ts_value table = ts_graph_parameter(g, "table", TS_PARAM_WEIGHT, ty(TS_DTYPE_BF16, 2, 10, 8, 0));
    ts_value ids = ts_graph_parameter(g, "ids", TS_PARAM_INPUT, ty(TS_DTYPE_I32, 1, 3, 0, 0));
    ts_value router =
        ts_graph_parameter(g, "router", TS_PARAM_WEIGHT, ty(TS_DTYPE_F32, 2, 4, 8, 0));
    ts_value gate_up =
        ts_graph_parameter(g, "gate_up", TS_PARAM_WEIGHT, ty(TS_DTYPE_BF16, 3, 4, 8, 6));
    ts_value down = ts_graph_parameter(g, "down", TS_PARAM_WEIGHT, ty(TS_DTYPE_BF16, 3, 4, 3, 8));
    ts_value outs[32];
    int n = 0;
    ts_graph_set_stage(g, "norms");
    outs[n++] = ts_graph_rms_norm(g, x, wb, 1e-6, 0.0);
    outs[n++] = ts_graph_rms_norm(g, x, wf, 1e-5, 1.0);
    outs[n++] = ts_graph_rms_norm(g, x, wb, 1e-6, 0.0); /* shares the first decomposition */
    outs[n++] = ts_graph_layer_norm(g, x, wf, wh, 1e-5);
    outs[n++] = ts_graph_softmax(g, x, TS_NO_VALUE);
    outs[n++] = ts_graph_softmax(g, x, bias);
    ts_graph_set_stage(g, "rope");
    outs[n++] = ts_graph_rope(g, xr, cs, sn, 4, false);
    outs[n++] = ts_graph_rope(g, xr, cs, sn, 4, true);
    outs[n++] = ts_graph_rope(g, xr, cs4, sn4, 8, false);
    ts_graph_set_stage(g, "attention");
    outs[n++] = ts_graph_attention(g, q, k, v, abias, q_start, 0.35355339059327373, 0.0);
    outs[n++] = ts_graph_attention(g, q, k, v, TS_NO_VALUE, q_start, 0.125, 0.0);
    outs[n++] = ts_graph_attention(g, q, k, v, abias, TS_NO_VALUE, 0.125, 0.0);
    outs[n++] = ts_graph_attention(g, q, k, v, TS_NO_VALUE, TS_NO_VALUE, 0.3, 50.0);
    ts_graph_set_stage(g, "mlp");
    for (int a = 0; a < TS_ACT_COUNT; a++) outs[n++] = ts_graph_gated_mlp(g, x, wg, wu, wd, (ts_activation)a);
    outs[n++] = ts_graph_linear(g, x, wg, TS_NO_VALUE);
    outs[n++] = ts_graph_linear(g, x, wl, lb);
    outs[n++] = ts_graph_linear(g, x, wh2, lb);
    outs[n++] = ts_graph_moe_mlp(g, x, router, gate_up, down, 2, true, TS_ACT_SILU);
    outs[n++] = ts_graph_moe_mlp(g, x, router, gate_up, down, 1, false, TS_ACT_GELU_TANH);
    g->stage = NULL;
    outs[n++] = ts_graph_embedding(g, table, ids);
    /* quantized linears: 8-bit per channel; 4-bit with zero points and a bias; 8-bit blocks */
    ts_value q8 = ts_graph_parameter(g, "q8", TS_PARAM_WEIGHT, ty(TS_DTYPE_I8, 2, 16, 8, 0));
    ts_value s8 = ts_graph_parameter(g, "s8", TS_PARAM_WEIGHT, ty(TS_DTYPE_F16, 2, 16, 1, 0));
    ts_value q4 = ts_graph_parameter(g, "q4", TS_PARAM_WEIGHT, ty(TS_DTYPE_U8, 2, 16, 4, 0));
    ts_value s4 = ts_graph_parameter(g, "s4", TS_PARAM_WEIGHT, ty(TS_DTYPE_BF16, 2, 16, 2, 0));
    ts_value sf = ts_graph_parameter(g, "sf", TS_PARAM_WEIGHT, ty(TS_DTYPE_F32, 2, 16, 2, 0));
    ts_value z4 = ts_graph_parameter(g, "z4", TS_PARAM_WEIGHT, ty(TS_DTYPE_I8, 2, 16, 2, 0));
    outs[n++] = ts_graph_qlinear(g, x, q8, s8, TS_NO_VALUE, TS_NO_VALUE, 8);
    outs[n++] = ts_graph_qlinear(g, x, q4, s4, z4, lb, 4);
    outs[n++] = ts_graph_qlinear(g, x, q8, sf, z4, TS_NO_VALUE, 4);
    ts_graph_set_outputs(g, outs, n);
    return n;
}

/* A LoRA projection (tessera.lora_linear: per-row adapter index into stacked A/B) round-trips,
 * run fused, with indices drawn in 0 … K−1 (K = 3). */
static void test_lora_linear_round_trip(void)
{
    ts_graph *g;
    ts_error err;
    ts_graph_create(&g, &err);
    ts_value x = ts_graph_parameter(g, "x", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 2, 4, 8, 0));
    ts_value w = ts_graph_parameter(g, "l.w", TS_PARAM_WEIGHT, ty(TS_DTYPE_BF16, 2, 6, 8, 0));
    ts_value a = ts_graph_parameter(g, "l.lora_A", TS_PARAM_WEIGHT, ty(TS_DTYPE_F32, 3, 3, 2, 8));
    ts_value b = ts_graph_parameter(g, "l.lora_B", TS_PARAM_WEIGHT, ty(TS_DTYPE_F32, 3, 3, 6, 2));
    ts_value s = ts_graph_parameter(g, "lora.scale", TS_PARAM_WEIGHT, ty(TS_DTYPE_F32, 1, 3, 0, 0));
    ts_value i = ts_graph_parameter(g, "adapters", TS_PARAM_INPUT, ty(TS_DTYPE_I32, 1, 4, 0, 0));
    ts_graph_set_stage(g, "layer.0");
    ts_value y = ts_graph_lora_linear(g, x, w, a, b, s, i);
    ts_graph_set_outputs(g, &y, 1);
    check_round_trip(g, "lora_linear", true, 3);
    char *text = print_graph(g, "lora_linear");
    CHECK(text && strstr(text, "stablehlo.composite \"tessera.lora_linear\""));
    free(text);
    ts_graph_destroy(g);
}

/* A quantized layer alone at a real block size (32), 8-bit and 4-bit: its text (dumped as
 * qlinear.mlir) is what tests/quant_oracle_test.sh gives jaxlib's parser and iree-compile. */
static void test_qlinear_round_trip(void)
{
    ts_graph *g;
    ts_error err;
    ts_graph_create(&g, &err);
    ts_value x = ts_graph_parameter(g, "x", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 2, 3, 64, 0));
    ts_value q8 = ts_graph_parameter(g, "l.q8", TS_PARAM_WEIGHT, ty(TS_DTYPE_I8, 2, 48, 64, 0));
    ts_value s8 = ts_graph_parameter(g, "l.s8", TS_PARAM_WEIGHT, ty(TS_DTYPE_F16, 2, 48, 2, 0));
    ts_value q4 = ts_graph_parameter(g, "l.q4", TS_PARAM_WEIGHT, ty(TS_DTYPE_U8, 2, 40, 24, 0));
    ts_value s4 = ts_graph_parameter(g, "l.s4", TS_PARAM_WEIGHT, ty(TS_DTYPE_BF16, 2, 40, 3, 0));
    ts_value z4 = ts_graph_parameter(g, "l.z4", TS_PARAM_WEIGHT, ty(TS_DTYPE_I8, 2, 40, 3, 0));
    ts_value b4 = ts_graph_parameter(g, "l.b4", TS_PARAM_WEIGHT, ty(TS_DTYPE_BF16, 1, 40, 0, 0));
    ts_graph_set_stage(g, "layer.0");
    ts_value h = ts_graph_qlinear(g, x, q8, s8, TS_NO_VALUE, TS_NO_VALUE, 32);
    ts_value y = ts_graph_qlinear(g, h, q4, s4, z4, b4, 16);
    ts_graph_set_outputs(g, &y, 1);
    check_round_trip(g, "qlinear", true, 3);
    char *text = print_graph(g, "qlinear");
    CHECK(text && strstr(text, "stablehlo.composite \"tessera.qlinear\"") &&
          strstr(text, "composite_attributes = {bits = 4 : i64, block = 16 : i64, has_bias = true, has_zero = true}") &&
          strstr(text, "tensor<40x24xui8>"));
    free(text);
    ts_graph_destroy(g);
}

static void test_composite_round_trip(void)
{
    ts_graph *g;
    ts_error err;
    ts_graph_create(&g, &err);
    int n = build_composites(g);
    check_round_trip(g, "composites", true, 3);

    /* The composites read back as composites (fused on the CPU), not as their expansions. */
    char *text = print_graph(g, "composites");
    ts_graph *back = text ? read_graph(text, &err) : NULL;
    int composites = 0;
    for (int i = 0; back && i < back->n_nodes; i++) composites += ts_op_get_info(back->nodes[i].op)->composite;
    CHECK_INT_EQ(composites, n);
    /* Identical expansions share one private function. */
    CHECK(text && strstr(text, "func.func private @tessera.rms_norm.1(") && !strstr(text, "@tessera.rms_norm.2("));
    CHECK(text && strstr(text, "func.func private @tessera.gated_mlp.3(") && !strstr(text, "@tessera.gated_mlp.4("));
    ts_graph_destroy(back);
    free(text);
    ts_graph_destroy(g);
}

/* The round-trip graphs above hold every op of ts_op (op.h may grow: ORDER OP). */
static void test_every_op_covered(void)
{
    for (int op = 0; op < TS_OP_COUNT; op++) {
        if (!ops_seen[op]) fprintf(stderr, "op %s is not in any round-trip graph\n", ts_op_get_info((ts_op)op)->name);
        CHECK(ops_seen[op]);
    }
}

/* What another compiler would run: each printed decomposition function, read as a module of
 * its own and evaluated by the reference, agrees with the fused kernel (relative error ≤ 1e-5). */
static void test_decompositions_match_fused(void)
{
    ts_graph *g;
    ts_error err;
    ts_graph_create(&g, &err);
    int n = build_composites(g);
    char *text = print_graph(g, "composites");
    uint32_t seed = 777;
    void **params = calloc((size_t)g->n_parameters + 1, sizeof(void *));
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].op == TS_OP_PARAMETER) params[g->nodes[i].attrs.parameter.index] = random_param(&g->nodes[i].type, &seed, 3);
    void **fused = evaluate(g, params, true);
    CHECK(text && fused);
    const char *at = text;
    for (int k = 0; text && fused && k < n; k++) {
        const ts_node *c = ts_graph_node(g, g->outputs[k]);
        /* the k-th composite line names its decomposition */
        at = strstr(at, "decomposition = @");
        CHECK(at != NULL);
        if (!at) break;
        at += strlen("decomposition = @");
        char symbol[64] = {0};
        for (int i = 0; i < 63 && at[i] != '}'; i++) symbol[i] = at[i];
        char header[96];
        snprintf(header, sizeof(header), "func.func private @%s(", symbol);
        const char *fn = strstr(text, header), *end = fn ? strstr(fn, "\n  }\n") : NULL;
        CHECK(fn && end);
        if (!fn || !end) break;
        fn += strlen(header);
        size_t body = (size_t)(end - fn) + 5;
        /* Nested composites (erf in GELU) call decompositions of their own: take them all along. */
        const char *privates = strstr(text, "  func.func private @");
        size_t cap = body + 64 + strlen(privates);
        char *module = malloc(cap);
        snprintf(module, cap, "module @d {\n  func.func public @main(%.*s%s", (int)body, fn, privates);
        ts_graph *d = read_graph(module, &err);
        CHECK(d != NULL);
        if (!d) {
            fprintf(stderr, "%s: %s\n", symbol, err.message);
            free(module);
            continue;
        }
        void *dparams[8];
        for (int i = 0; i < c->n_inputs; i++) dparams[i] = params[ts_graph_node(g, c->inputs[i])->attrs.parameter.index];
        void **ref = evaluate(d, dparams, false);
        REQUIRE(ref != NULL);
        const ts_type *t = ts_graph_type(g, g->outputs[k]);
        double scale = 0, diff = 0;
        for (int64_t i = 0; ref && i < ts_type_elements(t); i++) {
            double r = ts_reference_get(t->dtype, ref[0], i), o = ts_reference_get(t->dtype, fused[k], i);
            scale = fmax(scale, fabs(r));
            if (isnan(r) != isnan(o)) diff = INFINITY;
            else if (!isnan(r)) diff = fmax(diff, fabs(r - o));
        }
        if (diff > 1e-5 * fmax(scale, 1e-30)) fprintf(stderr, "%s (%s): error %g of %g\n", symbol, ts_op_get_info(c->op)->name, diff, scale);
        CHECK(diff <= 1e-5 * fmax(scale, 1e-30));
        free_outputs(d, ref);
        ts_graph_destroy(d);
        free(module);
    }
    free_outputs(g, fused);
    for (int i = 0; i < g->n_parameters; i++) free(params[i]);
    free(params);
    free(text);
    ts_graph_destroy(g);
}

/* ------------------------------------------------------------------ (b) exact text */

static void check_text(ts_graph *g, const char *name, const char *want)
{
    char *text = print_graph(g, name);
    CHECK_STR_EQ(text, want);
    if (text) dump(name, text);
    ts_error err;
    ts_graph *back = text ? read_graph(text, &err) : NULL;
    REQUIRE(back != NULL);
    char *again = back ? print_graph(back, name) : NULL;
    CHECK_STR_EQ(again, want);
    free(again);
    ts_graph_destroy(back);
    free(text);
}

static void test_text_add(void)
{
    ts_graph *g;
    ts_error err;
    ts_graph_create(&g, &err);
    ts_value a = ts_graph_parameter(g, "model.a", TS_PARAM_WEIGHT, ty(TS_DTYPE_F32, 2, 2, 3, 0));
    ts_value b = ts_graph_parameter(g, "b", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 2, 2, 3, 0));
    ts_value c = ts_graph_binary(g, TS_OP_ADD, a, b);
    ts_graph_set_outputs(g, &c, 1);
    /* a module name that is not an identifier is quoted */
    char *quoted = print_graph(g, "qwen2 0.5b");
    const char *head = "module @\"qwen2 0.5b\" {\n";
    CHECK(quoted && strncmp(quoted, head, strlen(head)) == 0);
    ts_graph *back = quoted ? read_graph(quoted, &err) : NULL;
    REQUIRE(back != NULL);
    ts_graph_destroy(back);
    free(quoted);
    check_text(g, "add",
               "module @add {\n"
               "  func.func public @main(%arg0: tensor<2x3xf32> {tessera.name = \"model.a\", tessera.role = \"weight\"}, "
               "%arg1: tensor<2x3xf32> {tessera.name = \"b\", tessera.role = \"input\"}) -> tensor<2x3xf32> {\n"
               "    %0 = stablehlo.add %arg0, %arg1 : tensor<2x3xf32>\n"
               "    return %0 : tensor<2x3xf32>\n"
               "  }\n"
               "}\n");
    ts_graph_destroy(g);
}

/* A donated state argument prints as tf.aliasing_output (the attribute XLA and IREE honour), reads
 * back as the same donation, and prints to the same text; the graph refuses donations that break
 * the contract, and the reader refuses texts that declare them. */
static void test_text_donation(void)
{
    ts_graph *g;
    ts_error err;
    ts_graph_create(&g, &err);
    ts_value x = ts_graph_parameter(g, "x", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 1, 2, 0, 0));
    ts_value k = ts_graph_parameter(g, "k", TS_PARAM_STATE, ty(TS_DTYPE_F32, 1, 2, 0, 0));
    ts_value outs[2] = {ts_graph_binary(g, TS_OP_MULTIPLY, x, x), ts_graph_binary(g, TS_OP_ADD, k, x)};
    ts_graph_set_outputs(g, outs, 2);
    ts_graph_alias_output(g, k, 1);
    CHECK_INT_EQ(ts_graph_status(g, &err), TS_OK);
    CHECK_INT_EQ(ts_graph_parameter_alias(g, k), 1);
    CHECK_INT_EQ(ts_graph_parameter_alias(g, x), -1);
    const char *want = "module @donation {\n"
                       "  func.func public @main(%arg0: tensor<2xf32> {tessera.name = \"x\", tessera.role = \"input\"}, "
                       "%arg1: tensor<2xf32> {tessera.name = \"k\", tessera.role = \"state\", tf.aliasing_output = 1 : i32}) -> "
                       "(tensor<2xf32>, tensor<2xf32>) {\n"
                       "    %0 = stablehlo.multiply %arg0, %arg0 : tensor<2xf32>\n"
                       "    %1 = stablehlo.add %arg1, %arg0 : tensor<2xf32>\n"
                       "    return %0, %1 : tensor<2xf32>, tensor<2xf32>\n"
                       "  }\n"
                       "}\n";
    check_text(g, "donation", want);
    char *text = print_graph(g, "donation");
    ts_graph *back = text ? read_graph(text, &err) : NULL;
    REQUIRE(back != NULL);
    int donated = 0;
    for (int32_t i = 0; back && i < back->n_nodes; i++)
        if (back->nodes[i].op == TS_OP_PARAMETER && ts_graph_parameter_alias(back, i) >= 0)
            donated += strcmp(back->nodes[i].name, "k") == 0 && ts_graph_parameter_alias(back, i) == 1;
    CHECK_INT_EQ(donated, 1);
    ts_graph_destroy(back);
    /* A decomposed copy keeps the donation. */
    ts_graph *d = NULL;
    ts_value map[16];
    CHECK_INT_EQ(ts_graph_decompose(g, &d, map, &err), TS_OK);
    CHECK(d && ts_graph_parameter_alias(d, map[k]) == 1 && ts_graph_parameter_alias(d, map[x]) == -1);
    ts_graph_destroy(d);
    ts_graph_destroy(g);
    free(text);

    /* The builder's refusals: not a state parameter, a result of another type, a result taken twice. */
    static const char *const refusals[] = {"only a state parameter can be donated", "k: result 0 already takes k's buffer",
                                           "k: no result 5", "k: result 0 has another type", "k is already donated"};
    for (int c = 0; c < 5; c++) {
        ts_graph *h;
        ts_graph_create(&h, &err);
        ts_value a = ts_graph_parameter(h, "x", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 1, 2, 0, 0));
        ts_value s = ts_graph_parameter(h, "k", TS_PARAM_STATE, ty(TS_DTYPE_F32, 1, 2, 0, 0));
        ts_value o[2] = {c == 3 ? ts_graph_convert(h, a, TS_DTYPE_I32) : ts_graph_binary(h, TS_OP_ADD, s, a), ts_graph_binary(h, TS_OP_MULTIPLY, s, a)};
        ts_graph_set_outputs(h, o, 2);
        if (c == 0) ts_graph_alias_output(h, a, 0);
        if (c == 1) ts_graph_alias_output(h, s, 0), ts_graph_alias_output(h, s, 0);
        if (c == 2) ts_graph_alias_output(h, s, 5);
        if (c == 3) ts_graph_alias_output(h, s, 0);
        if (c == 4) ts_graph_alias_output(h, s, 0), ts_graph_alias_output(h, s, 1);
        CHECK_INT_EQ(ts_graph_status(h, &err), TS_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(err.message, refusals[c]);
        ts_graph_destroy(h);
    }
}

static void test_text_constants(void)
{
    ts_graph *g;
    ts_error err;
    ts_graph_create(&g, &err);
    float two[2] = {1.0f, 2.0f};
    int32_t ints[4] = {1, -2, 3, 4};
    uint16_t half = 0x3C00;
    ts_value outs[5];
    outs[0] = ts_graph_constant_f32(g, 1.0f);
    outs[1] = ts_graph_constant(g, ty(TS_DTYPE_F32, 1, 2, 0, 0), two);
    outs[2] = ts_graph_constant(g, ty(TS_DTYPE_I32, 2, 2, 2, 0), ints);
    outs[3] = ts_graph_constant(g, ty(TS_DTYPE_F16, 0, 0, 0, 0), &half);
    ts_graph_set_stage(g, "layer.0");
    outs[4] = ts_graph_constant_i32(g, -7);
    ts_graph_set_outputs(g, outs, 5);
    check_text(g, "consts",
               "module @consts {\n"
               "  func.func public @main() -> (tensor<f32>, tensor<2xf32>, tensor<2x2xi32>, tensor<f16>, tensor<i32>) {\n"
               "    %0 = stablehlo.constant dense<0x3F800000> : tensor<f32>\n"
               "    %1 = stablehlo.constant dense<\"0x0000803F00000040\"> : tensor<2xf32>\n"
               "    %2 = stablehlo.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>\n"
               "    %3 = stablehlo.constant dense<0x3C00> : tensor<f16>\n"
               "    %4 = stablehlo.constant dense<-7> : tensor<i32> loc(\"layer.0\")\n"
               "    return %0, %1, %2, %3, %4 : tensor<f32>, tensor<2xf32>, tensor<2x2xi32>, tensor<f16>, tensor<i32>\n"
               "  }\n"
               "}\n");
    ts_graph_destroy(g);
}

static void test_text_reduce_sum(void)
{
    ts_graph *g;
    ts_error err;
    ts_graph_create(&g, &err);
    ts_value x = ts_graph_parameter(g, "x", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 2, 2, 3, 0));
    ts_dims last = dl(1, 1, 0);
    ts_value s = ts_graph_reduce(g, TS_OP_REDUCE_SUM, x, &last);
    ts_graph_set_outputs(g, &s, 1);
    check_text(g, "sum",
               "module @sum {\n"
               "  func.func public @main(%arg0: tensor<2x3xf32> {tessera.name = \"x\", tessera.role = \"input\"}) -> tensor<2xf32> {\n"
               "    %0 = stablehlo.constant dense<0x00000000> : tensor<f32>\n"
               "    %1 = \"stablehlo.reduce\"(%arg0, %0) <{dimensions = array<i64: 1>}> ({\n"
               "    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):\n"
               "      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>\n"
               "      stablehlo.return %2 : tensor<f32>\n"
               "    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n"
               "    return %1 : tensor<2xf32>\n"
               "  }\n"
               "}\n");
    ts_graph_destroy(g);
}

static void test_text_composite(void)
{
    ts_graph *g;
    ts_error err;
    ts_graph_create(&g, &err);
    ts_value x = ts_graph_parameter(g, "x", TS_PARAM_INPUT, ty(TS_DTYPE_F32, 2, 2, 4, 0));
    ts_value w = ts_graph_parameter(g, "w", TS_PARAM_WEIGHT, ty(TS_DTYPE_F32, 2, 3, 4, 0));
    ts_value y = ts_graph_linear(g, x, w, TS_NO_VALUE);
    ts_graph_set_outputs(g, &y, 1);
    check_text(g, "lin",
               "module @lin {\n"
               "  func.func public @main(%arg0: tensor<2x4xf32> {tessera.name = \"x\", tessera.role = \"input\"}, "
               "%arg1: tensor<3x4xf32> {tessera.name = \"w\", tessera.role = \"weight\"}) -> tensor<2x3xf32> {\n"
               "    %0 = stablehlo.composite \"tessera.linear\" %arg0, %arg1 {decomposition = @tessera.linear.0} : "
               "(tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>\n"
               "    return %0 : tensor<2x3xf32>\n"
               "  }\n"
               "  func.func private @tessera.linear.0(%arg0: tensor<2x4xf32>, %arg1: tensor<3x4xf32>) -> tensor<2x3xf32> {\n"
               "    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>\n"
               "    return %0 : tensor<2x3xf32>\n"
               "  }\n"
               "}\n");
    ts_graph_destroy(g);
}

/* The reader takes other whitespace, comments, other value names and module forms. */
static void test_read_variations(void)
{
    const char *text =
        "// a comment\n"
        "module {\n"
        "func.func @main(%x: tensor<2xf32> {tessera.role = \"state\", tessera.name = \"kv\"}) -> (tensor<2xf32>) {\n"
        "  %c = stablehlo.constant dense<\"0x0000803F\"> : tensor<2xf32>   // splat blob\n"
        "  %sum=stablehlo.add %x,%c:tensor<2xf32>\n"
        "  %e = chlo.erf %sum : tensor<2xf32> -> tensor<2xf32>\n"
        "  %k = stablehlo.constant dense<[1, 2]> : tensor<2xi32>\n"
        "  func.return %e : tensor<2xf32>\n"
        "}\n"
        "}";
    ts_error err;
    ts_graph *g = read_graph(text, &err);
    CHECK(g != NULL);
    if (!g) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    CHECK_INT_EQ(g->n_parameters, 1);
    CHECK_STR_EQ(g->nodes[0].name, "kv");
    CHECK_INT_EQ(g->nodes[0].attrs.parameter.role, TS_PARAM_STATE);
    CHECK_INT_EQ(g->n_nodes, 5);
    CHECK_INT_EQ(g->nodes[4].op, TS_OP_CONSTANT); /* unused, still kept */
    const float *c = g->nodes[1].attrs.constant.data;
    CHECK(c[0] == 1.0f && c[1] == 1.0f);
    ts_graph_destroy(g);

    /* A decomposition written differently but meaning the same expansion is accepted. */
    const char *composite =
        "module @lin {\n"
        "  func.func public @main(%a: tensor<2x4xf32> {tessera.name = \"x\", tessera.role = \"input\"},\n"
        "                         %b: tensor<3x4xf32> {tessera.name = \"w\", tessera.role = \"weight\"}) -> tensor<2x3xf32> {\n"
        "    %y = stablehlo.composite \"tessera.linear\" %a, %b {decomposition = @lin_impl, version = 0 : i32}\n"
        "         : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>\n"
        "    return %y : tensor<2x3xf32>\n"
        "  }\n"
        "  func.func private @lin_impl(%p: tensor<2x4xf32>, %q: tensor<3x4xf32>) -> tensor<2x3xf32> {\n"
        "    %r = stablehlo.dot_general %p, %q,\n"
        "         contracting_dims = [1] x [1] : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>\n"
        "    func.return %r : tensor<2x3xf32>\n"
        "  }\n"
        "}\n";
    g = read_graph(composite, &err);
    CHECK(g != NULL);
    if (!g) fprintf(stderr, "%s\n", err.message);
    CHECK(g && g->n_nodes == 3 && g->nodes[2].op == TS_OP_LINEAR);
    ts_graph_destroy(g);
}

/* ------------------------------------------------------------------ (c) malformed text */

#define HEAD "module @m {\n  func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> tensor<2xf32> {\n"
#define TAIL "    return %0 : tensor<2xf32>\n  }\n}\n"

typedef struct bad_case {
    const char *text;
    const char *message;
} bad_case;

static const bad_case bad_cases[] = {
    /* unknown op */
    {HEAD "    %0 = stablehlo.foo %arg0 : tensor<2xf32>\n" TAIL, "line 3:10: unsupported op stablehlo.foo"},
    /* donations: to a missing result, of a non-state argument, of another type, spelled as i64 */
    {"module @m {\n  func.func public @main(%arg0: tensor<2xf32> {tessera.name = \"k\", tessera.role = \"state\", tf.aliasing_output = 1 : i32}) "
     "-> tensor<2xf32> {\n    return %arg0 : tensor<2xf32>\n  }\n}\n",
     "argument k: tf.aliasing_output = 1, but @main has 1 results"},
    {"module @m {\n  func.func public @main(%arg0: tensor<2xf32> {tessera.name = \"x\", tessera.role = \"input\", tf.aliasing_output = 0 : i32}) "
     "-> tensor<2xf32> {\n    return %arg0 : tensor<2xf32>\n  }\n}\n",
     "argument x: tf.aliasing_output on a non-state argument"},
    {"module @m {\n  func.func public @main(%arg0: tensor<2xf32> {tessera.name = \"k\", tessera.role = \"state\", tf.aliasing_output = 0 : i32}) "
     "-> tensor<2xi32> {\n    %0 = stablehlo.convert %arg0 : (tensor<2xf32>) -> tensor<2xi32>\n    return %0 : tensor<2xi32>\n  }\n}\n",
     "argument k is tensor<2xf32>; the result 0 it aliases is tensor<2xi32>"},
    {"module @m {\n  func.func public @main(%arg0: tensor<2xf32> {tessera.name = \"k\", tessera.role = \"state\", tf.aliasing_output = 0 : i64}) "
     "-> tensor<2xf32> {\n    return %arg0 : tensor<2xf32>\n  }\n}\n",
     "tf.aliasing_output is an i32, not i64"},
    /* operand type differs from the printed type */
    {HEAD "    %0 = stablehlo.add %arg0, %arg1 : tensor<3xf32>\n" TAIL, "line 3:24: type mismatch: %arg0 is tensor<2xf32> but stablehlo.add says tensor<3xf32>"},
    /* undefined SSA value */
    {HEAD "    %0 = stablehlo.add %arg0, %7 : tensor<2xf32>\n" TAIL, "line 3:31: use of undefined value %7"},
    /* bad hex digit */
    {HEAD "    %c = stablehlo.constant dense<\"0x0000803G00000040\"> : tensor<2xf32>\n    %0 = stablehlo.add %arg0, %c : tensor<2xf32>\n" TAIL,
     "line 3:45: bad hex digit 'G' in constant"},
    /* missing return */
    {HEAD "    %0 = stablehlo.add %arg0, %arg1 : tensor<2xf32>\n  }\n}\n", "line 4:3: function @main ends without a return"},
    /* reduce with a region this reader does not know */
    {"module @m {\n  func.func public @main(%arg0: tensor<2x3xf32>) -> tensor<2xf32> {\n"
     "    %c = stablehlo.constant dense<0x00000000> : tensor<f32>\n"
     "    %0 = \"stablehlo.reduce\"(%arg0, %c) <{dimensions = array<i64: 1>}> ({\n"
     "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n      %m = stablehlo.multiply %a, %b : tensor<f32>\n      stablehlo.return %m : tensor<f32>\n"
     "    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n" TAIL,
     "line 4:10: unsupported stablehlo.reduce region: only add and maximum bodies are supported"},
    /* truncated text */
    {HEAD "    %0 = stablehlo.add %arg0, %ar", "line 3:31: use of undefined value %ar"},
    {HEAD "    %0 = stablehlo.add %arg0, %arg1 : tensor<2xf32>\n    return %0 : tensor<2xf32>\n", "line 5:1: expected '}' after return"},
    {HEAD "    %0 = stablehlo.add %arg0, %arg1 : tensor<2x", "line 3:48: unterminated tensor type"},
    /* missing ':' */
    {HEAD "    %0 = stablehlo.add %arg0, %arg1 tensor<2xf32>\n" TAIL, "line 3:37: expected ':' before the op's types, found 'tensor<2xf32>'"},
    /* a value used in its own definition */
    {HEAD "    %0 = stablehlo.add %0, %arg1 : tensor<2xf32>\n" TAIL, "line 3:24: %0 is used in its own definition"},
    /* redefinition */
    {HEAD "    %0 = stablehlo.add %arg0, %arg1 : tensor<2xf32>\n    %0 = stablehlo.add %arg0, %arg1 : tensor<2xf32>\n" TAIL, "line 4:5: redefinition of %0"},
    /* element type Tessera does not carry */
    {"module @m {\n  func.func public @main(%arg0: tensor<2xf64>) -> tensor<2xf64> {\n" TAIL, "line 2:42: unsupported element type 'f64'"},
    /* dynamic shape */
    {"module @m {\n  func.func public @main(%arg0: tensor<?xf32>) -> tensor<2xf32> {\n" TAIL, "line 2:40: dynamic shapes are not supported"},
    /* rank above 8 */
    {"module @m {\n  func.func public @main(%arg0: tensor<1x1x1x1x1x1x1x1x1xf32>) -> tensor<2xf32> {\n" TAIL, "line 2:56: rank above 8 is not supported"},
    /* compare type that does not fit the operands */
    {HEAD "    %p = stablehlo.compare  LT, %arg0, %arg1,  SIGNED : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n"
          "    %0 = stablehlo.select %p, %arg0, %arg1 : tensor<2xi1>, tensor<2xf32>\n" TAIL,
     "line 3:48: compare type SIGNED does not match f32 operands (FLOAT)"},
    /* hex blob of the wrong length */
    {HEAD "    %c = stablehlo.constant dense<\"0x0000803F000000\"> : tensor<2xf32>\n    %0 = stablehlo.add %arg0, %c : tensor<2xf32>\n" TAIL,
     "line 3:35: hex blob holds 14 digits; tensor<2xf32> needs 16"},
    /* return count differs from the signature */
    {HEAD "    %0 = stablehlo.add %arg0, %arg1 : tensor<2xf32>\n    return %0, %0 : tensor<2xf32>, tensor<2xf32>\n  }\n}\n",
     "line 4:5: return gives 2 values; the function declares 1 results"},
    /* result type differs from what the op yields */
    {HEAD "    %0 = stablehlo.convert %arg0 : (tensor<2xf32>) -> tensor<3xi32>\n" TAIL, "line 3:10: result type mismatch: stablehlo.convert yields tensor<2xi32> but the text says tensor<3xi32>"},
    {HEAD "    %0 = stablehlo.reshape %arg0 : (tensor<2xf32>) -> tensor<2x1xf32>\n" TAIL, "line 4:12: type mismatch: %0 is tensor<2x1xf32> but return says tensor<2xf32>"},
    /* reduce init that is not the identity */
    {"module @m {\n  func.func public @main(%arg0: tensor<2x3xf32>) -> tensor<2xf32> {\n"
     "    %c = stablehlo.constant dense<0x3F800000> : tensor<f32>\n"
     "    %0 = \"stablehlo.reduce\"(%arg0, %c) <{dimensions = array<i64: 1>}> ({\n"
     "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n      %m = stablehlo.add %a, %b : tensor<f32>\n      stablehlo.return %m : tensor<f32>\n"
     "    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n" TAIL,
     "line 4:36: the init of a sum reduce must be a constant zero"},
    /* unknown composite, missing decomposition */
    {HEAD "    %0 = stablehlo.composite \"tessera.foo\" %arg0 {decomposition = @f} : (tensor<2xf32>) -> tensor<2xf32>\n" TAIL,
     "line 3:30: unsupported composite \"tessera.foo\""},
    {HEAD "    %0 = stablehlo.composite \"tessera.softmax\" %arg0 {decomposition = @tessera.softmax.0} : (tensor<2xf32>) -> tensor<2xf32>\n" TAIL,
     "line 3:10: decomposition @tessera.softmax.0 is not defined"},
    {HEAD "    %0 = stablehlo.composite \"tessera.softmax\" %arg0 {decomposition = @d} : (tensor<2xf32>) -> tensor<2xf32>\n"
          "    return %0 : tensor<2xf32>\n  }\n  func.func private @d(%arg0: tensor<3xf32>) -> tensor<3xf32> {\n    return %arg0 : tensor<3xf32>\n  }\n}\n",
     "line 3:10: decomposition @d does not have the composite's signature"},
    /* a decomposition that does not say what the composite means */
    {HEAD "    %0 = stablehlo.composite \"tessera.softmax\" %arg0 {decomposition = @d} : (tensor<2xf32>) -> tensor<2xf32>\n"
          "    return %0 : tensor<2xf32>\n  }\n  func.func private @d(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n    return %arg0 : tensor<2xf32>\n  }\n}\n",
     "line 3:10: decomposition @d is not Tessera's expansion of tessera.softmax"},
    /* no @main */
    {"module @m {\n  func.func private @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n    return %arg0 : tensor<2xf32>\n  }\n}\n", "line 6:1: no @main function"},
    /* bad dot_general dimensions */
    {HEAD "    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [3] x [0] : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>\n" TAIL,
     "line 3:10: stablehlo.dot_general: batching/contracting dimensions must be distinct, in range and paired"},
    /* integer constant out of range */
    {HEAD "    %c = stablehlo.constant dense<300> : tensor<i8>\n" TAIL, "line 3:35: 300 does not fit tensor<i8>"},
    /* ragged integer list */
    {HEAD "    %c = stablehlo.constant dense<[[1, 2], [3]]> : tensor<2x2xi32>\n" TAIL, "line 3:47: ragged constant: lists of 2 and 1 elements"},
    /* unterminated string */
    {"module @m {\n  func.func public @main(%arg0: tensor<2xf32> {tessera.name = \"abc\n" TAIL, "line 2:63: unterminated string"},
    /* the first result of an argmax reduce */
    {"module @m {\n  func.func public @main(%arg0: tensor<3xf32>) -> tensor<f32> {\n"
     "    %i = stablehlo.iota dim = 0 : tensor<3xi32>\n    %v = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
     "    %z = stablehlo.constant dense<0> : tensor<i32>\n"
     "    %r:2 = \"stablehlo.reduce\"(%arg0, %i, %v, %z) <{dimensions = array<i64: 0>}> ({\n"
     "    ^bb0(%a: tensor<f32>, %ai: tensor<i32>, %b: tensor<f32>, %bi: tensor<i32>):\n"
     "      stablehlo.return %a, %ai : tensor<f32>, tensor<i32>\n"
     "    }) : (tensor<3xf32>, tensor<3xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)\n"
     "    return %r#0 : tensor<f32>\n  }\n}\n",
     "line 6:12: unsupported two-operand stablehlo.reduce: only the argmax body is supported"},
    /* two functions of one name */
    {"module @m {\n  func.func private @f() {\n    return\n  }\n  func.func private @f() {\n    return\n  }\n}\n", "line 5:21: redefinition of @f"},
    /* a splat that would expand far beyond the text */
    {HEAD "    %c = stablehlo.constant dense<0x00000000> : tensor<5000x5000xf32>\n" TAIL, "line 3:35: constants expand to more than 64 bytes per byte of text"},
    /* text after the module */
    {HEAD "    %0 = stablehlo.add %arg0, %arg1 : tensor<2xf32>\n" TAIL "garbage", "line 7:1: text after the module: 'garbage'"},
};

static void test_malformed(void)
{
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        ts_error err;
        memset(&err, 0, sizeof(err));
        ts_graph *g = read_graph(bad_cases[i].text, &err);
        CHECK(g == NULL);
        ts_graph_destroy(g);
        if (!strstr(err.message, bad_cases[i].message)) fprintf(stderr, "case %zu:\n", i);
        CHECK_CONTAINS(err.message, bad_cases[i].message);
        CHECK(strncmp(err.message, "test.mlir: line ", 16) == 0);
    }
}

/* ------------------------------------------------------------------ (d) a real model */

static const ts_tensor_info *find_weight(void *self, const char *name, int rank, const int64_t *dims)
{
    (void)rank, (void)dims;
    return ts_checkpoint_find(self, name);
}

/* Runs g with the executor: weights from the checkpoint, the given tokens, zeroed caches. Returns
 * owned copies of every output. */
static void **run_decoder(const ts_graph *g, ts_checkpoint *ckpt, const int32_t *tokens, int n_tokens)
{
    ts_error err;
    void **params = calloc((size_t)g->n_parameters + 1, sizeof(void *));
    bool owned[4096] = {false};
    int32_t positions[64], starts[1] = {0};
    for (int i = 0; i < n_tokens; i++) positions[i] = i;
    int32_t first_input = ts_decoder_first_input(g);
    for (int i = 0; i < g->n_nodes; i++) {
        const ts_node *n = &g->nodes[i];
        if (n->op != TS_OP_PARAMETER) continue;
        int k = n->attrs.parameter.index;
        if (n->attrs.parameter.role == TS_PARAM_WEIGHT) {
            params[k] = (void *)ts_checkpoint_find(ckpt, n->name)->data;
        } else if (k == first_input) {
            params[k] = (void *)tokens;
        } else if (k == first_input + 1) {
            params[k] = positions;
        } else if (k == first_input + 2) {
            params[k] = starts;
        } else {
            params[k] = calloc(1, ts_type_bytes(&n->type));
            owned[k] = true;
        }
    }
    ts_context *ctx = make_ctx();
    ts_program *prog = NULL;
    const void **o = calloc((size_t)g->n_outputs + 1, sizeof(void *));
    void **outs = NULL;
    if (ts_program_create(g, ctx, &prog, &err) == TS_OK && ts_program_run(prog, params, o, &err) == TS_OK) {
        outs = calloc((size_t)g->n_outputs + 1, sizeof(void *));
        for (int k = 0; k < g->n_outputs; k++) {
            size_t bytes = ts_type_bytes(ts_graph_type(g, g->outputs[k]));
            outs[k] = malloc(bytes + 1);
            memcpy(outs[k], o[k], bytes);
        }
    } else {
        fprintf(stderr, "decoder run: %s\n", err.message);
    }
    ts_program_destroy(prog);
    ts_context_destroy(ctx);
    free(o);
    for (int k = 0; k < g->n_parameters && k < 4096; k++)
        if (owned[k]) free(params[k]);
    free(params);
    return outs;
}

/* The decoder graph exactly as engine/model.c builds it, weights from `weights_folder` (of the
 * fixture: model holds f32 weights, model-bf16 the same values as bf16). */
static void qwen2_round_trip(const char *weights_folder)
{
    const char *root = getenv("TS_ROOT") ? getenv("TS_ROOT") : ".";
    char dir[1024], wdir[1024];
    snprintf(dir, sizeof(dir), "%s/tests/fixtures/qwen2/model", root);
    snprintf(wdir, sizeof(wdir), "%s/tests/fixtures/qwen2/%s", root, weights_folder);
    ts_error err;
    ts_model_config cfg;
    ts_decoder_spec spec;
    ts_checkpoint *ckpt = NULL;
    CHECK(ts_model_config_load(dir, &cfg, &err) == TS_OK);
    CHECK(ts_decoder_spec_init(&cfg, &spec, &err) == TS_OK);
    CHECK(ts_checkpoint_open(wdir, &ckpt, &err) == TS_OK);
    if (!ckpt) {
        fprintf(stderr, "qwen2 fixture: %s\n", err.message);
        return;
    }
    ts_weight_source weights = {find_weight, ckpt};
    ts_step_shape shape = {.n_seqs = 1, .n_tokens = {5}, .capacity = 8, .all_logits = true, .hidden_states = true};
    ts_graph *g;
    ts_graph_create(&g, &err);
    CHECK(ts_decoder_build(g, &spec, &weights, &shape, &err) == TS_OK);
    char *text = print_graph(g, "qwen2");
    REQUIRE(text != NULL);
    if (text) dump(weights_folder, text);
    ts_graph *back = text ? read_graph(text, &err) : NULL;
    CHECK(back != NULL);
    if (!back) fprintf(stderr, "qwen2 read: %s\n", err.message);
    char *again = back ? print_graph(back, "qwen2") : NULL;
    CHECK(again && strcmp(text, again) == 0);
    CHECK(back && same_structure(g, back));
    CHECK(text && strstr(text, "tessera.name = \"model.layers.0.self_attn.q_proj.weight\", tessera.role = \"weight\""));
    CHECK(text && strstr(text, "stablehlo.composite \"tessera.attention\""));

    int32_t tokens[5] = {9, 14, 891, 452, 1088};
    void **want = run_decoder(g, ckpt, tokens, 5);
    void **got = back ? run_decoder(back, ckpt, tokens, 5) : NULL;
    CHECK(want && got);
    if (want && got) {
        /* logits: f32[5, vocab] */
        const ts_type *lt = ts_graph_type(g, g->outputs[0]);
        int64_t n = ts_type_elements(lt);
        double worst = 0;
        for (int64_t i = 0; i < n; i++) worst = fmax(worst, fabs((double)((float *)want[0])[i] - ((float *)got[0])[i]));
        CHECK(worst <= 1e-6);
        /* Same graph, same kernels: every output (logits, caches, hidden states) to the bit. */
        for (int k = 0; k < g->n_outputs; k++) CHECK(memcmp(want[k], got[k], ts_type_bytes(ts_graph_type(g, g->outputs[k]))) == 0);
        CHECK_INT_EQ(lt->dims[1], spec.vocab);
    }
    free_outputs(g, want);
    if (back) free_outputs(back, got);
    free(again);
    free(text);
    ts_graph_destroy(back);
    ts_graph_destroy(g);
    ts_checkpoint_close(ckpt);
}

static void test_qwen2_round_trip(void) { qwen2_round_trip("model"); }
static void test_qwen2_bf16_round_trip(void) { qwen2_round_trip("model-bf16"); }

int main(void)
{
    RUN(test_elementwise_round_trip);
    RUN(test_shape_round_trip);
    RUN(test_composite_round_trip);
    RUN(test_qlinear_round_trip);
    RUN(test_lora_linear_round_trip);
    RUN(test_decompositions_match_fused);
    RUN(test_every_op_covered);
    RUN(test_text_add);
    RUN(test_text_donation);
    RUN(test_text_constants);
    RUN(test_text_reduce_sum);
    RUN(test_text_composite);
    RUN(test_read_variations);
    RUN(test_malformed);
    RUN(test_qwen2_round_trip);
    RUN(test_qwen2_bf16_round_trip);
    return check_finish();
}
