/* audio_fbank_test.c — Phi-4-multimodal's log-mel features (audio_fbank.h) against the numpy
 * transcription of transformers 5.23.0's Phi4MultimodalFeatureExtractor run at test time
 * (tests/oracle/phi4_audio_oracle.py), on the committed clips decoded to 16 kHz and on synthetic
 * signals: frames, audio_embed_sizes and every feature within FEATURE_TOL (log-mel values, ~0..30).
 * Without the oracle: the FFT against a direct DFT, the mel bank's shape, the frame and token
 * counts worked by hand, and the errors. Exit 77 when the oracle is missing.
 */
#include "audio_oracle.h"
#include "check.h"
#include "media/audio.h"
#include "media/audio_fbank.h"
#include "media/audio_fft.h"
#include "media/audio_mel.h"

#include "base/file.h"

#include <math.h>

#define FEATURE_TOL 1e-5

static audio_oracle O;

static void test_fft(void)
{
    enum { N = 512, M = 400 };
    ts_audio_fft fft;
    ts_error err = {0};
    REQUIRE(ts_audio_fft_init(&fft, N, &err) == TS_OK);
    double x[M], scratch[2 * N], out[2 * (N / 2 + 1)];
    for (int j = 0; j < M; j++)
        x[j] = sin(0.37 * j) + 0.25 * cos(1.9 * j * j);
    ts_audio_fft_real(&fft, x, M, scratch, out);
    double worst = 0, scale = 0;
    for (int k = 0; k <= N / 2; k++) {
        long double re = 0, im = 0;
        for (int j = 0; j < M; j++) {
            long double a = -2.0L * 3.14159265358979323846264338327950288L * j * k / N;
            re += x[j] * cosl(a);
            im += x[j] * sinl(a);
        }
        double d = hypot(out[2 * k] - (double)re, out[2 * k + 1] - (double)im);
        worst = d > worst ? d : worst;
        scale = hypot((double)re, (double)im) > scale ? hypot((double)re, (double)im) : scale;
    }
    CHECK(worst / scale < 1e-13);
    ts_audio_fft_fini(&fft);
    CHECK_INT_EQ(ts_audio_fft_init(&fft, 400, &err), TS_ERR_UNSUPPORTED);
}

/* Hand-worked counts: frames = (n − 400) / 160 + 1, tokens = ceil(frames / 8). */
static void test_counts(void)
{
    ts_audio_fbank_config c = ts_audio_fbank_config_default();
    ts_audio_fbank *fb = NULL;
    ts_error err = {0};
    REQUIRE(ts_audio_fbank_create(&c, &fb, &err) == TS_OK);
    CHECK_INT_EQ(ts_audio_fbank_frames(fb, 399), 0);
    CHECK_INT_EQ(ts_audio_fbank_frames(fb, 400), 1);
    CHECK_INT_EQ(ts_audio_fbank_frames(fb, 16000), 98);
    CHECK_INT_EQ(ts_audio_fbank_frames(fb, 16000 * 30), 2998);
    CHECK_INT_EQ(ts_audio_fbank_embed_size(fb, 1), 1);
    CHECK_INT_EQ(ts_audio_fbank_embed_size(fb, 8), 1);
    CHECK_INT_EQ(ts_audio_fbank_embed_size(fb, 98), 13);
    CHECK_INT_EQ(ts_audio_fbank_embed_size(fb, 2998), 375);
    /* The bank: 257 bins x 80 mels, bin 0 (0 Hz) and bins above 7690 Hz (k >= 247) weigh nothing,
     * every filter has weight somewhere, peaks below 1. */
    const float *w = ts_audio_fbank_mel_weights(fb);
    double total0 = 0, total_high = 0;
    for (int m = 0; m < 80; m++) {
        total0 += w[m];
        for (int k = 247; k < 257; k++)
            total_high += w[k * 80 + m];
        float peak = 0;
        for (int k = 0; k < 257; k++)
            peak = w[k * 80 + m] > peak ? w[k * 80 + m] : peak;
        CHECK(peak > 0.0f && peak <= 1.0f);
    }
    CHECK(total0 == 0.0 && total_high == 0.0);
    ts_audio_fbank_destroy(fb);
}

static void test_errors(void)
{
    ts_audio_fbank_config c = ts_audio_fbank_config_default();
    ts_audio_fbank *fb = NULL;
    ts_error err = {0};
    REQUIRE(ts_audio_fbank_create(&c, &fb, &err) == TS_OK);
    float x[1000] = {0};
    ts_audio_features f;
    CHECK_INT_EQ(ts_audio_fbank_compute(fb, x, 1000, 8000, &f, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "samples at 8000 Hz, the extractor takes 16000 Hz");
    CHECK_INT_EQ(ts_audio_fbank_compute(fb, x, 399, 16000, &f, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "399 samples, under one 400-sample window");
    CHECK(f.data == NULL && f.n_frames == 0);
    /* Silence: every energy clamps to 1, every feature is log(1) = 0. */
    REQUIRE(ts_audio_fbank_compute(fb, x, 1000, 16000, &f, &err) == TS_OK);
    CHECK_INT_EQ(f.n_frames, 4);
    CHECK_INT_EQ(f.embed_size, 1);
    int zeros = 0;
    for (int i = 0; i < 4 * 80; i++)
        zeros += f.data[i] == 0.0f;
    CHECK_INT_EQ(zeros, 320);
    ts_audio_features_free(&f);
    ts_audio_fbank_destroy(fb);
    ts_audio_fbank_config bad = c;
    bad.win_length = 600;
    CHECK_INT_EQ(ts_audio_fbank_create(&bad, &fb, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK(fb == NULL);
    bad = c;
    bad.n_fft = 500;
    CHECK_INT_EQ(ts_audio_fbank_create(&bad, &fb, &err), TS_ERR_UNSUPPORTED);
    bad = c;
    bad.mel_max_frequency = 9000;
    CHECK_INT_EQ(ts_audio_fbank_create(&bad, &fb, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "f_max <= rate/2");
}

static void test_mel_bank(void)
{
    ts_audio_fbank_config c = ts_audio_fbank_config_default();
    ts_audio_fbank *fb = NULL;
    ts_error err = {0};
    REQUIRE(ts_audio_fbank_create(&c, &fb, &err) == TS_OK);
    int64_t n = 0;
    float *ref = audio_oracle_call(&O, "mel", "mel.f32", &n);
    REQUIRE(ref != NULL);
    CHECK_INT_EQ(n, 257 * 80);
    double diff = n == 257 * 80 ? audio_max_abs_diff(ts_audio_fbank_mel_weights(fb), ref, n) : 1;
    fprintf(stderr, "mel bank vs audio_utils.mel_filter_bank: max |diff| %.3g\n", diff);
    CHECK(diff <= 1e-7);
    free(ref);
    ts_audio_fbank_destroy(fb);
}

static double worst_feature;

/* Features of x (16 kHz) against the oracle's, with frames and embed size from its JSON. */
static void compare_features(const char *what, const float *x, int64_t n)
{
    ts_audio_fbank_config c = ts_audio_fbank_config_default();
    ts_audio_fbank *fb = NULL;
    ts_error err = {0};
    REQUIRE(ts_audio_fbank_create(&c, &fb, &err) == TS_OK);
    ts_audio_features f;
    REQUIRE(ts_audio_fbank_compute(fb, x, n, 16000, &f, &err) == TS_OK);
    REQUIRE(audio_oracle_write(&O, "wave.f32", x, n) == 0);
    char args[512], in_path[256];
    audio_oracle_path(&O, "wave.f32", in_path, sizeof(in_path));
    snprintf(args, sizeof(args), "features '%s'", in_path);
    int64_t k = 0;
    float *ref = audio_oracle_call(&O, args, "features.f32", &k);
    REQUIRE(ref != NULL);
    long long frames = -1, embed = -1;
    const char *fr = strstr(O.last_json, "\"frames\": "),
               *em = strstr(O.last_json, "\"embed_size\": ");
    if (fr) frames = strtoll(fr + 10, NULL, 10);
    if (em) embed = strtoll(em + 14, NULL, 10);
    CHECK_INT_EQ(f.n_frames, frames);
    CHECK_INT_EQ(f.embed_size, embed);
    CHECK_INT_EQ(k, f.n_frames * 80);
    double diff = k == f.n_frames * 80 ? audio_max_abs_diff(f.data, ref, k) : 1e30;
    float top = 0;
    for (int64_t i = 0; i < k; i++)
        top = ref[i] > top ? ref[i] : top;
    fprintf(
        stderr,
        "  %-34s %6lld samples: %4lld frames, %3lld tokens, max feature %.2f, max |diff| %.3g\n",
        what, (long long)n, (long long)f.n_frames, (long long)f.embed_size, top, diff);
    CHECK(diff <= FEATURE_TOL);
    if (diff > worst_feature) worst_feature = diff;
    free(ref);
    ts_audio_features_free(&f);
    ts_audio_fbank_destroy(fb);
}

static void test_clips(void)
{
    static const char *const names[] = {
        "speech_16k_s16.wav",  "speech_8k_s16.wav",  "speech_44k_stereo_s24.wav",
        "tone_48k_f32.wav",    "silence_16k.flac",   "speech_44k_stereo.flac",
        "speech_48k_s24.flac", "speech_16k.mp3",     "tone_44k_stereo.mp3",
        "speech_48k.ogg",      "tone_8k_stereo.ogg", "tone_8k_s32.wav"};
    const char *root = getenv("TS_ROOT");
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char path[4096], *data;
        size_t len;
        ts_error err = {0};
        snprintf(path, sizeof(path), "%s/tests/fixtures/media/audio/%s", root ? root : ".",
                 names[i]);
        REQUIRE(ts_file_read(path, &data, &len, &err) == TS_OK);
        ts_audio a;
        REQUIRE(ts_audio_decode(data, len, NULL, 16000, &a, &err) == TS_OK);
        free(data);
        compare_features(names[i], a.samples, a.n_samples);
        ts_audio_free(&a);
    }
}

/* Loud noise (energies far above the clamp), a quiet tone near it, a short odd length. */
static void test_synthetic(void)
{
    enum { N = 16000 * 3 + 123 };
    float *x = malloc(sizeof(float) * N);
    uint32_t s = 7;
    for (int i = 0; i < N; i++) {
        s = s * 1664525u + 1013904223u;
        x[i] = (float)((double)(s >> 8) / (1 << 24) * 2 - 1);
    }
    compare_features("uniform noise, full scale", x, N);
    for (int i = 0; i < N; i++)
        x[i] = (float)(1e-4 * sin(2 * M_PI * 300.0 * i / 16000.0));
    compare_features("300 Hz tone at -80 dBFS", x, N);
    compare_features("one window and a bit", x, 567);
    free(x);
    fprintf(stderr, "features vs the numpy oracle: max |diff| %.3g (tol %.0e)\n", worst_feature,
            FEATURE_TOL);
}

int main(void)
{
    audio_oracle_open(&O);
    RUN(test_fft);
    RUN(test_counts);
    RUN(test_errors);
    if (O.available) {
        RUN(test_mel_bank);
        RUN(test_clips);
        RUN(test_synthetic);
    }
    audio_oracle_close(&O);
    int rc = check_finish();
    return rc ? rc : (O.available ? 0 : 77);
}
