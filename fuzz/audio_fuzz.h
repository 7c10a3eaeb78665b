/* audio_fuzz.h — the body shared by the per-container audio fuzz targets (wav_, flac_, mp3_,
 * ogg_decode_fuzz).
 *
 * audio_fuzz_run hands the input to ts_audio_decode only when the sniffer places it as the
 * target's container (anything else returns at once, so each target spends its time in one
 * libsndfile path), with limits of 1 MB and 20 s (the fuzzer's time goes to parsers, not to long
 * decodes) and a 16 kHz target rate, so the resampler runs on whatever decodes; what decodes to a
 * full window is then turned into Phi-4 features. Any status is fine; a crash, sanitizer report or
 * leak is a bug, and so is a broken contract, which aborts: a failure must leave no samples and a
 * message; a success n > 0 finite samples at 16 kHz, and features with the frame count
 * ts_audio_fbank_frames gives.
 */
#ifndef TS_FUZZ_AUDIO_FUZZ_H
#define TS_FUZZ_AUDIO_FUZZ_H

#include "media/audio.h"
#include "media/audio_fbank.h"
#include "media/audio_format.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline int audio_fuzz_run(const uint8_t *data, size_t size, ts_audio_format format)
{
    ts_audio_limits limits = {.max_bytes = 1000 * 1000, .max_seconds = 20, .max_channels = 8};
    if (size > limits.max_bytes || ts_audio_format_sniff(data, size) != format) return 0;
    ts_audio audio;
    ts_error err = {0};
    if (ts_audio_decode(data, size, &limits, 16000, &audio, &err) != TS_OK) {
        if (audio.samples || audio.n_samples || err.message[0] == '\0') abort();
        return 0;
    }
    if (audio.n_samples <= 0 || audio.rate != 16000 || !audio.samples) abort();
    for (int64_t i = 0; i < audio.n_samples; i++)
        if (!isfinite(audio.samples[i])) abort();
    ts_audio_fbank_config config = ts_audio_fbank_config_default();
    ts_audio_fbank *fbank = NULL;
    if (ts_audio_fbank_create(&config, &fbank, &err) != TS_OK) abort();
    ts_audio_features features;
    int64_t frames = ts_audio_fbank_frames(fbank, audio.n_samples);
    ts_status st =
        ts_audio_fbank_compute(fbank, audio.samples, audio.n_samples, 16000, &features, &err);
    if ((st == TS_OK) != (frames > 0) || (st == TS_OK && features.n_frames != frames)) abort();
    if (st == TS_OK)
        for (int64_t i = 0; i < features.n_frames * features.n_mels; i++)
            if (!(features.data[i] >= 0.0f) || !isfinite(features.data[i])) abort();
    ts_audio_features_free(&features);
    ts_audio_fbank_destroy(fbank);
    ts_audio_free(&audio);
    return 0;
}

#endif
