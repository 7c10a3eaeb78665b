/* tokenizer.h — the tokenizer object behind the public ts_tokenizer_* API (tessera.h).
 *
 * ts_tokenizer_load reads dir/tokenizer.json (and dir/tokenizer_config.json when present) into
 * the pipeline: added tokens → normalizer → pre-tokenizer → BPE → post-processor, and the decoder
 * for the way back. A loaded tokenizer is immutable apart from the BPE cache, which locks, so one
 * instance may serve many threads. Encoding rejects invalid UTF-8 with TS_ERR_INVALID_ARGUMENT
 * naming the byte offset (Hugging Face only ever sees valid str, so there is nothing to match).
 * This header only lists internals shared with the detokenizer and tests.
 */
#ifndef TS_TEXT_TOKENIZER_H
#define TS_TEXT_TOKENIZER_H

#include "tessera.h"

/* Number of special (prefix + suffix) ids add_special_tokens adds. */
size_t ts_tokenizer_template_size(const ts_tokenizer *tok);

#endif
