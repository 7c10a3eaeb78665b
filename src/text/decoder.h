/* decoder.h — the tokenizer.json "decoder" section: ByteLevel, ByteFallback, Replace (literal),
 * Fuse, Strip, Metaspace and Sequence, applied to the token strings of the ids being decoded.
 *
 * ts_decoder_run appends valid UTF-8 to out: invalid byte runs become U+FFFD exactly where Rust's
 * from_utf8_lossy (ByteLevel) or the ByteFallback decoder put them. A NULL decoder joins tokens
 * with a space, as Hugging Face does without one. Read-only after parse (thread-safe); unknown
 * types fail with TS_ERR_UNSUPPORTED naming them. Free with ts_decoder_destroy.
 */
#ifndef TS_TEXT_DECODER_H
#define TS_TEXT_DECODER_H

#include "tessera.h"
#include "text/textbuf.h"

#include <cjson/cJSON.h>

typedef struct ts_decoder ts_decoder;

typedef struct ts_token_ref {
    const char *text;
    size_t len;
} ts_token_ref;

ts_status ts_decoder_parse(const cJSON *json, ts_decoder **out, ts_error *err);
void ts_decoder_destroy(ts_decoder *dec);
ts_status ts_decoder_run(const ts_decoder *dec, const ts_token_ref *tokens, size_t n, ts_buf *out,
                         ts_error *err);

#endif
