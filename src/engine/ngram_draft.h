/* ngram_draft.h — draft tokens for speculative decoding by n-gram lookup ("prompt lookup").
 *
 * No second model: the tokens that followed the latest earlier occurrence of the history's
 * suffix are the guess. Longest suffix first (max_n down to min_n), so a long match, which
 * predicts better, wins over a short one; among occurrences of one suffix the most recent
 * wins (what the text is doing now, e.g. the span of the prompt being quoted). Pure function of
 * its inputs: nothing is kept between calls, nothing allocated. Costs O(n · max_n) per call.
 */
#ifndef TS_ENGINE_NGRAM_DRAFT_H
#define TS_ENGINE_NGRAM_DRAFT_H

#include <stddef.h>
#include <stdint.h>

/* The suffix lengths the library uses unless told otherwise. */
#define TS_DRAFT_MIN_NGRAM 2
#define TS_DRAFT_MAX_NGRAM 4

/* Writes up to k tokens of history[0..n) into out[k]: for m = max_n … min_n, the m-token
 * suffix is searched backwards in history[0..n−1) (an occurrence ending before the suffix's
 * own end); the first one found with any continuation gives out = the tokens after it (at most
 * k, stopping at the history's end). Returns the count written: 0 when nothing matches, k ≤ 0,
 * or 1 ≤ min_n ≤ max_n does not hold. */
int ts_ngram_draft(const int32_t *history, size_t n, int min_n, int max_n, int k, int32_t *out);

#endif
