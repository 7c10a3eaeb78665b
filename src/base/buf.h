/* buf.h — the one growable byte buffer: StableHLO text, tokenizer bytes, CLI and server JSON.
 *
 * A ts_buf owns `data` (malloc) and keeps it NUL-terminated once anything was appended, so the
 * text can be handed out as a C string. `= {0}` (or ts_buf_init) is an empty buffer.
 * Every append returns false when memory runs out and leaves the contents as they were; the
 * failure is also sticky (`failed`, later appends are refused), so straight-line printing code
 * may ignore the returns and check `failed` once at the end. Pointers into data die on the next
 * append. ts_buf_take hands the text to the caller; ts_buf_fini frees it.
 */
#ifndef TS_BASE_BUF_H
#define TS_BASE_BUF_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct ts_buf {
    char *data;
    size_t len, cap;
    bool failed;
} ts_buf;

void ts_buf_init(ts_buf *b);
void ts_buf_fini(ts_buf *b);
/* Room for `extra` more bytes plus the terminating NUL. */
bool ts_buf_reserve(ts_buf *b, size_t extra);
bool ts_buf_append(ts_buf *b, const void *p, size_t n);
bool ts_buf_puts(ts_buf *b, const char *s);
bool ts_buf_putc(ts_buf *b, char c);
bool ts_buf_printf(ts_buf *b, const char *fmt, ...) TS_PRINTF(2, 3);
/* The text (owned by the caller, free()) and the buffer left empty; *len, when given, receives
 * its length. NULL when out of memory now or before (`failed`): the buffer is then freed. */
char *ts_buf_take(ts_buf *b, size_t *len);

/* The one growth rule for a malloc'd array that is full: `items` (NULL when empty) reallocated
 * to twice *cap elements of `elem` bytes (`first` when *cap is 0), *cap updated. NULL when out of
 * memory or the size overflows; `items` and *cap are then as they were. */
void *ts_array_grow(void *items, size_t *cap, size_t elem, size_t first);

#endif
