/* phi4_mm_audio.c — the hooks of models/audio_path.h for Phi-4-multimodal.
 *
 * Features: Phi4MultimodalFeatureExtractor at its constructor defaults (16 kHz, 80 mels, the
 * values every published processor_config.json states), media/audio_fbank.h. Tokens: the
 * extractor's audio_embed_sizes. Encoder: the graph of phi4_audio.h for one clip, built for the
 * clip's frame count (its static shape), run and dropped; the speech projector, or with an image
 * in the prompt the vision_speech pair (Phi4MultimodalAudioEmbedding's audio_projection_mode). */
#include "models/phi4_mm/phi4_mm_audio.h"
#include "base/error.h"
#include "cpu/executor.h"
#include "loader/config_keys.h"
#include "media/audio_fbank.h"
#include "models/decoder.h"
#include "models/family.h"
#include "models/phi4_mm/phi4_audio.h"
#include "models/weights.h"

#include <stdlib.h>
#include <string.h>

ts_status ts_phi4_mm_read_media_ids(const ts_json_reader *r, const cJSON *root, ts_model_config *c)
{
    const cJSON *a = ts_json_member(root, "audio_config");
    if (!a || !cJSON_IsObject(a)) return TS_OK;
    ts_json_reader ar = {r->origin, "audio_config.", r->err};
    TS_TRY(ts_json_int(&ar, a, "audio_token_id", 200011, &c->audio_token_id));
    if (c->audio_token_id < 0 || c->audio_token_id >= c->text.vocab_size)
        return ts_error_set(r->err, TS_ERR_FORMAT, "%s: audio_config.audio_token_id %lld is outside the vocabulary (%lld)",
                            r->origin, (long long)c->audio_token_id, (long long)c->text.vocab_size);
    c->has_audio = true;
    c->modalities |= TS_MODALITY_AUDIO;
    return TS_OK;
}

static ts_status features(const ts_model_config *cfg, const float *samples, int64_t n, float **out,
                          int64_t *frames, int64_t *width, ts_error *err)
{
    (void)cfg;
    *out = NULL, *frames = *width = 0;
    ts_audio_fbank_config fc = ts_audio_fbank_config_default();
    ts_audio_fbank *fb = NULL;
    ts_audio_features f = {0};
    ts_status st = ts_audio_fbank_create(&fc, &fb, err);
    if (st == TS_OK) st = ts_audio_fbank_compute(fb, samples, n, fc.sampling_rate, &f, err);
    ts_audio_fbank_destroy(fb);
    if (st != TS_OK) return st;
    *out = f.data, *frames = f.n_frames, *width = f.n_mels;
    return TS_OK;
}

static int64_t tokens(const ts_model_config *cfg, int64_t frames)
{
    (void)cfg;
    ts_audio_fbank_config fc = ts_audio_fbank_config_default();
    ts_audio_fbank *fb = NULL;
    if (ts_audio_fbank_create(&fc, &fb, NULL) != TS_OK) return 0;
    int64_t t = ts_audio_fbank_embed_size(fb, frames);
    ts_audio_fbank_destroy(fb);
    return t;
}

/* Phi4MultimodalAudioEmbedding's audio_projection_mode: vision_speech when the request has an
 * image (encode's and the bundle's choice). */
static int projector(unsigned inputs) { return inputs & TS_INPUT_IMAGE ? TS_PHI4_AUDIO_VISION_SPEECH : TS_PHI4_AUDIO_SPEECH; }

typedef struct {
    ts_phi4_audio_spec spec;
    ts_weight_source weights;
} encoder;

static ts_status create(ts_context *ctx, const char *dir, const ts_model_config *cfg,
                        const ts_weight_source *weights, void **state, ts_error *err)
{
    (void)cfg, (void)ctx;
    *state = NULL;
    encoder *e = calloc(1, sizeof(*e));
    if (!e) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "audio encoder: out of memory");
    e->weights = *weights;
    ts_status st = ts_phi4_audio_spec_load(dir, &e->spec, err);
    /* The weights are checked now (a missing encoder tensor fails the load, naming it), with
     * the shortest clip's graph. */
    ts_graph *g = NULL;
    if (st == TS_OK) st = ts_graph_create(&g, err);
    if (st == TS_OK)
        st = ts_phi4_audio_build(g, &e->spec, &e->weights, e->spec.time_reduction,
                                 TS_PHI4_AUDIO_SPEECH, false, err);
    ts_graph_destroy(g);
    g = NULL;
    /* and the projector a prompt with an image takes */
    if (st == TS_OK) st = ts_graph_create(&g, err);
    if (st == TS_OK)
        st = ts_phi4_audio_build(g, &e->spec, &e->weights, e->spec.time_reduction,
                                 TS_PHI4_AUDIO_VISION_SPEECH, false, err);
    ts_graph_destroy(g);
    if (st != TS_OK) {
        free(e);
        return st;
    }
    *state = e;
    return TS_OK;
}

static ts_status encode(void *state, ts_context *ctx, const float *feats, int64_t frames, int64_t width,
                        unsigned inputs, float **rows, int64_t *n_rows, ts_error *err)
{
    encoder *e = state;
    *rows = NULL, *n_rows = 0;
    if (width != e->spec.input_size)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "audio encoder: features of %lld mels, the encoder takes %lld",
                            (long long)width, (long long)e->spec.input_size);
    int64_t t = ts_phi4_audio_tokens(&e->spec, frames);
    ts_graph *g = NULL;
    ts_program *prog = NULL;
    void **params = NULL;
    ts_status st = ts_graph_create(&g, err);
    if (st == TS_OK)
        st = ts_phi4_audio_build(g, &e->spec, &e->weights, frames, (ts_phi4_audio_projection)projector(inputs), false, err);
    if (st == TS_OK && !(params = calloc((size_t)g->n_parameters + 1, sizeof(void *))))
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "audio encoder: out of memory");
    /* The weights by name; the one input is the features. */
    if (st == TS_OK) st = ts_weights_bind(g, &e->weights, params, err);
    if (st == TS_OK) params[ts_decoder_first_input(g)] = (void *)feats;
    const void *outs[1] = {0};
    if (st == TS_OK) st = ts_program_create(g, ctx, &prog, err);
    if (st == TS_OK) st = ts_program_run(prog, params, outs, err);
    size_t bytes = sizeof(float) * (size_t)t * (size_t)e->spec.lm_hidden;
    if (st == TS_OK && !(*rows = malloc(bytes ? bytes : 1)))
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "audio encoder: out of memory for %lld rows", (long long)t);
    if (st == TS_OK) memcpy(*rows, outs[0], bytes), *n_rows = t;
    ts_program_destroy(prog);
    free(params);
    ts_graph_destroy(g);
    return st;
}

static void destroy(void *state) { free(state); }

static const ts_audio_encoder_ops encoder_ops = {create, encode, destroy};

/* audio.main: both projectors, picked per call by its `projector` input (phi4_audio.h). */
static ts_status entry(ts_graph *g, const char *dir, const ts_model_config *cfg, const ts_weight_source *weights,
                       int64_t max_frames, ts_error *err)
{
    (void)cfg;
    ts_phi4_audio_spec spec;
    ts_status st = ts_phi4_audio_spec_load(dir, &spec, err);
    return st == TS_OK ? ts_phi4_audio_build_padded(g, &spec, weights, max_frames, err) : st;
}

static const char *const projectors[] = {"speech", "vision_speech"};

const ts_audio_path ts_phi4_mm_audio_path = {
    .sample_rate = 16000,
    .features = features,
    .tokens = tokens,
    .encoder = &encoder_ops,
    .entry = entry,
    .projectors = projectors,
    .n_projectors = 2,
    .projector = projector,
};
