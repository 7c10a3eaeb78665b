/* audio_decode_test.c — ts_audio_decode on the committed clips (tools/make_audio_clips.sh) against
 * the oracle at test time (tests/audio_oracle.h): transformers' load_audio without torch, i.e.
 * soundfile's decode, the float32 channel mean and python-soxr "soxr_hq".
 *
 * At the file's own rate (no resampling) PCM WAV and FLAC must be bit-exact: both sides are
 * libsndfile's float conversion and the same mean. MP3 and Ogg go through each side's own
 * libmpg123 / libvorbis (Debian's, the soundfile wheel's bundled ones): within DECODE_LOSSY_TOL
 * (measured: MP3 bit-exact, Ogg 2.4e-7).
 * Resampled to 16 kHz, libsoxr (Debian 0.1.3) against python-soxr 1.1.0's bundled libsoxr: within
 * RESAMPLE_TOL of samples in [-1, 1], same length (measured: bit-exact on x86-64; the tolerance
 * leaves room for libsoxr's SIMD dispatch on other CPUs). Exit 77 when the oracle is missing.
 */
#include "audio_oracle.h"
#include "check.h"
#include "media/audio.h"
#include "media/audio_format.h"

#include "base/file.h"

#define DECODE_LOSSY_TOL 1e-6
#define RESAMPLE_TOL 1e-6

static audio_oracle O;

typedef struct clip {
    const char *name;
    int format, channels, rate;
    int lossy;
} clip;

static const clip CLIPS[] = {
    {"speech_16k_s16.wav", TS_AUDIO_FORMAT_WAV, 1, 16000, 0},
    {"speech_8k_s16.wav", TS_AUDIO_FORMAT_WAV, 1, 8000, 0},
    {"speech_44k_stereo_s24.wav", TS_AUDIO_FORMAT_WAV, 2, 44100, 0},
    {"tone_48k_f32.wav", TS_AUDIO_FORMAT_WAV, 1, 48000, 0},
    {"tone_8k_s32.wav", TS_AUDIO_FORMAT_WAV, 1, 8000, 0},
    {"silence_16k.flac", TS_AUDIO_FORMAT_FLAC, 1, 16000, 0},
    {"speech_44k_stereo.flac", TS_AUDIO_FORMAT_FLAC, 2, 44100, 0},
    {"speech_48k_s24.flac", TS_AUDIO_FORMAT_FLAC, 1, 48000, 0},
    {"speech_16k.mp3", TS_AUDIO_FORMAT_MP3, 1, 16000, 1},
    {"tone_44k_stereo.mp3", TS_AUDIO_FORMAT_MP3, 2, 44100, 1},
    {"speech_48k.ogg", TS_AUDIO_FORMAT_OGG, 1, 48000, 1},
    {"tone_8k_stereo.ogg", TS_AUDIO_FORMAT_OGG, 2, 8000, 1},
};
enum { N_CLIPS = sizeof(CLIPS) / sizeof(CLIPS[0]) };

static char *clip_path(const char *name, char *out, size_t cap)
{
    const char *root = getenv("TS_ROOT");
    snprintf(out, cap, "%s/tests/fixtures/media/audio/%s", root ? root : ".", name);
    return out;
}

static int read_clip(const char *name, char **data, size_t *len)
{
    char path[4096];
    ts_error err = {0};
    return ts_file_read(clip_path(name, path, sizeof(path)), data, len, &err) == TS_OK ? 0 : -1;
}

/* The probe reports the header; the clip's sniffed container is the one it was written as. */
static void test_probe(void)
{
    for (int i = 0; i < N_CLIPS; i++) {
        char *data;
        size_t len;
        REQUIRE(read_clip(CLIPS[i].name, &data, &len) == 0);
        ts_audio_info info;
        ts_error err = {0};
        CHECK_INT_EQ(ts_audio_format_sniff((const uint8_t *)data, len), CLIPS[i].format);
        CHECK_INT_EQ(ts_audio_probe(data, len, NULL, &info, &err), TS_OK);
        CHECK_INT_EQ(info.channels, CLIPS[i].channels);
        CHECK_INT_EQ(info.rate, CLIPS[i].rate);
        CHECK(info.frames > info.rate / 4);
        free(data);
    }
}

/* Decoded at `rate` (0 = own) against the oracle's load at the same rate. */
static void compare_clip(const clip *c, int rate, double tol, double *worst)
{
    char *data, path[4096], args[4600];
    size_t len;
    REQUIRE(read_clip(c->name, &data, &len) == 0);
    ts_audio audio;
    ts_error err = {0};
    ts_status st = ts_audio_decode(data, len, NULL, rate, &audio, &err);
    free(data);
    if (st != TS_OK) fprintf(stderr, "%s: %s\n", c->name, err.message);
    REQUIRE(st == TS_OK);
    int want_rate = rate ? rate : c->rate;
    CHECK_INT_EQ(audio.rate, want_rate);
    snprintf(args, sizeof(args), "load '%s' %d", clip_path(c->name, path, sizeof(path)), want_rate);
    int64_t n = 0;
    float *ref = audio_oracle_call(&O, args, "load.f32", &n);
    REQUIRE(ref != NULL);
    CHECK_INT_EQ(audio.n_samples, n);
    double diff = audio.n_samples == n ? audio_max_abs_diff(audio.samples, ref, n) : 1e30;
    double peak = 0;
    for (int64_t i = 0; i < n; i++)
        peak = fabs(ref[i]) > peak ? fabs(ref[i]) : peak;
    fprintf(stderr, "  %-28s at %5d Hz: %7lld samples, peak %.3f, max |diff| %.3g (tol %.0e)\n",
            c->name, want_rate, (long long)n, peak, diff, tol);
    CHECK(diff <= tol);
    if (diff > *worst) *worst = diff;
    free(ref);
    ts_audio_free(&audio);
}

static void test_decode_own_rate(void)
{
    double worst_exact = 0, worst_lossy = 0;
    for (int i = 0; i < N_CLIPS; i++)
        compare_clip(&CLIPS[i], 0, CLIPS[i].lossy ? DECODE_LOSSY_TOL : 0.0,
                     CLIPS[i].lossy ? &worst_lossy : &worst_exact);
    fprintf(stderr, "decode at own rate: PCM/FLAC max |diff| %.3g, MP3/Ogg %.3g\n", worst_exact,
            worst_lossy);
}

static void test_decode_16k(void)
{
    double worst = 0;
    for (int i = 0; i < N_CLIPS; i++)
        compare_clip(&CLIPS[i], 16000, CLIPS[i].lossy ? DECODE_LOSSY_TOL : RESAMPLE_TOL, &worst);
    fprintf(stderr, "decode + resample to 16 kHz: max |diff| %.3g\n", worst);
}

/* Real values: the silent clip decodes to zeros, the 440 Hz tone at 0.5 peaks at 0.5. */
static void test_values(void)
{
    char *data;
    size_t len;
    ts_audio a;
    ts_error err = {0};
    REQUIRE(read_clip("silence_16k.flac", &data, &len) == 0);
    REQUIRE(ts_audio_decode(data, len, NULL, 0, &a, &err) == TS_OK);
    free(data);
    CHECK_INT_EQ(a.n_samples, 8000);
    double peak = 0;
    for (int64_t i = 0; i < a.n_samples; i++)
        peak = fabs(a.samples[i]) > peak ? fabs(a.samples[i]) : peak;
    CHECK(peak == 0.0);
    ts_audio_free(&a);
    REQUIRE(read_clip("tone_48k_f32.wav", &data, &len) == 0);
    REQUIRE(ts_audio_decode(data, len, NULL, 0, &a, &err) == TS_OK);
    free(data);
    CHECK_INT_EQ(a.n_samples, 24000);
    peak = 0;
    for (int64_t i = 0; i < a.n_samples; i++)
        peak = fabs(a.samples[i]) > peak ? fabs(a.samples[i]) : peak;
    CHECK(peak > 0.49 && peak <= 0.5001);
    ts_audio_free(&a);
}

/* The limits bind: duration, channels and bytes, each with the numbers in the message. */
static void test_limits(void)
{
    char *data;
    size_t len;
    ts_audio a;
    ts_error err = {0};
    REQUIRE(read_clip("speech_44k_stereo.flac", &data, &len) == 0);
    ts_audio_limits seconds = {.max_seconds = 0.5};
    CHECK_INT_EQ(ts_audio_decode(data, len, &seconds, 16000, &a, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "FLAC: header declares 1.0 s");
    ts_audio_limits channels = {.max_channels = 1};
    CHECK_INT_EQ(ts_audio_decode(data, len, &channels, 16000, &a, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "2 channels, over the limit of 1");
    ts_audio_limits bytes = {.max_bytes = 1000};
    CHECK_INT_EQ(ts_audio_decode(data, len, &bytes, 16000, &a, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "over the limit of 1000");
    ts_audio_limits bad = {.max_seconds = -1};
    CHECK_INT_EQ(ts_audio_decode(data, len, &bad, 16000, &a, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_INT_EQ(ts_audio_decode(data, len, NULL, 100, &a, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "target rate 100 Hz");
    CHECK(a.samples == NULL && a.n_samples == 0);
    free(data);
}

int main(void)
{
    audio_oracle_open(&O);
    RUN(test_probe);
    RUN(test_values);
    RUN(test_limits);
    if (O.available) {
        RUN(test_decode_own_rate);
        RUN(test_decode_16k);
    }
    audio_oracle_close(&O);
    int rc = check_finish();
    return rc ? rc : (O.available ? 0 : 77);
}
