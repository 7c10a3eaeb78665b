/* image_url.h — the bytes behind an image part's URL, before anything decodes them.
 *
 * data:image/…;base64,… is decoded (strict base64); file://[localhost]/path is read only when its
 * real path (symlinks resolved) lies strictly under limits->media_root, and at most
 * limits->max_image_bytes; http(s) and every other scheme are refused (no remote fetching).
 * Returns 0 with *out owned (free()), or -1 with *err (400 naming `param`, a message beginning
 * with `where`; 500 when out of memory or the media root cannot be resolved).
 */
#ifndef TS_SERVER_IMAGE_URL_H
#define TS_SERVER_IMAGE_URL_H

#include "server/request.h"

int srv_image_url_load(const char *url, const char *where, const char *param,
                       const srv_limits *limits, uint8_t **out, size_t *out_len, srv_error *err);

#endif
