/* audio_fbank.c — Phi-4-multimodal's log-mel features (audio_fbank.h).
 *
 * Precision follows the reference's dtypes step by step: frames and pre-emphasis in float32 (the
 * coefficient rounded to float32, as torch does with a Python scalar), window·frame and the FFT in
 * float64, the spectrum rounded to complex64, |X| and its square in float32 (sqrtf(re² + im²), as
 * torch's vectorised complex abs computes), the mel product accumulated in double and rounded to
 * float32 (the reference's float32 matmul differs from it by its own rounding, ~1e-7 relative),
 * then the clamp and logf.
 */
#include "media/audio_fbank.h"
#include "base/error.h"
#include "media/audio_fft.h"
#include "media/audio_mel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ts_audio_fbank {
    ts_audio_fbank_config config;
    int n_bins;
    double *window; /* win_length */
    float *mel;     /* n_bins * n_mels */
    ts_audio_fft fft;
};

ts_audio_fbank_config ts_audio_fbank_config_default(void)
{
    return (ts_audio_fbank_config){.sampling_rate = 16000,
                                   .feature_size = 80,
                                   .n_fft = 512,
                                   .win_length = 400,
                                   .hop_length = 160,
                                   .preemphasis = 0.97,
                                   .mel_min_frequency = 0,
                                   .mel_max_frequency = 7690,
                                   .audio_compression_rate = 8,
                                   .audio_downsample_rate = 1,
                                   .audio_feat_stride = 1};
}

static ts_status check_config(const ts_audio_fbank_config *c, ts_error *err)
{
    if (c->sampling_rate <= 0 || c->n_fft < 2 || c->win_length < 2 || c->win_length > c->n_fft ||
        c->hop_length < 1 || c->feature_size < 1 || c->feature_size > c->n_fft / 2 + 1 ||
        !(c->preemphasis >= 0 && c->preemphasis < 1) || c->audio_compression_rate < 1 ||
        c->audio_downsample_rate < 1 || c->audio_feat_stride < 1)
        return ts_error_set(
            err, TS_ERR_INVALID_ARGUMENT,
            "audio features: config out of range (rate %d, n_fft %d, win %d, hop "
            "%d, mels %d, preemphasis %g, compression %d, downsample %d, stride %d)",
            c->sampling_rate, c->n_fft, c->win_length, c->hop_length, c->feature_size,
            c->preemphasis, c->audio_compression_rate, c->audio_downsample_rate,
            c->audio_feat_stride);
    return TS_OK;
}

ts_status ts_audio_fbank_create(const ts_audio_fbank_config *config, ts_audio_fbank **out,
                                ts_error *err)
{
    *out = NULL;
    TS_TRY(check_config(config, err));
    ts_audio_fbank *fb = calloc(1, sizeof(*fb));
    if (!fb) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "audio features: out of memory");
    fb->config = *config;
    fb->n_bins = config->n_fft / 2 + 1;
    ts_status st = ts_audio_fft_init(&fb->fft, config->n_fft, err);
    if (st != TS_OK) {
        free(fb);
        return st;
    }
    fb->window = malloc(sizeof(double) * (size_t)config->win_length);
    fb->mel = malloc(sizeof(float) * (size_t)fb->n_bins * (size_t)config->feature_size);
    if (!fb->window || !fb->mel) {
        ts_audio_fbank_destroy(fb);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "audio features: out of memory");
    }
    /* torch.hamming_window(N, periodic=False, dtype=float64): arange·(2π/(N−1)), cos, ·(−β), +α. */
    double scale = M_PI * 2.0 / (double)(config->win_length - 1);
    for (int j = 0; j < config->win_length; j++)
        fb->window[j] = cos((double)j * scale) * -0.46 + 0.54;
    st = ts_audio_mel_bank(fb->n_bins, config->feature_size, config->mel_min_frequency,
                           config->mel_max_frequency, config->sampling_rate, fb->mel, err);
    if (st != TS_OK) {
        ts_audio_fbank_destroy(fb);
        return st;
    }
    *out = fb;
    return TS_OK;
}

void ts_audio_fbank_destroy(ts_audio_fbank *fb)
{
    if (!fb) return;
    ts_audio_fft_fini(&fb->fft);
    free(fb->window);
    free(fb->mel);
    free(fb);
}

const float *ts_audio_fbank_mel_weights(const ts_audio_fbank *fb)
{
    return fb->mel;
}

int64_t ts_audio_fbank_frames(const ts_audio_fbank *fb, int64_t n)
{
    const ts_audio_fbank_config *c = &fb->config;
    return n < c->win_length ? 0 : (n - c->win_length) / c->hop_length + 1;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return a / b + (a % b > 0);
}

int64_t ts_audio_fbank_embed_size(const ts_audio_fbank *fb, int64_t n_frames)
{
    const ts_audio_fbank_config *c = &fb->config;
    int64_t frames = n_frames * c->audio_feat_stride;
    return ceil_div(ceil_div(frames, c->audio_compression_rate), c->audio_downsample_rate);
}

ts_status ts_audio_fbank_compute(const ts_audio_fbank *fb, const float *samples, int64_t n,
                                 int rate, ts_audio_features *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    const ts_audio_fbank_config *c = &fb->config;
    if (rate != c->sampling_rate)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "audio features: samples at %d Hz, the extractor takes %d Hz "
                            "(resample first)",
                            rate, c->sampling_rate);
    int64_t frames = ts_audio_fbank_frames(fb, n);
    if (frames < 1)
        return ts_error_set(err, TS_ERR_RANGE,
                            "audio features: %lld samples, under one %d-sample window (%.3f s)",
                            (long long)n, c->win_length, (double)c->win_length / c->sampling_rate);
    int win = c->win_length, n_mels = c->feature_size, n_bins = fb->n_bins, n_fft = c->n_fft;
    float *data = malloc(sizeof(float) * (size_t)frames * (size_t)n_mels);
    double *x = malloc(sizeof(double) * (size_t)win);
    double *scratch = malloc(sizeof(double) * 2 * (size_t)n_fft);
    double *spec = malloc(sizeof(double) * 2 * (size_t)n_bins);
    float *power = malloc(sizeof(float) * (size_t)n_bins);
    if (!data || !x || !scratch || !spec || !power) {
        free(data), free(x), free(scratch), free(spec), free(power);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY,
                            "audio features: out of memory for %lld frames", (long long)frames);
    }
    const float pre = (float)c->preemphasis;
    for (int64_t t = 0; t < frames; t++) {
        const float *frame = samples + t * c->hop_length;
        for (int j = 0; j < win; j++) {
            float prev = frame[j > 0 ? j - 1 : 0];
            float scaled = pre * prev;
            float y = (frame[j] - scaled) * 32768.0f;
            x[j] = fb->window[j] * (double)y;
        }
        ts_audio_fft_real(&fb->fft, x, win, scratch, spec);
        for (int k = 0; k < n_bins; k++) {
            float re = (float)spec[2 * k], im = (float)spec[2 * k + 1];
            float magnitude = sqrtf(re * re + im * im);
            power[k] = magnitude * magnitude;
        }
        float *row = data + t * n_mels;
        for (int m = 0; m < n_mels; m++) {
            double sum = 0;
            for (int k = 0; k < n_bins; k++)
                sum += (double)power[k] * (double)fb->mel[(size_t)k * n_mels + m];
            float energy = (float)sum;
            row[m] = logf(energy > 1.0f ? energy : 1.0f);
        }
    }
    free(x), free(scratch), free(spec), free(power);
    out->data = data;
    out->n_frames = frames;
    out->n_mels = n_mels;
    out->embed_size = ts_audio_fbank_embed_size(fb, frames);
    return TS_OK;
}

void ts_audio_features_free(ts_audio_features *f)
{
    if (!f) return;
    free(f->data);
    memset(f, 0, sizeof(*f));
}
