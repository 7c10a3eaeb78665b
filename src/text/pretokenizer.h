/* pretokenizer.h — tokenizer.json "pre_tokenizer": Split (regex or string, all five behaviours,
 * invert), ByteLevel, Metaspace, Digits, WhitespaceSplit, Sequence. Regexes are compiled once
 * (PCRE2_UTF|PCRE2_UCP, JIT) and matched without UTF checks: callers pass validated text.
 * ByteLevel only sets ts_pretokenizer_is_byte_level; the BPE model maps bytes, so pieces stay raw
 * UTF-8. ts_pretokenizer_run is reentrant (state in the caller's ts_pieces). Unknown types →
 * TS_ERR_UNSUPPORTED naming them. Owned; free with ts_pretokenizer_destroy.
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
    ts_buf buf;
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
