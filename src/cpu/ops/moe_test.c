/* moe_test.c — the MoE kernel's tiled experts (gate/up and down as tiled matmuls over each
 * expert's grouped tokens) against its row loops, bit for bit: prefill shapes with random routing
 * (some experts tiled, some not) and uniform routing (every token in the same experts), below 16
 * tokens (nothing tiles), f32 and bf16 experts, k over one 256-wide chunk; then a
 * micro-benchmark of both on a synthetic prefill shape (printed, never asserted). */
#include "cpu/kernels.h"
#include "cpu/ops.h"
#include "base/context.h"
#include "base/pool.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

static float lcg(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (float)((int)(*state >> 24) - 128) / 1024.0f;
}

static uint16_t to_bf16(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return (uint16_t)(bits >> 16); /* multiples of 1/1024 below 1/8 are exact in bf16 */
}

typedef struct {
    int64_t m, h, experts, inter;
    int top_k;
    ts_dtype dtype;
    float *x, *router;
    void *gate_up, *down;
} moe_case;

static void case_init(moe_case *c, int64_t m, int64_t h, int64_t experts, int64_t inter, int top_k,
                      ts_dtype dtype, bool uniform, uint32_t seed)
{
    *c = (moe_case){m, h, experts, inter, top_k, dtype, NULL, NULL, NULL, NULL};
    size_t es = dtype == TS_DTYPE_F32 ? 4 : 2, ngu = (size_t)(experts * h * 2 * inter),
           nd = (size_t)(experts * inter * h);
    c->x = malloc(sizeof(float) * (size_t)(m * h));
    c->router = malloc(sizeof(float) * (size_t)(experts * h));
    c->gate_up = malloc(es * ngu);
    c->down = malloc(es * nd);
    for (int64_t i = 0; i < m * h; i++)
        c->x[i] = lcg(&seed) * 8;
    /* A zero router gives every expert the same probability: each token picks experts 0 … k−1. */
    for (int64_t i = 0; i < experts * h; i++)
        c->router[i] = uniform ? 0.0f : lcg(&seed);
    for (size_t i = 0; i < ngu + nd; i++) {
        float v = lcg(&seed);
        void *dst = i < ngu ? c->gate_up : c->down;
        size_t at = i < ngu ? i : i - ngu;
        if (dtype == TS_DTYPE_F32)
            ((float *)dst)[at] = v;
        else
            ((uint16_t *)dst)[at] = to_bf16(v);
    }
}

static void case_free(moe_case *c)
{
    free(c->x), free(c->router), free(c->gate_up), free(c->down);
}

/* One run of the kernel; returns seconds. */
static double run(const ts_cpu *cpu, const moe_case *c, float *y)
{
    size_t bytes = ts_cpu_moe_mlp_scratch_bytes(c->m, c->h, c->experts, c->inter, c->top_k,
                                                ts_pool_size(cpu->pool));
    void *scratch = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    ts_error err;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK_INT_EQ(ts_cpu_moe_mlp(cpu, c->x, c->m, c->h, c->router, TS_DTYPE_F32, c->gate_up, c->down,
                                c->dtype, c->experts, c->inter, c->top_k, true, TS_ACT_SILU, y,
                                scratch, &err),
                 TS_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    free(scratch);
    return (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
}

static ts_pool *pool;
static ts_kernels row_loops; /* the selected table without the tiled kernel: today's path */
static ts_cpu tiled_cpu, row_cpu;

static void test_tiled_matches_row_loops(void)
{
    if (!tiled_cpu.kernels->gemm_kn_f32) {
        CHECK_SKIP("no tiled kernel on this CPU (the row loops are all there is)");
        return;
    }
    static const struct {
        int64_t m, h, experts, inter;
        int top_k;
        ts_dtype dtype;
        bool uniform;
    } cases[] = {
        {40, 37, 4, 13, 2, TS_DTYPE_F32, false},   /* odd sizes, one panel */
        {96, 300, 6, 40, 2, TS_DTYPE_BF16, false}, /* k over 256 (two chunks), 80 columns */
        {33, 64, 8, 48, 3, TS_DTYPE_F32, true},    /* every token in experts 0, 1, 2 */
        {64, 65, 16, 20, 4, TS_DTYPE_BF16, false}, /* groups on both sides of 16 */
        {15, 64, 2, 48, 2, TS_DTYPE_F32, true},    /* 15 tokens: row loops only */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        moe_case c;
        case_init(&c, cases[i].m, cases[i].h, cases[i].experts, cases[i].inter, cases[i].top_k,
                  cases[i].dtype, cases[i].uniform, 11 + (uint32_t)i);
        float *a = malloc(sizeof(float) * (size_t)(c.m * c.h)),
              *b = malloc(sizeof(float) * (size_t)(c.m * c.h));
        run(&tiled_cpu, &c, a);
        run(&row_cpu, &c, b);
        double worst = 0, scale = 0;
        for (int64_t j = 0; j < c.m * c.h; j++)
            worst = fmax(worst, fabs((double)a[j] - b[j])), scale = fmax(scale, fabs(b[j]));
        fprintf(stderr,
                "  %lld tokens, H %lld, %lld experts × I %lld, top %d, %s: max |tiled − row loops| "
                "%.3g (max |y| %.3g)\n",
                (long long)c.m, (long long)c.h, (long long)c.experts, (long long)c.inter, c.top_k,
                ts_dtype_name(c.dtype), worst, scale);
        CHECK(scale > 0.01); /* the outputs are not all zero */
        CHECK(memcmp(a, b, sizeof(float) * (size_t)(c.m * c.h)) == 0);
        free(a), free(b);
        case_free(&c);
    }
}

/* A prefill chunk on a scaled-down Qwen3-MoE shape (H 1024, 32 experts of I 384, top 4, bf16),
 * best of 3; a quarter of it in unoptimised (sanitizer) builds, where only the path is of
 * interest. */
static void test_micro_benchmark(void)
{
    if (!tiled_cpu.kernels->gemm_kn_f32) {
        CHECK_SKIP("no tiled kernel on this CPU");
        return;
    }
    moe_case c;
#ifdef NDEBUG
    case_init(&c, 256, 1024, 32, 384, 4, TS_DTYPE_BF16, false, 99);
#else
    case_init(&c, 128, 512, 16, 192, 4, TS_DTYPE_BF16, false, 99);
#endif
    float *y = malloc(sizeof(float) * (size_t)(c.m * c.h));
    double best[2] = {INFINITY, INFINITY};
    for (int rep = 0; rep < 3; rep++) {
        best[0] = fmin(best[0], run(&row_cpu, &c, y));
        best[1] = fmin(best[1], run(&tiled_cpu, &c, y));
    }
    double macs = (double)c.m * c.top_k * (double)(3 * c.h * c.inter);
    fprintf(stderr,
            "  moe_mlp micro-benchmark, %lld tokens, H %lld, %lld experts × I %lld, top %d, bf16 "
            "experts, %d threads (%s): "
            "row loops %.1f ms (%.1f GFLOP/s), tiled %.1f ms (%.1f GFLOP/s), %.1f× faster\n",
            (long long)c.m, (long long)c.h, (long long)c.experts, (long long)c.inter, c.top_k,
            ts_pool_size(pool), tiled_cpu.kernels->level, 1e3 * best[0], 2e-9 * macs / best[0],
            1e3 * best[1], 2e-9 * macs / best[1], best[0] / best[1]);
    CHECK(isfinite(y[0]));
    free(y);
    case_free(&c);
}

int main(void)
{
    ts_error err;
    ts_context *ctx;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    pool = ctx->pool;
    /* The context's features: $TESSERA_CPU caps them as it does every other test's. */
    const ts_kernels *best = ts_kernels_select(ctx->cpu_features);
    row_loops = *best;
    row_loops.gemm_kn_f32 = NULL;
    tiled_cpu = (ts_cpu){.kernels = best, .pool = pool};
    row_cpu = (ts_cpu){.kernels = &row_loops, .pool = pool};
    RUN(test_tiled_matches_row_loops);
    RUN(test_micro_benchmark);
    ts_context_destroy(ctx);
    return check_finish();
}
