/* phi4_lora_test.c — Phi-4-multimodal's speech LoRA against transformers + peft
 * (tests/fixtures/phi4_mm-audio: the merged embeddings with the audio rows, every hidden state,
 * the KV cache, all prefill logits, each decode step's logits and the 16 greedy ids, all with the
 * speech adapter on), with the F32 and the BF16 weight files and with the adapter file rounded to
 * bf16 (kept bf16 by the loader); tolerance 1e-4 · max(1, max |ref|)
 * per tensor (fixture_compare.h). Also: the family's adapter per input mode; a decode step mixing a
 * speech sequence and a no-adapter sequence gives each the logits it gets alone; the adapter
 * choice is refused when unknown or when the sequence holds rows of another adapter and is back
 * to none after a reset; the prefix cache shares rows only within one adapter; adapter configs
 * that are not plain LoRA are refused by name. */
#include "engine/model.h"
#include "models/decoder.h"
#include "loader/safetensors_write.h"
#include "models/family.h"
#include "check.h"
#include "fixture_compare.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CASE "tests/fixtures/phi4_mm-audio"

static ts_context *ctx;

static bool close_enough(const char *stage, const float *ours, const float *ref, size_t n,
                         double *worst)
{
    double scale, d = max_diff(ours, ref, n, &scale);
    if (d / scale > *worst) *worst = d / scale;
    if (d > 1e-4 * scale) {
        fprintf(stderr, "  first divergent stage: %s (max |diff| %.3g > %.3g)\n", stage, d,
                1e-4 * scale);
        return false;
    }
    return true;
}

static void check_speech(const char *dir, bool bf16)
{
    ts_error err;
    ts_model *m;
    ts_model_options opt = {.weights = bf16 ? CASE "/model-bf16/model.safetensors" : NULL};
    REQUIRE_INT_EQ(ts_model_load(ctx, dir, &opt, &m, &err), TS_OK);
    ts_checkpoint *ref;
    REQUIRE_INT_EQ(ts_checkpoint_open(CASE "/reference.safetensors", &ref, &err), TS_OK);
    const ts_tensor_info *emb = ref_tensor(ref, "lm_inputs_embeds"),
                         *pos = ref_tensor(ref, "position_ids"), *gen = ref_tensor(ref, "generated_ids"),
                         *dl = ref_tensor(ref, "decode_logits"), *pl = ref_tensor(ref, "prefill_logits");
    REQUIRE(emb && pos && gen && dl && pl);
    const ts_model_config *cfg = ts_model_get_config(m);
    int64_t n = emb->shape[1], H = cfg->text.hidden_size, V = ts_model_vocab_size(m),
            layers = cfg->text.num_hidden_layers;
    /* 1-D positions 0 … n−1: the engine's own when given none. */
    for (int64_t i = 0; i < n; i++) CHECK(((const int64_t *)pos->data)[i] == i);

    const char *adapter = ts_model_adapter_for(m, TS_INPUT_AUDIO);
    REQUIRE(adapter && strcmp(adapter, "speech") == 0);
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(m, n + 16, &seq, &err), TS_OK);
    CHECK_INT_EQ(ts_sequence_set_adapter(seq, adapter, &err), TS_OK);
    float *logits = malloc(sizeof(float) * (size_t)(n * V));
    float **hid = malloc(sizeof(float *) * (size_t)(layers + 1));
    for (int64_t l = 0; l <= layers; l++) hid[l] = malloc(sizeof(float) * (size_t)(n * H));
    ts_diagnostic_prefill diag = {.logits = logits, .hidden = hid, .embeddings = emb->data};
    REQUIRE_INT_EQ(ts_model_prefill_diagnostic(m, seq, NULL, (size_t)n, &diag, &err), TS_OK);

    bool ok = true;
    double worst_hidden = 0, worst_kv = 0, worst_logits = 0;
    for (int64_t l = 0; ok && l <= layers; l++) {
        char stage[64];
        snprintf(stage, sizeof(stage), "hidden_state_%lld", (long long)l);
        const ts_tensor_info *t = ref_tensor(ref, stage);
        ok = t && close_enough(stage, hid[l], t->data, (size_t)(n * H), &worst_hidden);
    }
    /* KV: the reference is [kv_heads, L, head_dim]. */
    int64_t kvh = ts_model_kv_heads(m), hd = ts_model_head_dim(m);
    float *ours = malloc(sizeof(float) * (size_t)(kvh * n * hd)),
          *theirs = malloc(sizeof(float) * (size_t)(kvh * n * hd));
    for (int64_t l = 0; ok && l < layers; l++)
        for (int value = 0; ok && value < 2; value++) {
            char stage[64];
            snprintf(stage, sizeof(stage), "kv_%s_%lld", value ? "value" : "key", (long long)l);
            const ts_tensor_info *t = ref_tensor(ref, stage);
            if (!(ok = t != NULL)) break;
            REQUIRE_INT_EQ(fixture_kv_rows(seq, (int)l, value, t->data, n, kvh, hd, ours, theirs), n);
            ok = close_enough(stage, ours, theirs, (size_t)(kvh * n * hd), &worst_kv);
        }
    free(ours), free(theirs);
    ok = ok && close_enough("prefill_logits", logits, pl->data, (size_t)(n * V), &worst_logits);
    CHECK(ok);

    /* Greedy decode with EOS masked, the speech adapter still on. */
    int64_t n_new = gen->shape[0];
    const float *last = logits + (n - 1) * V;
    float *step = malloc(sizeof(float) * (size_t)V);
    bool tokens_ok = true, logits_ok = true;
    int same = 0;
    for (int64_t i = 0; i < n_new; i++) {
        char stage[64];
        snprintf(stage, sizeof(stage), "decode_logits[%lld]", (long long)i);
        logits_ok = logits_ok && close_enough(stage, last, (const float *)dl->data + i * V,
                                              (size_t)V, &worst_logits);
        int32_t tok = ts_argmax_masked(last, V, cfg->eos_token_ids, cfg->n_eos_token_ids);
        int32_t want = (int32_t)((const int64_t *)gen->data)[i];
        same += tok == want;
        tokens_ok &= tok == want;
        if (i + 1 < n_new) {
            REQUIRE_INT_EQ(ts_model_decode(m, &seq, &want, 1, step, &err), TS_OK);
            last = step;
        }
    }
    CHECK(logits_ok);
    CHECK(tokens_ok);
    fprintf(stderr,
            "  phi4_mm-audio, speech adapter (%s weights, %s): %lld rows, %lld layers; max "
            "|diff|/scale hidden %.3g, kv %.3g, logits %.3g; %d/%lld greedy tokens\n",
            bf16 ? "bf16" : "f32", strcmp(dir, CASE "/model") ? "bf16 adapter file" : "f32 adapter file", (long long)n, (long long)layers, worst_hidden, worst_kv,
            worst_logits, same, (long long)n_new);
    free(step);
    for (int64_t l = 0; l <= layers; l++) free(hid[l]);
    free(hid), free(logits);
    ts_sequence_destroy(seq);
    ts_checkpoint_close(ref);
    ts_model_destroy(m);
}

static void test_speech_adapter_f32(void) { check_speech(CASE "/model", false); }
static void test_speech_adapter_bf16(void) { check_speech(CASE "/model", true); }

/* Prefill of the fixture's embeddings with `adapter`, then `steps` decode steps feeding the
 * reference's greedy ids; each step's logits into out[step]. */
static void run_alone(ts_model *m, const ts_tensor_info *emb, const ts_tensor_info *gen,
                      const char *adapter, int steps, int64_t cap, float *out)
{
    ts_error err;
    ts_sequence *seq;
    int64_t n = emb->shape[1], V = ts_model_vocab_size(m);
    REQUIRE_INT_EQ(ts_sequence_create(m, cap, &seq, &err), TS_OK);
    CHECK_INT_EQ(ts_sequence_set_adapter(seq, adapter, &err), TS_OK);
    float *logits = malloc(sizeof(float) * (size_t)V);
    CHECK_INT_EQ(ts_model_prefill_embeddings(m, seq, emb->data, (size_t)n, NULL, 0, NULL, logits, &err), TS_OK);
    for (int s = 0; s < steps; s++) {
        int32_t tok = (int32_t)((const int64_t *)gen->data)[s];
        CHECK_INT_EQ(ts_model_decode(m, &seq, &tok, 1, out + (size_t)s * (size_t)V, &err), TS_OK);
    }
    free(logits);
    ts_sequence_destroy(seq);
}

static void test_mixed_batch_matches_alone(void)
{
    enum { STEPS = 4 };
    ts_error err;
    ts_model *m;
    ts_checkpoint *ref;
    REQUIRE_INT_EQ(ts_model_load(ctx, CASE "/model", NULL, &m, &err), TS_OK);
    REQUIRE_INT_EQ(ts_checkpoint_open(CASE "/reference.safetensors", &ref, &err), TS_OK);
    const ts_tensor_info *emb = ref_tensor(ref, "lm_inputs_embeds"), *gen = ref_tensor(ref, "generated_ids");
    REQUIRE(emb && gen);
    int64_t n = emb->shape[1], V = ts_model_vocab_size(m), cap = n + 16;
    float *speech = malloc(sizeof(float) * (size_t)(STEPS * V)), *none = malloc(sizeof(float) * (size_t)(STEPS * V)),
          *both = malloc(sizeof(float) * (size_t)(2 * V));
    run_alone(m, emb, gen, "speech", STEPS, cap, speech);
    run_alone(m, emb, gen, NULL, STEPS, cap, none);
    /* The adapter changes the logits (so the comparison below can tell them apart). */
    double scale, apart = max_diff(speech, none, (size_t)V, &scale);
    CHECK(apart > 1e-3);

    ts_sequence *seqs[2];
    float *logits = malloc(sizeof(float) * (size_t)V);
    for (int b = 0; b < 2; b++) {
        REQUIRE_INT_EQ(ts_sequence_create(m, cap, &seqs[b], &err), TS_OK);
        CHECK_INT_EQ(ts_sequence_set_adapter(seqs[b], b == 0 ? "speech" : "none", &err), TS_OK);
        CHECK_INT_EQ(ts_model_prefill_embeddings(m, seqs[b], emb->data, (size_t)n, NULL, 0, NULL, logits, &err), TS_OK);
    }
    double worst = 0;
    bool identical = true;
    for (int s = 0; s < STEPS; s++) {
        int32_t toks[2];
        toks[0] = toks[1] = (int32_t)((const int64_t *)gen->data)[s];
        CHECK_INT_EQ(ts_model_decode(m, seqs, toks, 2, both, &err), TS_OK);
        const float *alone[2] = {speech + (size_t)s * (size_t)V, none + (size_t)s * (size_t)V};
        for (int b = 0; b < 2; b++) {
            identical &= memcmp(both + (size_t)b * (size_t)V, alone[b], sizeof(float) * (size_t)V) == 0;
            double d = max_diff(both + (size_t)b * (size_t)V, alone[b], (size_t)V, &scale);
            if (d > worst) worst = d;
        }
    }
    fprintf(stderr,
            "  mixed decode (speech + none, %d steps): max |batched − alone| %.3g (%s); speech vs "
            "none %.3g\n",
            STEPS, worst, identical ? "bit-identical" : "not bit-identical", apart);
    CHECK(identical);
    for (int b = 0; b < 2; b++) ts_sequence_destroy(seqs[b]);
    free(speech), free(none), free(both), free(logits);
    ts_checkpoint_close(ref);
    ts_model_destroy(m);
}

static void test_adapter_choice(void)
{
    ts_error err;
    ts_model *m;
    /* phi4_mm-text ships the adapters too: text_fixture_test's phi4_mm-text case runs the LoRA
     * graph with adapter none (every projection a lora_linear) and stays token-exact. */
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/phi4_mm-text/model", NULL, &m, &err), TS_OK);
    CHECK(ts_model_adapter_for(m, TS_INPUT_AUDIO) != NULL);
    ts_model_destroy(m);
    REQUIRE_INT_EQ(ts_model_load(ctx, CASE "/model", NULL, &m, &err), TS_OK);
    CHECK(ts_model_adapter_for(m, 0) == NULL);
    CHECK(strcmp(ts_model_adapter_for(m, TS_INPUT_AUDIO), "speech") == 0);
    CHECK(strcmp(ts_model_adapter_for(m, TS_INPUT_IMAGE), "vision") == 0);
    CHECK(strcmp(ts_model_adapter_for(m, TS_INPUT_IMAGE | TS_INPUT_AUDIO), "vision") == 0);
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(m, 8, &seq, &err), TS_OK);
    CHECK(strcmp(ts_sequence_adapter(seq), "none") == 0);
    CHECK_INT_EQ(ts_sequence_set_adapter(seq, "music", &err), TS_ERR_UNSUPPORTED);
    CHECK(strstr(err.message, "\"music\"") != NULL);
    CHECK_INT_EQ(ts_sequence_set_adapter(seq, "vision", &err), TS_OK);
    int32_t tok = 5;
    float *logits = malloc(sizeof(float) * (size_t)ts_model_vocab_size(m));
    CHECK_INT_EQ(ts_model_prefill(m, seq, &tok, 1, logits, &err), TS_OK);
    CHECK_INT_EQ(ts_sequence_set_adapter(seq, "speech", &err), TS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "computed with \"vision\"") != NULL);
    CHECK_INT_EQ(ts_sequence_set_adapter(seq, "vision", &err), TS_OK); /* the same: fine */
    ts_sequence_reset(seq);
    CHECK(strcmp(ts_sequence_adapter(seq), "none") == 0);
    free(logits);
    ts_sequence_destroy(seq);
    ts_model_destroy(m);
}

/* The prefix cache shares rows only between sequences of the same adapter. */
static void test_prefix_cache_keys_the_adapter(void)
{
    enum { N = 40 };
    ts_error err;
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, CASE "/model", NULL, &m, &err), TS_OK);
    int32_t ids[N];
    for (int i = 0; i < N; i++) ids[i] = 10 + 7 * i;
    ts_sequence *like;
    REQUIRE_INT_EQ(ts_sequence_create(m, 64, &like, &err), TS_OK);
    ts_prefix_cache *cache;
    REQUIRE_INT_EQ(ts_prefix_cache_create(m, like, 1 << 24, &cache, &err), TS_OK);
    ts_prefix_prompt prompt = {.ids = ids, .n = N, .chunk = 256};
    float *logits = malloc(sizeof(float) * (size_t)ts_model_vocab_size(m));
    const char *order[3] = {"speech", "none", "speech"};
    int64_t restored[3];
    for (int r = 0; r < 3; r++) {
        ts_sequence *seq;
        ts_prefix_keys *keys;
        REQUIRE_INT_EQ(ts_sequence_create(m, 64, &seq, &err), TS_OK);
        CHECK_INT_EQ(ts_sequence_set_adapter(seq, order[r], &err), TS_OK);
        CHECK_INT_EQ(ts_prefix_cache_begin(cache, &prompt, seq, &keys, &restored[r], &err), TS_OK);
        CHECK_INT_EQ(ts_model_prefill(m, seq, ids + restored[r], (size_t)(N - restored[r]), logits, &err), TS_OK);
        ts_prefix_cache_store(cache, keys, seq);
        ts_prefix_keys_free(keys);
        ts_sequence_destroy(seq);
    }
    /* speech stores; none finds nothing of it; speech again restores 16 rows (the exactness rule
     * keeps the last 24 rows in one call of ≥ 16) */
    CHECK_INT_EQ(restored[0], 0);
    CHECK_INT_EQ(restored[1], 0);
    CHECK_INT_EQ(restored[2], 16);
    free(logits);
    ts_prefix_cache_destroy(cache);
    ts_sequence_destroy(like);
    ts_model_destroy(m);
}

/* A copy of the case's model folder in dir (base files linked) with one adapter, speech-lora/:
 * its config the fixture's (config NULL) or `config`, its tensors the fixture's file or, with
 * bf16, that file's tensors rounded to bf16. remove_model undoes it. */
static const char *const linked[] = {"config.json", "model.safetensors", "generation_config.json",
                                     "tokenizer.json", "tokenizer_config.json",
                                     "speech-lora/adapter_config.json",
                                     "speech-lora/adapter_model.safetensors"};
enum { N_LINKED = sizeof(linked) / sizeof(linked[0]) };

static uint16_t round_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

static bool write_bf16_adapter(const char *from, const char *to)
{
    ts_error err;
    ts_checkpoint *ck;
    if (ts_checkpoint_open(from, &ck, &err) != TS_OK) return false;
    size_t n = ts_checkpoint_tensor_count(ck);
    ts_tensor_info *infos = calloc(n, sizeof(*infos));
    const ts_tensor_info **list = calloc(n, sizeof(*list));
    uint16_t **data = calloc(n, sizeof(*data));
    bool ok = infos && list && data;
    for (size_t i = 0; ok && i < n; i++) {
        const ts_tensor_info *t = ts_checkpoint_tensor_at(ck, i);
        size_t count = t->n_bytes / 4;
        ok = t->dtype == TS_DTYPE_F32 && (data[i] = malloc(2 * count + 2)) != NULL;
        for (size_t j = 0; ok && j < count; j++) data[i][j] = round_bf16(((const float *)t->data)[j]);
        infos[i] = *t;
        infos[i].dtype = TS_DTYPE_BF16, infos[i].data = data[i], infos[i].n_bytes = 2 * count;
        list[i] = &infos[i];
    }
    ok = ok && ts_safetensors_write(to, list, n, &err) == TS_OK;
    for (size_t i = 0; data && i < n; i++) free(data[i]);
    free(data), free(list), free(infos);
    ts_checkpoint_close(ck);
    return ok;
}

static bool make_model(char *dir, const char *config, bool bf16)
{
    char path[1024], src[1024], cwd[256];
    if (!mkdtemp(dir) || !getcwd(cwd, sizeof(cwd))) return false;
    snprintf(path, sizeof(path), "%s/speech-lora", dir);
    bool ok = mkdir(path, 0700) == 0;
    for (int i = 0; ok && i < N_LINKED; i++) {
        snprintf(src, sizeof(src), "%s/" CASE "/model/%s", cwd, linked[i]);
        snprintf(path, sizeof(path), "%s/%s", dir, linked[i]);
        if (i == N_LINKED - 2 && config) {
            FILE *f = fopen(path, "w");
            ok = f && fputs(config, f) >= 0;
            if (f) fclose(f);
        } else if (i == N_LINKED - 1 && bf16) {
            ok = write_bf16_adapter(src, path);
        } else {
            ok = symlink(src, path) == 0;
        }
    }
    return ok;
}

static void remove_model(const char *dir)
{
    char path[1024];
    for (int i = 0; i < N_LINKED; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, linked[i]);
        unlink(path);
    }
    snprintf(path, sizeof(path), "%s/speech-lora", dir);
    rmdir(path);
    rmdir(dir);
}

/* The speech adapter's config with `key` set to `value`: the load is refused, saying `message`. */
static void expect_refused(const char *key, const char *value, const char *message)
{
    /* The fixture's plain keys, with `key` replacing its own entry (no duplicate keys). */
    const char *plain[][2] = {{"peft_type", "\"LORA\""}, {"r", "4"}, {"lora_alpha", "8"}, {"bias", "\"none\""}};
    char config[512];
    int at = snprintf(config, sizeof(config), "{\"%s\": %s", key, value);
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
        if (strcmp(plain[i][0], key) != 0)
            at += snprintf(config + at, sizeof(config) - (size_t)at, ", \"%s\": %s", plain[i][0], plain[i][1]);
    snprintf(config + at, sizeof(config) - (size_t)at, "}\n");
    char dir[] = "/tmp/ts_lora_XXXXXX";
    REQUIRE(make_model(dir, config, false));
    ts_error err;
    ts_model *m = NULL;
    CHECK(ts_model_load(ctx, dir, NULL, &m, &err) != TS_OK);
    CHECK(strstr(err.message, message) != NULL);
    if (!strstr(err.message, message)) fprintf(stderr, "  %s: %s\n", key, err.message);
    ts_model_destroy(m);
    remove_model(dir);
}

/* bf16 adapter files are kept bf16 (not widened): the same stages within the same tolerance. */
static void test_speech_adapter_bf16_file(void)
{
    char dir[] = "/tmp/ts_lora_XXXXXX";
    REQUIRE(make_model(dir, NULL, true));
    ts_error err;
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, dir, NULL, &m, &err), TS_OK);
    const ts_weight_source *w = ts_model_weights(m);
    int64_t dims[3] = {2, 4, 48};
    const ts_tensor_info *a = w->find(w->self, "model.layers.0.self_attn.q_proj.lora_A", 3, dims);
    CHECK(a && a->dtype == TS_DTYPE_BF16 && a->shape[0] == 2 && a->shape[1] == 4);
    ts_model_destroy(m);
    check_speech(dir, false);
    remove_model(dir);
}

static void test_unsupported_configs_refused(void)
{
    expect_refused("use_dora", "true", "use_dora is set");
    expect_refused("use_rslora", "true", "use_rslora is set");
    expect_refused("fan_in_fan_out", "true", "fan_in_fan_out is set");
    expect_refused("rank_pattern", "{\"o_proj\": 8}", "rank_pattern is set");
    expect_refused("modules_to_save", "[\"lm_head\"]", "modules_to_save is set");
    expect_refused("bias", "\"all\"", "bias \"all\"");
    expect_refused("peft_type", "\"LOHA\"", "peft_type \"LOHA\"");
    /* the file's tensors are rank 4 */
    expect_refused("r", "8", "self_attn.qkv_proj.lora_A.weight must be float [8, 48]");
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    RUN(test_speech_adapter_f32);
    RUN(test_speech_adapter_bf16);
    RUN(test_speech_adapter_bf16_file);
    RUN(test_mixed_batch_matches_alone);
    RUN(test_adapter_choice);
    RUN(test_prefix_cache_keys_the_adapter);
    RUN(test_unsupported_configs_refused);
    ts_context_destroy(ctx);
    return check_finish();
}
