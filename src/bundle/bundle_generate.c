/* bundle_generate.c — generation of one request through a bundle's entries (prefill.main, then
 * decode.main), in slot 0 of its bucket's slots (bundle_slots.c).
 *
 * The request is admitted to the smallest bucket that holds prompt + max_tokens (never
 * truncated); the other slots stay empty.
 *
 * With images, the images run through vision.main, the model assembles the merged embeddings and
 * positions (its embedding table, image token, M-RoPE rules), and the prompt goes through
 * prefill_embeddings.main with a causal bias; decode adds the request's rope delta.
 *
 * A model with DeepStack (Qwen3-VL) goes through prefill_embeddings_deepstack.main: the tower's
 * DeepStack rows are added after their layers at the image tokens. The images go through the
 * bundle's vision.main (layout patch_rows_deepstack: main and DeepStack rows) when it has one;
 * a bundle exported without vision buckets falls back to the model's own CPU tower. A vision.main
 * whose DeepStack levels are not the entry's is refused.
 */
#include "base/error.h"
#include "bundle/bundle.h"
#include "engine/generate.h"
#include "engine/model.h"
#include "engine/vision.h"

#include <stdlib.h>
#include <string.h>

/* One request in slot 0 of its bucket's slots; its merged embeddings when it has images. */
typedef struct {
    ts_bundle_slots *slots;
    const float *embeddings; /* f32[n][hidden] and positions [rows][n], or NULL */
    const int32_t *embedding_positions;
    const ts_deepstack *deepstack; /* prefill_embeddings_deepstack.main's payload, or NULL */
    int64_t hidden, rope_delta, vocab;
    float *all_logits; /* decode.main's [slots][vocab] */
    int32_t *tokens;   /* [slots]: only slot 0's is used */
    bool *active;      /* [slots]: slot 0 */
} bundle_step;

static ts_status bundle_prefill(void *self, const int32_t *prompt, size_t n, float *logits, ts_error *err)
{
    bundle_step *s = self;
    if (s->deepstack)
        return ts_bundle_slots_prefill_embeddings_deepstack(s->slots, 0, s->embeddings, n, s->hidden, s->embedding_positions, s->rope_delta,
                                                            s->deepstack, logits, err);
    if (s->embeddings)
        return ts_bundle_slots_prefill_embeddings(s->slots, 0, s->embeddings, n, s->hidden, s->embedding_positions, s->rope_delta, logits,
                                                  err);
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
    size_t slots = st == TS_OK ? (size_t)ts_bundle_slots_count(s->slots) : 0;
    if (st == TS_OK) {
        s->all_logits = malloc(sizeof(float) * (size_t)s->vocab * slots);
        s->tokens = calloc(slots, sizeof(int32_t));
        s->active = calloc(slots, sizeof(bool));
        if (!s->all_logits || !s->tokens || !s->active) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "bundle: out of memory");
        else s->active[0] = true;
    }
    ts_step_backend backend = {s, s->vocab, bundle_prefill, bundle_decode, bundle_full};
    if (st == TS_OK) st = ts_generate_backend(&backend, prompt, n, params, out, err);
    free(s->all_logits), free(s->tokens), free(s->active);
    ts_bundle_slots_destroy(s->slots);
    return st;
}

ts_status ts_bundle_generate(ts_bundle *bundle, const int32_t *prompt, size_t n, const ts_generate_params *params,
                             ts_generation *out, ts_error *err)
{
    bundle_step s = {0};
    return generate(&s, bundle, prompt, n, params, out, err);
}

/* Qwen3-VL: the images through vision.main or the model's tower (main and DeepStack rows), the merged embeddings
 * and positions, the image tokens' rows as visual_positions, then prefill_embeddings_deepstack.main. */
static ts_status generate_deepstack(ts_bundle *bundle, ts_model *model, ts_vision *v, const int32_t *prompt, size_t n,
                                    const ts_pixel_values *images, int n_images, const ts_generate_params *params, ts_generation *out,
                                    ts_error *err)
{
    const ts_model_config *cfg = ts_model_get_config(model);
    int n_layers = 0, levels = 0;
    const int32_t *layers = ts_bundle_deepstack_layers(bundle, &n_layers);
    if (!n_layers)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "bundle: %s declares DeepStack, the bundle has no prefill_embeddings_deepstack.main (export it again)",
                            ts_family_name(cfg->family));
    bool bundle_tower = ts_bundle_vision_buckets(bundle, NULL) > 0;
    if (bundle_tower && ts_bundle_vision_deepstack_levels(bundle) != n_layers)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "bundle: its vision.main gives %d DeepStack levels for %s, the entry takes %d",
                            ts_bundle_vision_deepstack_levels(bundle), ts_family_name(cfg->family), n_layers);
    int64_t hidden = cfg->text.hidden_size, rows = 0, delta = 0, n_visual = 0;
    float *image = NULL, *features = NULL, *inputs = malloc(sizeof(float) * (n ? n : 1) * (size_t)hidden);
    int32_t *positions = malloc(sizeof(int32_t) * 3 * (n ? n : 1)), *visual = malloc(sizeof(int32_t) * (n ? n : 1));
    ts_status st = inputs && positions && visual ? TS_OK : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "bundle: out of memory");
    if (st == TS_OK && bundle_tower)
        st = ts_bundle_encode_images_deepstack(bundle, images, n_images, &image, &features, &levels, &rows, err);
    else if (st == TS_OK)
        st = ts_vision_encode_deepstack(v, images, n_images, &image, &features, &levels, &rows, err);
    if (st == TS_OK && levels != n_layers)
        st = ts_error_set(err, TS_ERR_FORMAT, "bundle: the tower gives %d DeepStack levels, the bundle's entry takes %d", levels, n_layers);
    if (st == TS_OK) st = ts_vision_assemble_rows(v, model, prompt, n, images, n_images, image, rows, inputs, positions, &delta, err);
    if (st == TS_OK && (ts_bundle_position_rows(bundle) == 3) != ts_vision_mrope(v))
        st = ts_error_set(err, TS_ERR_FORMAT, "bundle: its position mode does not match the model's");
    for (size_t i = 0; st == TS_OK && i < n; i++)
        if (prompt[i] == cfg->image_token_id) visual[n_visual++] = (int32_t)i; /* row r of the payload: the r-th image token */
    if (st == TS_OK && n_visual != rows)
        st = ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "bundle: %lld image tokens in the prompt, %lld image rows", (long long)n_visual,
                          (long long)rows);
    ts_deepstack ds = {visual, n_visual, features, layers, n_layers};
    bundle_step s = {.embeddings = inputs, .embedding_positions = positions, .deepstack = &ds, .hidden = hidden, .rope_delta = delta};
    if (st == TS_OK) st = generate(&s, bundle, prompt, n, params, out, err);
    free(image), free(features), free(inputs), free(positions), free(visual);
    return st;
}

ts_status ts_bundle_generate_images(ts_bundle *bundle, ts_model *model, const int32_t *prompt, size_t n, const ts_pixel_values *images,
                                    int n_images, const ts_generate_params *params, ts_generation *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    ts_vision *v = ts_model_vision(model);
    if (!v) return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: images are not supported for this model", ts_family_name(ts_model_get_config(model)->family));
    if (ts_vision_deepstack_levels(v) > 0) return generate_deepstack(bundle, model, v, prompt, n, images, n_images, params, out, err);
    int64_t hidden = ts_model_get_config(model)->text.hidden_size, rows = 0, delta = 0;
    float *image = NULL, *inputs = malloc(sizeof(float) * (n ? n : 1) * (size_t)hidden);
    int32_t *positions = malloc(sizeof(int32_t) * 3 * (n ? n : 1));
    ts_status st = inputs && positions ? TS_OK : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "bundle: out of memory");
    if (st == TS_OK) st = ts_bundle_encode_images(bundle, images, n_images, &image, &rows, err);
    if (st == TS_OK) st = ts_vision_assemble(v, model, prompt, n, images, n_images, image, rows, inputs, positions, &delta, err);
    if (st == TS_OK && (ts_bundle_position_rows(bundle) == 3) != ts_vision_mrope(v))
        st = ts_error_set(err, TS_ERR_FORMAT, "bundle: its position mode does not match the model's");
    bundle_step s = {.embeddings = inputs, .embedding_positions = positions, .hidden = hidden, .rope_delta = delta};
    if (st == TS_OK) st = generate(&s, bundle, prompt, n, params, out, err);
    free(image), free(inputs), free(positions);
    return st;
}
