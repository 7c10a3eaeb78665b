/* detokenizer.h — streaming decode: ids in one at a time, only complete UTF-8 out.
 *
 * Internal: library users get streamed text from ts_generate / ts_completion (their on_token
 * callback), which run one of these per sequence; nothing outside the engine needs its own.
 * Contract: the pieces concatenate to ts_tokenizer_decode of the same ids (for ids that came
 * from encoding text; detokenizer.c has the one exception). One per sequence and thread; finish
 * resets it for reuse.
 */
#ifndef TS_TEXT_DETOKENIZER_H
#define TS_TEXT_DETOKENIZER_H

#include "tessera.h"

typedef struct ts_detokenizer ts_detokenizer;
/* Owned; free with ts_detokenizer_destroy. tok must outlive it. */
ts_status ts_detokenizer_create(const ts_tokenizer *tok, bool skip_special_tokens,
                                ts_detokenizer **out, ts_error *err);
void ts_detokenizer_destroy(ts_detokenizer *detok);
/* *piece is borrowed, valid until the next call on detok; may be empty. */
ts_status ts_detokenizer_push(ts_detokenizer *detok, int32_t id, const char **piece,
                              size_t *piece_len, ts_error *err);
/* Whatever is still held back (an incomplete UTF-8 tail is emitted as U+FFFD, as HF does). */
ts_status ts_detokenizer_finish(ts_detokenizer *detok, const char **piece, size_t *piece_len,
                                ts_error *err);

#endif
