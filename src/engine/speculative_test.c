/* speculative_test.c — speculative decoding (n-gram drafts verified in one multi-row step).
 *
 * Greedy: on every text fixture (Qwen2, Qwen3, Llama, Qwen3-MoE, Gemma3's sliding-window rings,
 * Qwen2-VL text only) and on every one-image fixture (Qwen2-VL and Qwen2.5-VL's M-RoPE, Qwen3-VL
 * and its MoE with DeepStack, LLaVA with CLIP and SigLIP, Gemma3's bidirectional image block),
 * 48 tokens with drafts of 4 are the plain loop's ids exactly, and drafts were verified
 * and accepted; also with repetition/frequency penalties (the history advances row by row).
 * A sequence whose ring holds only the window gets no speculation; ts_model_verify refuses more
 * rows than a ring can roll back. Drafting pauses for 4, 8, 16, 32 tokens after verify steps that
 * accept nothing, and resumes after an accepted draft.
 * Sampling: ts_sampler_sample_draft's draws against drafts of high, low and zero probability have
 * the sampler's distribution (total variation < 0.01 over 200 000 draws; accepting every draft
 * would be ≥ 0.53 off, sampling the full distribution after a rejection ≥ 0.14); end to end on
 * the tiny Qwen2 fixture, the joint distribution of three sampled tokens (top-k 3, 27 outcomes)
 * from 1200 speculative generations passes a chi-square test at p = 0.001 against the exact
 * distribution enumerated from the model (the plain sampler passes it too). Fixed seeds: no flakes.
 */
#include "check.h"
#include "engine/generate.h"
#include "engine/model.h"
#include "engine/sampler.h"
#include "tessera.h"

#include <math.h>

static ts_context *ctx, *ctx_auto;

static int32_t *fixture_ids(const char *name, size_t *n)
{
    char refpath[160];
    snprintf(refpath, sizeof(refpath), "tests/fixtures/%s/reference.safetensors", name);
    ts_checkpoint *ref;
    ts_error err;
    if (ts_checkpoint_open(refpath, &ref, &err) != TS_OK) return NULL;
    const ts_tensor_info *t = ts_checkpoint_find(ref, "input_ids");
    *n = (size_t)t->shape[1];
    int32_t *ids = malloc(sizeof(int32_t) * *n);
    for (size_t i = 0; i < *n; i++) ids[i] = (int32_t)((const int64_t *)t->data)[i];
    ts_checkpoint_close(ref);
    return ids;
}

/* Plain and speculative generation of max_tokens greedy tokens (EOS ignored): same ids. */
static void compare_greedy(const char *name, ts_model *m, const int32_t *ids, size_t n,
                           const ts_pixel_values *images, int n_images, float repetition)
{
    ts_error err;
    const int64_t max_tokens = 48;
    const ts_model_config *cfg = ts_model_get_config(m);
    ts_generate_params p = {.max_tokens = max_tokens,
                            .eos_ids = cfg->eos_token_ids,
                            .n_eos_ids = cfg->n_eos_token_ids,
                            .ignore_eos = true};
    ts_sampling_params_default(&p.sampling);
    p.sampling.repetition_penalty = repetition;
    if (repetition != 1.0f) p.sampling.frequency_penalty = 0.5f;
    ts_generation g[2];
    int32_t *context = NULL;
    for (int spec = 0; spec < 2; spec++) {
        if (spec) {
            /* The plain output quoted earlier (as in a summary of a text that repeats it), with
             * two tokens changed: drafts are accepted along it and rejected at the changes. */
            context = malloc(sizeof(int32_t) * (n + g[0].n_ids));
            memcpy(context, ids, sizeof(int32_t) * n);
            memcpy(context + n, g[0].ids, sizeof(int32_t) * g[0].n_ids);
            context[n + 13] = (context[n + 13] + 1) % (int32_t)ts_model_vocab_size(m);
            context[n + 31] = (context[n + 31] + 7) % (int32_t)ts_model_vocab_size(m);
            p.draft_context = context, p.n_draft_context = n + g[0].n_ids;
        }
        ts_sequence *seq;
        int64_t cap = (int64_t)n + max_tokens;
        REQUIRE_INT_EQ(spec ? ts_sequence_create_draft(m, cap, 4, &seq, &err)
                            : ts_sequence_create(m, cap, &seq, &err),
                       TS_OK);
        p.draft_tokens = spec ? 4 : 0;
        p.draft_min_ngram = 1; /* draft as often as possible: every verify row is checked */
        ts_status st = images ? ts_generate_images(m, seq, ids, n, images, n_images, &p, &g[spec], &err)
                              : ts_generate(m, seq, ids, n, &p, &g[spec], &err);
        if (st != TS_OK) fprintf(stderr, "%s: %s\n", name, err.message);
        ts_sequence_destroy(seq);
        REQUIRE_INT_EQ(st, TS_OK);
    }
    bool same = g[0].n_ids == g[1].n_ids && g[0].n_ids == (size_t)max_tokens;
    for (size_t i = 0; same && i < g[0].n_ids; i++) same = g[0].ids[i] == g[1].ids[i];
    CHECK(same);
    CHECK_INT_EQ(g[1].draft_tokens, 4);
    CHECK(g[1].verify_steps > 0);
    CHECK(g[1].accepted > 0);
    CHECK_INT_EQ(g[0].verify_steps, 0);
    CHECK_INT_EQ(g[0].forwards, max_tokens - 1);
    CHECK(g[1].forwards < g[0].forwards);
    fprintf(stderr,
            "  %s%s: %zu tokens %s; %zu verify steps, %zu of %zu drafts accepted, %zu forwards "
            "(plain %zu)\n",
            name, repetition != 1.0f ? " (penalties)" : "", g[1].n_ids, same ? "identical" : "DIFFER",
            g[1].verify_steps, g[1].accepted, g[1].drafted, g[1].forwards, g[0].forwards);
    CHECK(g[1].accepted < g[1].drafted);
    ts_generation_free(&g[0]);
    ts_generation_free(&g[1]);
    free(context);
}

/* Each verify row's logits are the plain decode step's bits for that token (memcmp), for 3, 5
 * (attention's multi-query GEMM path starts at 4 queries) and 17 rows (the tiled matmuls start at
 * 16): a verify step that took those paths flipped a near-tie of the 0.5B preset's greedy output
 * under bf16 products. */
static void verify_rows_are_decode_rows(const char *name, ts_model *m, const int32_t *ids, size_t n)
{
    ts_error err;
    int64_t vocab = ts_model_vocab_size(m);
    enum { MAX_ROWS = 17 };
    int32_t next[MAX_ROWS];
    float *plain = malloc(sizeof(float) * (size_t)(vocab * MAX_ROWS)), *rows = malloc(sizeof(float) * (size_t)(vocab * MAX_ROWS));
    float *logits = malloc(sizeof(float) * (size_t)vocab);
    REQUIRE(plain && rows && logits);
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create_draft(m, (int64_t)n + 2 * MAX_ROWS, TS_MAX_DRAFT, &seq, &err), TS_OK);
    REQUIRE_INT_EQ(ts_model_prefill(m, seq, ids, n, logits, &err), TS_OK);
    for (int i = 0; i < MAX_ROWS; i++) {
        next[i] = (int32_t)((ids[i % n] * 7 + 11 * i + 3) % vocab); /* any tokens: drafts need not be likely */
        REQUIRE_INT_EQ(ts_model_decode(m, &seq, &next[i], 1, plain + (size_t)(i * vocab), &err), TS_OK);
    }
    const int64_t counts[] = {3, 5, MAX_ROWS};
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
        ts_sequence_reset(seq);
        REQUIRE_INT_EQ(ts_model_prefill(m, seq, ids, n, logits, &err), TS_OK);
        int64_t k = counts[c];
        REQUIRE_INT_EQ(ts_model_verify(m, &seq, 1, next, &k, rows, &err), TS_OK);
        size_t differ = 0;
        for (int64_t i = 0; i < k * vocab; i++) differ += memcmp(&rows[i], &plain[i], sizeof(float)) != 0;
        if (differ) fprintf(stderr, "  %s: verify of %lld rows: %zu logits differ from the plain decode steps\n", name, (long long)k, differ);
        CHECK_INT_EQ(differ, 0);
    }
    ts_sequence_destroy(seq);
    free(plain), free(rows), free(logits);
}

static void test_verify_rows(void)
{
    const char *names[] = {"qwen2", "llama"};
    for (int f = 0; f < 2; f++) {
        char dir[160];
        snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", names[f]);
        ts_model *m;
        ts_error err;
        REQUIRE_INT_EQ(ts_model_load(ctx, dir, NULL, &m, &err), TS_OK);
        size_t n;
        int32_t *ids = fixture_ids(names[f], &n);
        REQUIRE(ids != NULL);
        verify_rows_are_decode_rows(names[f], m, ids, n);
        ts_model_destroy(m);
        if (f == 0) { /* bf16 weights under bf16 products (compute auto) */
            ts_model_options bf = {.weights = "tests/fixtures/qwen2/model-bf16"};
            REQUIRE_INT_EQ(ts_model_load(ctx_auto, dir, &bf, &m, &err), TS_OK);
            verify_rows_are_decode_rows("qwen2 bf16, compute auto", m, ids, n);
            ts_model_destroy(m);
        }
        free(ids);
    }
}

static void text_case(const char *name, float repetition)
{
    char dir[160];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    ts_model *m;
    ts_error err;
    REQUIRE_INT_EQ(ts_model_load(ctx, dir, NULL, &m, &err), TS_OK);
    size_t n;
    int32_t *ids = fixture_ids(name, &n);
    REQUIRE(ids != NULL);
    compare_greedy(name, m, ids, n, NULL, 0, repetition);
    free(ids);
    ts_model_destroy(m);
}

/* bf16 weights under bf16 products where the CPU has them (compute auto): the verify rows take
 * the decode rows' VDPBF16PS dots (pairs of weight rows from 3 rows), each row the bits of the
 * plain loop's single-row dot. */
static void test_bf16_compute(void)
{
    ts_model_options bf = {.weights = "tests/fixtures/qwen2/model-bf16"};
    ts_model *m;
    ts_error err;
    REQUIRE_INT_EQ(ts_model_load(ctx_auto, "tests/fixtures/qwen2/model", &bf, &m, &err), TS_OK);
    size_t n;
    int32_t *ids = fixture_ids("qwen2", &n);
    REQUIRE(ids != NULL);
    compare_greedy("qwen2 bf16 weights, compute auto", m, ids, n, NULL, 0, 1.0f);
    free(ids);
    ts_model_destroy(m);
}

static void test_text_fixtures(void)
{
    text_case("qwen2", 1.0f);
    text_case("qwen2", 1.3f);
    text_case("qwen3", 1.0f);
    text_case("llama", 1.0f);
    text_case("qwen3_moe", 1.0f);
    text_case("gemma3_text", 1.0f);
    text_case("qwen2_vl-text-only", 1.0f);
}

static void image_case(const char *name)
{
    char dir[128], png[160];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    snprintf(png, sizeof(png), "tests/fixtures/%s/chelsea.png", name);
    ts_error err;
    ts_model *m;
    ts_tokenizer *tok;
    ts_chat_template *tmpl;
    ts_preprocessor_config pc;
    REQUIRE_INT_EQ(ts_model_load(ctx, dir, NULL, &m, &err), TS_OK);
    REQUIRE_INT_EQ(ts_tokenizer_load(dir, &tok, &err), TS_OK);
    REQUIRE_INT_EQ(ts_chat_template_load(dir, NULL, &tmpl, &err), TS_OK);
    REQUIRE_INT_EQ(ts_preprocessor_config_load(dir, &pc, &err), TS_OK);
    const ts_model_config *cfg = ts_model_get_config(m);
    ts_image img;
    ts_pixel_values pv;
    REQUIRE_INT_EQ(ts_image_load(png, NULL, &img, &err), TS_OK);
    REQUIRE_INT_EQ(ts_preprocess_image(&pc, cfg->family, img.rgb, img.width, img.height, NULL, &pv, &err), TS_OK);
    ts_image_free(&img);
    int64_t count = ts_model_image_tokens(m, &pv);
    const char *context = "{\"messages\": [{\"role\": \"user\", \"content\": [{\"type\": \"image\"}, "
                          "{\"type\": \"text\", \"text\": \"Describe this image.\"}]}], "
                          "\"add_generation_prompt\": true}";
    char *prompt, *expanded;
    size_t len, n;
    int32_t *ids;
    REQUIRE_INT_EQ(ts_chat_template_render(tmpl, context, &prompt, &err), TS_OK);
    REQUIRE_INT_EQ(ts_prompt_expand_images(cfg, tok, prompt, strlen(prompt), &count, 1, &expanded, &len, &err), TS_OK);
    REQUIRE_INT_EQ(ts_tokenizer_encode(tok, expanded, len, true, &ids, &n, &err), TS_OK);
    compare_greedy(name, m, ids, n, &pv, 1, 1.0f);
    free(ids), free(prompt), free(expanded);
    ts_pixel_values_free(&pv);
    ts_chat_template_destroy(tmpl);
    ts_tokenizer_destroy(tok);
    ts_model_destroy(m);
}

static void test_image_fixtures(void)
{
    image_case("qwen2_vl");
    image_case("qwen2_5_vl");
    image_case("qwen3_vl");     /* DeepStack rows in the prefill */
    image_case("qwen3_vl_moe");
    image_case("llava");
    image_case("llava_siglip");
    image_case("gemma3");
}

/* A ring of exactly the window cannot roll back: no speculation on such a sequence, and a verify
 * step longer than the ring's spare rows is refused. */
static void test_ring_limits(void)
{
    ts_model *m;
    ts_error err;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/gemma3_text/model", NULL, &m, &err), TS_OK);
    size_t n;
    int32_t *ids = fixture_ids("gemma3_text", &n);
    REQUIRE(ids != NULL);
    ts_sequence *plain, *spare;
    REQUIRE_INT_EQ(ts_sequence_create(m, (int64_t)n + 16, &plain, &err), TS_OK);
    REQUIRE_INT_EQ(ts_sequence_create_draft(m, (int64_t)n + 16, 2, &spare, &err), TS_OK);
    CHECK_INT_EQ(ts_sequence_draft_room(plain), 0);
    CHECK_INT_EQ(ts_sequence_draft_room(spare), 2);
    ts_generate_params p = {.max_tokens = 8, .draft_tokens = 4};
    ts_sampling_params_default(&p.sampling);
    ts_generation g;
    REQUIRE_INT_EQ(ts_generate(m, plain, ids, n, &p, &g, &err), TS_OK);
    CHECK_INT_EQ(g.draft_tokens, 0);
    CHECK_INT_EQ(g.verify_steps, 0);
    ts_generation_free(&g);
    float *rows = malloc(sizeof(float) * 4 * (size_t)ts_model_vocab_size(m));
    int64_t four = 4;
    float *logits = rows;
    REQUIRE_INT_EQ(ts_model_prefill(m, spare, ids, n, logits, &err), TS_OK);
    CHECK_INT_EQ(ts_model_verify(m, &spare, 1, ids, &four, rows, &err), TS_ERR_UNSUPPORTED);
    CHECK_INT_EQ(ts_sequence_length(spare), (int64_t)n);
    CHECK_INT_EQ(ts_sequence_truncate(spare, (int64_t)n + 1, &err), TS_ERR_RANGE);
    ts_sequence_destroy(plain);
    CHECK_INT_EQ(ts_sequence_create_draft(m, 64, TS_MAX_DRAFT + 1, &plain, &err), TS_ERR_RANGE);
    free(rows), free(ids);
    ts_sequence_destroy(spare);
    ts_model_destroy(m);
}

/* After two verify steps in a row that accept nothing, drafting pauses for 4, 8, 16, 32, 32 …
 * tokens; one accepted draft ends the back-off. The completion alone, on one-hot rows: the output
 * continues the prompt's 1 2 3 4 pattern (so a draft is always there to make), and every verify
 * step is fed a wrong draft (9) until the last, which is fed the right one. */
static void test_draft_pause(void)
{
    enum { V = 16 };
    int32_t prompt[12];
    for (int i = 0; i < 12; i++) prompt[i] = 1 + i % 4;
    ts_generate_params p = {.max_tokens = 400, .draft_tokens = 3};
    ts_sampling_params_default(&p.sampling);
    ts_completion *c;
    ts_error err;
    REQUIRE_INT_EQ(ts_completion_create(V, prompt, 12, &p, &c, &err), TS_OK);
    float rows[2 * V];
    int32_t id, d[3];
    bool done;
    int pattern = 0, pauses[8], n_pauses = 0, quiet = 0, steps = 0;
    for (int t = 0; t < 200 && n_pauses < 6; t++) {
        memset(rows, 0, sizeof(rows));
        rows[1 + pattern % 4] = 1; /* the model's next token: the pattern's */
        pattern++;
        if (t == 0 || ts_completion_draft(c, 3, d) == 0) {
            quiet += t > 0;
            CHECK_INT_EQ(ts_completion_next(c, rows, &id, &done, &err), TS_OK);
            continue;
        }
        if (quiet) pauses[n_pauses++] = quiet, quiet = 0;
        int32_t wrong = 9;
        int accepted = -1;
        CHECK_INT_EQ(ts_completion_verify(c, rows, &wrong, 1, NULL, NULL, &accepted, &id, &done, &err), TS_OK);
        CHECK_INT_EQ(accepted, 0);
        steps++;
    }
    static const int want[6] = {4, 8, 16, 32, 32, 32};
    REQUIRE_INT_EQ(n_pauses, 6);
    for (int i = 0; i < 6; i++) CHECK_INT_EQ(pauses[i], want[i]);
    CHECK_INT_EQ(steps, 2 + 6); /* two misses, then one after each pause */
    /* A right draft resets the count: drafting goes on at once after it. */
    while (ts_completion_draft(c, 3, d) == 0) {
        memset(rows, 0, sizeof(rows));
        rows[1 + pattern++ % 4] = 1;
        CHECK_INT_EQ(ts_completion_next(c, rows, &id, &done, &err), TS_OK);
    }
    memset(rows, 0, sizeof(rows));
    rows[1 + pattern % 4] = 1, rows[V + 1 + (pattern + 1) % 4] = 1;
    int32_t right = 1 + pattern % 4;
    int accepted = 0;
    CHECK_INT_EQ(ts_completion_verify(c, rows, &right, 1, NULL, NULL, &accepted, &id, &done, &err), TS_OK);
    CHECK_INT_EQ(accepted, 1);
    CHECK(ts_completion_draft(c, 3, d) > 0);
    ts_completion_destroy(c);
}

/* ---------------------------------------------------------------- distributions */

/* The sampler's distribution for `logits` (ts_sampler_apply, then softmax). */
static void exact_distribution(ts_sampler *s, const float *logits, int64_t v, double *p)
{
    float *w = malloc(sizeof(float) * (size_t)v);
    memcpy(w, logits, sizeof(float) * (size_t)v);
    ts_error err;
    CHECK_INT_EQ(ts_sampler_apply(s, w, &err), TS_OK);
    float max = -INFINITY;
    for (int64_t i = 0; i < v; i++) max = fmaxf(max, w[i]);
    double total = 0;
    for (int64_t i = 0; i < v; i++) total += p[i] = w[i] == -INFINITY ? 0 : exp((double)w[i] - max);
    for (int64_t i = 0; i < v; i++) p[i] /= total;
    free(w);
}

static double total_variation(const double *a, const double *b, int n)
{
    double tv = 0;
    for (int i = 0; i < n; i++) tv += fabs(a[i] - b[i]);
    return tv / 2;
}

static void test_sampler_draft_distribution(void)
{
    enum { V = 8, DRAWS = 200000 };
    const float logits[V] = {2.0f, 1.5f, 1.2f, 0.3f, 0.0f, -0.5f, -1.0f, -3.0f};
    ts_sampling_params sp;
    ts_sampling_params_default(&sp);
    sp.temperature = 0.8f, sp.top_k = 6, sp.seed = 1234;
    ts_error err;
    ts_sampler *s;
    REQUIRE_INT_EQ(ts_sampler_create(&sp, V, &s, &err), TS_OK);
    double p[V];
    exact_distribution(s, logits, V, p);
    /* Drafts: the most likely token, a middling one, and one top-k removed (p = 0). */
    const int32_t drafts[3] = {0, 2, 7};
    for (int d = 0; d < 3; d++) {
        int32_t draft = drafts[d];
        double freq[V] = {0}, wrong_resample[V] = {0};
        long accepted = 0;
        for (int i = 0; i < DRAWS; i++) {
            float w[V];
            memcpy(w, logits, sizeof(w));
            int32_t id;
            bool acc;
            ts_status st = ts_sampler_sample_draft(s, w, draft, &id, &acc, &err);
            if (st != TS_OK) CHECK_INT_EQ(st, TS_OK);
            if (acc != (id == draft)) CHECK(acc == (id == draft));
            freq[id] += 1.0 / DRAWS;
            accepted += acc;
        }
        /* A rejection that resampled the full distribution: p(x) + (1 − p(x)) p(x) for x. */
        for (int i = 0; i < V; i++)
            wrong_resample[i] = (1 - p[draft]) * p[i] + (i == draft ? p[draft] : 0);
        double point[V] = {0};
        point[draft] = 1; /* accepting every draft */
        double tv = total_variation(freq, p, V);
        fprintf(stderr,
                "  draft %d (p %.3f): accepted %.4f of draws, TV to the sampler's distribution "
                "%.4f (always accepting: %.3f, resampling p after a rejection: %.3f)\n",
                draft, p[draft], (double)accepted / DRAWS, tv, total_variation(point, p, V),
                total_variation(wrong_resample, p, V));
        CHECK(tv < 0.01);
        CHECK(fabs((double)accepted / DRAWS - p[draft]) < 0.01);
        CHECK(total_variation(point, p, V) >= 0.19);
        if (p[draft] > 0.2) CHECK(total_variation(wrong_resample, p, V) >= 0.1);
    }
    /* Greedy: the argmax, accepted iff it is the draft. */
    ts_sampler_destroy(s);
    sp.temperature = 0;
    REQUIRE_INT_EQ(ts_sampler_create(&sp, V, &s, &err), TS_OK);
    float w[V];
    int32_t id;
    bool acc;
    memcpy(w, logits, sizeof(w));
    CHECK_INT_EQ(ts_sampler_sample_draft(s, w, 1, &id, &acc, &err), TS_OK);
    CHECK(id == 0 && !acc);
    memcpy(w, logits, sizeof(w));
    CHECK_INT_EQ(ts_sampler_sample_draft(s, w, 0, &id, &acc, &err), TS_OK);
    CHECK(id == 0 && acc);
    CHECK_INT_EQ(ts_sampler_sample_draft(s, w, V, &id, &acc, &err), TS_ERR_RANGE);
    ts_sampler_destroy(s);
}

/* Chi-square critical value at p = 0.001 for df degrees (Wilson–Hilferty). */
static double chi2_critical(int df)
{
    double z = 3.0902, a = 2.0 / (9.0 * df);
    return df * pow(1 - a + z * sqrt(a), 3);
}

/* Three sampled tokens (temperature 1, top-k 3) after the tiny Qwen2 fixture's prompt: the exact
 * joint distribution from the model, against plain and speculative generations. */
static void test_end_to_end_distribution(void)
{
    enum { K = 3, OUT = K * K * K, RUNS = 1200, T = 3 };
    ts_model *m;
    ts_error err;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/qwen2/model", NULL, &m, &err), TS_OK);
    size_t n;
    int32_t *prompt = fixture_ids("qwen2", &n);
    REQUIRE(prompt != NULL);
    int64_t v = ts_model_vocab_size(m);
    ts_sampling_params sp;
    ts_sampling_params_default(&sp);
    sp.temperature = 1.0f, sp.top_k = K;
    ts_sampler *s;
    REQUIRE_INT_EQ(ts_sampler_create(&sp, v, &s, &err), TS_OK);
    /* Enumerate: the top-3 ids and their probabilities after each prefix. */
    int32_t *ids = malloc(sizeof(int32_t) * (n + T));
    memcpy(ids, prompt, sizeof(int32_t) * n);
    float *logits = malloc(sizeof(float) * (size_t)v);
    double *p = malloc(sizeof(double) * (size_t)v), exact[OUT];
    int32_t outcome_ids[OUT][T];
    int at = 0;
    /* Depth-first over the 27 prefixes; each prefix's distribution from a fresh prefill. */
    for (int a = 0; a < OUT; a++) {
        int digits[T] = {a / (K * K), (a / K) % K, a % K};
        double prob = 1;
        for (int t = 0; t < T; t++) {
            ts_sequence *seq;
            REQUIRE_INT_EQ(ts_sequence_create(m, (int64_t)n + T, &seq, &err), TS_OK);
            REQUIRE_INT_EQ(ts_model_prefill(m, seq, ids, n + (size_t)t, logits, &err), TS_OK);
            ts_sequence_destroy(seq);
            exact_distribution(s, logits, v, p);
            /* The K survivors in id order: digit d picks the d-th. */
            int seen = 0;
            for (int64_t i = 0; i < v; i++)
                if (p[i] > 0 && seen++ == digits[t]) {
                    ids[n + (size_t)t] = (int32_t)i;
                    prob *= p[i];
                    break;
                }
        }
        memcpy(outcome_ids[a], ids + n, sizeof(outcome_ids[a]));
        exact[a] = prob;
        at++;
    }
    CHECK_INT_EQ(at, OUT);
    /* Drafts worth verifying: after each first token, its most likely second one (found by the
     * 1-gram lookup in this context), so drafts are accepted about half of the time. */
    int32_t context[3 * K];
    for (int i = 0; i < K; i++) {
        int best = i * K * K;
        for (int j = 0; j < K; j++) {
            int a = i * K * K + j * K, b = best;
            double pa = 0, pb = 0;
            for (int t = 0; t < K; t++) pa += exact[a + t], pb += exact[b + t];
            if (pa > pb) best = a;
        }
        context[3 * i] = outcome_ids[best][0];
        context[3 * i + 1] = outcome_ids[best][1];
        context[3 * i + 2] = 0;
    }
    ts_generate_params gp = {.max_tokens = T,
                             .ignore_eos = true,
                             .draft_min_ngram = 1,
                             .draft_context = context,
                             .n_draft_context = 3 * K};
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(m, (int64_t)n + T, &seq, &err), TS_OK);
    for (int spec = 0; spec < 2; spec++) {
        double count[OUT] = {0};
        size_t steps = 0, drafted = 0, accepted = 0;
        gp.sampling = sp;
        gp.draft_tokens = spec ? 2 : 0;
        for (int r = 0; r < RUNS; r++) {
            gp.sampling.seed = 1000 + (uint64_t)r;
            ts_sequence_reset(seq);
            ts_generation g;
            ts_status st = ts_generate(m, seq, prompt, n, &gp, &g, &err);
            if (st != TS_OK) REQUIRE_INT_EQ(st, TS_OK);
            int found = -1;
            for (int a = 0; a < OUT && found < 0; a++)
                if (memcmp(outcome_ids[a], g.ids, sizeof(outcome_ids[a])) == 0) found = a;
            if (found < 0) CHECK(found >= 0); /* outside the top-3 tree: never */
            else count[found]++;
            steps += g.verify_steps, drafted += g.drafted, accepted += g.accepted;
            ts_generation_free(&g);
        }
        /* Cells with an expected count under 5 pooled into one. */
        double chi2 = 0, pooled_obs = 0, pooled_exp = 0;
        int cells = 0;
        for (int a = 0; a < OUT; a++) {
            double e = exact[a] * RUNS;
            if (e < 5) {
                pooled_obs += count[a], pooled_exp += e;
                continue;
            }
            chi2 += (count[a] - e) * (count[a] - e) / e, cells++;
        }
        if (pooled_exp > 0) chi2 += (pooled_obs - pooled_exp) * (pooled_obs - pooled_exp) / pooled_exp, cells++;
        double crit = chi2_critical(cells - 1);
        fprintf(stderr,
                "  %s: chi-square %.1f over %d cells (critical %.1f at p = 0.001); %zu verify steps, "
                "%zu of %zu drafts accepted\n",
                spec ? "speculative" : "plain", chi2, cells, crit, steps, accepted, drafted);
        CHECK(chi2 < crit);
        if (spec) {
            /* Speculation really ran, and drafts were both accepted and rejected. */
            CHECK(steps > RUNS / 2);
            CHECK(accepted > 0 && accepted < drafted);
        }
    }
    ts_sequence_destroy(seq);
    ts_sampler_destroy(s);
    free(ids), free(prompt), free(logits), free(p);
    ts_model_destroy(m);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    ts_context_options oa = {.n_threads = 2, .log_level = TS_LOG_WARN, .compute = "auto"};
    if (ts_context_create(&oa, &ctx_auto, &err) != TS_OK) return 1;
    RUN(test_sampler_draft_distribution);
    RUN(test_text_fixtures);
    RUN(test_bf16_compute);
    RUN(test_verify_rows);
    RUN(test_image_fixtures);
    RUN(test_ring_limits);
    RUN(test_draft_pause);
    if (!getenv("SKIP_E2E")) RUN(test_end_to_end_distribution);
    ts_context_destroy(ctx_auto);
    ts_context_destroy(ctx);
    return check_finish();
}
