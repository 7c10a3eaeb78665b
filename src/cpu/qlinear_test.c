/* qlinear_test.c — the fused quantized linear (cpu/ops/qlinear.c) agrees with its decomposition
 * (graph/decompose.c) run by the reference evaluator: 8-bit per channel and block-wise, 4-bit
 * with and without zero points, f16/bf16/f32 scales, with and without bias, on odd sizes, on the
 * decode path (3 rows) and the GEMM path (19 rows), with 1 and 3 threads, for every kernel level
 * the CPU allows; one small case is checked against values worked by hand; bad operands are
 * refused by name. */
#include "base/context.h"
#include "cpu/executor.h"
#include "cpu/reference.h"
#include "graph/decompose.h"
#include "check.h"

#include <math.h>

static uint32_t next(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Random contents for a parameter: floats in [-1, 1), integers over the dtype's whole range
 * (zero points: 0…15, the 4-bit range, which also exercises 8-bit). */
static void *random_param(const ts_type *t, uint32_t *seed, bool zero_points)
{
    int64_t n = ts_type_elements(t);
    void *p = calloc(1, ts_type_bytes(t) + 1);
    for (int64_t i = 0; i < n; i++) {
        uint32_t r = next(seed);
        double v;
        switch (t->dtype) {
        case TS_DTYPE_I8: v = zero_points ? (double)(r % 16) : (double)(int)(r % 256) - 128; break;
        case TS_DTYPE_U8: v = r % 256; break;
        default: v = (double)r / 16777216.0 * 2.0 - 1.0; break;
        }
        ts_reference_set(t->dtype, p, i, v);
    }
    return p;
}

static ts_context *make_ctx(int threads, const char *level)
{
    ts_context *ctx;
    ts_error err;
    ts_context_options o = {.n_threads = threads, .log_level = TS_LOG_WARN, .cpu_level = level};
    CHECK(ts_context_create(&o, &ctx, &err) == TS_OK);
    return ctx;
}

typedef struct {
    int64_t rows, in, out, block;
    int bits;
    ts_dtype scale_dtype;
    bool zero, bias;
} qcase;

/* The W8A8 error bound of output (r, o): activations rounded to int8 per chunk of 32 (per row
 * for per-channel 8-bit weights, qlinear.c) with d = max|x|/127 move each x by at most d/2, so
 * |Δy| ≤ Σ_j |scale·(q_j − zero)| · d_block(j)/2. */
static double w8a8_bound(const qcase *c, void *const *params, int64_t r, int64_t o)
{
    const float *x = params[0];
    int64_t act = c->bits == 8 && c->block == c->in && !c->zero ? c->in : 32;
    double bound = 0;
    for (int64_t c0 = 0; c0 < c->in; c0 += act) {
        double amax = 0;
        for (int64_t j = c0; j < c0 + act; j++)
            amax = fmax(amax, fabs(x[r * c->in + j]));
        double d = (double)((float)amax / 127.0f);
        for (int64_t j = c0; j < c0 + act; j++) {
            int64_t b = j / c->block, nb = c->in / c->block;
            double q = c->bits == 8 ? ts_reference_get(TS_DTYPE_I8, params[1], o * c->in + j)
                                    : (double)((((const uint8_t *)params[1])[(o * c->in + j) / 2] >>
                                                (j % 2 ? 4 : 0)) &
                                               15);
            double z = c->zero ? ts_reference_get(TS_DTYPE_I8, params[3], o * nb + b)
                               : (c->bits == 8 ? 0 : 8);
            bound +=
                fabs(ts_reference_get(c->scale_dtype, params[2], o * nb + b) * (q - z)) * d / 2;
        }
    }
    return bound;
}

/* Max |fused − reference| over max |reference| for one case; with `bound_ratio`, also the
 * largest |fused − reference| / w8a8_bound over the outputs. */
static double run_case_bounded(const qcase *c, ts_context *ctx, uint32_t seed, double *bound_ratio,
                               float *copy)
{
    ts_error err;
    ts_graph *g;
    ts_graph_create(&g, &err);
    int64_t xd[2] = {c->rows, c->in}, qd[2] = {c->out, c->bits == 8 ? c->in : c->in / 2},
            sd[2] = {c->out, c->in / c->block}, bd[1] = {c->out};
    ts_type types[5] = {ts_type_make(TS_DTYPE_F32, 2, xd), ts_type_make(c->bits == 8 ? TS_DTYPE_I8 : TS_DTYPE_U8, 2, qd),
                        ts_type_make(c->scale_dtype, 2, sd), ts_type_make(TS_DTYPE_I8, 2, sd),
                        ts_type_make(TS_DTYPE_BF16, 1, bd)};
    const char *names[5] = {"x", "q", "scale", "zero", "bias"};
    void *params[5] = {0};
    ts_value v[5] = {TS_NO_VALUE, TS_NO_VALUE, TS_NO_VALUE, TS_NO_VALUE, TS_NO_VALUE};
    int n = 0;
    for (int i = 0; i < 5; i++) {
        if ((i == 3 && !c->zero) || (i == 4 && !c->bias)) continue;
        params[n++] = random_param(&types[i], &seed, i == 3);
        v[i] = ts_graph_parameter(g, names[i], TS_PARAM_INPUT, types[i]);
    }
    ts_value y = ts_graph_qlinear(g, v[0], v[1], v[2], v[3], v[4], c->block);
    ts_graph_set_outputs(g, &y, 1);
    double worst = INFINITY;
    ts_program *prog = NULL;
    ts_graph *d = NULL;
    void **vals = NULL;
    const void *out;
    if (ts_graph_status(g, &err) == TS_OK && ts_program_create(g, ctx, &prog, &err) == TS_OK &&
        ts_program_run(prog, params, &out, &err) == TS_OK && ts_graph_decompose(g, &d, NULL, &err) == TS_OK &&
        ts_reference_run(d, (const void *const *)params, &vals, &err) == TS_OK) {
        double scale = 0, diff = 0;
        for (int64_t i = 0; i < c->rows * c->out; i++) {
            double r = ((const float *)vals[d->outputs[0]])[i], o = ((const float *)out)[i];
            scale = fmax(scale, fabs(r));
            diff = isnan(o) ? INFINITY : fmax(diff, fabs(r - o));
            if (bound_ratio)
                *bound_ratio =
                    fmax(*bound_ratio,
                         fabs(r - o) / fmax(w8a8_bound(c, params, i / c->out, i % c->out), 1e-30));
        }
        worst = diff / fmax(scale, 1e-30);
        if (copy) memcpy(copy, out, sizeof(float) * (size_t)(c->rows * c->out));
    } else {
        fprintf(stderr, "qlinear case: %s\n", err.message);
    }
    if (vals) ts_reference_free(d, vals);
    ts_graph_destroy(d);
    ts_program_destroy(prog);
    for (int i = 0; i < n; i++) free(params[i]);
    ts_graph_destroy(g);
    return worst;
}

static double run_case(const qcase *c, ts_context *ctx, uint32_t seed)
{
    return run_case_bounded(c, ctx, seed, NULL, NULL);
}

static ts_context *make_ctx_compute(int threads, const char *level, const char *compute)
{
    ts_context *ctx;
    ts_error err;
    ts_context_options o = {
        .n_threads = threads, .log_level = TS_LOG_WARN, .cpu_level = level, .compute = compute};
    CHECK(ts_context_create(&o, &ctx, &err) == TS_OK);
    return ctx;
}

/* Under compute int8 (W8A8), every output is within its rounding bound (w8a8_bound, plus 1e-5
 * of the largest output for f32 summation) of the decomposition with f32 activations, and
 * really moved (the integer path ran); a shape W8A8 cannot take (8-bit zero points, a block
 * not a multiple of 32) keeps f32 activations and stays within 1e-5. Decode (1, 3 rows),
 * batched tails, several row tiles of a prefill (70 rows), 1 and 3 threads, portable and auto. */
static void test_w8a8_error_bounded(void)
{
    static const qcase cases[] = {
        {3, 160, 37, 32, 8, TS_DTYPE_F16, false, true},  /* Q8_0 blocks, odd chunk count */
        {1, 96, 35, 96, 8, TS_DTYPE_BF16, false, false}, /* per channel: one block of 3 chunks */
        {2, 128, 33, 32, 4, TS_DTYPE_F16, false, false}, /* Q4_0: implicit zero 8 */
        {3, 192, 29, 64, 4, TS_DTYPE_BF16, true, true}, /* 4-bit, zero points, blocks of 2 chunks */
        {70, 224, 41, 32, 8, TS_DTYPE_F16, false, true}, /* prefill: several tiles and a tail */
        {21, 96, 35, 32, 4, TS_DTYPE_F32, true, false},  /* 4-bit prefill with zeros */
        /* per channel, prefill: rows quantized whole, integer sums over the row (several
         * panels, a partial one; tiles and a tail) */
        {70, 224, 41, 224, 8, TS_DTYPE_F16, false, true},
        {19, 64, 130, 64, 8, TS_DTYPE_BF16, false, false},
        {20, 544, 37, 544, 8, TS_DTYPE_F16, false, true}, /* a wider row, 17 chunks */
    };
    static const qcase f32_only[] = {
        {3, 160, 37, 32, 8, TS_DTYPE_F16, true, false}, /* 8-bit zero points */
        {3, 66, 33, 6, 4, TS_DTYPE_BF16, true, true},   /* block 6 */
    };
    static const char *const levels[] = {"portable", NULL};
    static float first[sizeof(cases) / sizeof(cases[0])][70 * 130];
    for (size_t l = 0; l < 2; l++) {
        for (int threads = 1; threads <= 3; threads += 2) {
            ts_context *ctx = make_ctx_compute(threads, levels[l], "int8");
            for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                float *got = malloc(sizeof(float) * (size_t)(cases[i].rows * cases[i].out));
                double ratio = 0,
                       e = run_case_bounded(&cases[i], ctx, 300 + (uint32_t)i, &ratio, got);
                /* every level and thread count computes the same W8A8 sums (the row dots, or the
                 * packed VNNI GEMM for many rows): equal up to f32 summation order */
                if (l == 0 && threads == 1)
                    memcpy(first[i], got, sizeof(float) * (size_t)(cases[i].rows * cases[i].out));
                double most = 0, apart = 0;
                for (int64_t o = 0; o < cases[i].rows * cases[i].out; o++)
                    most = fmax(most, fabs(first[i][o])),
                    apart = fmax(apart, fabs(first[i][o] - got[o]));
                if (!(apart <= 1e-5 * most))
                    fprintf(stderr, "  W8A8 case %zu: %g apart from the portable result\n", i,
                            apart);
                CHECK(apart <= 1e-5 * most);
                free(got);
                if (l == 1 && threads == 1)
                    fprintf(stderr,
                            "  W8A8 case %zu (%d-bit, block %lld, %lld rows): max error %.2e of "
                            "max |y|, %.3f of the bound\n",
                            i, cases[i].bits, (long long)cases[i].block, (long long)cases[i].rows,
                            e, ratio);
                CHECK(ratio <= 1.0 + 1e-3);
                CHECK(e > 1e-7); /* the activations were rounded: this is not the f32 path */
                CHECK(e < 0.05);
            }
            for (size_t i = 0; i < sizeof(f32_only) / sizeof(f32_only[0]); i++)
                CHECK(run_case(&f32_only[i], ctx, 400 + (uint32_t)i) <= 1e-5);
            ts_context_destroy(ctx);
        }
    }
}

static void test_fused_matches_decomposition(void)
{
    static const qcase cases[] = {
        {3, 67, 33, 67, 8, TS_DTYPE_F16, false, false},   /* per channel, odd width */
        {3, 160, 37, 32, 8, TS_DTYPE_BF16, false, true},  /* blocks of 32 */
        {19, 160, 37, 32, 8, TS_DTYPE_F16, true, true},   /* GEMM path, zero points */
        {1, 96, 35, 32, 4, TS_DTYPE_F16, false, false},   /* 4-bit symmetric (implicit 8) */
        {3, 66, 33, 6, 4, TS_DTYPE_BF16, true, true},     /* 4-bit, block 6: scalar tails */
        {4, 272, 29, 136, 4, TS_DTYPE_F32, true, false},  /* 4-bit, block 136 = 4·32 + 8 */
        {21, 96, 41, 16, 4, TS_DTYPE_BF16, true, true},   /* 4-bit GEMM path */
    };
    static const char *const levels[] = {"portable", "avx2", NULL};
    for (size_t l = 0; l < 3; l++) {
        if (levels[l] && strcmp(levels[l], "avx2") == 0 && !(ts_cpu_features() & TS_CPU_AVX2)) continue;
        for (int threads = 1; threads <= 3; threads += 2) {
            ts_context *ctx = make_ctx(threads, levels[l]);
            for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                double e = run_case(&cases[i], ctx, 100 + (uint32_t)i);
                if (!(e <= 1e-5)) fprintf(stderr, "case %zu (%d-bit, block %lld), level %s, %d threads: error %g\n", i, cases[i].bits, (long long)cases[i].block, levels[l] ? levels[l] : "auto", threads, e);
                CHECK(e <= 1e-5);
            }
            ts_context_destroy(ctx);
        }
    }
}

/* x = [1, 2, 3, 4]; 8-bit row [1, −2, 3, 0] with scale 0.5 and zero 1: (0 − 6 + 6 − 4) · 0.5 = −2;
 * 4-bit bytes 0x3A 0x0F = channels 10, 3, 15, 0, zero 8, scale 0.25, bias 1:
 * (2 − 10 + 21 − 32) · 0.25 + 1 = −3.75. */
static void test_values_by_hand(void)
{
    ts_context *ctx = make_ctx(1, NULL);
    ts_error err;
    ts_graph *g;
    ts_graph_create(&g, &err);
    int64_t xd[2] = {1, 4}, q8d[2] = {1, 4}, q4d[2] = {1, 2}, sd[2] = {1, 1}, bd[1] = {1};
    ts_value x = ts_graph_parameter(g, "x", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_F32, 2, xd));
    ts_value q8 = ts_graph_parameter(g, "q8", TS_PARAM_WEIGHT, ts_type_make(TS_DTYPE_I8, 2, q8d));
    ts_value q4 = ts_graph_parameter(g, "q4", TS_PARAM_WEIGHT, ts_type_make(TS_DTYPE_U8, 2, q4d));
    ts_value s = ts_graph_parameter(g, "s", TS_PARAM_WEIGHT, ts_type_make(TS_DTYPE_F32, 2, sd));
    ts_value s4 = ts_graph_parameter(g, "s4", TS_PARAM_WEIGHT, ts_type_make(TS_DTYPE_F32, 2, sd));
    ts_value z = ts_graph_parameter(g, "z", TS_PARAM_WEIGHT, ts_type_make(TS_DTYPE_I8, 2, sd));
    ts_value b = ts_graph_parameter(g, "b", TS_PARAM_WEIGHT, ts_type_make(TS_DTYPE_F32, 1, bd));
    ts_value outs[2] = {ts_graph_qlinear(g, x, q8, s, z, TS_NO_VALUE, 4), ts_graph_qlinear(g, x, q4, s4, TS_NO_VALUE, b, 4)};
    ts_graph_set_outputs(g, outs, 2);
    float xv[4] = {1, 2, 3, 4}, sv = 0.5f, s4v = 0.25f, bv = 1.0f;
    int8_t q8v[4] = {1, -2, 3, 0}, zv = 1;
    uint8_t q4v[2] = {0x3A, 0x0F};
    void *params[7] = {xv, q8v, q4v, &sv, &s4v, &zv, &bv};
    ts_program *prog;
    const void *res[2] = {0};
    CHECK(ts_program_create(g, ctx, &prog, &err) == TS_OK);
    CHECK(ts_program_run(prog, params, res, &err) == TS_OK);
    CHECK(res[0] && *(const float *)res[0] == -2.0f);
    CHECK(res[1] && *(const float *)res[1] == -3.75f);
    ts_program_destroy(prog);
    ts_graph_destroy(g);
    ts_context_destroy(ctx);
}

static void expect_refused(int64_t in, ts_dtype qdt, int64_t qcols, int64_t block, ts_dtype sdt, int64_t sblocks, const char *what)
{
    ts_error err;
    ts_graph *g;
    ts_graph_create(&g, &err);
    int64_t xd[2] = {2, in}, qd[2] = {8, qcols}, sd[2] = {8, sblocks};
    ts_value x = ts_graph_parameter(g, "x", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_F32, 2, xd));
    ts_value q = ts_graph_parameter(g, "q", TS_PARAM_WEIGHT, ts_type_make(qdt, 2, qd));
    ts_value s = ts_graph_parameter(g, "s", TS_PARAM_WEIGHT, ts_type_make(sdt, 2, sd));
    CHECK(ts_graph_qlinear(g, x, q, s, TS_NO_VALUE, TS_NO_VALUE, block) == TS_NO_VALUE);
    CHECK(ts_graph_status(g, &err) != TS_OK);
    CHECK_CONTAINS(err.message, "qlinear");
    CHECK_CONTAINS(err.message, what);
    ts_graph_destroy(g);
}

static void test_bad_operands_refused(void)
{
    expect_refused(64, TS_DTYPE_I32, 64, 32, TS_DTYPE_F16, 2, "weights must be i8");
    expect_refused(64, TS_DTYPE_U8, 64, 32, TS_DTYPE_F16, 2, "4-bit weights must be [out, 32]");
    expect_refused(64, TS_DTYPE_I8, 64, 24, TS_DTYPE_F16, 2, "block 24 must divide 64");
    expect_refused(66, TS_DTYPE_U8, 33, 3, TS_DTYPE_F16, 22, "be even");
    expect_refused(64, TS_DTYPE_I8, 64, 32, TS_DTYPE_F16, 3, "scale must be f16/bf16/f32 [8, 2]");
    expect_refused(64, TS_DTYPE_I8, 64, 32, TS_DTYPE_I8, 2, "scale must be");
}

int main(void)
{
    RUN(test_values_by_hand);
    RUN(test_fused_matches_decomposition);
    RUN(test_w8a8_error_bounded);
    RUN(test_bad_operands_refused);
    return check_finish();
}
