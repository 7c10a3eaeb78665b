/* scheduler.c — the slots and the loop that runs the model: continuous batching.
 *
 * A slot:  free --take a ready job--> prefill --last chunk, first token--> decode
 *               <--finish, cancel or error: release everything, reset the sequence--
 *
 * One iteration: take ready jobs into free slots; drop cancelled jobs; build one batch and run it
 * as ONE forward step (ts_model_step: every matmul over all its rows at once):
 *   1. every decoding slot's next token (decode never waits behind prompts);
 *   2. prompt chunks of the prefilling slots, visited round robin from the slot after the one
 *      that led the previous batch's prompts: each gets at most --prefill-chunk rows and no more
 *      than what --batch-tokens has left after the rows before it. The first slot visited always
 *      gets its chunk (so prompts advance however many slots decode: the batch may exceed the
 *      budget by that one chunk); a slot whose next chunk does not fit waits for a later
 *      iteration, where the rotation puts it first within as many iterations as slots prefill.
 *      An image block is never cut (where a family's image tokens see each other:
 *      ts_mm_inputs_chunk), so an image chunk may be longer than --prefill-chunk; it then waits
 *      to lead a batch.
 * Fairness and time to first token: a prompt of P rows needs ceil(P / chunk) of its turns, and
 * with p slots prefilling it leads a batch at least every p iterations; when the budget covers
 * every prefilling slot's chunk (the default 512 rows = two 256-row chunks, or many short
 * prompts), all of them advance every iteration, so short prompts finish while a long one is
 * still being read. Each sequence's logits are bit for bit those of its own step alone, so
 * batching changes no token.
 *
 * Each slot keeps its own sequence (KV cache, rope delta), sampler and detokenizer (its
 * ts_completion); nothing of a job survives its slot's release, so the next job starts from an
 * empty sequence.
 *
 * The model runs behind a small backend: the engine's sequences (one ts_model_step over the
 * batch) or a bundle bucket's slots, which keep their compiled entries' shapes: each prompt
 * prefilled whole (prefill.main / prefill_embeddings.main, chunk = capacity), then decode.main
 * over every decoding slot, in the same iteration.
 *
 * Speculative decoding (engine backend): while at most SPEC_MAX_DECODING slots decode, their
 * decode rows leave the batch and one verify step (spec_decode_step) runs each one's pending
 * token plus its drafted tokens; the batch then holds only prompt chunks.
 *
 * The prefix cache (engine backend) hooks in at two points: when a slot starts a job, the cached
 * rows of its prompt's prefix are copied into the slot's sequence and its prefill starts after
 * them (srv_prefix_begin); when it finishes, its prompt's full blocks are stored
 * (srv_prefix_store). See server/prefix.h. The cache's exactness rule assumes each prompt is
 * prefilled in the chunks chunk_rows gives for --prefill-chunk, whatever else shares the step,
 * so the budget never shortens a chunk: it only defers it.
 */
#include "server/prefix.h"
#include "server/server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { SLOT_FREE = 0, SLOT_PREFILL, SLOT_DECODE } slot_state;

/* One slot's rows in a batch: its decode token (n = 1, token) or prompt rows at … at + n − 1 of
 * its job. */
typedef struct batch_entry {
    int slot;
    bool decode;
    int32_t token;
    const srv_job *job;
    size_t at, n;
} batch_entry;

/* The model side of the slots. step runs a batch and writes logits[e][vocab] for every entry
 * (a prompt chunk's last row). It returns TS_OK when every entry ran; otherwise errs[e] holds
 * the error of each entry that failed (status TS_OK for those that ran: they have their logits). */
typedef struct backend {
    ts_status (*step)(struct backend *b, const batch_entry *entries, int n, float *logits, ts_error *errs);
    /* Speculative decoding (NULL: none): appends n_rows[i] tokens to every active slot (tokens
     * packed in slot order) and writes every row's logits, packed likewise; truncate rolls a
     * slot back; draft_room: drafted tokens a slot can take now (capacity, rings). */
    ts_status (*verify)(struct backend *b, const int32_t *tokens, const int64_t *n_rows, const bool *active, float *rows,
                        ts_error *err);
    ts_status (*truncate)(struct backend *b, int slot, int64_t length, ts_error *err);
    int64_t (*draft_room)(const struct backend *b, int slot);
    void (*reset)(struct backend *b, int slot);
    int64_t (*length)(const struct backend *b, int slot);
    int64_t capacity;
    size_t chunk;  /* prompt rows per slot and step at most */
    size_t budget; /* rows per step (see the top of this file) */
    bool whole_prompts;     /* bundle: a prompt is prefilled in one call */
    float *slot_logits;     /* bundle: decode.main's [slots][vocab] */
    srv_server *s;
    ts_sequence **seqs;     /* engine: one per slot */
    ts_bundle_slots *slots; /* bundle */
    int64_t draft_width;    /* bundle: decode_k.main's K rows per slot (0: none) */
    int32_t *k_tokens;      /* bundle verify: [slots][K] */
    float *k_rows;          /* bundle verify: [slots][K][vocab] */
} backend;

typedef struct slot {
    slot_state state;
    srv_job *job;
    ts_completion *completion;
    ts_generate_params params;
    size_t prefilled;
    int32_t next_id;
    srv_server *server;
    const float *raw_logits; /* the scheduler's copy of this step's logits, for logprobs */
    ts_prefix_keys *prefix;  /* the prompt's block keys, while the job runs (NULL: no cache) */
    bool speculate;          /* drafts verified in the decode step (server and request allow it) */
} slot;

typedef struct scheduler {
    srv_server *s;
    backend be;
    slot *slots;
    int n_slots, next_prefill;
    float *logits;  /* [slots][vocab]: one row per batch entry */
    float *scratch; /* one row: the raw logits, kept for logprobs */
    ts_error errs[SRV_MAX_SLOTS]; /* one per batch entry */
    float *rows;                  /* speculative steps: [SPEC_MAX_DECODING][1 + draft_tokens][vocab] */
    ts_prefix_cache *prefix;      /* NULL: off (a bundle, a ring cache, or --prefix-cache-mb 0) */
} scheduler;

static bool on_token(void *user, int32_t id, const char *text, size_t len)
{
    slot *sl = user;
    srv_job *job = sl->job;
    double now = srv_now();
    if (id >= 0) {
        if (job->t_first == 0) {
            job->t_first = now;
            srv_metrics_ttft(sl->server->metrics, now - job->t_submit);
        } else {
            srv_metrics_inter_token(sl->server->metrics, now - job->t_last);
        }
        job->t_last = now;
    }
    srv_event ev = {.id = id, .text = (char *)text, .len = len};
    /* The raw logits of this step were kept before sampling changed them (see sample()). */
    if (id >= 0 && job->req.logprobs &&
        ts_logprobs(sl->raw_logits, sl->server->vocab, id, job->req.top_logprobs, &ev.logprob, ev.top, NULL) == TS_OK)
        ev.has_logprob = true, ev.n_top = job->req.top_logprobs;
    if (!srv_job_push_event(job, &ev)) srv_job_fail(job, 500, "", "out of memory for the response");
    return true;
}

static int busy_slots(const scheduler *sc)
{
    int busy = 0;
    for (int i = 0; i < sc->n_slots; i++) busy += sc->slots[i].state != SLOT_FREE;
    return busy;
}

static void release(scheduler *sc, slot *sl)
{
    ts_completion_destroy(sl->completion);
    ts_prefix_keys_free(sl->prefix);
    sl->prefix = NULL;
    sc->be.reset(&sc->be, (int)(sl - sc->slots));
    srv_job_drop_inputs(sl->job);
    srv_job_release(sl->job);
    sl->completion = NULL, sl->job = NULL, sl->state = SLOT_FREE, sl->prefilled = 0;
    srv_metrics_set_slots(sc->s->metrics, busy_slots(sc), sc->n_slots);
}

static void fail_slot(scheduler *sc, slot *sl, int status, const ts_error *e)
{
    srv_job_fail(sl->job, status, "", "%s", e->message);
    release(sc, sl);
}

static void finish(scheduler *sc, slot *sl)
{
    ts_generation g;
    ts_error e = {0};
    if (ts_completion_finish(sl->completion, &g, &e) != TS_OK) {
        fail_slot(sc, sl, 500, &e);
        return;
    }
    srv_prefix_store(sc->s, sc->prefix, sl->prefix, sc->be.seqs ? sc->be.seqs[sl - sc->slots] : NULL);
    srv_job_finish(sl->job, g.finish_reason, sl->job->n_ids, g.n_ids);
    srv_metrics_tokens(sc->s->metrics, (int64_t)sl->job->n_ids, (int64_t)g.n_ids);
    ts_generation_free(&g);
    release(sc, sl);
}

/* Samples the slot's next token from `logits`; finishes the slot when generation ends. */
static void sample(scheduler *sc, slot *sl, float *logits)
{
    srv_job *job = sl->job;
    if (job->req.logprobs) memcpy(sc->scratch, logits, sizeof(float) * (size_t)sc->s->vocab);
    sl->raw_logits = sc->scratch;
    int32_t id;
    bool done;
    ts_error e = {0};
    if (ts_completion_next(sl->completion, logits, &id, &done, &e) != TS_OK) {
        fail_slot(sc, sl, 500, &e);
        return;
    }
    if (done || sc->be.length(&sc->be, (int)(sl - sc->slots)) >= sc->be.capacity) {
        finish(sc, sl);
        return;
    }
    sl->next_id = id;
    sl->state = SLOT_DECODE;
}

static void start(scheduler *sc, slot *sl, srv_job *job)
{
    srv_server *s = sc->s;
    sl->job = job;
    sl->state = SLOT_PREFILL;
    sl->prefilled = 0;
    sl->server = s;
    const srv_request *r = &job->req;
    sl->params = (ts_generate_params){.sampling = r->sampling,
                                      .max_tokens = job->max_tokens,
                                      .eos_ids = job->eos_ids,
                                      .n_eos_ids = job->n_eos_ids,
                                      .ignore_eos = r->ignore_eos,
                                      .stop = (const char *const *)r->stop,
                                      .n_stop = r->n_stop,
                                      .tokenizer = s->tok,
                                      .skip_special_tokens = true,
                                      .on_token = on_token,
                                      .user = sl};
    sl->speculate = sc->be.verify && s->opt.draft_tokens > 0 && !r->no_draft;
    sl->params.draft_tokens = sl->speculate ? s->opt.draft_tokens : 0;
    srv_job_set_running(job);
    srv_metrics_set_slots(s->metrics, busy_slots(sc), sc->n_slots);
    ts_error e = {0};
    if (ts_completion_create(s->vocab, job->ids, job->n_ids, &sl->params, &sl->completion, &e) != TS_OK) {
        fail_slot(sc, sl, 400, &e);
        return;
    }
    /* The sequence (reset when its last job left) takes the adapter of this prompt's inputs
     * (Phi-4-multimodal: speech for audio, vision for images with or without audio, none for
     * text) before any row, restored ones too: the prefix cache keys its rows by adapter. */
    unsigned modalities = (r->n_audio ? TS_MODALITY_AUDIO : 0u) | (r->n_images ? TS_MODALITY_IMAGE : 0u);
    if (sc->be.seqs && ts_sequence_set_modalities(sc->be.seqs[sl - sc->slots], modalities, &e) != TS_OK) {
        fail_slot(sc, sl, 500, &e);
        return;
    }
    /* Audio rows have no content key (every clip's tokens are the same id): never cached. */
    if (sc->prefix && !r->n_audio)
        sl->prefilled = srv_prefix_begin(s, sc->prefix, job, sc->be.seqs[sl - sc->slots], sc->be.chunk, &sl->prefix);
}

/* The rows of a slot's next prompt chunk: at most `max`, never cutting an image block (then
 * possibly more than max: a block is never split). */
static size_t chunk_rows(const slot *sl, size_t max)
{
    const srv_job *job = sl->job;
    size_t at = sl->prefilled, n = job->n_ids - at;
    if (job->mm.embeddings) return ts_mm_inputs_chunk(&job->mm, at, max);
    return n < max ? n : max;
}

/* A decoding slot's row for the batch. */
static void add_decode(scheduler *sc, slot *sl, batch_entry *e)
{
    *e = (batch_entry){.slot = (int)(sl - sc->slots), .decode = true, .token = sl->next_id, .job = sl->job, .n = 1};
}

/* The batch of one iteration (see the top of this file); returns its entries. */
static int build_batch(scheduler *sc, batch_entry *batch, bool with_decode)
{
    int n = 0;
    size_t rows = 0;
    for (int i = 0; i < sc->n_slots; i++)
        if (with_decode && sc->slots[i].state == SLOT_DECODE) add_decode(sc, &sc->slots[i], &batch[n++]), rows++;
    bool led = false;
    int first = sc->next_prefill;
    for (int k = 0; k < sc->n_slots; k++) {
        slot *sl = &sc->slots[(first + k) % sc->n_slots];
        if (sl->state != SLOT_PREFILL) continue;
        size_t left = rows < sc->be.budget ? sc->be.budget - rows : 0;
        size_t take = chunk_rows(sl, sc->be.chunk);
        if (!take || (led && take > left)) continue;
        if (sc->be.whole_prompts && take != sl->job->n_ids - sl->prefilled) continue;
        if (!led) sc->next_prefill = (int)(sl - sc->slots + 1) % sc->n_slots;
        led = true;
        batch[n++] = (batch_entry){.slot = (int)(sl - sc->slots), .job = sl->job, .at = sl->prefilled, .n = take};
        rows += take;
    }
    return n;
}

/* One forward step over the batch, then each slot's share of its logits: a decode token is
 * sampled, a prompt chunk advances the prompt (its last chunk samples the first token). */
static void run_batch(scheduler *sc, const batch_entry *batch, int n)
{
    if (!n) return;
    int64_t rows = 0, prefills = 0;
    for (int i = 0; i < n; i++) {
        rows += (int64_t)batch[i].n, prefills += !batch[i].decode;
        sc->errs[i] = (ts_error){0};
    }
    sc->be.step(&sc->be, batch, n, sc->logits, sc->errs);
    srv_metrics_step(sc->s->metrics, rows, (int)prefills, (int)(n - prefills));
    for (int i = 0; i < n; i++) {
        slot *sl = &sc->slots[batch[i].slot];
        float *logits = sc->logits + (size_t)i * (size_t)sc->s->vocab;
        if (sc->errs[i].status != TS_OK) {
            fail_slot(sc, sl, 500, &sc->errs[i]);
            continue;
        }
        if (batch[i].decode) {
            sample(sc, sl, logits);
            continue;
        }
        sl->prefilled += batch[i].n;
        if (sl->prefilled == sl->job->n_ids) {
            srv_job_drop_inputs(sl->job);
            sample(sc, sl, logits);
        }
    }
}

/* ------------------------------------------------------------------ speculative decoding
 *
 * While at most SPEC_MAX_DECODING slots decode, the decode step becomes a verify step: every
 * speculating slot drafts (ts_completion_draft), one ts_model_verify runs each decoding slot's
 * pending token plus its drafts (a slot without drafts: its one row, as a plain decode), each
 * speculating slot accepts what its rows confirm (ts_completion_verify) and is rolled back to
 * that. With more slots decoding the batch already uses each pass over the weights, and the
 * plain batched step runs. */
#define SPEC_MAX_DECODING 2

typedef struct {
    scheduler *sc;
    slot *sl;
} spec_row_user;

/* Each verified row's raw logits, kept for the token's logprobs as sample() keeps them. */
static void spec_keep_row(void *user, const float *logits)
{
    spec_row_user *u = user;
    if (u->sl->job->req.logprobs) memcpy(u->sc->scratch, logits, sizeof(float) * (size_t)u->sc->s->vocab);
    u->sl->raw_logits = u->sc->scratch;
}

/* A speculating slot's rows: accept, roll back, finish or go on with the next pending token. */
static void spec_accept(scheduler *sc, slot *sl, float *rows, const int32_t *draft, int n_draft)
{
    int i = (int)(sl - sc->slots);
    int64_t before = sc->be.length(&sc->be, i) - 1 - n_draft;
    spec_row_user u = {sc, sl};
    int accepted = 0;
    int32_t next = -1;
    bool done = false;
    ts_error e = {0};
    ts_status st = ts_completion_verify(sl->completion, rows, draft, n_draft, spec_keep_row, &u, &accepted, &next, &done, &e);
    if (!st) st = sc->be.truncate(&sc->be, i, before + 1 + accepted, &e);
    if (!st) srv_metrics_speculative(sc->s->metrics, n_draft, accepted);
    if (st) {
        fail_slot(sc, sl, 500, &e);
        return;
    }
    if (done || sc->be.length(&sc->be, i) >= sc->be.capacity) {
        finish(sc, sl);
        return;
    }
    sl->next_id = next;
}

/* The decode step with drafts; false (nothing run) when no slot drafted. */
static bool spec_decode_step(scheduler *sc)
{
    if (!sc->be.verify || !sc->rows) return false;
    int decoding = 0;
    for (int i = 0; i < sc->n_slots; i++) decoding += sc->slots[i].state == SLOT_DECODE;
    if (decoding == 0 || decoding > SPEC_MAX_DECODING) return false;
    int32_t tokens[SPEC_MAX_DECODING * (1 + TS_MAX_DRAFT)];
    int64_t n_rows[SRV_MAX_SLOTS] = {0};
    bool active[SRV_MAX_SLOTS] = {false}, drafted = false;
    int at = 0;
    for (int i = 0; i < sc->n_slots; i++) {
        slot *sl = &sc->slots[i];
        if (sl->state != SLOT_DECODE) continue;
        active[i] = true;
        tokens[at] = sl->next_id;
        int64_t room = sl->speculate ? sc->be.draft_room(&sc->be, i) : 0;
        int k = room < sc->s->opt.draft_tokens ? (int)room : sc->s->opt.draft_tokens;
        int n = k > 0 ? ts_completion_draft(sl->completion, k, tokens + at + 1) : 0;
        n_rows[i] = 1 + n;
        at += 1 + n;
        drafted |= n > 0;
    }
    if (!drafted) return false;
    ts_error e = {0};
    if (sc->be.verify(&sc->be, tokens, n_rows, active, sc->rows, &e) != TS_OK) {
        for (int i = 0; i < sc->n_slots; i++)
            if (active[i]) fail_slot(sc, &sc->slots[i], 500, &e);
        return true;
    }
    size_t vocab = (size_t)sc->s->vocab;
    float *row = sc->rows;
    at = 0;
    for (int i = 0; i < sc->n_slots; i++) {
        if (!active[i]) continue;
        slot *sl = &sc->slots[i];
        if (n_rows[i] == 1) sample(sc, sl, row);
        else spec_accept(sc, sl, row, tokens + at + 1, (int)n_rows[i] - 1);
        row += (size_t)n_rows[i] * vocab;
        at += (int)n_rows[i];
    }
    return true;
}

/* ------------------------------------------------------------------ backends */

/* The batch as one ts_model_step: a decode entry's token; a prompt chunk's tokens, or (image
 * requests) its rows of embeddings with their positions and its image tokens' side inputs,
 * positions relative to the chunk (ts_mm_inputs_slice). Should the step fail, each entry runs
 * alone (the same logits, bit for bit), so only the entries at fault fail. */
static ts_status engine_step(backend *b, const batch_entry *entries, int n, float *logits, ts_error *errs)
{
    ts_step_rows rows[SRV_MAX_SLOTS];
    ts_mm_inputs chunks[SRV_MAX_SLOTS] = {{0}};
    ts_side_inputs sides[SRV_MAX_SLOTS];
    int32_t tokens[SRV_MAX_SLOTS];
    int at[SRV_MAX_SLOTS], k = 0;
    for (int i = 0; i < n; i++) {
        const batch_entry *e = &entries[i];
        const srv_job *job = e->job;
        ts_step_rows *r = &rows[k];
        *r = (ts_step_rows){.seq = b->seqs[e->slot], .n = e->n};
        if (e->decode) tokens[i] = e->token, r->tokens = &tokens[i];
        else if (!job->mm.embeddings) r->tokens = job->ids + e->at;
        else if (ts_mm_inputs_slice(&job->mm, e->at, e->n, &chunks[i], &errs[i]) != TS_OK) continue;
        else {
            sides[i] = ts_mm_inputs_side(&chunks[i]);
            r->embeddings = chunks[i].embeddings, r->positions = chunks[i].positions;
            r->rope_delta = chunks[i].rope_delta, r->side = &sides[i];
        }
        at[k++] = i;
    }
    size_t vocab = (size_t)b->s->vocab;
    ts_error err = {0};
    if (k && ts_model_step(b->s->model, rows, k, logits, &err) != TS_OK) {
        if (k == 1) errs[at[0]] = err;
        for (int j = 0; k > 1 && j < k; j++)
            ts_model_step(b->s->model, &rows[j], 1, logits + (size_t)j * vocab, &errs[at[j]]);
    }
    /* Rows come back packed in entry order; spread them to their entries (backwards: in place). */
    for (int j = k - 1; j >= 0; j--)
        if (at[j] != j) memcpy(logits + (size_t)at[j] * vocab, logits + (size_t)j * vocab, sizeof(float) * vocab);
    ts_status st = TS_OK;
    for (int i = 0; i < n; i++) {
        ts_mm_inputs_free(&chunks[i]);
        if (errs[i].status != TS_OK) st = errs[i].status;
    }
    return st;
}

static void engine_reset(backend *b, int slot) { ts_sequence_reset(b->seqs[slot]); }
static int64_t engine_length(const backend *b, int slot) { return ts_sequence_length(b->seqs[slot]); }

static ts_status engine_verify(backend *b, const int32_t *tokens, const int64_t *n_rows, const bool *active, float *rows,
                               ts_error *err)
{
    ts_sequence *seqs[SRV_MAX_SLOTS];
    int64_t rows_of[SRV_MAX_SLOTS];
    int n = 0;
    for (int i = 0; i < b->s->opt.slots; i++)
        if (active[i]) seqs[n] = b->seqs[i], rows_of[n++] = n_rows[i];
    return ts_model_verify(b->s->model, seqs, n, tokens, rows_of, rows, err);
}

static ts_status engine_truncate(backend *b, int slot, int64_t length, ts_error *err)
{
    return ts_sequence_truncate(b->seqs[slot], length, err);
}

static int64_t engine_draft_room(const backend *b, int slot)
{
    const ts_sequence *seq = b->seqs[slot];
    int64_t room = b->capacity - ts_sequence_length(seq) - 1, ring = ts_sequence_draft_room(seq);
    return room < ring ? room : ring;
}

/* The bundle's compiled entries: each prompt whole (chunk = prefill capacity ≥ every admitted
 * prompt, and whole_prompts keeps the batch from cutting one), then decode.main over the
 * decoding slots. */
static ts_status bundle_step(backend *b, const batch_entry *entries, int n, float *logits, ts_error *errs)
{
    size_t vocab = (size_t)b->s->vocab;
    int32_t tokens[SRV_MAX_SLOTS] = {0};
    bool active[SRV_MAX_SLOTS] = {false}, any = false;
    ts_status st = TS_OK;
    for (int i = 0; i < n; i++) {
        const batch_entry *e = &entries[i];
        const srv_job *job = e->job;
        float *out = logits + (size_t)i * vocab;
        if (e->decode) {
            tokens[e->slot] = e->token, active[e->slot] = any = true;
            continue;
        }
        ts_status s = TS_OK;
        if (!job->mm.embeddings) {
            s = ts_bundle_slots_prefill(b->slots, e->slot, job->ids, e->n, out, &errs[i]);
        } else {
            /* The side inputs (DeepStack rows) are the whole prompt's image rows, padded by the
             * slots to the bucket's Nv_max. */
            ts_side_inputs side = ts_mm_inputs_side(&job->mm);
            s = ts_bundle_slots_prefill_embeddings(b->slots, e->slot, job->mm.embeddings, e->n, job->mm.hidden,
                                                   job->mm.positions, job->mm.rope_delta, &side, out, &errs[i]);
        }
        if (s != TS_OK) st = s;
    }
    ts_error err = {0};
    if (any && ts_bundle_slots_decode(b->slots, tokens, active, b->slot_logits, &err) != TS_OK) {
        for (int i = 0; i < n; i++)
            if (entries[i].decode) errs[i] = err;
        return err.status;
    }
    for (int i = 0; any && i < n; i++)
        if (entries[i].decode)
            memcpy(logits + (size_t)i * vocab, b->slot_logits + (size_t)entries[i].slot * vocab, sizeof(float) * vocab);
    return st;
}

/* Speculative decoding through decode_k.main: the packed rows laid out [slots][K] and back. A
 * slot with one row and no room for K (near its capacity, drafting nothing) decodes through
 * decode.main first, in its own call. */
static ts_status bundle_verify(backend *b, const int32_t *tokens, const int64_t *n_rows, const bool *active, float *rows,
                               ts_error *err)
{
    int n[SRV_MAX_SLOTS] = {0}, slots = b->s->opt.slots;
    bool edge[SRV_MAX_SLOTS] = {false}, any_edge = false, any_k = false;
    int32_t one[SRV_MAX_SLOTS] = {0};
    int64_t k = b->draft_width;
    size_t vocab = (size_t)b->s->vocab;
    for (int i = 0, at = 0; i < slots; i++) {
        if (!active[i]) continue;
        if (n_rows[i] == 1 && ts_bundle_slots_length(b->slots, i) + k > b->capacity) edge[i] = any_edge = true, one[i] = tokens[at];
        else n[i] = (int)n_rows[i], any_k = true, memcpy(b->k_tokens + i * k, tokens + at, sizeof(int32_t) * (size_t)n[i]);
        at += (int)n_rows[i];
    }
    ts_status st = TS_OK;
    if (any_edge) { /* decode.main's rows [slots][vocab], moved to their [slots][K] places (backwards: in place) */
        st = ts_bundle_slots_decode(b->slots, one, edge, b->k_rows, err);
        for (int i = slots - 1; st == TS_OK && i > 0; i--)
            if (edge[i]) memmove(b->k_rows + (size_t)(i * k) * vocab, b->k_rows + (size_t)i * vocab, sizeof(float) * vocab);
    }
    if (st == TS_OK && any_k) st = ts_bundle_slots_verify(b->slots, b->k_tokens, n, b->k_rows, err);
    for (int i = 0; st == TS_OK && i < slots; i++) {
        int rows_i = edge[i] ? 1 : n[i];
        memcpy(rows, b->k_rows + (size_t)(i * k) * vocab, sizeof(float) * (size_t)rows_i * vocab);
        rows += (size_t)rows_i * vocab;
    }
    return st;
}

static ts_status bundle_truncate(backend *b, int slot, int64_t length, ts_error *err)
{
    return ts_bundle_slots_truncate(b->slots, slot, length, err);
}

/* K - 1 drafts while the slot has room for the K rows decode_k.main writes, else none. */
static int64_t bundle_draft_room(const backend *b, int slot)
{
    return ts_bundle_slots_length(b->slots, slot) + b->draft_width <= b->capacity ? b->draft_width - 1 : 0;
}

static void bundle_reset(backend *b, int slot) { ts_bundle_slots_reset(b->slots, slot); }
static int64_t bundle_length(const backend *b, int slot) { return ts_bundle_slots_length(b->slots, slot); }

static bool backend_init(scheduler *sc)
{
    srv_server *s = sc->s;
    backend *b = &sc->be;
    b->s = s, b->capacity = s->capacity;
    if (s->bundle_slots) {
        *b = (backend){.step = bundle_step,
                       .reset = bundle_reset,
                       .length = bundle_length,
                       .capacity = s->capacity,
                       .chunk = (size_t)s->capacity,
                       .budget = (size_t)s->opt.batch_tokens,
                       .whole_prompts = true,
                       .s = s,
                       .slots = s->bundle_slots,
                       .slot_logits = malloc(sizeof(float) * (size_t)s->vocab * (size_t)sc->n_slots)};
        if (s->opt.prefix_cache_bytes)
            fprintf(stderr, "tessera serve: prefix cache off: a bundle's prefill entries take whole prompts\n");
        if (!b->slot_logits) return false;
        /* Speculative decoding where the bundle has decode_k.main (K - 1 drafts a step at most). */
        b->draft_width = ts_bundle_slots_draft_width(s->bundle_slots);
        if (s->opt.draft_tokens > 0 && b->draft_width) {
            b->verify = bundle_verify, b->truncate = bundle_truncate, b->draft_room = bundle_draft_room;
            size_t width = (size_t)b->draft_width;
            sc->rows = malloc(sizeof(float) * (size_t)s->vocab * SPEC_MAX_DECODING * (size_t)(1 + s->opt.draft_tokens));
            b->k_tokens = calloc((size_t)sc->n_slots * width, sizeof(int32_t));
            b->k_rows = malloc(sizeof(float) * (size_t)s->vocab * (size_t)sc->n_slots * width);
            if (!sc->rows || !b->k_tokens || !b->k_rows) return false;
        }
        return true;
    }
    *b = (backend){.step = engine_step,
                   .reset = engine_reset,
                   .length = engine_length,
                   .capacity = s->capacity,
                   .chunk = (size_t)s->opt.prefill_chunk,
                   .budget = (size_t)s->opt.batch_tokens,
                   .s = s};
    if (s->opt.draft_tokens > 0) {
        b->verify = engine_verify, b->truncate = engine_truncate, b->draft_room = engine_draft_room;
        sc->rows = malloc(sizeof(float) * (size_t)s->vocab * SPEC_MAX_DECODING * (size_t)(1 + s->opt.draft_tokens));
        if (!sc->rows) return false;
    }
    if (!(b->seqs = calloc((size_t)sc->n_slots, sizeof(*b->seqs)))) return false;
    for (int i = 0; i < sc->n_slots; i++)
        if (ts_sequence_create_draft(s->model, s->capacity, s->opt.draft_tokens, &b->seqs[i], NULL) != TS_OK) return false;
    sc->prefix = srv_prefix_create(s, b->seqs[0]);
    return true;
}

static void backend_fini(scheduler *sc)
{
    ts_prefix_cache_destroy(sc->prefix);
    for (int i = 0; sc->be.seqs && i < sc->n_slots; i++) ts_sequence_destroy(sc->be.seqs[i]);
    free(sc->be.seqs);
    free(sc->be.slot_logits);
    free(sc->be.k_tokens);
    free(sc->be.k_rows);
}

static bool has_work(const scheduler *sc)
{
    return busy_slots(sc) > 0;
}

void *srv_scheduler_main(void *arg)
{
    srv_server *s = arg;
    scheduler sc = {.s = s, .n_slots = s->opt.slots};
    sc.slots = calloc((size_t)sc.n_slots, sizeof(slot));
    sc.logits = malloc(sizeof(float) * (size_t)s->vocab * (size_t)sc.n_slots);
    sc.scratch = malloc(sizeof(float) * (size_t)s->vocab);
    bool ok = sc.slots && sc.logits && sc.scratch && backend_init(&sc);
    if (!ok) { /* every request then fails rather than waits */
        pthread_mutex_lock(&s->mu);
        s->stopping = true;
        pthread_mutex_unlock(&s->mu);
        fprintf(stderr, "tessera serve: cannot allocate %d slots of %lld tokens\n", sc.n_slots, (long long)s->capacity);
    }
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (!s->stopping && !has_work(&sc) && !s->ready_q.count) pthread_cond_wait(&s->sched_cv, &s->mu);
        if (s->stopping) {
            pthread_mutex_unlock(&s->mu);
            break;
        }
        srv_job *taken[SRV_MAX_SLOTS];
        slot *into[SRV_MAX_SLOTS];
        int n_taken = 0;
        for (int i = 0; i < sc.n_slots && s->ready_q.count; i++)
            if (sc.slots[i].state == SLOT_FREE && !sc.slots[i].job) {
                taken[n_taken] = srv_queue_pop(&s->ready_q);
                into[n_taken++] = &sc.slots[i];
                s->admitted--;
            }
        srv_metrics_set_queue(s->metrics, s->admitted);
        pthread_mutex_unlock(&s->mu);
        for (int i = 0; i < n_taken; i++) {
            start(&sc, into[i], taken[i]);
        }
        for (int i = 0; i < sc.n_slots; i++) {
            slot *sl = &sc.slots[i];
            if (sl->state != SLOT_FREE && atomic_load(&sl->job->cancelled)) {
                srv_job_fail(sl->job, 499, "", "the client closed the connection");
                release(&sc, sl);
            }
        }
        batch_entry batch[SRV_MAX_SLOTS];
        bool verified = spec_decode_step(&sc); /* the decoding slots' rows, when few decode */
        int n = build_batch(&sc, batch, !verified);
        run_batch(&sc, batch, n);
    }
    for (int i = 0; sc.slots && i < sc.n_slots; i++)
        if (sc.slots[i].state != SLOT_FREE) {
            srv_job_fail(sc.slots[i].job, 503, "", "the server is shutting down");
            release(&sc, &sc.slots[i]);
        }
    backend_fini(&sc);
    free(sc.slots), free(sc.logits), free(sc.scratch), free(sc.rows);
    return NULL;
}
