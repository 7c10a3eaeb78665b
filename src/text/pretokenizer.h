/* pretokenizer.h — the tokenizer.json "pre_tokenizer" section: Split (PCRE2 regex or literal
 * string; Removed/Isolated/MergedWithPrevious/MergedWithNext/Contiguous, invert), ByteLevel,
 * Metaspace, Digits, WhitespaceSplit and Sequence.
 *
 * Regexes are compiled once with PCRE2_UTF|PCRE2_UCP and JIT-compiled; matching uses
 * PCRE2_NO_UTF_CHECK because the tokenizer validates input once up front. ByteLevel does not
 * rewrite bytes here: it sets ts_pretokenizer_is_byte_level and the BPE model maps bytes to its
 * alphabet, which keeps pieces as raw UTF-8 (and makes them cheap cache keys).
 * ts_pretokenizer_run is reentrant: state lives in the caller's ts_pieces. Unknown types →
 * TS_ERR_UNSUPPORTED naming the type. Free with ts_pretokenizer_destroy.
 */
#ifndef TS_TEXT_PRETOKENIZER_H
#define TS_TEXT_PRETOKENIZER_H

#include "tessera.h"
#include "text/textbuf.h"

#include <cjson/cJSON.h>

typedef struct ts_piece {
    uint32_t offset, len; /* into ts_pieces.buf */
    bool at_start;        /* begins at offset 0 of the original input (Metaspace "first") */
} ts_piece;

/* Caller-owned working state; reuse across calls, free with ts_pieces_free. */
typedef struct ts_pieces {
    ts_bytes buf;
    ts_piece *items, *scratch;
    size_t n, cap, scratch_cap;
    void *match_data; /* pcre2_match_data, created lazily */
} ts_pieces;

void ts_pieces_free(ts_pieces *pieces);

typedef struct ts_pretokenizer ts_pretokenizer;

ts_status ts_pretokenizer_parse(const cJSON *json, ts_pretokenizer **out, ts_error *err);
void ts_pretokenizer_destroy(ts_pretokenizer *pre);
bool ts_pretokenizer_is_byte_level(const ts_pretokenizer *pre);
/* Splits text (valid UTF-8) into pieces, replacing pieces->items. A NULL pre-tokenizer yields the
 * text as one piece. */
ts_status ts_pretokenizer_run(const ts_pretokenizer *pre, const char *text, size_t len,
                              bool at_start, ts_pieces *pieces, ts_error *err);

#endif
