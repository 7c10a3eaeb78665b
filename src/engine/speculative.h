/* speculative.h — one speculative decoding step over a model runner: draft, verify, accept,
 * roll back (the generation loop's; the server runs the same parts across its slots).
 *
 * A step starts where a plain decode would: the completion has just sampled `pending`, which
 * the runner has not seen. It drafts up to k tokens (ts_completion_draft: n-gram lookup in the
 * prompt and output), runs [pending, drafts…] as one multi-row forward that returns every row's
 * logits, lets the completion accept what the rows confirm (ts_completion_verify: greedy, the
 * argmax; sampling, rejection sampling) and rolls the runner back to pending + the accepted
 * drafts. The last token sampled is the next step's pending one. Greedy output is the plain
 * loop's token for token (row i's logits are the ones a decode of the same tokens gives), and
 * sampling keeps its distribution.
 *
 * The runner is the caller's; the step keeps nothing between calls. Errors: the runner's or the
 * completion's; after a failed verify the runner holds whatever it appended (the caller ends
 * the request).
 */
#ifndef TS_ENGINE_SPECULATIVE_H
#define TS_ENGINE_SPECULATIVE_H

#include "tessera.h"

/* The model side of a step. verify appends n tokens and writes their logits rows[n][vocab];
 * rollback forgets the last `drop` tokens it appended. */
typedef struct ts_verifier {
    void *self;
    int64_t vocab;
    ts_status (*verify)(void *self, const int32_t *tokens, int n, float *rows, ts_error *err);
    ts_status (*rollback)(void *self, int drop, ts_error *err);
} ts_verifier;

typedef struct ts_spec_step {
    bool ran;         /* false: nothing drafted, nothing run (decode `pending` plainly) */
    int drafted, accepted;
    int32_t next;     /* the last token sampled: the next step's pending one (when !done) */
    bool done;        /* generation ended with a token of this step */
} ts_spec_step;

/* One step after `pending` with at most k drafts (the caller's limit: what the runner can take
 * and roll back); rows: scratch of (k + 1) × vocab floats. */
ts_status ts_speculate(const ts_verifier *v, ts_completion *c, int32_t pending, int k,
                       float *rows, ts_spec_step *out, ts_error *err);

#endif
