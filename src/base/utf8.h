/* utf8.h — strict UTF-8 validation, decoding, encoding and the two ways of repairing it.
 *
 * "Valid" means what Rust's str accepts: no overlongs, no surrogates, nothing above U+10FFFF.
 * ts_utf8_validate returns the byte offset of the first invalid byte (len when all valid), so
 * callers can name it. ts_utf8_lossy replaces each maximal invalid subpart with U+FFFD exactly as
 * String::from_utf8_lossy does, which Hugging Face's decoders rely on. No allocation here except
 * through the ts_buf buffer passed in.
 */
#ifndef TS_BASE_UTF8_H
#define TS_BASE_UTF8_H

#include "base/buf.h"

#include <stddef.h>
#include <stdint.h>

size_t ts_utf8_validate(const uint8_t *s, size_t len);
/* Length of the complete, well-formed sequence that starts at s (len bytes available), or 0. */
size_t ts_utf8_sequence(const uint8_t *s, size_t len);
/* Decodes one code point of already-validated text; returns its byte length (>= 1). */
size_t ts_utf8_decode(const uint8_t *s, size_t len, uint32_t *cp);
/* Writes cp as UTF-8 into out (4 bytes room); returns the length. */
size_t ts_utf8_encode(uint32_t cp, char *out);
/* Length in bytes of the longest prefix of s[0..len) that is a valid but unfinished sequence at
 * the very end (0 when the text ends on a character boundary or with garbage). */
size_t ts_utf8_incomplete_tail(const uint8_t *s, size_t len);
/* Rust's char::is_whitespace (the Unicode White_Space property), used by lstrip/rstrip and Strip.
 */
bool ts_utf8_is_whitespace(uint32_t cp);
/* Appends s with invalid subparts replaced by U+FFFD. False on out of memory. */
bool ts_utf8_lossy(const uint8_t *s, size_t len, ts_buf *out);
/* s with each byte that begins no well-formed sequence replaced by U+FFFD. Owned, NUL-terminated
 * (free()); NULL only when out of memory. */
char *ts_utf8_clean(const char *s, size_t len);

#endif
