/* attention_test.c — many-row attention under the bf16 policy (attention.c) packs its rounded keys
 * and values once: as bf16 pairs for gemm_bf16_panel (VDPBF16PS), or where the table has no pair
 * panel (Intel's: its bf16 products run as FMAs) widened to f32 for gemm_f32_panel. Each CPU
 * takes one of the two; both run here on any CPU with AVX512_BF16, against an independent sum in
 * double over the bf16-rounded queries, keys, values and softmax weights (the weights' rounding,
 * 2^-9 each, is where they may part), on causal blocks that end mid-panel, a cache longer than
 * the queries see, a bias, a soft-cap, GQA, head widths 2 to 128 and value widths apart from
 * them (a last value panel of 8 or 16 columns). The widened path is also held bit
 * for bit to a scalar model of its order: each score a chain of FMAs over the head in order, the
 * table's softmax, each output a chain of FMAs over the keys and the panel's zero padding. */
#include "cpu/kernels.h"
#include "cpu/ops.h"
#include "base/context.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static float lcg(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (float)((int)(*state >> 24) - 128) / 128.0f;
}

static float bf16_round(float f)
{
    uint32_t bits = (uint32_t)ts_f32_to_bf16_scalar(f) << 16;
    float r;
    memcpy(&r, &bits, 4);
    return r;
}

static ts_pool *pool;
static const ts_kernels *best;

typedef struct {
    int64_t lq, lk, q_heads, kv_heads, d, dv, q_start;
    bool bias;
    double softcap;
} shape;

/* out (lq × q_heads × d) by the bf16 path of the table `kern`. */
static void run(const ts_kernels *kern, const ts_attention_shape *s, const float *q, const float *k,
                const float *v, const float *bias, float *out)
{
    ts_cpu cpu = {.kernels = kern, .pool = pool, .bf16_attention = true};
    size_t bytes = (ts_cpu_attention_scratch_bytes(&cpu, s) + 63) / 64 * 64;
    void *scratch = aligned_alloc(64, bytes);
    memset(scratch, 0xff, bytes); /* NaNs: a padding left unwritten would show */
    ts_cpu_attention(&cpu, s, q, k, v, bias, out, scratch);
    free(scratch);
}

/* Every output within 5e-3 of Σ p·|v| (two bf16 roundings of a weight apart at most) of the sum
 * in double over the rounded operands with the weights rounded to bf16. */
static bool near_double(const ts_attention_shape *s, const float *q, const float *k,
                        const float *v, const float *bias, const float *got)
{
    int64_t d = s->head_dim, dv = s->v_dim, group = s->q_heads / s->kv_heads;
    double *p = malloc(sizeof(double) * (size_t)s->lk);
    bool ok = true;
    for (int64_t i = 0; i < s->lq; i++)
        for (int64_t h = 0; h < s->q_heads; h++) {
            int64_t kh = h / group, visible = s->lk;
            if (s->q_start >= 0 && s->q_start + i + 1 < visible) visible = s->q_start + i + 1;
            double m = -INFINITY, sum = 0;
            for (int64_t t = 0; t < visible; t++) {
                double dot = 0;
                for (int64_t c = 0; c < d; c++)
                    dot += (double)bf16_round(q[(i * s->q_heads + h) * d + c]) *
                           bf16_round(k[(t * s->kv_heads + kh) * d + c]);
                p[t] = dot * s->scale;
                if (s->softcap > 0) p[t] = tanh(p[t] / s->softcap) * s->softcap;
                p[t] += bias ? bias[i * s->lk + t] : 0;
                m = p[t] > m ? p[t] : m;
            }
            for (int64_t t = 0; t < visible; t++) sum += p[t] = exp(p[t] - m);
            for (int64_t t = 0; t < visible; t++) p[t] = bf16_round((float)(p[t] / sum));
            for (int64_t c = 0; c < dv; c++) {
                double want = 0, mag = 0;
                for (int64_t t = 0; t < visible; t++) {
                    double x = bf16_round(v[(t * s->kv_heads + kh) * dv + c]);
                    want += p[t] * x, mag += p[t] * fabs(x);
                }
                double e = fabs(got[(i * s->q_heads + h) * dv + c] - want);
                if (!(e <= 5e-3 * mag + 1e-6)) {
                    if (ok)
                        fprintf(stderr, "  row %lld head %lld column %lld: %g, want %g\n",
                                (long long)i, (long long)h, (long long)c,
                                got[(i * s->q_heads + h) * dv + c], want);
                    ok = false;
                }
            }
        }
    free(p);
    return ok;
}

/* The widened path's own order, non-causal without a bias or a cap (every block sees every
 * key): the scores as chains of FMAs over the head, the table's softmax_bf16 (scaling, rounding
 * back into the row), the outputs as chains of FMAs over the keys then the panel's zero padding. */
static bool widened_bits(const ts_kernels *kern, const ts_attention_shape *s, const float *q,
                         const float *k, const float *v, const float *got)
{
    int64_t d = s->head_dim, dv = s->v_dim, group = s->q_heads / s->kv_heads;
    int64_t lkb = (s->lk + 31) / 32 * 32;
    float *row = malloc(sizeof(float) * (size_t)lkb);
    bool ok = true;
    for (int64_t i = 0; i < s->lq; i++)
        for (int64_t h = 0; h < s->q_heads; h++) {
            int64_t kh = h / group;
            for (int64_t t = 0; t < s->lk; t++) {
                float acc = 0;
                for (int64_t c = 0; c < d; c++)
                    acc = fmaf(bf16_round(q[(i * s->q_heads + h) * d + c]),
                               bf16_round(k[(t * s->kv_heads + kh) * d + c]), acc);
                row[t] = acc;
            }
            kern->softmax_bf16(row, (size_t)s->lk, (float)s->scale, NULL, NULL);
            for (int64_t c = 0; c < dv; c++) {
                float acc = 0;
                for (int64_t t = 0; t < lkb; t++) {
                    float x = t < s->lk ? bf16_round(v[(t * s->kv_heads + kh) * dv + c]) : 0.0f;
                    acc = fmaf(t < s->lk ? row[t] : 0.0f, x, acc);
                }
                float g = got[(i * s->q_heads + h) * dv + c];
                ok &= memcmp(&g, &acc, sizeof(float)) == 0;
            }
        }
    free(row);
    return ok;
}

#if defined(__x86_64__)
static void test_pairs_and_widened(void)
{
    static const shape shapes[] = {
        {150, 150, 6, 2, 80, 80, 0, false, 0},   /* causal: blocks of 64, keys ending mid-panel */
        {70, 120, 4, 4, 24, 24, 30, false, 0},   /* appended at 30 of a longer cache */
        {40, 40, 6, 2, 24, 24, -1, true, 0},     /* non-causal with a bias */
        {100, 97, 2, 1, 64, 40, -1, false, 0},   /* the last key panel part-filled; values 32 + 8 */
        {33, 50, 4, 2, 2, 16, -1, false, 0},     /* a 2-wide head, 16 values */
        {48, 48, 2, 1, 128, 72, 0, false, 30.0}, /* causal with a soft-cap */
    };
    ts_kernels pairs = *best, widened = *best;
    pairs.gemm_bf16_panel = ts_gemm_bf16_panel_avx512bf16;
    widened.gemm_bf16_panel = NULL;
    widened.gemm_f32_panel = ts_gemm_f32_panel_avx512;
    for (size_t n = 0; n < sizeof(shapes) / sizeof(shapes[0]); n++) {
        const shape *sh = &shapes[n];
        ts_attention_shape s = {.lq = sh->lq, .lk = sh->lk, .q_heads = sh->q_heads,
                                .kv_heads = sh->kv_heads, .head_dim = sh->d, .v_dim = sh->dv,
                                .kv_dtype = TS_DTYPE_F32, .q_start = sh->q_start,
                                .scale = 1.0 / sqrt((double)sh->d), .softcap = sh->softcap};
        uint32_t seed = 7 + (uint32_t)n;
        size_t nq = (size_t)(s.lq * s.q_heads * s.head_dim);
        size_t nk = (size_t)(s.lk * s.kv_heads * s.head_dim);
        size_t nv = (size_t)(s.lk * s.kv_heads * s.v_dim);
        size_t no = (size_t)(s.lq * s.q_heads * s.v_dim);
        float *q = malloc(sizeof(float) * nq), *k = malloc(sizeof(float) * nk);
        float *v = malloc(sizeof(float) * nv), *bias = NULL;
        for (size_t i = 0; i < nq; i++) q[i] = lcg(&seed) * 2;
        for (size_t i = 0; i < nk; i++) k[i] = lcg(&seed) * 2;
        for (size_t i = 0; i < nv; i++) v[i] = lcg(&seed);
        if (sh->bias) {
            bias = malloc(sizeof(float) * (size_t)(s.lq * s.lk));
            /* a segment mask's 0 and −inf, and values */
            for (int64_t i = 0; i < s.lq * s.lk; i++)
                bias[i] = i % 7 == 2 ? -INFINITY : i % 5 == 1 ? lcg(&seed) : 0.0f;
        }
        float *out[2];
        for (int w = 0; w < 2; w++) {
            out[w] = malloc(sizeof(float) * no);
            for (size_t i = 0; i < no; i++) out[w][i] = NAN;
            run(w ? &widened : &pairs, &s, q, k, v, bias, out[w]);
            CHECK(near_double(&s, q, k, v, bias, out[w]));
        }
        if (sh->q_start < 0 && !sh->bias && !(sh->softcap > 0))
            CHECK(widened_bits(&widened, &s, q, k, v, out[1]));
        free(q), free(k), free(v), free(bias), free(out[0]), free(out[1]);
    }
}
#endif

int main(void)
{
    ts_error err;
    ts_context *ctx;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    pool = ctx->pool;
    best = ts_kernels_select(ctx->cpu_features);
#if defined(__x86_64__)
    if (best->gemm_bf16 && (ctx->cpu_features & TS_CPU_AVX512_BF16))
        RUN(test_pairs_and_widened);
    else
#endif
        CHECK_SKIP("no AVX512_BF16: the bf16 attention path is not taken");
    ts_context_destroy(ctx);
    return check_finish();
}
