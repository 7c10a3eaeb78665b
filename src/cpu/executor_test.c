/* executor_test.c — every fused composite agrees with its decomposition run by the reference
 * evaluator (max relative error ≤ 1e-5, f32, random inputs, odd sizes, bf16/f16 weights), with
 * 1 and 3 threads; the planner reuses memory and updates state parameters in place. */
#include "base/context.h"
#include "cpu/executor.h"
#include "cpu/reference.h"
#include "graph/decompose.h"
#include "check.h"

#include <math.h>

static float frand(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return ((float)(*s >> 8) / 16777216.0f) * 2.0f - 1.0f;
}

/* Random bytes for a parameter of type t (floats in [-1, 1), ints in [0, int_range)). */
static void *random_param(const ts_type *t, uint32_t *seed, int int_range)
{
    int64_t n = ts_type_elements(t);
    void *p = calloc(1, ts_type_bytes(t) + 1);
    for (int64_t i = 0; i < n; i++) {
        double v = t->dtype == TS_DTYPE_I32 ? (double)((*seed = *seed * 1664525u + 1013904223u) >> 8) / 16777216.0 * int_range : frand(seed);
        ts_reference_set(t->dtype, p, i, t->dtype == TS_DTYPE_I32 ? floor(v) : v);
    }
    return p;
}

/* Runs g through the executor and through decompose + reference; returns the max relative error
 * over all outputs (relative to each output's max |ref|). */
static double compare_fused(ts_graph *g, ts_context *ctx, void **params)
{
    ts_error err;
    ts_program *prog;
    if (ts_program_create(g, ctx, &prog, &err) != TS_OK) {
        fprintf(stderr, "program: %s\n", err.message);
        return INFINITY;
    }
    const void *outs[8];
    if (ts_program_run(prog, params, outs, &err) != TS_OK) {
        fprintf(stderr, "run: %s\n", err.message);
        ts_program_destroy(prog);
        return INFINITY;
    }
    ts_graph *d;
    void **vals;
    if (ts_graph_decompose(g, &d, NULL, &err) != TS_OK || ts_reference_run(d, (const void *const *)params, &vals, &err) != TS_OK) {
        fprintf(stderr, "reference: %s\n", err.message);
        ts_program_destroy(prog);
        return INFINITY;
    }
    double worst = 0;
    for (int k = 0; k < g->n_outputs; k++) {
        const ts_type *t = ts_graph_type(g, g->outputs[k]);
        int64_t n = ts_type_elements(t);
        double scale = 0, diff = 0;
        for (int64_t i = 0; i < n; i++) {
            double r = ts_reference_get(t->dtype, vals[d->outputs[k]], i), o = ts_reference_get(t->dtype, outs[k], i);
            scale = fmax(scale, fabs(r));
            if (isnan(r) != isnan(o)) diff = INFINITY;
            else if (!isnan(r)) diff = fmax(diff, fabs(r - o));
        }
        worst = fmax(worst, diff / fmax(scale, 1e-30));
    }
    ts_reference_free(d, vals);
    ts_graph_destroy(d);
    ts_program_destroy(prog);
    return worst;
}

static ts_context *make_ctx(int threads)
{
    ts_context *ctx;
    ts_error err;
    ts_context_options o = {.n_threads = threads, .log_level = TS_LOG_WARN};
    ts_context_create(&o, &ctx, &err);
    return ctx;
}

static ts_type T(ts_dtype d, int r, int64_t a, int64_t b, int64_t c)
{
    int64_t dims[3] = {a, b, c};
    return ts_type_make(d, r, dims);
}

typedef struct {
    ts_graph *g;
    void *params[8];
    int n;
    uint32_t seed;
} builder;

static ts_value param(builder *b, const char *name, ts_type t, int int_range)
{
    b->params[b->n++] = random_param(&t, &b->seed, int_range);
    return ts_graph_parameter(b->g, name, TS_PARAM_INPUT, t);
}

static void finish(builder *b, ts_value out, ts_context *ctx, const char *what, double tol)
{
    ts_graph_set_outputs(b->g, &out, 1);
    double e = compare_fused(b->g, ctx, b->params);
    if (!(e <= tol) || tol > 1e-5) fprintf(stderr, "  %s: max relative error %g (bound %g)\n", what, e, tol);
    CHECK(e <= tol);
    for (int i = 0; i < b->n; i++) free(b->params[i]);
    ts_graph_destroy(b->g);
}

static void start(builder *b, uint32_t seed)
{
    ts_error err;
    memset(b, 0, sizeof(*b));
    b->seed = seed;
    ts_graph_create(&b->g, &err);
}

static void test_composites_match_decompositions(void)
{
    static const ts_dtype wdt[3] = {TS_DTYPE_F32, TS_DTYPE_BF16, TS_DTYPE_F16};
    for (int threads = 1; threads <= 3; threads += 2) {
        ts_context *ctx = make_ctx(threads);
        builder b;
        for (int w = 0; w < 3; w++) {
            start(&b, 1 + w);
            ts_value x = param(&b, "x", T(TS_DTYPE_F32, 2, 5, 67, 0), 0);
            ts_value wt = param(&b, "w", T(wdt[w], 2, 33, 67, 0), 0);
            ts_value bias = param(&b, "b", T(wdt[w], 1, 33, 0, 0), 0);
            finish(&b, ts_graph_linear(b.g, x, wt, bias), ctx, "linear", 1e-5);

            start(&b, 10 + w);
            x = param(&b, "x", T(TS_DTYPE_F32, 2, 4, 37, 0), 0);
            ts_value gw = param(&b, "g", T(wdt[w], 2, 45, 37, 0), 0);
            ts_value uw = param(&b, "u", T(wdt[w], 2, 45, 37, 0), 0);
            ts_value dw = param(&b, "d", T(wdt[w], 2, 37, 45, 0), 0);
            finish(&b, ts_graph_gated_mlp(b.g, x, gw, uw, dw, (ts_activation)w), ctx, "gated_mlp", 1e-5);

            start(&b, 20 + w);
            ts_value table = param(&b, "table", T(wdt[w], 2, 50, 19, 0), 0);
            ts_value ids = param(&b, "ids", T(TS_DTYPE_I32, 1, 7, 0, 0), 50);
            finish(&b, ts_graph_embedding(b.g, table, ids), ctx, "embedding", 0);

            start(&b, 30 + w);
            x = param(&b, "x", T(TS_DTYPE_F32, 3, 3, 2, 61), 0);
            ts_value nw = param(&b, "w", T(wdt[w], 1, 61, 0, 0), 0);
            finish(&b, ts_graph_rms_norm(b.g, x, nw, 1e-6, w == 2 ? 1.0 : 0.0), ctx, "rms_norm", 1e-5);

            start(&b, 40 + w);
            x = param(&b, "x", T(TS_DTYPE_F32, 2, 6, 61, 0), 0);
            nw = param(&b, "w", T(wdt[w], 1, 61, 0, 0), 0);
            ts_value nb = param(&b, "b", T(wdt[w], 1, 61, 0, 0), 0);
            finish(&b, ts_graph_layer_norm(b.g, x, nw, nb, 1e-5), ctx, "layer_norm", 1e-5);
        }
        start(&b, 50);
        ts_value x = param(&b, "x", T(TS_DTYPE_F32, 2, 7, 33, 0), 0);
        ts_value sb = param(&b, "bias", T(TS_DTYPE_F32, 2, 7, 33, 0), 0);
        finish(&b, ts_graph_softmax(b.g, x, sb), ctx, "softmax", 1e-5);

        /* erf (the fused kernel's erff against the StableHLO expansion) over [-4, 4]. */
        start(&b, 55);
        x = param(&b, "x", T(TS_DTYPE_F32, 2, 9, 129, 0), 0);
        int64_t wide_dims[2] = {9, 129};
        ts_value four = ts_graph_broadcast_in_dim(b.g, ts_graph_constant_f32(b.g, 4.0f), 2, wide_dims, NULL);
        finish(&b, ts_graph_unary(b.g, TS_OP_ERF, ts_graph_binary(b.g, TS_OP_MULTIPLY, x, four)), ctx, "erf", 1e-6);

        for (int variant = 0; variant < 4; variant++) {
            start(&b, 60 + variant);
            int rotary = variant & 2 ? 12 : 16;
            x = param(&b, "x", T(TS_DTYPE_F32, 3, 5, 3, 16), 0);
            ts_value c = param(&b, "cos", T(TS_DTYPE_F32, 2, 5, rotary / 2, 0), 0);
            ts_value s = param(&b, "sin", T(TS_DTYPE_F32, 2, 5, rotary / 2, 0), 0);
            finish(&b, ts_graph_rope(b.g, x, c, s, rotary, variant & 1), ctx, "rope", 1e-6);
        }
        /* attention: prefill (causal from 0), decode against a larger cache (causal from 9, so
         * slots ≥ 10 are ignored), non-causal with bias, soft-cap, a bf16 cache. */
        /* 5: a causal prefill of 150 rows (the GEMM path's blocks of 64, narrower key ranges for
         * the early blocks); 6: 70 rows appended at position 30 of a 120-row cache. */
        for (int variant = 0; variant < 7; variant++) {
            start(&b, 70 + variant);
            int64_t lq = variant == 1 ? 1 : variant == 5 ? 150 : variant == 6 ? 70 : 6;
            int64_t lk = variant == 1 ? 16 : variant == 5 ? 150 : variant == 6 ? 120 : 6;
            ts_value q = param(&b, "q", T(TS_DTYPE_F32, 3, lq, 4, 24), 0);
            ts_dtype kv = variant == 4 ? TS_DTYPE_BF16 : TS_DTYPE_F32;
            ts_value k = param(&b, "k", T(kv, 3, lk, 2, 24), 0);
            ts_value v = param(&b, "v", T(kv, 3, lk, 2, 24), 0);
            ts_value bias = variant == 2 ? param(&b, "bias", T(TS_DTYPE_F32, 2, lq, lk, 0), 0) : TS_NO_VALUE;
            ts_value start_pos = variant == 2 ? TS_NO_VALUE : ts_graph_constant_i32(b.g, variant == 1 ? 9 : variant == 6 ? 30 : 0);
            finish(&b, ts_graph_attention(b.g, q, k, v, bias, start_pos, 0.2, variant == 3 ? 3.0 : 0.0), ctx, "attention", 1e-5);
        }
        ts_context_destroy(ctx);
    }
}

/* moe_mlp: E = 4 and 8 experts, top 1, 2, 3 and all 8, renormalised or not, expert weights f32,
 * bf16 and f16 (router f32 or of the experts' dtype), every activation, odd sizes, 2-D and 3-D x,
 * 1 and 3 threads; also 40 rows, so an expert's tokens span several tasks. */
static void test_moe_mlp_matches_decomposition(void)
{
    static const struct {
        int64_t experts;
        int top_k;
        bool normalize;
        ts_dtype w, router;
        int64_t rows;
        bool rank3;
    } cases[] = {
        {4, 1, false, TS_DTYPE_F32, TS_DTYPE_F32, 7, false},
        {4, 2, true, TS_DTYPE_BF16, TS_DTYPE_BF16, 7, false},
        {8, 2, true, TS_DTYPE_F32, TS_DTYPE_F32, 5, true},
        {8, 1, true, TS_DTYPE_BF16, TS_DTYPE_F32, 7, false},
        {8, 3, false, TS_DTYPE_F16, TS_DTYPE_F16, 7, false},
        {4, 2, false, TS_DTYPE_F32, TS_DTYPE_BF16, 40, false},
        {8, 8, true, TS_DTYPE_BF16, TS_DTYPE_BF16, 3, false},
    };
    for (int threads = 1; threads <= 3; threads += 2) {
        ts_context *ctx = make_ctx(threads);
        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
            builder b;
            start(&b, 200 + (uint32_t)c);
            int64_t e = cases[c].experts, h = 37, inter = 13;
            ts_value x = cases[c].rank3
                             ? param(&b, "x", T(TS_DTYPE_F32, 3, 3, cases[c].rows, h), 0)
                             : param(&b, "x", T(TS_DTYPE_F32, 2, cases[c].rows, h, 0), 0);
            ts_value router = param(&b, "router", T(cases[c].router, 2, e, h, 0), 0);
            ts_value gate_up = param(&b, "gate_up", T(cases[c].w, 3, e, h, 2 * inter), 0);
            ts_value down = param(&b, "down", T(cases[c].w, 3, e, inter, h), 0);
            ts_value y = ts_graph_moe_mlp(b.g, x, router, gate_up, down, cases[c].top_k,
                                          cases[c].normalize, (ts_activation)(c % TS_ACT_COUNT));
            char what[64];
            snprintf(what, sizeof(what), "moe_mlp case %zu (%d threads)", c, threads);
            finish(&b, y, ctx, what, 1e-5);
        }
        ts_context_destroy(ctx);
    }
}

/* The row copies the executor runs for gather, dynamic_slice and dynamic_update_slice (a ring
 * KV cache's) and its gather on the last axis (GPTQ act order's x[..., perm]) equal the reference
 * evaluator's, out-of-range starts clamped as StableHLO clamps them: indices and starts drawn
 * from −4 … 15 over 10 rows (5 columns), f32 and bf16, several seeds. */
static void test_row_copies_match_reference(void)
{
    ts_context *ctx = make_ctx(1);
    for (uint32_t seed = 1; seed <= 6; seed++)
        for (int bf16 = 0; bf16 < 2; bf16++) {
            ts_dtype dt = bf16 ? TS_DTYPE_BF16 : TS_DTYPE_F32;
            int64_t sizes[3] = {4, 3, 5};
            ts_dims offset = {2, {1, 2}}, collapsed = {1, {0}}, slice = {3, {1, 3, 5}};
            ts_dims col_offset = {2, {0, 1}}, last = {1, {2}}, col_slice = {3, {10, 3, 1}};
            builder b;
            start(&b, seed);
            ts_value shift = ts_graph_constant_i32(b.g, 4);
            int64_t seven = 7;
            ts_value x = param(&b, "x", T(dt, 3, 10, 3, 5), 0);
            ts_value idx = ts_graph_binary(b.g, TS_OP_SUBTRACT,
                                           param(&b, "idx", T(TS_DTYPE_I32, 1, 7, 0, 0), 20),
                                           ts_graph_broadcast_in_dim(b.g, shift, 1, &seven, NULL));
            ts_value at0 = ts_graph_binary(
                b.g, TS_OP_SUBTRACT,
                ts_graph_reshape(b.g, param(&b, "at", T(TS_DTYPE_I32, 1, 1, 0, 0), 20), 0, NULL),
                shift);
            ts_value zero = ts_graph_constant_i32(b.g, 0), at[3] = {at0, zero, zero};
            ts_value outs[4] = {
                ts_graph_gather(b.g, x, idx, &offset, &collapsed, &collapsed, 1, &slice),
                ts_graph_dynamic_slice(b.g, x, at, sizes),
                ts_graph_dynamic_update_slice(b.g, x, param(&b, "u", T(dt, 3, 4, 3, 5), 0), at),
                ts_graph_gather(b.g, x, idx, &col_offset, &last, &last, 1, &col_slice)};
            CHECK(ts_graph_type(b.g, outs[3])->dims[2] == 7);
            ts_graph_set_outputs(b.g, outs, 4);
            double e = compare_fused(b.g, ctx, b.params);
            CHECK(e == 0);
            for (int i = 0; i < b.n; i++)
                free(b.params[i]);
            ts_graph_destroy(b.g);
        }
    ts_context_destroy(ctx);
}

/* A prefill-sized gather on the last axis (x [2, 150, 256], 256 indices in −4 … 15 and beyond:
 * random i32 below 20 less 4, so clamped at 0) runs in tasks over both threads: the reference's. */
static void test_column_gather_over_threads(void)
{
    ts_context *ctx = make_ctx(2);
    builder b;
    start(&b, 7);
    ts_dims offset = {2, {0, 1}}, last = {1, {2}}, slice = {3, {2, 150, 1}};
    int64_t n = 256;
    ts_value x = param(&b, "x", T(TS_DTYPE_F32, 3, 2, 150, 256), 0);
    ts_value idx = ts_graph_binary(b.g, TS_OP_SUBTRACT, param(&b, "idx", T(TS_DTYPE_I32, 1, 256, 0, 0), 20),
                                   ts_graph_broadcast_in_dim(b.g, ts_graph_constant_i32(b.g, 4), 1, &n, NULL));
    finish(&b, ts_graph_gather(b.g, x, idx, &offset, &last, &last, 1, &slice), ctx, "column gather, 2 threads", 0);
    ts_context_destroy(ctx);
}

/* The builder's type rules name what is wrong. */
static void test_moe_mlp_type_errors(void)
{
    static const struct {
        int64_t gu[3], down[3];
        int top_k;
        const char *message;
    } cases[] = {
        {{4, 16, 10}, {4, 5, 16}, 5, "top_k 5 outside 1..4"},
        {{4, 16, 9}, {4, 5, 16}, 2, "gate_up must be [4, 16, 2·inter]"},
        {{3, 16, 10}, {4, 5, 16}, 2, "gate_up must be [4, 16, 2·inter]"},
        {{4, 16, 10}, {4, 16, 5}, 2, "down must be [4, 5, 16]"},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        ts_graph *g;
        ts_error err;
        ts_graph_create(&g, &err);
        ts_value x = ts_graph_parameter(g, "x", TS_PARAM_INPUT, T(TS_DTYPE_F32, 2, 3, 16, 0));
        ts_value r = ts_graph_parameter(g, "r", TS_PARAM_WEIGHT, T(TS_DTYPE_F32, 2, 4, 16, 0));
        ts_value gu = ts_graph_parameter(g, "gu", TS_PARAM_WEIGHT,
                                         ts_type_make(TS_DTYPE_F32, 3, cases[c].gu));
        ts_value d = ts_graph_parameter(g, "d", TS_PARAM_WEIGHT,
                                        ts_type_make(TS_DTYPE_F32, 3, cases[c].down));
        CHECK(ts_graph_moe_mlp(g, x, r, gu, d, cases[c].top_k, true, TS_ACT_SILU) == TS_NO_VALUE);
        CHECK(ts_graph_status(g, &err) != TS_OK);
        CHECK_CONTAINS(err.message, cases[c].message);
        ts_graph_destroy(g);
    }
}

static void test_planner_reuses_and_updates_state_in_place(void)
{
    ts_context *ctx = make_ctx(2);
    ts_graph *g;
    ts_error err;
    ts_graph_create(&g, &err);
    int64_t d[2] = {64, 64};
    ts_type t = ts_type_make(TS_DTYPE_F32, 2, d);
    ts_value x = ts_graph_parameter(g, "x", TS_PARAM_INPUT, t);
    ts_value cache = ts_graph_parameter(g, "cache", TS_PARAM_STATE, t);
    /* A chain of 10 adds: only two intermediates are ever live at once. */
    ts_value y = x;
    for (int i = 0; i < 10; i++) y = ts_graph_binary(g, TS_OP_ADD, y, x);
    int64_t rd[2] = {1, 64};
    ts_value row = ts_graph_slice(g, y, (int64_t[]){0, 0}, rd, NULL);
    ts_value three = ts_graph_constant_i32(g, 3), zero = ts_graph_constant_i32(g, 0);
    ts_value updated = ts_graph_dynamic_update_slice(g, cache, row, (ts_value[]){three, zero});
    ts_value outs[2] = {y, updated};
    ts_graph_set_outputs(g, outs, 2);
    ts_program *prog;
    REQUIRE_INT_EQ(ts_program_create(g, ctx, &prog, &err), TS_OK);
    size_t one = 64 * 64 * 4;
    CHECK(ts_program_workspace_bytes(prog) <= 3 * one);
    float *xv = calloc(64 * 64, 4), *cv = calloc(64 * 64, 4);
    for (int i = 0; i < 64 * 64; i++) xv[i] = (float)i;
    void *params[2] = {xv, cv};
    const void *res[2];
    CHECK_INT_EQ(ts_program_run(prog, params, res, &err), TS_OK);
    CHECK(res[1] == cv); /* in place */
    CHECK(((const float *)res[0])[5] == 55.0f);
    CHECK(cv[3 * 64 + 5] == 55.0f && cv[2 * 64 + 5] == 0.0f);
    ts_program_destroy(prog);
    free(xv);
    free(cv);
    ts_graph_destroy(g);
    ts_context_destroy(ctx);
}

/* An update may not be written in place while an alias of its operand is still to be read. */
static void test_update_waits_for_aliases(void)
{
    ts_context *ctx = make_ctx(1);
    ts_graph *g;
    ts_error err;
    ts_graph_create(&g, &err);
    int64_t d4 = 4, d22[2] = {2, 2}, d1 = 1;
    ts_value a = ts_graph_parameter(g, "a", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_F32, 1, &d4));
    ts_value x = ts_graph_binary(g, TS_OP_ADD, a, a); /* work: 2a */
    ts_value view = ts_graph_reshape(g, x, 2, d22);   /* an alias of x, updated once … */
    int64_t d11[2] = {1, 1};
    ts_value nine = ts_graph_reshape(g, ts_graph_constant_f32(g, 9.0f), 2, d11);
    ts_value zero = ts_graph_constant_i32(g, 0);
    ts_value upd = ts_graph_dynamic_update_slice(g, view, nine, (ts_value[]){zero, zero});
    ts_value late = ts_graph_binary(g, TS_OP_ADD, x, x); /* … while x itself is read afterwards */
    (void)d1;
    ts_value outs[2] = {late, upd};
    ts_graph_set_outputs(g, outs, 2);
    ts_program *prog;
    REQUIRE_INT_EQ(ts_program_create(g, ctx, &prog, &err), TS_OK);
    float av[4] = {1, 2, 3, 4};
    void *params[1] = {av};
    const void *res[2];
    CHECK_INT_EQ(ts_program_run(prog, params, res, &err), TS_OK);
    const float *l = res[0], *u = res[1];
    CHECK(l[0] == 4 && l[3] == 16); /* 2·(2·a), untouched by the update */
    CHECK(u[0] == 9 && u[1] == 4 && u[3] == 8);
    ts_program_destroy(prog);
    ts_graph_destroy(g);
    ts_context_destroy(ctx);
}

/* A donated cache: the update is planned in place over the argument (the result is its buffer,
 * ts_program_output_in_place says so), a contiguous slice of it is a view at an offset, a
 * strided-window slice is still copied; reading the old cache after the update makes the plan
 * copy instead, and says so. */
static void test_slice_views_and_donated_cache(void)
{
    ts_context *ctx = make_ctx(1);
    for (int late_read = 0; late_read < 2; late_read++) {
        ts_graph *g;
        ts_error err;
        ts_graph_create(&g, &err);
        int64_t cd[3] = {2, 8, 2}, rd[3] = {1, 1, 2};
        ts_value row = ts_graph_parameter(g, "row", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_F32, 3, rd));
        ts_value cache = ts_graph_parameter(g, "cache", TS_PARAM_STATE, ts_type_make(TS_DTYPE_F32, 3, cd));
        ts_value at[3] = {ts_graph_constant_i32(g, 1), ts_graph_constant_i32(g, 5), ts_graph_constant_i32(g, 0)};
        ts_value upd = ts_graph_dynamic_update_slice(g, cache, row, at);
        ts_value slot1 = ts_graph_slice(g, upd, (int64_t[]){1, 0, 0}, (int64_t[]){2, 8, 2}, NULL);    /* contiguous: a view */
        ts_value column = ts_graph_slice(g, upd, (int64_t[]){0, 5, 0}, (int64_t[]){2, 6, 2}, NULL);   /* two runs: a copy */
        ts_value outs[4] = {ts_graph_binary(g, TS_OP_ADD, slot1, slot1), ts_graph_binary(g, TS_OP_ADD, column, column), upd,
                            late_read ? ts_graph_binary(g, TS_OP_ADD, cache, cache) : column};
        ts_graph_set_outputs(g, outs, 4);
        ts_program *prog;
        REQUIRE_INT_EQ(ts_program_create(g, ctx, &prog, &err), TS_OK);
        CHECK_INT_EQ(ts_program_output_in_place(prog, 2, 1), !late_read);
        CHECK(!ts_program_output_in_place(prog, 2, 0) && !ts_program_output_in_place(prog, 0, 1));
        float rv[2] = {7, 8}, cv[32];
        for (int i = 0; i < 32; i++) cv[i] = (float)i;
        void *params[2] = {rv, cv};
        const void *res[4];
        CHECK_INT_EQ(ts_program_run(prog, params, res, &err), TS_OK);
        CHECK_INT_EQ(res[2] == (const void *)cv, !late_read);
        const float *s1 = res[0], *col = res[1], *u = res[2];
        CHECK(s1[0] == 32 && s1[5 * 2] == 14 && s1[5 * 2 + 1] == 16 && s1[15] == 62); /* 2 · slot 1, its row 5 = (7, 8) */
        CHECK(col[0] == 20 && col[1] == 22 && col[2] == 14 && col[3] == 16);           /* 2 · row 5 of slot 0, then of slot 1 */
        CHECK(u[16 + 10] == 7 && u[16 + 11] == 8 && u[10] == 10 && u[31] == 31);
        if (late_read) CHECK(((const float *)res[3])[26] == 52 && cv[26] == 26); /* the old cache, untouched */
        ts_program_destroy(prog);
        ts_graph_destroy(g);
    }
    ts_context_destroy(ctx);
}

static void test_unbound_parameter_is_an_error(void)
{
    ts_context *ctx = make_ctx(1);
    ts_graph *g;
    ts_error err;
    ts_graph_create(&g, &err);
    ts_value x = ts_graph_parameter(g, "tokens", TS_PARAM_INPUT, T(TS_DTYPE_F32, 1, 4, 0, 0));
    ts_value y = ts_graph_unary(g, TS_OP_NEGATE, x);
    ts_graph_set_outputs(g, &y, 1);
    ts_program *prog;
    REQUIRE_INT_EQ(ts_program_create(g, ctx, &prog, &err), TS_OK);
    void *params[1] = {NULL};
    const void *res[1];
    CHECK_INT_EQ(ts_program_run(prog, params, res, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "parameter 0 (tokens) is not bound");
    ts_program_destroy(prog);
    ts_graph_destroy(g);
    ts_context_destroy(ctx);
}

/* x rounded to bf16 in place (nearest even): inputs the bf16 policies take exactly. */
static void round_to_bf16(float *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, &x[i], 4);
        bits = (bits + 0x7fff + ((bits >> 16) & 1)) & 0xffff0000u;
        memcpy(&x[i], &bits, 4);
    }
}

static bool bf16_context(const char *cpu_level, ts_context **ctx)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2, .compute = "bf16", .cpu_level = cpu_level};
    if (!(ts_cpu_features() & (TS_CPU_AVX512_BF16 | TS_CPU_AMX_BF16))) {
        /* Without bf16 units the precision is refused up front, never run some other way. */
        CHECK_INT_EQ(ts_context_create(&o, ctx, &err), TS_ERR_UNSUPPORTED);
        CHECK(strstr(err.message, "AVX512_BF16") != NULL);
        return false;
    }
    bool made = ts_context_create(&o, ctx, &err) == TS_OK;
    CHECK(made);
    return made;
}

/* bf16 compute: a many-row linear with bf16 weights equals the f32 product of bf16-rounded
 * activations, to f32 accumulation error — through our VDPBF16PS kernel (cpu level
 * avx512_bf16) and through oneDNN (level avx512: no native bf16 kernel, as on AMX machines).
 * The gated MLP (its act(gate)·up rounded to bf16 for the down projection, 2^-9) and attention
 * (keys, values and the softmax weights in bf16, in a graph with bf16 weights) within 1e-2 of
 * scale; an attention without bf16 weights in its graph stays f32 (1e-5). */
static void bf16_compute_linear(const char *cpu_level)
{
    ts_context *ctx;
    if (!bf16_context(cpu_level, &ctx)) return;
    builder b;
    ts_value x;
    /* 37 rows: the tiled GEMM; 1, 3 and 9: the decode row dots (bf16 products too, where the
     * kernels have them: one weight row, a pair, row groups), k odd for their tails. */
    static const int64_t rows[] = {37, 1, 3, 9}, ks[] = {200, 200, 131, 200};
    for (int c = 0; c < 4; c++) {
        start(&b, 99);
        x = param(&b, "x", T(TS_DTYPE_F32, 2, rows[c], ks[c], 0), 0);
        ts_value w = param(&b, "w", T(TS_DTYPE_BF16, 2, 70, ks[c], 0), 0);
        /* Round x to bf16 in place: then bf16 compute must agree with the f32 reference. */
        round_to_bf16(b.params[0], rows[c] * ks[c]);
        finish(&b, ts_graph_linear(b.g, x, w, TS_NO_VALUE), ctx, "bf16 linear", 1e-5);
    }
    /* A bf16 bias on the tiled GEMM (added as the kernel stores, widened once per call) and an
     * f32 one (read in place). */
    for (int c = 0; c < 2; c++) {
        start(&b, 97 + c);
        x = param(&b, "x", T(TS_DTYPE_F32, 2, 37, 200, 0), 0);
        ts_value w = param(&b, "w", T(TS_DTYPE_BF16, 2, 70, 200, 0), 0);
        ts_value bias = param(&b, "b", T(c ? TS_DTYPE_F32 : TS_DTYPE_BF16, 1, 70, 0, 0), 0);
        round_to_bf16(b.params[0], 37 * 200);
        finish(&b, ts_graph_linear(b.g, x, w, bias), ctx, "bf16 linear with bias", 1e-5);
    }
    for (int act = 0; act < 2; act++) {
        start(&b, 100 + act);
        x = param(&b, "x", T(TS_DTYPE_F32, 2, 37, 66, 0), 0);
        ts_value gw = param(&b, "g", T(TS_DTYPE_BF16, 2, 90, 66, 0), 0);
        ts_value uw = param(&b, "u", T(TS_DTYPE_BF16, 2, 90, 66, 0), 0);
        ts_value dw = param(&b, "d", T(TS_DTYPE_BF16, 2, 66, 90, 0), 0);
        round_to_bf16(b.params[0], 37 * 66);
        finish(&b, ts_graph_gated_mlp(b.g, x, gw, uw, dw, (ts_activation)act), ctx, "bf16 gated_mlp", 1e-2);
    }
    /* attention: a causal prefill of 150 rows (blocks of 64, the last block's keys end mid-panel),
     * 70 rows appended at 30 of a 120-row cache, non-causal with bias (in the softmax kernel's
     * passes), soft-cap (40 rows: the bf16 path); head widths 24 (a part panel) and 80 (two
     * panels and a half one). */
    for (int variant = 0; variant < 5; variant++) {
        start(&b, 110 + variant);
        int64_t lq = variant == 1 ? 70 : variant == 0 || variant == 4 ? 150 : 40;
        int64_t lk = variant == 1 ? 120 : lq;
        int64_t d = variant == 4 ? 80 : 24;
        ts_value q = param(&b, "q", T(TS_DTYPE_F32, 3, lq, 6, d), 0);
        ts_value k = param(&b, "k", T(TS_DTYPE_F32, 3, lk, 2, d), 0);
        /* v from a bf16-weight linear: bf16 attention is for models whose weights are. */
        ts_value xv = param(&b, "xv", T(TS_DTYPE_F32, 2, lk, 32, 0), 0);
        ts_value wv = param(&b, "wv", T(TS_DTYPE_BF16, 2, 2 * d, 32, 0), 0);
        int64_t vdims[3] = {lk, 2, d};
        ts_value v = ts_graph_reshape(b.g, ts_graph_linear(b.g, xv, wv, TS_NO_VALUE), 3, vdims);
        round_to_bf16(b.params[0], lq * 6 * d);
        round_to_bf16(b.params[1], lk * 2 * d);
        round_to_bf16(b.params[2], lk * 32);
        ts_value bias = variant == 2 ? param(&b, "bias", T(TS_DTYPE_F32, 2, lq, lk, 0), 0) : TS_NO_VALUE;
        ts_value start_pos = variant == 2 ? TS_NO_VALUE : ts_graph_constant_i32(b.g, variant == 1 ? 30 : 0);
        finish(&b, ts_graph_attention(b.g, q, k, v, bias, start_pos, 0.2, variant == 3 ? 3.0 : 0.0), ctx,
               "bf16 attention", 1e-2);
    }
    start(&b, 119);
    ts_value q = param(&b, "q", T(TS_DTYPE_F32, 3, 70, 6, 24), 0);
    ts_value k = param(&b, "k", T(TS_DTYPE_F32, 3, 70, 2, 24), 0);
    ts_value v = param(&b, "v", T(TS_DTYPE_F32, 3, 70, 2, 24), 0);
    finish(&b, ts_graph_attention(b.g, q, k, v, TS_NO_VALUE, ts_graph_constant_i32(b.g, 0), 0.2, 0.0), ctx,
           "bf16 policy, f32-weight attention", 1e-5);
    ts_context_destroy(ctx);
}

/* The q, k and v projections of one input share its bf16 copy, and nothing else may: two
 * linears of x, one of x + x (same shape, other bytes), one program run three times with other
 * x (bf16-exact, so the products are exact): every run within f32 summation error (1e-5 of
 * scale) of the reference evaluator's. */
static void test_bf16_copy_shared_per_value(void)
{
    ts_context *ctx;
    if (!bf16_context(NULL, &ctx)) return;
    builder b;
    start(&b, 120);
    ts_value x = param(&b, "x", T(TS_DTYPE_F32, 2, 33, 64, 0), 0);
    ts_value w1 = param(&b, "w1", T(TS_DTYPE_BF16, 2, 40, 64, 0), 0);
    ts_value w2 = param(&b, "w2", T(TS_DTYPE_BF16, 2, 40, 64, 0), 0);
    ts_value y = ts_graph_binary(b.g, TS_OP_ADD, ts_graph_linear(b.g, x, w1, TS_NO_VALUE), ts_graph_linear(b.g, x, w2, TS_NO_VALUE));
    ts_value x2 = ts_graph_binary(b.g, TS_OP_ADD, x, x);
    y = ts_graph_binary(b.g, TS_OP_SUBTRACT, y, ts_graph_linear(b.g, x2, w1, TS_NO_VALUE));
    ts_graph_set_outputs(b.g, &y, 1);
    ts_error err;
    ts_program *prog;
    ts_graph *d;
    REQUIRE_INT_EQ(ts_program_create(b.g, ctx, &prog, &err), TS_OK);
    REQUIRE_INT_EQ(ts_graph_decompose(b.g, &d, NULL, &err), TS_OK);
    for (int round = 0; round < 3; round++) {
        float *xv = b.params[0];
        for (int i = 0; i < 33 * 64; i++) xv[i] = xv[i] * -0.75f + (float)round * 0.125f;
        round_to_bf16(xv, 33 * 64);
        const void *out[1];
        void **vals;
        REQUIRE_INT_EQ(ts_program_run(prog, b.params, out, &err), TS_OK);
        REQUIRE_INT_EQ(ts_reference_run(d, (const void *const *)b.params, &vals, &err), TS_OK);
        const float *got = out[0], *want = vals[d->outputs[0]];
        double scale = 0, diff = 0;
        for (int i = 0; i < 33 * 40; i++) scale = fmax(scale, fabs(want[i])), diff = fmax(diff, fabs(want[i] - got[i]));
        if (!(diff <= 1e-5 * scale)) fprintf(stderr, "run %d: max error %g of scale %g\n", round, diff, scale);
        CHECK(diff <= 1e-5 * scale);
        ts_reference_free(d, vals);
    }
    ts_graph_destroy(d);
    ts_program_destroy(prog);
    for (int i = 0; i < b.n; i++) free(b.params[i]);
    ts_graph_destroy(b.g);
    ts_context_destroy(ctx);
}

/* The spelled-out SiLU·up (a quantized model's MLP between its qlinears) runs as one pass: the
 * same bits as the three nodes run apart (forced by making the logistic an output too, which
 * keeps it from being absorbed), for SiLU alone, SiLU·up and SiLU(x)·x, and quick GELU
 * (x · logistic(x · 1.702), the decomposition's spelling) alone and ·up, where the fused run
 * computes no logistic, product or broadcast node of its own (the profile's counts); odd sizes
 * spanning several chunks; and the reference's values to the logistic kernel's 3 ulp (1e-6 of
 * scale). */
static void test_silu_fusion_same_bits(void)
{
    ts_context *ctx = make_ctx(2);
    for (int variant = 0; variant < 5; variant++) {
        float *got[2] = {NULL, NULL};
        for (int apart = 0; apart < 2; apart++) {
            builder b;
            start(&b, 130 + variant);
            ts_value p = param(&b, "x", T(TS_DTYPE_F32, 2, 37, 301, 0), 0);
            ts_value u = param(&b, "u", T(TS_DTYPE_F32, 2, 37, 301, 0), 0);
            for (int i = 0; i < 37 * 301; i++) ((float *)b.params[0])[i] *= 6.0f;
            /* x a computed value, and a new value made between the SiLU and ·up (as up is in a
             * gated MLP): x must outlive its last reader in the graph, or that value takes its
             * bytes. */
            ts_value x = ts_graph_binary(b.g, TS_OP_ADD, p, p);
            ts_value l, y;
            if (variant >= 3) {
                ts_value gelu = ts_decompose_activation(b.g, x, TS_ACT_QUICK_GELU);
                l = ts_graph_node(b.g, gelu)->inputs[1];
                CHECK(ts_graph_node(b.g, l)->op == TS_OP_LOGISTIC);
                y = variant == 4 ? ts_graph_binary(b.g, TS_OP_MULTIPLY, gelu, ts_graph_binary(b.g, TS_OP_ADD, u, u)) : gelu;
            } else {
                l = ts_graph_unary(b.g, TS_OP_LOGISTIC, x);
                y = ts_graph_binary(b.g, TS_OP_MULTIPLY, l, x);
            }
            if (variant == 1) y = ts_graph_binary(b.g, TS_OP_MULTIPLY, ts_graph_binary(b.g, TS_OP_ADD, u, u), y);
            if (variant == 2) y = ts_graph_binary(b.g, TS_OP_MULTIPLY, y, x);
            ts_value outs[2] = {y, l};
            ts_graph_set_outputs(b.g, outs, apart ? 2 : 1);
            if (!apart) CHECK(compare_fused(b.g, ctx, b.params) <= 1e-6);
            ts_error err;
            ts_program *prog;
            REQUIRE_INT_EQ(ts_program_create(b.g, ctx, &prog, &err), TS_OK);
            const void *res[2];
            memset(ctx->profile_calls, 0, sizeof(ctx->profile_calls));
            ctx->profile = true;
            REQUIRE_INT_EQ(ts_program_run(prog, b.params, res, &err), TS_OK);
            ctx->profile = false;
            if (variant >= 3 && !apart)
                CHECK(ctx->profile_calls[TS_OP_LOGISTIC] == 0 && ctx->profile_calls[TS_OP_BROADCAST_IN_DIM] == 0 &&
                      ctx->profile_calls[TS_OP_MULTIPLY] == 1);
            got[apart] = malloc(sizeof(float) * 37 * 301);
            memcpy(got[apart], res[0], sizeof(float) * 37 * 301);
            ts_program_destroy(prog);
            for (int i = 0; i < b.n; i++) free(b.params[i]);
            ts_graph_destroy(b.g);
        }
        CHECK(memcmp(got[0], got[1], sizeof(float) * 37 * 301) == 0);
        free(got[0]), free(got[1]);
    }
    ts_context_destroy(ctx);
}

static void test_bf16_compute_linear(void)
{
    bf16_compute_linear(NULL);
    if (ts_cpu_features() & TS_CPU_AVX512) bf16_compute_linear("avx512");
}

int main(void)
{
    RUN(test_bf16_compute_linear);
    RUN(test_bf16_copy_shared_per_value);
    RUN(test_silu_fusion_same_bits);
    RUN(test_composites_match_decompositions);
    RUN(test_moe_mlp_matches_decomposition);
    RUN(test_row_copies_match_reference);
    RUN(test_column_gather_over_threads);
    RUN(test_moe_mlp_type_errors);
    RUN(test_planner_reuses_and_updates_state_in_place);
    RUN(test_update_waits_for_aliases);
    RUN(test_slice_views_and_donated_cache);
    RUN(test_unbound_parameter_is_an_error);
    return check_finish();
}
