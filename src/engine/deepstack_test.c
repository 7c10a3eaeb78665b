/* deepstack_test.c — Qwen3-VL's DeepStack on the language side
 * (ts_model_prefill_embeddings_deepstack).
 *
 * Against the qwen3_vl fixture: the reference's merged embeddings, M-RoPE positions and
 * deepstack_lm_k features at visual_pos_masks, prefilled whole and in 7-row chunks: every
 * post-add hidden state, every K/V element, the prefill logits of every row and the 16 greedy
 * tokens (max |ours − ref| ≤ 1e-4 × max(1, max |ref|) per tensor); dropping or zeroing the
 * features moves the logits past that bound. Against a plain-C forward written here (no graph):
 * known features after the first, middle and last layer (K = 3, declared by hand) and random ones
 * through the engine (K = 2), every layer's output, K/V and logits. Then every refusal with its
 * message (sequence unchanged), bit-identity of text, embeddings and decode steps with and without
 * DeepStack in use, identical printed modules when DeepStack is not declared, and a payload freed
 * right after the prefill (ASan: decode never reads it).
 */
#include "cpu/executor.h"
#include "engine/model.h"
#include "export/printer.h"
#include "export/reader.h"
#include "models/decoder.h"
#include "models/decoder_entries.h"
#include "check.h"

#include <math.h>

static ts_context *ctx;

/* The fixture the tests read: qwen3_vl, or qwen3_vl_moe for the MoE layers under DeepStack. */
#define FIXTURE "tests/fixtures/qwen3_vl"
static const char *fixture_dir = FIXTURE;

/* Compares n floats; prints the max error of every tensor; false past the tolerance. */
static bool close_enough(const char *what, const char *stage, const float *ours, const float *ref,
                         size_t n)
{
    double max_ref = 0, max_diff = 0;
    for (size_t i = 0; i < n; i++) {
        max_ref = fmax(max_ref, fabs(ref[i]));
        double d = fabs((double)ours[i] - ref[i]);
        if (!(d <= max_diff)) max_diff = isnan(d) ? INFINITY : d;
    }
    double tol = 1e-4 * fmax(1.0, max_ref);
    bool ok = max_diff <= tol;
    fprintf(stderr, "    %-8s %-22s max |ours - ref| %.3g (tol %.3g)%s\n", what, stage, max_diff,
            tol, ok ? "" : "  DIVERGES");
    return ok;
}

/* Largest |a − b| relative to the fixture tolerance for b (> 1: beyond it). */
static double past_tolerance(const float *a, const float *b, size_t n)
{
    double max_ref = 0, max_diff = 0;
    for (size_t i = 0; i < n; i++)
        max_ref = fmax(max_ref, fabs(b[i])), max_diff = fmax(max_diff, fabs((double)a[i] - b[i]));
    return max_diff / (1e-4 * fmax(1.0, max_ref));
}

/* ---------------------------------------------------------------- the fixture's inputs */

typedef struct {
    ts_model *m;
    ts_checkpoint *ref;
    int64_t n, h, vocab, layers, n_new, rope_delta;
    const float *embeds; /* [n, h] */
    int32_t *positions;  /* [3][n] */
    int32_t visual[256]; /* visual_pos_masks → row indices */
    int64_t nv;
    float *features; /* [K][nv][h] = deepstack_lm_k */
    int32_t levels[TS_MAX_DEEPSTACK];
    int k;
} fixture;

static const float *ref_floats(const fixture *f, const char *name)
{
    const ts_tensor_info *t = ts_checkpoint_find(f->ref, name);
    if (!t) fprintf(stderr, "reference has no %s\n", name);
    return t ? t->data : NULL;
}

static bool fixture_open(fixture *f)
{
    ts_error err;
    memset(f, 0, sizeof(*f));
    char model[160], reference[160];
    snprintf(model, sizeof(model), "%s/model", fixture_dir);
    snprintf(reference, sizeof(reference), "%s/reference.safetensors", fixture_dir);
    if (ts_model_load(ctx, model, NULL, &f->m, &err) != TS_OK || ts_checkpoint_open(reference, &f->ref, &err) != TS_OK) {
        fprintf(stderr, "%s: %s\n", fixture_dir, err.message);
        return false;
    }
    const ts_tensor_info *emb = ts_checkpoint_find(f->ref, "lm_inputs_embeds"),
                         *pos = ts_checkpoint_find(f->ref, "position_ids");
    const ts_tensor_info *mask = ts_checkpoint_find(f->ref, "visual_pos_masks"),
                         *delta = ts_checkpoint_find(f->ref, "rope_deltas");
    const ts_tensor_info *gen = ts_checkpoint_find(f->ref, "generated_ids");
    f->n = emb->shape[1];
    f->h = emb->shape[2];
    f->vocab = ts_model_vocab_size(f->m);
    f->layers = ts_model_get_config(f->m)->text.num_hidden_layers;
    f->n_new = gen->shape[0];
    f->rope_delta = ((const int64_t *)delta->data)[0];
    f->embeds = emb->data;
    f->positions = malloc(sizeof(int32_t) * (size_t)(3 * f->n));
    for (int64_t i = 0; i < 3 * f->n; i++)
        f->positions[i] = (int32_t)((const int64_t *)pos->data)[i];
    for (int64_t i = 0; i < f->n; i++)
        if (((const int64_t *)mask->data)[i]) f->visual[f->nv++] = (int32_t)i;
    int n_layers;
    const int32_t *levels = NULL;
    CHECK_INT_EQ(ts_model_side_inputs(f->m, &levels, &n_layers), TS_SIDE_DEEPSTACK);
    f->k = n_layers;
    memcpy(f->levels, levels, sizeof(int32_t) * (size_t)n_layers);
    f->features = malloc(sizeof(float) * (size_t)(f->k * f->nv * f->h));
    for (int i = 0; i < f->k; i++) {
        char name[32];
        snprintf(name, sizeof(name), "deepstack_lm_%d", i);
        const ts_tensor_info *t = ts_checkpoint_find(f->ref, name);
        if (!t || t->shape[0] != f->nv || t->shape[1] != f->h) return false;
        memcpy(f->features + i * f->nv * f->h, t->data, sizeof(float) * (size_t)(f->nv * f->h));
    }
    return true;
}

static void fixture_close(fixture *f)
{
    free(f->positions);
    free(f->features);
    ts_checkpoint_close(f->ref);
    ts_model_destroy(f->m);
}

static ts_deepstack fixture_payload(const fixture *f)
{
    return (ts_deepstack){f->visual, f->nv, f->features, f->levels, f->k};
}

/* The reference's KV of layer l ([kv_heads, n, head_dim]) from our cache ([capacity, kv_heads,
 * head_dim]). */
static void cache_as_reference(const fixture *f, const ts_sequence *seq, int l, bool value,
                               float *out)
{
    int64_t kvh = ts_model_kv_heads(f->m), hd = ts_model_head_dim(f->m);
    const float *cache = ts_sequence_cache(seq, l, value);
    for (int64_t hh = 0; hh < kvh; hh++)
        for (int64_t p = 0; p < f->n; p++)
            memcpy(out + (hh * f->n + p) * hd, cache + (p * kvh + hh) * hd,
                   sizeof(float) * (size_t)hd);
}

static bool check_kv(const fixture *f, const char *what, const ts_sequence *seq)
{
    int64_t kvh = ts_model_kv_heads(f->m), hd = ts_model_head_dim(f->m);
    float *kv = malloc(sizeof(float) * (size_t)(kvh * f->n * hd));
    bool ok = true;
    for (int l = 0; l < f->layers; l++)
        for (int value = 0; value < 2; value++) {
            char stage[48];
            snprintf(stage, sizeof(stage), "kv_%s_%d", value ? "value" : "key", l);
            cache_as_reference(f, seq, l, value, kv);
            const float *r = ref_floats(f, stage);
            ok &= r && close_enough(what, stage, kv, r, (size_t)(kvh * f->n * hd));
        }
    free(kv);
    return ok;
}

/* The fixture records hidden_state_l before the DeepStack add; ours is after it (the input of
 * layer l): the reference plus deepstack_lm_{l-1} at the visual rows, for 1 ≤ l ≤ K. */
static void reference_after_add(const fixture *f, int64_t l, float *out)
{
    char stage[48];
    snprintf(stage, sizeof(stage), "hidden_state_%lld", (long long)l);
    memcpy(out, ref_floats(f, stage), sizeof(float) * (size_t)(f->n * f->h));
    if (l < 1 || l > f->k || l == f->layers) return;
    const float *add = f->features + (l - 1) * f->nv * f->h;
    for (int64_t j = 0; j < f->nv; j++)
        for (int64_t c = 0; c < f->h; c++)
            out[f->visual[j] * f->h + c] += add[j * f->h + c];
}

/* 16 greedy tokens (EOS masked) and every decode step's logits from `last` on. */
static bool check_decode(const fixture *f, const char *what, ts_sequence *seq, const float *last)
{
    const ts_model_config *cfg = ts_model_get_config(f->m);
    const int64_t *gen = ts_checkpoint_find(f->ref, "generated_ids")->data;
    const float *dl = ref_floats(f, "decode_logits");
    float *step = malloc(sizeof(float) * (size_t)f->vocab), worst = 0;
    bool tokens = true;
    double worst_ratio = 0;
    memcpy(step, last, sizeof(float) * (size_t)f->vocab);
    ts_error err;
    for (int64_t i = 0; i < f->n_new; i++) {
        double r = past_tolerance(step, dl + i * f->vocab, (size_t)f->vocab);
        if (r > worst_ratio) worst_ratio = r;
        for (int64_t j = 0; j < f->vocab; j++)
            worst = fmaxf(worst, fabsf(step[j] - dl[i * f->vocab + j]));
        int32_t want = (int32_t)gen[i];
        tokens &=
            ts_argmax_masked(step, f->vocab, cfg->eos_token_ids, cfg->n_eos_token_ids) == want;
        if (i + 1 < f->n_new)
            CHECK_INT_EQ(ts_model_decode(f->m, &seq, &want, 1, step, &err), TS_OK);
    }
    fprintf(
        stderr,
        "    %-8s %-22s max |ours - ref| %.3g over %lld steps (%.2f of tol); greedy tokens %s\n",
        what, "decode_logits", (double)worst, (long long)f->n_new, worst_ratio,
        tokens ? "identical" : "DIFFER");
    free(step);
    return tokens && worst_ratio <= 1.0;
}

/* ---------------------------------------------------------------- (a) the fixture */

/* Whole prompt through the diagnostic (every hidden state, every row's logits), then decode. */
static void test_fixture_whole_prompt(void)
{
    fixture f;
    CHECK(fixture_open(&f));
    CHECK_INT_EQ(f.k, 2);
    CHECK_INT_EQ(f.nv, 54);
    ts_error err;
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(f.m, f.n + f.n_new, &seq, &err), TS_OK);
    float *logits = malloc(sizeof(float) * (size_t)(f.n * f.vocab)),
          **hid = malloc(sizeof(float *) * (size_t)(f.layers + 1));
    float *want = malloc(sizeof(float) * (size_t)(f.n * f.h));
    for (int64_t l = 0; l <= f.layers; l++)
        hid[l] = malloc(sizeof(float) * (size_t)(f.n * f.h));
    ts_deepstack ds = fixture_payload(&f);
    ts_diagnostic_prefill d = {.logits = logits,
                               .hidden = hid,
                               .embeddings = f.embeds,
                               .positions = f.positions,
                               .side = &(ts_side_inputs){TS_SIDE_DEEPSTACK, &ds, NULL}};
    CHECK_INT_EQ(ts_model_prefill_diagnostic(f.m, seq, NULL, (size_t)f.n, &d, &err), TS_OK);
    fprintf(stderr, "  %s, whole prompt (%lld rows, %lld visual, K = %d):\n", fixture_dir, (long long)f.n,
            (long long)f.nv, f.k);
    for (int64_t l = 0; l <= f.layers; l++) {
        char stage[48];
        snprintf(stage, sizeof(stage), "hidden_state_%lld%s", (long long)l,
                 l >= 1 && l <= f.k ? "+ds" : "");
        reference_after_add(&f, l, want);
        CHECK(close_enough("whole", stage, hid[l], want, (size_t)(f.n * f.h)));
    }
    CHECK(check_kv(&f, "whole", seq));
    CHECK(close_enough("whole", "prefill_logits", logits, ref_floats(&f, "prefill_logits"),
                       (size_t)(f.n * f.vocab)));
    ts_sequence_set_rope_delta(seq, f.rope_delta);
    CHECK(check_decode(&f, "whole", seq, logits + (f.n - 1) * f.vocab));
    for (int64_t l = 0; l <= f.layers; l++)
        free(hid[l]);
    free(hid), free(logits), free(want);
    ts_sequence_destroy(seq);
    fixture_close(&f);
}

/* The MoE variant: every hidden state, K/V, the prefill logits and the 16 tokens with its sparse
 * layers under DeepStack. */
static void test_moe_fixture_whole_prompt(void)
{
    fixture_dir = "tests/fixtures/qwen3_vl_moe";
    test_fixture_whole_prompt();
    fixture_dir = FIXTURE;
}

/* The public call; the payload lives in its own heap copies, freed as soon as the prefill
 * returns: the decode steps after it must not read it (ASan), and give the reference's tokens. */
static void test_fixture_public_call_payload_freed(void)
{
    fixture f;
    CHECK(fixture_open(&f));
    ts_error err;
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(f.m, f.n + f.n_new, &seq, &err), TS_OK);
    int32_t *visual = malloc(sizeof(int32_t) * (size_t)f.nv),
            *levels = malloc(sizeof(int32_t) * (size_t)f.k);
    float *features = malloc(sizeof(float) * (size_t)(f.k * f.nv * f.h)),
          *logits = malloc(sizeof(float) * (size_t)f.vocab);
    memcpy(visual, f.visual, sizeof(int32_t) * (size_t)f.nv);
    memcpy(levels, f.levels, sizeof(int32_t) * (size_t)f.k);
    memcpy(features, f.features, sizeof(float) * (size_t)(f.k * f.nv * f.h));
    ts_deepstack *ds = malloc(sizeof(*ds));
    *ds = (ts_deepstack){visual, f.nv, features, levels, f.k};
    CHECK_INT_EQ(
        ts_model_prefill_embeddings(f.m, seq, f.embeds, (size_t)f.n, f.positions, f.rope_delta,
                                    &(ts_side_inputs){TS_SIDE_DEEPSTACK, ds, NULL}, logits, &err),
        TS_OK);
    free(visual), free(levels), free(features), free(ds);
    fprintf(stderr, "  qwen3_vl, public call, payload freed after the prefill:\n");
    CHECK_INT_EQ(ts_sequence_length(seq), f.n);
    CHECK(close_enough("public", "prefill_last_logits", logits,
                       ref_floats(&f, "prefill_last_logits"), (size_t)f.vocab));
    CHECK(check_kv(&f, "public", seq));
    CHECK(check_decode(&f, "public", seq, logits));
    free(logits);
    ts_sequence_destroy(seq);
    fixture_close(&f);
}

/* A chunk's payload: the visual rows inside [at, at + rows), relative to `at`, and those rows of
 * every level. */
static ts_deepstack chunk_payload(const fixture *f, int64_t at, int64_t rows, int32_t *visual,
                                  float *features)
{
    int64_t first = 0, nv = 0;
    while (first < f->nv && f->visual[first] < at)
        first++;
    while (first + nv < f->nv && f->visual[first + nv] < at + rows)
        visual[nv] = (int32_t)(f->visual[first + nv] - at), nv++;
    for (int i = 0; i < f->k; i++)
        memcpy(features + i * nv * f->h, f->features + (i * f->nv + first) * f->h,
               sizeof(float) * (size_t)(nv * f->h));
    return (ts_deepstack){visual, nv, features, f->levels, f->k};
}

/* 7 rows at a time (chunks with no visual rows, some partly visual, some all visual): the same
 * hidden states, K/V, logits of every row and tokens. Then the public call in 7-row chunks. */
static void test_fixture_chunked(void)
{
    fixture f;
    CHECK(fixture_open(&f));
    ts_error err;
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(f.m, f.n + f.n_new, &seq, &err), TS_OK);
    enum { CHUNK = 7 };
    float *logits = malloc(sizeof(float) * (size_t)(f.n * f.vocab)),
          **hid = malloc(sizeof(float *) * (size_t)(f.layers + 1));
    float *chunk_hid[TS_MAX_LAYERS + 1], *want = malloc(sizeof(float) * (size_t)(f.n * f.h));
    for (int64_t l = 0; l <= f.layers; l++) {
        hid[l] = malloc(sizeof(float) * (size_t)(f.n * f.h));
        chunk_hid[l] = malloc(sizeof(float) * (size_t)(CHUNK * f.h));
    }
    int32_t visual[CHUNK], pos[3 * CHUNK];
    float *features = malloc(sizeof(float) * (size_t)(f.k * CHUNK * f.h));
    int kinds[3] = {0}; /* chunks with none, some, all rows visual */
    for (int64_t at = 0; at < f.n; at += CHUNK) {
        int64_t rows = f.n - at < CHUNK ? f.n - at : CHUNK;
        ts_deepstack ds = chunk_payload(&f, at, rows, visual, features);
        kinds[ds.n_visual == 0 ? 0 : ds.n_visual < rows ? 1 : 2]++;
        for (int r = 0; r < 3; r++)
            memcpy(pos + r * rows, f.positions + r * f.n + at, sizeof(int32_t) * (size_t)rows);
        ts_diagnostic_prefill d = {.logits = logits + at * f.vocab,
                                   .hidden = chunk_hid,
                                   .embeddings = f.embeds + at * f.h,
                                   .positions = pos,
                                   .side = &(ts_side_inputs){TS_SIDE_DEEPSTACK, &ds, NULL}};
        CHECK_INT_EQ(ts_model_prefill_diagnostic(f.m, seq, NULL, (size_t)rows, &d, &err), TS_OK);
        for (int64_t l = 0; l <= f.layers; l++)
            memcpy(hid[l] + at * f.h, chunk_hid[l], sizeof(float) * (size_t)(rows * f.h));
    }
    CHECK(kinds[0] > 0 && kinds[1] > 0 && kinds[2] > 0);
    fprintf(stderr,
            "  qwen3_vl, %d-row chunks (%d without visual rows, %d partly, %d all visual):\n",
            CHUNK, kinds[0], kinds[1], kinds[2]);
    for (int64_t l = 0; l <= f.layers; l++) {
        char stage[48];
        snprintf(stage, sizeof(stage), "hidden_state_%lld%s", (long long)l,
                 l >= 1 && l <= f.k ? "+ds" : "");
        reference_after_add(&f, l, want);
        CHECK(close_enough("chunked", stage, hid[l], want, (size_t)(f.n * f.h)));
    }
    CHECK(check_kv(&f, "chunked", seq));
    CHECK(close_enough("chunked", "prefill_logits", logits, ref_floats(&f, "prefill_logits"),
                       (size_t)(f.n * f.vocab)));
    ts_sequence_set_rope_delta(seq, f.rope_delta);
    CHECK(check_decode(&f, "chunked", seq, logits + (f.n - 1) * f.vocab));

    /* The public call, chunk by chunk, the rope delta given with each. */
    ts_sequence_reset(seq);
    float *last = malloc(sizeof(float) * (size_t)f.vocab);
    for (int64_t at = 0; at < f.n; at += CHUNK) {
        int64_t rows = f.n - at < CHUNK ? f.n - at : CHUNK;
        ts_deepstack ds = chunk_payload(&f, at, rows, visual, features);
        for (int r = 0; r < 3; r++)
            memcpy(pos + r * rows, f.positions + r * f.n + at, sizeof(int32_t) * (size_t)rows);
        CHECK_INT_EQ(ts_model_prefill_embeddings(
                         f.m, seq, f.embeds + at * f.h, (size_t)rows, pos, f.rope_delta,
                         &(ts_side_inputs){TS_SIDE_DEEPSTACK, &ds, NULL}, last, &err),
                     TS_OK);
    }
    CHECK(close_enough("chunked", "prefill_last_logits", last,
                       ref_floats(&f, "prefill_last_logits"), (size_t)f.vocab));
    CHECK(check_kv(&f, "chunked", seq));
    CHECK(check_decode(&f, "chunked", seq, last));
    for (int64_t l = 0; l <= f.layers; l++)
        free(hid[l]), free(chunk_hid[l]);
    free(hid), free(logits), free(want), free(features), free(last);
    ts_sequence_destroy(seq);
    fixture_close(&f);
}

/* The same 7-row chunks cut by ts_mm_inputs_slice (what the server's scheduler prefills) from the
 * whole prompt's inputs: each cut is exactly the chunk's rows, positions and DeepStack payload
 * (visual positions relative to the chunk), and prefilled through the side inputs it gives they
 * reach the reference's logits and K/V. An unknown side-input kind is refused before anything
 * runs. */
static void test_fixture_chunked_by_slice(void)
{
    fixture f;
    CHECK(fixture_open(&f));
    ts_error err;
    ts_sequence *seq;
    CHECK_INT_EQ(ts_sequence_create(f.m, f.n + f.n_new, &seq, &err), TS_OK);
    /* A view of the fixture's inputs as ts_mm_inputs_build lays them out (not freed: borrowed). */
    ts_mm_inputs whole = {.n = (size_t)f.n,
                          .hidden = f.h,
                          .embeddings = (float *)f.embeds,
                          .positions = f.positions,
                          .position_rows = 3,
                          .rope_delta = f.rope_delta,
                          .side_kind = TS_SIDE_DEEPSTACK,
                          .deepstack = fixture_payload(&f)};
    enum { CHUNK = 7 };
    int32_t visual[CHUNK], pos[3 * CHUNK];
    float *features = malloc(sizeof(float) * (size_t)(f.k * CHUNK * f.h)),
          *last = malloc(sizeof(float) * (size_t)f.vocab);
    float *logits = malloc(sizeof(float) * (size_t)f.vocab);
    ts_side_inputs bogus = {(ts_side_kind)7, NULL, NULL};
    CHECK_INT_EQ(ts_model_prefill_embeddings(f.m, seq, f.embeds, CHUNK, f.positions, 0, &bogus,
                                             logits, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "side inputs of unknown kind 7");
    CHECK_INT_EQ(ts_sequence_length(seq), 0);
    int exact = 0, chunks = 0;
    for (int64_t at = 0; at < f.n; at += CHUNK, chunks++) {
        int64_t rows = f.n - at < CHUNK ? f.n - at : CHUNK;
        ts_deepstack want = chunk_payload(&f, at, rows, visual, features);
        for (int r = 0; r < 3; r++)
            memcpy(pos + r * rows, f.positions + r * f.n + at, sizeof(int32_t) * (size_t)rows);
        ts_mm_inputs cut;
        CHECK_INT_EQ(ts_mm_inputs_slice(&whole, (size_t)at, (size_t)rows, &cut, &err), TS_OK);
        const ts_deepstack *got = &cut.deepstack;
        bool same =
            cut.n == (size_t)rows && cut.position_rows == 3 && cut.rope_delta == f.rope_delta &&
            cut.side_kind == TS_SIDE_DEEPSTACK && got->n_visual == want.n_visual &&
            got->n_layers == f.k && got->layer_indices == whole.deepstack.layer_indices &&
            !memcmp(cut.positions, pos, sizeof(int32_t) * (size_t)(3 * rows)) &&
            !memcmp(cut.embeddings, f.embeds + at * f.h, sizeof(float) * (size_t)(rows * f.h)) &&
            (!want.n_visual ||
             (!memcmp(got->visual_positions, visual, sizeof(int32_t) * (size_t)want.n_visual) &&
              !memcmp(got->layer_features, features,
                      sizeof(float) * (size_t)(f.k * want.n_visual * f.h))));
        CHECK(same);
        exact += same;
        ts_side_inputs side = ts_mm_inputs_side(&cut);
        CHECK_INT_EQ(ts_model_prefill_embeddings(f.m, seq, cut.embeddings, cut.n, cut.positions,
                                                 cut.rope_delta, &side, last, &err),
                     TS_OK);
        ts_mm_inputs_free(&cut);
    }
    ts_mm_inputs past;
    CHECK_INT_EQ(ts_mm_inputs_slice(&whole, (size_t)f.n - 2, 3, &past, &err), TS_ERR_RANGE);
    fprintf(stderr, "  qwen3_vl, %d slices of %d rows: %d exactly the chunk's inputs\n", chunks,
            CHUNK, exact);
    CHECK_INT_EQ(exact, chunks);
    CHECK_INT_EQ(ts_sequence_length(seq), f.n);
    CHECK(close_enough("sliced", "prefill_last_logits", last, ref_floats(&f, "prefill_last_logits"),
                       (size_t)f.vocab));
    CHECK(check_kv(&f, "sliced", seq));
    free(features), free(last), free(logits);
    ts_sequence_destroy(seq);
    fixture_close(&f);
}

/* ---------------------------------------------------------------- (b) negative control */

/* Without the features (an empty payload) or with zero features, the logits leave the reference
 * by far more than the tolerance: the fixture test above can fail. */
static void test_fixture_without_features_diverges(void)
{
    fixture f;
    CHECK(fixture_open(&f));
    ts_error err;
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(f.m, f.n, &seq, &err), TS_OK);
    float *logits = malloc(sizeof(float) * (size_t)f.vocab);
    const float *ref = ref_floats(&f, "prefill_last_logits");
    ts_deepstack dropped = {NULL, 0, NULL, f.levels, f.k};
    CHECK_INT_EQ(ts_model_prefill_embeddings(
                     f.m, seq, f.embeds, (size_t)f.n, f.positions, f.rope_delta,
                     &(ts_side_inputs){TS_SIDE_DEEPSTACK, &dropped, NULL}, logits, &err),
                 TS_OK);
    double r_dropped = past_tolerance(logits, ref, (size_t)f.vocab);
    memset(f.features, 0, sizeof(float) * (size_t)(f.k * f.nv * f.h));
    ts_deepstack zero = fixture_payload(&f);
    ts_sequence_reset(seq);
    CHECK_INT_EQ(ts_model_prefill_embeddings(
                     f.m, seq, f.embeds, (size_t)f.n, f.positions, f.rope_delta,
                     &(ts_side_inputs){TS_SIDE_DEEPSTACK, &zero, NULL}, logits, &err),
                 TS_OK);
    double r_zero = past_tolerance(logits, ref, (size_t)f.vocab);
    fprintf(stderr,
            "  negative control: last logits off by %.0f× the tolerance without features, %.0f× "
            "with zero features\n",
            r_dropped, r_zero);
    CHECK(r_dropped > 10);
    CHECK(r_zero > 10);
    free(logits);
    ts_sequence_destroy(seq);
    fixture_close(&f);
}

/* ---------------------------------------------------------------- (c) against a plain forward */

/* The Qwen3-VL language model written out in plain C from the checkpoint, as
 * Qwen3VLTextModel.forward reads (RMSNorm, q/k/v, per-head q/k RMSNorm, interleaved M-RoPE,
 * causal GQA attention, o_proj, SiLU-gated MLP; after layer targets[i] the visual rows get
 * features[i]); rotary frequencies and angles in double. No graph, no kernel of ours. */
typedef struct {
    const ts_model_config *cfg;
    ts_checkpoint *ck;
    int64_t h, layers, hq, hkv, d, inter, vocab;
    double eps;
} plain_model;

static const float *plain_weight(const plain_model *pm, const char *fmt, int layer)
{
    char name[160], inner[128];
    snprintf(inner, sizeof(inner), fmt, layer);
    snprintf(name, sizeof(name), "model.language_model.%s", inner);
    const ts_tensor_info *t = ts_checkpoint_find(pm->ck, name);
    if (!t || t->dtype != TS_DTYPE_F32) fprintf(stderr, "plain forward: no f32 %s\n", name);
    return t ? t->data : NULL;
}

static void plain_rms_norm(const float *x, int64_t rows, int64_t n, const float *w, double eps,
                           float *y)
{
    for (int64_t r = 0; r < rows; r++) {
        double ss = 0;
        for (int64_t i = 0; i < n; i++)
            ss += (double)x[r * n + i] * x[r * n + i];
        double inv = 1.0 / sqrt(ss / (double)n + eps);
        for (int64_t i = 0; i < n; i++)
            y[r * n + i] = (float)(w[i] * (x[r * n + i] * inv));
    }
}

/* y[rows, out] = x[rows, in] · w[out, in]ᵀ */
static void plain_linear(const float *x, int64_t rows, int64_t in, const float *w, int64_t out,
                         float *y)
{
    for (int64_t r = 0; r < rows; r++)
        for (int64_t o = 0; o < out; o++) {
            double s = 0;
            for (int64_t i = 0; i < in; i++)
                s += (double)x[r * in + i] * w[o * in + i];
            y[r * out + o] = (float)s;
        }
}

/* Interleaved M-RoPE (apply_interleaved_mrope): column j takes T, or H at j ≡ 1 (mod 3) below
 * 3·section[1], or W at j ≡ 2 below 3·section[2]; then rotate_half. x is [n, heads, d]. */
static void plain_rope(const plain_model *pm, float *x, int64_t n, int64_t heads,
                       const int32_t *pos)
{
    int64_t half = pm->d / 2;
    const int *sec = pm->cfg->text.mrope_section;
    for (int64_t t = 0; t < n; t++)
        for (int64_t j = 0; j < half; j++) {
            int axis = (j % 3 == 1 && j < 3 * sec[1]) ? 1 : (j % 3 == 2 && j < 3 * sec[2]) ? 2 : 0;
            double inv = 1.0 / pow(pm->cfg->text.rope_theta, (double)(2 * j) / (double)pm->d);
            double a = pos[axis * n + t] * inv, c = cos(a), s = sin(a);
            for (int64_t hh = 0; hh < heads; hh++) {
                float *v = x + (t * heads + hh) * pm->d;
                double x1 = v[j], x2 = v[j + half];
                v[j] = (float)(x1 * c - x2 * s);
                v[j + half] = (float)(x2 * c + x1 * s);
            }
        }
}

/* hidden[l] (l = 0 … layers; the last after the final norm), k/v[l] [n, hkv, d], logits [n, vocab].
 */
static void plain_forward(const plain_model *pm, const float *embeds, int64_t n, const int32_t *pos,
                          const int32_t *targets, int k, const int32_t *visual, int64_t nv,
                          const float *features, float **hidden, float **keys, float **values,
                          float *logits)
{
    int64_t H = pm->h, D = pm->d, HQ = pm->hq, HKV = pm->hkv, I = pm->inter;
    float *h = malloc(sizeof(float) * (size_t)(n * H)),
          *x = malloc(sizeof(float) * (size_t)(n * H));
    float *q = malloc(sizeof(float) * (size_t)(n * HQ * D)),
          *att = malloc(sizeof(float) * (size_t)(n * HQ * D));
    float *o = malloc(sizeof(float) * (size_t)(n * H)),
          *g = malloc(sizeof(float) * (size_t)(n * I)),
          *u = malloc(sizeof(float) * (size_t)(n * I));
    double *scores = malloc(sizeof(double) * (size_t)n);
    memcpy(h, embeds, sizeof(float) * (size_t)(n * H));
    memcpy(hidden[0], h, sizeof(float) * (size_t)(n * H));
    int next = 0;
    for (int l = 0; l < pm->layers; l++) {
        plain_rms_norm(h, n, H, plain_weight(pm, "layers.%d.input_layernorm.weight", l), pm->eps,
                       x);
        plain_linear(x, n, H, plain_weight(pm, "layers.%d.self_attn.q_proj.weight", l), HQ * D, q);
        plain_linear(x, n, H, plain_weight(pm, "layers.%d.self_attn.k_proj.weight", l), HKV * D,
                     keys[l]);
        plain_linear(x, n, H, plain_weight(pm, "layers.%d.self_attn.v_proj.weight", l), HKV * D,
                     values[l]);
        plain_rms_norm(q, n * HQ, D, plain_weight(pm, "layers.%d.self_attn.q_norm.weight", l),
                       pm->eps, q);
        plain_rms_norm(keys[l], n * HKV, D,
                       plain_weight(pm, "layers.%d.self_attn.k_norm.weight", l), pm->eps, keys[l]);
        plain_rope(pm, q, n, HQ, pos);
        plain_rope(pm, keys[l], n, HKV, pos);
        for (int64_t t = 0; t < n; t++)
            for (int64_t hh = 0; hh < HQ; hh++) {
                int64_t kh = hh / (HQ / HKV);
                double top = -INFINITY, sum = 0;
                for (int64_t s = 0; s <= t; s++) {
                    double dot = 0;
                    for (int64_t c = 0; c < D; c++)
                        dot += (double)q[(t * HQ + hh) * D + c] * keys[l][(s * HKV + kh) * D + c];
                    scores[s] = dot / sqrt((double)D);
                    top = fmax(top, scores[s]);
                }
                for (int64_t s = 0; s <= t; s++)
                    sum += scores[s] = exp(scores[s] - top);
                for (int64_t c = 0; c < D; c++) {
                    double acc = 0;
                    for (int64_t s = 0; s <= t; s++)
                        acc += scores[s] * values[l][(s * HKV + kh) * D + c];
                    att[(t * HQ + hh) * D + c] = (float)(acc / sum);
                }
            }
        plain_linear(att, n, HQ * D, plain_weight(pm, "layers.%d.self_attn.o_proj.weight", l), H,
                     o);
        for (int64_t i = 0; i < n * H; i++)
            h[i] += o[i];
        plain_rms_norm(h, n, H, plain_weight(pm, "layers.%d.post_attention_layernorm.weight", l),
                       pm->eps, x);
        plain_linear(x, n, H, plain_weight(pm, "layers.%d.mlp.gate_proj.weight", l), I, g);
        plain_linear(x, n, H, plain_weight(pm, "layers.%d.mlp.up_proj.weight", l), I, u);
        for (int64_t i = 0; i < n * I; i++)
            g[i] = (float)((double)g[i] / (1.0 + exp(-(double)g[i])) * u[i]);
        plain_linear(g, n, I, plain_weight(pm, "layers.%d.mlp.down_proj.weight", l), H, o);
        for (int64_t i = 0; i < n * H; i++)
            h[i] += o[i];
        if (next < k && targets[next] == l) {
            for (int64_t j = 0; j < nv; j++)
                for (int64_t c = 0; c < H; c++)
                    h[visual[j] * H + c] += features[(next * nv + j) * H + c];
            next++;
        }
        memcpy(hidden[l + 1], h, sizeof(float) * (size_t)(n * H));
    }
    plain_rms_norm(h, n, H, plain_weight(pm, "norm.weight", 0), pm->eps, hidden[pm->layers]);
    plain_linear(hidden[pm->layers], n, H, plain_weight(pm, "embed_tokens.weight", 0), pm->vocab,
                 logits);
    free(h), free(x), free(q), free(att), free(o), free(g), free(u), free(scores);
}

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* A prompt of n rows: random embeddings (scale of the fixture's), 3-axis positions (text, then a
 * 2×3 image grid, then text), visual rows given. */
typedef struct {
    int64_t n, nv;
    float *embeds;
    int32_t *pos;
    int32_t visual[16];
    float *features; /* [k][nv][h] */
} plain_case;

static void plain_case_make(plain_case *c, int64_t h, int k, uint32_t seed, bool known)
{
    static const int32_t visual[] = {0, 3, 4, 5, 6, 7, 8, 11};
    c->n = 12;
    c->nv = 8;
    memcpy(c->visual, visual, sizeof(visual));
    c->embeds = malloc(sizeof(float) * (size_t)(c->n * h));
    c->pos = malloc(sizeof(int32_t) * (size_t)(3 * c->n));
    c->features = malloc(sizeof(float) * (size_t)(k * c->nv * h));
    for (int64_t i = 0; i < c->n * h; i++)
        c->embeds[i] = ((float)(lcg(&seed) % 2001) - 1000.0f) / 4000.0f;
    /* t: 0,1,2, image rows at t = 3 over a 2×3 grid, then text from 6; the row-0 "visual" row is a
     * lone patch at 0 (the graph does not care what a visual row is). */
    for (int64_t i = 0; i < c->n; i++) {
        int32_t t = (int32_t)i, hh = (int32_t)i, w = (int32_t)i;
        if (i >= 3 && i < 9)
            t = 3, hh = 3 + (int32_t)(i - 3) / 3, w = 3 + (int32_t)(i - 3) % 3;
        else if (i >= 9)
            t = hh = w = (int32_t)i - 3;
        c->pos[i] = t, c->pos[c->n + i] = hh, c->pos[2 * c->n + i] = w;
    }
    /* Known features: level i is 10·(i+1) plus a small per-row, per-column ramp. */
    for (int i = 0; i < k; i++)
        for (int64_t j = 0; j < c->nv; j++)
            for (int64_t col = 0; col < h; col++)
                c->features[(i * c->nv + j) * h + col] =
                    known ? 10.0f * (float)(i + 1) + 0.01f * (float)j - 0.001f * (float)col
                          : ((float)(lcg(&seed) % 2001) - 1000.0f) / 500.0f;
}

static void plain_case_free(plain_case *c)
{
    free(c->embeds), free(c->pos), free(c->features);
}

typedef struct {
    float **hidden, **keys, **values, *logits;
} plain_outputs;

static void plain_outputs_alloc(plain_outputs *o, const plain_model *pm, int64_t n)
{
    o->hidden = malloc(sizeof(float *) * (size_t)(pm->layers + 1));
    o->keys = malloc(sizeof(float *) * (size_t)pm->layers);
    o->values = malloc(sizeof(float *) * (size_t)pm->layers);
    for (int64_t l = 0; l <= pm->layers; l++)
        o->hidden[l] = malloc(sizeof(float) * (size_t)(n * pm->h));
    for (int64_t l = 0; l < pm->layers; l++) {
        o->keys[l] = malloc(sizeof(float) * (size_t)(n * pm->hkv * pm->d));
        o->values[l] = malloc(sizeof(float) * (size_t)(n * pm->hkv * pm->d));
    }
    o->logits = malloc(sizeof(float) * (size_t)(n * pm->vocab));
}

static void plain_outputs_free(plain_outputs *o, const plain_model *pm)
{
    for (int64_t l = 0; l <= pm->layers; l++)
        free(o->hidden[l]);
    for (int64_t l = 0; l < pm->layers; l++)
        free(o->keys[l]), free(o->values[l]);
    free(o->hidden), free(o->keys), free(o->values), free(o->logits);
}

static bool plain_model_open(plain_model *pm, const ts_model *m)
{
    ts_error err;
    pm->cfg = ts_model_get_config(m);
    if (ts_checkpoint_open(FIXTURE "/model", &pm->ck, &err) != TS_OK) return false;
    const ts_text_config *t = &pm->cfg->text;
    pm->h = t->hidden_size, pm->layers = t->num_hidden_layers, pm->hq = t->num_attention_heads,
    pm->hkv = t->num_key_value_heads;
    pm->d = t->head_dim, pm->inter = t->intermediate_size, pm->vocab = t->vocab_size,
    pm->eps = t->rms_norm_eps;
    return true;
}

static const ts_tensor_info *find_in(void *self, const char *name, int rank, const int64_t *dims)
{
    (void)rank, (void)dims;
    return ts_checkpoint_find(self, name);
}

/* Known features after the first, middle and last of the 3 layers (K = 3, declared by hand on
 * the step graph; the config says K = 2): every post-add hidden state, every K/V element and the
 * logits of every row equal the plain forward's; the hooked rows hold their pre-add value plus
 * the feature. Then the same graph printed, read back and run again: bit-identical. */
static void test_graph_first_middle_last_layers(void)
{
    ts_error err;
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, FIXTURE "/model", NULL, &m, &err), TS_OK);
    plain_model pm;
    CHECK(plain_model_open(&pm, m));
    ts_decoder_spec spec;
    REQUIRE_INT_EQ(ts_decoder_spec_init(pm.cfg, &spec, &err), TS_OK);
    spec.n_deepstack = 3;
    int32_t targets[3] = {0, 1, 2};
    memcpy(spec.deepstack_layers, targets, sizeof(targets));
    plain_case c;
    plain_case_make(&c, pm.h, 3, 7, true);
    int64_t cap = c.n + 4;
    ts_step_shape shape = {.n_seqs = 1,
                           .n_tokens = {c.n},
                           .capacity = cap,
                           .kv_dtype = TS_DTYPE_F32,
                           .all_logits = true,
                           .hidden_states = true,
                           .from_embeddings = true,
                           .n_visual = c.nv};
    ts_graph *g;
    ts_graph_create(&g, &err);
    ts_weight_source src = {find_in, pm.ck};
    REQUIRE_INT_EQ(ts_decoder_build(g, &spec, &src, &shape, &err), TS_OK);
    int scatters = 0;
    for (int32_t i = 0; i < g->n_nodes; i++)
        scatters += g->nodes[i].op == TS_OP_SCATTER_ADD;
    CHECK_INT_EQ(scatters, 3);
    ts_program *prog;
    REQUIRE_INT_EQ(ts_program_create(g, ctx, &prog, &err), TS_OK);
    void **params = calloc((size_t)g->n_parameters, sizeof(void *));
    int32_t first = ts_decoder_first_input(g), starts[1] = {0};
    for (int32_t i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].op == TS_OP_PARAMETER &&
            g->nodes[i].attrs.parameter.role == TS_PARAM_WEIGHT)
            params[g->nodes[i].attrs.parameter.index] =
                (void *)ts_checkpoint_find(pm.ck, g->nodes[i].name)->data;
    size_t cache_floats = (size_t)(cap * pm.hkv * pm.d);
    float *caches = calloc(cache_floats * 2 * (size_t)pm.layers, sizeof(float));
    int32_t k = first;
    params[k++] = c.embeds, params[k++] = c.pos, params[k++] = starts, params[k++] = c.visual,
    params[k++] = c.features;
    for (int64_t l = 0; l < 2 * pm.layers; l++)
        params[k++] = caches + (size_t)l * cache_floats;
    CHECK_INT_EQ(k, g->n_parameters);
    const void **outs = calloc((size_t)g->n_outputs, sizeof(void *));
    CHECK_INT_EQ(ts_program_run(prog, params, outs, &err), TS_OK);

    plain_outputs want;
    plain_outputs_alloc(&want, &pm, c.n);
    plain_forward(&pm, c.embeds, c.n, c.pos, targets, 3, c.visual, c.nv, c.features, want.hidden,
                  want.keys, want.values, want.logits);
    fprintf(stderr,
            "  graph, K = 3 after layers 0, 1, 2 (known features), vs the plain forward:\n");
    CHECK(close_enough("graph", "logits", outs[0], want.logits, (size_t)(c.n * pm.vocab)));
    for (int64_t l = 0; l < pm.layers; l++)
        for (int v = 0; v < 2; v++) {
            char stage[48];
            snprintf(stage, sizeof(stage), "kv_%s_%lld", v ? "value" : "key", (long long)l);
            CHECK(close_enough("graph", stage, outs[1 + 2 * l + v],
                               v ? want.values[l] : want.keys[l], (size_t)(c.n * pm.hkv * pm.d)));
        }
    int64_t first_hidden = 1 + 2 * pm.layers;
    for (int64_t l = 0; l <= pm.layers; l++) {
        char stage[48];
        snprintf(stage, sizeof(stage), "hidden_state_%lld", (long long)l);
        CHECK(close_enough("graph", stage, outs[first_hidden + l], want.hidden[l],
                           (size_t)(c.n * pm.h)));
    }
    /* Row-exact: after a hooked layer, a visual row is that layer's output plus its feature. The
     * output of layer 0 alone (before its add) comes from a graph without DeepStack. */
    ts_graph *plain_g;
    ts_graph_create(&plain_g, &err);
    ts_step_shape plain_shape = shape;
    plain_shape.n_visual = 0;
    REQUIRE_INT_EQ(ts_decoder_build(plain_g, &spec, &src, &plain_shape, &err), TS_OK);
    ts_program *plain_prog;
    REQUIRE_INT_EQ(ts_program_create(plain_g, ctx, &plain_prog, &err), TS_OK);
    float *caches2 = calloc(cache_floats * 2 * (size_t)pm.layers, sizeof(float));
    k = first;
    params[k++] = c.embeds, params[k++] = c.pos, params[k++] = starts;
    for (int64_t l = 0; l < 2 * pm.layers; l++)
        params[k++] = caches2 + (size_t)l * cache_floats;
    const void **plain_outs = calloc((size_t)plain_g->n_outputs, sizeof(void *));
    CHECK_INT_EQ(ts_program_run(plain_prog, params, plain_outs, &err), TS_OK);
    const float *layer0 = plain_outs[first_hidden + 1], *hooked = outs[first_hidden + 1];
    bool exact = true;
    for (int64_t r = 0, j = 0; r < c.n; r++) {
        bool vis = j < c.nv && c.visual[j] == r;
        for (int64_t col = 0; col < pm.h; col++) {
            float expect =
                vis ? layer0[r * pm.h + col] + c.features[j * pm.h + col] : layer0[r * pm.h + col];
            exact &= memcmp(&expect, &hooked[r * pm.h + col], sizeof(float)) == 0;
        }
        j += vis;
    }
    CHECK(exact);
    /* The layer-0 K/V do not see the add; layer 1's do. */
    CHECK(memcmp(caches, caches2, sizeof(float) * (size_t)(c.n * pm.hkv * pm.d)) == 0);
    CHECK(memcmp(caches + 2 * cache_floats, caches2 + 2 * cache_floats,
                 sizeof(float) * (size_t)(c.n * pm.hkv * pm.d)) != 0);

    /* Printed, read back, planned and run: the same bits. */
    char *text;
    size_t len;
    CHECK_INT_EQ(ts_stablehlo_print(g, "deepstack", &text, &len, &err), TS_OK);
    CHECK(strstr(text, "stablehlo.scatter") != NULL);
    ts_graph *back;
    REQUIRE_INT_EQ(ts_stablehlo_read(text, len, "deepstack", &back, &err), TS_OK);
    ts_program *back_prog;
    REQUIRE_INT_EQ(ts_program_create(back, ctx, &back_prog, &err), TS_OK);
    memset(caches2, 0, cache_floats * 2 * (size_t)pm.layers * sizeof(float));
    k = first;
    params[k++] = c.embeds, params[k++] = c.pos, params[k++] = starts, params[k++] = c.visual,
    params[k++] = c.features;
    for (int64_t l = 0; l < 2 * pm.layers; l++)
        params[k++] = caches2 + (size_t)l * cache_floats;
    const void **back_outs = calloc((size_t)back->n_outputs, sizeof(void *));
    CHECK_INT_EQ(ts_program_run(back_prog, params, back_outs, &err), TS_OK);
    CHECK(memcmp(back_outs[0], outs[0], sizeof(float) * (size_t)(c.n * pm.vocab)) == 0);
    CHECK(memcmp(caches, caches2, sizeof(float) * cache_floats * 2 * (size_t)pm.layers) == 0);

    free(text), free(back_outs), free(plain_outs), free(outs), free(params), free(caches),
        free(caches2);
    ts_program_destroy(back_prog), ts_program_destroy(plain_prog), ts_program_destroy(prog);
    ts_graph_destroy(back), ts_graph_destroy(plain_g), ts_graph_destroy(g);
    plain_outputs_free(&want, &pm);
    plain_case_free(&c);
    ts_checkpoint_close(pm.ck);
    ts_model_destroy(m);
}

/* Random features through the engine (the configured K = 2, layers 0 and 1): every hidden
 * state, K/V and logits equal the plain forward's. */
static void test_engine_random_features(void)
{
    ts_error err;
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, FIXTURE "/model", NULL, &m, &err), TS_OK);
    plain_model pm;
    CHECK(plain_model_open(&pm, m));
    int k;
    const int32_t *targets = NULL;
    CHECK_INT_EQ(ts_model_side_inputs(m, &targets, &k), TS_SIDE_DEEPSTACK);
    CHECK_INT_EQ(k, 2);
    CHECK(targets && targets[0] == 0 && targets[1] == 1);
    plain_case c;
    plain_case_make(&c, pm.h, k, 99, false);
    plain_outputs want;
    plain_outputs_alloc(&want, &pm, c.n);
    plain_forward(&pm, c.embeds, c.n, c.pos, targets, k, c.visual, c.nv, c.features, want.hidden,
                  want.keys, want.values, want.logits);
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(m, c.n, &seq, &err), TS_OK);
    float *logits = malloc(sizeof(float) * (size_t)(c.n * pm.vocab)),
          **hid = malloc(sizeof(float *) * (size_t)(pm.layers + 1));
    for (int64_t l = 0; l <= pm.layers; l++)
        hid[l] = malloc(sizeof(float) * (size_t)(c.n * pm.h));
    ts_deepstack ds = {c.visual, c.nv, c.features, targets, k};
    ts_diagnostic_prefill d = {.logits = logits,
                               .hidden = hid,
                               .embeddings = c.embeds,
                               .positions = c.pos,
                               .side = &(ts_side_inputs){TS_SIDE_DEEPSTACK, &ds, NULL}};
    CHECK_INT_EQ(ts_model_prefill_diagnostic(m, seq, NULL, (size_t)c.n, &d, &err), TS_OK);
    fprintf(stderr, "  engine, K = 2 (random features), vs the plain forward:\n");
    for (int64_t l = 0; l <= pm.layers; l++) {
        char stage[48];
        snprintf(stage, sizeof(stage), "hidden_state_%lld", (long long)l);
        CHECK(close_enough("engine", stage, hid[l], want.hidden[l], (size_t)(c.n * pm.h)));
    }
    size_t kv = (size_t)(c.n * pm.hkv * pm.d);
    for (int64_t l = 0; l < pm.layers; l++)
        for (int v = 0; v < 2; v++) {
            char stage[48];
            snprintf(stage, sizeof(stage), "kv_%s_%lld", v ? "value" : "key", (long long)l);
            CHECK(close_enough("engine", stage, ts_sequence_cache(seq, (int)l, v),
                               v ? want.values[l] : want.keys[l], kv));
        }
    CHECK(close_enough("engine", "logits", logits, want.logits, (size_t)(c.n * pm.vocab)));
    for (int64_t l = 0; l <= pm.layers; l++)
        free(hid[l]);
    free(hid), free(logits);
    ts_sequence_destroy(seq);
    plain_outputs_free(&want, &pm);
    plain_case_free(&c);
    ts_checkpoint_close(pm.ck);
    ts_model_destroy(m);
}

/* ---------------------------------------------------------------- (d) validation */

/* The call is refused with `status` and a message containing `msg`; the sequence keeps its
 * length and its cache bytes. */
static void refused(fixture *f, ts_sequence *seq, const float *embeds, size_t n,
                    const ts_deepstack *ds, ts_status status, const char *msg)
{
    ts_error err = {0};
    float *logits = malloc(sizeof(float) * (size_t)f->vocab);
    int64_t len = ts_sequence_length(seq);
    size_t bytes = sizeof(float) * (size_t)(ts_sequence_capacity(seq) * ts_model_kv_heads(f->m) *
                                            ts_model_head_dim(f->m));
    void *before = malloc(bytes);
    memcpy(before, ts_sequence_cache(seq, 1, false), bytes);
    CHECK_INT_EQ(ts_model_prefill_embeddings(f->m, seq, embeds, n, f->positions, f->rope_delta,
                                             &(ts_side_inputs){TS_SIDE_DEEPSTACK, ds, NULL}, logits,
                                             &err),
                 status);
    CHECK_CONTAINS(err.message, msg);
    CHECK_INT_EQ(ts_sequence_length(seq), len);
    CHECK(memcmp(before, ts_sequence_cache(seq, 1, false), bytes) == 0);
    free(before), free(logits);
}

static void test_refusals(void)
{
    fixture f;
    CHECK(fixture_open(&f));
    ts_error err;
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(f.m, f.n + 8, &seq, &err), TS_OK);
    size_t n = (size_t)f.n;
    ts_deepstack good = fixture_payload(&f), ds;
    int32_t vis[64];
    memcpy(vis, f.visual, sizeof(int32_t) * (size_t)f.nv);

    refused(&f, seq, f.embeds, n, NULL, TS_ERR_INVALID_ARGUMENT, "deepstack: no payload (NULL)");
    refused(&f, seq, NULL, n, &good, TS_ERR_INVALID_ARGUMENT, "prefill: embeddings is NULL");
    ds = good, ds.visual_positions = NULL;
    refused(&f, seq, f.embeds, n, &ds, TS_ERR_INVALID_ARGUMENT,
            "deepstack: visual_positions is NULL");
    ds = good, ds.layer_features = NULL;
    refused(&f, seq, f.embeds, n, &ds, TS_ERR_INVALID_ARGUMENT,
            "deepstack: layer_features is NULL");
    ds = good, ds.layer_indices = NULL;
    refused(&f, seq, f.embeds, n, &ds, TS_ERR_INVALID_ARGUMENT, "deepstack: layer_indices is NULL");
    /* K and the layers must be the model's. */
    int32_t three[3] = {0, 1, 2}, wrong[2] = {0, 2}, swapped[2] = {1, 0};
    ds = good, ds.n_layers = 3, ds.layer_indices = three;
    refused(&f, seq, f.embeds, n, &ds, TS_ERR_INVALID_ARGUMENT,
            "deepstack: n_layers is 3, the model's DeepStack has 2 layers (0..1)");
    ds = good, ds.n_layers = 1;
    refused(&f, seq, f.embeds, n, &ds, TS_ERR_INVALID_ARGUMENT, "deepstack: n_layers is 1");
    ds = good, ds.layer_indices = wrong;
    refused(&f, seq, f.embeds, n, &ds, TS_ERR_INVALID_ARGUMENT,
            "deepstack: layer_indices[1] = 2, but the model adds level 1 after layer 1");
    ds = good, ds.layer_indices = swapped;
    refused(&f, seq, f.embeds, n, &ds, TS_ERR_INVALID_ARGUMENT, "deepstack: layer_indices[0] = 1");
    /* Counts and positions. */
    ds = good, ds.n_visual = -1;
    refused(&f, seq, f.embeds, n, &ds, TS_ERR_INVALID_ARGUMENT,
            "deepstack: n_visual -1 is negative");
    ds = good, ds.n_visual = f.nv;
    refused(&f, seq, f.embeds, 40, &ds, TS_ERR_RANGE,
            "deepstack: n_visual 54 is more than the 40 rows of this call");
    char msg[160];
    vis[5] = vis[4];
    ds = good, ds.visual_positions = vis;
    snprintf(msg, sizeof(msg),
             "deepstack: visual_positions[5] = %d repeats visual_positions[4] = %d (sorted and "
             "unique required)",
             vis[4], vis[4]);
    refused(&f, seq, f.embeds, n, &ds, TS_ERR_INVALID_ARGUMENT, msg);
    memcpy(vis, f.visual, sizeof(int32_t) * (size_t)f.nv);
    int32_t t = vis[7];
    vis[7] = vis[8], vis[8] = t;
    snprintf(msg, sizeof(msg),
             "deepstack: visual_positions[8] = %d comes after visual_positions[7] = %d", vis[8],
             vis[7]);
    refused(&f, seq, f.embeds, n, &ds, TS_ERR_INVALID_ARGUMENT, msg);
    memcpy(vis, f.visual, sizeof(int32_t) * (size_t)f.nv);
    vis[f.nv - 1] = (int32_t)f.n;
    refused(&f, seq, f.embeds, n, &ds, TS_ERR_RANGE,
            "deepstack: visual_positions[53] = 75 is outside the step's rows 0..74");
    memcpy(vis, f.visual, sizeof(int32_t) * (size_t)f.nv);
    vis[0] = -1;
    refused(&f, seq, f.embeds, n, &ds, TS_ERR_RANGE,
            "visual_positions[0] = -1 is outside the step's rows 0..74");
    /* Padding as the bundle would lay it out (a repeated last row) is a duplicate, refused. */
    memcpy(vis, f.visual, sizeof(int32_t) * (size_t)f.nv);
    vis[f.nv] = vis[f.nv - 1];
    ds = good, ds.visual_positions = vis, ds.n_visual = f.nv + 1;
    refused(&f, seq, f.embeds, n, &ds, TS_ERR_INVALID_ARGUMENT, "repeats");
    /* Features must be finite. */
    float keep = f.features[f.nv * f.h + 3 * f.h + 5];
    f.features[f.nv * f.h + 3 * f.h + 5] = NAN;
    refused(&f, seq, f.embeds, n, &good, TS_ERR_RANGE,
            "deepstack: layer_features value 3653 (level 1, row 3) is not finite");
    f.features[f.nv * f.h + 3 * f.h + 5] = -INFINITY;
    refused(&f, seq, f.embeds, n, &good, TS_ERR_RANGE, "is not finite");
    f.features[f.nv * f.h + 3 * f.h + 5] = keep;
    /* The ordinary checks still come first. */
    refused(&f, seq, f.embeds, (size_t)(f.n + 9), &good, TS_ERR_RANGE, "rows do not fit");
    CHECK_INT_EQ(ts_sequence_length(seq), 0);

    /* Zero visual rows: bit-identical to the plain embeddings prefill, logits and cache. */
    ts_sequence *plain;
    REQUIRE_INT_EQ(ts_sequence_create(f.m, f.n + 8, &plain, &err), TS_OK);
    float *a = malloc(sizeof(float) * (size_t)f.vocab),
          *b = malloc(sizeof(float) * (size_t)f.vocab);
    ts_deepstack empty = {NULL, 0, NULL, f.levels, f.k};
    CHECK_INT_EQ(ts_model_prefill_embeddings(f.m, seq, f.embeds, n, f.positions, f.rope_delta,
                                             &(ts_side_inputs){TS_SIDE_DEEPSTACK, &empty, NULL}, a,
                                             &err),
                 TS_OK);
    CHECK_INT_EQ(ts_model_prefill_embeddings(f.m, plain, f.embeds, n, f.positions, f.rope_delta,
                                             NULL, b, &err),
                 TS_OK);
    CHECK(memcmp(a, b, sizeof(float) * (size_t)f.vocab) == 0);
    size_t cache_bytes =
        sizeof(float) * (size_t)((f.n + 8) * ts_model_kv_heads(f.m) * ts_model_head_dim(f.m));
    for (int l = 0; l < f.layers; l++)
        for (int v = 0; v < 2; v++)
            CHECK(memcmp(ts_sequence_cache(seq, l, v), ts_sequence_cache(plain, l, v),
                         cache_bytes) == 0);
    /* … and the empty payload still has to name the model's layers. */
    ts_sequence_reset(seq);
    ds = empty, ds.n_layers = 0;
    refused(&f, seq, f.embeds, n, &ds, TS_ERR_INVALID_ARGUMENT,
            "deepstack: n_layers is 0, the model's DeepStack has 2");
    free(a), free(b);
    ts_sequence_destroy(plain);
    ts_sequence_destroy(seq);
    fixture_close(&f);

    /* A model without DeepStack (Qwen2-VL) takes only the empty payload. */
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/qwen2_vl/model", NULL, &m, &err), TS_OK);
    int none = -1;
    const int32_t *none_layers = (const int32_t *)&none;
    CHECK_INT_EQ(ts_model_side_inputs(m, &none_layers, &none), TS_SIDE_NONE);
    CHECK(none_layers == NULL);
    CHECK_INT_EQ(none, 0);
    int64_t h = ts_model_get_config(m)->text.hidden_size, v = ts_model_vocab_size(m);
    float *emb = calloc((size_t)(4 * h), sizeof(float)), *l1 = malloc(sizeof(float) * (size_t)v),
          *l2 = malloc(sizeof(float) * (size_t)v);
    for (int64_t i = 0; i < 4 * h; i++)
        emb[i] = 0.01f * (float)(i % 17);
    float feat[2 * 64] = {0};
    int32_t at[1] = {1}, lv[1] = {0};
    ts_deepstack one = {at, 1, feat, lv, 1}, empty2 = {NULL, 0, NULL, NULL, 0};
    ts_sequence *s1, *s2;
    ts_sequence_create(m, 8, &s1, &err), ts_sequence_create(m, 8, &s2, &err);
    CHECK_INT_EQ(ts_model_prefill_embeddings(m, s1, emb, 4, NULL, 0,
                                             &(ts_side_inputs){TS_SIDE_DEEPSTACK, &one, NULL}, l1,
                                             &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message,
                   "deepstack: qwen2_vl has no DeepStack layers; only an empty payload (n_visual "
                   "0, n_layers 0) is accepted, got n_visual 1, n_layers 1");
    CHECK_INT_EQ(ts_sequence_length(s1), 0);
    CHECK_INT_EQ(ts_model_prefill_embeddings(m, s1, emb, 4, NULL, 0,
                                             &(ts_side_inputs){TS_SIDE_DEEPSTACK, &empty2, NULL},
                                             l1, &err),
                 TS_OK);
    CHECK_INT_EQ(ts_model_prefill_embeddings(m, s2, emb, 4, NULL, 0, NULL, l2, &err), TS_OK);
    CHECK(memcmp(l1, l2, sizeof(float) * (size_t)v) == 0);
    ts_sequence_destroy(s1), ts_sequence_destroy(s2);
    free(emb), free(l1), free(l2);
    ts_model_destroy(m);
}

/* The check at the graph/runtime boundary, on its own (what a caller that skipped the public
 * validation would meet), and the step shapes the builder refuses. */
static void test_boundary_check(void)
{
    ts_error err;
    ts_model_config cfg;
    ts_decoder_spec spec;
    REQUIRE_INT_EQ(ts_model_config_load(FIXTURE "/model", &cfg, &err), TS_OK);
    REQUIRE_INT_EQ(ts_decoder_spec_init(&cfg, &spec, &err), TS_OK);
    CHECK_INT_EQ(spec.n_deepstack, 2);
    ts_step_shape shape = {
        .n_seqs = 1, .n_tokens = {6}, .capacity = 8, .from_embeddings = true, .n_visual = 2};
    int32_t pos[3] = {1, 4, 4}, layers[2] = {0, 1}, bad_layers[2] = {0, 3};
    float feat[2 * 2 * 64 + 1] = {0};
    ts_decoder_deepstack_inputs in = {pos, 2, feat, 2 * 2 * 64, layers, 2}, x;
    REQUIRE_INT_EQ(ts_decoder_check_deepstack(&spec, &shape, &in, &err), TS_OK);
    x = in, x.n_positions = 3;
    CHECK_INT_EQ(ts_decoder_check_deepstack(&spec, &shape, &x, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "deepstack: visual_positions has 3 entries, the program 2");
    x = in, x.n_features = 2 * 2 * 64 + 1;
    CHECK_INT_EQ(ts_decoder_check_deepstack(&spec, &shape, &x, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(
        err.message,
        "deepstack: layer_features has 257 values (1028 bytes), the program 256 ([2, 2, 64])");
    x = in, x.layer_indices = bad_layers;
    CHECK_INT_EQ(ts_decoder_check_deepstack(&spec, &shape, &x, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "deepstack: layer_indices[1] = 3, the program's layer is 1");
    x = in, x.n_layers = 1;
    CHECK_INT_EQ(ts_decoder_check_deepstack(&spec, &shape, &x, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "deepstack: layer_indices has 1 entries, the program 2");
    x = in, x.visual_positions = NULL;
    CHECK_INT_EQ(ts_decoder_check_deepstack(&spec, &shape, &x, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "deepstack: visual_positions is NULL");
    x = in, x.visual_positions = pos + 1; /* {4, 4} */
    CHECK_INT_EQ(ts_decoder_check_deepstack(&spec, &shape, &x, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "visual_positions[1] = 4 repeats visual_positions[0] = 4");
    pos[1] = 6;
    CHECK_INT_EQ(ts_decoder_check_deepstack(&spec, &shape, &in, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "visual_positions[1] = 6 is outside the step's rows 0..5");
    pos[1] = 4;
    feat[200] = INFINITY;
    CHECK_INT_EQ(ts_decoder_check_deepstack(&spec, &shape, &in, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "layer_features value 200 (level 1, row 1) is not finite");

    /* The builder: DeepStack rows need a model that has DeepStack, a step from embeddings, and
     * no more rows than the step has (all its sequences' together). */
    ts_graph *g;
    ts_weight_source none = {NULL, NULL};
    ts_step_shape s = shape;
    s.n_visual = 7;
    ts_graph_create(&g, &err);
    CHECK_INT_EQ(ts_decoder_build(g, &spec, &none, &s, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "step: 7 DeepStack rows for a step of 6 rows");
    s = shape, s.from_embeddings = false;
    CHECK_INT_EQ(ts_decoder_build(g, &spec, &none, &s, &err), TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "step: DeepStack needs a step from embeddings");
    s = shape, s.n_seqs = 2, s.n_tokens[1] = 1, s.n_visual = 8;
    CHECK_INT_EQ(ts_decoder_build(g, &spec, &none, &s, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "step: 8 DeepStack rows for a step of 7 rows");
    ts_decoder_spec text = spec;
    text.n_deepstack = 0;
    CHECK_INT_EQ(ts_decoder_build(g, &text, &none, &shape, &err), TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message,
                   "step: DeepStack rows declared, but the model has no DeepStack layers");
    ts_decoder_spec bad = spec;
    bad.deepstack_layers[1] = 0;
    CHECK_INT_EQ(ts_decoder_build(g, &bad, &none, &shape, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "step: DeepStack layer 0 (entry 1) is not ascending within 0..2");
    CHECK_INT_EQ(g->n_nodes, 0);
    ts_graph_destroy(g);
}

/* ---------------------------------------------------------------- (e) nothing else changes */

static char *print_step(const ts_decoder_spec *spec, const ts_weight_source *src,
                        const ts_step_shape *shape)
{
    ts_graph *g;
    ts_error err;
    char *text = NULL;
    size_t len;
    ts_graph_create(&g, &err);
    if (ts_decoder_build(g, spec, src, shape, &err) != TS_OK ||
        ts_stablehlo_print(g, "step", &text, &len, &err) != TS_OK)
        fprintf(stderr, "print_step: %s\n", err.message);
    ts_graph_destroy(g);
    return text;
}

static char *print_entry(const ts_decoder_spec *spec, const ts_weight_source *src, ts_entry e)
{
    ts_graph *g;
    ts_error err;
    char *text = NULL;
    size_t len;
    ts_entry_shape shape = {.capacity = 96, .prefill_capacity = 80, .slots = 2};
    ts_graph_create(&g, &err);
    if (ts_decoder_build_entry(g, spec, src, e, &shape, &err) != TS_OK ||
        ts_stablehlo_print(g, ts_entry_name(e), &text, &len, &err) != TS_OK)
        fprintf(stderr, "print_entry: %s\n", err.message);
    ts_graph_destroy(g);
    return text;
}

/* The step graphs (token prefill, embeddings prefill, decode, the diagnostic) and the bundle
 * entries print to the same text whether the model declares DeepStack or not; a DeepStack step
 * differs exactly by its two inputs and K scatters. */
static void test_modules_unchanged_without_declaration(void)
{
    ts_error err;
    ts_model_config cfg;
    ts_decoder_spec with, without;
    ts_checkpoint *ck;
    REQUIRE_INT_EQ(ts_model_config_load(FIXTURE "/model", &cfg, &err), TS_OK);
    REQUIRE_INT_EQ(ts_decoder_spec_init(&cfg, &with, &err), TS_OK);
    REQUIRE_INT_EQ(ts_checkpoint_open(FIXTURE "/model", &ck, &err), TS_OK);
    without = with;
    without.n_deepstack = 0;
    memset(without.deepstack_layers, 0, sizeof(without.deepstack_layers));
    ts_weight_source src = {find_in, ck};
    ts_step_shape shapes[4] = {
        {.n_seqs = 1, .n_tokens = {75}, .capacity = 91},
        {.n_seqs = 1, .n_tokens = {75}, .capacity = 91, .from_embeddings = true},
        {.n_seqs = 2, .n_tokens = {1, 1}, .capacity = 91},
        {.n_seqs = 1,
         .n_tokens = {75},
         .capacity = 91,
         .from_embeddings = true,
         .all_logits = true,
         .hidden_states = true}};
    int same = 0;
    for (int i = 0; i < 4; i++) {
        char *a = print_step(&with, &src, &shapes[i]), *b = print_step(&without, &src, &shapes[i]);
        CHECK(a && b && strcmp(a, b) == 0);
        same += a && b && strcmp(a, b) == 0;
        CHECK(a && !strstr(a, "stablehlo.scatter") && !strstr(a, "visual_positions"));
        free(a), free(b);
    }
    for (int e = 0; e < TS_ENTRY_ORDINARY; e++) {
        char *a = print_entry(&with, &src, (ts_entry)e),
             *b = print_entry(&without, &src, (ts_entry)e);
        CHECK(a && b && strcmp(a, b) == 0);
        same += a && b && strcmp(a, b) == 0;
        free(a), free(b);
    }
    ts_step_shape ds_shape = shapes[1];
    ds_shape.n_visual = 54;
    char *plain = print_step(&with, &src, &shapes[1]), *ds = print_step(&with, &src, &ds_shape);
    int scatters = 0;
    for (const char *p = ds; p && (p = strstr(p, "\"stablehlo.scatter\"")); p++)
        scatters++;
    CHECK_INT_EQ(scatters, 2);
    CHECK(ds && strstr(ds, "tessera.name = \"visual_positions\"") &&
          strstr(ds, "tensor<2x54x64xf32>"));
    CHECK(plain && ds && strcmp(plain, ds) != 0);
    fprintf(stderr,
            "  %d modules print identically with and without DeepStack declared; a DeepStack step "
            "has %d scatters\n",
            same, scatters);
    free(plain), free(ds);
    ts_checkpoint_close(ck);
}

/* One model used with DeepStack prefills, one never: a text prompt, an embeddings prefill and
 * decode steps give the same bits on both. */
static void test_other_steps_bit_identical(void)
{
    fixture f;
    CHECK(fixture_open(&f));
    ts_error err;
    ts_model *fresh;
    REQUIRE_INT_EQ(ts_model_load(ctx, FIXTURE "/model", NULL, &fresh, &err), TS_OK);
    ts_sequence *used, *clean;
    REQUIRE_INT_EQ(ts_sequence_create(f.m, f.n + 8, &used, &err), TS_OK);
    REQUIRE_INT_EQ(ts_sequence_create(fresh, f.n + 8, &clean, &err), TS_OK);
    float *a = malloc(sizeof(float) * (size_t)f.vocab),
          *b = malloc(sizeof(float) * (size_t)f.vocab);
    ts_deepstack ds = fixture_payload(&f);
    /* The used model runs DeepStack first (its programs cached), then everything else. */
    CHECK_INT_EQ(
        ts_model_prefill_embeddings(f.m, used, f.embeds, (size_t)f.n, f.positions, f.rope_delta,
                                    &(ts_side_inputs){TS_SIDE_DEEPSTACK, &ds, NULL}, a, &err),
        TS_OK);
    ts_sequence_reset(used);
    static const int32_t prompt[] = {1281, 872, 198, 54, 1247, 264, 557, 371, 9, 14};
    int n_prompt = (int)(sizeof(prompt) / sizeof(prompt[0]));
    CHECK_INT_EQ(ts_model_prefill(f.m, used, prompt, (size_t)n_prompt, a, &err), TS_OK);
    CHECK_INT_EQ(ts_model_prefill(fresh, clean, prompt, (size_t)n_prompt, b, &err), TS_OK);
    bool same = memcmp(a, b, sizeof(float) * (size_t)f.vocab) == 0;
    for (int i = 0; i < 6; i++) {
        int32_t next = ts_argmax_masked(a, f.vocab, NULL, 0);
        REQUIRE_INT_EQ(ts_model_decode(f.m, &used, &next, 1, a, &err), TS_OK);
        REQUIRE_INT_EQ(ts_model_decode(fresh, &clean, &next, 1, b, &err), TS_OK);
        same &= memcmp(a, b, sizeof(float) * (size_t)f.vocab) == 0;
    }
    CHECK(same);
    ts_sequence_reset(used), ts_sequence_reset(clean);
    CHECK_INT_EQ(ts_model_prefill_embeddings(f.m, used, f.embeds, (size_t)f.n, f.positions,
                                             f.rope_delta, NULL, a, &err),
                 TS_OK);
    CHECK_INT_EQ(ts_model_prefill_embeddings(fresh, clean, f.embeds, (size_t)f.n, f.positions,
                                             f.rope_delta, NULL, b, &err),
                 TS_OK);
    bool same_emb = memcmp(a, b, sizeof(float) * (size_t)f.vocab) == 0;
    for (int i = 0; i < 6; i++) {
        int32_t next = ts_argmax_masked(a, f.vocab, NULL, 0);
        REQUIRE_INT_EQ(ts_model_decode(f.m, &used, &next, 1, a, &err), TS_OK);
        REQUIRE_INT_EQ(ts_model_decode(fresh, &clean, &next, 1, b, &err), TS_OK);
        same_emb &= memcmp(a, b, sizeof(float) * (size_t)f.vocab) == 0;
    }
    CHECK(same_emb);
    fprintf(stderr, "  text prefill + 6 decodes %s, embeddings prefill + 6 decodes %s\n",
            same ? "bit-identical" : "DIFFER", same_emb ? "bit-identical" : "DIFFER");
    free(a), free(b);
    ts_sequence_destroy(used), ts_sequence_destroy(clean);
    ts_model_destroy(fresh);
    fixture_close(&f);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    RUN(test_fixture_whole_prompt);
    RUN(test_moe_fixture_whole_prompt);
    RUN(test_fixture_public_call_payload_freed);
    RUN(test_fixture_chunked);
    RUN(test_fixture_chunked_by_slice);
    RUN(test_fixture_without_features_diverges);
    RUN(test_graph_first_middle_last_layers);
    RUN(test_engine_random_features);
    RUN(test_refusals);
    RUN(test_boundary_check);
    RUN(test_modules_unchanged_without_declaration);
    RUN(test_other_steps_bit_identical);
    ts_context_destroy(ctx);
    return check_finish();
}
