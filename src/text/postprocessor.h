/* postprocessor.h — what add_special_tokens wraps around a single sequence.
 *
 * Reduces tokenizer.json "post_processor" (TemplateProcessing, BertProcessing, RobertaProcessing,
 * ByteLevel, Sequence) to fixed prefix and suffix id lists; ByteLevel only touches offsets, so it
 * adds nothing. Pairs are not supported by the API, so "pair" templates are ignored.
 * (tokenizer.c then applies transformers' tokenizer_config.json add_bos_token/add_eos_token rule.)
 * Unknown types → TS_ERR_UNSUPPORTED. Plain value type, no heap.
 */
#ifndef TS_TEXT_POSTPROCESSOR_H
#define TS_TEXT_POSTPROCESSOR_H

#include "tessera.h"

#include <cjson/cJSON.h>

#define TS_TEMPLATE_MAX 8

typedef struct ts_template {
    int32_t prefix[TS_TEMPLATE_MAX], suffix[TS_TEMPLATE_MAX];
    size_t n_prefix, n_suffix;
} ts_template;

ts_status ts_template_parse(const cJSON *json, ts_template *out, ts_error *err);

#endif
