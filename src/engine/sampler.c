/* sampler.c — logits → token: penalties, logit bias, temperature, top-k / top-p / min-p, draw.
 *
 * The order of operations and each one's semantics are documented at ts_sampling_params in
 * tessera.h. The sampler owns everything it touches: a copy of the logit bias, an xoshiro256**
 * state seeded through splitmix64 (no global RNG, so two samplers with the same seed draw the
 * same tokens), the per-id history for the penalties, and a candidate buffer of vocab_size
 * entries. A step costs O(vocab): top-k and top-p are quickselects (top-p on probability
 * mass), nothing sorts the vocabulary, and each survivor's exp is computed once.
 */
#include "engine/sampler.h"
#include "base/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct candidate {
    float logit;
    int32_t id;
    float weight; /* expf(logit − max logit): the unnormalized probability */
} candidate;

struct ts_sampler {
    ts_sampling_params params; /* logit_bias points at `bias` below */
    ts_logit_bias *bias;
    int64_t vocab;
    uint64_t rng[4];
    uint32_t *generated;  /* [vocab] times each id was generated */
    uint8_t *in_prompt;   /* [vocab] */
    int32_t *seen;        /* distinct ids with generated > 0 or in_prompt, so penalties and
                             resets cost O(history), not O(vocab) */
    size_t n_seen;
    candidate *cands;     /* [vocab] scratch */
};

/* ------------------------------------------------------------------ PRNG */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t next_u64(uint64_t s[4])
{
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform in [0, 1) with 53 random bits. */
static double next_unit(uint64_t s[4]) { return (double)(next_u64(s) >> 11) * 0x1.0p-53; }

/* ------------------------------------------------------------------ lifetime and history */

void ts_sampling_params_default(ts_sampling_params *p)
{
    memset(p, 0, sizeof(*p));
    p->top_p = 1.0f;
    p->repetition_penalty = 1.0f;
}

static ts_status check_params(const ts_sampling_params *p, int64_t vocab, ts_error *err)
{
    if (vocab < 1 || vocab > INT32_MAX)
        return ts_error_set(err, TS_ERR_RANGE, "sampler: vocabulary size %lld outside 1..%d",
                            (long long)vocab, INT32_MAX);
    if (!(p->temperature >= 0) || isinf(p->temperature))
        return ts_error_set(err, TS_ERR_RANGE, "sampler: temperature %g must be finite and ≥ 0",
                            p->temperature);
    if (p->top_k < 0)
        return ts_error_set(err, TS_ERR_RANGE, "sampler: top_k %d must be ≥ 0 (0 = off)", p->top_k);
    if (!(p->top_p > 0 && p->top_p <= 1))
        return ts_error_set(err, TS_ERR_RANGE, "sampler: top_p %g outside (0, 1]", p->top_p);
    if (!(p->min_p >= 0 && p->min_p <= 1))
        return ts_error_set(err, TS_ERR_RANGE, "sampler: min_p %g outside [0, 1]", p->min_p);
    if (!(p->repetition_penalty > 0) || isinf(p->repetition_penalty))
        return ts_error_set(err, TS_ERR_RANGE, "sampler: repetition_penalty %g must be finite and > 0",
                            p->repetition_penalty);
    if (!isfinite(p->presence_penalty) || !isfinite(p->frequency_penalty))
        return ts_error_set(err, TS_ERR_RANGE, "sampler: presence/frequency penalties must be finite");
    if (p->n_logit_bias && !p->logit_bias)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "sampler: %zu logit biases but no array",
                            p->n_logit_bias);
    for (size_t i = 0; i < p->n_logit_bias; i++) {
        const ts_logit_bias *b = &p->logit_bias[i];
        if (b->id < 0 || b->id >= vocab)
            return ts_error_set(err, TS_ERR_RANGE, "sampler: logit_bias[%zu] id %d outside 0..%lld", i,
                                b->id, (long long)vocab - 1);
        /* +inf would make the softmax NaN; -inf is the documented way to ban a token. */
        if (isnan(b->bias) || b->bias == INFINITY)
            return ts_error_set(err, TS_ERR_RANGE, "sampler: logit_bias[%zu] for id %d is %g", i,
                                b->id, b->bias);
    }
    return TS_OK;
}

ts_status ts_sampler_create(const ts_sampling_params *params, int64_t vocab, ts_sampler **out,
                            ts_error *err)
{
    *out = NULL;
    ts_status st = check_params(params, vocab, err);
    if (st) return st;
    ts_sampler *s = calloc(1, sizeof(*s));
    if (!s) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "sampler: out of memory");
    s->params = *params;
    s->vocab = vocab;
    s->generated = calloc((size_t)vocab, sizeof(*s->generated));
    s->in_prompt = calloc((size_t)vocab, sizeof(*s->in_prompt));
    s->seen = malloc((size_t)vocab * sizeof(*s->seen));
    s->cands = malloc((size_t)vocab * sizeof(*s->cands));
    if (params->n_logit_bias) {
        s->bias = malloc(params->n_logit_bias * sizeof(*s->bias));
        if (s->bias) memcpy(s->bias, params->logit_bias, params->n_logit_bias * sizeof(*s->bias));
    }
    s->params.logit_bias = s->bias;
    if (!s->generated || !s->in_prompt || !s->seen || !s->cands || (params->n_logit_bias && !s->bias)) {
        ts_sampler_destroy(s);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "sampler: out of memory for %lld ids",
                            (long long)vocab);
    }
    uint64_t x = params->seed;
    for (int i = 0; i < 4; i++) s->rng[i] = splitmix64(&x);
    *out = s;
    return TS_OK;
}

void ts_sampler_destroy(ts_sampler *s)
{
    if (!s) return;
    free(s->generated);
    free(s->in_prompt);
    free(s->seen);
    free(s->cands);
    free(s->bias);
    free(s);
}

static ts_status check_id(const ts_sampler *s, int32_t id, ts_error *err)
{
    if (id < 0 || id >= s->vocab)
        return ts_error_set(err, TS_ERR_RANGE, "sampler: token %d outside the vocabulary (0..%lld)",
                            id, (long long)s->vocab - 1);
    return TS_OK;
}

static void note_seen(ts_sampler *s, int32_t id)
{
    if (!s->generated[id] && !s->in_prompt[id]) s->seen[s->n_seen++] = id;
}

ts_status ts_sampler_set_prompt(ts_sampler *s, const int32_t *prompt, size_t n, ts_error *err)
{
    for (size_t i = 0; i < s->n_seen; i++) s->generated[s->seen[i]] = 0, s->in_prompt[s->seen[i]] = 0;
    s->n_seen = 0;
    for (size_t i = 0; i < n; i++) {
        ts_status st = check_id(s, prompt[i], err);
        if (st) {
            ts_error_prefix(err, "prompt[%zu]: ", i);
            return st;
        }
        note_seen(s, prompt[i]);
        s->in_prompt[prompt[i]] = 1;
    }
    return TS_OK;
}

ts_status ts_sampler_accept(ts_sampler *s, int32_t id, ts_error *err)
{
    ts_status st = check_id(s, id, err);
    if (st) return st;
    note_seen(s, id);
    if (s->generated[id] < UINT32_MAX) s->generated[id]++;
    return TS_OK;
}

/* ------------------------------------------------------------------ steps */

static void apply_penalties(const ts_sampler *s, float *logits)
{
    const ts_sampling_params *p = &s->params;
    bool repetition = p->repetition_penalty != 1.0f;
    bool additive = p->presence_penalty != 0.0f || p->frequency_penalty != 0.0f;
    if (!repetition && !additive) return;
    for (size_t i = 0; i < s->n_seen; i++) {
        int32_t id = s->seen[i];
        float l = logits[id];
        if (repetition) l = l > 0 ? l / p->repetition_penalty : l * p->repetition_penalty;
        uint32_t count = s->generated[id];
        if (count) l -= p->frequency_penalty * (float)count + p->presence_penalty;
        logits[id] = l;
    }
}

/* Strict order: higher logit first, then lower id, so every selection is deterministic. */
static bool before(const candidate *a, const candidate *b)
{
    return a->logit > b->logit || (a->logit == b->logit && a->id < b->id);
}

static int compare_candidates(const void *a, const void *b)
{
    return before(a, b) ? -1 : before(b, a) ? 1 : 0;
}

static void swap(candidate *a, candidate *b)
{
    candidate t = *a;
    *a = *b;
    *b = t;
}

/* Moves the median of c[lo], c[mid], c[hi] (in `before` order) to c[hi] as the pivot. */
static void pivot_to_end(candidate *c, size_t lo, size_t hi)
{
    size_t mid = lo + (hi - lo) / 2;
    if (before(&c[mid], &c[lo])) swap(&c[mid], &c[lo]);
    if (before(&c[hi], &c[lo])) swap(&c[hi], &c[lo]);
    if (before(&c[mid], &c[hi])) swap(&c[mid], &c[hi]);
}

/* Lomuto partition of c[lo..hi] around c[hi]: returns the pivot's final index; what precedes
 * it comes first. Sound because `before` is a strict total order (ids are distinct). */
static size_t partition(candidate *c, size_t lo, size_t hi)
{
    pivot_to_end(c, lo, hi);
    size_t store = lo;
    for (size_t i = lo; i < hi; i++)
        if (before(&c[i], &c[hi])) swap(&c[i], &c[store++]);
    swap(&c[store], &c[hi]);
    return store;
}

/* Rearranges c[0..n) so that c[0..k) are the k first in `before` order (unsorted), 0 < k < n.
 * Quickselect, expected O(n); logits from a model are not adversarial. */
static void select_first(candidate *c, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t store = partition(c, lo, hi);
        if (store == k - 1) return;
        if (k - 1 < store) hi = store - 1;
        else lo = store + 1;
    }
}

/* HF's TopPLogitsWarper keeps a token while the probability of the tokens ranked before it is
 * < top_p. That set is found by a quickselect on mass, expected O(n) and with no sort: each
 * partition tells whether the pivot's rank is inside the nucleus. Returns its size r, with
 * c[0..r) the nucleus (unsorted). Invariant: c[0..lo) are in it and hold `mass_before`; the
 * token at rank hi (if any) is not. */
static size_t nucleus(candidate *c, size_t n, double total, float top_p)
{
    double target = (double)top_p * total, mass_before = 0;
    size_t lo = 0, hi = n;
    while (hi - lo > 16) {
        size_t store = partition(c, lo, hi - 1);
        double m = 0;
        for (size_t i = lo; i < store; i++) m += c[i].weight;
        if (mass_before + m >= target) {
            hi = store;
        } else {
            mass_before += m + c[store].weight;
            lo = store + 1;
        }
    }
    qsort(c + lo, hi - lo, sizeof(*c), compare_candidates);
    for (size_t i = lo; i < hi; i++) {
        if (mass_before >= target) return i;
        mass_before += c[i].weight;
    }
    return hi;
}

/* Steps 4–7 on the finite logits; returns the survivors in s->cands, with their weights. */
static ts_status filter(ts_sampler *s, float *logits, size_t *n_out, ts_error *err)
{
    const ts_sampling_params *p = &s->params;
    size_t n = 0;
    float max = -INFINITY;
    for (int64_t i = 0; i < s->vocab; i++) {
        if (logits[i] == -INFINITY) continue;
        logits[i] /= p->temperature; /* divide, not multiply by 1/T: HF's rounding */
        max = fmaxf(max, logits[i]);
        s->cands[n++] = (candidate){logits[i], (int32_t)i, 0.0f};
    }
    if (n == 0)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "sampler: every token is excluded (all logits -inf)");
    size_t kept = n;
    if (p->top_k > 0 && (size_t)p->top_k < kept) {
        select_first(s->cands, kept, (size_t)p->top_k);
        kept = (size_t)p->top_k;
    }
    /* The top token survives top-k, so `max` is still the survivors' maximum. */
    double total = 0;
    for (size_t i = 0; i < kept; i++) {
        s->cands[i].weight = expf(s->cands[i].logit - max);
        total += s->cands[i].weight;
    }
    if (p->top_p < 1.0f) kept = nucleus(s->cands, kept, total, p->top_p);
    if (p->min_p > 0.0f) {
        /* weight = p / p_max, however top-k and top-p renormalized. */
        size_t out = 0;
        for (size_t i = 0; i < kept; i++)
            if (s->cands[i].weight >= p->min_p) s->cands[out++] = s->cands[i];
        kept = out;
    }
    if (kept < n) {
        for (int64_t i = 0; i < s->vocab; i++) logits[i] = -INFINITY;
        for (size_t i = 0; i < kept; i++) logits[s->cands[i].id] = s->cands[i].logit;
    }
    *n_out = kept;
    return TS_OK;
}

static void apply_bias(const ts_sampler *s, float *logits)
{
    for (size_t i = 0; i < s->params.n_logit_bias; i++) logits[s->bias[i].id] += s->bias[i].bias;
}

ts_status ts_sampler_apply(ts_sampler *s, float *logits, ts_error *err)
{
    apply_penalties(s, logits);
    apply_bias(s, logits);
    if (s->params.temperature == 0) return TS_OK;
    size_t n;
    return filter(s, logits, &n, err);
}

static ts_status argmax(const ts_sampler *s, const float *logits, int32_t *id, ts_error *err)
{
    int64_t best = -1;
    float best_logit = -INFINITY;
    for (int64_t i = 0; i < s->vocab; i++)
        if (logits[i] > best_logit) best_logit = logits[i], best = i; /* strict: ties keep the lowest id */
    if (best < 0)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "sampler: no token to choose (every logit is -inf or NaN)");
    *id = (int32_t)best;
    return TS_OK;
}

ts_status ts_sampler_sample(ts_sampler *s, float *logits, int32_t *id, ts_error *err)
{
    apply_penalties(s, logits);
    apply_bias(s, logits);
    if (s->params.temperature == 0) return argmax(s, logits, id, err);
    size_t n;
    ts_status st = filter(s, logits, &n, err);
    if (st) return st;
    const candidate *c = s->cands;
    double total = 0;
    for (size_t i = 0; i < n; i++) total += c[i].weight;
    double target = next_unit(s->rng) * total, mass = 0;
    for (size_t i = 0; i < n; i++) {
        mass += c[i].weight;
        if (target < mass) {
            *id = c[i].id;
            return TS_OK;
        }
    }
    /* Rounding can leave target a hair above the summed mass. */
    *id = c[n - 1].id;
    return TS_OK;
}

ts_status ts_sampler_sample_draft(ts_sampler *s, float *logits, int32_t draft, int32_t *id,
                                 bool *accepted, ts_error *err)
{
    ts_status st = check_id(s, draft, err);
    if (st) return st;
    *accepted = false;
    apply_penalties(s, logits);
    apply_bias(s, logits);
    if (s->params.temperature == 0) {
        st = argmax(s, logits, id, err);
        *accepted = st == TS_OK && *id == draft;
        return st;
    }
    size_t n;
    st = filter(s, logits, &n, err);
    if (st) return st;
    /* The draft is a point mass q(draft) = 1: accept with min(1, p/q) = p(draft); on rejection
     * the residual max(0, p − q) normalized is p without the draft, renormalized. */
    const candidate *c = s->cands;
    double total = 0, p_draft = 0;
    for (size_t i = 0; i < n; i++) {
        total += c[i].weight;
        if (c[i].id == draft) p_draft = c[i].weight;
    }
    double rest = total - p_draft;
    if (next_unit(s->rng) * total < p_draft || !(rest > 0)) {
        /* rest 0: the draft is the only survivor, so p(draft) = 1 (u · total < total always). */
        *id = draft;
        *accepted = p_draft > 0;
        if (*accepted) return TS_OK;
    }
    double target = next_unit(s->rng) * rest, mass = 0;
    int32_t last = -1;
    for (size_t i = 0; i < n; i++) {
        if (c[i].id == draft) continue;
        last = c[i].id;
        mass += c[i].weight;
        if (target < mass) {
            *id = c[i].id;
            return TS_OK;
        }
    }
    *id = last; /* rounding, as in ts_sampler_sample */
    return TS_OK;
}

ts_status ts_logprobs(const float *logits, int64_t vocab, int32_t id, int k, float *chosen, ts_token_logprob *top, ts_error *err)
{
    if (vocab < 1 || id < 0 || id >= vocab) return ts_error_set(err, TS_ERR_RANGE, "logprobs: id %d outside 0..%lld", id, (long long)vocab - 1);
    if (k < 0 || k > 20) return ts_error_set(err, TS_ERR_RANGE, "logprobs: %d top entries (0..20 allowed)", k);
    if (k > vocab) k = (int)vocab;
    float max = -INFINITY;
    for (int64_t i = 0; i < vocab; i++)
        if (logits[i] > max) max = logits[i];
    if (!isfinite(max)) return ts_error_set(err, TS_ERR_RANGE, "logprobs: no finite logit");
    double sum = 0;
    for (int64_t i = 0; i < vocab; i++) sum += exp((double)logits[i] - max);
    double lse = max + log(sum);
    *chosen = (float)(logits[id] - lse);
    /* The k best by insertion: k is small, and most logits fail the first comparison. */
    int have = 0;
    for (int64_t i = 0; i < vocab && k > 0; i++) {
        float v = logits[i];
        if (have == k && !(v > top[k - 1].logprob)) continue;
        int at = have < k ? have++ : k - 1;
        while (at > 0 && v > top[at - 1].logprob) {
            top[at] = top[at - 1];
            at--;
        }
        top[at] = (ts_token_logprob){(int32_t)i, v};
    }
    for (int i = 0; i < have; i++) top[i].logprob = (float)(top[i].logprob - lse);
    return TS_OK;
}
