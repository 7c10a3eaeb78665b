/* bpe.h — the byte-pair-encoding model of tokenizer.json ("model": {"type": "BPE", ...}).
 *
 * Owns the model vocabulary (string → id), the merge table ((left id, right id) → rank and merged
 * id) and a bounded cache of short pre-token → ids results. Encoding applies the lowest-rank
 * merge first, leftmost on ties, as Hugging Face does; ignore_merges, byte_fallback ("<0xXX>"
 * pieces), unk_token and fuse_unk follow the Rust semantics. With byte_level set, each input byte
 * starts as the vocab entry of its GPT-2 alphabet character.
 * ts_bpe_encode may be called from many threads at once on one model: the cache is lock-striped.
 * Errors: TS_ERR_UNSUPPORTED for non-BPE models or options we do not implement (dropout,
 * subword prefixes), TS_ERR_FORMAT for malformed vocab/merges (naming the entry).
 */
#ifndef TS_TEXT_BPE_H
#define TS_TEXT_BPE_H

#include "tessera.h"
#include "text/strmap.h"
#include "text/textbuf.h"

#include <cjson/cJSON.h>

typedef struct ts_bpe ts_bpe;

ts_status ts_bpe_parse(const cJSON *model, bool byte_level, ts_bpe **out, ts_error *err);
void ts_bpe_destroy(ts_bpe *bpe);
/* Appends the ids of one pre-token (valid UTF-8) to out. */
ts_status ts_bpe_encode(const ts_bpe *bpe, const char *word, size_t len, ts_ids *out,
                        ts_error *err);
const ts_strmap *ts_bpe_vocab(const ts_bpe *bpe);
/* Highest model id + 1. */
size_t ts_bpe_vocab_size(const ts_bpe *bpe);

/* The GPT-2 byte alphabet: the code point that stands for byte b, and the inverse (-1 when cp is
 * not in the alphabet). */
uint32_t ts_byte_level_char(uint8_t b);
int ts_byte_level_byte(uint32_t cp);

#endif
