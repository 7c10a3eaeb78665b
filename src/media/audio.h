/* audio.h — audio input: an encoded file held in memory → mono float32 samples at a chosen rate.
 *
 * The face of the audio modules: ts_audio_decode sniffs the container (audio_format.h), checks
 * the byte size, then what the header declares (channels, sample rate, duration; audio_probe.h)
 * against the limits BEFORE any sample is decoded, decodes through libsndfile from the buffer
 * (audio_sndfile.h; never a path), mixes to mono as the mean of the channels (float32, channel by
 * channel, as numpy's mean does in transformers' audio_utils.load_audio) and resamples with libsoxr
 * at the "HQ" recipe (audio_resample.h), as load_audio's soundfile backend does.
 * On success *out holds owned samples: free with ts_audio_free. On failure *out is empty and err
 * says what is wrong, led by the container's name ("WAV: …"), never a path:
 * TS_ERR_UNSUPPORTED (not a container we decode, or an encoding inside it we do not),
 * TS_ERR_RANGE (a limit), TS_ERR_FORMAT (malformed, truncated), TS_ERR_OUT_OF_MEMORY,
 * TS_ERR_INVALID_ARGUMENT (a bad target rate or limits from the caller).
 */
#ifndef TS_MEDIA_AUDIO_H
#define TS_MEDIA_AUDIO_H

#include "tessera.h"

#include <stddef.h>
#include <stdint.h>

/* The limits, their defaults, the rate bounds and ts_audio_info are public (tessera.h). */

/* Mono samples, nominally in [-1, 1] (float files may exceed it; nothing is clipped). */
typedef struct ts_audio {
    float *samples; /* owned, n_samples values */
    int64_t n_samples;
    int rate; /* Hz */
} ts_audio;

/* Decodes data[0..len) to mono at `rate` Hz (0 = the file's own rate). limits: NULL = defaults. */
ts_status ts_audio_decode(const void *data, size_t len, const ts_audio_limits *limits, int rate,
                          ts_audio *out, ts_error *err);
/* ts_audio_probe (tessera.h): the header's declaration, limits checked — the first steps of
 * ts_audio_decode, no sample read. */
/* Frees the samples and empties *audio; NULL and empty are fine. */
void ts_audio_free(ts_audio *audio);

#endif
