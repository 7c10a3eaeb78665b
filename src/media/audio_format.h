/* audio_format.h — which audio container a buffer holds, from its first bytes alone.
 *
 * ts_audio_format_sniff never reads past len and never fails: what it cannot place is
 * TS_AUDIO_FORMAT_UNKNOWN. Containers Tessera does not decode (AIFF, RF64, CAF, …) are still named
 * so the caller's error can say what was found. ts_audio_format_name returns static storage.
 */
#ifndef TS_MEDIA_AUDIO_FORMAT_H
#define TS_MEDIA_AUDIO_FORMAT_H

#include <stddef.h>
#include <stdint.h>

typedef enum ts_audio_format {
    TS_AUDIO_FORMAT_UNKNOWN = 0,
    TS_AUDIO_FORMAT_WAV,  /* decoded: RIFF/WAVE, PCM 8/16/24/32-bit or IEEE float 32/64 */
    TS_AUDIO_FORMAT_FLAC, /* decoded */
    TS_AUDIO_FORMAT_MP3,  /* decoded: MPEG-1/2 layer I/II/III, bare or behind an ID3v2 tag */
    TS_AUDIO_FORMAT_OGG,  /* decoded: Ogg Vorbis (and Opus, as libsndfile reads it) */
    TS_AUDIO_FORMAT_AIFF, /* recognised only, from here down */
    TS_AUDIO_FORMAT_RF64,
    TS_AUDIO_FORMAT_CAF,
    TS_AUDIO_FORMAT_COUNT
} ts_audio_format;

ts_audio_format ts_audio_format_sniff(const uint8_t *data, size_t len);
const char *ts_audio_format_name(ts_audio_format format);

#endif
