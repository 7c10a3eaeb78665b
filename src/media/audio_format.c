/* audio_format.c — container sniffing by magic bytes (audio_format.h).
 *
 * MP3 has no magic of its own: a file starts either with an ID3v2 tag ("ID3", version < 0xFF) or
 * with an MPEG audio frame header, an 11-bit sync (0xFFE) followed by a version that is not the
 * reserved 01 and a layer that is not the reserved 00. Anything else is UNKNOWN.
 */
#include "media/audio_format.h"

#include <string.h>

static int starts(const uint8_t *d, size_t len, size_t at, const char *magic)
{
    size_t n = strlen(magic);
    return len >= at + n && memcmp(d + at, magic, n) == 0;
}

static int mpeg_frame_header(const uint8_t *d, size_t len)
{
    if (len < 4 || d[0] != 0xFF || (d[1] & 0xE0) != 0xE0) return 0;
    unsigned version = (d[1] >> 3) & 3, layer = (d[1] >> 1) & 3, bitrate = d[2] >> 4,
             rate = (d[2] >> 2) & 3;
    return version != 1 && layer != 0 && bitrate != 15 && rate != 3;
}

ts_audio_format ts_audio_format_sniff(const uint8_t *data, size_t len)
{
    if (!data) return TS_AUDIO_FORMAT_UNKNOWN;
    if (starts(data, len, 0, "RIFF") && starts(data, len, 8, "WAVE")) return TS_AUDIO_FORMAT_WAV;
    if (starts(data, len, 0, "RF64") && starts(data, len, 8, "WAVE")) return TS_AUDIO_FORMAT_RF64;
    if (starts(data, len, 0, "fLaC")) return TS_AUDIO_FORMAT_FLAC;
    if (starts(data, len, 0, "OggS")) return TS_AUDIO_FORMAT_OGG;
    if (starts(data, len, 0, "FORM") &&
        (starts(data, len, 8, "AIFF") || starts(data, len, 8, "AIFC")))
        return TS_AUDIO_FORMAT_AIFF;
    if (starts(data, len, 0, "caff")) return TS_AUDIO_FORMAT_CAF;
    if (starts(data, len, 0, "ID3") && len >= 10 && data[3] != 0xFF && data[4] != 0xFF)
        return TS_AUDIO_FORMAT_MP3;
    if (mpeg_frame_header(data, len)) return TS_AUDIO_FORMAT_MP3;
    return TS_AUDIO_FORMAT_UNKNOWN;
}

const char *ts_audio_format_name(ts_audio_format format)
{
    static const char *const names[] = {"unknown", "WAV",  "FLAC", "MP3",
                                        "Ogg",     "AIFF", "RF64", "CAF"};
    _Static_assert(sizeof(names) / sizeof(names[0]) == TS_AUDIO_FORMAT_COUNT, "ORDER FORMAT");
    return (unsigned)format < TS_AUDIO_FORMAT_COUNT ? names[format] : "unknown";
}
