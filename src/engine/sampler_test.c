/* sampler_test.c — ts_sampler on hand-made logits: greedy and its ties, the temperature → 0
 * limit, top-k / top-p / min-p candidate sets, the exact effect of each penalty and of logit
 * bias, the order of operations, seeding, empirical frequencies of a known distribution, and
 * parameter errors. Every random draw uses a fixed seed, so nothing here can flake. */
#include "engine/sampler.h"
#include "check.h"

#include <math.h>

static ts_sampler *make(const ts_sampling_params *p, int64_t vocab)
{
    ts_sampler *s = NULL;
    ts_error err;
    if (ts_sampler_create(p, vocab, &s, &err) != TS_OK) fprintf(stderr, "create: %s\n", err.message);
    CHECK(s != NULL);
    return s;
}

static int32_t sample_once(ts_sampler *s, const float *logits, int n)
{
    float work[64];
    memcpy(work, logits, sizeof(float) * (size_t)n);
    int32_t id = -1;
    ts_error err;
    /* Checked only on failure: tens of thousands of draws should not each count as a check. */
    ts_status st = ts_sampler_sample(s, work, &id, &err);
    if (st != TS_OK) CHECK_INT_EQ(st, TS_OK);
    return id;
}

/* Which of logits[0..n) survive ts_sampler_apply, as a bit mask. */
static unsigned survivors(const ts_sampling_params *p, const float *logits, int n)
{
    ts_sampler *s = make(p, n);
    float work[32];
    memcpy(work, logits, sizeof(float) * (size_t)n);
    ts_error err;
    CHECK_INT_EQ(ts_sampler_apply(s, work, &err), TS_OK);
    unsigned mask = 0;
    for (int i = 0; i < n; i++)
        if (work[i] != -INFINITY) mask |= 1u << i;
    ts_sampler_destroy(s);
    return mask;
}

static void test_greedy_is_argmax_with_lowest_id_on_ties(void)
{
    ts_sampling_params p;
    ts_sampling_params_default(&p);
    ts_sampler *s = make(&p, 6);
    const float a[6] = {0.5f, 3.0f, -1.0f, 2.9f, 3.0f, 1.0f};
    CHECK_INT_EQ(sample_once(s, a, 6), 1);
    const float b[6] = {-INFINITY, -5.0f, -INFINITY, -5.0f, -7.0f, -INFINITY};
    CHECK_INT_EQ(sample_once(s, b, 6), 1);
    const float c[6] = {0, 0, 0, 0, 0, 0};
    CHECK_INT_EQ(sample_once(s, c, 6), 0);
    /* Greedy ignores the filters: they never remove the argmax anyway. */
    p.top_k = 2, p.top_p = 0.1f, p.min_p = 0.9f;
    ts_sampler_destroy(s);
    s = make(&p, 6);
    CHECK_INT_EQ(sample_once(s, a, 6), 1);
    /* Nothing left to choose is an error, not token 0. */
    const float none[6] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
    float work[6];
    memcpy(work, none, sizeof(work));
    int32_t id;
    ts_error err;
    CHECK_INT_EQ(ts_sampler_sample(s, work, &id, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "no token to choose");
    ts_sampler_destroy(s);
}

static void test_low_temperature_tends_to_greedy(void)
{
    const float logits[5] = {1.0f, 1.3f, 0.2f, 1.29f, -2.0f};
    ts_sampling_params p;
    ts_sampling_params_default(&p);
    p.temperature = 1e-3f, p.seed = 7;
    ts_sampler *s = make(&p, 5);
    int hits = 0;
    for (int i = 0; i < 1000; i++) hits += sample_once(s, logits, 5) == 1;
    /* exp(-0.01 / 1e-3) ≈ 4.5e-5: token 3 has about a 1-in-22000 chance per draw. */
    CHECK(hits >= 999);
    ts_sampler_destroy(s);
    /* At temperature 1 the runner-up does get picked. */
    p.temperature = 1.0f;
    s = make(&p, 5);
    int runner_up = 0;
    for (int i = 0; i < 1000; i++) runner_up += sample_once(s, logits, 5) == 3;
    CHECK(runner_up > 200);
    ts_sampler_destroy(s);
}

static void test_top_k_one_is_greedy(void)
{
    const float logits[8] = {0.1f, 2.0f, 1.9f, -1.0f, 2.0f, 0.0f, 1.99f, 0.5f};
    ts_sampling_params p;
    ts_sampling_params_default(&p);
    p.temperature = 1.5f, p.top_k = 1, p.seed = 3;
    ts_sampler *s = make(&p, 8);
    for (int i = 0; i < 200; i++) CHECK_INT_EQ(sample_once(s, logits, 8), 1);
    ts_sampler_destroy(s);
    CHECK_INT_EQ(survivors(&p, logits, 8), 1u << 1);
    p.top_k = 3; /* 2.0 (id 1), 2.0 (id 4), 1.99 (id 6) */
    CHECK_INT_EQ(survivors(&p, logits, 8), (1u << 1) | (1u << 4) | (1u << 6));
    p.top_k = 8;
    CHECK_INT_EQ(survivors(&p, logits, 8), 0xffu);
    p.top_k = 100;
    CHECK_INT_EQ(survivors(&p, logits, 8), 0xffu);
}

/* Logits whose softmax is exactly proportional to the given probabilities. */
static void from_probs(const double *prob, int n, float *logits)
{
    for (int i = 0; i < n; i++) logits[i] = prob[i] > 0 ? (float)log(prob[i]) : -INFINITY;
}

static void test_top_p_keeps_the_nucleus(void)
{
    /* Sorted: id 2 (0.5), id 0 (0.25), id 4 (0.15), id 1 (0.07), id 3 (0.03). */
    const double prob[5] = {0.25, 0.07, 0.5, 0.03, 0.15};
    float logits[5];
    from_probs(prob, 5, logits);
    ts_sampling_params p;
    ts_sampling_params_default(&p);
    p.temperature = 1.0f;
    p.top_p = 0.4f; /* mass before id 0 is 0.5 ≥ 0.4 */
    CHECK_INT_EQ(survivors(&p, logits, 5), 1u << 2);
    p.top_p = 0.6f;
    CHECK_INT_EQ(survivors(&p, logits, 5), (1u << 2) | (1u << 0));
    p.top_p = 0.8f; /* 0.5 + 0.25 = 0.75 < 0.8: id 4 stays */
    CHECK_INT_EQ(survivors(&p, logits, 5), (1u << 2) | (1u << 0) | (1u << 4));
    p.top_p = 0.95f;
    CHECK_INT_EQ(survivors(&p, logits, 5), 0x17u);
    p.top_p = 1.0f;
    CHECK_INT_EQ(survivors(&p, logits, 5), 0x1fu);
    /* After top-k = 2 the survivors renormalize to 2/3, 1/3: top_p 0.6 keeps only id 2. */
    p.top_k = 2, p.top_p = 0.6f;
    CHECK_INT_EQ(survivors(&p, logits, 5), 1u << 2);
    p.top_p = 0.7f;
    CHECK_INT_EQ(survivors(&p, logits, 5), (1u << 2) | (1u << 0));
    /* Temperature comes first: at T = 0.5 the probabilities square and renormalize, so id 2
     * alone holds 0.73 ≥ 0.7 of the mass (at T = 1 it held 0.5 and id 0 stayed, as above). */
    p.top_k = 0, p.temperature = 0.5f, p.top_p = 0.7f;
    CHECK_INT_EQ(survivors(&p, logits, 5), 1u << 2);
}

static void test_filters_on_a_large_vocabulary(void)
{
    /* 150 000 ids with many equal logits and a flat tail: the nucleus reaches deep, through
     * many partitions; compare with a full ordering (a counting sort) done here. */
    enum { V = 150000 };
    float *logits = malloc(sizeof(float) * V), *work = malloc(sizeof(float) * V);
    uint64_t x = 12345;
    for (int i = 0; i < V; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        logits[i] = (float)((x >> 40) % 1000) / 250.0f; /* 0 … 4, many ties */
    }
    double max = 4, total = 0;
    for (int i = 0; i < V; i++) total += exp(logits[i] - max);
    ts_sampling_params p;
    ts_sampling_params_default(&p);
    p.temperature = 1.0f, p.top_p = 0.9f;
    ts_sampler *s = make(&p, V);
    memcpy(work, logits, sizeof(float) * V);
    ts_error err;
    CHECK_INT_EQ(ts_sampler_apply(s, work, &err), TS_OK);
    /* Expected: sort by (logit desc, id asc) and keep while the mass before is < 0.9. */
    int32_t *order = malloc(sizeof(int32_t) * V);
    int counts[1000] = {0};
    for (int i = 0; i < V; i++) counts[(int)lroundf(logits[i] * 250.0f)]++;
    int start[1001];
    start[1000] = 0;
    for (int b = 999; b >= 0; b--) start[b] = start[b + 1] + counts[b];
    for (int b = 0; b < 1000; b++) start[b] -= counts[b];
    int fill[1000];
    for (int b = 0; b < 1000; b++) fill[b] = start[b];
    for (int i = 0; i < V; i++) {
        int b = (int)lroundf(logits[i] * 250.0f);
        order[fill[b]++] = i;
    }
    double mass = 0;
    int kept = 0, mismatches = 0;
    for (int r = 0; r < V; r++) {
        int id = order[r];
        bool keep = mass < 0.9;
        if (keep) kept++;
        if (keep != (work[id] != -INFINITY)) mismatches++;
        mass += exp(logits[id] - max) / total;
    }
    CHECK(kept > 10000);
    CHECK_INT_EQ(mismatches, 0);

    /* top-k 1000 keeps exactly the first 1000 of that order (ties at the cut: lowest ids). */
    ts_sampler_destroy(s);
    p.top_p = 1.0f, p.top_k = 1000;
    s = make(&p, V);
    memcpy(work, logits, sizeof(float) * V);
    CHECK_INT_EQ(ts_sampler_apply(s, work, &err), TS_OK);
    mismatches = 0;
    for (int r = 0; r < V; r++)
        if ((r < 1000) != (work[order[r]] != -INFINITY)) mismatches++;
    CHECK_INT_EQ(mismatches, 0);
    free(order);
    ts_sampler_destroy(s);
    free(logits);
    free(work);
}

static void test_min_p_is_relative_to_the_top(void)
{
    const double prob[6] = {0.30, 0.05, 0.40, 0.12, 0.11, 0.02};
    float logits[6];
    from_probs(prob, 6, logits);
    ts_sampling_params p;
    ts_sampling_params_default(&p);
    p.temperature = 1.0f;
    p.min_p = 0.25f; /* threshold 0.1: ids 0, 2, 3, 4 */
    CHECK_INT_EQ(survivors(&p, logits, 6), 0x1du);
    p.min_p = 0.5f; /* threshold 0.2 */
    CHECK_INT_EQ(survivors(&p, logits, 6), 0x05u);
    p.min_p = 1.0f;
    CHECK_INT_EQ(survivors(&p, logits, 6), 0x04u);
    p.min_p = 0.0f;
    CHECK_INT_EQ(survivors(&p, logits, 6), 0x3fu);
}

static void test_penalties_change_the_expected_logits(void)
{
    ts_sampling_params p;
    ts_sampling_params_default(&p);
    p.repetition_penalty = 2.0f;
    ts_sampler *s = make(&p, 6);
    ts_error err;
    const int32_t prompt[3] = {0, 1, 0};
    CHECK_INT_EQ(ts_sampler_set_prompt(s, prompt, 3, &err), TS_OK);
    CHECK_INT_EQ(ts_sampler_accept(s, 4, &err), TS_OK);
    float l[6] = {3.0f, -1.5f, 2.0f, -4.0f, 0.0f, 1.0f};
    CHECK_INT_EQ(ts_sampler_apply(s, l, &err), TS_OK); /* greedy: no temperature, no filters */
    CHECK(l[0] == 1.5f && l[1] == -3.0f && l[2] == 2.0f && l[3] == -4.0f && l[4] == 0.0f && l[5] == 1.0f);
    ts_sampler_destroy(s);

    /* Presence and frequency count generated tokens only: the prompt's id 0 is untouched. */
    ts_sampling_params_default(&p);
    p.presence_penalty = 0.5f, p.frequency_penalty = 0.25f;
    s = make(&p, 6);
    CHECK_INT_EQ(ts_sampler_set_prompt(s, prompt, 3, &err), TS_OK);
    const int32_t gen[4] = {2, 2, 2, 5};
    for (int i = 0; i < 4; i++) CHECK_INT_EQ(ts_sampler_accept(s, gen[i], &err), TS_OK);
    float m[6] = {3.0f, -1.5f, 2.0f, -4.0f, 0.0f, 1.0f};
    CHECK_INT_EQ(ts_sampler_apply(s, m, &err), TS_OK);
    CHECK(m[0] == 3.0f && m[1] == -1.5f && m[3] == -4.0f && m[4] == 0.0f);
    CHECK(m[2] == 2.0f - 0.75f - 0.5f);
    CHECK(m[5] == 1.0f - 0.25f - 0.5f);
    ts_sampler_destroy(s);

    /* All three together: repetition first, then the additive ones (vLLM's order). */
    p.repetition_penalty = 2.0f;
    s = make(&p, 6);
    CHECK_INT_EQ(ts_sampler_set_prompt(s, prompt, 3, &err), TS_OK);
    for (int i = 0; i < 4; i++) CHECK_INT_EQ(ts_sampler_accept(s, gen[i], &err), TS_OK);
    float q[6] = {3.0f, -1.5f, 2.0f, -4.0f, 0.0f, 1.0f};
    CHECK_INT_EQ(ts_sampler_apply(s, q, &err), TS_OK);
    CHECK(q[0] == 1.5f && q[1] == -3.0f);
    CHECK(q[2] == 1.0f - 0.75f - 0.5f);
    CHECK(q[5] == 0.5f - 0.25f - 0.5f);
    /* set_prompt forgets the generated history. */
    CHECK_INT_EQ(ts_sampler_set_prompt(s, NULL, 0, &err), TS_OK);
    float r[6] = {3.0f, -1.5f, 2.0f, -4.0f, 0.0f, 1.0f};
    CHECK_INT_EQ(ts_sampler_apply(s, r, &err), TS_OK);
    CHECK(r[0] == 3.0f && r[1] == -1.5f && r[2] == 2.0f && r[5] == 1.0f);
    CHECK_INT_EQ(ts_sampler_accept(s, 6, &err), TS_ERR_RANGE);
    ts_sampler_destroy(s);
}

static void test_logit_bias_and_order(void)
{
    const ts_logit_bias bias[3] = {{1, 5.0f}, {0, -INFINITY}, {3, -1.0f}};
    ts_sampling_params p;
    ts_sampling_params_default(&p);
    p.logit_bias = bias, p.n_logit_bias = 3;
    ts_sampler *s = make(&p, 4);
    float l[4] = {10.0f, -2.0f, 1.0f, 0.5f};
    ts_error err;
    CHECK_INT_EQ(ts_sampler_apply(s, l, &err), TS_OK);
    CHECK(l[0] == -INFINITY && l[1] == 3.0f && l[2] == 1.0f && l[3] == -0.5f);
    const float l2[4] = {10.0f, -2.0f, 1.0f, 0.5f};
    CHECK_INT_EQ(sample_once(s, l2, 4), 1);
    ts_sampler_destroy(s);

    /* Bias comes after the repetition penalty, temperature after both:
     * id 1: (-2 · 2) + 5 = 1, / 0.5 = 2; id 2: 1 / 0.5 = 2. */
    p.repetition_penalty = 2.0f, p.temperature = 0.5f;
    s = make(&p, 4);
    const int32_t prompt[1] = {1};
    CHECK_INT_EQ(ts_sampler_set_prompt(s, prompt, 1, &err), TS_OK);
    float m[4] = {10.0f, -2.0f, 1.0f, 0.5f};
    CHECK_INT_EQ(ts_sampler_apply(s, m, &err), TS_OK);
    CHECK(m[0] == -INFINITY && m[1] == 2.0f && m[2] == 2.0f && m[3] == -1.0f);
    ts_sampler_destroy(s);

    /* The sampler copied the bias: the caller's array can go away. */
    ts_logit_bias temp[1] = {{2, 100.0f}};
    ts_sampling_params_default(&p);
    p.logit_bias = temp, p.n_logit_bias = 1;
    s = make(&p, 4);
    temp[0].id = 3;
    const float l3[4] = {1, 2, 0, 0};
    CHECK_INT_EQ(sample_once(s, l3, 4), 2);
    ts_sampler_destroy(s);
}

static void draw_sequence(uint64_t seed, int32_t *out, int n)
{
    const float logits[8] = {0.1f, 0.3f, 0.2f, 0.0f, 0.25f, 0.15f, 0.05f, 0.3f};
    ts_sampling_params p;
    ts_sampling_params_default(&p);
    p.temperature = 1.0f, p.seed = seed;
    ts_sampler *s = make(&p, 8);
    for (int i = 0; i < n; i++) out[i] = sample_once(s, logits, 8);
    ts_sampler_destroy(s);
}

static void test_seeds(void)
{
    int32_t a[64], b[64], c[64];
    draw_sequence(42, a, 64);
    draw_sequence(42, b, 64);
    draw_sequence(43, c, 64);
    CHECK(memcmp(a, b, sizeof(a)) == 0);
    CHECK(memcmp(a, c, sizeof(a)) != 0);
    int distinct = 0;
    for (int v = 0; v < 8; v++)
        for (int i = 0; i < 64; i++)
            if (a[i] == v) {
                distinct++;
                break;
            }
    CHECK(distinct >= 6);
}

static void test_empirical_frequencies(void)
{
    const double prob[4] = {0.1, 0.2, 0.3, 0.4};
    float logits[4];
    from_probs(prob, 4, logits);
    enum { DRAWS = 20000 };
    ts_sampling_params p;
    ts_sampling_params_default(&p);
    p.temperature = 1.0f, p.seed = 2024;
    ts_sampler *s = make(&p, 4);
    int counts[4] = {0};
    for (int i = 0; i < DRAWS; i++) counts[sample_once(s, logits, 4)]++;
    /* Standard deviation of a frequency here is at most sqrt(0.24 / 20000) ≈ 0.0035. */
    for (int i = 0; i < 4; i++) {
        double f = (double)counts[i] / DRAWS;
        if (fabs(f - prob[i]) >= 0.012) fprintf(stderr, "  id %d: %.4f, expected %.1f\n", i, f, prob[i]);
        CHECK(fabs(f - prob[i]) < 0.012);
    }
    ts_sampler_destroy(s);

    /* With top-k 2 the draws renormalize over {3, 4}: 3/7 and 4/7. */
    p.top_k = 2;
    s = make(&p, 4);
    memset(counts, 0, sizeof(counts));
    for (int i = 0; i < DRAWS; i++) counts[sample_once(s, logits, 4)]++;
    CHECK(counts[0] == 0 && counts[1] == 0);
    CHECK(fabs((double)counts[2] / DRAWS - 3.0 / 7) < 0.012);
    ts_sampler_destroy(s);
}

static void test_parameter_errors(void)
{
    ts_sampling_params p;
    ts_sampler *s = NULL;
    ts_error err;
    ts_sampling_params_default(&p);
    p.temperature = -1;
    CHECK_INT_EQ(ts_sampler_create(&p, 10, &s, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "temperature -1");
    ts_sampling_params_default(&p);
    p.top_p = 0;
    CHECK_INT_EQ(ts_sampler_create(&p, 10, &s, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "top_p 0 outside (0, 1]");
    ts_sampling_params_default(&p);
    p.min_p = 1.5f;
    CHECK_INT_EQ(ts_sampler_create(&p, 10, &s, &err), TS_ERR_RANGE);
    ts_sampling_params_default(&p);
    p.repetition_penalty = 0;
    CHECK_INT_EQ(ts_sampler_create(&p, 10, &s, &err), TS_ERR_RANGE);
    ts_sampling_params_default(&p);
    p.top_k = -3;
    CHECK_INT_EQ(ts_sampler_create(&p, 10, &s, &err), TS_ERR_RANGE);
    ts_logit_bias bad[1] = {{10, 1.0f}};
    ts_sampling_params_default(&p);
    p.logit_bias = bad, p.n_logit_bias = 1;
    CHECK_INT_EQ(ts_sampler_create(&p, 10, &s, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "logit_bias[0] id 10 outside 0..9");
    CHECK(s == NULL);
    ts_sampling_params_default(&p);
    REQUIRE_INT_EQ(ts_sampler_create(&p, 10, &s, &err), TS_OK);
    const int32_t prompt[2] = {3, 11};
    CHECK_INT_EQ(ts_sampler_set_prompt(s, prompt, 2, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "prompt[1]: sampler: token 11 outside the vocabulary (0..9)");
    ts_sampler_destroy(s);
}

/* Log-softmax by hand on four logits; the top list best first, ties to the lowest id. */
static void test_logprobs(void)
{
    const float logits[5] = {1.0f, 3.0f, 2.0f, 3.0f, -INFINITY};
    double lse = log(exp(1.0) + 2 * exp(3.0) + exp(2.0));
    float chosen;
    ts_token_logprob top[20];
    ts_error err;
    CHECK_INT_EQ(ts_logprobs(logits, 5, 2, 3, &chosen, top, &err), TS_OK);
    CHECK(fabs(chosen - (2.0 - lse)) < 1e-6);
    CHECK_INT_EQ(top[0].id, 1);
    CHECK_INT_EQ(top[1].id, 3);
    CHECK_INT_EQ(top[2].id, 2);
    CHECK(fabs(top[0].logprob - (3.0 - lse)) < 1e-6 && top[0].logprob == top[1].logprob);
    CHECK_INT_EQ(ts_logprobs(logits, 5, 4, 0, &chosen, top, &err), TS_OK);
    CHECK(isinf(chosen) && chosen < 0);
    CHECK_INT_EQ(ts_logprobs(logits, 5, 5, 1, &chosen, top, &err), TS_ERR_RANGE);
    CHECK_INT_EQ(ts_logprobs(logits, 5, 0, 21, &chosen, top, &err), TS_ERR_RANGE);
    /* k above the vocabulary: every id once. */
    CHECK_INT_EQ(ts_logprobs(logits, 3, 0, 20, &chosen, top, &err), TS_OK);
    CHECK_INT_EQ(top[0].id, 1);
    CHECK_INT_EQ(top[2].id, 0);
}

int main(void)
{
    RUN(test_greedy_is_argmax_with_lowest_id_on_ties);
    RUN(test_low_temperature_tends_to_greedy);
    RUN(test_top_k_one_is_greedy);
    RUN(test_top_p_keeps_the_nucleus);
    RUN(test_filters_on_a_large_vocabulary);
    RUN(test_min_p_is_relative_to_the_top);
    RUN(test_penalties_change_the_expected_logits);
    RUN(test_logit_bias_and_order);
    RUN(test_seeds);
    RUN(test_empirical_frequencies);
    RUN(test_parameter_errors);
    RUN(test_logprobs);
    return check_finish();
}
