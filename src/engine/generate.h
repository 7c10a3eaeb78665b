/* generate.h — the generation loop behind ts_generate, with its text side pluggable.
 *
 * ts_generate feeds ids through a ts_detokenizer; tests (and later the server) can give any
 * ts_text_stream instead, so stop strings and held-back text are testable on token ids alone.
 * Everything else (parameters, ownership of the result, finish reasons) is as ts_generate.
 */
#ifndef TS_ENGINE_GENERATE_H
#define TS_ENGINE_GENERATE_H

#include "tessera.h"

typedef struct ts_text_stream {
    void *self;
    /* The text one more id adds; *piece borrowed until the next call. */
    ts_status (*push)(void *self, int32_t id, const char **piece, size_t *len, ts_error *err);
    /* Whatever the stream still holds at the end. */
    ts_status (*finish)(void *self, const char **piece, size_t *len, ts_error *err);
} ts_text_stream;

/* What the loop steps: the engine's model + sequence, or a bundle's entries. */
typedef struct ts_step_backend {
    void *self;
    int64_t vocab;
    /* Appends the prompt; logits of its last token into logits[vocab]. */
    ts_status (*prefill)(void *self, const int32_t *prompt, size_t n, float *logits, ts_error *err);
    /* Appends one token; its logits. */
    ts_status (*decode)(void *self, int32_t id, float *logits, ts_error *err);
    /* No room for another token. */
    bool (*full)(void *self);
    /* Optional (NULL: no speculative decoding): appends n tokens, every row's logits
     * rows[n][vocab]; forgets the last `drop` appended; how many drafted tokens a step may add
     * now (capacity, sliding-window rings). max_draft: the rings' limit alone. */
    ts_status (*verify)(void *self, const int32_t *tokens, int n, float *rows, ts_error *err);
    ts_status (*rollback)(void *self, int drop, ts_error *err);
    int64_t (*draft_room)(void *self);
    int64_t max_draft;
} ts_step_backend;

/* params->tokenizer is ignored; `text` NULL means ids only (then stop strings are an error). */
ts_status ts_generate_stream(ts_model *model, ts_sequence *seq, const int32_t *prompt, size_t n,
                             const ts_generate_params *params, const ts_text_stream *text,
                             ts_generation *out, ts_error *err);
/* The loop over any backend; text from params->tokenizer when set. */
ts_status ts_generate_backend(const ts_step_backend *backend, const int32_t *prompt, size_t n,
                              const ts_generate_params *params, ts_generation *out, ts_error *err);

#endif
