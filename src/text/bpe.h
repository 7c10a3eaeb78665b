/* bpe.h — the BPE model of tokenizer.json: vocab, merge table ((left, right) id → rank, merged
 * id) and a bounded pre-token → ids cache. Merges go lowest rank first, leftmost on ties, with
 * ignore_merges, byte_fallback, unk_token and fuse_unk as in Rust; with byte_level each input
 * byte starts as its GPT-2 alphabet character. Owned; ts_bpe_destroy frees. ts_bpe_encode is
 * safe from many threads on one model (the cache is lock-striped). Errors: TS_ERR_UNSUPPORTED for
 * non-BPE models, dropout or subword affixes; TS_ERR_FORMAT naming a bad vocab or merges entry.
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
