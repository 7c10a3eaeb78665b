/* input_audio.h — an OpenAI input_audio content part, checked before any sample is decoded.
 *
 * {"type":"input_audio","input_audio":{"data":"<base64>","format":"wav"|"mp3"|"flac"|"ogg"}}:
 * the format must be one of the four; the data strict base64 (base64.h) of at most
 * limits->audio.max_bytes; the container its first bytes name must be the format given (a
 * mismatch is the client's mistake, never guessed past); then the header is probed
 * (ts_audio_probe: channels, sample rate, declared duration and size against limits->audio),
 * which decodes nothing. Returns 0 with *out filled (out->bytes owned: free()), or -1 with *err:
 * 400 naming the field (`…input_audio`, `….format` or `….data`) in param and at the head of the
 * message, with the reason; 500 when out of memory. Nothing is left allocated on failure.
 */
#ifndef TS_SERVER_INPUT_AUDIO_H
#define TS_SERVER_INPUT_AUDIO_H

#include "server/request.h"

#include <cjson/cJSON.h>

/* part is messages[i].content[j] (an object whose type is "input_audio"). */
int srv_input_audio_load(const cJSON *part, int i, int j, const srv_limits *limits,
                         srv_audio_source *out, srv_error *err);

#endif
