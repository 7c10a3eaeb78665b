/* error.h — the server's errors: an OpenAI error object with its HTTP status.
 *
 * srv_fail fills one (`return srv_fail(err, 400, "stop", "…", …);`), cutting an over-long param
 * or message at a UTF-8 boundary; srv_error_json prints {"error": {"message", "type", "param",
 * "code"}}, with text that is not valid UTF-8 (requests quote their own fields) repaired.
 * srv_clip copies user text for quoting in a message, at most SRV_CLIP bytes with "...".
 * Engine-side failures are a ts_error (base/error.h); these are what a client is told.
 */
#ifndef TS_SERVER_ERROR_H
#define TS_SERVER_ERROR_H

#include <stddef.h>

typedef struct srv_error {
    int status;     /* 400, 401, 404, 413, 429, 500, 503 */
    char param[64]; /* the offending field ("messages[1].content[0].image_url.url"), or "" */
    char message[512];
} srv_error;

/* Sets *err (when not NULL) and returns -1. */
int srv_fail(srv_error *err, int status, const char *param, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The OpenAI error document for err. Owned, free(); NULL only when out of memory. */
char *srv_error_json(const srv_error *err);

/* Bytes of user text quoted in an error message, "..." included. */
#define SRV_CLIP 48
/* Copies s (n bytes) into buf (size bytes) for quoting, cut at a UTF-8 boundary with "..." when
 * too long; returns buf. */
const char *srv_clip(char *buf, size_t size, const char *s, size_t n);

#endif
