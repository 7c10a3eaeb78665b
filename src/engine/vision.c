/* vision.c — images into a sequence: the family's vision tower, the merged input embeddings,
 * the rotary positions, then prefill.
 *
 * The tower is the family's (src/models/tower.h): it says what graph to build for a patch count
 * and how pixel values become that graph's inputs; this file owns the graphs and programs (one
 * kept per patch count: the last one built), the encoder cache, and the assembly that follows.
 * A tower with DeepStack levels gives them with its rows (ts_vision_encode_deepstack), and the
 * prefill hands them to the language model as its DeepStack payload (the image tokens' positions
 * and the rows), added after its first K layers; ts_vision_assemble alone refuses such a tower:
 * main rows without the side features would make a wrong prefill.
 *
 * Then embed_tokens(ids) with the image-token rows replaced by the image rows, in order, the
 * family's positions (1-D when it has none), and ts_model_prefill_embeddings. The tower lives in
 * the model's own checkpoint mapping (never a second language model). Everything a request
 * brings (pixels, layout, embeddings) is owned by the call and freed before it returns.
 */
#include "engine/vision.h"
#include "base/error.h"
#include "cpu/executor.h"
#include "models/family.h"

#include <stdlib.h>
#include <string.h>

/* The graph and program of one patch count; a tower's runner. */
struct ts_tower_runner {
    ts_context *ctx;
    const ts_tower_ops *ops;
    const void *spec;
    const ts_weight_source *weights;
    int64_t n_patches;
    ts_graph *graph;
    ts_program *program;
    void **params;
};

struct ts_vision {
    const ts_tower_ops *ops;
    void *spec; /* the tower's settings (ops->create) */
    /* Row blocks the tower gives per image: 1, or 1 + K DeepStack levels. The encoder cache
     * keeps all of them per image: [levels][rows][width]. */
    int levels;
    int64_t width;
    const ts_family_desc *family;
    ts_tower_runner runner;
    ts_encoder_cache *cache;
};

static void drop_program(ts_tower_runner *r)
{
    ts_program_destroy(r->program);
    ts_graph_destroy(r->graph);
    free(r->params);
    r->program = NULL, r->graph = NULL, r->params = NULL, r->n_patches = 0;
}

void ts_vision_destroy(ts_vision *v)
{
    if (!v) return;
    drop_program(&v->runner);
    ts_encoder_cache_destroy(v->cache);
    free(v->spec);
    free(v);
}

static ts_status get_program(ts_tower_runner *r, int64_t n_patches, ts_error *err)
{
    if (r->program && r->n_patches == n_patches) return TS_OK;
    drop_program(r);
    ts_status st = ts_graph_create(&r->graph, err);
    if (st == TS_OK) st = r->ops->build(r->graph, r->spec, r->weights, n_patches, err);
    if (st == TS_OK) st = ts_program_create(r->graph, r->ctx, &r->program, err);
    if (st == TS_OK) {
        r->params = calloc((size_t)r->graph->n_parameters + 1, sizeof(void *));
        if (!r->params) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory");
    }
    for (int32_t i = 0; st == TS_OK && i < r->graph->n_nodes; i++) {
        const ts_node *n = &r->graph->nodes[i];
        if (n->op != TS_OP_PARAMETER || n->attrs.parameter.role != TS_PARAM_WEIGHT) continue;
        /* Bound by name: a patch embedding may be declared as a view of another shape. */
        const ts_tensor_info *t = r->weights->find(r->weights->self, n->name, 0, NULL);
        r->params[n->attrs.parameter.index] = t ? (void *)t->data : NULL;
    }
    if (st != TS_OK) {
        drop_program(r);
        return st;
    }
    r->n_patches = n_patches;
    return TS_OK;
}

ts_status ts_tower_run(ts_tower_runner *r, int64_t n_patches, void *const *inputs, int n_inputs,
                       const void **outputs, ts_error *err)
{
    ts_status st = get_program(r, n_patches, err);
    if (st != TS_OK) return st;
    int32_t k = ts_decoder_first_input(r->graph);
    for (int i = 0; i < n_inputs; i++)
        r->params[k + i] = inputs[i];
    return ts_program_run(r->program, r->params, outputs, err);
}

int64_t ts_vision_image_tokens(const ts_vision *v, const ts_pixel_values *pv)
{
    return v->ops->image_tokens(v->spec, pv);
}

bool ts_vision_has_tower(const ts_model_config *cfg)
{
    return cfg->has_vision && cfg->family && cfg->family->tower;
}

bool ts_vision_has_image_prefill(const ts_model_config *cfg)
{
    return ts_family_image_path(cfg);
}

static ts_status refuse_prefill(const ts_model_config *cfg, ts_error *err)
{
    return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: images are not supported for this model",
                        ts_family_name(cfg->family));
}

int ts_vision_deepstack_levels(const ts_vision *v)
{
    return v->levels - 1;
}

static int64_t out_width(const ts_vision *v)
{
    return v->width;
}

ts_status ts_vision_create(ts_context *ctx, const ts_model_config *cfg,
                           const ts_weight_source *weights, ts_vision **out, ts_error *err)
{
    *out = NULL;
    if (!ts_vision_has_tower(cfg))
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: no vision tower is built for this family",
                            ts_family_name(cfg->family));
    ts_vision *v = calloc(1, sizeof(*v));
    if (!v) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory");
    v->ops = cfg->family->tower;
    v->family = cfg->family;
    v->spec = calloc(1, v->ops->spec_size);
    ts_status st = v->spec ? v->ops->init(cfg, v->spec, err)
                           : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory");
    if (st == TS_OK) {
        v->levels = v->ops->levels(v->spec);
        v->width = v->ops->width(v->spec);
        v->runner = (ts_tower_runner){ctx, v->ops, v->spec, weights, 0, NULL, NULL, NULL};
        st = ts_encoder_cache_create(TS_ENCODER_CACHE_DEFAULT_BYTES, &v->cache, err);
    }
    /* Check every tower weight now, on the smallest graph the tower has. */
    if (st == TS_OK) st = get_program(&v->runner, v->ops->smallest(v->spec), err);
    if (st != TS_OK) {
        ts_vision_destroy(v);
        return st;
    }
    *out = v;
    return TS_OK;
}

static ts_status encode_uncached(ts_vision *v, const ts_pixel_values *images, int n_images,
                                 float **embeds, int64_t *n_rows, ts_error *err)
{
    *embeds = NULL;
    if (n_images < 1 || n_images > TS_MAX_IMAGES)
        return ts_error_set(err, TS_ERR_RANGE, "vision: %d images (1..%d allowed)", n_images,
                            TS_MAX_IMAGES);
    return v->ops->encode(v->spec, &v->runner, images, n_images, embeds, n_rows, err);
}

/* The rows an image makes, from its own header; 0 when the header is not plausible (the
 * uncached encode then reports what is wrong). */
static int64_t image_rows(const ts_vision *v, const ts_pixel_values *p)
{
    return v->ops->image_rows(v->spec, p);
}

/* Every level of the images' rows, [levels][*n_rows][width] (owned), each image from the encoder
 * cache when it holds it. Each image's rows depend only on that image (the towers' attention is
 * block-diagonal per image, the DeepStack mergers per merge unit), so cached images are copied in
 * and only the others run, together. A cache entry is one image's [levels][rows][width]. */
static ts_status encode_levels(ts_vision *v, const ts_pixel_values *images, int n_images,
                               float **embeds, int64_t *n_rows, ts_error *err)
{
    *embeds = NULL;
    if (n_images < 1 || n_images > TS_MAX_IMAGES)
        return ts_error_set(err, TS_ERR_RANGE, "vision: %d images (1..%d allowed)", n_images,
                            TS_MAX_IMAGES);
    int64_t width = out_width(v), total = 0, rows[TS_MAX_IMAGES];
    size_t levels = (size_t)v->levels;
    uint8_t keys[TS_MAX_IMAGES][32];
    bool hit[TS_MAX_IMAGES];
    ts_pixel_values misses[TS_MAX_IMAGES];
    int n_misses = 0, biggest = 0;
    for (int i = 0; i < n_images; i++) {
        rows[i] = image_rows(v, &images[i]);
        total += rows[i];
        if (rows[i] > rows[biggest]) biggest = i;
    }
    size_t level = (size_t)(total * width), entry_max = (size_t)(rows[biggest] * width) * levels;
    float *out = malloc(sizeof(float) * (level ? level * levels : 1));
    /* One image's entry, gathered from or scattered to the levels (only with DeepStack levels). */
    float *entry = levels > 1 ? malloc(sizeof(float) * (entry_max ? entry_max : 1)) : NULL;
    if (!out || (levels > 1 && !entry)) {
        free(out), free(entry);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory");
    }
    for (int i = 0, at = 0; i < n_images; at += (int)rows[i], i++) {
        size_t n = (size_t)(rows[i] * width);
        ts_encoder_cache_key(&images[i], keys[i]);
        hit[i] =
            rows[i] > 0 && ts_encoder_cache_get(v->cache, keys[i],
                                                levels > 1 ? entry : out + at * width, n * levels);
        for (size_t l = 1; hit[i] && l < levels; l++)
            memcpy(out + l * level + (size_t)(at * width), entry + l * n, sizeof(float) * n);
        if (hit[i] && levels > 1) memcpy(out + at * width, entry, sizeof(float) * n);
        if (!hit[i]) misses[n_misses++] = images[i];
    }
    float *fresh = NULL;
    int64_t fresh_rows = 0;
    ts_status st =
        n_misses ? encode_uncached(v, misses, n_misses, &fresh, &fresh_rows, err) : TS_OK;
    int64_t expected = 0;
    for (int i = 0; st == TS_OK && i < n_images; i++)
        expected += hit[i] ? 0 : rows[i];
    if (st == TS_OK && (fresh_rows != expected || total == 0))
        st = ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                          "vision: the images make %lld rows, their headers say %lld",
                          (long long)fresh_rows, (long long)expected);
    size_t fresh_level = (size_t)(fresh_rows * width);
    for (int i = 0, at = 0, next = 0; st == TS_OK && i < n_images; at += (int)rows[i], i++) {
        if (hit[i]) continue;
        size_t n = (size_t)(rows[i] * width);
        for (size_t l = 0; l < levels; l++) {
            const float *src = fresh + l * fresh_level + (size_t)(next * width);
            memcpy(out + l * level + (size_t)(at * width), src, sizeof(float) * n);
            if (levels > 1) memcpy(entry + l * n, src, sizeof(float) * n);
        }
        ts_encoder_cache_put(v->cache, keys[i], levels > 1 ? entry : fresh + next * width,
                             n * levels);
        next += (int)rows[i];
    }
    free(fresh), free(entry);
    if (st != TS_OK) {
        free(out);
        return st;
    }
    *embeds = out, *n_rows = total;
    return TS_OK;
}

ts_status ts_vision_encode(ts_vision *v, const ts_pixel_values *images, int n_images,
                           float **embeds, int64_t *n_rows, ts_error *err)
{
    ts_status st = encode_levels(v, images, n_images, embeds, n_rows, err);
    if (st != TS_OK || v->levels == 1) return st;
    /* The main rows are the first level: drop the DeepStack ones. */
    float *main_rows = realloc(*embeds, sizeof(float) * (size_t)(*n_rows * out_width(v)));
    if (main_rows) *embeds = main_rows;
    return TS_OK;
}

ts_status ts_vision_encode_deepstack(ts_vision *v, const ts_pixel_values *images, int n_images,
                                     float **embeds, float **deepstack, int *k, int64_t *n_rows,
                                     ts_error *err)
{
    *deepstack = NULL, *k = 0;
    ts_status st = encode_levels(v, images, n_images, embeds, n_rows, err);
    if (st != TS_OK || v->levels == 1) return st;
    size_t level = (size_t)(*n_rows * out_width(v)), n_deep = level * (size_t)(v->levels - 1);
    float *deep = malloc(sizeof(float) * n_deep);
    if (!deep) {
        free(*embeds);
        *embeds = NULL;
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory");
    }
    memcpy(deep, *embeds + level, sizeof(float) * n_deep);
    float *main_rows = realloc(*embeds, sizeof(float) * level);
    if (main_rows) *embeds = main_rows;
    *deepstack = deep, *k = v->levels - 1;
    return TS_OK;
}

ts_encoder_cache *ts_vision_cache(ts_vision *v)
{
    return v->cache;
}

ts_status ts_vision_assemble_rows(const ts_vision *v, const ts_model *m, const int32_t *ids,
                                  size_t n, const ts_pixel_values *images, int n_images,
                                  const float *image, int64_t image_rows, float *inputs,
                                  int32_t *positions, int64_t *delta, ts_error *err)
{
    const ts_model_config *cfg = ts_model_get_config(m);
    if (!ts_vision_has_image_prefill(cfg)) return refuse_prefill(cfg, err);
    int64_t hidden = cfg->text.hidden_size, image_tokens = 0;
    for (size_t i = 0; i < n; i++)
        image_tokens += ids[i] == cfg->image_token_id;
    if (image_tokens != image_rows)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "prefill: the prompt has %lld image tokens, the images make %lld",
                            (long long)image_tokens, (long long)image_rows);
    /* Token embeddings with the image rows replaced, in prompt order. */
    int32_t *text_ids = malloc(sizeof(int32_t) * n);
    if (!text_ids) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "prefill: out of memory");
    for (size_t i = 0; i < n; i++)
        text_ids[i] = ids[i] == cfg->image_token_id ? 0 : ids[i];
    ts_status st = ts_model_embed_tokens(m, text_ids, n, inputs, err);
    free(text_ids);
    int64_t next = 0;
    for (size_t i = 0; st == TS_OK && i < n; i++)
        if (ids[i] == cfg->image_token_id)
            memcpy(inputs + i * (size_t)hidden, image + (next++) * hidden,
                   sizeof(float) * (size_t)hidden);
    /* The family's positions (M-RoPE and a delta) when it has a scheme; else the arange. */
    *delta = 0;
    if (st == TS_OK && cfg->family->positions) {
        st = cfg->family->positions(cfg, ids, n, images, n_images, positions, delta, err);
    } else if (st == TS_OK) {
        for (size_t i = 0; i < n; i++)
            positions[i] = (int32_t)i;
    }
    return st;
}

ts_status ts_vision_assemble(const ts_vision *v, const ts_model *m, const int32_t *ids, size_t n,
                             const ts_pixel_values *images, int n_images, const float *image,
                             int64_t image_rows, float *inputs, int32_t *positions, int64_t *delta,
                             ts_error *err)
{
    /* Qwen3-VL's main rows alone would make a wrong prefill: its callers go through the DeepStack
     * path (ts_vision_prefill), which also carries the side features. */
    if (ts_vision_deepstack_levels(v) > 0)
        return ts_error_set(
            err, TS_ERR_UNSUPPORTED,
            "%s: this path has no DeepStack features for the language model (a bundle has no "
            "prefill_embeddings_deepstack.main yet)",
            ts_family_name(ts_model_get_config(m)->family));
    return ts_vision_assemble_rows(v, m, ids, n, images, n_images, image, image_rows, inputs,
                                   positions, delta, err);
}

bool ts_vision_mrope(const ts_vision *v)
{
    return v->family->position_rows == 3;
}

/* Qwen3-VL: the tower's main rows replace the image tokens, and its DeepStack levels go to the
 * language model as the compact payload: the image tokens' positions, [K][rows][hidden]. */
static ts_status prefill_deepstack(ts_vision *v, ts_model *m, ts_sequence *seq, const int32_t *ids,
                                   size_t n, const ts_pixel_values *images, int n_images,
                                   float *logits, ts_error *err)
{
    const ts_model_config *cfg = ts_model_get_config(m);
    int64_t hidden = cfg->text.hidden_size, delta = 0, rows = 0;
    float *image = NULL, *deepstack = NULL, *inputs = malloc(sizeof(float) * n * (size_t)hidden);
    int32_t *positions = malloc(sizeof(int32_t) * 3 * n), *visual = malloc(sizeof(int32_t) * n);
    int k = 0, n_layers = 0;
    const int32_t *layers = ts_model_deepstack_layers(m, &n_layers);
    ts_status st = inputs && positions && visual
                       ? TS_OK
                       : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "prefill: out of memory");
    if (st == TS_OK)
        st = ts_vision_encode_deepstack(v, images, n_images, &image, &deepstack, &k, &rows, err);
    if (st == TS_OK)
        st = ts_vision_assemble_rows(v, m, ids, n, images, n_images, image, rows, inputs, positions,
                                     &delta, err);
    int64_t n_visual = 0;
    for (size_t i = 0; st == TS_OK && i < n; i++)
        if (ids[i] == cfg->image_token_id) visual[n_visual++] = (int32_t)i;
    if (st == TS_OK && (k != n_layers || n_visual != rows))
        st = ts_error_set(err, TS_ERR_INTERNAL,
                          "prefill: the tower gives %d DeepStack levels for %lld rows, the model "
                          "takes %d at %lld image tokens",
                          k, (long long)rows, n_layers, (long long)n_visual);
    ts_deepstack payload = {visual, n_visual, deepstack, layers, n_layers};
    if (st == TS_OK)
        st = ts_model_prefill_embeddings_deepstack(m, seq, inputs, n, positions, delta, &payload,
                                                   logits, err);
    free(image), free(deepstack), free(inputs), free(positions), free(visual);
    return st;
}

ts_status ts_vision_prefill(ts_vision *v, ts_model *m, ts_sequence *seq, const int32_t *ids,
                            size_t n, const ts_pixel_values *images, int n_images, float *logits,
                            ts_error *err)
{
    const ts_model_config *cfg = ts_model_get_config(m);
    /* Checked before the tower runs: Qwen3-VL's rows alone would make a wrong prefill. */
    if (!ts_vision_has_image_prefill(cfg)) return refuse_prefill(cfg, err);
    if (ts_vision_deepstack_levels(v) > 0)
        return prefill_deepstack(v, m, seq, ids, n, images, n_images, logits, err);
    int64_t hidden = cfg->text.hidden_size;
    float *image = NULL, *inputs = malloc(sizeof(float) * n * (size_t)hidden);
    int32_t *positions = malloc(sizeof(int32_t) * 3 * n);
    int64_t delta = 0, encoded = 0;
    ts_status st = inputs && positions
                       ? TS_OK
                       : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "prefill: out of memory");
    if (st == TS_OK) st = ts_vision_encode(v, images, n_images, &image, &encoded, err);
    if (st == TS_OK)
        st = ts_vision_assemble_rows(v, m, ids, n, images, n_images, image, encoded, inputs,
                                     positions, &delta, err);
    if (st == TS_OK)
        st = ts_model_prefill_embeddings(m, seq, inputs, n, ts_vision_mrope(v) ? positions : NULL,
                                         delta, logits, err);
    free(image), free(inputs), free(positions);
    return st;
}
