/* added_tokens.h — tokenizer.json "added_tokens": the AddedVocabulary of Hugging Face. Two
 * matchers, as in Rust: tokens with normalized=false (all special tokens in practice) are found in
 * the raw text before normalization; normalized=true tokens are found, by their normalized form, in
 * each normalized piece. Matching is leftmost-longest, non-overlapping; a match is then dropped if
 * single_word and it touches a word character, and widened over whitespace by lstrip/rstrip. Owns
 * its token copies and tries; read-only after load, so concurrent ts_added_split calls are safe.
 * Free with ts_added_destroy.
 */
#ifndef TS_TEXT_ADDED_TOKENS_H
#define TS_TEXT_ADDED_TOKENS_H

#include "tessera.h"
#include "text/normalizer.h"
#include "text/textbuf.h"

#include <cjson/cJSON.h>

typedef struct ts_added_token {
    char *content;
    size_t len;
    int32_t id;
    bool special, normalized, lstrip, rstrip, single_word;
} ts_added_token;

typedef struct ts_added ts_added;

/* `norm` (may be NULL) computes the match form of normalized tokens. */
ts_status ts_added_parse(const cJSON *json, const ts_normalizer *norm, ts_added **out,
                         ts_error *err);
void ts_added_destroy(ts_added *added);
size_t ts_added_count(const ts_added *added);
const ts_added_token *ts_added_at(const ts_added *added, size_t i);

/* One piece of a split: a matched token (id >= 0) or plain text (id = -1). */
typedef struct ts_split {
    size_t start, end;
    int32_t id;
} ts_split;

typedef struct ts_splits {
    ts_split *items;
    size_t n, cap;
} ts_splits;

/* Splits text with the raw (normalized=false) or the normalized matcher, replacing out->items.
 * Text between matches, possibly empty at the ends, is returned as id -1 pieces. */
ts_status ts_added_split(const ts_added *added, bool normalized_set, const char *text, size_t len,
                         ts_splits *out, ts_error *err);

#endif
