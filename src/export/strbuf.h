/* strbuf.h — a growable, NUL-terminated text buffer for the StableHLO printer.
 *
 * Appends never fail loudly: the first allocation failure sets `failed`, later appends are
 * ignored, and the owner checks `failed` once at the end (so printing code stays straight-line).
 * The buffer owns `data` (malloc); ts_strbuf_take hands it to the caller, ts_strbuf_fini frees it.
 */
#ifndef TS_EXPORT_STRBUF_H
#define TS_EXPORT_STRBUF_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct ts_strbuf {
    char *data;
    size_t len, cap;
    bool failed;
} ts_strbuf;

void ts_strbuf_init(ts_strbuf *b);
void ts_strbuf_fini(ts_strbuf *b);
void ts_strbuf_put(ts_strbuf *b, const char *s);
void ts_strbuf_putn(ts_strbuf *b, const char *s, size_t n);
void ts_strbuf_printf(ts_strbuf *b, const char *fmt, ...) TS_PRINTF(2, 3);
/* The text (owned by the caller, free with free()); the buffer is left empty. */
char *ts_strbuf_take(ts_strbuf *b, size_t *len);

#endif
