/* base64.h — strict standard base64, as a data: image URL carries it.
 *
 * No whitespace or URL-safe letters; padding optional but exact. The letters are checked and the
 * decoded size computed before anything is allocated, so a bad or oversized image costs one scan.
 * srv_base64_decode decodes the NUL-terminated s into *out (owned, free()) and returns 0, or sets
 * *err (400, `param`, a message that begins with `where` and names the offset) and returns -1:
 * a bad letter or padding, empty data, or more than max_bytes decoded.
 */
#ifndef TS_SERVER_BASE64_H
#define TS_SERVER_BASE64_H

#include "server/error.h"

#include <stddef.h>
#include <stdint.h>

int srv_base64_decode(const char *s, const char *where, const char *param, size_t max_bytes,
                      uint8_t **out, size_t *out_len, srv_error *err);

#endif
