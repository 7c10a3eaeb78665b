/* mlp_test.c — the gated MLP's fused bf16 path (gate and up a few columns at a time, act(gate)·up
 * rounded to bf16 while in cache) gives the unfused path's bits (gate and up as whole f32
 * products, then act·up, then rounded by the down projection), for tiled row counts, widths that
 * leave a part column block, SiLU (the vector logistic) and GELU; and both are the bf16 product
 * of an independent sum in double, to bf16 rounding. Skipped without the VDPBF16PS GEMM (the
 * fused path is that kernel's). */
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
    return (float)((int)(*state >> 24) - 128) / 512.0f;
}

static float widen(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static float bf16_round(float f) { return widen(ts_f32_to_bf16_scalar(f)); }

static ts_pool *pool;
static const ts_kernels *best;

static void test_fused_is_unfused(void)
{
    static const int64_t shapes[][3] = {{16, 64, 96}, {37, 66, 90}, {100, 128, 200}};
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        int64_t m = shapes[s][0], h = shapes[s][1], inter = shapes[s][2];
        uint32_t seed = 11 + (uint32_t)s;
        float *x = malloc(sizeof(float) * (size_t)(m * h));
        uint16_t *w = malloc(sizeof(uint16_t) * (size_t)(3 * inter * h));
        for (int64_t i = 0; i < m * h; i++) x[i] = lcg(&seed) * 4;
        for (int64_t i = 0; i < 3 * inter * h; i++) w[i] = ts_f32_to_bf16_scalar(lcg(&seed));
        const uint16_t *wg = w, *wu = w + inter * h, *wd = w + 2 * inter * h;
        for (int a = 0; a < 2; a++) {
            ts_activation act = a ? TS_ACT_GELU : TS_ACT_SILU;
            float *y[2];
            for (int fused = 0; fused < 2; fused++) {
                ts_cpu_act buf = {.want = -1, .key = -1};
                ts_cpu cpu = {.kernels = best, .pool = pool, .bf16_passes = 1, .act = fused ? &buf : NULL};
                void *scratch = malloc(ts_cpu_gated_mlp_scratch_bytes(m, inter));
                y[fused] = malloc(sizeof(float) * (size_t)(m * h));
                ts_error err;
                CHECK_INT_EQ(ts_cpu_gated_mlp(&cpu, x, m, h, wg, wu, wd, TS_DTYPE_BF16, inter, act, y[fused],
                                              scratch, &err),
                             TS_OK);
                free(scratch), free(buf.buf);
            }
            CHECK(memcmp(y[0], y[1], sizeof(float) * (size_t)(m * h)) == 0);
            /* independent: bf16(x) products in double, act·up rounded to bf16, the down product */
            double worst = 0;
            float *t = malloc(sizeof(float) * (size_t)inter);
            for (int64_t r = 0; r < m; r++) {
                for (int64_t o = 0; o < inter; o++) {
                    double g = 0, u = 0;
                    for (int64_t i = 0; i < h; i++) {
                        double xv = bf16_round(x[r * h + i]);
                        g += xv * widen(wg[o * h + i]);
                        u += xv * widen(wu[o * h + i]);
                    }
                    t[o] = bf16_round(ts_cpu_activation(act, (float)g) * (float)u);
                }
                for (int64_t o = 0; o < h; o++) {
                    double want = 0, mag = 0;
                    for (int64_t i = 0; i < inter; i++) {
                        double p = (double)t[i] * widen(wd[o * inter + i]);
                        want += p, mag += fabs(p);
                    }
                    double e = fabs(y[1][r * h + o] - want) / (mag + 1e-30);
                    worst = e > worst ? e : worst;
                }
            }
            /* act·up's bf16 rounding (2^-9 of each term) is where the two may part */
            CHECK(worst < 1e-2);
            free(t), free(y[0]), free(y[1]);
        }
        free(x), free(w);
    }
}

int main(void)
{
    ts_error err;
    ts_context *ctx;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    pool = ctx->pool;
    best = ts_kernels_select(ctx->cpu_features);
    if (best->gemm_bf16)
        RUN(test_fused_is_unfused);
    else
        CHECK_SKIP("no AVX512_BF16 GEMM: the fused path is that kernel's");
    ts_context_destroy(ctx);
    return check_finish();
}
