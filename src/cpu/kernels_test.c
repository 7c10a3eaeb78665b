/* kernels_test.c — every SIMD kernel the CPU allows agrees with the portable reference, on odd
 * sizes and tails; selection honours a capped feature mask. */
#include "cpu/kernels.h"
#include "check.h"

#include <math.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

static uint16_t to_bf16(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return (uint16_t)(bits >> 16); /* truncation: inputs below are exactly representable */
}

static float from_bf16(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static float lcg(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    /* Multiples of 1/256 in [-1, 1): exact in bf16, so products sum without representation error. */
    return (float)((int)(*state >> 24) - 128) / 128.0f;
}

typedef float (*dot_fn)(const float *, const float *, size_t);
typedef float (*dot_bf16_fn)(const uint16_t *, const float *, size_t);

static void compare(const char *name, dot_fn f32, dot_bf16_fn bf16, void (*widen)(const uint16_t *, float *, size_t), double tol)
{
    static const size_t sizes[] = {0, 1, 3, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1000, 4099};
    uint32_t seed = 7;
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s];
        float *a = malloc((n + 1) * sizeof(float)), *b = malloc((n + 1) * sizeof(float));
        uint16_t *w = malloc((n + 1) * sizeof(uint16_t));
        float *wide = malloc((n + 1) * sizeof(float));
        for (size_t i = 0; i < n; i++) {
            a[i] = lcg(&seed);
            b[i] = lcg(&seed);
            w[i] = to_bf16(a[i]);
        }
        if (f32) {
            double ref = ts_dot_f32_ref(a, b, n), got = f32(a, b, n);
            if (fabs(ref - got) > tol * (1 + fabs(ref))) fprintf(stderr, "%s dot_f32 n=%zu: %g vs %g\n", name, n, got, ref);
            CHECK(fabs(ref - got) <= tol * (1 + fabs(ref)));
        }
        if (bf16) {
            double ref = ts_dot_bf16_f32_ref(w, b, n), got = bf16(w, b, n);
            if (fabs(ref - got) > tol * (1 + fabs(ref))) fprintf(stderr, "%s dot_bf16 n=%zu: %g vs %g\n", name, n, got, ref);
            CHECK(fabs(ref - got) <= tol * (1 + fabs(ref)));
        }
        if (widen) {
            widen(w, wide, n);
            int same = 1;
            for (size_t i = 0; i < n; i++) same &= wide[i] == a[i];
            CHECK(same);
        }
        free(a), free(b), free(w), free(wide);
    }
}

static void test_variants_match_reference(void)
{
    unsigned f = ts_cpu_features();
    compare("portable", ts_dot_f32_ref, ts_dot_bf16_f32_ref, ts_bf16_to_f32_ref, 0);
#if defined(__x86_64__)
    if (f & TS_CPU_AVX2) compare("avx2", ts_dot_f32_avx2, ts_dot_bf16_f32_avx2, ts_bf16_to_f32_avx2, 1e-5);
    if (f & TS_CPU_AVX512) compare("avx512", ts_dot_f32_avx512, ts_dot_bf16_f32_avx512, ts_bf16_to_f32_avx512, 1e-5);
    /* Inputs are multiples of 1/128, exact in bf16, so rounding x to bf16 changes nothing. */
    if (f & TS_CPU_AVX512_BF16) compare("avx512_bf16", NULL, ts_dot_bf16_f32_avx512bf16, NULL, 1e-5);
#endif
    if (!(f & TS_CPU_AVX2)) fprintf(stderr, "note: no AVX2 on this CPU; only the portable kernels ran\n");
}

/* The several-rows dots and the pairs and tiles of weight rows give each dot the exact bits of the
 * single dot (a batched decode step must not change any sequence's numbers), on random floats
 * that do round, for 1–4 rows and tails. */
static void test_dot_rows_are_the_single_dots(void)
{
#if defined(__x86_64__)
    if (!(ts_cpu_features() & TS_CPU_AVX512)) {
        CHECK_SKIP("no AVX-512 on this CPU");
        return;
    }
    static const size_t sizes[] = {1, 15, 16, 17, 31, 32, 33, 64, 100, 896, 4099};
    uint32_t seed = 11;
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s], ldx = n + 3, ldw = n + 5;
        /* TS_DOT_TILE weight rows ldw apart for the tiles; the single-row calls use the first */
        float *w = malloc(TS_DOT_TILE * ldw * sizeof(float)), *x = malloc(4 * ldx * sizeof(float)), out[4],
              tile[4 * TS_DOT_TILE];
        uint16_t *wb = malloc(TS_DOT_TILE * ldw * sizeof(uint16_t));
        for (size_t i = 0; i < TS_DOT_TILE * ldw; i++) {
            w[i] = lcg(&seed) * 1.37f + lcg(&seed) * 0.001f;
            wb[i] = to_bf16(w[i]);
        }
        for (size_t i = 0; i < 4 * ldx; i++) x[i] = lcg(&seed) * 0.731f + lcg(&seed) * 1e-4f;
        for (int rows = 1; rows <= 4; rows++) {
            int same = 1;
            ts_dot_rows_f32_avx512(w, x, ldx, rows, n, out);
            for (int r = 0; r < rows; r++) same &= out[r] == ts_dot_f32_avx512(w, x + r * ldx, n);
            ts_dot_rows_bf16_f32_avx512(wb, x, ldx, rows, n, out);
            for (int r = 0; r < rows; r++) same &= out[r] == ts_dot_bf16_f32_avx512(wb, x + r * ldx, n);
            if (!same) fprintf(stderr, "dot_rows n=%zu rows=%d differs from the single dots\n", n, rows);
            CHECK(same);
            same = 1;
            ts_dot_tile_f32_avx512(w, ldw, x, ldx, rows, n, tile);
            for (int r = 0; r < rows; r++)
                for (int o = 0; o < TS_DOT_TILE; o++)
                    same &= tile[r * TS_DOT_TILE + o] == ts_dot_f32_avx512(w + o * ldw, x + r * ldx, n);
            ts_dot_tile_bf16_f32_avx512(wb, ldw, x, ldx, rows, n, tile);
            for (int r = 0; r < rows; r++)
                for (int o = 0; o < TS_DOT_TILE; o++)
                    same &= tile[r * TS_DOT_TILE + o] == ts_dot_bf16_f32_avx512(wb + o * ldw, x + r * ldx, n);
            ts_dot_pair_f32_avx512(w, ldw, x, ldx, rows, n, tile);
            for (int r = 0; r < rows; r++)
                for (int o = 0; o < 2; o++) same &= tile[r * 2 + o] == ts_dot_f32_avx512(w + o * ldw, x + r * ldx, n);
            ts_dot_pair_bf16_f32_avx512(wb, ldw, x, ldx, rows, n, tile);
            for (int r = 0; r < rows; r++)
                for (int o = 0; o < 2; o++)
                    same &= tile[r * 2 + o] == ts_dot_bf16_f32_avx512(wb + o * ldw, x + r * ldx, n);
            if (!same) fprintf(stderr, "dot_tile or dot_pair n=%zu rows=%d differs from the single dots\n", n, rows);
            CHECK(same);
        }
        free(w), free(x), free(wb);
    }
#else
    CHECK_SKIP("the AVX-512 kernels are x86-64 only");
#endif
}

/* Rounds to bf16, nearest even (inputs below are finite). */
static uint16_t round_to_bf16(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return (uint16_t)((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

/* The bf16-activation decode dots: the portable reference within the summation bound of the
 * exact sum on any CPU; with AVX512_BF16, every shape (single, rows, pair) bit for bit the
 * reference (VDPBF16PS emulated lane by lane) on odd sizes, tails and flushed subnormals. */
static void test_dot_bf16_bf16(void)
{
    static const size_t sizes[] = {1, 2, 3, 15, 31, 32, 33, 63, 64, 65, 95, 96, 100, 127, 896, 4099};
    static const int shapes[] = {1, 2};
    uint32_t seed = 23;
    double worst = 0;
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s], ldx = n + 3, ldw = n + 5;
        uint16_t *w = malloc(TS_DOT_TILE * ldw * sizeof(uint16_t)), *x = malloc(4 * ldx * sizeof(uint16_t));
        /* Values over a few binades, so that the sums round; some subnormal (flushed to zero). */
        for (size_t i = 0; i < TS_DOT_TILE * ldw; i++)
            w[i] = round_to_bf16(ldexpf(lcg(&seed) + lcg(&seed) * 0.0071f, (int)(seed >> 28) - 8));
        for (size_t i = 0; i < 4 * ldx; i++)
            x[i] = round_to_bf16(ldexpf(lcg(&seed) * 0.731f + lcg(&seed) * 1e-3f, (int)(seed >> 29) - 4));
        w[n / 2] = 0x0005, x[n / 3] = 0x8011; /* subnormals */
        float ref[4 * TS_DOT_TILE];
        for (int r = 0; r < 4; r++)
            for (int o = 0; o < TS_DOT_TILE; o++) {
                const uint16_t *wo = w + o * ldw, *xr = x + r * ldx;
                ref[r * TS_DOT_TILE + o] = ts_dot_bf16_bf16_ref(wo, xr, n);
                double exact = 0, mag = 0;
                for (size_t i = 0; i < n; i++) {
                    uint32_t a = (uint32_t)wo[i] << 16, b = (uint32_t)xr[i] << 16;
                    float fa, fb;
                    memcpy(&fa, &a, 4), memcpy(&fb, &b, 4);
                    if (!(wo[i] & 0x7f80) || !(xr[i] & 0x7f80)) continue; /* subnormal: flushed */
                    exact += (double)fa * fb, mag += fabs((double)fa * fb);
                }
                double err = fabs(ref[r * TS_DOT_TILE + o] - exact);
                worst = fmax(worst, err / (mag + 1e-30));
                CHECK(err <= (double)(n + 4) * 0x1p-24 * mag);
            }
        if (ts_cpu_features() & TS_CPU_AVX512_BF16) {
#if defined(__x86_64__)
            for (size_t si = 0; si < 2; si++)
                for (int rows = 1; rows <= 4; rows++) {
                    int wr = shapes[si], same = 1;
                    float out[4 * TS_DOT_TILE];
                    ts_dot_bf16_bf16_avx512bf16(w, ldw, wr, x, ldx, rows, n, out);
                    for (int r = 0; r < rows; r++)
                        for (int o = 0; o < wr; o++) same &= out[r * wr + o] == ref[r * TS_DOT_TILE + o];
                    if (!same) fprintf(stderr, "dot_bf16_bf16 n=%zu wrows=%d rows=%d differs from the reference\n", n, wr, rows);
                    CHECK(same);
                }
#endif
        }
        free(w), free(x);
    }
    fprintf(stderr, "  dot_bf16_bf16: worst error of the reference %.2e of the magnitude\n", worst);
}

/* f16 variants against the reference, including subnormals, infinities and signed zeros. */
static void test_f16_variants(void)
{
    enum { N = 1031 };
    uint16_t w[N];
    float x[N], ref[N], got[N];
    uint32_t seed = 3;
    for (int i = 0; i < N; i++) {
        seed = seed * 1664525u + 1013904223u;
        w[i] = (uint16_t)(seed >> 16);
        if ((w[i] & 0x7c00) == 0x7c00) w[i] &= 0xbfff; /* keep inf/NaN out of the dot */
        x[i] = (float)((int)(seed & 0xff) - 128) / 128.0f;
    }
    w[0] = 0x0001; /* smallest subnormal */
    w[1] = 0x8000; /* -0 */
    w[2] = 0x3c00; /* 1.0 */
    ts_f16_to_f32_ref(w, ref, N);
    CHECK(ref[0] == 5.9604644775390625e-08f && ref[2] == 1.0f && signbit(ref[1]));
    double want = 0;
    for (int i = 0; i < N; i++) want += (double)ref[i] * x[i];
    CHECK(fabs(ts_dot_f16_f32_ref(w, x, N) - want) <= 1e-3 * (1 + fabs(want)));
#if defined(__x86_64__)
    unsigned f = ts_cpu_features();
    if (f & TS_CPU_AVX2) {
        ts_f16_to_f32_avx2(w, got, N);
        CHECK(memcmp(got, ref, sizeof(ref)) == 0);
        CHECK(fabs(ts_dot_f16_f32_avx2(w, x, N) - want) <= 1e-3 * (1 + fabs(want)));
    }
    if (f & TS_CPU_AVX512) {
        ts_f16_to_f32_avx512(w, got, N);
        CHECK(memcmp(got, ref, sizeof(ref)) == 0);
        CHECK(fabs(ts_dot_f16_f32_avx512(w, x, N) - want) <= 1e-3 * (1 + fabs(want)));
    }
#endif
}

/* The tiled GEMMs against a plain triple loop, on sizes with row, column and k tails (n 16: the
 * bf16 panel's half-panel tile). */
static void test_gemm_kernels(void)
{
#if defined(__x86_64__)
    unsigned f = ts_cpu_features();
    /* n 20 and 57: a last block of 17–31 columns (both masks partly set). */
    static const int64_t shapes[][3] = {{1, 2, 1},   {5, 36, 33},  {8, 512, 32}, {13, 520, 70},
                                        {17, 64, 1}, {9, 40, 16},  {40, 300, 97}, {11, 40, 20},
                                        {6, 34, 57}};
    uint32_t seed = 5;
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        int64_t m = shapes[s][0], k = shapes[s][1], n = shapes[s][2];
        float *a = malloc(sizeof(float) * (size_t)(m * k)), *c = malloc(sizeof(float) * (size_t)(m * n));
        uint16_t *w = malloc(sizeof(uint16_t) * (size_t)(n * k)), *ab = malloc(sizeof(uint16_t) * (size_t)(m * k));
        double *want = malloc(sizeof(double) * (size_t)(m * n));
        /* bf16 values with varied exponents and mantissas, so sums round: the bit checks below
         * then see the order of the sums and where the bias goes. */
        for (int64_t i = 0; i < m * k; i++)
            ab[i] = to_bf16(lcg(&seed) * (1.0f + 0.37f * (float)(i % 5))), a[i] = from_bf16(ab[i]);
        for (int64_t i = 0; i < n * k; i++) w[i] = to_bf16(lcg(&seed));
        for (int64_t r = 0; r < m; r++)
            for (int64_t o = 0; o < n; o++) {
                double sum = 0;
                for (int64_t i = 0; i < k; i++) {
                    uint32_t bits = (uint32_t)w[o * k + i] << 16;
                    float wf;
                    memcpy(&wf, &bits, 4);
                    sum += (double)a[r * k + i] * wf;
                }
                want[r * n + o] = sum;
            }
        _Alignas(64) static float panel[TS_GEMM_PANEL_FLOATS];
        if (f & TS_CPU_AVX512) {
            ts_gemm_f32_avx512(a, m, k, w, TS_DTYPE_BF16, k, 0, n, c, n, panel);
            bool ok = true;
            for (int64_t i = 0; i < m * n; i++) ok &= fabs(c[i] - want[i]) <= 1e-4 * (1 + fabs(want[i]));
            CHECK(ok);
        }
        /* The [k, n] variant on W transposed (bf16 and f32), a column window from mid-panel. */
        if (f & TS_CPU_AVX512) {
            uint16_t *wkn = malloc(sizeof(uint16_t) * (size_t)(n * k));
            float *wkn32 = malloc(sizeof(float) * (size_t)(n * k));
            for (int64_t o = 0; o < n; o++)
                for (int64_t i = 0; i < k; i++) {
                    wkn[i * n + o] = w[o * k + i];
                    uint32_t bits = (uint32_t)w[o * k + i] << 16;
                    memcpy(&wkn32[i * n + o], &bits, 4);
                }
            for (int dtype = 0; dtype < 2; dtype++) {
                int64_t n0 = n > 33 ? 33 : 0; /* a window starting mid-panel */
                for (int64_t i = 0; i < m * n; i++)
                    c[i] = NAN;
                ts_gemm_kn_f32_avx512(a, m, k, dtype ? (const void *)wkn32 : wkn,
                                      dtype ? TS_DTYPE_F32 : TS_DTYPE_BF16, n, n0, n, c, n, panel);
                /* Bit for bit the plain f32 loop acc += a·w over k in order. */
                bool ok = true;
                for (int64_t r = 0; r < m; r++)
                    for (int64_t o = 0; o < n; o++) {
                        float acc = 0;
                        for (int64_t i = 0; i < k; i++) {
                            float p = a[r * k + i] * wkn32[i * n + o];
                            acc = acc + p;
                        }
                        ok &= o < n0 ? isnan(c[r * n + o]) : c[r * n + o] == acc;
                    }
                CHECK(ok);
            }
            free(wkn), free(wkn32);
        }
        /* Inputs are exact in bf16, so the bf16 kernel must agree as closely. */
        if ((f & TS_CPU_AVX512_BF16) && k % 2 == 0) {
            ts_gemm_bf16_avx512bf16(ab, m, k, w, 0, n, NULL, c, n, panel);
            bool ok = true;
            for (int64_t i = 0; i < m * n; i++) ok &= fabs(c[i] - want[i]) <= 1e-4 * (1 + fabs(want[i]));
            CHECK(ok);
            /* With a bias: the bits of the sums above plus the bias afterwards. */
            float *bias = malloc(sizeof(float) * (size_t)n);
            float *cb = malloc(sizeof(float) * (size_t)(m * n));
            for (int64_t o = 0; o < n; o++) bias[o] = lcg(&seed) * 3.1416f - 1.5f;
            ts_gemm_bf16_avx512bf16(ab, m, k, w, 0, n, bias, cb, n, panel);
            ok = true;
            for (int64_t i = 0; i < m * n; i++) ok &= cb[i] == c[i] + bias[i % n];
            CHECK(ok);
            free(bias), free(cb);
        }
        /* One pre-packed panel (gemm_bf16_panel: the first ≤ 32 weight rows, all of k in one
         * panel whatever its length; gemm_f32_panel on the same values widened), A rows wider
         * apart than k, then accumulated a second time. */
        if ((f & TS_CPU_AVX512) && k % 2 == 0) {
            int cols = n < 32 ? (int)n : 32;
            int64_t kp = k / 2, lda = k + 6;
            uint32_t *pp = aligned_alloc(64, sizeof(uint32_t) * (size_t)(kp * 32) + 64);
            uint16_t *wide = malloc(sizeof(uint16_t) * (size_t)(m * lda));
            for (int64_t p = 0; p < kp; p++)
                for (int j = 0; j < 32; j++) {
                    uint32_t v = 0;
                    if (j < cols) v = (uint32_t)w[j * k + 2 * p] | (uint32_t)w[j * k + 2 * p + 1] << 16;
                    pp[p * 32 + j] = v;
                }
            for (int64_t r = 0; r < m; r++) memcpy(wide + r * lda, ab + r * k, sizeof(uint16_t) * (size_t)k);
            /* VDPBF16PS (where the CPU has it) on the pairs, then gemm_f32_panel (FMA) on the
             * same values widened: each pair row p as f32 rows 2p and 2p + 1, A widened too */
            float *fp = aligned_alloc(64, sizeof(float) * (size_t)(k * 32) + 64);
            float *fa = malloc(sizeof(float) * (size_t)(m * lda));
            for (int64_t p = 0; p < kp; p++)
                for (int j = 0; j < 32; j++) {
                    fp[2 * p * 32 + j] = from_bf16((uint16_t)pp[p * 32 + j]);
                    fp[(2 * p + 1) * 32 + j] = from_bf16((uint16_t)(pp[p * 32 + j] >> 16));
                }
            for (int64_t r = 0; r < m; r++)
                for (int64_t i = 0; i < lda; i++) fa[r * lda + i] = i < k ? a[r * k + i] : NAN;
            for (int fma = (f & TS_CPU_AVX512_BF16) ? 0 : 1; fma < 2; fma++) {
#define PANEL_GEMM(bias, c, accumulate)                                                            \
    (fma ? ts_gemm_f32_panel_avx512(fa, lda, m, k, fp, cols, bias, c, n, accumulate)               \
         : ts_gemm_bf16_panel_avx512bf16(wide, lda, m, kp, pp, cols, bias, c, n, accumulate))
                for (int64_t i = 0; i < m * n; i++) c[i] = NAN;
                PANEL_GEMM(NULL, c, false);
                PANEL_GEMM(NULL, c, true);
                bool ok = true;
                for (int64_t r = 0; r < m; r++)
                    for (int64_t o = 0; o < n; o++) {
                        double got = c[r * n + o], x = 2 * want[r * n + o];
                        /* columns past cols untouched */
                        ok &= o < cols ? fabs(got - x) <= 2e-4 * (1 + fabs(x)) : isnan(got);
                    }
                CHECK(ok);
                /* With a bias: the sums' bits plus the bias; then accumulating, (sums + C) +
                 * bias (cb starting from c's values). */
                float *cb = malloc(sizeof(float) * (size_t)(m * n)), bias[32];
                for (int j = 0; j < 32; j++) bias[j] = lcg(&seed) * 3.1416f - 1.5f;
                for (int accumulate = 0; accumulate < 2; accumulate++) {
                    if (accumulate) memcpy(cb, c, sizeof(float) * (size_t)(m * n));
                    PANEL_GEMM(NULL, c, accumulate);
                    PANEL_GEMM(bias, cb, accumulate);
                    ok = true;
                    for (int64_t r = 0; r < m; r++)
                        for (int64_t o = 0; o < cols; o++)
                            ok &= cb[r * n + o] == c[r * n + o] + bias[o];
                    CHECK(ok);
                }
                free(cb);
                if (fma) { /* each sum over k in order, one FMA a product (the contract's) */
                    for (int64_t i = 0; i < m * n; i++) c[i] = NAN;
                    PANEL_GEMM(NULL, c, false);
                    ok = true;
                    for (int64_t r = 0; r < m; r++)
                        for (int o = 0; o < cols; o++) {
                            float acc = 0;
                            for (int64_t i = 0; i < k; i++)
                                acc = fmaf(fa[r * lda + i], fp[i * 32 + o], acc);
                            ok &= c[r * n + o] == acc;
                        }
                    CHECK(ok);
                }
#undef PANEL_GEMM
            }
            free(pp), free(wide), free(fp), free(fa);
        }
        /* The bf16 policy's GEMM by FMA (Intel's table): the same exact products, f32 sums. */
        if ((f & TS_CPU_AVX512) && k % 2 == 0) {
            float *bias = malloc(sizeof(float) * (size_t)n);
            float *cb = malloc(sizeof(float) * (size_t)(m * n));
            for (int64_t o = 0; o < n; o++) bias[o] = lcg(&seed) * 3.1416f - 1.5f;
            for (int64_t i = 0; i < m * n; i++) c[i] = NAN;
            ts_gemm_bf16_fma_avx512(ab, m, k, w, 0, n, NULL, c, n, panel);
            bool ok = true;
            for (int64_t i = 0; i < m * n; i++)
                ok &= fabs(c[i] - want[i]) <= 1e-4 * (1 + fabs(want[i]));
            CHECK(ok);
            /* With a bias, on the columns from 32 on (a caller's later block: the bias indexed
             * by column): the bits above plus the bias; the columns before it untouched. */
            int64_t n0 = n > 32 ? 32 : 0;
            for (int64_t i = 0; i < m * n; i++) cb[i] = NAN;
            ts_gemm_bf16_fma_avx512(ab, m, k, w, n0, n, bias, cb, n, panel);
            ok = true;
            for (int64_t i = 0; i < m * n; i++)
                ok &= i % n < n0 ? isnan(cb[i]) : cb[i] == c[i] + bias[i % n];
            CHECK(ok);
            free(bias), free(cb);
        }
        free(a), free(c), free(w), free(ab), free(want);
    }
    if (!(f & TS_CPU_AVX512)) CHECK_SKIP("no AVX-512 on this CPU");
#else
    CHECK_SKIP("the AVX-512 kernels are x86-64 only");
#endif
}

/* Softmax rows: every variant within 3 ulp of the portable row (exponentials within 2 ulp of expf,
 * the sum in another order; relative 3.6e-7, absolute 1e-43 among subnormal results), masked
 * (−inf) scores exactly 0, a row of one score exactly 1, an all-masked row and a row with a NaN
 * all NaN as in the portable one; odd sizes and tails; scores down to the −104 clamp and past it.
 * softmax_bf16 gives the bits of its steps done one by one, in every variant, with or without a
 * bias, into out or (widened) back into the row. */
static void test_softmax_variants(void)
{
    static const size_t sizes[] = {1, 3, 15, 16, 17, 33, 100, 1023, 4099};
    /* portable, this CPU's table, and the same without AVX512_BF16 (the other rounding) */
    for (int level = 0; level < 3; level++) {
        unsigned all = ts_cpu_features(), plain = all & ~(unsigned)TS_CPU_AVX512_BF16;
        const ts_kernels *k = ts_kernels_select(level == 0 ? 0 : level == 1 ? all : plain);
        uint32_t seed = 11;
        double worst = 0;
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            size_t n = sizes[s];
            float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
            for (size_t i = 0; i < n; i++) {
                float v = lcg(&seed) * 60.0f - 60.0f + lcg(&seed) * 0.4f; /* (−120, 0.4) */
                a[i] = b[i] = i % 37 == 5 ? -INFINITY : i % 41 == 7 ? 0.0f : v;
            }
            ts_softmax_f32_ref(a, n);
            k->softmax_f32(b, n);
            for (size_t i = 0; i < n; i++) {
                double d = fabs((double)a[i] - b[i]), rel = a[i] > 0 ? d / a[i] : d;
                if (a[i] >= 1e-37f) worst = fmax(worst, rel);
                CHECK(a[i] >= 1e-37f ? rel <= 3.6e-7 : d <= 1e-43);
                if (i % 37 == 5 && n > 5) CHECK(b[i] == 0.0f);
            }
            /* All masked, then a NaN among finite scores: NaN everywhere. */
            for (size_t i = 0; i < n; i++) b[i] = -INFINITY;
            k->softmax_f32(b, n);
            for (size_t i = 0; i < n; i++) CHECK(isnan(b[i]));
            for (size_t i = 0; i < n; i++) b[i] = (float)i;
            b[n / 2] = NAN;
            k->softmax_f32(b, n);
            for (size_t i = 0; i < n; i++) CHECK(isnan(b[i]));
            free(a), free(b);
        }
        float one = -3.5f;
        k->softmax_f32(&one, 1);
        CHECK(one == 1.0f);
        /* softmax_bf16: the bits of its steps at the same level (scaled scores, the bias, the
         * softmax) and the portable rounding, masked scores, a whole masked row, a NaN row and
         * (kinds 6, 7: scores ~200 apart) subnormal probabilities included */
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
            size_t n = sizes[si];
            float *y = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float));
            float *bias = malloc(n * sizeof(float)), *inplace = malloc(n * sizeof(float));
            uint16_t *got = malloc(n * sizeof(uint16_t)), *wantb = malloc(n * sizeof(uint16_t));
            for (int kind = 0; kind < 8; kind++) {
                bool wide = kind >= 6;
                float scale = wide ? 1.0f : kind % 3 == 1 ? 0.125f : 0.11180339f;
                for (size_t i = 0; i < n; i++) {
                    float v = lcg(&seed) * 80.0f - 40.0f;
                    bool masked = kind % 3 == 2 || i % 29 == 3;
                    y[i] = wide ? v * 2.5f : masked ? -INFINITY : v;
                    /* kinds 3-5 with a bias: a segment mask's 0 and −inf, then any value */
                    bias[i] = i % 7 == 2 ? -INFINITY : i % 5 == 1 ? lcg(&seed) * 6.0f - 3.0f : 0.0f;
                }
                if (!wide && kind % 3 == 1 && n > 2) y[n / 2] = NAN;
                const float *b = kind >= 3 && kind != 6 ? bias : NULL;
                for (size_t i = 0; i < n; i++) want[i] = y[i] * scale;
                for (size_t i = 0; b && i < n; i++) want[i] += b[i];
                k->softmax_f32(want, n);
                ts_f32_to_bf16_ref(want, wantb, n);
                memcpy(inplace, y, n * sizeof(float));
                k->softmax_bf16(y, n, scale, b, got);
                CHECK(memcmp(got, wantb, n * sizeof(uint16_t)) == 0);
                /* without out: the same values, widened back into the row */
                k->softmax_bf16(inplace, n, scale, b, NULL);
                bool same = true;
                for (size_t i = 0; i < n; i++) {
                    float w = from_bf16(wantb[i]);
                    same &= memcmp(&inplace[i], &w, sizeof(float)) == 0;
                }
                CHECK(same);
            }
            free(y), free(want), free(got), free(wantb), free(bias), free(inplace);
        }
        fprintf(stderr, "  softmax (%s): worst relative difference from the portable row %.2e\n", k->level, worst);
    }
}

/* The logistic: every variant within 3 ulp of the portable one (relative 3.6e-7; absolute 1e-37
 * among results below 1e-37), exactly 0 and 1 at −inf and +inf, 0.5 at 0, NaN kept; odd sizes. */
static void test_logistic_variants(void)
{
    static const size_t sizes[] = {1, 7, 16, 17, 100, 4099};
    const ts_kernels *k = ts_kernels_select(ts_cpu_features());
    uint32_t seed = 5;
    double worst = 0;
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s];
        float *x = malloc(n * sizeof(float)), *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
        static const float special[] = {-INFINITY, INFINITY, 0.0f, -200.0f, 200.0f, -88.0f, 88.0f, -17.0f};
        for (size_t i = 0; i < n; i++) x[i] = i % 13 < 8 && i % 3 == 0 ? special[i % 8] : lcg(&seed) * 30.0f + lcg(&seed) * 0.1f;
        ts_logistic_f32_ref(x, a, n);
        k->logistic_f32(x, b, n);
        for (size_t i = 0; i < n; i++) {
            double d = fabs((double)a[i] - b[i]), rel = d / a[i];
            if (a[i] >= 1e-37f) worst = fmax(worst, rel);
            CHECK(a[i] >= 1e-37f ? rel <= 3.6e-7 : d <= 1e-37);
            if (x[i] == -INFINITY) CHECK(b[i] == 0.0f);
            if (x[i] == INFINITY || x[i] == 200.0f) CHECK(b[i] == 1.0f);
            if (x[i] == 0.0f) CHECK(b[i] == 0.5f);
        }
        x[0] = NAN;
        k->logistic_f32(x, b, n);
        CHECK(isnan(b[0]));
        free(x), free(a), free(b);
    }
    fprintf(stderr, "  logistic (%s): worst relative difference from the portable one %.2e\n", k->level, worst);
}

/* The same bits, or both NaN (which NaN a product returns follows its operands' order, which C
 * leaves to the compiler). */
static bool same_floats(const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(float)) != 0 && !(isnan(a[i]) && isnan(b[i]))) return false;
    return true;
}

/* silu_f32: at every level the bits of that level's logistic_f32 and then the products, left to
 * right (x · σ(x·c) · u), with and without the scale and the factor, in place over x and over u,
 * on odd sizes (tails), with ±inf, 0 and NaN among the inputs. */
static void test_silu_variants(void)
{
    static const size_t sizes[] = {1, 7, 16, 17, 100, 4099};
    for (int level = 0; level < 2; level++) {
        const ts_kernels *k = ts_kernels_select(level ? ts_cpu_features() : 0);
        uint32_t seed = 7;
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            size_t n = sizes[s];
            float *x = malloc(n * sizeof(float)), *u = malloc(n * sizeof(float));
            float *t = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float));
            float *got = malloc((n + 1) * sizeof(float));
            got[n] = 12345.0f; /* the tail mask must not write past n */
            static const float special[] = {-INFINITY, INFINITY, 0.0f, NAN, -90.0f, 95.0f};
            for (size_t i = 0; i < n; i++) {
                x[i] = i % 11 == 4 ? special[i / 11 % 6] : lcg(&seed) * 24.0f - 12.0f;
                u[i] = lcg(&seed) * 4.0f - 2.0f;
            }
            for (int kind = 0; kind < 4; kind++) {
                const float c = 1.702f, *scale = kind & 1 ? &c : NULL, *f = kind & 2 ? u : NULL;
                for (size_t i = 0; i < n; i++) t[i] = scale ? x[i] * c : x[i];
                k->logistic_f32(t, t, n);
                for (size_t i = 0; i < n; i++) want[i] = f ? x[i] * t[i] * f[i] : x[i] * t[i];
                k->silu_f32(x, scale, f, got, n);
                CHECK(same_floats(got, want, n));
                memcpy(got, x, n * sizeof(float)); /* in place over x */
                k->silu_f32(got, scale, f, got, n);
                CHECK(same_floats(got, want, n));
                if (f) { /* in place over u */
                    memcpy(got, u, n * sizeof(float));
                    k->silu_f32(x, scale, got, got, n);
                    CHECK(same_floats(got, want, n));
                }
            }
            CHECK(got[n] == 12345.0f);
            free(x), free(u), free(t), free(want), free(got);
        }
        fprintf(stderr, "  silu (%s): the bits of its logistic and products\n", k->level);
    }
}

/* f32 → bf16 rounding: every variant gives the portable one's bits, on odd sizes (masked tails),
 * ties both ways, denormals (kept, not flushed), ±0, ±inf, the largest finite values (rounding
 * up to inf) and NaNs (kept quiet, sign and payload's top bits kept). */
static void test_f32_to_bf16_variants(void)
{
    static const size_t sizes[] = {0, 1, 7, 15, 16, 17, 33, 100, 4099};
    static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xff812345u,
                                       0x7f800001u, 0x00000001u, 0x807fffffu, 0x3f808000u, 0x3f818000u, 0x3f80ffffu,
                                       0x7f7fffffu, 0xff7f8000u, 0x3f807fffu, 0x00408000u};
    for (int level = 0; level < 2; level++) { /* this CPU's table; the same without AVX512_BF16 */
        unsigned all = ts_cpu_features(), plain = all & ~(unsigned)TS_CPU_AVX512_BF16;
        const ts_kernels *k = ts_kernels_select(level ? plain : all);
        uint32_t seed = 11;
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            size_t n = sizes[s];
            float *x = malloc((n + 1) * sizeof(float));
            uint16_t *a = malloc((n + 1) * sizeof(uint16_t));
            uint16_t *b = malloc((n + 2) * sizeof(uint16_t));
            for (size_t i = 0; i < n; i++) {
                seed = seed * 1664525u + 1013904223u;
                uint32_t bits = i % 5 == 0 ? special[(i / 5) % 16] : seed;
                memcpy(&x[i], &bits, 4);
            }
            b[n] = 0xbeef; /* the tail mask must not write past n */
            ts_f32_to_bf16_ref(x, a, n);
            k->f32_to_bf16(x, b, n);
            CHECK(memcmp(a, b, n * sizeof(uint16_t)) == 0);
            CHECK(b[n] == 0xbeef);
            for (size_t i = 0; i < n; i++)
                if (i % 5 == 0 && (i / 5) % 16 == 9) CHECK(b[i] == 0x3f80); /* tie to even, down */
            for (size_t i = 0; i < n; i++)
                if (i % 5 == 0 && (i / 5) % 16 == 10) CHECK(b[i] == 0x3f82); /* tie to even, up */
            for (size_t i = 0; i < n; i++)
                if (i % 5 == 0 && (i / 5) % 16 == 5) CHECK(b[i] == 0xffc1); /* NaN: quiet, sign */
            free(x), free(a), free(b);
        }
        fprintf(stderr, "  f32 → bf16 (%s): same bits as the portable rounding\n", k->level);
    }
}

/* The panel transpose: every variant gives the portable one's words, for 0 … 32 rows, unit
 * counts with and without a tail of the 16-unit blocks, rows wider apart than the units, an
 * odd byte offset (the int8 rows' stride need not be a multiple of 4), with and without a flip. */
static void test_pack_u32_panel_variants(void)
{
    static const size_t counts[] = {1, 15, 16, 17, 48, 130};
    static const int rows[] = {0, 1, 15, 16, 17, 31, 32};
    const ts_kernels *k = ts_kernels_select(ts_cpu_features());
    uint8_t *src = malloc(32 * 600 + 8);
    for (size_t i = 0; i < 32 * 600 + 8; i++) src[i] = (uint8_t)(i * 37 + (i >> 7));
    uint32_t *a = malloc(sizeof(uint32_t) * 32 * 130), *b = malloc(sizeof(uint32_t) * 32 * 130);
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
        for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
            for (int flip = 0; flip < 2; flip++) {
                size_t n = counts[c], ld = n * 4 + 12 + (size_t)flip * 3;
                memset(b, 0xab, sizeof(uint32_t) * 32 * n);
                ts_pack_u32_panel_ref(src + 1, ld, rows[r], n, flip ? 0x80808080u : 0, a);
                k->pack_u32_panel(src + 1, ld, rows[r], n, flip ? 0x80808080u : 0, b);
                CHECK(memcmp(a, b, sizeof(uint32_t) * 32 * n) == 0);
                uint32_t unit;
                memcpy(&unit, src + 1 + ld + 4, 4); /* row 1, unit 1 */
                if (rows[r] > 1 && n > 1) CHECK(a[1 * 32 + 1] == (unit ^ (flip ? 0x80808080u : 0)));
                if (rows[r] < 32) CHECK(a[31] == 0);
            }
    free(src), free(a), free(b);
    fprintf(stderr, "  pack_u32_panel (%s): same words as the portable transpose\n", k->level);
}

static void test_selection_honours_mask(void)
{
    CHECK_STR_EQ(ts_kernels_select(0)->level, "portable");
    const ts_kernels *best = ts_kernels_select(ts_cpu_features());
    CHECK(best->dot_f32 && best->dot_bf16_f32 && best->bf16_to_f32);
#if defined(__x86_64__)
    CHECK_STR_EQ(ts_kernels_select(TS_CPU_AVX2)->level, "avx2");
    CHECK_STR_EQ(ts_kernels_select(TS_CPU_AVX2 | TS_CPU_AVX512)->level, "avx512");
    /* AVX512_BF16: VDPBF16PS for the bf16 GEMMs, or FMA on Intel cores (the level says so),
     * with and without VNNI. */
    unsigned a, b, c, d;
    bool intel = __get_cpuid(0, &a, &b, &c, &d) && !memcmp(&b, "Genu", 4) &&
                 !memcmp(&d, "ineI", 4) && !memcmp(&c, "ntel", 4);
    for (int vnni = 0; vnni < 2; vnni++) {
        unsigned features = TS_CPU_AVX2 | TS_CPU_AVX512 | TS_CPU_AVX512_BF16;
        const ts_kernels *bf16 = ts_kernels_select(features | (vnni ? TS_CPU_AVX512_VNNI : 0));
        CHECK_STR_EQ(bf16->level, intel ? "avx512_bf16 (bf16 GEMMs by FMA)" : "avx512_bf16");
        CHECK(bf16->gemm_bf16 == (intel ? ts_gemm_bf16_fma_avx512 : ts_gemm_bf16_avx512bf16));
        /* on Intel no pair panel: attention widens its packs for gemm_f32_panel */
        CHECK(bf16->gemm_bf16_panel == (intel ? NULL : ts_gemm_bf16_panel_avx512bf16));
        CHECK(bf16->gemm_f32_panel == ts_gemm_f32_panel_avx512);
        CHECK(bf16->dot_bf16_bf16 == ts_dot_bf16_bf16_avx512bf16);
        CHECK(vnni ? bf16->gemm_q8_channel == ts_gemm_q8_channel_avx512vnni
                   : !bf16->gemm_q8_channel);
        /* decode's W8A8 dots: the L2-prefetch entries on Intel */
        CHECK(vnni ? bf16->qdot_i8_q8 == (intel ? ts_qdot_i8_q8_avx512vnni_l2 : ts_qdot_i8_q8_avx512vnni)
                   : !bf16->qdot_i8_q8);
        CHECK(!vnni || bf16->qdot_u4_q8 == (intel ? ts_qdot_u4_q8_avx512vnni_l2 : ts_qdot_u4_q8_avx512vnni));
    }
    CHECK(!ts_kernels_select(TS_CPU_AVX2 | TS_CPU_AVX512)->dot_bf16_bf16 && !ts_kernels_select(0)->dot_bf16_bf16);
    CHECK_STR_EQ(ts_kernels_select(TS_CPU_AVX2 | TS_CPU_AVX512 | TS_CPU_AVX512_VNNI)->level,
                 "avx512_vnni");
    CHECK(!ts_kernels_select(TS_CPU_AVX2 | TS_CPU_AVX512)->qdot_i8_q8);
    /* AVX512_VNNI without BF16: Intel only (Cascade Lake, Ice Lake) */
    CHECK(ts_kernels_select(TS_CPU_AVX2 | TS_CPU_AVX512 | TS_CPU_AVX512_VNNI)->qdot_u4_q8 ==
          ts_qdot_u4_q8_avx512vnni_l2);
#endif
}

static void test_amx_permission_is_reported(void)
{
    ts_error err;
    ts_status st = ts_amx_request_permission(&err);
    if (ts_cpu_features() & TS_CPU_AMX_BF16) {
        CHECK_INT_EQ(st, TS_OK);
    } else {
        CHECK_INT_EQ(st, TS_ERR_UNSUPPORTED);
        CHECK_CONTAINS(err.message, "AMX");
    }
}

/* The quantized dots: each variant against the portable one, 8-bit and packed 4-bit, block sizes
 * with and without 16/32-wide bodies and tails (4-bit blocks even), several blocks per row. */
static void test_qdot_variants(void)
{
    static const size_t blocks[] = {2, 6, 16, 18, 32, 34, 50, 64, 128, 130};
    static const unsigned masks[] = {TS_CPU_AVX2, TS_CPU_AVX2 | TS_CPU_AVX512};
    uint32_t seed = 11;
    for (size_t m = 0; m < 2; m++) {
        const ts_kernels *k = ts_kernels_select(ts_cpu_features() & masks[m]);
        for (size_t bi = 0; bi < sizeof(blocks) / sizeof(blocks[0]); bi++) {
            size_t block = blocks[bi], nb = 3, n = block * nb;
            int8_t *q8 = malloc(n);
            uint8_t *q4 = malloc(n / 2);
            float *x = malloc(n * sizeof(float)), sc[3], zp8[3], zp4[3];
            for (size_t i = 0; i < n; i++) {
                x[i] = lcg(&seed);
                q8[i] = (int8_t)(lcg(&seed) * 128.0f);
                if (i % 2 == 0) q4[i / 2] = (uint8_t)((lcg(&seed) + 1.0f) * 128.0f);
            }
            for (size_t b = 0; b < nb; b++) {
                sc[b] = 0.01f + 0.001f * (float)b;
                zp8[b] = (float)b - 1.0f;
                zp4[b] = (float)(b * 5 % 16);
            }
            double r8 = ts_qdot_i8_f32_ref(q8, x, n, block, sc, zp8), g8 = k->qdot_i8_f32(q8, x, n, block, sc, zp8);
            double r4 = ts_qdot_u4_f32_ref(q4, x, n, block, sc, zp4), g4 = k->qdot_u4_f32(q4, x, n, block, sc, zp4);
            if (fabs(r8 - g8) > 1e-5 * (1 + fabs(r8)) || fabs(r4 - g4) > 1e-5 * (1 + fabs(r4)))
                fprintf(stderr, "%s block %zu: i8 %g vs %g, u4 %g vs %g\n", k->level, block, g8, r8, g4, r4);
            CHECK(fabs(r8 - g8) <= 1e-5 * (1 + fabs(r8)));
            CHECK(fabs(r4 - g4) <= 1e-5 * (1 + fabs(r4)));
            /* dequantization: bit-identical to the portable one */
            float *want = malloc(n * sizeof(float)), *got = malloc(n * sizeof(float));
            ts_dequant_i8_f32_ref(q8, n, block, sc, zp8, want);
            k->dequant_i8_f32(q8, n, block, sc, zp8, got);
            CHECK(memcmp(want, got, n * sizeof(float)) == 0);
            ts_dequant_u4_f32_ref(q4, n, block, sc, zp4, want);
            k->dequant_u4_f32(q4, n, block, sc, zp4, got);
            CHECK(memcmp(want, got, n * sizeof(float)) == 0);
            free(want), free(got);
            free(q8), free(q4), free(x);
        }
    }
    /* One value by hand: bytes 0x3A 0x0F → channels 10, 3, 15, 0; zero 8, scale 0.5;
     * x = 1, 2, 3, 4: ((2·1) + (−5·2) + (7·3) + (−8·4)) · 0.5 = −9.5. */
    const uint8_t q4[2] = {0x3A, 0x0F};
    const float x[4] = {1, 2, 3, 4}, sc = 0.5f, zp = 8.0f;
    CHECK(ts_qdot_u4_f32_ref(q4, x, 4, 4, &sc, &zp) == -9.5f);
    CHECK(ts_kernels_select(ts_cpu_features())->qdot_u4_f32(q4, x, 4, 4, &sc, &zp) == -9.5f);
}

/* W8A8: the quantizer of every variant gives the reference's bytes and scales bit for bit, in
 * both layouts; the integer dots equal the reference (exact chunk sums, f32 order aside) for 1–4
 * rows (each row's bits as when it is alone, and as when its weight row is alone: several weight rows
 * per call), an odd number of chunks (a last unpaired one), 8-bit and 4-bit with and without zero
 * points; the reference itself equals an independent sum over the dequantized activations. */
static void test_q8_variants(void)
{
    static const size_t sizes[] = {32, 64, 96, 224, 896, 4896};
    const ts_kernels *ref = ts_kernels_select(0), *best = ts_kernels_select(ts_cpu_features());
    CHECK(ref->qdot_i8_q8 && ref->qdot_u4_q8 && ref->quantize_q8);
    uint32_t seed = 5;
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        size_t n = sizes[si], nc = n / 32;
        float *x = malloc(sizeof(float) * n * 4), *sc = malloc(sizeof(float) * nc * 2),
              *zp = malloc(sizeof(float) * nc * 2);
        int8_t *q8 = malloc(n * 2), *xq[2] = {malloc(n * 4), malloc(n * 4)};
        uint8_t *q4 = malloc(n); /* two weight rows each */
        float *d[2] = {malloc(sizeof(float) * nc * 4), malloc(sizeof(float) * nc * 4)};
        int32_t *xs[2] = {malloc(sizeof(int32_t) * n), malloc(sizeof(int32_t) * n)};
        for (size_t i = 0; i < n * 4; i++)
            x[i] = lcg(&seed) * (1.0f + (float)(i % 7)) + lcg(&seed) / 1000.0f;
        x[5] = -8.0f; /* a chunk whose maximum is negative */
        for (size_t i = 32; i < 64 && i < n; i++)
            x[i] = 0.0f; /* an all-zero chunk: d = 0 */
        for (size_t i = 0; i < n * 2; i++)
            q8[i] = (int8_t)(lcg(&seed) * 128.0f);
        q8[0] = -128;
        for (size_t i = 0; i < n; i++)
            q4[i] = (uint8_t)((lcg(&seed) + 1.0f) * 128.0f);
        uint16_t *sc16 = malloc(sizeof(uint16_t) * nc * 2);
        float *sch = malloc(sizeof(float) * nc * 2); /* sc16 widened */
        for (size_t c = 0; c < nc * 2; c++) {
            sc[c] = 0.01f + 0.001f * (float)(c % 13), zp[c] = (float)(c * 5 % 16);
            sc16[c] = (uint16_t)(0x2000 + c * 37 % 1024), sch[c] = ts_f16_to_f32_scalar(sc16[c]);
        }
        for (int u4 = 0; u4 < 2; u4++) {
            for (int r = 0; r < 4; r++)
                ref->quantize_q8(x + r * n, n, 32, u4, xq[0] + r * n, d[0] + r * nc,
                                 xs[0] + r * n / 4);
            for (int r = 0; r < 4; r++)
                best->quantize_q8(x + r * n, n, 32, u4, xq[1] + r * n, d[1] + r * nc,
                                  xs[1] + r * n / 4);
            CHECK(memcmp(xq[0], xq[1], n * 4) == 0);
            CHECK(memcmp(d[0], d[1], sizeof(float) * nc * 4) == 0);
            CHECK(memcmp(xs[0], xs[1], sizeof(int32_t) * n) == 0);
            /* xs: −offset · each lane's 4 stored bytes */
            for (size_t l = 0; l < n; l++) {
                const int8_t *b = xq[0] + l * 4;
                CHECK_INT_EQ(xs[0][l], -(u4 ? 8 : 128) * (b[0] + b[1] + b[2] + b[3]));
            }
            ts_q8_act act = {xq[0], d[0], xs[0], n};
            /* scales in f32, then f16 as stored (read in place) */
            for (int half = 0; half < 2; half++)
            for (int rows = 1; rows <= 4; rows++) {
                const void *S = half ? (const void *)sc16 : (const void *)sc;
                const void *S2 = half ? (const void *)(sc16 + nc) : (const void *)(sc + nc);
                const float *scv = half ? sch : sc;
                float want[4], got[4];
                for (int zero = 0; zero < 2; zero++) {
                    if (u4) {
                        ref->qdot_u4_q8(q4, 1, &act, rows, n, S, half, zero ? zp : NULL, want, 1);
                        if (best->qdot_u4_q8)
                            best->qdot_u4_q8(q4, 1, &act, rows, n, S, half, zero ? zp : NULL, got, 1);
                    } else {
                        if (zero) continue;
                        ref->qdot_i8_q8(q8, 1, &act, rows, n, S, half, want, 1);
                        if (best->qdot_i8_q8) best->qdot_i8_q8(q8, 1, &act, rows, n, S, half, got, 1);
                    }
#if defined(__x86_64__)
                    /* the non-temporal and the L2 prefetch entries: the same bits */
                    if (ts_cpu_features() & TS_CPU_AVX512_VNNI) {
                        float nt[4], l2[4];
                        if (u4) {
                            ts_qdot_u4_q8_avx512vnni(q4, 1, &act, rows, n, S, half, zero ? zp : NULL, nt, 1);
                            ts_qdot_u4_q8_avx512vnni_l2(q4, 1, &act, rows, n, S, half, zero ? zp : NULL, l2, 1);
                        } else {
                            ts_qdot_i8_q8_avx512vnni(q8, 1, &act, rows, n, S, half, nt, 1);
                            ts_qdot_i8_q8_avx512vnni_l2(q8, 1, &act, rows, n, S, half, l2, 1);
                        }
                        CHECK(memcmp(nt, l2, sizeof(float) * (size_t)rows) == 0);
                        CHECK(memcmp(nt, got, sizeof(float) * (size_t)rows) == 0);
                    }
#endif
                    for (int r = 0; r < rows; r++) {
                        /* independent: Σ (w − z)·scale · xq·d in double from the natural order */
                        double sum = 0, mag = 0;
                        for (size_t j = 0; j < n; j++) {
                            size_t c = j / 32, at = u4 ? ts_q8_u4_position(j, n) : j;
                            double w = u4 ? (double)(j % 2 ? q4[j / 2] >> 4 : q4[j / 2] & 15) -
                                                (zero ? zp[c] : 8.0)
                                          : q8[j];
                            double t = w * scv[c] * (double)xq[0][r * n + at] * d[0][r * nc + c];
                            sum += t, mag += fabs(t);
                        }
                        if (!(fabs(want[r] - sum) <= 1e-6 * mag))
                            fprintf(stderr, "q8 ref n=%zu u4=%d: %g vs %g\n", n, u4, want[r], sum);
                        CHECK(fabs(want[r] - sum) <= 1e-6 * mag);
                        bool have = u4 ? best->qdot_u4_q8 != NULL : best->qdot_i8_q8 != NULL;
                        if (have && !(fabs(got[r] - want[r]) <= 1e-6 * mag))
                            fprintf(stderr, "%s q8 n=%zu u4=%d rows=%d: %g vs %g\n", best->level, n,
                                    u4, rows, got[r], want[r]);
                        if (have) CHECK(fabs(got[r] - want[r]) <= 1e-6 * mag);
                        /* a batched step gives each row the bits it gets alone */
                        float alone;
                        ts_q8_act one = {xq[0] + r * n, d[0] + r * nc,
                                         xs[0] + r * n / 4, n};
                        if (have && u4) best->qdot_u4_q8(q4, 1, &one, 1, n, S, half, zero ? zp : NULL, &alone, 1);
                        if (have && !u4) best->qdot_i8_q8(q8, 1, &one, 1, n, S, half, &alone, 1);
                        if (have) CHECK(memcmp(&alone, &got[r], sizeof(float)) == 0);
                    }
                    /* two weight rows in one call (out[r·ldo + w]) give each row's bits alone */
                    for (int v = 0; v < 2; v++) {
                        const ts_kernels *kv = v ? best : ref;
                        if (u4 ? !kv->qdot_u4_q8 : !kv->qdot_i8_q8) continue;
                        float two[8], first[4], second[4];
                        const float *z2 = zero ? zp : NULL;
                        if (u4) {
                            kv->qdot_u4_q8(q4, 2, &act, rows, n, S, half, z2, two, 2);
                            kv->qdot_u4_q8(q4, 1, &act, rows, n, S, half, z2, first, 1);
                            kv->qdot_u4_q8(q4 + n / 2, 1, &act, rows, n, S2, half,
                                           zero ? zp + nc : NULL, second, 1);
                        } else {
                            kv->qdot_i8_q8(q8, 2, &act, rows, n, S, half, two, 2);
                            kv->qdot_i8_q8(q8, 1, &act, rows, n, S, half, first, 1);
                            kv->qdot_i8_q8(q8 + n, 1, &act, rows, n, S2, half, second, 1);
                        }
                        for (int r = 0; r < rows; r++) {
                            CHECK(memcmp(&two[r * 2], &first[r], sizeof(float)) == 0);
                            CHECK(memcmp(&two[r * 2 + 1], &second[r], sizeof(float)) == 0);
                        }
                    }
                }
            }
        }
        /* the quantization itself: |x − xq·d| ≤ d/2 and max |xq| = 127 in every nonzero chunk */
        for (size_t c = 0; c < nc; c++) {
            int top = 0;
            for (size_t j = c * 32; j < c * 32 + 32; j++) {
                int v = xq[1][ts_q8_u4_position(j, n)];
                top = v > top ? v : (-v > top ? -v : top);
                CHECK(fabsf(x[j] - (float)v * d[1][c]) <= d[1][c] * 0.5f * (1 + 1e-6f));
            }
            CHECK_INT_EQ(top, d[1][c] > 0 ? 127 : 0);
        }
        free(x), free(sc), free(zp), free(q8), free(q4), free(sc16), free(sch);
        for (int i = 0; i < 2; i++)
            free(xq[i]), free(d[i]), free(xs[i]);
    }
#if defined(__x86_64__)
    if (!(ts_cpu_features() & TS_CPU_AVX512_VNNI))
        CHECK_SKIP("no AVX512_VNNI: only the portable W8A8 kernels ran");
#endif
}

/* Activation rows quantized whole (one scale a row, gemm_q8_channel's): every variant gives the
 * reference's bytes, scales and lane sums in both layouts, each chunk's d the row's, every value
 * within d/2 and the row's largest at ±127. Then gemm_q8_channel: every variant gives the
 * reference's bits, and the reference is the contract's formula from an int64 sum — over row
 * counts around the 8-row tile and the 64-row block, widths from one chunk to 1056, 1 to
 * 129 columns (several panels and a partial one; rows past them hold stray bytes), with and
 * without bias. */
static void test_q8_channel_variants(void)
{
    static const size_t widths[] = {32, 96, 544, 1056};
    static const int64_t row_counts[] = {1, 7, 8, 9, 70};
    static const int col_counts[] = {1, 17, 32, 33, 129};
    const ts_kernels *ref = ts_kernels_select(0), *best = ts_kernels_select(ts_cpu_features());
    CHECK(ref->gemm_q8_channel != NULL);
    uint32_t seed = 11;
    for (size_t wi = 0; wi < sizeof(widths) / sizeof(widths[0]); wi++) {
        size_t k = widths[wi], nc = k / 32;
        int64_t m = 70;
        float *x = malloc(sizeof(float) * k * (size_t)m);
        int8_t *xq[2] = {malloc(k * (size_t)m), malloc(k * (size_t)m)};
        float *d[2] = {malloc(sizeof(float) * nc * (size_t)m),
                       malloc(sizeof(float) * nc * (size_t)m)};
        int32_t *xs[2] = {malloc(sizeof(int32_t) * k / 4 * (size_t)m),
                          malloc(sizeof(int32_t) * k / 4 * (size_t)m)};
        for (size_t i = 0; i < k * (size_t)m; i++)
            x[i] = lcg(&seed) * (1.0f + (float)(i % 5)) * ((i / k) % 3 ? 1.0f : 40.0f);
        for (size_t i = 0; i < k; i++)
            x[k + i] = 0.0f; /* an all-zero row: d = 0 */
        for (int u4 = 0; u4 < 2; u4++) {
            for (int64_t r = 0; r < m; r++)
                for (int v = 0; v < 2; v++)
                    (v ? best : ref)
                        ->quantize_q8(x + r * k, k, k, u4, xq[v] + r * k, d[v] + r * nc,
                                      xs[v] + r * k / 4);
            CHECK(memcmp(xq[0], xq[1], k * (size_t)m) == 0);
            CHECK(memcmp(d[0], d[1], sizeof(float) * nc * (size_t)m) == 0);
            CHECK(memcmp(xs[0], xs[1], sizeof(int32_t) * k / 4 * (size_t)m) == 0);
            for (int64_t r = 0; r < m; r++) {
                int top = 0;
                for (size_t j = 0; j < k; j++) {
                    float dr = d[0][r * nc + j / 32];
                    CHECK(dr == d[0][r * nc]);
                    int v = xq[0][r * k + (u4 ? ts_q8_u4_position(j, k) : j)];
                    top = v > top ? v : (-v > top ? -v : top);
                    /* x·(1/d) in f32: a value on a half step may round either way */
                    CHECK(fabsf(x[r * k + j] - (float)v * dr) <= dr * (0.5f + 1e-4f));
                }
                CHECK_INT_EQ(top, d[0][r * nc] > 0 ? 127 : 0);
            }
        }
        /* the natural layout's rows for the GEMM */
        for (int64_t r = 0; r < m; r++)
            ref->quantize_q8(x + r * k, k, k, false, xq[0] + r * k, d[0] + r * nc,
                             xs[0] + r * k / 4);
        int32_t *xsum = malloc(sizeof(int32_t) * (size_t)m);
        for (int64_t r = 0; r < m; r++) {
            xsum[r] = 0;
            for (size_t j = 0; j < k; j++)
                xsum[r] += xq[0][r * k + j];
        }
        int panels = 5;
        uint8_t *panel = malloc((size_t)panels * TS_Q8_PANEL * k);
        for (size_t i = 0; i < (size_t)panels * TS_Q8_PANEL * k; i++)
            panel[i] = (uint8_t)((lcg(&seed) + 1.0f) * 128.0f);
        float scale[5 * TS_Q8_PANEL], bias[5 * TS_Q8_PANEL];
        for (int i = 0; i < panels * TS_Q8_PANEL; i++)
            scale[i] = 0.001f + 0.0001f * (float)(i % 17), bias[i] = lcg(&seed);
        float *c[2] = {malloc(sizeof(float) * (size_t)m * 160),
                       malloc(sizeof(float) * (size_t)m * 160)};
        for (size_t ri = 0; ri < sizeof(row_counts) / sizeof(row_counts[0]); ri++)
            for (size_t ci = 0; ci < sizeof(col_counts) / sizeof(col_counts[0]); ci++)
                for (int with_bias = 0; with_bias < 2; with_bias++) {
                    int64_t rows = row_counts[ri];
                    int cols = col_counts[ci];
                    ts_q8_act act = {xq[0], d[0], NULL, k};
                    for (int v = 0; v < 2; v++) {
                        for (size_t i = 0; i < (size_t)m * 160; i++)
                            c[v][i] = -7.0f; /* outside the written block: untouched */
                        (v ? best : ref)
                            ->gemm_q8_channel(&act, xsum, rows, k, panel, scale, cols,
                                              with_bias ? bias : NULL, c[v] + 3, 160);
                    }
                    if (best->gemm_q8_channel)
                        CHECK(memcmp(c[0], c[1], sizeof(float) * (size_t)m * 160) == 0);
                    int wrong = 0;
                    for (int64_t r = 0; r < m; r++)
                        for (int i = -3; i < 157; i++) {
                            float want = -7.0f;
                            if (r < rows && i >= 0 && i < cols) {
                                int64_t sum = 0;
                                const uint8_t *p = panel + (size_t)(i / 32) * 32 * k;
                                for (size_t j = 0; j < k; j++)
                                    sum += ((int64_t)p[(j / 4 * 32 + (size_t)(i % 32)) * 4 +
                                                      j % 4] -
                                            128) *
                                           xq[0][r * k + j];
                                want = (float)(int32_t)sum * (scale[i] * d[0][r * nc]);
                                if (with_bias) want += bias[i];
                            }
                            wrong += memcmp(&want, &c[0][r * 160 + 3 + i], sizeof(float)) != 0;
                        }
                    CHECK_INT_EQ(wrong, 0);
                }
        free(x), free(xsum), free(panel), free(c[0]), free(c[1]);
        for (int i = 0; i < 2; i++)
            free(xq[i]), free(d[i]), free(xs[i]);
    }
#if defined(__x86_64__)
    if (!best->gemm_q8_channel || best == ref)
        CHECK_SKIP("no AVX512_VNNI: only the portable per-channel W8A8 kernels ran");
#endif
}

/* P·V for a decode row: every variant gives the reference's bits (products rounded, then added in
 * key order) for widths with and without a part vector and more than 64 columns, value rows
 * strided as a cache's, 1–7 heads (the four-head blocks and a remainder); a head's result is the
 * one it gets alone; and the reference is that sum. */
static void test_weighted_sum_variants(void)
{
    static const size_t widths[] = {1, 16, 17, 64, 80, 130}, counts[] = {1, 5, 300};
    static const int head_counts[] = {1, 3, 7};
    const ts_kernels *ref = ts_kernels_select(0), *best = ts_kernels_select(ts_cpu_features());
    uint32_t seed = 21;
    for (size_t wi = 0; wi < sizeof(widths) / sizeof(widths[0]); wi++)
        for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++)
            for (size_t hi = 0; hi < sizeof(head_counts) / sizeof(head_counts[0]); hi++) {
                int heads = head_counts[hi];
                size_t n = widths[wi], count = counts[ci], ldv = n * 2 + 3, ldp = count + 2, ldo = n + 1;
                float *p = malloc(sizeof(float) * ldp * (size_t)heads), *v = malloc(sizeof(float) * count * ldv);
                float *want = malloc(sizeof(float) * ldo * (size_t)heads), *got = malloc(sizeof(float) * ldo * (size_t)heads);
                float *alone = malloc(sizeof(float) * n);
                for (size_t t = 0; t < ldp * (size_t)heads; t++) p[t] = lcg(&seed) + 1.0f;
                for (size_t i = 0; i < count * ldv; i++) v[i] = lcg(&seed) * 3.0f;
                ref->weighted_sum_f32(p, ldp, heads, count, v, ldv, n, want, ldo);
                best->weighted_sum_f32(p, ldp, heads, count, v, ldv, n, got, ldo);
                for (int h = 0; h < heads; h++) {
                    CHECK(memcmp(want + (size_t)h * ldo, got + (size_t)h * ldo, sizeof(float) * n) == 0);
                    best->weighted_sum_f32(p + (size_t)h * ldp, ldp, 1, count, v, ldv, n, alone, n);
                    CHECK(memcmp(alone, got + (size_t)h * ldo, sizeof(float) * n) == 0);
                    for (size_t c = 0; c < n; c++) {
                        float sum = 0.0f;
                        for (size_t t = 0; t < count; t++) {
                            float product = p[(size_t)h * ldp + t] * v[t * ldv + c];
                            sum += product;
                        }
                        CHECK(memcmp(&sum, &want[(size_t)h * ldo + c], sizeof(float)) == 0);
                    }
                }
                free(p), free(v), free(want), free(got), free(alone);
            }
}

/* A decode row's scores: dot_heads_f32 gives each (head, key) the bits of the table's single dot,
 * for head dims with and without tails, key counts around the 16-key and 4-key blocks, 1–8 heads,
 * rows strided as a cache's (kv heads interleaved); mutating the reduction's tree fails it. */
static void test_dot_heads_are_the_single_dots(void)
{
    const ts_kernels *best = ts_kernels_select(ts_cpu_features());
    if (!best->dot_heads_f32) {
        CHECK_SKIP("no dot_heads_f32 in this CPU's kernels");
        return;
    }
    static const size_t dims[] = {1, 17, 64, 80, 128, 130}, key_counts[] = {1, 3, 4, 15, 16, 17, 37, 300};
    static const int head_counts[] = {1, 2, 7, 8};
    uint32_t seed = 31;
    for (size_t di = 0; di < sizeof(dims) / sizeof(dims[0]); di++)
        for (size_t ki = 0; ki < sizeof(key_counts) / sizeof(key_counts[0]); ki++)
            for (size_t hi = 0; hi < sizeof(head_counts) / sizeof(head_counts[0]); hi++) {
                size_t d = dims[di], keys = key_counts[ki], ldk = 2 * d + 5, ldq = d + 3, lds = keys + 7;
                int heads = head_counts[hi];
                float *q = malloc(sizeof(float) * ldq * (size_t)heads), *k = malloc(sizeof(float) * ldk * keys);
                float *scores = malloc(sizeof(float) * lds * (size_t)heads);
                for (size_t i = 0; i < ldq * (size_t)heads; i++) q[i] = lcg(&seed) * 1.37f + lcg(&seed) * 0.001f;
                for (size_t i = 0; i < ldk * keys; i++) k[i] = lcg(&seed) * 0.731f + lcg(&seed) * 1e-4f;
                for (size_t i = 0; i < lds * (size_t)heads; i++) scores[i] = -7.0f;
                best->dot_heads_f32(q, ldq, heads, k, ldk, keys, d, scores, lds);
                int same = 1;
                for (int h = 0; h < heads; h++) {
                    for (size_t t = 0; t < keys; t++) {
                        float want = best->dot_f32(q + (size_t)h * ldq, k + t * ldk, d);
                        same &= memcmp(&want, &scores[(size_t)h * lds + t], sizeof(float)) == 0;
                    }
                    for (size_t t = keys; t < lds; t++) same &= scores[(size_t)h * lds + t] == -7.0f; /* untouched */
                }
                if (!same) fprintf(stderr, "dot_heads d=%zu keys=%zu heads=%d differs from the single dots\n", d, keys, heads);
                CHECK(same);
                free(q), free(k), free(scores);
            }
}

int main(void)
{
    RUN(test_q8_variants);
    RUN(test_q8_channel_variants);
    RUN(test_weighted_sum_variants);
    RUN(test_dot_heads_are_the_single_dots);
    RUN(test_qdot_variants);
    RUN(test_variants_match_reference);
    RUN(test_f16_variants);
    RUN(test_dot_rows_are_the_single_dots);
    RUN(test_dot_bf16_bf16);
    RUN(test_gemm_kernels);
    RUN(test_softmax_variants);
    RUN(test_logistic_variants);
    RUN(test_silu_variants);
    RUN(test_f32_to_bf16_variants);
    RUN(test_pack_u32_panel_variants);
    RUN(test_selection_honours_mask);
    RUN(test_amx_permission_is_reported);
    return check_finish();
}
