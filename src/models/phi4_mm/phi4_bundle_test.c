/* phi4_bundle_test.c — Phi-4-multimodal through its exported bundle on Tessera's own bundle
 * runtime (issue 16): the fused q/k/v and gate/up parts and the stacked LoRA adapters held in the
 * bundle's weights.safetensors (manifest bundle_weights), the adapters named by index (manifest
 * adapters) and selected per row by every entry's `adapters` input.
 *
 *   - phi4_mm-audio: the reference's merged embeddings (lm_inputs_embeds) through
 *     prefill_embeddings.main with the speech adapter, then 15 decode.main steps, against the engine
 *     (the same embeddings, the sequence's speech adapter): logits bit for bit, and the reference's
 *     16 greedy ids; decode_k.main (4 rows a slot) verifies the first 4 ids with the speech
 *     adapter as the decode chain predicts them; with adapter 0 instead the ids differ (the
 *     argument is what selects it);
 *   - audio.main in two duration buckets (104 and 200 feature frames) from the reference's
 *     features of a 98-frame clip: its 13 rows within the fixture tolerance of the reference's
 *     audio_embeds_speech, the padding rows zero; the WAV through ts_bundle_encode_audio and
 *     ts_bundle_generate_audio gives the reference's ids; frames past the bucket, a NaN feature and
 *     another bucket's shape refused;
 *   - phi4_mm-text: ts_bundle_generate = the reference's 16 ids (adapter none);
 *   - images through vision.main (layout hd_views, buckets of 3 and 5 views): phi4_mm-image-small's
 *     rows = the engine's bit for bit and within tolerance of image_embeds, padding views change
 *     nothing, its and phi4_mm-image's 16 ids (vision adapter); malformed key_bias, layout,
 *     positions and a bucket's wrong view count refused by name;
 *   - one decode.main call over two slots mixing the speech adapter and none gives each slot the
 *     logits it gets alone (selection is an argument, not a recompile);
 *   - refused, naming what is wrong: an adapters value past the manifest's names, an adapter the
 *     slot cannot take, a held weight missing from the bundle's file, a manifest without its
 *     adapters object whose modules take `adapters` (identity re-stamped so only the contract
 *     check can see it), an audio bucket whose module takes another shape than the manifest's. */
#include "base/file.h"
#include "bundle/bundle.h"
#include "bundle/manifest.h"
#include "engine/model.h"
#include "loader/safetensors_write.h"
#include "models/family.h"
#include "models/phi4_mm/phi4_image_processor.h"
#include "models/phi4_mm/phi4_vision.h"
#include "check.h"

#include <ftw.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define AUDIO "tests/fixtures/phi4_mm-audio"
#define TEXT "tests/fixtures/phi4_mm-text"

static ts_context *ctx;
static char tmp[64];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* The audio buckets: the fixture's clip (98 frames, 13 tokens) fits the first with 6 padding
 * frames, the second with 102 (12 padding tokens). */
static const int64_t audio_frames[2] = {104, 200};

static bool export_to(const char *model, const char *bundle, int64_t slots, bool audio)
{
    int64_t cap = 64;
    /* With the audio buckets also decode_k.main (4 rows a slot): its adapters are [slots, 4]. */
    ts_bundle_options o = {.capacities = &cap, .n_capacities = 1, .prefill_capacity = 48, .slots = slots,
                           .audio_frames = audio ? audio_frames : NULL, .n_audio_frames = audio ? 2 : 0,
                           .draft_width = audio ? 4 : 0};
    ts_error err;
    if (ts_bundle_export(model, bundle, &o, &err) == TS_OK) return true;
    fprintf(stderr, "export: %s\n", err.message);
    return false;
}

static int argmax(const float *x, int64_t n)
{
    int best = 0;
    for (int64_t i = 1; i < n; i++)
        if (x[i] > x[best]) best = (int)i;
    return best;
}

static double max_diff(const float *a, const float *b, int64_t n)
{
    double worst = 0;
    for (int64_t i = 0; i < n; i++) worst = fmax(worst, fabs((double)a[i] - b[i]));
    return worst;
}

/* The audio fixture's prompt rows through the bundle (adapter `adapter` in slot 0) and, when
 * engine is set, through the engine with the speech adapter; the greedy ids into ids[16]. */
static void audio_through_bundle(ts_bundle *b, ts_model *m, int adapter, bool engine, int32_t ids[16], double *worst)
{
    ts_error err;
    ts_checkpoint *ref;
    REQUIRE_INT_EQ(ts_checkpoint_open(AUDIO "/reference.safetensors", &ref, &err), TS_OK);
    const ts_tensor_info *emb = ts_checkpoint_find(ref, "lm_inputs_embeds");
    REQUIRE(emb);
    int64_t n = emb->shape[1], H = emb->shape[2], V = ts_model_vocab_size(m);
    int32_t positions[64];
    for (int64_t i = 0; i < n; i++) positions[i] = (int32_t)i;
    ts_bundle_slots *slots;
    ts_sequence *seq = NULL;
    REQUIRE_INT_EQ(ts_bundle_slots_create(b, 0, &slots, &err), TS_OK);
    CHECK_INT_EQ(ts_bundle_slots_set_adapter(slots, 0, adapter, &err), TS_OK);
    float *ours = malloc(sizeof(float) * (size_t)V), *theirs = malloc(sizeof(float) * (size_t)V);
    CHECK_INT_EQ(ts_bundle_slots_prefill_embeddings(slots, 0, emb->data, (size_t)n, H, positions, 0, NULL, ours, &err), TS_OK);
    if (engine) {
        CHECK_INT_EQ(ts_sequence_create(m, 64, &seq, &err), TS_OK);
        CHECK_INT_EQ(ts_sequence_set_adapter(seq, "speech", &err), TS_OK);
        CHECK_INT_EQ(ts_model_prefill_embeddings(m, seq, emb->data, (size_t)n, NULL, 0, NULL, theirs, &err), TS_OK);
    }
    bool active = true;
    for (int step = 0; step < 16; step++) {
        if (engine) *worst = fmax(*worst, max_diff(ours, theirs, V));
        ids[step] = argmax(ours, V);
        if (step == 15) break;
        CHECK_INT_EQ(ts_bundle_slots_decode(slots, &ids[step], &active, ours, &err), TS_OK);
        if (engine) CHECK_INT_EQ(ts_model_decode(m, &seq, &ids[step], 1, theirs, &err), TS_OK);
    }
    free(ours), free(theirs);
    ts_sequence_destroy(seq);
    ts_bundle_slots_destroy(slots);
    ts_checkpoint_close(ref);
}

static bool reference_ids(const char *path, const int32_t ids[16])
{
    ts_error err;
    ts_checkpoint *ref;
    if (ts_checkpoint_open(path, &ref, &err) != TS_OK) return false;
    const ts_tensor_info *gen = ts_checkpoint_find(ref, "generated_ids");
    bool same = gen && gen->shape[0] == 16;
    for (int i = 0; same && i < 16; i++) same = ((const int64_t *)gen->data)[i] == ids[i];
    ts_checkpoint_close(ref);
    return same;
}

/* The case's prompt (input_ids) through the bundle, 16 greedy ids (with audio: its rows and the
 * family's adapter, ts_bundle_generate_audio; with an image: vision.main's rows and the family's
 * adapter, ts_bundle_generate_images): the reference's generated_ids. */
static bool greedy_is_reference(ts_bundle *b, ts_model *m, const char *case_dir, const ts_encoded_media *audio,
                                const ts_pixel_values *image)
{
    char path[200];
    snprintf(path, sizeof(path), "%s/reference.safetensors", case_dir);
    ts_error err;
    ts_checkpoint *ref;
    if (ts_checkpoint_open(path, &ref, &err) != TS_OK) return false;
    const ts_tensor_info *in = ts_checkpoint_find(ref, "input_ids");
    int32_t prompt[760], ids[16] = {0};
    size_t n = in && in->shape[1] <= 760 ? (size_t)in->shape[1] : 0;
    for (size_t i = 0; i < n; i++) prompt[i] = (int32_t)((const int64_t *)in->data)[i];
    ts_checkpoint_close(ref);
    ts_generate_params p = {.max_tokens = 16, .ignore_eos = true};
    ts_sampling_params_default(&p.sampling);
    p.sampling.temperature = 0;
    ts_generation g = {0};
    ts_status st = image   ? ts_bundle_generate_images(b, m, prompt, n, image, 1, &p, &g, &err)
                   : audio ? ts_bundle_generate_audio(b, m, prompt, n, audio, &p, &g, &err)
                           : ts_bundle_generate(b, prompt, n, &p, &g, &err);
    if (st != TS_OK) fprintf(stderr, "  generate: %s\n", err.message);
    for (int i = 0; st == TS_OK && i < 16 && i < (int)g.n_ids; i++) ids[i] = g.ids[i];
    bool same = st == TS_OK && g.n_ids == 16 && reference_ids(path, ids);
    ts_generation_free(&g);
    return same;
}

static void test_audio(void)
{
    char bundle[160];
    snprintf(bundle, sizeof(bundle), "%s/audio", tmp);
    REQUIRE(export_to(AUDIO "/model", bundle, 1, true));
    ts_error err;
    ts_bundle *b;
    ts_model *m;
    REQUIRE_INT_EQ(ts_bundle_open(ctx, bundle, AUDIO "/model", &b, &err), TS_OK);
    REQUIRE_INT_EQ(ts_model_load(ctx, AUDIO "/model", NULL, &m, &err), TS_OK);
    CHECK_INT_EQ(ts_bundle_adapter_count(b), 3);
    int speech = ts_bundle_adapter_index(b, "speech");
    CHECK_INT_EQ(speech, 1);
    CHECK_INT_EQ(ts_bundle_adapter_index(b, "music"), -1);
    int32_t ids[16], base[16];
    double worst = 0;
    audio_through_bundle(b, m, speech, true, ids, &worst);
    fprintf(stderr, "  phi4_mm-audio, speech adapter: bundle vs engine max |logit diff| %.3g over 16 steps; ids %s the reference's\n",
            worst, reference_ids(AUDIO "/reference.safetensors", ids) ? "=" : "DIFFER FROM");
    CHECK(worst == 0); /* bit for bit: the module's lora_linear runs the engine's kernels */
    CHECK(reference_ids(AUDIO "/reference.safetensors", ids));
    /* decode_k.main with the speech adapter: the prompt rows, then the reference's first 4 ids
     * verified in one call = the decode chain's next 4 predictions (its greedy ids 1 … 4). */
    {
        ts_checkpoint *ref;
        REQUIRE_INT_EQ(ts_checkpoint_open(AUDIO "/reference.safetensors", &ref, &err), TS_OK);
        const ts_tensor_info *emb = ts_checkpoint_find(ref, "lm_inputs_embeds");
        int64_t n = emb->shape[1], V = ts_model_vocab_size(m);
        int32_t positions[64], rows[4] = {ids[0], ids[1], ids[2], ids[3]};
        int n_rows = 4;
        for (int64_t i = 0; i < n; i++) positions[i] = (int32_t)i;
        ts_bundle_slots *slots;
        REQUIRE_INT_EQ(ts_bundle_slots_create(b, 0, &slots, &err), TS_OK);
        CHECK_INT_EQ(ts_bundle_slots_draft_width(slots), 4);
        CHECK_INT_EQ(ts_bundle_slots_set_adapter(slots, 0, speech, &err), TS_OK);
        float *logits = malloc(sizeof(float) * (size_t)(4 * V));
        CHECK_INT_EQ(ts_bundle_slots_prefill_embeddings(slots, 0, emb->data, (size_t)n, emb->shape[2], positions, 0, NULL, logits, &err),
                     TS_OK);
        CHECK_INT_EQ(ts_bundle_slots_verify(slots, rows, &n_rows, logits, &err), TS_OK);
        for (int j = 0; j < 4; j++) CHECK_INT_EQ(argmax(logits + j * V, V), ids[j + 1]);
        free(logits);
        ts_bundle_slots_destroy(slots);
        ts_checkpoint_close(ref);
    }
    /* Adapter 0 on the same rows: not the reference (the argument is what selects the adapter). */
    audio_through_bundle(b, m, 0, false, base, &worst);
    CHECK(!reference_ids(AUDIO "/reference.safetensors", base));

    /* Out of range at the runtime boundary, naming the input. */
    int64_t lp = 48;
    int32_t tokens[48] = {0}, length = 3, bad[48];
    for (int i = 0; i < 48; i++) bad[i] = i == 7 ? 3 : 0;
    ts_tensor_arg args[3] = {{"tokens", TS_DTYPE_I32, 1, {lp}, tokens, sizeof(tokens)},
                             {"length", TS_DTYPE_I32, 0, {0}, &length, sizeof(length)},
                             {"adapters", TS_DTYPE_I32, 1, {lp}, bad, sizeof(bad)}};
    const void *outs[3];
    CHECK_INT_EQ(ts_bundle_run(b, 0, "prefill.main", args, 3, outs, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "prefill.main: adapters[7] = 3 is outside 0..2");
    CHECK_INT_EQ(ts_bundle_run(b, 0, "prefill.main", args, 2, outs, &err), TS_ERR_INVALID_ARGUMENT);
    ts_bundle_slots *slots;
    REQUIRE_INT_EQ(ts_bundle_slots_create(b, 0, &slots, &err), TS_OK);
    CHECK_INT_EQ(ts_bundle_slots_set_adapter(slots, 0, 3, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "the bundle serves 3 adapters");
    float logits[1344];
    CHECK_INT_EQ(ts_bundle_slots_prefill(slots, 0, tokens + 1, 2, logits, &err), TS_OK);
    CHECK_INT_EQ(ts_bundle_slots_set_adapter(slots, 0, 1, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "reset it first");
    ts_bundle_slots_destroy(slots);
    ts_model_destroy(m);
    ts_bundle_close(b);
}

/* audio.main in both buckets from the reference's features: the clip's 13 rows within the
 * fixture tolerance of audio_embeds_speech (1e-4 · max(1, max |ref|)), the padding rows zero;
 * then the WAV through ts_bundle_encode_audio and ts_bundle_generate_audio: the reference's ids;
 * then the calls it must refuse. */
static void test_audio_main(void)
{
    char bundle[160];
    snprintf(bundle, sizeof(bundle), "%s/audio", tmp);
    ts_error err;
    ts_bundle *b;
    ts_model *m;
    ts_checkpoint *ref;
    REQUIRE_INT_EQ(ts_bundle_open(ctx, bundle, AUDIO "/model", &b, &err), TS_OK);
    REQUIRE_INT_EQ(ts_model_load(ctx, AUDIO "/model", NULL, &m, &err), TS_OK);
    REQUIRE_INT_EQ(ts_checkpoint_open(AUDIO "/reference.safetensors", &ref, &err), TS_OK);
    const ts_tensor_info *feats = ts_checkpoint_find(ref, "audio_input_features"), *want = ts_checkpoint_find(ref, "audio_embeds_speech");
    REQUIRE(feats && want && feats->shape[1] == 98 && want->shape[1] == 13);
    int64_t H = want->shape[2], mels = feats->shape[2];
    double scale = 1;
    for (int64_t i = 0; i < 13 * H; i++) scale = fmax(scale, fabs(((const float *)want->data)[i]));
    for (int bucket = 0; bucket < 2; bucket++) {
        int64_t f = audio_frames[bucket], t = (f + 7) / 8;
        float *x = calloc((size_t)(f * mels), sizeof(float));
        memcpy(x, feats->data, sizeof(float) * (size_t)(98 * mels));
        int32_t frames = 98, projector = 0;
        ts_tensor_arg args[3] = {{"audio_features", TS_DTYPE_F32, 2, {f, mels}, x, sizeof(float) * (size_t)(f * mels)},
                                 {"frames", TS_DTYPE_I32, 0, {0}, &frames, sizeof(frames)},
                                 {"projector", TS_DTYPE_I32, 0, {0}, &projector, sizeof(projector)}};
        const void *outs[1];
        CHECK_INT_EQ(ts_bundle_run_audio(b, bucket, args, 3, outs, &err), TS_OK);
        const float *rows = outs[0];
        double d = max_diff(rows, want->data, 13 * H), pad = 0;
        for (int64_t i = 13 * H; i < t * H; i++) pad = fmax(pad, fabs(rows[i]));
        fprintf(stderr, "  audio.main, %lld-frame bucket (98-frame clip): 13 rows vs audio_embeds_speech max |diff| %.3g (tolerance %.3g); "
                        "%lld padding rows max |value| %g\n",
                (long long)f, d, 1e-4 * scale, (long long)(t - 13), pad);
        CHECK(d <= 1e-4 * scale);
        CHECK(pad == 0);
        /* The engine's own encoder on the clip alone (no padding, the same graph otherwise). */
        ts_encoded_media alone = {0};
        CHECK_INT_EQ(ts_model_encode_audio_features(m, NULL, feats->data, 98, mels, TS_MODALITY_AUDIO, &alone, &err), TS_OK);
        double e = alone.n_audio_rows == 13 ? max_diff(rows, alone.audio_rows, 13 * H) : INFINITY;
        fprintf(stderr, "    vs the engine's encoder on the clip alone: max |diff| %.3g\n", e);
        CHECK(e <= 1e-5 * scale);
        ts_encoded_media_free(&alone);
        if (bucket == 1) {
            /* Refused, naming what is wrong: frames past the bucket, a NaN feature, the other
             * bucket's shape. */
            frames = 201;
            CHECK_INT_EQ(ts_bundle_run_audio(b, 1, args, 3, outs, &err), TS_ERR_RANGE);
            CHECK_CONTAINS(err.message, "audio.main: frames[0] = 201 is outside 1..200");
            frames = 98, x[5 * mels + 3] = NAN;
            CHECK_INT_EQ(ts_bundle_run_audio(b, 1, args, 3, outs, &err), TS_ERR_RANGE);
            CHECK_CONTAINS(err.message, "audio_features[5][3] is NaN");
            x[5 * mels + 3] = 0, projector = 2;
            CHECK_INT_EQ(ts_bundle_run_audio(b, 1, args, 3, outs, &err), TS_ERR_RANGE);
            CHECK_CONTAINS(err.message, "audio.main: projector[0] = 2 is outside 0..1");
            projector = 0;
            CHECK_INT_EQ(ts_bundle_run_audio(b, 0, args, 3, outs, &err), TS_ERR_INVALID_ARGUMENT);
            CHECK_CONTAINS(err.message, "expected audio_features F32[104, 80] (bucket of 104 frames)");
            CHECK_INT_EQ(ts_bundle_run_audio(b, 2, args, 3, outs, &err), TS_ERR_RANGE);
        }
        free(x);
    }
    /* The WAV end to end through the bundle: its prompt, audio.main, the speech adapter. */
    char *wav;
    size_t len;
    REQUIRE_INT_EQ(ts_file_read(AUDIO "/speech_16k_s16_1s.wav", &wav, &len, &err), TS_OK);
    ts_encoded_media media = {0};
    CHECK_INT_EQ(ts_bundle_encode_audio(b, m, wav, len, NULL, TS_MODALITY_AUDIO, &media, &err), TS_OK);
    CHECK_INT_EQ((int)media.n_audio_rows, 13);
    CHECK(greedy_is_reference(b, m, AUDIO, &media, NULL));
    ts_encoded_media_free(&media);
    free(wav);
    ts_checkpoint_close(ref);
    ts_model_destroy(m);
    ts_bundle_close(b);
}

static void test_text(void)
{
    char bundle[160];
    snprintf(bundle, sizeof(bundle), "%s/text", tmp);
    REQUIRE(export_to(TEXT "/model", bundle, 1, false));
    ts_error err;
    ts_bundle *b;
    REQUIRE_INT_EQ(ts_bundle_open(ctx, bundle, TEXT "/model", &b, &err), TS_OK);
    CHECK(greedy_is_reference(b, NULL, TEXT, NULL, NULL));
    ts_bundle_close(b);
}

/* One decode.main over two slots, speech in slot 0 and none in slot 1, = each alone. */
static void test_mixed_adapters(void)
{
    char bundle[160];
    snprintf(bundle, sizeof(bundle), "%s/two", tmp);
    REQUIRE(export_to(AUDIO "/model", bundle, 2, false));
    ts_error err;
    ts_bundle *b;
    ts_bundle_slots *s;
    REQUIRE_INT_EQ(ts_bundle_open(ctx, bundle, AUDIO "/model", &b, &err), TS_OK);
    REQUIRE_INT_EQ(ts_bundle_slots_create(b, 0, &s, &err), TS_OK);
    const int32_t prompt[5] = {1282, 51, 81, 596, 740};
    float pre[2][1344], both[2][1344], alone[2][1344];
    int32_t next[2];
    for (int slot = 0; slot < 2; slot++) {
        CHECK_INT_EQ(ts_bundle_slots_set_adapter(s, slot, slot == 0 ? 1 : 0, &err), TS_OK);
        CHECK_INT_EQ(ts_bundle_slots_prefill(s, slot, prompt, 5, pre[slot], &err), TS_OK);
        next[slot] = argmax(pre[slot], 1344);
    }
    CHECK(max_diff(pre[0], pre[1], 1344) > 1e-3); /* the adapter changes the prefill */
    bool on[2] = {true, true};
    CHECK_INT_EQ(ts_bundle_slots_decode(s, next, on, &both[0][0], &err), TS_OK);
    for (int slot = 0; slot < 2; slot++) {
        ts_bundle_slots *one;
        float logits[2][1344], first[1344];
        bool only[2] = {slot == 0, slot == 1};
        REQUIRE_INT_EQ(ts_bundle_slots_create(b, 0, &one, &err), TS_OK);
        CHECK_INT_EQ(ts_bundle_slots_set_adapter(one, slot, slot == 0 ? 1 : 0, &err), TS_OK);
        CHECK_INT_EQ(ts_bundle_slots_prefill(one, slot, prompt, 5, first, &err), TS_OK);
        CHECK_INT_EQ(ts_bundle_slots_decode(one, next, only, &logits[0][0], &err), TS_OK);
        memcpy(alone[slot], logits[slot], sizeof(alone[slot]));
        ts_bundle_slots_destroy(one);
    }
    double d0 = max_diff(both[0], alone[0], 1344), d1 = max_diff(both[1], alone[1], 1344);
    fprintf(stderr, "  two slots (speech, none) in one decode.main: max |diff| vs alone %.3g, %.3g\n", d0, d1);
    CHECK(d0 == 0 && d1 == 0);
    ts_bundle_slots_destroy(s);
    ts_bundle_close(b);
}

/* A copy of the audio bundle, then one defect each: a held weight missing from the file; a
 * manifest that drops its adapters object (identity re-stamped: only the contract sees it). */
static void test_bad_bundles(void)
{
    char bundle[160], path[300], cmd[700];
    snprintf(bundle, sizeof(bundle), "%s/audio", tmp);
    ts_error err;
    ts_bundle *b = NULL;
    /* 1. weights.safetensors without model.layers.1.mlp.down_proj.lora_B. */
    snprintf(cmd, sizeof(cmd), "rm -rf %s/bad && cp -r %s %s/bad", tmp, bundle, tmp);
    REQUIRE(system(cmd) == 0);
    ts_checkpoint *held;
    snprintf(path, sizeof(path), "%s/weights.safetensors", bundle);
    REQUIRE_INT_EQ(ts_checkpoint_open(path, &held, &err), TS_OK);
    int n = (int)ts_checkpoint_tensor_count(held), kept = 0;
    const ts_tensor_info **keep = malloc(sizeof(*keep) * (size_t)n);
    for (int i = 0; i < n; i++) {
        const ts_tensor_info *t = ts_checkpoint_tensor_at(held, (size_t)i);
        if (strcmp(t->name, "model.layers.1.mlp.down_proj.lora_B") != 0) keep[kept++] = t;
    }
    CHECK_INT_EQ(kept, n - 1);
    snprintf(path, sizeof(path), "%s/bad/weights.safetensors", tmp);
    CHECK_INT_EQ(ts_safetensors_write(path, keep, (size_t)kept, &err), TS_OK);
    free(keep);
    ts_checkpoint_close(held);
    snprintf(path, sizeof(path), "%s/bad", tmp);
    CHECK_INT_EQ(ts_bundle_open(ctx, path, AUDIO "/model", &b, &err), TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, "model.layers.1.mlp.down_proj.lora_B is not in the bundle's weights.safetensors");
    ts_bundle_close(b), b = NULL;

    /* 2. No adapters object, the modules still taking `adapters`; 3. an audio bucket the
     * manifest says is 208 frames, its module taking 200. Each re-stamped (identity) so only the
     * contract check can see it. */
    for (int defect = 0; defect < 3; defect++) {
        snprintf(cmd, sizeof(cmd), "rm -rf %s/bad && cp -r %s %s/bad", tmp, bundle, tmp);
        REQUIRE(system(cmd) == 0);
        snprintf(path, sizeof(path), "%s/bad/manifest.json", tmp);
        char *json, *texts[TS_BUNDLE_MAX_MODULES] = {0}, *out = NULL;
        size_t len;
        ts_manifest man;
        REQUIRE_INT_EQ(ts_file_read(path, &json, &len, &err), TS_OK);
        REQUIRE_INT_EQ(ts_manifest_read(json, len, "manifest.json", &man, &err), TS_OK);
        free(json);
        int modules = ts_manifest_module_count(&man);
        CHECK_INT_EQ(modules, 6); /* prefill, prefill_embeddings, decode, decode_k, two audio buckets */
        for (int i = 0; i < modules; i++) {
            char file[400];
            snprintf(file, sizeof(file), "%s/bad/%s", tmp, ts_manifest_module_file(&man, i));
            CHECK_INT_EQ(ts_file_read(file, &texts[i], &len, &err), TS_OK);
        }
        if (defect == 0) man.adapters.n = 0;
        else if (defect == 1) man.audio.frames[1] = 208;
        else man.audio.n_projectors = 0; /* 4. no projector names for audio.main's `projector` */
        CHECK_INT_EQ(ts_manifest_write(&man, (const char *const *)texts, &out, &err), TS_OK);
        FILE *f = fopen(path, "wb");
        REQUIRE(f && out);
        fputs(out, f);
        fclose(f);
        free(out);
        for (int i = 0; i < modules; i++) free(texts[i]);
        ts_manifest_fini(&man);
        snprintf(path, sizeof(path), "%s/bad", tmp);
        CHECK_INT_EQ(ts_bundle_open(ctx, path, AUDIO "/model", &b, &err), TS_ERR_FORMAT);
        CHECK_CONTAINS(err.message, defect == 0   ? "lora.scale without an adapters object"
                                    : defect == 1 ? "audio bucket 1 (208 frames, ascending) must take audio_features F32[208, 80]"
                                                  : "audio.projectors");
        ts_bundle_close(b), b = NULL;
    }
}

/* ---------------------------------------------------------------- images: vision.main (hd_views) */

#define IMAGE "tests/fixtures/phi4_mm-image-small"
#define CHELSEA "tests/fixtures/phi4_mm-image"

/* A case's image preprocessed by the model's processor. */
static bool image_pixels(ts_model *m, const char *case_dir, const char *file, ts_pixel_values *pv)
{
    ts_error err;
    ts_image img = {0};
    ts_preprocessor_config pc;
    char path[200], model[200];
    snprintf(path, sizeof(path), "%s/%s", case_dir, file);
    snprintf(model, sizeof(model), "%s/model", case_dir);
    bool ok = ts_image_load(path, NULL, &img, &err) == TS_OK && ts_preprocessor_config_load(model, &pc, &err) == TS_OK &&
              ts_preprocess_image(&pc, ts_model_get_config(m)->family, img.rgb, img.width, img.height, NULL, pv, &err) ==
                  TS_OK;
    if (!ok) fprintf(stderr, "image: %s\n", err.message);
    ts_image_free(&img);
    return ok;
}

/* vision.main's arguments for pv in a bucket of `views` views (the layout's own host side); false
 * when pv is not an HD image (the buffers then NULL). */
static bool hd_args(const ts_pixel_values *pv, int64_t views, ts_tensor_arg args[4], float **px, int32_t **pos,
                    float **bias, int32_t **layout)
{
    ts_error err;
    ts_phi4_vision_spec s = {.patch = 14, .image_size = 448};
    ts_phi4_hd_image im;
    *px = NULL, *pos = NULL, *bias = NULL, *layout = NULL;
    if (ts_phi4_hd_view(pv, 14, &im, &err) != TS_OK) return false;
    int64_t n = 1024, plane = 3 * 448 * 448, rows = ts_phi4_image_rows_max(&s, views);
    *px = calloc((size_t)(views * plane), sizeof(float));
    *pos = malloc(sizeof(int32_t) * (size_t)(views * n)), *bias = malloc(sizeof(float) * (size_t)(views * n));
    *layout = malloc(sizeof(int32_t) * (size_t)rows);
    memcpy(*px, im.pixels, sizeof(float) * (size_t)(im.views * plane));
    CHECK_INT_EQ(ts_phi4_image_inputs(&s, &im, views, *pos, *bias, *layout, &err), TS_OK);
    free(im.mask);
    args[0] = (ts_tensor_arg){"pixel_values", TS_DTYPE_F32, 4, {views, 3, 448, 448}, *px, sizeof(float) * (size_t)(views * plane)};
    args[1] = (ts_tensor_arg){"positions", TS_DTYPE_I32, 2, {views, n}, *pos, sizeof(int32_t) * (size_t)(views * n)};
    args[2] = (ts_tensor_arg){"key_bias", TS_DTYPE_F32, 2, {views, n}, *bias, sizeof(float) * (size_t)(views * n)};
    args[3] = (ts_tensor_arg){"layout", TS_DTYPE_I32, 1, {rows}, *layout, sizeof(int32_t) * (size_t)rows};
    return *px && *pos && *bias && *layout;
}

/* phi4_mm-image-small through vision.main in buckets of 3 and 5 views (3072, 5120 patches):
 * ts_bundle_encode_images (the 3-view bucket) = the engine's rows, within the fixture tolerance of
 * image_embeds; the 5-view bucket (two padding views) gives the same 339 rows; the reference's 16
 * ids through ts_bundle_generate_images (the vision adapter); malformed arguments refused by name;
 * a bundle whose largest bucket is 2 views refuses the 3-view image; phi4_mm-image's 16 ids. */
static const int64_t image_patches[2] = {3072, 5120};
static void test_image(void)
{
    char bundle[160], small[160];
    snprintf(bundle, sizeof(bundle), "%s/image", tmp);
    snprintf(small, sizeof(small), "%s/image2", tmp);
    int64_t cap = 400, two = 2048;
    ts_bundle_options o = {.capacities = &cap, .n_capacities = 1, .prefill_capacity = 384, .slots = 1,
                           .vision_patches = image_patches, .n_vision_patches = 2};
    ts_error err;
    REQUIRE_INT_EQ(ts_bundle_export(IMAGE "/model", bundle, &o, &err), TS_OK);
    o.vision_patches = &two, o.n_vision_patches = 1;
    REQUIRE_INT_EQ(ts_bundle_export(IMAGE "/model", small, &o, &err), TS_OK);
    ts_bundle *b;
    ts_model *m;
    ts_checkpoint *ref;
    REQUIRE_INT_EQ(ts_bundle_open(ctx, bundle, IMAGE "/model", &b, &err), TS_OK);
    REQUIRE_INT_EQ(ts_model_load(ctx, IMAGE "/model", NULL, &m, &err), TS_OK);
    REQUIRE_INT_EQ(ts_checkpoint_open(IMAGE "/reference.safetensors", &ref, &err), TS_OK);
    ts_pixel_values pv = {0};
    REQUIRE(image_pixels(m, IMAGE, "chelsea_strip_1200x60.png", &pv));
    const ts_tensor_info *want = ts_checkpoint_find(ref, "image_embeds");
    REQUIRE(want && want->shape[1] == 339);
    int64_t H = want->shape[2], T = 339;
    double scale = 1;
    for (int64_t i = 0; i < T * H; i++) scale = fmax(scale, fabs(((const float *)want->data)[i]));
    ts_encoded_media ours = {0}, engine = {0};
    CHECK_INT_EQ(ts_bundle_encode_images(b, &pv, 1, &ours, &err), TS_OK);
    CHECK_INT_EQ(ts_model_encode_images(m, &pv, 1, &engine, &err), TS_OK);
    CHECK_INT_EQ(ours.n_rows, T);
    CHECK_INT_EQ(engine.n_rows, T);
    if (ours.n_rows == T && engine.n_rows == T) {
        double e = max_diff(ours.rows, engine.rows, T * H), d = max_diff(ours.rows, want->data, T * H);
        fprintf(stderr, "  vision.main (3 views): 339 rows vs the engine max |diff| %.3g, vs image_embeds %.3g (tolerance %.3g)\n",
                e, d, 1e-4 * scale);
        CHECK(e == 0); /* the same graph on the same kernels */
        CHECK(d <= 1e-4 * scale);
        /* The 5-view bucket: two padding views change nothing of the image's rows. */
        ts_tensor_arg args[4];
        float *px, *bias;
        int32_t *pos, *layout;
        bool made = hd_args(&pv, 5, args, &px, &pos, &bias, &layout);
        REQUIRE(made);
        const void *outs[1] = {0};
        CHECK_INT_EQ(ts_bundle_run_vision(b, 1, args, 4, outs, &err), TS_OK);
        double p = outs[0] ? max_diff(outs[0], engine.rows, T * H) : INFINITY;
        fprintf(stderr, "  vision.main (5-view bucket, 2 padding views): 339 rows vs the engine max |diff| %.3g\n", p);
        CHECK(p <= 1e-5 * scale);
        /* Refused, naming what is wrong. */
        CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 4, outs, &err), TS_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(err.message, "pixel_values is F32[5, 3, 448, 448]");
        args[2].dims[0] = 3, args[2].n_bytes = sizeof(float) * 3 * 1024;
        CHECK_INT_EQ(ts_bundle_run_vision(b, 1, args, 4, outs, &err), TS_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(err.message, "key_bias is F32[3, 1024]");
        args[2].dims[0] = 5, args[2].n_bytes = sizeof(float) * 5 * 1024;
        for (int i = 0; i < 1024; i++) bias[4 * 1024 + i] = -INFINITY;
        CHECK_INT_EQ(ts_bundle_run_vision(b, 1, args, 4, outs, &err), TS_ERR_RANGE);
        CHECK_CONTAINS(err.message, "key_bias masks every patch of view 4");
        bias[4 * 1024] = 0.5f;
        CHECK_INT_EQ(ts_bundle_run_vision(b, 1, args, 4, outs, &err), TS_ERR_RANGE);
        CHECK_CONTAINS(err.message, "key_bias[4, 0] is 0.5");
        for (int i = 0; i < 1024; i++) bias[4 * 1024 + i] = 0;
        layout[7] = 5 * 256 + 2;
        CHECK_INT_EQ(ts_bundle_run_vision(b, 1, args, 4, outs, &err), TS_ERR_RANGE);
        CHECK_CONTAINS(err.message, "layout");
        layout[7] = 0, pos[9] = 1024;
        CHECK_INT_EQ(ts_bundle_run_vision(b, 1, args, 4, outs, &err), TS_ERR_RANGE);
        CHECK_CONTAINS(err.message, "positions");
        free(px), free(pos), free(bias), free(layout);
    }
    ts_encoded_media_free(&ours), ts_encoded_media_free(&engine);
    /* Pixel values that are not an HD image of this tower (2 channels). */
    ts_pixel_values bad = pv;
    bad.shape[1] = 2;
    CHECK(ts_bundle_encode_images(b, &bad, 1, &ours, &err) != TS_OK);
    /* The reference's prompt and 16 ids: vision.main's rows, the vision adapter. */
    CHECK(greedy_is_reference(b, m, IMAGE, NULL, &pv));
    ts_bundle_close(b);
    /* The 3-view image in a bundle of 2-view buckets. */
    REQUIRE_INT_EQ(ts_bundle_open(ctx, small, IMAGE "/model", &b, &err), TS_OK);
    CHECK_INT_EQ(ts_bundle_encode_images(b, &pv, 1, &ours, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "3072 patches do not fit the bundle's vision buckets (2048)");
    ts_bundle_close(b);
    ts_pixel_values_free(&pv);
    ts_checkpoint_close(ref);
    ts_model_destroy(m);
    /* phi4_mm-image (chelsea, 3 views, 689 image tokens, 701 prompt tokens): its 16 ids. */
    snprintf(bundle, sizeof(bundle), "%s/image-chelsea", tmp);
    cap = 720, o.prefill_capacity = 704, o.vision_patches = image_patches, o.n_vision_patches = 1;
    REQUIRE_INT_EQ(ts_bundle_export(CHELSEA "/model", bundle, &o, &err), TS_OK);
    REQUIRE_INT_EQ(ts_bundle_open(ctx, bundle, CHELSEA "/model", &b, &err), TS_OK);
    REQUIRE_INT_EQ(ts_model_load(ctx, CHELSEA "/model", NULL, &m, &err), TS_OK);
    REQUIRE(image_pixels(m, CHELSEA, "chelsea.png", &pv));
    CHECK(greedy_is_reference(b, m, CHELSEA, NULL, &pv));
    ts_pixel_values_free(&pv);
    ts_model_destroy(m);
    ts_bundle_close(b);
}

/* ---------------------------------------------------------------- image + audio: the projector input */

#define MIXED "tests/fixtures/phi4_mm-mixed"

/* phi4_mm-mixed (chelsea's 689 image tokens, a 13-token clip, 724 prompt tokens, the vision
 * adapter): audio.main with projector 1 (vision_speech) from the reference's features within the
 * fixture tolerance of audio_embeds_vision_speech, projector 0 not; the WAV through
 * ts_bundle_encode_audio for an image + audio prompt, the image through vision.main, both through
 * ts_bundle_generate_audio = the reference's 16 ids; the clip encoded for an audio-only prompt
 * (the speech projector) instead gives other ids. */
static void test_mixed(void)
{
    char bundle[160];
    snprintf(bundle, sizeof(bundle), "%s/mixed", tmp);
    int64_t cap = 744, frames104 = 104;
    ts_bundle_options o = {.capacities = &cap, .n_capacities = 1, .prefill_capacity = 728, .slots = 1,
                           .vision_patches = image_patches, .n_vision_patches = 1, .audio_frames = &frames104, .n_audio_frames = 1};
    ts_error err;
    ts_bundle *b;
    ts_model *m;
    ts_checkpoint *ref;
    REQUIRE_INT_EQ(ts_bundle_export(MIXED "/model", bundle, &o, &err), TS_OK);
    REQUIRE_INT_EQ(ts_bundle_open(ctx, bundle, MIXED "/model", &b, &err), TS_OK);
    REQUIRE_INT_EQ(ts_model_load(ctx, MIXED "/model", NULL, &m, &err), TS_OK);
    REQUIRE_INT_EQ(ts_checkpoint_open(MIXED "/reference.safetensors", &ref, &err), TS_OK);
    const ts_tensor_info *feats = ts_checkpoint_find(ref, "audio_input_features"),
                         *want = ts_checkpoint_find(ref, "audio_embeds_vision_speech");
    REQUIRE(feats && want && feats->shape[1] == 98 && want->shape[1] == 13);
    int64_t H = want->shape[2], mels = feats->shape[2];
    double scale = 1, diff[2];
    for (int64_t i = 0; i < 13 * H; i++) scale = fmax(scale, fabs(((const float *)want->data)[i]));
    float *x = calloc((size_t)(104 * mels), sizeof(float));
    memcpy(x, feats->data, sizeof(float) * (size_t)(98 * mels));
    int32_t frames = 98, projector;
    ts_tensor_arg args[3] = {{"audio_features", TS_DTYPE_F32, 2, {104, mels}, x, sizeof(float) * (size_t)(104 * mels)},
                             {"frames", TS_DTYPE_I32, 0, {0}, &frames, sizeof(frames)},
                             {"projector", TS_DTYPE_I32, 0, {0}, &projector, sizeof(projector)}};
    for (projector = 0; projector < 2; projector++) {
        const void *outs[1] = {0};
        CHECK_INT_EQ(ts_bundle_run_audio(b, 0, args, 3, outs, &err), TS_OK);
        diff[projector] = outs[0] ? max_diff(outs[0], want->data, 13 * H) : INFINITY;
    }
    free(x);
    fprintf(stderr, "  phi4_mm-mixed audio.main: 13 rows vs audio_embeds_vision_speech max |diff| projector 1 %.3g (tolerance %.3g), "
                    "projector 0 %.3g\n",
            diff[1], 1e-4 * scale, diff[0]);
    CHECK(diff[1] <= 1e-4 * scale);
    CHECK(diff[0] > 1e-4 * scale); /* the input is what selects the pair */
    /* End to end: image rows (vision.main) then the clip's (encoded for image + audio). */
    ts_pixel_values pv = {0};
    REQUIRE(image_pixels(m, MIXED, "chelsea.png", &pv));
    char *wav;
    size_t len;
    REQUIRE_INT_EQ(ts_file_read(MIXED "/speech_16k_s16_1s.wav", &wav, &len, &err), TS_OK);
    for (int with_image = 1; with_image >= 0; with_image--) {
        ts_encoded_media media = {0};
        CHECK_INT_EQ(ts_bundle_encode_images(b, &pv, 1, &media, &err), TS_OK);
        CHECK_INT_EQ((int)media.n_rows, 689);
        unsigned modalities = TS_MODALITY_AUDIO | (with_image ? TS_MODALITY_IMAGE : 0u);
        CHECK_INT_EQ(ts_bundle_encode_audio(b, m, wav, len, NULL, modalities, &media, &err), TS_OK);
        CHECK_INT_EQ((int)media.n_audio_rows, 13);
        double d = media.n_audio_rows == 13 ? max_diff(media.audio_rows, want->data, 13 * H) : INFINITY;
        bool same = greedy_is_reference(b, m, MIXED, &media, NULL);
        fprintf(stderr, "  phi4_mm-mixed through the bundle, clip encoded for %s: rows vs audio_embeds_vision_speech %.3g; 16 ids %s the reference's\n",
                with_image ? "image + audio (vision_speech)" : "audio only (speech)", d, same ? "=" : "differ from");
        CHECK(with_image ? same : !same);
        CHECK(with_image ? d <= 1e-4 * scale : d > 1e-4 * scale);
        ts_encoded_media_free(&media);
    }
    free(wav);
    ts_pixel_values_free(&pv);
    ts_checkpoint_close(ref);
    ts_model_destroy(m);
    ts_bundle_close(b);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    strcpy(tmp, "/tmp/ts_phi4b_XXXXXX");
    if (!mkdtemp(tmp)) return 1;
    RUN(test_audio);
    RUN(test_audio_main);
    RUN(test_text);
    RUN(test_mixed_adapters);
    RUN(test_bad_bundles);
    RUN(test_image);
    RUN(test_mixed);
    nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    ts_context_destroy(ctx);
    return check_finish();
}
