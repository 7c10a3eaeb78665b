/* normalizer.h — the tokenizer.json "normalizer" section: NFC/NFD/NFKC/NFKD (utf8proc),
 * Lowercase, Replace (literal String pattern), Prepend, Strip and Sequence.
 *
 * Built once from JSON (ts_normalizer_parse; NULL JSON = identity), then applied to valid UTF-8
 * pieces with ts_normalizer_apply, which appends the result to `out` and is safe to call from many
 * threads. Unknown types and regex Replace patterns fail with TS_ERR_UNSUPPORTED naming them.
 * Free with ts_normalizer_destroy.
 */
#ifndef TS_TEXT_NORMALIZER_H
#define TS_TEXT_NORMALIZER_H

#include "tessera.h"
#include "text/textbuf.h"

#include <cjson/cJSON.h>

typedef struct ts_normalizer ts_normalizer;

ts_status ts_normalizer_parse(const cJSON *json, ts_normalizer **out, ts_error *err);
void ts_normalizer_destroy(ts_normalizer *norm);
ts_status ts_normalizer_apply(const ts_normalizer *norm, const char *text, size_t len, ts_buf *out,
                              ts_error *err);

#endif
