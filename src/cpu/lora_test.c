/* lora_test.c — tessera.lora_linear (graph.h ts_graph_lora_linear): the fused CPU op equals its
 * decomposition (graph/decompose.c: gather, two batched dot_generals, multiply by the scale, add)
 * run by the reference evaluator, on a batch whose rows mix adapters 0 (none), 1 and 2 with
 * different ranks (the smaller zero-padded), with f32 and bf16 adapter stacks; rows with adapter 0
 * are bit-identical to the plain linear; a row's result does not depend on the other rows'
 * adapters; an index out of range is refused at run time; bad operands are refused by name. */
#include "base/context.h"
#include "cpu/executor.h"
#include "cpu/reference.h"
#include "graph/decompose.h"
#include "check.h"

#include <math.h>
#include <string.h>

enum { N = 5, IN = 7, OUT = 6, K = 3, R = 3 };

static float frand(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return ((float)(*s >> 8) / 16777216.0f) * 2.0f - 1.0f;
}

typedef struct {
    float x[N * IN], w[OUT * IN], a[K * R * IN], b[K * OUT * R], scale[K];
    int32_t index[N];
} operands;

static void make(operands *o, uint32_t seed)
{
    for (int i = 0; i < N * IN; i++) o->x[i] = frand(&seed);
    for (int i = 0; i < OUT * IN; i++) o->w[i] = frand(&seed);
    for (int i = 0; i < K * R * IN; i++) o->a[i] = frand(&seed);
    for (int i = 0; i < K * OUT * R; i++) o->b[i] = frand(&seed);
    /* adapter 0: none (zeros, scale 0); adapter 2 of rank 2, its third row/column zero-padded */
    memset(o->a, 0, sizeof(float) * R * IN);
    memset(o->b, 0, sizeof(float) * OUT * R);
    memset(o->a + (2 * R + 2) * IN, 0, sizeof(float) * IN);
    for (int j = 0; j < OUT; j++) o->b[(2 * OUT + j) * R + 2] = 0;
    o->scale[0] = 0, o->scale[1] = 2.0f, o->scale[2] = 0.5f;
    int32_t idx[N] = {1, 0, 2, 1, 0};
    memcpy(o->index, idx, sizeof(idx));
}

static ts_context *make_ctx(void)
{
    ts_context *ctx;
    ts_error err;
    ts_context_options opt = {.n_threads = 2, .log_level = TS_LOG_WARN};
    CHECK(ts_context_create(&opt, &ctx, &err) == TS_OK);
    return ctx;
}

/* The operands as parameters (b with rank b_rank: R, or a wrong one), then
 * y = lora_linear(x, w, a, b, scale, index) and z = linear(x, w) as the outputs. */
static ts_graph *build_typed(int64_t b_rank, ts_dtype ab)
{
    ts_graph *g;
    ts_error err;
    ts_graph_create(&g, &err);
    ts_value x = ts_graph_parameter(g, "x", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_F32, 2, (int64_t[]){N, IN}));
    ts_value w = ts_graph_parameter(g, "w", TS_PARAM_WEIGHT, ts_type_make(TS_DTYPE_F32, 2, (int64_t[]){OUT, IN}));
    ts_value a = ts_graph_parameter(g, "a", TS_PARAM_WEIGHT, ts_type_make(ab, 3, (int64_t[]){K, R, IN}));
    ts_value b = ts_graph_parameter(g, "b", TS_PARAM_WEIGHT, ts_type_make(ab, 3, (int64_t[]){K, OUT, b_rank}));
    ts_value s = ts_graph_parameter(g, "scale", TS_PARAM_WEIGHT, ts_type_make(TS_DTYPE_F32, 1, (int64_t[]){K}));
    ts_value i = ts_graph_parameter(g, "index", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 1, (int64_t[]){N}));
    ts_value outs[2] = {ts_graph_lora_linear(g, x, w, a, b, s, i), ts_graph_linear(g, x, w, TS_NO_VALUE)};
    ts_graph_set_outputs(g, outs, 2);
    return g;
}

static ts_graph *build(int64_t b_rank) { return build_typed(b_rank, TS_DTYPE_F32); }

static void test_fused_matches_decomposition_and_by_hand(void)
{
    operands o;
    make(&o, 7);
    ts_context *ctx = make_ctx();
    ts_graph *g = build(R), *d = NULL;
    ts_program *prog = NULL;
    ts_error err;
    const void *out[2];
    void *params[6] = {o.x, o.w, o.a, o.b, o.scale, o.index};
    CHECK(ts_graph_status(g, &err) == TS_OK);
    CHECK(ts_program_create(g, ctx, &prog, &err) == TS_OK);
    CHECK(prog && ts_program_run(prog, params, out, &err) == TS_OK);
    CHECK(ts_graph_decompose(g, &d, NULL, &err) == TS_OK);
    void **vals = NULL;
    CHECK(d && ts_reference_run(d, (const void *const *)params, &vals, &err) == TS_OK);
    double worst = 0, worst_hand = 0;
    for (int r = 0; r < N; r++)
        for (int c = 0; c < OUT; c++) {
            /* by hand, in double: base + (B·(A·x))·scale */
            int k = o.index[r];
            double base = 0, delta = 0;
            for (int i = 0; i < IN; i++) base += (double)o.x[r * IN + i] * o.w[c * IN + i];
            for (int j = 0; j < R; j++) {
                double t = 0;
                for (int i = 0; i < IN; i++) t += (double)o.a[(k * R + j) * IN + i] * o.x[r * IN + i];
                delta += (double)o.b[(k * OUT + c) * R + j] * t;
            }
            double want = base + delta * o.scale[k];
            float fused = ((const float *)out[0])[r * OUT + c];
            float dec = ((const float *)vals[d->outputs[0]])[r * OUT + c];
            worst = fmax(worst, fabs((double)fused - dec));
            worst_hand = fmax(worst_hand, fabs((double)fused - want));
            /* adapter 0 rows: exactly the plain linear */
            if (k == 0) CHECK(fused == ((const float *)out[1])[r * OUT + c]);
        }
    printf("  fused vs decomposition: max |diff| %.3g; vs double by hand: %.3g\n", worst, worst_hand);
    CHECK(worst < 1e-5);
    CHECK(worst_hand < 1e-5);
    /* The delta matters in this case (a test of nothing would pass a dropped delta). */
    CHECK(fabs(((const float *)out[0])[0] - ((const float *)out[1])[0]) > 1e-3);
    ts_reference_free(d, vals);

    /* Row independence: row 0 alone with each adapter equals its value in the mixed batch. */
    float mixed[N * OUT];
    memcpy(mixed, out[0], sizeof(mixed));
    int32_t all_two[N] = {2, 2, 2, 2, 2};
    params[5] = all_two;
    CHECK(ts_program_run(prog, params, out, &err) == TS_OK);
    CHECK(memcmp((const float *)out[0] + 2 * OUT, mixed + 2 * OUT, sizeof(float) * OUT) == 0);

    /* An index outside 0 … K−1 is refused, naming the row. */
    int32_t bad[N] = {0, 1, 3, 0, 0};
    params[5] = bad;
    CHECK(ts_program_run(prog, params, out, &err) == TS_ERR_RANGE);
    CHECK(strstr(err.message, "row 2 selects adapter 3") != NULL);
    ts_program_destroy(prog);
    ts_graph_destroy(d);
    ts_graph_destroy(g);
    ts_context_destroy(ctx);
}

static uint16_t bf16_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

/* bf16 stacks (how bf16 adapters are kept): fused = decomposition, which widens them. */
static void test_bf16_adapters(void)
{
    operands o;
    make(&o, 9);
    static uint16_t a16[K * R * IN], b16[K * OUT * R];
    for (int i = 0; i < K * R * IN; i++) a16[i] = bf16_of(o.a[i]);
    for (int i = 0; i < K * OUT * R; i++) b16[i] = bf16_of(o.b[i]);
    ts_context *ctx = make_ctx();
    ts_graph *g = build_typed(R, TS_DTYPE_BF16), *d = NULL;
    ts_program *prog = NULL;
    ts_error err;
    const void *out[2];
    void *params[6] = {o.x, o.w, a16, b16, o.scale, o.index}, **vals = NULL;
    REQUIRE(ts_program_create(g, ctx, &prog, &err) == TS_OK);
    CHECK(ts_program_run(prog, params, out, &err) == TS_OK);
    REQUIRE(ts_graph_decompose(g, &d, NULL, &err) == TS_OK);
    REQUIRE(ts_reference_run(d, (const void *const *)params, &vals, &err) == TS_OK);
    double worst = 0;
    for (int i = 0; i < N * OUT; i++)
        worst = fmax(worst, fabs((double)((const float *)out[0])[i] -
                                 ((const float *)vals[d->outputs[0]])[i]));
    printf("  bf16 adapters, fused vs decomposition: max |diff| %.3g\n", worst);
    CHECK(worst < 1e-5);
    ts_reference_free(d, vals);
    ts_program_destroy(prog);
    ts_graph_destroy(d);
    ts_graph_destroy(g);
    ts_context_destroy(ctx);
}

static void test_bad_operands_refused(void)
{
    ts_graph *g = build(R + 1);
    ts_error err;
    CHECK(ts_graph_status(g, &err) != TS_OK && strstr(err.message, "b must be [3, 6, 3]"));
    ts_graph_destroy(g);
}

int main(void)
{
    RUN(test_fused_matches_decomposition_and_by_hand);
    RUN(test_bf16_adapters);
    RUN(test_bad_operands_refused);
    return check_finish();
}
