/* jinja_fuzz.c — libFuzzer target: arbitrary bytes as a chat template, compiled and, when it
 * compiles, rendered against a small conversation. Any crash, leak or sanitizer report is a
 * bug; errors are expected and ignored. Build with clang, -DTS_FUZZ=ON and
 * -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link (so the library reports coverage); seed with real
 * templates: tests/oracle/extract_ollama_templates.py AUTOMAP.ts fuzz/corpus-run/seeds. */
#include "tessera.h"

#include <stdint.h>
#include <stdlib.h>

static const char context[] = "{\"messages\": [{\"role\": \"system\", \"content\": \"s\"}, "
                              "{\"role\": \"user\", \"content\": [{\"type\": \"image\"},"
                              " {\"type\": \"text\", \"text\": \"h\\u00e9\"}]}, {\"role\": "
                              "\"assistant\", \"content\": \"a\", \"tool_calls\":"
                              " [{\"function\": {\"name\": \"f\", \"arguments\": {\"x\": "
                              "1.5}}}]}], \"add_generation_prompt\": true,"
                              " \"tools\": [{\"type\": \"function\"}], \"bos_token\": \"<s>\"}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ts_chat_template *t = NULL;
    if (ts_chat_template_compile((const char *)data, size, "fuzz", &t, NULL) != TS_OK) return 0;
    char *out = NULL;
    ts_chat_template_render(t, context, &out, NULL);
    free(out);
    ts_chat_template_destroy(t);
    return 0;
}
