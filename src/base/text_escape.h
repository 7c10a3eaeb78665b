/* text_escape.h — hex digits and JSON string escapes, the one copy the CLI, the tokenizer, the
 * Jinja runtime, the StableHLO reader and the server share.
 *
 * The JSON writers differ on purpose in which control bytes they spell short, and each one's
 * output is pinned by tests and oracles, so the style is a set of flags rather than one choice:
 * with no flags only '"' and '\\' are escaped short and every other byte below 0x20 is \u00xx
 * (lower-case hex); bytes >= 0x80 always pass through (the text is UTF-8).
 */
#ifndef TS_BASE_TEXT_ESCAPE_H
#define TS_BASE_TEXT_ESCAPE_H

#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The value of a hex digit (either case), or -1. */
int ts_hex_value(int c);
/* Four hex digits at s (which must have four bytes) as in JSON's \uXXXX; false on a non-digit. */
bool ts_hex4(const char *s, unsigned *out);

enum {
    TS_JSON_ESC_NRT = 1 << 0, /* \n \r \t short */
    TS_JSON_ESC_BF = 1 << 1,  /* \b \f short too, as Python's json.dumps writes them */
    TS_JSON_ESC_DEL = 1 << 2, /* 0x7F as \u007f, which JSON allows raw */
};

/* The escape for byte c under `flags` written to out (NUL-terminated), and its length; 0 when
 * c stands for itself. For writers that are not a ts_buf (a FILE, the Jinja arena). */
size_t ts_json_escape_byte(unsigned char c, unsigned flags, char out[8]);
/* Appends s[0..n) escaped, without quotes. False when out of memory (see buf.h). */
bool ts_json_escape(ts_buf *b, const char *s, size_t n, unsigned flags);
/* Appends s[0..n) as a quoted JSON string literal. */
bool ts_json_quote(ts_buf *b, const char *s, size_t n, unsigned flags);
/* The same literal written to a stream (the CLI's JSON lines); false on a write error. */
bool ts_json_fquote(FILE *f, const char *s, size_t n, unsigned flags);

#endif
