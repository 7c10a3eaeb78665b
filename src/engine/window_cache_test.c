/* window_cache_test.c — sliding-window layers on a ring cache (Gemma3 text, window 8) against the
 * full-capacity cache with the window as a mask: every logit of chunked prefills (chunks shorter
 * and longer than the window and the ring, ring = window and window + 3) and of a long greedy
 * decode within 1e-5, layer 0's K/V rows bit for bit, batched decode at different positions equal
 * to each sequence alone, the KV bytes of a long context, and the errors. */
#include "engine/model.h"
#include "check.h"

#include <math.h>

static ts_context *ctx;

#define CAP 96
#define DECODE 48

static int32_t prompt_token(int i)
{
    return (int32_t)((i * 389 + 17) % 1300 + 2);
}

/* Max |a − b| over n floats (NaN counts as infinite). */
static double max_diff(const float *a, const float *b, size_t n)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        if (!(d <= worst)) worst = isnan(d) ? INFINITY : d;
    }
    return worst;
}

/* Prefills `chunks` through a full-cache sequence and rings of `ring` rows (window and window + 3),
 * every row's logits compared, then DECODE greedy steps (the full path's choice fed to all). */
static void check_against_full(const char *weights, const char *kv, const int *chunks, int n_chunks)
{
    ts_error err;
    ts_model *m;
    ts_model_options opt = {.weights = weights, .kv_cache = kv};
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/gemma3_text/model", &opt, &m, &err), TS_OK);
    const ts_model_config *cfg = ts_model_get_config(m);
    int64_t vocab = ts_model_vocab_size(m), hidden = cfg->text.hidden_size,
            layers = cfg->text.num_hidden_layers;
    int64_t window = cfg->text.sliding_window;
    REQUIRE_INT_EQ(window, 8);
    enum { N_SEQ = 3 };
    int64_t rows[N_SEQ] = {0, window, window + 3};
    ts_sequence *seq[N_SEQ];
    for (int s = 0; s < N_SEQ; s++)
        REQUIRE_INT_EQ(ts_sequence_create_rows(m, CAP, rows[s], &seq[s], &err), TS_OK);
    CHECK_INT_EQ(ts_sequence_cache_rows(seq[1], 0), window);
    CHECK_INT_EQ(ts_sequence_cache_rows(seq[1], 1), CAP); /* a global layer */
    CHECK_INT_EQ(ts_sequence_cache_rows(seq[2], 2), window + 3);
    int longest = 0, total = 0;
    for (int c = 0; c < n_chunks; c++)
        longest = chunks[c] > longest ? chunks[c] : longest, total += chunks[c];
    float *logits[N_SEQ], **hid = malloc(sizeof(float *) * (size_t)(layers + 1));
    for (int s = 0; s < N_SEQ; s++)
        logits[s] = malloc(sizeof(float) * (size_t)(longest * vocab));
    for (int64_t l = 0; l <= layers; l++)
        hid[l] = malloc(sizeof(float) * (size_t)(longest * hidden));
    int32_t ids[CAP];
    for (int i = 0; i < CAP; i++)
        ids[i] = prompt_token(i);
    double worst_prefill = 0, worst_decode = 0, max_logit = 0;
    for (int c = 0, at = 0; c < n_chunks; at += chunks[c++])
        for (int s = 0; s < N_SEQ; s++) {
            ts_diagnostic_prefill d = {.logits = logits[s], .hidden = hid};
            REQUIRE_INT_EQ(
                ts_model_prefill_diagnostic(m, seq[s], ids + at, (size_t)chunks[c], &d, &err),
                TS_OK);
            if (s > 0)
                worst_prefill = fmax(worst_prefill,
                                     max_diff(logits[s], logits[0], (size_t)(chunks[c] * vocab)));
        }
    /* Layer 0's keys and values depend on nothing the attention computed: the ring holds the
     * same bytes for the positions it keeps. */
    size_t row_bytes = (size_t)(ts_model_kv_heads(m) * ts_model_head_dim(m)) *
                       (ts_model_kv_dtype(m) == TS_DTYPE_BF16 ? 2 : 4);
    for (int s = 1; s < N_SEQ; s++)
        for (int64_t p = 0; p < total; p++)
            for (int value = 0; value < 2; value++) {
                const void *ring = ts_sequence_cache_row(seq[s], 0, value, p),
                           *full = ts_sequence_cache_row(seq[0], 0, value, p);
                REQUIRE(full != NULL);
                CHECK((ring != NULL) == (p >= total - rows[s]));
                if (ring) CHECK(memcmp(ring, full, row_bytes) == 0);
            }
    float *last[N_SEQ];
    for (int s = 0; s < N_SEQ; s++)
        last[s] = logits[s] + (int64_t)(chunks[n_chunks - 1] - 1) * vocab;
    int same_tokens = 0;
    for (int i = 0; i < DECODE && total + i < CAP; i++) {
        int32_t tok = ts_argmax_masked(last[0], vocab, NULL, 0);
        bool agree = true;
        for (int s = 1; s < N_SEQ; s++)
            agree &= ts_argmax_masked(last[s], vocab, NULL, 0) == tok;
        same_tokens += agree;
        for (int s = 0; s < N_SEQ; s++) {
            REQUIRE_INT_EQ(ts_model_decode(m, &seq[s], &tok, 1, logits[s], &err), TS_OK);
            last[s] = logits[s];
        }
        for (int s = 1; s < N_SEQ; s++)
            worst_decode = fmax(worst_decode, max_diff(logits[s], logits[0], (size_t)vocab));
        for (int64_t j = 0; j < vocab; j++)
            max_logit = fmax(max_logit, fabs(logits[0][j]));
    }
    fprintf(stderr, "  %s weights, %s KV, chunks of", weights ? "bf16" : "f32", kv ? kv : "f32");
    for (int c = 0; c < n_chunks; c++)
        fprintf(stderr, " %d", chunks[c]);
    fprintf(stderr,
            " (window %lld, rings %lld and %lld): max |ring − full| prefill logits %.3g, %d decode "
            "steps %.3g, greedy %d/%d, max |logit| %.3g\n",
            (long long)window, (long long)rows[1], (long long)rows[2], worst_prefill, DECODE,
            worst_decode, same_tokens, DECODE, max_logit);
    CHECK(worst_prefill <= 1e-5);
    CHECK(worst_decode <= 1e-5);
    CHECK_INT_EQ(same_tokens, DECODE);
    for (int s = 0; s < N_SEQ; s++)
        CHECK_INT_EQ(ts_sequence_length(seq[s]), total + DECODE);
    for (int64_t l = 0; l <= layers; l++)
        free(hid[l]);
    free(hid);
    for (int s = 0; s < N_SEQ; s++)
        free(logits[s]), ts_sequence_destroy(seq[s]);
    ts_model_destroy(m);
}

/* 45 prompt tokens: chunks under the window, over the window, over the ring, and one row. */
static void test_ring_matches_full_cache(void)
{
    static const int chunks[] = {3, 5, 12, 1, 20, 4};
    int n = (int)(sizeof(chunks) / sizeof(chunks[0]));
    check_against_full(NULL, NULL, chunks, n);
    check_against_full("tests/fixtures/gemma3_text/model-bf16/model.safetensors", NULL, chunks, n);
    check_against_full(NULL, "bf16", chunks, n);
    /* One prompt longer than window + chunk, in one call. */
    static const int whole[] = {40};
    check_against_full(NULL, NULL, whole, 1);
}

/* Three ring sequences at different positions, decoded as one batch: each logit equals its
 * sequence's solo run, bit for bit. */
static void test_ring_batched_decode(void)
{
    ts_error err;
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/gemma3_text/model", NULL, &m, &err), TS_OK);
    enum { B = 3, STEPS = 20 };
    static const int lens[B] = {5, 13, 30};
    int64_t v = ts_model_vocab_size(m);
    int32_t ids[CAP];
    for (int i = 0; i < CAP; i++)
        ids[i] = prompt_token(3 * i + 1);
    float *alone = malloc(sizeof(float) * (size_t)(B * STEPS * v)),
          *together = malloc(sizeof(float) * (size_t)(B * STEPS * v));
    int32_t tokens[B][STEPS];
    for (int b = 0; b < B; b++) {
        ts_sequence *s;
        REQUIRE_INT_EQ(ts_sequence_create(m, CAP, &s, &err), TS_OK);
        CHECK_INT_EQ(ts_sequence_cache_rows(s, 0), 8);
        float *out = alone + (size_t)(b * STEPS) * (size_t)v;
        CHECK_INT_EQ(ts_model_prefill(m, s, ids, (size_t)lens[b], out, &err), TS_OK);
        for (int i = 0; i + 1 < STEPS; i++) {
            tokens[b][i] = ts_argmax_masked(out + i * v, v, NULL, 0);
            CHECK_INT_EQ(ts_model_decode(m, &s, &tokens[b][i], 1, out + (i + 1) * v, &err), TS_OK);
        }
        ts_sequence_destroy(s);
    }
    ts_sequence *seqs[B];
    float *step = malloc(sizeof(float) * (size_t)(B * v));
    for (int b = 0; b < B; b++) {
        REQUIRE_INT_EQ(ts_sequence_create(m, CAP, &seqs[b], &err), TS_OK);
        CHECK_INT_EQ(ts_model_prefill(m, seqs[b], ids, (size_t)lens[b],
                                      together + (size_t)(b * STEPS) * (size_t)v, &err),
                     TS_OK);
    }
    for (int i = 0; i + 1 < STEPS; i++) {
        int32_t next[B];
        for (int b = 0; b < B; b++)
            next[b] = tokens[b][i];
        REQUIRE_INT_EQ(ts_model_decode(m, seqs, next, B, step, &err), TS_OK);
        for (int b = 0; b < B; b++)
            memcpy(together + (size_t)(b * STEPS + i + 1) * (size_t)v, step + b * v,
                   sizeof(float) * (size_t)v);
    }
    CHECK(memcmp(alone, together, sizeof(float) * (size_t)(B * STEPS * v)) == 0);
    fprintf(stderr,
            "  batched ring decode (lengths 5, 13, 30, %d steps): max |batch − alone| %.3g\n",
            STEPS, max_diff(alone, together, (size_t)(B * STEPS * v)));
    for (int b = 0; b < B; b++)
        ts_sequence_destroy(seqs[b]);
    free(step), free(alone), free(together);
    ts_model_destroy(m);
}

/* KV elements: the fixture's shape exactly, and gemma-3-1b's (26 layers, 1 KV head, head_dim
 * 256, window 512, 5 of 6 layers local) at 32k. */
static void test_kv_size(void)
{
    ts_error err;
    ts_model_config cfg;
    REQUIRE_INT_EQ(ts_model_config_load("tests/fixtures/gemma3_text/model", &cfg, &err), TS_OK);
    ts_kv_size kv;
    REQUIRE_INT_EQ(ts_model_config_kv_size(&cfg, 39, &kv, &err), TS_OK);
    /* 2 local layers × 8 rows + 2 global × 39, each row 2 KV heads × 32 × (k, v). */
    CHECK_INT_EQ(kv.ring_rows, 8);
    CHECK_INT_EQ(kv.local_layers, 2);
    CHECK_INT_EQ((int64_t)kv.elements, (2 * 8 + 2 * 39) * 128);
    CHECK_INT_EQ((int64_t)kv.full_elements, 4 * 39 * 128);
    REQUIRE_INT_EQ(ts_model_config_kv_size(&cfg, 8, &kv, &err), TS_OK);
    CHECK_INT_EQ(kv.ring_rows, 0); /* the window covers the context: nothing to save */
    CHECK_INT_EQ((int64_t)kv.elements, (int64_t)kv.full_elements);
    CHECK_INT_EQ(ts_model_config_kv_size(&cfg, 0, &kv, &err), TS_ERR_RANGE);

    static const char gemma3_1b[] =
        "{\"model_type\":\"gemma3_text\",\"architectures\":[\"Gemma3ForCausalLM\"],\"hidden_size\":"
        "1152,"
        "\"intermediate_size\":6912,\"num_hidden_layers\":26,\"num_attention_heads\":4,\"num_key_"
        "value_heads\":1,"
        "\"head_dim\":256,\"vocab_size\":262144,\"sliding_window\":512,\"sliding_window_pattern\":"
        "6,"
        "\"query_pre_attn_scalar\":256,\"rope_theta\":1000000.0,\"rope_local_base_freq\":10000.0,"
        "\"hidden_activation\":\"gelu_pytorch_tanh\",\"rms_norm_eps\":1e-06}";
    REQUIRE_INT_EQ(ts_model_config_parse(gemma3_1b, strlen(gemma3_1b), "gemma-3-1b", &cfg, &err),
                   TS_OK);
    REQUIRE_INT_EQ(ts_model_config_kv_size(&cfg, 32768, &kv, &err), TS_OK);
    CHECK_INT_EQ(kv.local_layers, 22);
    CHECK_INT_EQ((int64_t)kv.elements, 512LL * (22 * 512 + 4 * 32768));
    CHECK_INT_EQ((int64_t)kv.full_elements, 512LL * 26 * 32768);
    double saved = (double)(kv.full_elements - kv.elements) / 32768.0;
    fprintf(stderr,
            "  gemma-3-1b at 32768 tokens: KV %.1f MB f32 / %.1f MB bf16 (full cache %.1f / %.1f "
            "MB), %.0f / %.0f bytes per token saved\n",
            4e-6 * (double)kv.elements, 2e-6 * (double)kv.elements, 4e-6 * (double)kv.full_elements,
            2e-6 * (double)kv.full_elements, 4 * saved, 2 * saved);
}

static void test_errors(void)
{
    ts_error err;
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/gemma3_text/model", NULL, &m, &err), TS_OK);
    ts_sequence *a = NULL, *b = NULL;
    CHECK_INT_EQ(ts_sequence_create_rows(m, 32, 7, &a, &err), TS_ERR_RANGE); /* under the window */
    CHECK_CONTAINS(err.message, "window is 8");
    CHECK_INT_EQ(ts_sequence_create_rows(m, 32, 33, &a, &err),
                 TS_ERR_RANGE); /* over the capacity */
    REQUIRE_INT_EQ(ts_sequence_create_rows(m, 32, 0, &a, &err), TS_OK);
    REQUIRE_INT_EQ(ts_sequence_create(m, 32, &b, &err), TS_OK);
    float *logits = malloc(sizeof(float) * 2 * (size_t)ts_model_vocab_size(m));
    int32_t t[2] = {5, 6};
    CHECK_INT_EQ(ts_model_prefill(m, a, t, 1, logits, &err), TS_OK);
    CHECK_INT_EQ(ts_model_prefill(m, b, t, 1, logits, &err), TS_OK);
    ts_sequence *both[2] = {a, b};
    CHECK_INT_EQ(ts_model_decode(m, both, t, 2, logits, &err),
                 TS_ERR_UNSUPPORTED); /* ring and full in one batch */
    CHECK_CONTAINS(err.message, "ring rows");
    CHECK_INT_EQ(ts_sequence_length(a), 1);
    CHECK_INT_EQ(ts_sequence_length(b), 1);
    CHECK(ts_sequence_cache_row(b, 0, false, 1) == NULL); /* not written yet */
    CHECK(ts_sequence_cache_row(b, 0, false, 0) != NULL);
    free(logits);
    ts_sequence_destroy(a);
    ts_sequence_destroy(b);
    ts_model_destroy(m);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    RUN(test_ring_matches_full_cache);
    RUN(test_ring_batched_decode);
    RUN(test_kv_size);
    RUN(test_errors);
    ts_context_destroy(ctx);
    return check_finish();
}
