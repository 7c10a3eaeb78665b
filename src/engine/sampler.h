/* sampler.h — the sampler behind ts_generate and ts_completion: one step's logits → one token.
 *
 * Internal: library users sample through ts_generate / ts_completion_next, whose
 * ts_sampling_params (tessera.h) document the order of operations this implements. Kept out of
 * the public header because nothing outside the engine runs its own sampling loop; the unit
 * tests drive it directly to pin each step.
 */
#ifndef TS_ENGINE_SAMPLER_H
#define TS_ENGINE_SAMPLER_H

#include "tessera.h"

/* A sampler: its parameters, its own PRNG state (xoshiro256**, nothing global), the token
 * history the penalties read, and scratch for vocab_size candidates. One sequence at a time.
 * Owned; free with ts_sampler_destroy. Parameters out of range or logit-bias ids outside
 * [0, vocab_size) are TS_ERR_RANGE. */
typedef struct ts_sampler ts_sampler;
ts_status ts_sampler_create(const ts_sampling_params *params, int64_t vocab_size,
                            ts_sampler **out, ts_error *err);
void ts_sampler_destroy(ts_sampler *sampler);
/* Forgets the history and records `prompt` (for repetition_penalty). The PRNG is not reseeded. */
ts_status ts_sampler_set_prompt(ts_sampler *sampler, const int32_t *prompt, size_t n,
                                ts_error *err);
/* Records a generated token (for every penalty). Out-of-vocabulary ids are TS_ERR_RANGE. */
ts_status ts_sampler_accept(ts_sampler *sampler, int32_t id, ts_error *err);
/* Steps 1–7 of ts_sampling_params' order on logits[vocab_size], in place. */
ts_status ts_sampler_apply(ts_sampler *sampler, float *logits, ts_error *err);
/* ts_sampler_apply, then draws a token into *id. Does not record it: call ts_sampler_accept. */
ts_status ts_sampler_sample(ts_sampler *sampler, float *logits, int32_t *id, ts_error *err);

/* Speculative decoding's step against a drafted token (a point-mass draft): ts_sampler_apply,
 * then greedy: *id the argmax, *accepted whether it is the draft; sampling: the draft is accepted
 * (*id = draft) with its probability p(draft) under the filtered distribution, else *id is drawn
 * from that distribution without the draft, renormalized (p(draft) = 0: always that). So *id is
 * distributed as ts_sampler_sample's draw, whatever the draft. Does not record *id. */
ts_status ts_sampler_sample_draft(ts_sampler *sampler, float *logits, int32_t draft, int32_t *id,
                                  bool *accepted, ts_error *err);
#endif
