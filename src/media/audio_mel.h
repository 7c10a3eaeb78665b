/* audio_mel.h — the mel filter bank of transformers' audio_utils.mel_filter_bank, kaldi scale,
 * triangles in mel space, no normalisation (what Phi4MultimodalFeatureExtractor builds).
 *
 * mel(f) = 1127 ln(1 + f/700). The n_mels + 2 edges are numpy.linspace(mel(f_min), mel(f_max))
 * (i·step + start, the last set to the end exactly); FFT bin k sits at mel(k · rate /
 * (2(n_bins-1))) and filter i weighs it max(0, min((m_k − e_i)/(e_{i+1} − e_i), (e_{i+2} −
 * m_k)/(e_{i+2} − e_{i+1}))), computed in double and rounded once to float, as the extractor's
 * float64 bank cast to float32. ts_audio_mel_bank writes weights[bin * n_mels + mel] (the
 * reference's (bins, mels) layout). Errors: TS_ERR_INVALID_ARGUMENT for sizes < 1 (bins < 2) or 0
 * <= f_min < f_max <= rate/2 broken.
 */
#ifndef TS_MEDIA_AUDIO_MEL_H
#define TS_MEDIA_AUDIO_MEL_H

#include "tessera.h"

double ts_audio_mel_kaldi(double hz);
ts_status ts_audio_mel_bank(int n_bins, int n_mels, double f_min, double f_max, int rate,
                            float *weights, ts_error *err);

#endif
