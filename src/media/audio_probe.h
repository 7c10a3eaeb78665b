/* audio_probe.h — what an audio header declares, and the limits checked against it before decoding.
 *
 * ts_audio_limits_resolve fills a caller's limits' zero fields with the defaults (audio.h) and
 * refuses negative or non-finite ones (TS_ERR_INVALID_ARGUMENT). ts_audio_wav_header walks the
 * RIFF chunks of a WAV itself (libsndfile clamps a data chunk longer than the file to the bytes
 * present, which would hide a 10-hour declaration): it reads the fmt chunk (PCM 8/16/24/32-bit,
 * IEEE float 32/64, plain or WAVE_FORMAT_EXTENSIBLE) and the data chunk's size, and fails with
 * TS_ERR_FORMAT / TS_ERR_UNSUPPORTED naming the field. ts_audio_check_info holds any declaration
 * to the limits: zero channels or rate is TS_ERR_FORMAT, anything over a limit TS_ERR_RANGE with
 * both numbers. Messages start with `name` ("WAV: …"). Nothing here allocates.
 */
#ifndef TS_MEDIA_AUDIO_PROBE_H
#define TS_MEDIA_AUDIO_PROBE_H

#include "media/audio.h"

ts_status ts_audio_limits_resolve(const ts_audio_limits *in, ts_audio_limits *out, ts_error *err);
/* info->format is set to WAV; frames = data bytes / block align. Also checks that the data chunk
 * fits in the buffer (a streamed header's 0 or 0xFFFFFFFF size means "to the end"). */
ts_status ts_audio_wav_header(const uint8_t *data, size_t len, const ts_audio_limits *limits,
                              ts_audio_info *info, ts_error *err);
ts_status ts_audio_check_info(const char *name, const ts_audio_info *info,
                              const ts_audio_limits *limits, ts_error *err);

#endif
