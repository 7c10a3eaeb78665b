/* utf8_clean.h — text the server echoes (a token's bytes, a request's own field in an error
 * message) made valid UTF-8 for JSON: every byte that does not begin a well-formed sequence
 * becomes U+FFFD, as Python's errors="replace" and OpenAI's token strings do. */
#ifndef TS_SERVER_UTF8_CLEAN_H
#define TS_SERVER_UTF8_CLEAN_H

#include <stddef.h>

/* Owned, NUL-terminated (free()); NULL only when out of memory. */
char *srv_utf8_clean(const char *s, size_t n);

#endif
