/* phi4_mm_audio_test.c — Phi-4-multimodal's audio wired end to end through the engine's public
 * path, against tests/fixtures/phi4_mm-audio (transformers 5.23.0 + peft, speech adapter):
 *   - the prompt_text with its one <|audio|> expanded by ts_prompt_expand_audio to the clip's
 *     count and tokenized = the reference's input_ids (27, 13 of them audio);
 *   - the WAV through ts_model_encode_audio (decode, features, encoder, speech projector) gives
 *     audio_embed_sizes rows (a second clip's appended after them), and ts_mm_inputs_build merges them = lm_inputs_embeds within
 *     1e-4 · max(1, max |ref|), 1-D positions, no side input;
 *   - ts_generate_audio sets the speech adapter and greedy gives the reference's 16 ids; reset
 *     returns the sequence to no adapter;
 *   - refusals: a clip count other than the placeholders', rows other than the audio tokens,
 *     image rows without image tokens, audio for a model without an audio path (qwen2), a clip shorter than
 *     one feature window, bytes that are no audio file. */
#include "base/file.h"
#include "check.h"
#include "engine/model.h"
#include "fixture_compare.h"

#include <stdlib.h>
#include <string.h>

#define CASE "tests/fixtures/phi4_mm-audio"

static ts_context *ctx;
static ts_model *model;
static ts_checkpoint *ref;
static char *wav;
static size_t wav_len;

/* The reference's input_ids as int32 (owned). */
static int32_t *ref_ids(size_t *n)
{
    const ts_tensor_info *t = ref_tensor(ref, "input_ids");
    if (!t) return NULL;
    *n = (size_t)t->shape[t->n_dims - 1];
    int32_t *ids = malloc(sizeof(int32_t) * *n);
    for (size_t i = 0; ids && i < *n; i++) ids[i] = (int32_t)((const int64_t *)t->data)[i];
    return ids;
}

static void test_prompt(void)
{
    ts_error err;
    ts_tokenizer *tok;
    REQUIRE_INT_EQ(ts_tokenizer_load(CASE "/model", &tok, &err), TS_OK);
    const char *text = "<|user|><|audio|>Transcribe the audio.<|end|><|assistant|>";
    int64_t counts[2] = {13, 13};
    char *expanded = NULL;
    size_t len = 0, n = 0, want_n = 0;
    int32_t *ids = NULL, *want = ref_ids(&want_n);
    REQUIRE(want);
    const ts_model_config *cfg = ts_model_get_config(model);
    CHECK_INT_EQ(ts_prompt_expand_audio(cfg, tok, text, strlen(text), counts, 1, &expanded, &len, &err), TS_OK);
    CHECK_INT_EQ(ts_tokenizer_encode_chat(tok, expanded, len, &ids, &n, &err), TS_OK);
    CHECK_INT_EQ((int64_t)n, (int64_t)want_n);
    CHECK(ids && n == want_n && memcmp(ids, want, sizeof(int32_t) * n) == 0);
    free(expanded), free(ids), free(want);
    /* Two clips for one placeholder: both numbers named. */
    CHECK_INT_EQ(ts_prompt_expand_audio(cfg, tok, text, strlen(text), counts, 2, &expanded, &len, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "1 audio placeholder (<|audio|>) for 2 clips");
    ts_model_config qwen;
    REQUIRE_INT_EQ(ts_model_config_load("tests/fixtures/qwen2/model", &qwen, &err), TS_OK);
    CHECK_INT_EQ(ts_prompt_expand_audio(&qwen, tok, text, strlen(text), counts, 1, &expanded, &len, &err), TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "qwen2: this model does not accept audio input");
    ts_tokenizer_destroy(tok);
}

static void test_embeddings_and_tokens(void)
{
    ts_error err;
    ts_encoded_media media = {0};
    REQUIRE_INT_EQ(ts_model_encode_audio(model, NULL, wav, wav_len, NULL, &media, &err), TS_OK);
    const ts_tensor_info *sizes = ref_tensor(ref, "audio_embed_sizes"), *emb = ref_tensor(ref, "lm_inputs_embeds"),
                         *gen = ref_tensor(ref, "generated_ids");
    REQUIRE(sizes && emb && gen);
    CHECK_INT_EQ(media.n_audio_rows, ((const int64_t *)sizes->data)[0]);
    CHECK_INT_EQ(media.n_rows, 0);
    size_t n = 0;
    int32_t *ids = ref_ids(&n);
    REQUIRE(ids);
    ts_mm_inputs in;
    REQUIRE_INT_EQ(ts_mm_inputs_build(model, ids, n, NULL, 0, &media, &in, &err), TS_OK);
    CHECK_INT_EQ(in.position_rows, 1);
    CHECK_INT_EQ(in.side_kind, TS_SIDE_NONE);
    double scale, d = max_diff(in.embeddings, emb->data, n * (size_t)in.hidden, &scale);
    fprintf(stderr, "  lm_inputs_embeds: max |diff| %.3g (tolerance %.3g)\n", d, 1e-4 * scale);
    CHECK(d <= 1e-4 * scale);
    ts_mm_inputs_free(&in);

    /* Refused: rows other than the prompt's audio tokens; image rows the prompt has no image
     * tokens for (images beside audio are one prompt: phi4_mm-mixed, run_cli_test). */
    media.n_audio_rows--;
    CHECK_INT_EQ(ts_mm_inputs_build(model, ids, n, NULL, 0, &media, &in, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "the prompt has 13 audio tokens, the clips make 12");
    media.n_audio_rows++;
    float row[48] = {0};
    media.rows = row, media.n_rows = 1;
    CHECK_INT_EQ(ts_mm_inputs_build(model, ids, n, NULL, 0, &media, &in, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "the prompt has 0 image tokens, the images make 1");
    media.rows = NULL, media.n_rows = 0;

    /* Generation: the speech adapter, the reference's 16 greedy ids; reset drops the adapter. */
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(model, (int64_t)n + 16, &seq, &err), TS_OK);
    ts_generate_params p = {0};
    ts_sampling_params_default(&p.sampling);
    p.sampling.temperature = 0;
    p.max_tokens = 16;
    p.ignore_eos = true;
    ts_generation g;
    REQUIRE_INT_EQ(ts_generate_audio(model, seq, ids, n, &media, &p, &g, &err), TS_OK);
    CHECK_STR_EQ(ts_sequence_adapter(seq), "speech");
    CHECK_INT_EQ((int64_t)g.n_ids, 16);
    bool same = g.n_ids == 16;
    for (size_t i = 0; same && i < 16; i++) same = g.ids[i] == (int32_t)((const int64_t *)gen->data)[i];
    CHECK(same);
    ts_generation_free(&g);
    ts_sequence_reset(seq);
    CHECK_STR_EQ(ts_sequence_adapter(seq), "none");
    ts_sequence_destroy(seq);
    free(ids);
    /* A second clip's rows are appended after the first's (the same clip: the same rows). */
    int64_t rows = media.n_audio_rows, hidden = media.hidden;
    REQUIRE_INT_EQ(ts_model_encode_audio(model, NULL, wav, wav_len, NULL, &media, &err), TS_OK);
    CHECK_INT_EQ(media.n_audio_rows, 2 * rows);
    CHECK(memcmp(media.audio_rows, media.audio_rows + rows * hidden, sizeof(float) * (size_t)(rows * hidden)) == 0);
    ts_encoded_media_free(&media);
}

static void test_refusals(void)
{
    ts_error err;
    ts_encoded_media media = {0};
    /* 200 samples: less than one 400-sample window. */
    char *s = NULL;
    size_t len = 0;
    REQUIRE_INT_EQ(ts_file_read(CASE "/speech_16k_s16_1s.wav", &s, &len, &err), TS_OK);
    uint32_t data = 400, riff = 36 + data;
    memcpy(s + 4, &riff, 4), memcpy(s + 40, &data, 4);
    CHECK_INT_EQ(ts_model_encode_audio(model, NULL, s, 44 + data, NULL, &media, &err), TS_ERR_RANGE);
    CHECK(media.audio_rows == NULL && media.n_audio_rows == 0);
    CHECK(ts_model_encode_audio(model, NULL, "not audio at all", 16, NULL, &media, &err) != TS_OK);
    CHECK_CONTAINS(err.message, "not a WAV, FLAC, MP3 or Ogg file");
    free(s);
    ts_model *qwen;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/qwen2/model", NULL, &qwen, &err), TS_OK);
    CHECK_INT_EQ(ts_model_encode_audio(qwen, NULL, wav, wav_len, NULL, &media, &err), TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "qwen2: this model does not accept audio input");
    ts_model_destroy(qwen);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    if (ts_model_load(ctx, CASE "/model", NULL, &model, &err) != TS_OK ||
        ts_checkpoint_open(CASE "/reference.safetensors", &ref, &err) != TS_OK ||
        ts_file_read(CASE "/speech_16k_s16_1s.wav", &wav, &wav_len, &err) != TS_OK) {
        fprintf(stderr, "setup: %s\n", err.message);
        return 1;
    }
    RUN(test_prompt);
    RUN(test_embeddings_and_tokens);
    RUN(test_refusals);
    free(wav);
    ts_checkpoint_close(ref);
    ts_model_destroy(model);
    ts_context_destroy(ctx);
    return check_finish();
}
