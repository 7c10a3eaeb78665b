/* model_config_fuzz.c — libFuzzer target: arbitrary bytes as config.json text.
 *
 * Feeds ts_model_config_parse; any status is fine, a crash, sanitizer report or leak is a bug.
 * A success must leave the dims the rest of Tessera divides by positive.
 */
#include "tessera.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ts_model_config config;
    ts_error err;
    if (ts_model_config_parse((const char *)data, size, "fuzz", &config, &err) != TS_OK) return 0;
    const ts_text_config *t = &config.text;
    if (t->hidden_size <= 0 || t->num_attention_heads <= 0 || t->num_key_value_heads <= 0 ||
        t->head_dim <= 0 || t->num_attention_heads % t->num_key_value_heads != 0)
        abort();
    if (config.has_vision && config.vision.num_heads <= 0) abort();
    return 0;
}
