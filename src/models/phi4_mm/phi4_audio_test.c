/* phi4_audio_test.c — Phi-4-multimodal's audio path against transformers 5.23.0 in
 * tests/fixtures/phi4_mm-audio (tools/fixtures/make_phi4_fixture.py), stage by stage, each within
 * 1e-4 × max(1, max |ref|):
 *   1. speech_16k_s16_1s.wav decoded and through our extractor = audio_input_features, and its
 *      token count = audio_embed_sizes;
 *   2. the encoder graph from the reference's features: audio_subsampled, audio_relative_bias,
 *      every audio_block_i, audio_up_speech, audio_embeds_speech (the first divergent stage
 *      named); the same from our own features; the graph decomposed to primitives and run by the
 *      reference evaluator agrees with the fused run, and printed as StableHLO and read back it
 *      runs to the same bits;
 *   3. the <|audio|> placeholder expanded to the clip's count gives the reference's input_ids,
 *      and the token embeddings with the audio rows merged in = lm_inputs_embeds;
 * the bf16 checkpoint (the same values) gives the same rows; a 513-row clip is encoded in two
 * 500-row chunks as the reference does (tests/fixtures/phi4_mm-audio-long);
 * and a checkpoint missing an encoder tensor fails naming it before any input is declared.
 */
#include "models/phi4_mm/phi4_audio.h"
#include "base/file.h"
#include "check.h"
#include "cpu/executor.h"
#include "cpu/reference.h"
#include "export/printer.h"
#include "export/reader.h"
#include "fixture_compare.h"
#include "graph_roundtrip.h"
#include "graph/decompose.h"
#include "media/audio.h"
#include "media/audio_fbank.h"
#include "models/family.h"

#include <math.h>

#define FIX "tests/fixtures/phi4_mm-audio"

static ts_context *ctx;
static ts_checkpoint *weights, *ref;
static ts_phi4_audio_spec spec;

typedef struct {
    const ts_checkpoint *ckpt;
    const char *drop;
} source;

static const ts_tensor_info *find(void *self, const char *name, int rank, const int64_t *dims)
{
    (void)rank, (void)dims;
    source *s = self;
    if (s->drop && strcmp(name, s->drop) == 0) return NULL;
    return ts_checkpoint_find(s->ckpt, name);
}

static bool within(const char *stage, const float *ours, const ts_tensor_info *t, size_t n)
{
    int64_t have = t ? 1 : 0;
    for (int i = 0; t && i < t->n_dims; i++) have *= t->shape[i];
    if (!t || have != (int64_t)n || t->dtype != TS_DTYPE_F32) {
        fprintf(stderr, "  %s: missing or of another size than %zu\n", stage, n);
        return false;
    }
    double scale, d = max_diff(ours, t->data, n, &scale);
    bool ok = d <= 1e-4 * scale;
    fprintf(stderr, "  %-22s max |diff| %.3g (tolerance %.3g)%s\n", stage, d, 1e-4 * scale, ok ? "" : "  DIVERGES");
    return ok;
}

/* Features of the fixture's WAV through our decoder and extractor. */
static bool our_features(ts_audio_features *f)
{
    char *data;
    size_t len;
    ts_error err;
    ts_audio a;
    ts_audio_fbank *fb = NULL;
    ts_audio_fbank_config cfg = ts_audio_fbank_config_default();
    bool ok = ts_file_read(FIX "/speech_16k_s16_1s.wav", &data, &len, &err) == TS_OK;
    ok = ok && ts_audio_decode(data, len, NULL, 16000, &a, &err) == TS_OK;
    if (data) free(data);
    ok = ok && ts_audio_fbank_create(&cfg, &fb, &err) == TS_OK &&
         ts_audio_fbank_compute(fb, a.samples, a.n_samples, a.rate, f, &err) == TS_OK;
    if (!ok) fprintf(stderr, "features: %s\n", err.message);
    ts_audio_free(&a);
    ts_audio_fbank_destroy(fb);
    return ok;
}

static void test_spec(void)
{
    CHECK_INT_EQ(spec.width, 16);
    CHECK_INT_EQ(spec.blocks, 2);
    CHECK_INT_EQ(spec.heads, 2);
    CHECK_INT_EQ(spec.stages, 3);
    CHECK_INT_EQ(spec.final_freq, 10); /* 80 → 40 → 20 → 10 */
    CHECK_INT_EQ(spec.lm_hidden, 48);
    CHECK_INT_EQ(spec.audio_token_id, 1286);
    CHECK_INT_EQ(ts_phi4_audio_tokens(&spec, 98), 13);
    CHECK_INT_EQ(ts_phi4_audio_tokens(&spec, 96), 12);
    ts_phi4_audio_spec s;
    ts_error err;
    CHECK_INT_EQ(ts_phi4_audio_spec_load("tests/fixtures/qwen3/model", &s, &err), TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "no audio_config");
    /* Settings the graph does not build are refused naming the key. */
    static const struct {
        const char *from, *to, *message;
    } edits[] = {
        {"\"chunk_size\": -1", "\"chunk_size\": 18", "audio_config.chunk_size 18 (only -1 is built"},
        {"\"conv_glu_type\": \"swish\"", "\"conv_glu_type\": \"relu\"", "audio_config.conv_glu_type \"relu\""},
        {"\"depthwise_multiplier\": 1", "\"depthwise_multiplier\": 2", "audio_config.depthwise_multiplier 2"},
        {"\"nemo_activation\": \"relu\"", "\"nemo_activation\": \"swish\"", "audio_config.nemo_activation \"swish\""},
        {"\"time_reduction\": 8", "\"time_reduction\": 6", "audio_config.time_reduction 6"},
    };
    char *text;
    size_t len;
    REQUIRE_INT_EQ(ts_file_read(FIX "/model/config.json", &text, &len, &err), TS_OK);
    CHECK_INT_EQ(ts_phi4_audio_spec_parse(text, len, &s, &err), TS_OK);
    for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
        char *at = strstr(text, edits[i].from);
        REQUIRE(at);
        size_t head = (size_t)(at - text), from = strlen(edits[i].from), to = strlen(edits[i].to);
        char *edited = malloc(len - from + to + 1);
        memcpy(edited, text, head);
        memcpy(edited + head, edits[i].to, to);
        memcpy(edited + head + to, at + from, len - head - from + 1);
        CHECK(ts_phi4_audio_spec_parse(edited, len - from + to, &s, &err) != TS_OK);
        CHECK_CONTAINS(err.message, edits[i].message);
        free(edited);
    }
    free(text);
}

/* 1: the extractor reproduces the reference's features and token count. */
static void test_features(void)
{
    ts_audio_features f = {0};
    REQUIRE(our_features(&f));
    const ts_tensor_info *t = ref_tensor(ref, "audio_input_features");
    REQUIRE(t && t->shape[1] == f.n_frames && t->shape[2] == f.n_mels);
    CHECK(within("audio_input_features", f.data, t, (size_t)(f.n_frames * f.n_mels)));
    const ts_tensor_info *sizes = ref_tensor(ref, "audio_embed_sizes");
    REQUIRE(sizes);
    CHECK_INT_EQ(f.embed_size, ((const int64_t *)sizes->data)[0]);
    CHECK_INT_EQ(ts_phi4_audio_tokens(&spec, f.n_frames), f.embed_size);
    ts_audio_features_free(&f);
}

/* Runs the diagnostics graph on features [n_frames, mels]; outs borrowed from *prog. */
static bool run_encoder(const ts_checkpoint *ckpt, const float *features, int64_t n_frames, ts_graph **g, ts_program **prog, void ***params,
                        const void **outs)
{
    ts_error err;
    source src = {ckpt, NULL};
    ts_weight_source ws = {find, &src};
    bool ok = ts_graph_create(g, &err) == TS_OK &&
              ts_phi4_audio_build(*g, &spec, &ws, n_frames, TS_PHI4_AUDIO_SPEECH, true, &err) == TS_OK;
    *params = ok ? calloc((size_t)(*g)->n_parameters, sizeof(void *)) : NULL;
    for (int32_t i = 0; *params && i < (*g)->n_nodes; i++) {
        const ts_node *n = &(*g)->nodes[i];
        if (n->op != TS_OP_PARAMETER) continue;
        (*params)[n->attrs.parameter.index] = n->attrs.parameter.role == TS_PARAM_WEIGHT
                                                  ? (void *)ts_checkpoint_find(ckpt, n->name)->data
                                                  : (void *)features;
    }
    ok = ok && *params && ts_program_create(*g, ctx, prog, &err) == TS_OK && ts_program_run(*prog, *params, outs, &err) == TS_OK;
    if (!ok) fprintf(stderr, "encoder: %s\n", err.message);
    return ok;
}

/* 2: the encoder, stage by stage, from the reference's features. */
static void test_encoder(void)
{
    const ts_tensor_info *in = ref_tensor(ref, "audio_input_features");
    REQUIRE(in);
    int64_t frames = in->shape[1], t = ts_phi4_audio_tokens(&spec, frames);
    ts_graph *g = NULL;
    ts_program *prog = NULL;
    void **params = NULL;
    const void *outs[TS_PHI4_AUDIO_OUT_BLOCK0 + TS_PHI4_AUDIO_MAX_BLOCKS];
    bool ran = run_encoder(weights, in->data, frames, &g, &prog, &params, outs);
    CHECK(ran);
    if (ran) {
        size_t rows = (size_t)t * (size_t)spec.width, lm = (size_t)t * (size_t)spec.lm_hidden;
        const char *first_bad = NULL;
#define STAGE(name, out, n)                                                                 \
    if (!within(name, outs[out], ref_tensor(ref, name), n) && !first_bad) first_bad = name
        STAGE("audio_subsampled", TS_PHI4_AUDIO_OUT_SUBSAMPLED, rows);
        STAGE("audio_relative_bias", TS_PHI4_AUDIO_OUT_BIAS, (size_t)(spec.heads * t * t));
        char names[TS_PHI4_AUDIO_MAX_BLOCKS][32];
        for (int i = 0; i < spec.blocks; i++) {
            snprintf(names[i], sizeof(names[i]), "audio_block_%d", i);
            STAGE(names[i], TS_PHI4_AUDIO_OUT_BLOCK0 + i, rows);
        }
        STAGE("audio_up_speech", TS_PHI4_AUDIO_OUT_UP, lm);
        STAGE("audio_embeds_speech", TS_PHI4_AUDIO_OUT_EMBEDS, lm);
#undef STAGE
        if (first_bad) fprintf(stderr, "  first divergent stage: %s\n", first_bad);
        CHECK(!first_bad);

        /* The reference evaluator's sums against the fused kernels': 4.3e-5 of scale with the
         * AVX-512 kernels, 1.2e-4 with the portable ones; the stages' own tolerance. */
        check_graph_roundtrip(g, params, outs, ctx, "phi4_audio", "audio_embeds", 1e-4);
    }
    ts_program_destroy(prog);
    free(params);
    ts_graph_destroy(g);
}

/* 1 + 2 + 3: from the WAV to the language model's input rows. */
static void test_wav_to_inputs_embeds(void)
{
    ts_audio_features f = {0};
    REQUIRE(our_features(&f));
    ts_graph *g = NULL;
    ts_program *prog = NULL;
    void **params = NULL;
    const void *outs[TS_PHI4_AUDIO_OUT_BLOCK0 + TS_PHI4_AUDIO_MAX_BLOCKS];
    bool ran = run_encoder(weights, f.data, f.n_frames, &g, &prog, &params, outs);
    CHECK(ran);
    const ts_tensor_info *ids_t = ref_tensor(ref, "input_ids"), *want = ref_tensor(ref, "lm_inputs_embeds");
    const ts_tensor_info *table = ts_checkpoint_find(weights, "model.embed_tokens.weight");
    bool have = ran && ids_t && want && table && table->dtype == TS_DTYPE_F32;
    CHECK(have);
    if (have) {
        size_t n = (size_t)ids_t->shape[1];
        int64_t h = spec.lm_hidden, t = f.embed_size;
        int32_t *ref_ids = malloc(sizeof(int32_t) * n), *prompt = malloc(sizeof(int32_t) * n), *ids = NULL;
        size_t n_prompt = 0, n_ids = 0;
        /* The rendered prompt: each run of <|audio|> is one placeholder before the processor. */
        for (size_t i = 0; i < n; i++) {
            ref_ids[i] = (int32_t)((const int64_t *)ids_t->data)[i];
            if (ref_ids[i] != spec.audio_token_id || i == 0 || ref_ids[i - 1] != spec.audio_token_id)
                prompt[n_prompt++] = ref_ids[i];
        }
        ts_error err;
        CHECK_INT_EQ(ts_phi4_audio_expand_ids(prompt, n_prompt, (int32_t)spec.audio_token_id, &t, 1, &ids, &n_ids, &err),
                     TS_OK);
        CHECK(n_ids == n && ids && memcmp(ids, ref_ids, sizeof(int32_t) * n) == 0);
        fprintf(stderr, "  placeholder expansion: %zu prompt ids → %zu (%lld audio tokens), = input_ids\n", n_prompt, n_ids,
                (long long)t);
        free(ids);
        int64_t two[2] = {t, t};
        CHECK_INT_EQ(ts_phi4_audio_expand_ids(prompt, n_prompt, (int32_t)spec.audio_token_id, two, 2, &ids, &n_ids, &err),
                     TS_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(err.message, "1 <|audio|> placeholders for 2 clips");
        float *embeds = malloc(sizeof(float) * n * (size_t)h);
        for (size_t i = 0; i < n; i++)
            memcpy(embeds + i * (size_t)h, (const float *)table->data + (size_t)ref_ids[i] * (size_t)h, sizeof(float) * (size_t)h);
        CHECK_INT_EQ(ts_phi4_audio_merge(ref_ids, n, (int32_t)spec.audio_token_id, embeds, h, outs[0], t - 1, &err),
                     TS_ERR_INVALID_ARGUMENT);
        CHECK_INT_EQ(ts_phi4_audio_merge(ref_ids, n, (int32_t)spec.audio_token_id, embeds, h, outs[0], t, &err), TS_OK);
        CHECK(within("lm_inputs_embeds (WAV)", embeds, want, n * (size_t)h));
        free(embeds);
        free(prompt);
        free(ref_ids);
    }
    ts_program_destroy(prog);
    free(params);
    ts_graph_destroy(g);
    ts_audio_features_free(&f);
}

/* The bf16 checkpoint holds the same values (the fixture's weights are bf16-rounded): linear
 * weights stay bf16, the rest is widened, and the rows agree within the same tolerance. */
static void test_bf16(void)
{
    ts_checkpoint *bf16 = NULL;
    ts_error err;
    REQUIRE_INT_EQ(ts_checkpoint_open(FIX "/model-bf16", &bf16, &err), TS_OK);
    const ts_tensor_info *in = ref_tensor(ref, "audio_input_features"), *w =
        ts_checkpoint_find(bf16, "model.embed_tokens_extend.audio_embed.encoder.encoders.0.self_attn.q_proj.weight");
    CHECK(w && w->dtype == TS_DTYPE_BF16);
    ts_graph *g = NULL;
    ts_program *prog = NULL;
    void **params = NULL;
    const void *outs[TS_PHI4_AUDIO_OUT_BLOCK0 + TS_PHI4_AUDIO_MAX_BLOCKS];
    bool ran = in && run_encoder(bf16, in->data, in->shape[1], &g, &prog, &params, outs);
    CHECK(ran);
    if (ran)
        CHECK(within("audio_embeds (bf16)", outs[0], ref_tensor(ref, "audio_embeds_speech"),
                     (size_t)(ts_phi4_audio_tokens(&spec, in->shape[1]) * spec.lm_hidden)));
    ts_program_destroy(prog);
    free(params);
    ts_graph_destroy(g);
    ts_checkpoint_close(bf16);
}

/* A clip past one 500-row pass (tests/fixtures/phi4_mm-audio-long, written by
 * tools/fixtures/make_phi4_audio_long.py from the same synthetic features): 513 rows, two chunks,
 * the second almost all padding. */
static void test_long_clip(void)
{
    enum { FRAMES = 4100, MELS = 80 };
    ts_checkpoint *lref = NULL;
    ts_error err;
    REQUIRE_INT_EQ(ts_checkpoint_open("tests/fixtures/phi4_mm-audio-long/reference.safetensors", &lref, &err), TS_OK);
    float *x = malloc(sizeof(float) * FRAMES * MELS);
    uint32_t st = 7;
    for (int i = 0; i < FRAMES * MELS; i++) {
        st = st * 1664525u + 1013904223u;
        x[i] = (float)((double)(st >> 8) / (1 << 24) * 2 - 1) * 4.0f;
    }
    ts_graph *g = NULL;
    ts_program *prog = NULL;
    void **params = NULL;
    const void *outs[TS_PHI4_AUDIO_OUT_BLOCK0 + TS_PHI4_AUDIO_MAX_BLOCKS];
    bool ran = run_encoder(weights, x, FRAMES, &g, &prog, &params, outs);
    CHECK(ran);
    int64_t t = ts_phi4_audio_tokens(&spec, FRAMES);
    CHECK_INT_EQ(t, 513);
    if (ran) {
        size_t rows = (size_t)(t * spec.width);
        CHECK(within("long: audio_subsampled", outs[TS_PHI4_AUDIO_OUT_SUBSAMPLED], ref_tensor(lref, "audio_subsampled"), rows));
        CHECK(within("long: audio_encoder", outs[TS_PHI4_AUDIO_OUT_BLOCK0 + spec.blocks - 1], ref_tensor(lref, "audio_encoder"),
                     rows));
        CHECK(within("long: audio_embeds", outs[TS_PHI4_AUDIO_OUT_EMBEDS], ref_tensor(lref, "audio_embeds_speech"),
                     (size_t)(t * spec.lm_hidden)));
    }
    ts_program_destroy(prog);
    free(params);
    ts_graph_destroy(g);
    free(x);
    ts_checkpoint_close(lref);
}

static void test_bad_checkpoint(void)
{
    const char *gone = "model.embed_tokens_extend.audio_embed.encoder.encoders.1.conv.glu.b2";
    source src = {weights, gone};
    ts_weight_source ws = {find, &src};
    ts_graph *g;
    ts_error err;
    REQUIRE_INT_EQ(ts_graph_create(&g, &err), TS_OK);
    CHECK_INT_EQ(ts_phi4_audio_build(g, &spec, &ws, 98, TS_PHI4_AUDIO_SPEECH, false, &err), TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, gone);
    for (int32_t i = 0; i < g->n_nodes; i++)
        CHECK(g->nodes[i].op != TS_OP_PARAMETER || g->nodes[i].attrs.parameter.role == TS_PARAM_WEIGHT);
    ts_graph_destroy(g);
    REQUIRE_INT_EQ(ts_graph_create(&g, &err), TS_OK);
    src.drop = NULL;
    CHECK_INT_EQ(ts_phi4_audio_build(g, &spec, &ws, 8 * 8000 + 1, TS_PHI4_AUDIO_SPEECH, false, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "8001 audio tokens (1..8000 per clip)");
    ts_graph_destroy(g);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    if (ts_phi4_audio_spec_load(FIX "/model", &spec, &err) != TS_OK || ts_checkpoint_open(FIX "/model", &weights, &err) != TS_OK ||
        ts_checkpoint_open(FIX "/reference.safetensors", &ref, &err) != TS_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    RUN(test_spec);
    RUN(test_features);
    RUN(test_encoder);
    RUN(test_wav_to_inputs_embeds);
    RUN(test_bf16);
    RUN(test_long_clip);
    RUN(test_bad_checkpoint);
    ts_checkpoint_close(ref);
    ts_checkpoint_close(weights);
    ts_context_destroy(ctx);
    return check_finish();
}
