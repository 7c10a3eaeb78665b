/* audio_ogg.h — an Ogg Vorbis stream's three header packets, checked by libvorbis itself before
 * libsndfile opens the stream.
 *
 * Why: libsndfile 1.2.0 leaks the vorbis_info it allocates (about 5.8 KB) whenever a Vorbis header
 * fails part-way — a truncated or corrupt comment or setup header — and a server probes every clip
 * a client sends. Here the identification, comment and setup packets of the first logical stream
 * are read with libogg and handed to vorbis_synthesis_headerin, everything freed on every path;
 * only a stream whose three headers libvorbis accepts goes on to libsndfile. A first packet that is
 * not Vorbis (Opus, Ogg FLAC) is left to libsndfile, which reads or refuses it without this leak.
 * TS_ERR_FORMAT (messages "Ogg: …", the failing header named), TS_ERR_OUT_OF_MEMORY. Reads at most
 * len bytes; allocates nothing that outlives the call.
 */
#ifndef TS_MEDIA_AUDIO_OGG_H
#define TS_MEDIA_AUDIO_OGG_H

#include "tessera.h"

#include <stddef.h>
#include <stdint.h>

ts_status ts_audio_ogg_headers(const uint8_t *data, size_t len, ts_error *err);

#endif
