/* audio_probe.c — limits, the WAV header walk, and the declared-size checks (audio_probe.h).
 *
 * The WAV walk follows the RIFF layout: "RIFF" size "WAVE", then chunks of a 4-byte id, a 32-bit
 * little-endian size and the payload padded to an even length. Only "fmt " and "data" are read;
 * the others (LIST, fact, cue, …) are skipped. The duration limit is checked on the declared data
 * size before the size is compared with the bytes present, so a header that declares ten hours is
 * refused as too long, whatever follows it.
 */
#include "media/audio_probe.h"
#include "base/error.h"
#include "media/audio_format.h"

#include <math.h>
#include <string.h>

enum {
    WAV_FORMAT_PCM = 1,
    WAV_FORMAT_IEEE_FLOAT = 3,
    WAV_FORMAT_EXTENSIBLE = 0xFFFE,
    WAV_FMT_MIN_SIZE = 16,
    WAV_FMT_EXTENSIBLE_SIZE = 40,
};

ts_status ts_audio_limits_resolve(const ts_audio_limits *in, ts_audio_limits *out, ts_error *err)
{
    ts_audio_limits l = in ? *in : (ts_audio_limits){0};
    if (!(l.max_seconds >= 0) || !isfinite(l.max_seconds) || l.max_channels < 0)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "audio limits: max_seconds %g and max_channels %d must be >= 0",
                            l.max_seconds, l.max_channels);
    if (l.max_bytes == 0) l.max_bytes = TS_AUDIO_DEFAULT_MAX_BYTES;
    if (l.max_seconds == 0) l.max_seconds = TS_AUDIO_DEFAULT_MAX_SECONDS;
    if (l.max_channels == 0) l.max_channels = TS_AUDIO_DEFAULT_MAX_CHANNELS;
    *out = l;
    return TS_OK;
}

ts_status ts_audio_check_info(const char *name, const ts_audio_info *info,
                              const ts_audio_limits *limits, ts_error *err)
{
    if (info->channels <= 0)
        return ts_error_set(err, TS_ERR_FORMAT, "%s: header declares %d channels", name,
                            info->channels);
    if (info->channels > limits->max_channels)
        return ts_error_set(err, TS_ERR_RANGE, "%s: %d channels, over the limit of %d", name,
                            info->channels, limits->max_channels);
    if (info->rate <= 0)
        return ts_error_set(err, TS_ERR_FORMAT, "%s: header declares a sample rate of %d Hz", name,
                            info->rate);
    if (info->rate < TS_AUDIO_MIN_RATE || info->rate > TS_AUDIO_MAX_RATE)
        return ts_error_set(err, TS_ERR_RANGE,
                            "%s: sample rate %d Hz is outside the supported %d..%d Hz", name,
                            info->rate, TS_AUDIO_MIN_RATE, TS_AUDIO_MAX_RATE);
    if (info->frames < 0)
        return ts_error_set(err, TS_ERR_FORMAT, "%s: header declares %lld frames", name,
                            (long long)info->frames);
    double seconds = (double)info->frames / info->rate;
    if (seconds > limits->max_seconds)
        return ts_error_set(err, TS_ERR_RANGE,
                            "%s: header declares %.1f s of audio (%lld frames at %d Hz), over the "
                            "limit of %.1f s",
                            name, seconds, (long long)info->frames, info->rate,
                            limits->max_seconds);
    return TS_OK;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static unsigned le16(const uint8_t *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

/* A chunk id is named in messages only when it is printable ASCII. */
static int isprint_id(const uint8_t *id)
{
    for (int i = 0; i < 4; i++)
        if (id[i] < 0x20 || id[i] > 0x7E) return 0;
    return 1;
}

/* The fmt chunk's encoding: PCM or float at a depth we decode, else an error naming it. */
static ts_status check_fmt(const uint8_t *fmt, uint32_t size, ts_audio_info *info, ts_error *err)
{
    if (size < WAV_FMT_MIN_SIZE)
        return ts_error_set(err, TS_ERR_FORMAT, "WAV: fmt chunk is %u bytes, under the 16 needed",
                            size);
    unsigned tag = le16(fmt), channels = le16(fmt + 2), align = le16(fmt + 12),
             bits = le16(fmt + 14);
    uint32_t rate = le32(fmt + 4);
    if (tag == WAV_FORMAT_EXTENSIBLE) {
        if (size < WAV_FMT_EXTENSIBLE_SIZE)
            return ts_error_set(err, TS_ERR_FORMAT,
                                "WAV: extensible fmt chunk is %u bytes, under the 40 needed", size);
        tag = le16(fmt + 24); /* the sub-format GUID's first two bytes are the format tag */
    }
    if (tag != WAV_FORMAT_PCM && tag != WAV_FORMAT_IEEE_FLOAT)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "WAV: encoding 0x%04x is not decoded (PCM or IEEE float only)", tag);
    int ok_bits = tag == WAV_FORMAT_PCM ? (bits == 8 || bits == 16 || bits == 24 || bits == 32)
                                        : (bits == 32 || bits == 64);
    if (!ok_bits)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "WAV: %u-bit %s samples are not decoded", bits,
                            tag == WAV_FORMAT_PCM ? "PCM" : "float");
    if (rate > (uint32_t)TS_AUDIO_MAX_RATE)
        return ts_error_set(err, TS_ERR_RANGE,
                            "WAV: sample rate %u Hz is outside the supported %d..%d Hz", rate,
                            TS_AUDIO_MIN_RATE, TS_AUDIO_MAX_RATE);
    info->channels = (int)channels;
    info->rate = (int)rate;
    if (channels && align != channels * (bits / 8))
        return ts_error_set(err, TS_ERR_FORMAT,
                            "WAV: block align %u does not match %u channels of %u bits", align,
                            channels, bits);
    return TS_OK;
}

ts_status ts_audio_wav_header(const uint8_t *data, size_t len, const ts_audio_limits *limits,
                              ts_audio_info *info, ts_error *err)
{
    memset(info, 0, sizeof(*info));
    info->format = TS_AUDIO_FORMAT_WAV;
    if (len < 12)
        return ts_error_set(err, TS_ERR_FORMAT, "WAV: %zu bytes, no room for a header", len);
    size_t at = 12;
    const uint8_t *fmt = NULL;
    uint32_t fmt_size = 0;
    while (at + 8 <= len) {
        const uint8_t *id = data + at;
        uint32_t size = le32(data + at + 4);
        size_t body = at + 8, left = len - body;
        if (memcmp(id, "data", 4) == 0) {
            if (!fmt)
                return ts_error_set(err, TS_ERR_FORMAT, "WAV: data chunk before the fmt chunk");
            TS_TRY(check_fmt(fmt, fmt_size, info, err));
            int streamed = size == 0 || size == 0xFFFFFFFFu;
            uint64_t bytes = streamed ? left : size;
            unsigned align = le16(fmt + 12);
            info->frames = align ? (int64_t)(bytes / align) : 0;
            TS_TRY(ts_audio_check_info("WAV", info, limits, err));
            if (bytes > left)
                return ts_error_set(err, TS_ERR_FORMAT,
                                    "WAV: data chunk declares %llu bytes but %zu follow",
                                    (unsigned long long)bytes, left);
            if (bytes % align)
                return ts_error_set(err, TS_ERR_FORMAT,
                                    "WAV: data chunk of %llu bytes is not a whole number of "
                                    "%u-byte frames",
                                    (unsigned long long)bytes, align);
            return TS_OK;
        }
        if (size > left)
            return ts_error_set(err, TS_ERR_FORMAT,
                                "WAV: chunk '%.4s' declares %u bytes but %zu follow",
                                isprint_id(id) ? (const char *)id : "????", size, left);
        if (memcmp(id, "fmt ", 4) == 0) {
            fmt = data + body;
            fmt_size = size;
        }
        at = body + size + (size & 1);
    }
    return ts_error_set(err, TS_ERR_FORMAT, fmt ? "WAV: no data chunk" : "WAV: no fmt chunk");
}
