/* bundle_generate.c — generation of one request through a bundle's entries (prefill.main, then
 * decode.main), in slot 0 of its bucket's slots (bundle_slots.c). A bundle with decode_k.main
 * verifies drafts through it when params->draft_tokens asks for speculative decoding (the loop's
 * verify/rollback hooks: rollback is the slot's length).
 *
 * The request is admitted to the smallest bucket that holds prompt + max_tokens (never
 * truncated); the other slots stay empty.
 *
 * With images, the images run through vision.main, ts_mm_inputs_build assembles the merged
 * embeddings, positions and side inputs with the model (its embedding table, image token, M-RoPE
 * rules), and the prompt goes through prefill_embeddings.main with a causal bias; decode adds the
 * request's rope delta.
 *
 * With audio (ts_bundle_generate_audio) the clips' rows (encoded by the bundle's audio.main or
 * the model) are merged the same way. A bundle served with LoRA adapters runs the request with
 * the adapter the model's family picks for its inputs (Phi-4-multimodal: speech for audio, none
 * for text), selected in the slot (an argument of every entry, not another module).
 *
 * A model with DeepStack (tower rows added after chosen layers) goes through
 * prefill_embeddings_deepstack.main: the tower's DeepStack rows are added after their layers at the
 * image tokens. The images go through the bundle's vision.main (layout patch_rows_deepstack: main
 * and DeepStack rows) when it has one; a bundle exported without vision buckets falls back to the
 * model's own CPU tower. A vision.main whose DeepStack levels are not the entry's is refused.
 */
#include "base/error.h"
#include "bundle/bundle.h"
#include "engine/generate.h"
#include "engine/model.h"
#include "models/family.h"
#include "bundle/bundle_internal.h"

#include <stdlib.h>
#include <string.h>

/* One request in slot 0 of its bucket's slots; its merged embeddings when it has images. */
typedef struct {
    ts_bundle_slots *slots;
    const float *embeddings; /* f32[n][hidden] and positions [rows][n], or NULL */
    const int32_t *embedding_positions;
    const ts_side_inputs *side; /* with embeddings: their side inputs (DeepStack), or NULL */
    int64_t hidden, rope_delta, vocab;
    float *all_logits; /* decode.main's [slots][vocab], decode_k.main's [slots][K][vocab] */
    int32_t *tokens;   /* [slots][K]: only slot 0's are used */
    bool *active;      /* [slots]: slot 0 */
    int *n_rows;       /* [slots]: slot 0's verify rows */
    const char *adapter; /* the family's LoRA adapter for the request's inputs, or NULL (none) */
} bundle_step;

static ts_status bundle_prefill(void *self, const int32_t *prompt, size_t n, float *logits, ts_error *err)
{
    bundle_step *s = self;
    if (s->embeddings)
        return ts_bundle_slots_prefill_embeddings(s->slots, 0, s->embeddings, n, s->hidden,
                                                  s->embedding_positions, s->rope_delta, s->side,
                                                  logits, err);
    return ts_bundle_slots_prefill(s->slots, 0, prompt, n, logits, err);
}

static ts_status bundle_decode(void *self, int32_t id, float *logits, ts_error *err)
{
    bundle_step *s = self;
    s->tokens[0] = id;
    ts_status st = ts_bundle_slots_decode(s->slots, s->tokens, s->active, s->all_logits, err);
    if (st == TS_OK) memcpy(logits, s->all_logits, sizeof(float) * (size_t)s->vocab);
    return st;
}

/* Speculative decoding through decode_k.main: n ≤ K rows in slot 0, every row's logits. */
static ts_status bundle_verify(void *self, const int32_t *tokens, int n, float *rows, ts_error *err)
{
    bundle_step *s = self;
    memcpy(s->tokens, tokens, sizeof(int32_t) * (size_t)n);
    s->n_rows[0] = n;
    ts_status st = ts_bundle_slots_verify(s->slots, s->tokens, s->n_rows, s->all_logits, err);
    if (st == TS_OK) memcpy(rows, s->all_logits, sizeof(float) * (size_t)n * (size_t)s->vocab);
    return st;
}

static ts_status bundle_rollback(void *self, int drop, ts_error *err)
{
    bundle_step *s = self;
    return ts_bundle_slots_truncate(s->slots, 0, ts_bundle_slots_length(s->slots, 0) - drop, err);
}

/* Drafts a step may add: K - 1 while the slot has room for all K rows decode_k.main writes. */
static int64_t bundle_draft_room(void *self)
{
    bundle_step *s = self;
    int64_t k = ts_bundle_slots_draft_width(s->slots);
    return ts_bundle_slots_length(s->slots, 0) + k <= ts_bundle_slots_capacity(s->slots) ? k - 1 : 0;
}

static bool bundle_full(void *self)
{
    bundle_step *s = self;
    return ts_bundle_slots_length(s->slots, 0) >= ts_bundle_slots_capacity(s->slots);
}

static ts_status generate(bundle_step *s, ts_bundle *bundle, const int32_t *prompt, size_t n, const ts_generate_params *params,
                          ts_generation *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    int bucket;
    int64_t layers, kv_heads, head_dim;
    ts_status st = ts_bundle_admit(bundle, (int64_t)n, params->max_tokens, &bucket, err);
    if (st == TS_OK) st = ts_bundle_kv_shape(bundle, &s->vocab, &layers, &kv_heads, &head_dim, err);
    if (st == TS_OK) st = ts_bundle_slots_create(bundle, bucket, &s->slots, err);
    /* The adapter the engine would run the request with (ts_model_adapter_for), by the
     * bundle's index; a bundle exported without it is refused rather than run on the base. */
    int adapter = ts_bundle_adapter_index(bundle, s->adapter);
    if (st == TS_OK && adapter < 0)
        st = ts_error_set(err, TS_ERR_UNSUPPORTED, "bundle: it has no LoRA adapter '%s' (%d adapters; export it from the checkpoint that ships it)",
                          s->adapter, ts_bundle_adapter_count(bundle));
    if (st == TS_OK && adapter > 0) st = ts_bundle_slots_set_adapter(s->slots, 0, adapter, err);
    size_t slots = st == TS_OK ? (size_t)ts_bundle_slots_count(s->slots) : 0;
    int64_t k = st == TS_OK ? ts_bundle_slots_draft_width(s->slots) : 0;
    size_t width = k ? (size_t)k : 1;
    if (st == TS_OK) {
        s->all_logits = malloc(sizeof(float) * (size_t)s->vocab * slots * width);
        s->tokens = calloc(slots * width, sizeof(int32_t));
        s->active = calloc(slots, sizeof(bool));
        s->n_rows = calloc(slots, sizeof(int));
        if (!s->all_logits || !s->tokens || !s->active || !s->n_rows) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "bundle: out of memory");
        else s->active[0] = true;
    }
    ts_step_backend backend = {.self = s, .vocab = s->vocab, .prefill = bundle_prefill, .decode = bundle_decode, .full = bundle_full};
    if (k) { /* decode_k.main: the pending token and up to K - 1 drafts a step */
        backend.verify = bundle_verify, backend.rollback = bundle_rollback, backend.draft_room = bundle_draft_room;
        backend.max_draft = k - 1;
    }
    if (st == TS_OK) st = ts_generate_backend(&backend, prompt, n, params, out, err);
    free(s->all_logits), free(s->tokens), free(s->active), free(s->n_rows);
    ts_bundle_slots_destroy(s->slots);
    return st;
}

ts_status ts_bundle_generate(ts_bundle *bundle, const int32_t *prompt, size_t n, const ts_generate_params *params,
                             ts_generation *out, ts_error *err)
{
    bundle_step s = {0};
    return generate(&s, bundle, prompt, n, params, out, err);
}

/* The prompt with its encoded media merged by ts_mm_inputs_build (the model's embedding table,
 * media tokens, positions and side inputs), through the embedding entry, with the adapter the
 * family picks for `inputs` (TS_INPUT_* bits). */
static ts_status generate_merged(ts_bundle *bundle, ts_model *model, const int32_t *prompt, size_t n, const ts_pixel_values *images,
                                 int n_images, const ts_encoded_media *media, unsigned inputs, const ts_generate_params *params,
                                 ts_generation *out, ts_error *err)
{
    ts_mm_inputs in = {0};
    ts_status st = ts_mm_inputs_build(model, prompt, n, images, n_images, media, &in, err);
    if (st == TS_OK && ts_bundle_position_rows(bundle) != in.position_rows)
        st = ts_error_set(err, TS_ERR_FORMAT, "bundle: its position mode does not match the model's");
    ts_side_inputs side = ts_mm_inputs_side(&in);
    bundle_step s = {.embeddings = in.embeddings,
                     .embedding_positions = in.positions,
                     .side = &side,
                     .hidden = in.hidden,
                     .rope_delta = in.rope_delta,
                     .adapter = ts_model_adapter_for(model, inputs)};
    if (st == TS_OK) st = generate(&s, bundle, prompt, n, params, out, err);
    ts_mm_inputs_free(&in);
    return st;
}

/* The images through vision.main (a DeepStack model's bundle exported without vision buckets:
 * the model's own tower), then ts_mm_inputs_build, then the prompt through the embedding entry
 * with the side inputs the model's image rows need. */
ts_status ts_bundle_generate_images(ts_bundle *bundle, ts_model *model, const int32_t *prompt,
                                    size_t n, const ts_pixel_values *images, int n_images,
                                    const ts_generate_params *params, ts_generation *out,
                                    ts_error *err)
{
    memset(out, 0, sizeof(*out));
    const ts_model_config *cfg = ts_model_get_config(model);
    if (!ts_model_vision(model))
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: images are not supported for this model",
                            ts_family_name(cfg->family));
    int n_layers = 0;
    bool deepstack = ts_model_side_inputs(model, NULL, NULL) == TS_SIDE_DEEPSTACK;
    bool bundle_tower = ts_bundle_vision_buckets(bundle, NULL) > 0;
    if (deepstack && ts_bundle_side_inputs(bundle, NULL, &n_layers) != TS_SIDE_DEEPSTACK)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "bundle: %s declares DeepStack, the bundle has no prefill_embeddings_deepstack.main (export it again)",
                            ts_family_name(cfg->family));
    if (deepstack && bundle_tower && ts_bundle_vision_levels(bundle) != n_layers)
        return ts_error_set(
            err, TS_ERR_UNSUPPORTED,
            "bundle: its vision.main gives %d DeepStack levels for %s, the entry takes %d",
            ts_bundle_vision_levels(bundle), ts_family_name(cfg->family), n_layers);
    ts_encoded_media media;
    ts_status st = bundle_tower || !deepstack
                       ? ts_bundle_encode_images(bundle, images, n_images, &media, err)
                       : ts_model_encode_images(model, images, n_images, &media, err);
    if (st == TS_OK) st = generate_merged(bundle, model, prompt, n, images, n_images, &media, TS_INPUT_IMAGE, params, out, err);
    ts_encoded_media_free(&media);
    return st;
}

/* The clips' rows (and the images' beside them) merged by ts_mm_inputs_build (the model's audio
 * token), then the prompt through prefill_embeddings.main with the family's adapter for these
 * inputs in the slot (as ts_generate_audio picks it). */
ts_status ts_bundle_generate_audio(ts_bundle *bundle, ts_model *model, const int32_t *prompt, size_t n,
                                   const ts_encoded_media *audio, const ts_generate_params *params, ts_generation *out,
                                   ts_error *err)
{
    memset(out, 0, sizeof(*out));
    unsigned inputs = TS_INPUT_AUDIO | (audio && audio->n_rows > 0 ? TS_INPUT_IMAGE : 0u);
    return generate_merged(bundle, model, prompt, n, NULL, 0, audio, inputs, params, out, err);
}
