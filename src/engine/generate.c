/* generate.c — one sequence from prompt to finish: prefill, then sample → decode until EOS, a
 * stop string, max_tokens or a full cache. Semantics are documented at ts_generate in tessera.h.
 *
 * States of a call:  prefill → step (sample, accept, detokenize, match stops, callback)
 *                    → decode → step … → finish (flush held-back text, final callback).
 * The model sees every generated token except the last one (nothing reads its logits), so a
 * sequence needs capacity for prompt + max_tokens − 1. On error the partial result is freed.
 */
#include "engine/generate.h"
#include "base/buf.h"
#include "base/error.h"
#include "engine/model.h"
#include "engine/ngram_draft.h"
#include "engine/sampler.h"
#include "engine/speculative.h"
#include "engine/stop_matcher.h"
#include "text/detokenizer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

const char *ts_finish_reason_name(ts_finish_reason reason)
{
    switch (reason) {
    case TS_FINISH_STOP: return "stop";
    case TS_FINISH_LENGTH: return "length";
    }
    return "?";
}

int ts_generation_eos_ids(const ts_generation_config *generation, const ts_model_config *config,
                          int64_t ids[8])
{
    const int64_t *src = generation && generation->n_eos_token_ids ? generation->eos_token_ids
                                                                   : config->eos_token_ids;
    int n = generation && generation->n_eos_token_ids ? generation->n_eos_token_ids
                                                      : config->n_eos_token_ids;
    memcpy(ids, src, sizeof(*ids) * (size_t)n);
    return n;
}

void ts_generation_free(ts_generation *g)
{
    if (!g) return;
    free(g->ids);
    free(g->text);
    memset(g, 0, sizeof(*g));
}

static ts_status append_text(ts_generation *g, size_t *cap, const char *s, size_t len, ts_error *err)
{
    if (g->text_len + len + 1 > *cap) {
        size_t c = (g->text_len + len + 1) * 2;
        char *t = realloc(g->text, c);
        if (!t) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory for text");
        g->text = t;
        *cap = c;
    }
    if (len) memcpy(g->text + g->text_len, s, len);
    g->text_len += len;
    g->text[g->text_len] = '\0';
    return TS_OK;
}

static bool is_eos(const ts_generate_params *p, int32_t id)
{
    for (int i = 0; i < p->n_eos_ids; i++)
        if (p->eos_ids[i] == id) return true;
    return false;
}

static ts_status check_params(int64_t vocab, size_t n, const ts_generate_params *p,
                              const ts_text_stream *text, ts_error *err)
{
    if (n == 0) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "generate: empty prompt");
    if (p->max_tokens < 1)
        return ts_error_set(err, TS_ERR_RANGE, "generate: max_tokens %lld must be ≥ 1",
                            (long long)p->max_tokens);
    if (p->n_eos_ids < 0 || (p->n_eos_ids && !p->eos_ids))
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "generate: bad EOS list (%d ids)", p->n_eos_ids);
    for (int i = 0; i < p->n_eos_ids; i++)
        if (p->eos_ids[i] < 0 || p->eos_ids[i] >= vocab)
            return ts_error_set(err, TS_ERR_RANGE, "generate: EOS id %lld outside the vocabulary (0..%lld)",
                                (long long)p->eos_ids[i], (long long)vocab - 1);
    if (p->n_stop && !text)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "generate: stop strings need a tokenizer to match the text against");
    return TS_OK;
}

/* The sampler for this call: the caller's params, plus a -inf bias per EOS id for ignore_eos. */
static ts_status make_sampler(int64_t vocab, const ts_generate_params *p, ts_sampler **out,
                              ts_error *err)
{
    ts_sampling_params sp = p->sampling;
    ts_logit_bias *bias = NULL;
    if (p->ignore_eos && p->n_eos_ids) {
        size_t n = sp.n_logit_bias + (size_t)p->n_eos_ids;
        bias = malloc(n * sizeof(*bias));
        if (!bias) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
        if (sp.n_logit_bias) memcpy(bias, sp.logit_bias, sp.n_logit_bias * sizeof(*bias));
        for (int i = 0; i < p->n_eos_ids; i++)
            bias[sp.n_logit_bias + (size_t)i] = (ts_logit_bias){(int32_t)p->eos_ids[i], -INFINITY};
        sp.logit_bias = bias;
        sp.n_logit_bias = n;
    }
    ts_status st = ts_sampler_create(&sp, vocab, out, err);
    free(bias);
    return st;
}

/* One request's generation state between steps; see ts_completion_create in tessera.h. */
struct ts_completion {
    ts_generate_params p;  /* the caller's; its arrays borrowed for the completion's life */
    ts_text_stream text;   /* text.push NULL: ids only */
    ts_detokenizer *detok; /* owned, when the text comes from p.tokenizer */
    ts_stop_matcher stops;
    ts_sampler *sampler;
    int64_t vocab;
    ts_generation g;
    size_t ids_cap, text_cap;
    int32_t *history; /* prompt, then every recorded id: what drafts are looked up in */
    size_t n_history, history_cap;
    int misses;          /* verify steps in a row that accepted nothing */
    size_t quiet_until;  /* no drafts while fewer ids than this were generated */
    bool cancelled, done;
};

/* Passes a piece of detokenized text through the stop matcher to the result and the callback. */
static ts_status emit(ts_completion *c, int32_t id, const char *piece, size_t len, ts_error *err)
{
    const char *out = "";
    size_t out_len = 0;
    ts_status st = ts_stop_matcher_push(&c->stops, piece, len, &out, &out_len, err);
    if (!st) st = append_text(&c->g, &c->text_cap, out, out_len, err);
    if (!st && c->p.on_token && !c->p.on_token(c->p.user, id, out, out_len)) c->cancelled = true;
    return st;
}

/* Records a sampled id and decides whether generation ends with it. */
static ts_status step(ts_completion *c, int32_t id, ts_error *err)
{
    ts_generation *g = &c->g;
    if (g->n_ids == c->ids_cap) {
        int32_t *ids = ts_array_grow(g->ids, &c->ids_cap, sizeof(*ids), 64);
        if (!ids) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory for ids");
        g->ids = ids;
    }
    g->ids[g->n_ids++] = id;
    if (c->history && c->n_history == c->history_cap) {
        int32_t *h = ts_array_grow(c->history, &c->history_cap, sizeof(*h), 64);
        if (!h) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory for ids");
        c->history = h;
    }
    if (c->history) c->history[c->n_history++] = id;
    c->done = true;
    if (!c->p.ignore_eos && is_eos(&c->p, id)) {
        /* The EOS text is never shown; the callback still learns the id. */
        if (c->p.on_token) c->p.on_token(c->p.user, id, "", 0);
        g->finish_reason = TS_FINISH_STOP;
        return TS_OK;
    }
    const char *piece = "";
    size_t len = 0;
    ts_status st = c->text.push ? c->text.push(c->text.self, id, &piece, &len, err) : TS_OK;
    if (!st) st = emit(c, id, piece, len, err);
    if (st) return st;
    if (c->stops.stopped || c->cancelled) {
        g->finish_reason = TS_FINISH_STOP;
        return TS_OK;
    }
    g->finish_reason = TS_FINISH_LENGTH;
    c->done = (int64_t)g->n_ids >= c->p.max_tokens;
    return TS_OK;
}

void ts_completion_destroy(ts_completion *c)
{
    if (!c) return;
    ts_sampler_destroy(c->sampler);
    ts_stop_matcher_fini(&c->stops);
    ts_detokenizer_destroy(c->detok);
    ts_generation_free(&c->g);
    free(c->history);
    free(c);
}

ts_status ts_completion_create_stream(int64_t vocab, const int32_t *prompt, size_t n, const ts_generate_params *p,
                                      const ts_text_stream *text, ts_completion **out, ts_error *err)
{
    *out = NULL;
    ts_status st = check_params(vocab, n, p, text, err);
    if (st) return st;
    ts_completion *c = calloc(1, sizeof(*c));
    if (!c) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
    c->p = *p;
    c->vocab = vocab;
    if (text) c->text = *text;
    st = ts_stop_matcher_init(&c->stops, p->stop, p->n_stop, err);
    if (!st) st = make_sampler(vocab, p, &c->sampler, err);
    if (!st) st = ts_sampler_set_prompt(c->sampler, prompt, n, err);
    if (!st) st = append_text(&c->g, &c->text_cap, "", 0, err);
    if (!st && p->draft_tokens) {
        if (p->draft_tokens < 0 || p->draft_tokens > TS_MAX_DRAFT ||
            p->draft_min_ngram < 0 || p->draft_min_ngram > TS_DRAFT_MAX_NGRAM)
            st = ts_error_set(err, TS_ERR_RANGE,
                              "generate: draft_tokens %d (0..%d), draft_min_ngram %d (0..%d)",
                              p->draft_tokens, TS_MAX_DRAFT, p->draft_min_ngram, TS_DRAFT_MAX_NGRAM);
        size_t before = p->draft_context ? p->n_draft_context : 0;
        c->history_cap = before + n + 64;
        if (!st && !(c->history = malloc(sizeof(*c->history) * c->history_cap)))
            st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
        if (!st && before) memcpy(c->history, p->draft_context, sizeof(*prompt) * before);
        if (!st) memcpy(c->history + before, prompt, sizeof(*prompt) * n), c->n_history = before + n;
    }
    c->g.prompt_tokens = n;
    if (st) {
        ts_completion_destroy(c);
        return st;
    }
    *out = c;
    return TS_OK;
}

static ts_status detok_push(void *self, int32_t id, const char **piece, size_t *len, ts_error *err)
{
    return ts_detokenizer_push(self, id, piece, len, err);
}

static ts_status detok_finish(void *self, const char **piece, size_t *len, ts_error *err)
{
    return ts_detokenizer_finish(self, piece, len, err);
}

ts_status ts_completion_create(int64_t vocab, const int32_t *prompt, size_t n, const ts_generate_params *params,
                               ts_completion **out, ts_error *err)
{
    if (!params->tokenizer) return ts_completion_create_stream(vocab, prompt, n, params, NULL, out, err);
    *out = NULL;
    ts_detokenizer *detok;
    ts_status st = ts_detokenizer_create(params->tokenizer, params->skip_special_tokens, &detok, err);
    if (st) return st;
    ts_text_stream stream = {detok, detok_push, detok_finish};
    st = ts_completion_create_stream(vocab, prompt, n, params, &stream, out, err);
    if (st) {
        ts_detokenizer_destroy(detok);
        return st;
    }
    (*out)->detok = detok;
    return TS_OK;
}

ts_status ts_completion_next(ts_completion *c, float *logits, int32_t *id, bool *done, ts_error *err)
{
    if (c->done) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "generate: the completion has already finished");
    ts_status st = ts_sampler_sample(c->sampler, logits, id, err);
    if (!st) st = ts_sampler_accept(c->sampler, *id, err);
    if (!st) st = step(c, *id, err);
    if (st) c->done = true;
    *done = c->done;
    return st;
}

int ts_completion_draft(const ts_completion *c, int k, int32_t *out)
{
    /* The last drafted token is worth drafting only if max_tokens leaves room for it and the
     * token sampled after it. */
    int64_t left = c->p.max_tokens - (int64_t)c->g.n_ids - 1;
    if (k > c->p.draft_tokens) k = c->p.draft_tokens;
    if (left < k) k = (int)(left > 0 ? left : 0);
    if (c->done || k <= 0 || !c->history || c->g.n_ids < c->quiet_until) return 0;
    int min_n = c->p.draft_min_ngram ? c->p.draft_min_ngram : TS_DRAFT_MIN_NGRAM;
    return ts_ngram_draft(c->history, c->n_history, min_n, TS_DRAFT_MAX_NGRAM, k, out);
}

/* ts_completion_next with the sample drawn against a drafted token (ts_sampler_sample_draft):
 * *accepted tells whether *id is the draft, accepted. */
static ts_status next_draft(ts_completion *c, float *logits, int32_t draft, int32_t *id,
                            bool *accepted, bool *done, ts_error *err)
{
    if (c->done) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "generate: the completion has already finished");
    ts_status st = ts_sampler_sample_draft(c->sampler, logits, draft, id, accepted, err);
    if (!st) st = ts_sampler_accept(c->sampler, *id, err);
    if (!st) st = step(c, *id, err);
    if (st) c->done = true;
    *done = c->done;
    return st;
}

ts_status ts_completion_verify(ts_completion *c, float *rows, const int32_t *draft, int n,
                               void (*on_row)(void *user, const float *logits), void *user,
                               int *accepted, int32_t *next, bool *done, ts_error *err)
{
    *accepted = 0;
    /* Row i holds the logits after pending and draft[0..i): it is checked against draft[i]; row
     * n, reached only when every draft was accepted, is sampled plainly. */
    for (int i = 0;; i++) {
        float *row = rows + (size_t)i * (size_t)c->vocab;
        if (on_row) on_row(user, row);
        bool ok = false;
        ts_status st = i < n ? next_draft(c, row, draft[i], next, &ok, done, err)
                             : ts_completion_next(c, row, next, done, err);
        if (st) return st;
        *accepted += ok;
        if (!ok || *done) break;
    }
    /* Where drafts keep failing (free text seldom repeats) each verify step costs more than the
     * decode it replaces: after two misses in a row, drafting pauses for 4, 8, … 32 tokens.
     * Decided from past tokens only, so the output and its distribution are as before. */
    c->misses = *accepted ? 0 : c->misses + 1;
    if (c->misses >= 2) {
        int shift = c->misses - 2 < 3 ? c->misses - 2 : 3;
        c->quiet_until = c->g.n_ids + ((size_t)4 << shift);
    }
    return TS_OK;
}

/* End of generation: whatever the detokenizer and the matcher still hold is released (a stop
 * string may still complete in the detokenizer's tail; held-back text that never became a stop
 * string is real text after all), then the final callback gets it in one piece. */
ts_status ts_completion_finish(ts_completion *c, ts_generation *out, ts_error *err)
{
    ts_generation *g = &c->g;
    size_t before = g->text_len;
    if (c->text.push && !c->stops.stopped) {
        const char *piece = "";
        size_t len = 0;
        ts_status st = c->text.finish(c->text.self, &piece, &len, err);
        if (!st) st = ts_stop_matcher_push(&c->stops, piece, len, &piece, &len, err);
        if (!st) st = append_text(g, &c->text_cap, piece, len, err);
        if (st) return st;
        if (c->stops.stopped) g->finish_reason = TS_FINISH_STOP;
        ts_stop_matcher_finish(&c->stops, &piece, &len);
        st = append_text(g, &c->text_cap, piece, len, err);
        if (st) return st;
    }
    if (c->p.on_token) c->p.on_token(c->p.user, -1, g->text + before, g->text_len - before);
    *out = *g;
    memset(g, 0, sizeof(*g));
    c->ids_cap = c->text_cap = 0;
    c->done = true;
    return TS_OK;
}

/* The loop over a backend. `stream` true: the text comes from `text` (NULL: ids only); false:
 * from p->tokenizer. */
static ts_status generate(const ts_step_backend *b, const int32_t *prompt, size_t n, const ts_generate_params *p,
                          bool stream, const ts_text_stream *text, ts_generation *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    ts_completion *c = NULL;
    float *logits = NULL;
    ts_status st = stream ? ts_completion_create_stream(b->vocab, prompt, n, p, text, &c, err)
                          : ts_completion_create(b->vocab, prompt, n, p, &c, err);
    if (!st) {
        logits = malloc(sizeof(float) * (size_t)b->vocab);
        if (!logits) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory for logits");
    }
    /* Speculative decoding where the backend can verify and roll back; k its most drafts. */
    int k = b->verify && p->draft_tokens > 0 ? p->draft_tokens : 0;
    if (k > b->max_draft) k = (int)(b->max_draft > 0 ? b->max_draft : 0);
    float *rows = NULL;
    if (!st && k && !(rows = malloc(sizeof(float) * (size_t)(k + 1) * (size_t)b->vocab)))
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory for logits");
    ts_verifier v = {b->self, b->vocab, b->verify, b->rollback};
    size_t steps = 0, drafted = 0, accepted = 0, forwards = 0;
    double t0 = now_ms();
    if (!st) st = b->prefill(b->self, prompt, n, logits, err);
    double t1 = now_ms();
    bool done = false;
    int32_t id = -1;
    if (!st) st = ts_completion_next(c, logits, &id, &done, err);
    while (!st && !done && !b->full(b->self)) {
        forwards++;
        ts_spec_step sp = {0};
        int64_t room = k ? b->draft_room(b->self) : 0;
        if (room > 0)
            st = ts_speculate(&v, c, id, room < k ? (int)room : k, rows, &sp, err);
        if (!st && sp.ran) {
            steps++, drafted += (size_t)sp.drafted, accepted += (size_t)sp.accepted;
            id = sp.next, done = sp.done;
            continue;
        }
        if (!st) st = b->decode(b->self, id, logits, err);
        if (!st) st = ts_completion_next(c, logits, &id, &done, err);
    }
    if (!st) st = ts_completion_finish(c, out, err);
    if (!st) {
        out->draft_tokens = k;
        out->verify_steps = steps, out->drafted = drafted, out->accepted = accepted;
        out->forwards = forwards;
    }
    free(rows);
    free(logits);
    ts_completion_destroy(c);
    if (st) {
        ts_generation_free(out);
        ts_error_prefix(err, "generate: "); /* err may be NULL: keep st, not its answer */
        return st;
    }
    out->prompt_ms = t1 - t0;
    out->generation_ms = now_ms() - t1;
    return TS_OK;
}

/* ------------------------------------------------------------------ the engine's backend */

typedef struct {
    ts_model *model;
    ts_sequence *seq;
    const ts_pixel_values *images; /* the prompt's images, or NULL */
    int n_images;
    const ts_encoded_media *media; /* the prompt's encoded audio, or NULL */
} model_step;

static ts_status model_prefill(void *self, const int32_t *prompt, size_t n, float *logits, ts_error *err)
{
    model_step *m = self;
    if (m->media) return ts_model_prefill_media(m->model, m->seq, prompt, n, m->images, m->n_images, m->media, logits, err);
    if (m->images) return ts_model_prefill_images(m->model, m->seq, prompt, n, m->images, m->n_images, logits, err);
    return ts_model_prefill(m->model, m->seq, prompt, n, logits, err);
}

static ts_status model_decode(void *self, int32_t id, float *logits, ts_error *err)
{
    model_step *m = self;
    return ts_model_decode(m->model, &m->seq, &id, 1, logits, err);
}

static bool model_full(void *self)
{
    model_step *m = self;
    return ts_sequence_length(m->seq) >= ts_sequence_capacity(m->seq);
}

static ts_status model_verify(void *self, const int32_t *tokens, int n, float *rows, ts_error *err)
{
    model_step *m = self;
    int64_t rows_n = n;
    return ts_model_verify(m->model, &m->seq, 1, tokens, &rows_n, rows, err);
}

static ts_status model_rollback(void *self, int drop, ts_error *err)
{
    model_step *m = self;
    return ts_sequence_truncate(m->seq, ts_sequence_length(m->seq) - drop, err);
}

static int64_t model_draft_room(void *self)
{
    model_step *m = self;
    /* The pending token takes one row; the drafts the rest, within the capacity and the rings. */
    int64_t room = ts_sequence_capacity(m->seq) - ts_sequence_length(m->seq) - 1;
    int64_t ring = ts_sequence_draft_room(m->seq);
    return room < ring ? room : ring;
}

/* The engine's backend over one model and sequence. */
static ts_step_backend model_backend(model_step *m)
{
    return (ts_step_backend){m,           ts_model_vocab_size(m->model), model_prefill,
                             model_decode, model_full,                   model_verify,
                             model_rollback, model_draft_room,           ts_sequence_draft_room(m->seq)};
}

ts_status ts_generate_stream(ts_model *model, ts_sequence *seq, const int32_t *prompt, size_t n,
                             const ts_generate_params *p, const ts_text_stream *text,
                             ts_generation *out, ts_error *err)
{
    model_step m = {model, seq, NULL, 0, NULL};
    ts_step_backend b = model_backend(&m);
    return generate(&b, prompt, n, p, true, text, out, err);
}

ts_status ts_generate_backend(const ts_step_backend *backend, const int32_t *prompt, size_t n,
                              const ts_generate_params *params, ts_generation *out, ts_error *err)
{
    return generate(backend, prompt, n, params, false, NULL, out, err);
}

ts_status ts_generate_images(ts_model *model, ts_sequence *seq, const int32_t *prompt, size_t n, const ts_pixel_values *images,
                             int n_images, const ts_generate_params *params, ts_generation *out, ts_error *err)
{
    /* The family's adapter for images (Phi-4-multimodal: vision) before the first row. */
    ts_status st = ts_sequence_set_modalities(seq, n_images > 0 ? TS_MODALITY_IMAGE : 0, err);
    if (st != TS_OK) return st;
    model_step m = {model, seq, images, n_images, NULL};
    ts_step_backend b = model_backend(&m);
    return ts_generate_backend(&b, prompt, n, params, out, err);
}

ts_status ts_generate(ts_model *model, ts_sequence *seq, const int32_t *prompt, size_t n,
                      const ts_generate_params *params, ts_generation *out, ts_error *err)
{
    model_step m = {model, seq, NULL, 0, NULL};
    ts_step_backend b = model_backend(&m);
    return ts_generate_backend(&b, prompt, n, params, out, err);
}

ts_status ts_generate_audio(ts_model *model, ts_sequence *seq, const int32_t *prompt, size_t n,
                            const ts_encoded_media *audio, const ts_generate_params *params,
                            ts_generation *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    /* The family's adapter for the prompt's inputs (Phi-4-multimodal: speech for audio, vision
     * with image rows beside it) before the first row; the sequence drops it on reset. */
    ts_status st = ts_sequence_set_modalities(
        seq, TS_MODALITY_AUDIO | (audio && audio->n_rows > 0 ? TS_MODALITY_IMAGE : 0u), err);
    if (st != TS_OK) return st;
    model_step m = {model, seq, NULL, 0, audio};
    ts_step_backend b = model_backend(&m);
    return ts_generate_backend(&b, prompt, n, params, out, err);
}
