/* audio_sndfile.h — libsndfile reading from a memory buffer (sf_open_virtual), never a path.
 *
 * ts_audio_sndfile_open parses the header only and fills *info with libsndfile's view (channels,
 * rate, frames); it checks that libsndfile found the container that was sniffed (`format`) and an
 * encoding we decode. ts_audio_sndfile_read_mono then decodes every frame as float32 (libsndfile's
 * normalisation: integer PCM divided by 2^(bits-1)), mixes each frame to mono as the mean of its
 * channels in float32, channel by channel (numpy's `mean(axis=0)` on a float32 array), and refuses
 * non-finite samples, samples beyond +-TS_AUDIO_MAX_MAGNITUDE (float files; they would overflow
 * the resampler and the features to inf) and more than max_frames frames. The buffer must outlive
 * the handle; the samples are owned by the caller (free()). Errors lead with the container's name;
 * TS_ERR_FORMAT carries libsndfile's own reason. ts_audio_sndfile_close accepts NULL.
 */
#ifndef TS_MEDIA_AUDIO_SNDFILE_H
#define TS_MEDIA_AUDIO_SNDFILE_H

#include "media/audio.h"

/* 80 dB above full scale: no recording holds more; 8 channels of it still sum, resample and square
 * in float32 without overflow. */
#define TS_AUDIO_MAX_MAGNITUDE 1e4

typedef struct ts_audio_sndfile ts_audio_sndfile;

ts_status ts_audio_sndfile_open(const uint8_t *data, size_t len, int format, ts_audio_sndfile **out,
                                ts_audio_info *info, ts_error *err);
ts_status ts_audio_sndfile_read_mono(ts_audio_sndfile *file, int64_t max_frames, float **samples,
                                     int64_t *n_samples, ts_error *err);
void ts_audio_sndfile_close(ts_audio_sndfile *file);

#endif
