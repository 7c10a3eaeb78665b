/* graph_test.c — builders' type rules, the reference evaluator's StableHLO semantics on
 * hand-checked values, and each composite's decomposition against an independent naive loop. */
#include "cpu/reference.h"
#include "graph/decompose.h"
#include "graph/graph.h"
#include "check.h"

#include <math.h>
#include <stdarg.h>

static ts_type t1(ts_dtype d, int64_t a) { return ts_type_make(d, 1, (int64_t[]){a}); }
static ts_type t2(ts_dtype d, int64_t a, int64_t b) { return ts_type_make(d, 2, (int64_t[]){a, b}); }
static ts_type t3(ts_dtype d, int64_t a, int64_t b, int64_t c) { return ts_type_make(d, 3, (int64_t[]){a, b, c}); }

static ts_dims dims(int n, ...)
{
    ts_dims d = {.n = n};
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) d.v[i] = va_arg(ap, int);
    va_end(ap);
    return d;
}

static float frand(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return ((float)(*s >> 8) / 16777216.0f) * 2.0f - 1.0f;
}

/* Runs g on params and returns a copy of value v as floats (caller frees). */
static float *run_value(ts_graph *g, const void *const *params, ts_value v)
{
    void **vals;
    ts_error err;
    if (ts_reference_run(g, params, &vals, &err) != TS_OK) {
        fprintf(stderr, "reference run failed: %s\n", err.message);
        return NULL;
    }
    const ts_type *t = ts_graph_type(g, v);
    int64_t n = ts_type_elements(t);
    float *out = malloc(sizeof(float) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) out[i] = (float)ts_reference_get(t->dtype, vals[v], i);
    ts_reference_free(g, vals);
    return out;
}

static void test_builder_errors_are_sticky_and_named(void)
{
    ts_graph *g;
    ts_error err;
    ts_graph_create(&g, &err);
    ts_graph_set_stage(g, "layer.%d.mlp", 3);
    ts_value a = ts_graph_parameter(g, "a", TS_PARAM_INPUT, t1(TS_DTYPE_F32, 4));
    ts_value b = ts_graph_parameter(g, "b", TS_PARAM_INPUT, t1(TS_DTYPE_F32, 5));
    ts_value c = ts_graph_binary(g, TS_OP_ADD, a, b);
    CHECK_INT_EQ(c, TS_NO_VALUE);
    CHECK_INT_EQ(ts_graph_status(g, &err), TS_ERR_INTERNAL);
    CHECK_CONTAINS(err.message, "layer.3.mlp: add: operand types differ: tensor<4xf32> vs tensor<5xf32>");
    /* Later builders keep the first error. */
    CHECK_INT_EQ(ts_graph_unary(g, TS_OP_EXPONENTIAL, a), TS_NO_VALUE);
    ts_graph_status(g, &err);
    CHECK_CONTAINS(err.message, "operand types differ");
    ts_graph_destroy(g);

    ts_graph_create(&g, &err);
    ts_value x = ts_graph_parameter(g, "x", TS_PARAM_INPUT, t2(TS_DTYPE_F32, 2, 3));
    ts_value w = ts_graph_parameter(g, "w", TS_PARAM_WEIGHT, t2(TS_DTYPE_BF16, 4, 5));
    CHECK_INT_EQ(ts_graph_linear(g, x, w, TS_NO_VALUE), TS_NO_VALUE);
    ts_graph_status(g, &err);
    CHECK_CONTAINS(err.message, "linear: weight must be [out, 3]");
    ts_graph_destroy(g);

    ts_graph_create(&g, &err);
    x = ts_graph_parameter(g, "x", TS_PARAM_INPUT, t2(TS_DTYPE_F32, 2, 3));
    CHECK_INT_EQ(ts_graph_reshape(g, x, 1, (int64_t[]){7}), TS_NO_VALUE);
    ts_graph_status(g, &err);
    CHECK_CONTAINS(err.message, "reshape: tensor<2x3xf32> has a different element count than tensor<7xf32>");
    ts_graph_destroy(g);
}

static void test_reference_primitives(void)
{
    ts_graph *g;
    ts_error err;
    ts_graph_create(&g, &err);
    ts_value a = ts_graph_parameter(g, "a", TS_PARAM_INPUT, t2(TS_DTYPE_F32, 2, 3));
    ts_value b = ts_graph_parameter(g, "b", TS_PARAM_INPUT, t2(TS_DTYPE_F32, 3, 2));
    ts_dims none = {0}, c1 = dims(1, 1), c0 = dims(1, 0);
    ts_value mm = ts_graph_dot_general(g, a, b, &none, &none, &c1, &c0);
    ts_value tr = ts_graph_transpose(g, a, (int64_t[]){1, 0});
    ts_value sl = ts_graph_slice(g, a, (int64_t[]){0, 0}, (int64_t[]){2, 3}, (int64_t[]){1, 2});
    ts_value zero = ts_graph_constant_f32(g, 0.0f);
    ts_value pd = ts_graph_pad(g, ts_graph_reshape(g, a, 1, (int64_t[]){6}), zero, (int64_t[]){1}, (int64_t[]){-1}, (int64_t[]){1});
    ts_dims last = dims(1, 1);
    ts_value rs = ts_graph_reduce(g, TS_OP_REDUCE_SUM, a, &last);
    ts_value rm = ts_graph_reduce(g, TS_OP_REDUCE_MAX, a, &last);
    ts_value am = ts_graph_argmax(g, a, 1);
    ts_value ab[2] = {a, a};
    ts_value cat = ts_graph_concatenate(g, ab, 2, 1);
    ts_value io = ts_graph_iota(g, t2(TS_DTYPE_I32, 2, 3), 1);
    ts_value gt = ts_graph_compare(g, TS_COMPARE_GT, a, ts_graph_broadcast_in_dim(g, zero, 2, (int64_t[]){2, 3}, NULL));
    ts_value sel = ts_graph_select(g, gt, a, ts_graph_unary(g, TS_OP_NEGATE, a));
    ts_value i1 = ts_graph_constant_i32(g, 1), i9 = ts_graph_constant_i32(g, 9);
    ts_value ds = ts_graph_dynamic_slice(g, a, (ts_value[]){i1, i9}, (int64_t[]){1, 2}); /* start 9 clamps to 1 */
    ts_value out[] = {mm, tr, sl, pd, rs, rm, am, cat, io, sel, ds};
    ts_graph_set_outputs(g, out, 11);
    CHECK_INT_EQ(ts_graph_status(g, &err), TS_OK);

    float av[6] = {1, -2, 3, 4, 5, -6}, bv[6] = {1, 2, 3, 4, 5, 6};
    const void *params[2] = {av, bv};
    void **vals;
    CHECK_INT_EQ(ts_reference_run(g, params, &vals, &err), TS_OK);
    const float *f;
    f = vals[mm]; /* [[1-6+15, 2-8+18], [4+15-30, 8+20-36]] */
    CHECK(f[0] == 10 && f[1] == 12 && f[2] == -11 && f[3] == -8);
    f = vals[tr];
    CHECK(f[0] == 1 && f[1] == 4 && f[2] == -2 && f[3] == 5 && f[4] == 3 && f[5] == -6);
    f = vals[sl];
    CHECK_INT_EQ(ts_graph_type(g, sl)->dims[1], 2);
    CHECK(f[0] == 1 && f[1] == 3 && f[2] == 4 && f[3] == -6);
    f = vals[pd]; /* low 1, interior 1, high -1: 0,1,0,-2,0,3,0,4,0,5,0 (len 1+11-1 = 11) */
    CHECK_INT_EQ(ts_graph_type(g, pd)->dims[0], 11);
    CHECK(f[0] == 0 && f[1] == 1 && f[2] == 0 && f[3] == -2 && f[9] == 5 && f[10] == 0);
    f = vals[rs];
    CHECK(f[0] == 2 && f[1] == 3);
    f = vals[rm];
    CHECK(f[0] == 3 && f[1] == 5);
    const int32_t *ip = vals[am];
    CHECK(ip[0] == 2 && ip[1] == 1);
    f = vals[cat];
    CHECK(f[0] == 1 && f[3] == 1 && f[6] == 4 && f[11] == -6);
    ip = vals[io];
    CHECK(ip[0] == 0 && ip[2] == 2 && ip[3] == 0 && ip[5] == 2);
    f = vals[sel];
    CHECK(f[0] == 1 && f[1] == 2 && f[5] == 6);
    f = vals[ds];
    CHECK(f[0] == 5 && f[1] == -6);
    ts_reference_free(g, vals);
    ts_graph_destroy(g);
}

static void test_reference_gather_scatter_convert(void)
{
    ts_graph *g;
    ts_error err;
    ts_graph_create(&g, &err);
    ts_value table = ts_graph_parameter(g, "table", TS_PARAM_WEIGHT, t2(TS_DTYPE_F32, 4, 2));
    ts_value ids = ts_graph_parameter(g, "ids", TS_PARAM_INPUT, t1(TS_DTYPE_I32, 3));
    ts_value emb = ts_graph_embedding(g, table, ids);
    ts_graph *d;
    ts_graph_set_outputs(g, &emb, 1);
    CHECK_INT_EQ(ts_graph_decompose(g, &d, NULL, &err), TS_OK);
    float tab[8] = {0, 1, 10, 11, 20, 21, 30, 31};
    int32_t idv[3] = {2, 0, 9}; /* 9 clamps to the last row, as StableHLO gather does */
    const void *params[2] = {tab, idv};
    float *r = run_value(d, params, d->outputs[0]);
    CHECK(r && r[0] == 20 && r[1] == 21 && r[2] == 0 && r[3] == 1 && r[4] == 30 && r[5] == 31);
    free(r);
    ts_graph_destroy(d);
    ts_graph_destroy(g);

    /* scatter-add with a repeated index accumulates. */
    ts_graph_create(&g, &err);
    ts_value base = ts_graph_parameter(g, "base", TS_PARAM_INPUT, t2(TS_DTYPE_F32, 3, 2));
    ts_value where = ts_graph_parameter(g, "where", TS_PARAM_INPUT, t2(TS_DTYPE_I32, 3, 1));
    ts_value upd = ts_graph_parameter(g, "upd", TS_PARAM_INPUT, t2(TS_DTYPE_F32, 3, 2));
    ts_dims uw = dims(1, 1), ins = dims(1, 0), s2o = dims(1, 0);
    ts_value sc = ts_graph_scatter_add(g, base, where, upd, &uw, &ins, &s2o, 1);
    ts_value bf = ts_graph_convert(g, base, TS_DTYPE_BF16);
    ts_value ii = ts_graph_convert(g, base, TS_DTYPE_I32);
    CHECK_INT_EQ(ts_graph_status(g, &err), TS_OK);
    float basev[6] = {1, 1, 1, 1, 1.00390625f /* 1 + 2^-8: a bf16 tie → even (1.0) */, -2.7f};
    int32_t wv[3] = {2, 0, 2};
    float uv[6] = {1, 2, 3, 4, 5, 6};
    const void *p2[3] = {basev, wv, uv};
    void **vals;
    CHECK_INT_EQ(ts_reference_run(g, p2, &vals, &err), TS_OK);
    const float *s = vals[sc];
    CHECK(s[0] == 4 && s[1] == 5 && s[2] == 1 && s[3] == 1 && s[4] == 1.00390625f + 6 && s[5] == -2.7f + 8);
    const uint16_t *bh = vals[bf];
    CHECK_INT_EQ(bh[4], 0x3f80);
    const int32_t *iv = vals[ii];
    CHECK_INT_EQ(iv[5], -2);
    ts_reference_free(g, vals);
    ts_graph_destroy(g);
}

/* ---- decompositions vs independent naive loops ---- */

static double max_rel_err(const float *a, const double *b, int64_t n)
{
    double worst = 0, scale = 0;
    for (int64_t i = 0; i < n; i++) scale = fmax(scale, fabs(b[i]));
    for (int64_t i = 0; i < n; i++) worst = fmax(worst, fabs(a[i] - b[i]));
    return worst / fmax(scale, 1e-30);
}

static void test_rms_and_layer_norm(void)
{
    uint32_t seed = 1;
    enum { L = 3, H = 37 };
    float x[L * H], w[H], b[H];
    for (int i = 0; i < L * H; i++) x[i] = frand(&seed) * 3;
    for (int i = 0; i < H; i++) w[i] = frand(&seed), b[i] = frand(&seed);
    double want_rms[L * H], want_ln[L * H], want_gemma[L * H];
    for (int r = 0; r < L; r++) {
        double ss = 0, sum = 0, var = 0;
        for (int i = 0; i < H; i++) ss += (double)x[r * H + i] * x[r * H + i], sum += x[r * H + i];
        double mean = sum / H;
        for (int i = 0; i < H; i++) var += (x[r * H + i] - mean) * (x[r * H + i] - mean);
        for (int i = 0; i < H; i++) {
            double n = x[r * H + i] / sqrt(ss / H + 1e-6);
            want_rms[r * H + i] = n * w[i];
            want_gemma[r * H + i] = n * (1 + w[i]);
            want_ln[r * H + i] = (x[r * H + i] - mean) / sqrt(var / H + 1e-5) * w[i] + b[i];
        }
    }
    ts_graph *g, *d;
    ts_error err;
    ts_graph_create(&g, &err);
    ts_value xv = ts_graph_parameter(g, "x", TS_PARAM_INPUT, t2(TS_DTYPE_F32, L, H));
    ts_value wv = ts_graph_parameter(g, "w", TS_PARAM_WEIGHT, t1(TS_DTYPE_F32, H));
    ts_value bv = ts_graph_parameter(g, "b", TS_PARAM_WEIGHT, t1(TS_DTYPE_F32, H));
    ts_value outs[3] = {ts_graph_rms_norm(g, xv, wv, 1e-6, 0), ts_graph_layer_norm(g, xv, wv, bv, 1e-5),
                        ts_graph_rms_norm(g, xv, wv, 1e-6, 1.0)};
    ts_graph_set_outputs(g, outs, 3);
    CHECK_INT_EQ(ts_graph_decompose(g, &d, NULL, &err), TS_OK);
    const void *params[3] = {x, w, b};
    const double *want[3] = {want_rms, want_ln, want_gemma};
    for (int k = 0; k < 3; k++) {
        float *got = run_value(d, params, d->outputs[k]);
        CHECK(got && max_rel_err(got, want[k], L * H) < 1e-6);
        free(got);
    }
    ts_graph_destroy(d);
    ts_graph_destroy(g);
}

static void naive_rope(const float *x, const float *cos, const float *sin, int L, int H, int D, int R,
                       bool interleaved, double *out)
{
    for (int l = 0; l < L; l++)
        for (int h = 0; h < H; h++) {
            const float *v = x + (l * H + h) * D;
            double *o = out + (l * H + h) * D;
            for (int i = 0; i < D; i++) o[i] = v[i];
            for (int i = 0; i < R / 2; i++) {
                int a = interleaved ? 2 * i : i, b = interleaved ? 2 * i + 1 : i + R / 2;
                double c = cos[l * (R / 2) + i], s = sin[l * (R / 2) + i];
                o[a] = v[a] * c - v[b] * s;
                o[b] = v[b] * c + v[a] * s;
            }
        }
}

static void test_rope(void)
{
    enum { L = 5, H = 3, D = 16 };
    uint32_t seed = 5;
    float x[L * H * D], cs[L * 8], sn[L * 8];
    for (int i = 0; i < L * H * D; i++) x[i] = frand(&seed);
    for (int i = 0; i < L * 8; i++) {
        double angle = frand(&seed) * 3;
        cs[i] = (float)cos(angle);
        sn[i] = (float)sin(angle);
    }
    for (int variant = 0; variant < 4; variant++) {
        bool interleaved = variant & 1;
        int rotary = variant & 2 ? 8 : 16; /* partial rotary uses the first 8 channels */
        ts_graph *g, *d;
        ts_error err;
        ts_graph_create(&g, &err);
        ts_value xv = ts_graph_parameter(g, "x", TS_PARAM_INPUT, t3(TS_DTYPE_F32, L, H, D));
        ts_value cv = ts_graph_parameter(g, "cos", TS_PARAM_INPUT, t2(TS_DTYPE_F32, L, rotary / 2));
        ts_value sv = ts_graph_parameter(g, "sin", TS_PARAM_INPUT, t2(TS_DTYPE_F32, L, rotary / 2));
        ts_value o = ts_graph_rope(g, xv, cv, sv, rotary, interleaved);
        ts_graph_set_outputs(g, &o, 1);
        CHECK_INT_EQ(ts_graph_decompose(g, &d, NULL, &err), TS_OK);
        float ct[L * 8], st[L * 8];
        for (int l = 0; l < L; l++)
            for (int i = 0; i < rotary / 2; i++) ct[l * (rotary / 2) + i] = cs[l * 8 + i], st[l * (rotary / 2) + i] = sn[l * 8 + i];
        double want[L * H * D];
        naive_rope(x, ct, st, L, H, D, rotary, interleaved, want);
        const void *params[3] = {x, ct, st};
        float *got = run_value(d, params, d->outputs[0]);
        CHECK(got && max_rel_err(got, want, L * H * D) < 1e-6);
        free(got);
        ts_graph_destroy(d);
        ts_graph_destroy(g);
    }
}

static void test_attention(void)
{
    enum { LQ = 4, LK = 6, HQ = 4, HKV = 2, D = 8 };
    uint32_t seed = 9;
    float q[LQ * HQ * D], k[LK * HKV * D], v[LK * HKV * D], bias[LQ * LK];
    for (int i = 0; i < LQ * HQ * D; i++) q[i] = frand(&seed);
    for (int i = 0; i < LK * HKV * D; i++) k[i] = frand(&seed), v[i] = frand(&seed);
    for (int i = 0; i < LQ * LK; i++) bias[i] = frand(&seed);
    bias[1] = -INFINITY;
    for (int variant = 0; variant < 3; variant++) {
        bool causal = variant != 1, with_bias = variant >= 1;
        double softcap = variant == 2 ? 5.0 : 0.0, scale = 1.0 / sqrt(D);
        int64_t offset = LK - LQ;
        double want[LQ * HQ * D];
        for (int i = 0; i < LQ; i++)
            for (int h = 0; h < HQ; h++) {
                int kh = h / (HQ / HKV);
                double s[LK], m = -INFINITY, sum = 0;
                for (int j = 0; j < LK; j++) {
                    double dot = 0;
                    for (int c = 0; c < D; c++) dot += (double)q[(i * HQ + h) * D + c] * k[(j * HKV + kh) * D + c];
                    dot *= scale;
                    if (softcap > 0) dot = tanh(dot / softcap) * softcap;
                    if (causal && j > i + offset) dot = -INFINITY;
                    if (with_bias) dot += bias[i * LK + j];
                    s[j] = dot;
                    m = fmax(m, dot);
                }
                for (int j = 0; j < LK; j++) s[j] = exp(s[j] - m), sum += s[j];
                for (int c = 0; c < D; c++) {
                    double acc = 0;
                    for (int j = 0; j < LK; j++) acc += s[j] / sum * v[(j * HKV + kh) * D + c];
                    want[(i * HQ + h) * D + c] = acc;
                }
            }
        ts_graph *g, *d;
        ts_error err;
        ts_graph_create(&g, &err);
        ts_value qv = ts_graph_parameter(g, "q", TS_PARAM_INPUT, t3(TS_DTYPE_F32, LQ, HQ, D));
        ts_value kv = ts_graph_parameter(g, "k", TS_PARAM_INPUT, t3(TS_DTYPE_F32, LK, HKV, D));
        ts_value vv = ts_graph_parameter(g, "v", TS_PARAM_INPUT, t3(TS_DTYPE_F32, LK, HKV, D));
        ts_value bv = ts_graph_parameter(g, "bias", TS_PARAM_INPUT, t2(TS_DTYPE_F32, LQ, LK));
        ts_value start = causal ? ts_graph_constant_i32(g, (int32_t)offset) : TS_NO_VALUE;
        ts_value o = ts_graph_attention(g, qv, kv, vv, with_bias ? bv : TS_NO_VALUE, start, scale, softcap);
        ts_graph_set_outputs(g, &o, 1);
        CHECK_INT_EQ(ts_graph_decompose(g, &d, NULL, &err), TS_OK);
        const void *params[4] = {q, k, v, bias};
        float *got = run_value(d, params, d->outputs[0]);
        CHECK(got && max_rel_err(got, want, LQ * HQ * D) < 1e-6);
        free(got);
        ts_graph_destroy(d);
        ts_graph_destroy(g);
    }
}

static uint16_t bf16_of(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return (uint16_t)(bits >> 16);
}

static double act_ref(ts_activation a, double x)
{
    switch (a) {
    case TS_ACT_SILU: return x / (1 + exp(-x));
    case TS_ACT_GELU: return 0.5 * x * (1 + erf(x / sqrt(2)));
    case TS_ACT_GELU_TANH: return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    case TS_ACT_QUICK_GELU: return x / (1 + exp(-1.702 * x));
    default: return NAN;
    }
}

static void test_linear_and_mlp_with_bf16_weights(void)
{
    enum { L = 3, H = 12, I = 20 };
    uint32_t seed = 11;
    float x[L * H], bias[I];
    uint16_t wg[I * H], wu[I * H], wd[H * I];
    float fg[I * H], fu[I * H], fd[H * I];
    for (int i = 0; i < L * H; i++) x[i] = frand(&seed);
    for (int i = 0; i < I; i++) bias[i] = frand(&seed);
    for (int i = 0; i < I * H; i++) {
        wg[i] = bf16_of(frand(&seed)), wu[i] = bf16_of(frand(&seed)), wd[i] = bf16_of(frand(&seed));
        uint32_t b;
        b = (uint32_t)wg[i] << 16, memcpy(&fg[i], &b, 4);
        b = (uint32_t)wu[i] << 16, memcpy(&fu[i], &b, 4);
        b = (uint32_t)wd[i] << 16, memcpy(&fd[i], &b, 4);
    }
    for (ts_activation act = 0; act < TS_ACT_COUNT; act++) {
        double lin[L * I], mlp[L * H];
        for (int r = 0; r < L; r++) {
            double hmid[I];
            for (int o = 0; o < I; o++) {
                double gsum = 0, usum = 0;
                for (int c = 0; c < H; c++) gsum += (double)x[r * H + c] * fg[o * H + c], usum += (double)x[r * H + c] * fu[o * H + c];
                lin[r * I + o] = gsum + bias[o];
                hmid[o] = act_ref(act, gsum) * usum;
            }
            for (int o = 0; o < H; o++) {
                double s = 0;
                for (int c = 0; c < I; c++) s += hmid[c] * fd[o * I + c];
                mlp[r * H + o] = s;
            }
        }
        ts_graph *g, *d;
        ts_error err;
        ts_graph_create(&g, &err);
        ts_value xv = ts_graph_parameter(g, "x", TS_PARAM_INPUT, t2(TS_DTYPE_F32, L, H));
        ts_value gv = ts_graph_parameter(g, "gate", TS_PARAM_WEIGHT, t2(TS_DTYPE_BF16, I, H));
        ts_value uv = ts_graph_parameter(g, "up", TS_PARAM_WEIGHT, t2(TS_DTYPE_BF16, I, H));
        ts_value dv = ts_graph_parameter(g, "down", TS_PARAM_WEIGHT, t2(TS_DTYPE_BF16, H, I));
        ts_value bv = ts_graph_parameter(g, "bias", TS_PARAM_WEIGHT, t1(TS_DTYPE_F32, I));
        ts_value outs[2] = {ts_graph_linear(g, xv, gv, bv), ts_graph_gated_mlp(g, xv, gv, uv, dv, act)};
        ts_graph_set_outputs(g, outs, 2);
        CHECK_INT_EQ(ts_graph_decompose(g, &d, NULL, &err), TS_OK);
        const void *params[5] = {x, wg, wu, wd, bias};
        float *got = run_value(d, params, d->outputs[0]);
        CHECK(got && max_rel_err(got, lin, L * I) < 1e-6);
        free(got);
        got = run_value(d, params, d->outputs[1]);
        CHECK(got && max_rel_err(got, mlp, L * H) < 2e-6);
        free(got);
        ts_graph_destroy(d);
        ts_graph_destroy(g);
    }
}

static void test_softmax_with_bias(void)
{
    float x[6] = {1, 2, 3, -1, 0, 1000}, bias[6] = {0, 0, -INFINITY, 0, 0, 0};
    ts_graph *g, *d;
    ts_error err;
    ts_graph_create(&g, &err);
    ts_value xv = ts_graph_parameter(g, "x", TS_PARAM_INPUT, t2(TS_DTYPE_F32, 2, 3));
    ts_value bv = ts_graph_parameter(g, "b", TS_PARAM_INPUT, t2(TS_DTYPE_F32, 2, 3));
    ts_value o = ts_graph_softmax(g, xv, bv);
    ts_graph_set_outputs(g, &o, 1);
    CHECK_INT_EQ(ts_graph_decompose(g, &d, NULL, &err), TS_OK);
    const void *params[2] = {x, bias};
    float *got = run_value(d, params, d->outputs[0]);
    double e = exp(1.0);
    CHECK(got && fabs(got[0] - 1 / (1 + e)) < 1e-7 && fabs(got[1] - e / (1 + e)) < 1e-7 && got[2] == 0);
    CHECK(got && got[5] == 1 && got[3] == 0); /* max-subtraction keeps 1000 finite */
    free(got);
    ts_graph_destroy(d);
    ts_graph_destroy(g);
}

int main(void)
{
    RUN(test_builder_errors_are_sticky_and_named);
    RUN(test_reference_primitives);
    RUN(test_reference_gather_scatter_convert);
    RUN(test_rms_and_layer_norm);
    RUN(test_rope);
    RUN(test_attention);
    RUN(test_linear_and_mlp_with_bf16_weights);
    RUN(test_softmax_with_bias);
    return check_finish();
}
