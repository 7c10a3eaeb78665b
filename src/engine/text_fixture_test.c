/* text_fixture_test.c — Qwen2, Qwen3, Llama, Qwen3-MoE, Gemma3 text and Phi-4-multimodal's
 * language model against the transformers outputs in tests/fixtures: every hidden state, the KV
 * cache, the prefill logits (max |ours − ref| ≤ 1e-4 × max(1, max |ref|) per tensor), every
 * decode step's logits and the 16 greedy tokens, with the F32 and the BF16 weight files. The
 * first stage that diverges is reported by name.
 * Then batched decode: 4 sequences with different prompts, stepped together, give exactly the
 * tokens each gives alone. Phi-4's longrope past original_max_position_embeddings (the
 * phi4_mm-longrope-* fixtures, 32 positions): whole and chunked prefill, decode and verify across
 * the switch. */
#include "engine/model.h"
#include "check.h"
#include "fixture_compare.h"

#include <math.h>

static ts_context *ctx;

/* Compares n floats; prints and returns false past the tolerance. */
static bool close_enough(const char *stage, const float *ours, const float *ref, size_t n)
{
    double scale, worst = max_diff(ours, ref, n, &scale), tol = 1e-4 * scale;
    if (worst > tol) {
        fprintf(stderr, "  first divergent stage: %s (max |diff| %.3g > %.3g)\n", stage, worst, tol);
        return false;
    }
    return true;
}

static void check_case(const char *name, bool bf16)
{
    char dir[256], weights[256], refpath[256];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    snprintf(weights, sizeof(weights), "tests/fixtures/%s/model-bf16/model.safetensors", name);
    snprintf(refpath, sizeof(refpath), "tests/fixtures/%s/reference.safetensors", name);
    ts_error err;
    ts_model *m;
    ts_model_options opt = {.weights = bf16 ? weights : NULL};
    if (ts_model_load(ctx, dir, &opt, &m, &err) != TS_OK) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        CHECK(false);
        return;
    }
    ts_checkpoint *ref;
    REQUIRE_INT_EQ(ts_checkpoint_open(refpath, &ref, &err), TS_OK);
    const ts_tensor_info *ids64 = ref_tensor(ref, "input_ids");
    int64_t n = ids64->shape[1], vocab = ts_model_vocab_size(m);
    const ts_model_config *cfg = ts_model_get_config(m);
    int64_t layers = cfg->text.num_hidden_layers, hidden = cfg->text.hidden_size;
    int32_t *ids = malloc(sizeof(int32_t) * (size_t)n);
    for (int64_t i = 0; i < n; i++) ids[i] = (int32_t)((const int64_t *)ids64->data)[i];

    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(m, n + 16, &seq, &err), TS_OK);
    float *logits = malloc(sizeof(float) * (size_t)(n * vocab));
    float **hid = malloc(sizeof(float *) * (size_t)(layers + 1));
    for (int64_t l = 0; l <= layers; l++) hid[l] = malloc(sizeof(float) * (size_t)(n * hidden));
    ts_diagnostic_prefill diag = {.logits = logits, .hidden = hid};
    CHECK_INT_EQ(ts_model_prefill_diagnostic(m, seq, ids, (size_t)n, &diag, &err), TS_OK);

    bool ok = true;
    for (int64_t l = 0; ok && l <= layers; l++) {
        char stage[64];
        snprintf(stage, sizeof(stage), "hidden_state_%lld", (long long)l);
        const ts_tensor_info *t = ref_tensor(ref, stage);
        ok = t && close_enough(stage, hid[l], t->data, (size_t)(n * hidden));
    }
    /* KV: the reference is [kv_heads, L, head_dim]; ours one [kv_heads, head_dim] row per
     * position the cache holds: all L, or a sliding-window layer's ring, the last `rows`. */
    int64_t kvh = ts_model_kv_heads(m), hd = ts_model_head_dim(m);
    float *kv = malloc(sizeof(float) * (size_t)(kvh * n * hd)),
          *held = malloc(sizeof(float) * (size_t)(kvh * n * hd));
    for (int64_t l = 0; ok && l < layers; l++)
        for (int value = 0; ok && value < 2; value++) {
            char stage[64];
            snprintf(stage, sizeof(stage), "kv_%s_%lld", value ? "value" : "key", (long long)l);
            const ts_tensor_info *t = ref_tensor(ref, stage);
            if (!(ok = t != NULL)) break;
            int64_t rows = ts_sequence_cache_rows(seq, (int)l),
                    count = fixture_kv_rows(seq, (int)l, value, t->data, n, kvh, hd, kv, held);
            CHECK_INT_EQ(count, rows < n ? rows : n);
            ok = close_enough(stage, kv, held, (size_t)(kvh * count * hd));
        }
    free(held);
    free(kv);
    const ts_tensor_info *pl = ref_tensor(ref, "prefill_logits");
    ok = ok && pl && close_enough("prefill_logits", logits, pl->data, (size_t)(n * vocab));
    CHECK(ok);

    /* Greedy decode with EOS masked, as the fixture ran it. */
    const ts_tensor_info *gen = ref_tensor(ref, "generated_ids"), *dl = ref_tensor(ref, "decode_logits");
    ts_generation_config gc;
    ts_generation_config_load(dir, &gc, &err);
    int64_t n_new = gen->shape[0];
    const float *last = logits + (n - 1) * vocab;
    float *step = malloc(sizeof(float) * (size_t)vocab);
    bool tokens_ok = true, logits_ok = true;
    for (int64_t i = 0; i < n_new; i++) {
        char stage[64];
        snprintf(stage, sizeof(stage), "decode_logits[%lld]", (long long)i);
        if (logits_ok) logits_ok = close_enough(stage, last, (const float *)dl->data + i * vocab, (size_t)vocab);
        int32_t tok = ts_argmax_masked(last, vocab, cfg->eos_token_ids, cfg->n_eos_token_ids);
        int32_t want = (int32_t)((const int64_t *)gen->data)[i];
        if (tok != want) {
            if (tokens_ok) fprintf(stderr, "  token %lld: %d, reference %d\n", (long long)i, tok, want);
            tokens_ok = false;
        }
        if (i + 1 < n_new) {
            REQUIRE_INT_EQ(ts_model_decode(m, &seq, &want, 1, step, &err), TS_OK);
            last = step;
        }
    }
    CHECK(logits_ok);
    CHECK(tokens_ok);
    fprintf(stderr, "  %s (%s weights): %lld prompt tokens, %lld layers, %lld greedy tokens: %s\n", name, bf16 ? "bf16" : "f32",
            (long long)n, (long long)layers, (long long)n_new, ok && logits_ok && tokens_ok ? "all stages match" : "DIVERGES");
    free(step);
    for (int64_t l = 0; l <= layers; l++) free(hid[l]);
    free(hid);
    free(logits);
    free(ids);
    ts_sequence_destroy(seq);
    ts_checkpoint_close(ref);
    ts_model_destroy(m);
}

static void test_qwen2(void) { check_case("qwen2", false), check_case("qwen2", true); }
static void test_qwen3(void) { check_case("qwen3", false), check_case("qwen3", true); }
static void test_llama(void) { check_case("llama", false), check_case("llama", true); }
/* Qwen3-MoE: one matrix per expert in the checkpoint, stacked by the family at load. */
static void test_qwen3_moe(void) { check_case("qwen3_moe", false), check_case("qwen3_moe", true); }
/* Gemma3 text: scaled embeddings, (1 + w) norms around attention and MLP, and sliding-window
 * layers (window 8) interleaved with global ones, on a prompt longer than the window. */
static void test_gemma3_text(void) { check_case("gemma3_text", false), check_case("gemma3_text", true); }
/* Phi-4-multimodal's language model, text prompt, LoRA off: fused qkv_proj/gate_up_proj read as
 * views, partial rotary (0.75) with longrope's short factors and attention factor. */
static void test_phi4_mm_text(void) { check_case("phi4_mm-text", false), check_case("phi4_mm-text", true); }
/* A text-only prompt to a VLM takes the ordinary token path (M-RoPE with t = h = w). */
/* longrope past original_max_position_embeddings (32 in these fixtures): a prompt under it whose
 * generation crosses it (the sequence computed again with the long factors at the crossing) and a
 * prompt over it (long from the first row). */
static void test_phi4_longrope(void)
{
    check_case("phi4_mm-longrope-cross", false), check_case("phi4_mm-longrope-cross", true);
    check_case("phi4_mm-longrope-long", false), check_case("phi4_mm-longrope-long", true);
}

/* The reference's greedy steps from `seq` (holding the prompt, its last logits in `logits`):
 * decoded one at a time, or (draft > 0) verified in blocks of the pending token plus up to
 * `draft` of the reference's next ids, within the sequence's draft room; every row's logits
 * within the tolerance, every greedy id the reference's. */
static bool longrope_decode(ts_model *m, ts_sequence *seq, const ts_checkpoint *ref, float *logits,
                            int draft)
{
    const ts_tensor_info *gen = ref_tensor(ref, "generated_ids"), *dl = ref_tensor(ref, "decode_logits");
    const ts_model_config *cfg = ts_model_get_config(m);
    int64_t vocab = ts_model_vocab_size(m), n_new = gen->shape[0];
    const int64_t *want = gen->data;
    float *rows = malloc(sizeof(float) * (size_t)(vocab * (draft + 1)));
    ts_error err;
    bool ok = true;
    for (int64_t i = 0; ok && i < n_new;) {
        char stage[64];
        snprintf(stage, sizeof(stage), "decode_logits[%lld]", (long long)i);
        ok = close_enough(stage, logits, (const float *)dl->data + i * vocab, (size_t)vocab) &&
             ts_argmax_masked(logits, vocab, cfg->eos_token_ids, cfg->n_eos_token_ids) == want[i];
        if (!ok || i + 1 == n_new) break;
        int64_t room = ts_sequence_draft_room(seq), k = draft < room ? draft : room;
        if (k > n_new - 2 - i) k = n_new - 2 - i;
        int32_t block[16];
        for (int64_t j = 0; j <= k; j++) block[j] = (int32_t)want[i + j];
        int64_t n_rows = k + 1;
        if (ts_model_verify(m, &seq, 1, block, &n_rows, rows, &err) != TS_OK) {
            fprintf(stderr, "  verify at step %lld: %s\n", (long long)i, err.message);
            ok = false;
            break;
        }
        /* Rows 0 … k − 1 predict the drafts (checked here), row k the next step's. */
        for (int64_t j = 0; ok && j < k; j++) {
            snprintf(stage, sizeof(stage), "decode_logits[%lld] (verified)", (long long)(i + 1 + j));
            ok = close_enough(stage, rows + j * vocab, (const float *)dl->data + (i + 1 + j) * vocab,
                              (size_t)vocab) &&
                 ts_argmax_masked(rows + j * vocab, vocab, cfg->eos_token_ids,
                                  cfg->n_eos_token_ids) == want[i + 1 + j];
        }
        memcpy(logits, rows + k * vocab, sizeof(float) * (size_t)vocab);
        i += k + 1;
    }
    free(rows);
    return ok;
}

/* Chunked prefill (chunks of 8 < 32): told the prompt's length first (long from chunk 1) or not
 * (the first chunks computed again when a chunk passes 32); then plain decode and speculative
 * verify blocks (drafts never straddle 32; the crossing block runs long). The prompt also as
 * embedding rows (how media prompts come in: the rows the sequence keeps are run again). The
 * truncate of a long sequence back under 32 is refused. */
static void test_phi4_longrope_chunked(void)
{
    static const char *const cases[] = {"phi4_mm-longrope-cross", "phi4_mm-longrope-long"};
    for (int c = 0; c < 2; c++)
        for (int mode = 0; mode < 6; mode++) {
            bool announce = mode & 1, embedded = mode >= 4;
            int draft = mode & 2 ? 4 : 0;
            char dir[128], refpath[160];
            snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", cases[c]);
            snprintf(refpath, sizeof(refpath), "tests/fixtures/%s/reference.safetensors", cases[c]);
            ts_error err;
            ts_model *m;
            ts_checkpoint *ref;
            REQUIRE_INT_EQ(ts_model_load(ctx, dir, NULL, &m, &err), TS_OK);
            REQUIRE_INT_EQ(ts_checkpoint_open(refpath, &ref, &err), TS_OK);
            const ts_tensor_info *ids64 = ref_tensor(ref, "input_ids");
            int64_t n = ids64->shape[1], vocab = ts_model_vocab_size(m);
            int32_t ids[64];
            REQUIRE(n <= 64);
            for (int64_t i = 0; i < n; i++) ids[i] = (int32_t)((const int64_t *)ids64->data)[i];
            ts_sequence *seq;
            REQUIRE_INT_EQ(ts_sequence_create(m, n + 16, &seq, &err), TS_OK);
            float *logits = malloc(sizeof(float) * (size_t)vocab);
            if (announce) ts_sequence_begin_prompt(seq, n);
            int64_t hidden = ts_model_get_config(m)->text.hidden_size;
            float *rows = malloc(sizeof(float) * (size_t)(n * hidden));
            CHECK_INT_EQ(ts_model_embed_tokens(m, ids, (size_t)n, rows, &err), TS_OK);
            for (int64_t at = 0; at < n; at += 8) {
                size_t take = (size_t)(n - at < 8 ? n - at : 8);
                CHECK_INT_EQ(embedded ? ts_model_prefill_embeddings(m, seq, rows + at * hidden, take,
                                                                    NULL, 0, NULL, logits, &err)
                                      : ts_model_prefill(m, seq, ids + at, take, logits, &err),
                             TS_OK);
            }
            free(rows);
            CHECK(ts_sequence_rope_long(seq) == (n > 32));
            /* Under 32 the verify rows stop at 32: the room is what is left below it. */
            if (n < 32) {
                CHECK_INT_EQ(ts_sequence_draft_room(seq), 32 - n - 1);
                int32_t block[8] = {0};
                int64_t rows = 32 - n + 1;
                float *out = malloc(sizeof(float) * (size_t)(vocab * rows));
                CHECK_INT_EQ(ts_model_verify(m, &seq, 1, block, &rows, out, &err),
                             TS_ERR_UNSUPPORTED);
                CHECK_CONTAINS(err.message, "fit before original_max_position_embeddings");
                CHECK_INT_EQ(ts_sequence_length(seq), n);
                free(out);
            }
            bool ok = longrope_decode(m, seq, ref, logits, draft);
            CHECK(ok);
            CHECK(ts_sequence_rope_long(seq));
            CHECK_INT_EQ(ts_sequence_truncate(seq, 32, &err), TS_ERR_UNSUPPORTED);
            CHECK_CONTAINS(err.message, "computed with longrope's long factors");
            CHECK_INT_EQ(ts_sequence_truncate(seq, 33, &err), TS_OK);
            fprintf(stderr, "  %s: %lld prompt %s in chunks of 8 (%s), %s: %s\n", cases[c],
                    (long long)n, embedded ? "rows as embeddings" : "tokens",
                    announce ? "length told first" : "recomputed at the crossing",
                    draft ? "verify blocks of up to 5" : "decode", ok ? "16 ids match" : "DIVERGES");
            free(logits);
            ts_sequence_destroy(seq);
            ts_checkpoint_close(ref);
            ts_model_destroy(m);
        }
}

static void test_qwen2_vl_text_only(void) { check_case("qwen2_vl-text-only", false); }

/* The VLM language side through the engine: the reference's merged input embeddings and 3-axis
 * positions prefilled, then decode with its rope delta (LLaVA: 1-D positions, no delta):
 * prefill logits and all 16 greedy tokens. Also: embed_tokens of the prompt equals the merged
 * embeddings on every text row. */
static void check_vlm_language(const char *name)
{
    char dir[128], refpath[160];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    snprintf(refpath, sizeof(refpath), "tests/fixtures/%s/reference.safetensors", name);
    ts_error err;
    ts_model *m;
    ts_checkpoint *ref;
    REQUIRE_INT_EQ(ts_model_load(ctx, dir, NULL, &m, &err), TS_OK);
    REQUIRE_INT_EQ(ts_checkpoint_open(refpath, &ref, &err), TS_OK);
    const ts_tensor_info *emb = ts_checkpoint_find(ref, "lm_inputs_embeds"), *pos64 = ts_checkpoint_find(ref, "position_ids");
    const ts_tensor_info *delta64 = ts_checkpoint_find(ref, "rope_deltas"), *gen = ts_checkpoint_find(ref, "generated_ids");
    const ts_tensor_info *ids64 = ts_checkpoint_find(ref, "input_ids");
    const ts_model_config *cfg = ts_model_get_config(m);
    int64_t n = emb->shape[1], h = cfg->text.hidden_size, v = ts_model_vocab_size(m);
    /* LLaVA has no rope delta: 1-D positions, which must be the arange the engine computes
     * itself when given none. */
    bool mrope = delta64 != NULL;
    int32_t *positions = malloc(sizeof(int32_t) * (size_t)(3 * n)), *ids = malloc(sizeof(int32_t) * (size_t)n);
    for (int64_t i = 0; i < (mrope ? 3 : 1) * n; i++) positions[i] = (int32_t)((const int64_t *)pos64->data)[i];
    bool arange = true;
    for (int64_t i = 0; !mrope && i < n; i++) arange &= positions[i] == i;
    CHECK(arange);
    for (int64_t i = 0; i < n; i++) ids[i] = (int32_t)((const int64_t *)ids64->data)[i];
    /* Text rows of the merged embeddings are embed_tokens rows. */
    float *rows = malloc(sizeof(float) * (size_t)(n * h));
    CHECK_INT_EQ(ts_model_embed_tokens(m, ids, (size_t)n, rows, &err), TS_OK);
    bool text_rows = true;
    for (int64_t i = 0; i < n; i++)
        if (ids[i] != cfg->image_token_id) text_rows &= memcmp(rows + i * h, (const float *)emb->data + i * h, sizeof(float) * (size_t)h) == 0;
    CHECK(text_rows);
    ts_sequence *seq;
    ts_sequence_create(m, n + gen->shape[0], &seq, &err);
    float *logits = malloc(sizeof(float) * (size_t)v);
    CHECK_INT_EQ(ts_model_prefill_embeddings(m, seq, emb->data, (size_t)n, mrope ? positions : NULL,
                                             mrope ? ((const int64_t *)delta64->data)[0] : 0, NULL,
                                             logits, &err),
                 TS_OK);
    bool ok = close_enough(mrope ? "prefill (embeddings, M-RoPE)" : "prefill (embeddings)", logits, ts_checkpoint_find(ref, "prefill_last_logits")->data, (size_t)v);
    bool tokens_ok = true;
    for (int64_t i = 0; i < gen->shape[0]; i++) {
        int32_t want = (int32_t)((const int64_t *)gen->data)[i];
        tokens_ok &= ts_argmax_masked(logits, v, cfg->eos_token_ids, cfg->n_eos_token_ids) == want;
        if (i + 1 < gen->shape[0]) CHECK_INT_EQ(ts_model_decode(m, &seq, &want, 1, logits, &err), TS_OK);
    }
    CHECK(ok);
    CHECK(tokens_ok);
    fprintf(stderr, "  %s language side (engine): prefill logits %s, 16 greedy tokens %s\n", name, ok ? "match" : "DIFFER",
            tokens_ok ? "identical" : "DIFFER");
    free(positions), free(ids), free(rows), free(logits);
    ts_sequence_destroy(seq);
    ts_checkpoint_close(ref);
    ts_model_destroy(m);
}

/* Qwen3-VL's language layers (q/k norm, interleaved M-RoPE, model.language_model.*): with the
 * reference's merged embeddings and positions, layer 0's output and K/V — before any DeepStack
 * add, which comes after layer 0 — match the reference. */
static void test_qwen3_vl_first_layer(void)
{
    ts_error err;
    ts_model *m;
    ts_checkpoint *ref;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/qwen3_vl/model", NULL, &m, &err), TS_OK);
    REQUIRE_INT_EQ(ts_checkpoint_open("tests/fixtures/qwen3_vl/reference.safetensors", &ref, &err), TS_OK);
    const ts_tensor_info *emb = ts_checkpoint_find(ref, "lm_inputs_embeds"), *pos64 = ts_checkpoint_find(ref, "position_ids");
    int64_t n = emb->shape[1], h = ts_model_get_config(m)->text.hidden_size, layers = ts_model_get_config(m)->text.num_hidden_layers;
    int32_t *positions = malloc(sizeof(int32_t) * (size_t)(3 * n));
    for (int64_t i = 0; i < 3 * n; i++) positions[i] = (int32_t)((const int64_t *)pos64->data)[i];
    float *logits = malloc(sizeof(float) * (size_t)(n * ts_model_vocab_size(m)));
    float **hid = malloc(sizeof(float *) * (size_t)(layers + 1));
    for (int64_t l = 0; l <= layers; l++) hid[l] = malloc(sizeof(float) * (size_t)(n * h));
    ts_sequence *seq;
    ts_sequence_create(m, n, &seq, &err);
    ts_diagnostic_prefill d = {
        .logits = logits, .hidden = hid, .embeddings = emb->data, .positions = positions};
    CHECK_INT_EQ(ts_model_prefill_diagnostic(m, seq, NULL, (size_t)n, &d, &err), TS_OK);
    CHECK(close_enough("qwen3_vl hidden_state_1", hid[1], ts_checkpoint_find(ref, "hidden_state_1")->data, (size_t)(n * h)));
    int64_t kvh = ts_model_kv_heads(m), hd = ts_model_head_dim(m);
    const float *cache = ts_sequence_cache(seq, 0, false), *r = ts_checkpoint_find(ref, "kv_key_0")->data;
    float *k = malloc(sizeof(float) * (size_t)(kvh * n * hd));
    for (int64_t hh = 0; hh < kvh; hh++)
        for (int64_t p = 0; p < n; p++) memcpy(k + (hh * n + p) * hd, cache + (p * kvh + hh) * hd, sizeof(float) * (size_t)hd);
    CHECK(close_enough("qwen3_vl kv_key_0 (interleaved M-RoPE)", k, r, (size_t)(kvh * n * hd)));
    for (int64_t l = 0; l <= layers; l++) free(hid[l]);
    free(hid), free(logits), free(positions), free(k);
    ts_sequence_destroy(seq);
    ts_checkpoint_close(ref);
    ts_model_destroy(m);
}

static void test_vlm_language_side(void)
{
    check_vlm_language("qwen2_vl");
    check_vlm_language("qwen2_vl-two-images");
    check_vlm_language("qwen2_5_vl");
    check_vlm_language("llava");
    check_vlm_language("llava_siglip");
}

static void greedy(ts_model *m, ts_sequence *seq, const int32_t *prompt, int n, int steps, int32_t *out)
{
    int64_t v = ts_model_vocab_size(m);
    float *logits = malloc(sizeof(float) * (size_t)v);
    ts_error err;
    CHECK_INT_EQ(ts_model_prefill(m, seq, prompt, (size_t)n, logits, &err), TS_OK);
    for (int i = 0; i < steps; i++) {
        out[i] = ts_argmax_masked(logits, v, NULL, 0);
        if (i + 1 < steps) CHECK_INT_EQ(ts_model_decode(m, &seq, &out[i], 1, logits, &err), TS_OK);
    }
    free(logits);
}

static void test_batched_decode_matches_single(void)
{
    ts_error err;
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/qwen3/model", NULL, &m, &err), TS_OK);
    enum { B = 4, STEPS = 12, CAP = 64 };
    static const int32_t prompts[B][9] = {{1281, 872, 198}, {54, 1247, 264, 557, 371}, {9, 14}, {1281, 395, 380, 517, 198, 77, 88, 99, 100}};
    static const int lens[B] = {3, 5, 2, 9};
    int32_t alone[B][STEPS], together[B][STEPS];
    for (int b = 0; b < B; b++) {
        ts_sequence *s;
        ts_sequence_create(m, CAP, &s, &err);
        greedy(m, s, prompts[b], lens[b], STEPS, alone[b]);
        ts_sequence_destroy(s);
    }
    ts_sequence *seqs[B];
    int64_t v = ts_model_vocab_size(m);
    float *logits = malloc(sizeof(float) * (size_t)(B * v));
    for (int b = 0; b < B; b++) {
        ts_sequence_create(m, CAP, &seqs[b], &err);
        CHECK_INT_EQ(ts_model_prefill(m, seqs[b], prompts[b], (size_t)lens[b], logits + b * v, &err), TS_OK);
    }
    for (int i = 0; i < STEPS; i++) {
        int32_t next[B];
        for (int b = 0; b < B; b++) together[b][i] = next[b] = ts_argmax_masked(logits + b * v, v, NULL, 0);
        if (i + 1 < STEPS) CHECK_INT_EQ(ts_model_decode(m, seqs, next, B, logits, &err), TS_OK);
    }
    for (int b = 0; b < B; b++) {
        CHECK(memcmp(alone[b], together[b], sizeof(alone[b])) == 0);
        CHECK_INT_EQ(ts_sequence_length(seqs[b]), lens[b] + STEPS - 1);
        ts_sequence_destroy(seqs[b]);
    }
    free(logits);
    ts_model_destroy(m);
}

/* Greedy decoding of a fixture under other numerics (bf16 compute, a bf16 KV cache): whether
 * the tokens stay the reference's, and the largest logit difference over all steps. */
static void greedy_vs_reference(ts_context *c, const char *name, const ts_model_options *mo, bool *same, double *worst)
{
    char dir[128], refpath[160];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    snprintf(refpath, sizeof(refpath), "tests/fixtures/%s/reference.safetensors", name);
    ts_error err;
    ts_model *m;
    ts_checkpoint *ref;
    *same = false, *worst = INFINITY;
    if (ts_model_load(c, dir, mo, &m, &err) != TS_OK || ts_checkpoint_open(refpath, &ref, &err) != TS_OK) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        return;
    }
    const ts_tensor_info *ids64 = ts_checkpoint_find(ref, "input_ids"), *gen = ts_checkpoint_find(ref, "generated_ids");
    const ts_tensor_info *dl = ts_checkpoint_find(ref, "decode_logits");
    int n = (int)ids64->shape[1];
    int64_t v = ts_model_vocab_size(m), n_new = gen->shape[0];
    int32_t ids[64];
    for (int i = 0; i < n; i++) ids[i] = (int32_t)((const int64_t *)ids64->data)[i];
    ts_sequence *seq;
    ts_sequence_create(m, n + n_new, &seq, &err);
    float *logits = malloc(sizeof(float) * (size_t)v);
    CHECK_INT_EQ(ts_model_prefill(m, seq, ids, (size_t)n, logits, &err), TS_OK);
    const ts_model_config *cfg = ts_model_get_config(m);
    *same = true, *worst = 0;
    for (int64_t i = 0; i < n_new; i++) {
        for (int64_t j = 0; j < v; j++) *worst = fmax(*worst, fabs(logits[j] - ((const float *)dl->data)[i * v + j]));
        int32_t want = (int32_t)((const int64_t *)gen->data)[i];
        *same &= ts_argmax_masked(logits, v, cfg->eos_token_ids, cfg->n_eos_token_ids) == want;
        if (i + 1 < n_new) CHECK_INT_EQ(ts_model_decode(m, &seq, &want, 1, logits, &err), TS_OK);
    }
    free(logits);
    ts_sequence_destroy(seq);
    ts_checkpoint_close(ref);
    ts_model_destroy(m);
}

static const char *const text_cases[] = {"qwen2", "qwen3", "llama"};

/* bf16 compute (oneDNN on AMX, else our VDPBF16PS kernel), bf16 weights. "bf16x2" (activations
 * split hi + lo) must give the reference's greedy tokens; plain "bf16" is reported (its 2^-9
 * activation rounding moves these tiny random models' logits by O(1)) and held to a loose bound
 * that still catches a broken path. */
static void bf16_compute_case(const char *compute, bool tokens_must_match, double max_error)
{
    ts_context *bctx;
    ts_error err;
    ts_context_options o = {.n_threads = 2, .compute = compute};
    if (!(ts_cpu_features() & (TS_CPU_AVX512_BF16 | TS_CPU_AMX_BF16))) {
        CHECK_INT_EQ(ts_context_create(&o, &bctx, &err), TS_ERR_UNSUPPORTED);
        fprintf(stderr, "  %s compute: refused on this CPU (%s)\n", compute, err.message);
        return;
    }
    REQUIRE_INT_EQ(ts_context_create(&o, &bctx, &err), TS_OK);
    for (int c = 0; c < 3; c++) {
        char weights[160];
        snprintf(weights, sizeof(weights), "tests/fixtures/%s/model-bf16/model.safetensors", text_cases[c]);
        ts_model_options mo = {.weights = weights};
        bool same;
        double worst;
        greedy_vs_reference(bctx, text_cases[c], &mo, &same, &worst);
        fprintf(stderr, "  %s %s compute: greedy tokens %s, max |logit − f32 reference| = %.4f\n", text_cases[c], compute,
                same ? "identical" : "differ", worst);
        if (tokens_must_match) CHECK(same);
        CHECK(worst <= max_error);
    }
    ts_context_destroy(bctx);
}

static void test_bf16_compute(void)
{
    bf16_compute_case("bf16x2", true, 1e-2);
    bf16_compute_case("bf16", false, 4.0);
}

/* A bf16 KV cache: the greedy tokens stay the reference's; the logit error is reported. */
static void test_bf16_kv_cache(void)
{
    for (int c = 0; c < 3; c++) {
        ts_model_options mo = {.kv_cache = "bf16"};
        bool same;
        double worst;
        greedy_vs_reference(ctx, text_cases[c], &mo, &same, &worst);
        fprintf(stderr, "  %s bf16 KV cache: greedy tokens %s, max |logit − f32 reference| = %.4f\n", text_cases[c],
                same ? "identical" : "differ", worst);
        CHECK(same);
        CHECK(worst < 4.0);
    }
}

static void test_step_errors_leave_sequences_unchanged(void)
{
    ts_error err;
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/qwen2/model", NULL, &m, &err), TS_OK);
    ts_sequence *s;
    ts_sequence_create(m, 4, &s, &err);
    float logits[1344];
    int32_t toks[5] = {1, 2, 3, 4, 5}, bad = 5000;
    CHECK_INT_EQ(ts_model_prefill(m, s, toks, 5, logits, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "5 tokens do not fit: the sequence holds 0 of 4");
    CHECK_INT_EQ(ts_model_prefill(m, s, &bad, 1, logits, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "token 5000 at index 0 is outside the vocabulary (0..1343)");
    CHECK_INT_EQ(ts_sequence_length(s), 0);
    CHECK_INT_EQ(ts_model_prefill(m, s, toks, 4, logits, &err), TS_OK);
    CHECK_INT_EQ(ts_model_decode(m, &s, toks, 1, logits, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "sequence 0 is full (4 tokens)");
    ts_sequence *twice[2] = {s, s};
    ts_sequence_reset(s);
    CHECK_INT_EQ(ts_model_decode(m, twice, toks, 2, logits, &err), TS_ERR_INVALID_ARGUMENT);
    ts_sequence_destroy(s);
    ts_model_destroy(m);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    RUN(test_qwen2);
    RUN(test_qwen3);
    RUN(test_llama);
    RUN(test_qwen3_moe);
    RUN(test_gemma3_text);
    RUN(test_phi4_mm_text);
    RUN(test_phi4_longrope);
    RUN(test_phi4_longrope_chunked);
    RUN(test_qwen2_vl_text_only);
    RUN(test_vlm_language_side);
    RUN(test_qwen3_vl_first_layer);
    RUN(test_batched_decode_matches_single);
    RUN(test_bf16_compute);
    RUN(test_bf16_kv_cache);
    RUN(test_step_errors_leave_sequences_unchanged);
    ts_context_destroy(ctx);
    return check_finish();
}
