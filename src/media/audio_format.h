/* audio_format.h — which audio container a buffer holds, from its first bytes alone.
 *
 * ts_audio_format_sniff never reads past len and never fails: what it cannot place is
 * TS_AUDIO_FORMAT_UNKNOWN. Containers Tessera does not decode (AIFF, RF64, CAF, …) are still named
 * so the caller's error can say what was found. ts_audio_format_name returns static storage.
 */
#ifndef TS_MEDIA_AUDIO_FORMAT_H
#define TS_MEDIA_AUDIO_FORMAT_H

#include "tessera.h"

#include <stddef.h>
#include <stdint.h>

/* ts_audio_format is public (tessera.h). */

ts_audio_format ts_audio_format_sniff(const uint8_t *data, size_t len);
const char *ts_audio_format_name(ts_audio_format format);

#endif
