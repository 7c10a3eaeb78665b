/* audio_decode.c — ts_audio_probe and ts_audio_decode: the steps of audio.h in order.
 *
 * sniff → byte size → (WAV: our own header walk; Ogg: the Vorbis headers through libvorbis, see
 * audio_ogg.h) → libsndfile's header → limits → decode with a
 * frame cap → mono → resample. The frame cap is the duration limit at the file's rate, so a
 * header that under-declares (an MP3's estimated length) cannot decode past the limit either.
 */
#include "base/error.h"
#include "media/audio.h"
#include "media/audio_format.h"
#include "media/audio_ogg.h"
#include "media/audio_probe.h"
#include "media/audio_resample.h"
#include "media/audio_sndfile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Through the header: on success *file is open (or NULL when the caller passes file == NULL). */
static ts_status open_checked(const uint8_t *data, size_t len, const ts_audio_limits *limits,
                              ts_audio_info *info, ts_audio_sndfile **file, ts_error *err)
{
    memset(info, 0, sizeof(*info));
    if (!data || len == 0) return ts_error_set(err, TS_ERR_FORMAT, "audio: empty input (0 bytes)");
    ts_audio_format format = ts_audio_format_sniff(data, len);
    info->format = format; /* kept on failure (ts_audio_probe's contract): set again below */
    const char *name = ts_audio_format_name(format);
    if (format == TS_AUDIO_FORMAT_UNKNOWN)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "audio: not a WAV, FLAC, MP3 or Ogg file (first bytes %02x %02x %02x "
                            "%02x)",
                            data[0], len > 1 ? data[1] : 0, len > 2 ? data[2] : 0,
                            len > 3 ? data[3] : 0);
    if (format > TS_AUDIO_FORMAT_OGG)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "audio: %s files are not decoded", name);
    if (len > limits->max_bytes)
        return ts_error_set(err, TS_ERR_RANGE, "%s: %zu bytes, over the limit of %zu", name, len,
                            limits->max_bytes);
    if (format == TS_AUDIO_FORMAT_WAV) TS_TRY(ts_audio_wav_header(data, len, limits, info, err));
    if (format == TS_AUDIO_FORMAT_OGG) TS_TRY(ts_audio_ogg_headers(data, len, err));
    ts_audio_sndfile *f = NULL;
    TS_TRY(ts_audio_sndfile_open(data, len, (int)format, &f, info, err));
    ts_status st = ts_audio_check_info(name, info, limits, err);
    if (st != TS_OK || !file) {
        ts_audio_sndfile_close(f);
        return st;
    }
    *file = f;
    return TS_OK;
}

ts_status ts_audio_probe(const void *data, size_t len, const ts_audio_limits *limits,
                         ts_audio_info *info, ts_error *err)
{
    memset(info, 0, sizeof(*info));
    ts_audio_limits l;
    TS_TRY(ts_audio_limits_resolve(limits, &l, err));
    return open_checked(data, len, &l, info, NULL, err);
}

ts_status ts_audio_decode(const void *data, size_t len, const ts_audio_limits *limits, int rate,
                          ts_audio *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    ts_audio_limits l;
    TS_TRY(ts_audio_limits_resolve(limits, &l, err));
    if (rate != 0 && (rate < TS_AUDIO_MIN_RATE || rate > TS_AUDIO_MAX_RATE))
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "audio: target rate %d Hz is outside %d..%d Hz", rate,
                            TS_AUDIO_MIN_RATE, TS_AUDIO_MAX_RATE);
    ts_audio_info info;
    ts_audio_sndfile *f = NULL;
    TS_TRY(open_checked(data, len, &l, &info, &f, err));
    float *mono = NULL;
    int64_t n = 0;
    int64_t max_frames = (int64_t)floor(l.max_seconds * info.rate);
    ts_status st = ts_audio_sndfile_read_mono(f, max_frames, &mono, &n, err);
    ts_audio_sndfile_close(f);
    TS_TRY(st);
    /* WAV and FLAC headers state the exact length: fewer frames is a cut file. (MP3's length is an
     * estimate, Ogg's the last page's position, both consistent with what decodes.) */
    if ((info.format == TS_AUDIO_FORMAT_WAV || info.format == TS_AUDIO_FORMAT_FLAC) &&
        n < info.frames) {
        free(mono);
        return ts_error_set(
            err, TS_ERR_FORMAT, "%s: truncated: %lld of the %lld frames the header declares decode",
            ts_audio_format_name(info.format), (long long)n, (long long)info.frames);
    }
    if (rate == 0 || rate == info.rate) {
        *out = (ts_audio){.samples = mono, .n_samples = n, .rate = info.rate};
        return TS_OK;
    }
    float *resampled = NULL;
    int64_t n_out = 0;
    st = ts_audio_resample(mono, n, info.rate, rate, &resampled, &n_out, err);
    free(mono);
    TS_TRY(st);
    *out = (ts_audio){.samples = resampled, .n_samples = n_out, .rate = rate};
    return TS_OK;
}

void ts_audio_free(ts_audio *audio)
{
    if (!audio) return;
    free(audio->samples);
    memset(audio, 0, sizeof(*audio));
}
