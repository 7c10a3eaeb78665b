/* audio_fbank.h — log-mel filterbank features of Phi4MultimodalFeatureExtractor (transformers
 * 5.23.0, models/phi4_multimodal/feature_extraction_phi4_multimodal.py,
 * _torch_extract_fbank_features).
 *
 * For mono float32 samples at the extractor's rate, frame t covers samples [t·hop, t·hop + win)
 * for t < (n − win)/hop + 1 (the tail that fills no frame is dropped, no centring). Each frame:
 * pre-emphasis inside the frame, y_0 = x_0 − p·x_0, y_j = x_j − p·x_{j−1}, times 32768 (float32);
 * times a symmetric Hamming window (0.54 − 0.46 cos(2πj/(win−1)), float64, torch's formula);
 * rfft of size n_fft (zero padded, float64) cast to complex64; |X|² in float32; the mel bank of
 * audio_mel.h; clamped below at 1; natural log. features[t * n_mels + m] (the reference's
 * (frames, mels) layout). embed_size is the extractor's audio_embed_sizes: frames · feat_stride,
 * divided by the compression rate rounding up, then by the downsample rate rounding up.
 *
 * Lifecycle: ts_audio_fbank_create builds the window, bank and FFT once for a config (owned,
 * ts_audio_fbank_destroy); ts_audio_fbank_compute may then run from several threads at once.
 * Errors: TS_ERR_INVALID_ARGUMENT for a config out of range or samples at another rate (the
 * reference raises ValueError: it takes 16 kHz only, so callers resample first, as its
 * load_audio does; the 8 kHz "fillzero" path of the checkpoint's original remote code, a 256-point
 * FFT with the upper bins zeroed, is not transformers' and is not here), TS_ERR_RANGE for fewer
 * samples than one window, TS_ERR_OUT_OF_MEMORY.
 */
#ifndef TS_MEDIA_AUDIO_FBANK_H
#define TS_MEDIA_AUDIO_FBANK_H

#include "tessera.h"

#include <stdint.h>

/* The extractor's preprocessor_config.json fields. */
typedef struct ts_audio_fbank_config {
    int sampling_rate;                           /* 16000 */
    int feature_size;                            /* mels: 80 */
    int n_fft;                                   /* 512 */
    int win_length;                              /* 400 */
    int hop_length;                              /* 160 */
    double preemphasis;                          /* 0.97, applied in float32 */
    double mel_min_frequency, mel_max_frequency; /* 0, 7690 */
    int audio_compression_rate, audio_downsample_rate, audio_feat_stride; /* 8, 1, 1 */
} ts_audio_fbank_config;

typedef struct ts_audio_fbank ts_audio_fbank;

/* Features of one clip: owned, ts_audio_features_free. */
typedef struct ts_audio_features {
    float *data; /* n_frames * n_mels */
    int64_t n_frames;
    int n_mels;
    int64_t embed_size; /* audio tokens the clip takes (audio_embed_sizes) */
} ts_audio_features;

/* The reference extractor's constructor defaults (Phi4MultimodalFeatureExtractor.__init__). */
ts_audio_fbank_config ts_audio_fbank_config_default(void);
ts_status ts_audio_fbank_create(const ts_audio_fbank_config *config, ts_audio_fbank **out,
                                ts_error *err);
void ts_audio_fbank_destroy(ts_audio_fbank *fbank);
/* The bank itself, borrowed for the fbank's life: weights[bin * n_mels + mel], n_fft/2+1 bins. */
const float *ts_audio_fbank_mel_weights(const ts_audio_fbank *fbank);
/* Frames and audio tokens for n samples, without computing features (0 frames below one window). */
int64_t ts_audio_fbank_frames(const ts_audio_fbank *fbank, int64_t n_samples);
int64_t ts_audio_fbank_embed_size(const ts_audio_fbank *fbank, int64_t n_frames);
ts_status ts_audio_fbank_compute(const ts_audio_fbank *fbank, const float *samples, int64_t n,
                                 int rate, ts_audio_features *out, ts_error *err);
void ts_audio_features_free(ts_audio_features *features);

#endif
