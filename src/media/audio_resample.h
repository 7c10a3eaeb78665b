/* audio_resample.h — mono float32 sample-rate conversion through libsoxr (Debian's libsoxr0).
 *
 * The reference is transformers' audio_utils.load_audio without torch (its soundfile backend,
 * "identical to librosa.load"): soxr.resample(x, in, out, quality="soxr_hq"), i.e. python-soxr's
 * split-channel path: one soxr_create(in, out, 1) with float32 in and out and
 * soxr_quality_spec(SOXR_HQ, 0), the input fed in blocks of max(1000, 48000·in/out) frames, then
 * a flush; the result padded with zeros or cut to ceil(n·out/in) samples, as load_audio does.
 * *out is owned by the caller (free()); n == 0 gives an empty result. Equal rates copy.
 * Errors: TS_ERR_INVALID_ARGUMENT (a rate <= 0), TS_ERR_OUT_OF_MEMORY, TS_ERR_INTERNAL (libsoxr's
 * own failure, its message included).
 */
#ifndef TS_MEDIA_AUDIO_RESAMPLE_H
#define TS_MEDIA_AUDIO_RESAMPLE_H

#include "tessera.h"

#include <stdint.h>

ts_status ts_audio_resample(const float *in, int64_t n, int in_rate, int out_rate, float **out,
                            int64_t *n_out, ts_error *err);

#endif
