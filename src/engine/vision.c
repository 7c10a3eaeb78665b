/* vision.c — a model's vision tower: pixel values in, the rows the language model receives out.
 *
 * The tower is the family's (src/models/tower.h): it says what graph to build for a patch count
 * and how pixel values become that graph's inputs; this file owns the graphs and programs (one
 * kept per patch count: the last one built) and the encoder cache. A tower with DeepStack levels
 * gives them with its rows (ts_vision_encode_deepstack), which the language model adds after its
 * first K layers (ts_mm_inputs_build makes them the prefill's side inputs). What a prompt does
 * with the rows (embeddings, positions, side inputs) is mm_inputs.c's. The tower lives in the
 * model's own checkpoint mapping (never a second language model). Everything a request brings
 * (pixels, layout) is owned by the call and freed before it returns.
 */
#include "engine/vision.h"
#include "base/error.h"
#include "cpu/executor.h"
#include "graph/quantize.h"
#include "models/family.h"
#include "models/weights.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The graph and program of one patch count; a tower's runner. */
struct ts_tower_runner {
    ts_context *ctx;
    const ts_tower_ops *ops;
    const void *spec;
    const ts_weight_source *weights;
    ts_quant_chooser choose; /* ts_vision_quantize: which matrices each graph quantizes */
    void *choose_user;
    int64_t n_patches;
    ts_graph *graph;
    ts_program *program;
    void **params;
};

struct ts_vision {
    const ts_model_config *cfg; /* borrowed: ts_vision_create_twin makes another from it */
    const ts_tower_ops *ops;
    void *spec; /* the tower's settings (ops->create) */
    /* Row blocks the tower gives per image: 1, or 1 + K DeepStack levels. The encoder cache
     * keeps all of them per image: [levels][rows][width]. */
    int levels;
    int64_t width;
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

ts_status ts_vision_create_twin(const ts_vision *v, ts_context *ctx, ts_vision **out, ts_error *err)
{
    return ts_vision_create(ctx, v->cfg, v->runner.weights, v->runner.choose, v->runner.choose_user, out, err);
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
    if (st == TS_OK && r->choose) {
        ts_graph *q;
        st = ts_graph_quantize(r->graph, r->choose, r->choose_user, &q, err);
        ts_graph_destroy(r->graph);
        r->graph = st == TS_OK ? q : NULL;
    }
    if (st == TS_OK) st = ts_program_create(r->graph, r->ctx, &r->program, err);
    if (st == TS_OK) {
        r->params = calloc((size_t)r->graph->n_parameters + 1, sizeof(void *));
        if (!r->params) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory");
    }
    /* By name and the graph's shape: a patch embedding may be declared as a view of its stored
     * shape (sources find stored tensors by name), and a quantized matrix is made from the shape
     * asked for. */
    if (st == TS_OK) st = ts_weights_bind(r->graph, r->weights, r->params, err);
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

const ts_weight_source *ts_tower_weights(const ts_tower_runner *r)
{
    return r->weights;
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

int ts_vision_deepstack_levels(const ts_vision *v)
{
    return v->levels - 1;
}

static int64_t out_width(const ts_vision *v)
{
    return v->width;
}

ts_status ts_vision_create(ts_context *ctx, const ts_model_config *cfg, const ts_weight_source *weights,
                           ts_quant_chooser choose, void *choose_user, ts_vision **out, ts_error *err)
{
    *out = NULL;
    if (!ts_vision_has_tower(cfg))
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: no vision tower is built for this family",
                            ts_family_name(cfg->family));
    ts_vision *v = calloc(1, sizeof(*v));
    if (!v) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory");
    v->cfg = cfg;
    v->ops = cfg->family->tower;
    v->spec = calloc(1, v->ops->spec_size);
    ts_status st = v->spec ? v->ops->init(cfg, v->spec, err)
                           : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory");
    if (st == TS_OK) {
        v->levels = v->ops->levels(v->spec);
        v->width = v->ops->width(v->spec);
        v->runner = (ts_tower_runner){ctx, v->ops, v->spec, weights, choose, choose_user, 0, NULL, NULL, NULL};
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
        ts_pixel_values_digest(&images[i], keys[i]);
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

ts_status ts_vision_quantize(ts_vision *v, ts_quant_chooser choose, void *user, ts_float_matrices *kept,
                             ts_error *err)
{
    memset(kept, 0, sizeof(*kept));
    drop_program(&v->runner);
    /* Rows kept from the float tower are not what the quantized one computes. */
    size_t capacity = ts_encoder_cache_get_stats(v->cache).capacity;
    ts_encoder_cache_resize(v->cache, 0);
    ts_encoder_cache_resize(v->cache, capacity);
    v->runner.choose = choose, v->runner.choose_user = user;
    ts_status st = get_program(&v->runner, v->ops->smallest(v->spec), err);
    if (st != TS_OK) {
        v->runner.choose = NULL, v->runner.choose_user = NULL;
        return st;
    }
    ts_graph_float_matrices(v->runner.graph, TS_QUANT_BLOCK, kept);
    return TS_OK;
}
