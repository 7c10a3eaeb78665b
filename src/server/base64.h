/* base64.h — strict standard base64, as a data: image URL and an input_audio part carry it.
 *
 * No whitespace or URL-safe letters; padding optional but exact. The letters are checked and the
 * decoded size computed before anything is allocated, so bad or oversized data costs one scan.
 * srv_base64_decode decodes the NUL-terminated s into *out (owned, free()) and returns 0, or sets
 * *err (400, `param`, a message that begins with `where` and names the offset) and returns -1:
 * a bad letter or padding, empty data, or more than max_bytes decoded (`what`, "image" or "audio",
 * names the data in the message).
 */
#ifndef TS_SERVER_BASE64_H
#define TS_SERVER_BASE64_H

#include "server/error.h"

#include <stddef.h>
#include <stdint.h>

int srv_base64_decode(const char *s, const char *where, const char *param, const char *what,
                      size_t max_bytes, uint8_t **out, size_t *out_len, srv_error *err);

#endif
