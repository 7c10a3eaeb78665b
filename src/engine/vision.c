/* vision.c — images into a sequence: the vision tower, the merged input embeddings, the rotary
 * positions, then prefill. Three kinds of tower, chosen by family:
 *
 *   Qwen2-VL, Qwen2.5-VL: pixel values (patch rows per image) → one vision graph for
 *     N = Σ patch rows → image_embeds; positions from get_rope_index(ids, grids) (M-RoPE,
 *     [3][n]) and a rope delta.
 *   Qwen3-VL (and -MoE): the same, plus the position-table taps as inputs, and the graph also
 *     gives K DeepStack levels of rows (ts_vision_encode_deepstack), which the prefill hands
 *     to the language model as its DeepStack payload (the image tokens' positions and the
 *     rows), added after its first K layers. ts_vision_assemble alone refuses it: main rows
 *     without the side features would make a wrong prefill.
 *   LLaVA (CLIP or SigLIP tower): each image [C, S, S] → the fixed-size image graph → its
 *     tokens' rows; 1-D positions (length + i), no delta.
 *
 * Then embed_tokens(ids) with the image-token rows replaced by the image rows, in order, and
 * ts_model_prefill_embeddings. The tower lives in the model's own checkpoint mapping (never a
 * second language model). Its program is built per patch count (LLaVA: once) and kept for the
 * next image of the same size. Everything a request brings (pixels, layout, embeddings) is owned
 * by the call and freed before it returns.
 */
#include "engine/vision.h"
#include "base/error.h"
#include "cpu/executor.h"
#include "models/clip_vision.h"
#include "models/mrope_index.h"
#include "models/qwen3_vl_vision.h"

#include <stdlib.h>
#include <string.h>

typedef enum { TOWER_QWEN2_VL, TOWER_QWEN3_VL, TOWER_LLAVA } tower_kind;

struct ts_vision {
    ts_context *ctx;
    tower_kind kind;
    ts_qwen2_vl_vision_spec spec;  /* TOWER_QWEN2_VL */
    ts_qwen3_vl_vision_spec spec3; /* TOWER_QWEN3_VL */
    ts_clip_vision_spec clip;      /* TOWER_LLAVA */
    /* Row blocks the tower gives per image: 1, or 1 + K DeepStack levels (Qwen3-VL). The encoder
     * cache keeps all of them per image: [levels][rows][width]. */
    int levels;
    const ts_weight_source *weights;
    int64_t tokens_per_second;
    /* The last program, by patch count (LLaVA: always 1, one fixed-size image per run). */
    int64_t n_patches;
    ts_graph *graph;
    ts_program *program;
    void **params;
    ts_encoder_cache *cache;
};

static void drop_program(ts_vision *v)
{
    ts_program_destroy(v->program);
    ts_graph_destroy(v->graph);
    free(v->params);
    v->program = NULL, v->graph = NULL, v->params = NULL, v->n_patches = 0;
}

void ts_vision_destroy(ts_vision *v)
{
    if (!v) return;
    drop_program(v);
    ts_encoder_cache_destroy(v->cache);
    free(v);
}

static ts_status get_program(ts_vision *v, int64_t n_patches, ts_error *err)
{
    if (v->program && v->n_patches == n_patches) return TS_OK;
    drop_program(v);
    ts_status st = ts_graph_create(&v->graph, err);
    if (st == TS_OK) {
        if (v->kind == TOWER_LLAVA) st = ts_clip_vision_build(v->graph, &v->clip, v->weights, false, err);
        else if (v->kind == TOWER_QWEN3_VL) st = ts_qwen3_vl_vision_build(v->graph, &v->spec3, v->weights, n_patches, false, err);
        else st = ts_qwen2_vl_vision_build(v->graph, &v->spec, v->weights, n_patches, false, err);
    }
    if (st == TS_OK) st = ts_program_create(v->graph, v->ctx, &v->program, err);
    if (st == TS_OK) {
        v->params = calloc((size_t)v->graph->n_parameters + 1, sizeof(void *));
        if (!v->params) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory");
    }
    for (int32_t i = 0; st == TS_OK && i < v->graph->n_nodes; i++) {
        const ts_node *n = &v->graph->nodes[i];
        if (n->op != TS_OP_PARAMETER || n->attrs.parameter.role != TS_PARAM_WEIGHT) continue;
        /* Bound by name: the patch embedding is declared as a view of another shape. */
        const ts_tensor_info *t = v->weights->find(v->weights->self, n->name, 0, NULL);
        v->params[n->attrs.parameter.index] = t ? (void *)t->data : NULL;
    }
    if (st != TS_OK) {
        drop_program(v);
        return st;
    }
    v->n_patches = n_patches;
    return TS_OK;
}

int64_t ts_vision_image_tokens(const ts_vision *v, const ts_pixel_values *pv)
{
    if (v->kind == TOWER_LLAVA) return pv->n_dims == 4 ? pv->shape[0] * v->clip.tokens : v->clip.tokens;
    return pv->n_tokens;
}

bool ts_vision_has_tower(const ts_model_config *cfg)
{
    if (!cfg->has_vision) return false;
    switch (cfg->family) {
    case TS_FAMILY_QWEN2_VL:
    case TS_FAMILY_QWEN2_5_VL:
    case TS_FAMILY_QWEN3_VL:
    case TS_FAMILY_QWEN3_VL_MOE:
    case TS_FAMILY_LLAVA: return true;
    default: return false;
    }
}

bool ts_vision_has_image_prefill(const ts_model_config *cfg) { return ts_vision_has_tower(cfg); }

static ts_status refuse_prefill(const ts_model_config *cfg, ts_error *err)
{
    return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: images are not supported for this model", ts_family_name(cfg->family));
}

int ts_vision_deepstack_levels(const ts_vision *v) { return v->levels - 1; }

/* The Qwen towers' merge size and patch row width; every tower's output row width. */
static int64_t qwen_merge(const ts_vision *v) { return v->kind == TOWER_QWEN3_VL ? v->spec3.merge : v->spec.merge; }
static int64_t qwen_patch_dim(const ts_vision *v) { return v->kind == TOWER_QWEN3_VL ? v->spec3.patch_dim : v->spec.patch_dim; }
static int64_t out_width(const ts_vision *v)
{
    return v->kind == TOWER_LLAVA ? v->clip.lm_hidden : v->kind == TOWER_QWEN3_VL ? v->spec3.out_hidden : v->spec.out_hidden;
}

ts_status ts_vision_create(ts_context *ctx, const ts_model_config *cfg, const ts_weight_source *weights, ts_vision **out,
                           ts_error *err)
{
    *out = NULL;
    if (!ts_vision_has_tower(cfg))
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: no vision tower is built for this family", ts_family_name(cfg->family));
    ts_vision *v = calloc(1, sizeof(*v));
    if (!v) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory");
    v->ctx = ctx;
    v->weights = weights;
    v->kind = cfg->family == TS_FAMILY_LLAVA                                              ? TOWER_LLAVA
              : cfg->family == TS_FAMILY_QWEN3_VL || cfg->family == TS_FAMILY_QWEN3_VL_MOE ? TOWER_QWEN3_VL
                                                                                           : TOWER_QWEN2_VL;
    v->levels = 1;
    v->tokens_per_second = cfg->family == TS_FAMILY_QWEN2_5_VL ? cfg->vision.tokens_per_second : 0;
    ts_status st = ts_encoder_cache_create(TS_ENCODER_CACHE_DEFAULT_BYTES, &v->cache, err);
    /* Check every tower weight now (Qwen: one merge unit of patches is the smallest valid graph;
     * LLaVA: the one graph there is). */
    if (st == TS_OK && v->kind == TOWER_LLAVA) {
        st = ts_clip_vision_spec_init(cfg, &v->clip, err);
        if (st == TS_OK) st = get_program(v, 1, err);
    } else if (st == TS_OK && v->kind == TOWER_QWEN3_VL) {
        st = ts_qwen3_vl_vision_spec_init(cfg, &v->spec3, err);
        v->levels = 1 + v->spec3.n_deepstack;
        if (st == TS_OK) st = get_program(v, v->spec3.merge * v->spec3.merge, err);
    } else if (st == TS_OK) {
        st = ts_qwen2_vl_vision_spec_init(cfg, &v->spec, err);
        if (st == TS_OK) st = get_program(v, v->spec.merge * v->spec.merge, err);
    }
    if (st != TS_OK) {
        ts_vision_destroy(v);
        return st;
    }
    *out = v;
    return TS_OK;
}

/* LLaVA: every image is [C, S, S] (a ts_pixel_values may hold several, [k, C, S, S]), run one at
 * a time through the fixed-size graph; its rows follow the previous image's. */
static ts_status encode_llava(ts_vision *v, const ts_pixel_values *images, int n_images, float **embeds, int64_t *n_rows, ts_error *err)
{
    const ts_clip_vision_spec *s = &v->clip;
    int64_t count = 0, pixels = s->in_channels * s->image * s->image;
    for (int i = 0; i < n_images; i++) {
        const ts_pixel_values *p = &images[i];
        if (p->n_dims != 4 || p->shape[0] < 1 || p->shape[1] != s->in_channels || p->shape[2] != s->image || p->shape[3] != s->image)
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "vision: image %d is not [k, %lld, %lld, %lld] pixel values for this tower", i,
                                (long long)s->in_channels, (long long)s->image, (long long)s->image);
        count += p->shape[0];
    }
    if (count > 64) return ts_error_set(err, TS_ERR_RANGE, "vision: %lld images (1..64 allowed)", (long long)count);
    ts_status st = get_program(v, 1, err);
    size_t per_image = (size_t)(s->tokens * s->lm_hidden);
    float *out = st == TS_OK ? malloc(sizeof(float) * per_image * (size_t)count) : NULL;
    if (st == TS_OK && !out) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory for %lld images", (long long)count);
    int32_t k = st == TS_OK ? ts_decoder_first_input(v->graph) : 0;
    int64_t done = 0;
    for (int i = 0; st == TS_OK && i < n_images; i++)
        for (int64_t j = 0; st == TS_OK && j < images[i].shape[0]; j++, done++) {
            v->params[k] = images[i].data + j * pixels;
            const void *outs[1];
            st = ts_program_run(v->program, v->params, outs, err);
            if (st == TS_OK) memcpy(out + (size_t)done * per_image, outs[0], sizeof(float) * per_image);
        }
    if (st != TS_OK) {
        free(out);
        return st;
    }
    *embeds = out;
    *n_rows = count * s->tokens;
    return TS_OK;
}

/* Qwen towers: all images in one graph of N = Σ t·h·w rows. *embeds gets [levels][rows][width]. */
static ts_status encode_uncached(ts_vision *v, const ts_pixel_values *images, int n_images, float **embeds, int64_t *n_rows,
                                 ts_error *err)
{
    *embeds = NULL;
    if (n_images < 1 || n_images > 64) return ts_error_set(err, TS_ERR_RANGE, "vision: %d images (1..64 allowed)", n_images);
    if (v->kind == TOWER_LLAVA) return encode_llava(v, images, n_images, embeds, n_rows, err);
    ts_vision_grid grids[64];
    int64_t patch_dim = qwen_patch_dim(v), merge = qwen_merge(v);
    int64_t rows, frames;
    ts_status st = ts_qwen2_vl_vision_grids(images, n_images, patch_dim, merge, grids, &rows, &frames, err);
    if (st != TS_OK) return st;
    bool windowed = v->kind == TOWER_QWEN2_VL && v->spec.family == TS_FAMILY_QWEN2_5_VL, taps = v->kind == TOWER_QWEN3_VL;
    int64_t units = rows / (merge * merge);
    float *pixels = malloc(sizeof(float) * (size_t)(rows * patch_dim));
    int32_t *positions = malloc(sizeof(int32_t) * (size_t)(2 * rows)), *segments = malloc(sizeof(int32_t) * (size_t)rows);
    int32_t *windows = windowed ? malloc(sizeof(int32_t) * (size_t)rows) : NULL;
    int32_t *window_index = windowed ? malloc(sizeof(int32_t) * (size_t)units) : NULL;
    int32_t *pos_index = taps ? malloc(sizeof(int32_t) * (size_t)(4 * rows)) : NULL;
    float *pos_weight = taps ? malloc(sizeof(float) * (size_t)(4 * rows)) : NULL;
    if (!pixels || !positions || !segments || (windowed && (!windows || !window_index)) || (taps && (!pos_index || !pos_weight)))
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory for %lld patches", (long long)rows);
    if (st == TS_OK) {
        ts_qwen2_vl_vision_pack(images, n_images, patch_dim, pixels);
        if (windowed)
            ts_qwen2_5_vl_vision_layout(grids, n_images, merge, v->spec.window, positions, segments, windows, window_index);
        else
            ts_qwen2_vl_vision_layout(grids, n_images, merge, positions, segments, NULL);
        if (taps) ts_qwen3_vl_vision_pos_taps(&v->spec3, grids, n_images, rows, pos_index, pos_weight);
        st = get_program(v, rows, err);
    }
    if (st == TS_OK) {
        int32_t k = ts_decoder_first_input(v->graph);
        v->params[k++] = pixels;
        v->params[k++] = positions;
        v->params[k++] = segments;
        if (windowed) {
            v->params[k++] = windows;
            v->params[k++] = window_index;
        }
        if (taps) {
            v->params[k++] = pos_index;
            v->params[k++] = pos_weight;
        }
        const void *outs[2];
        st = ts_program_run(v->program, v->params, outs, err);
        size_t level = (size_t)(units * out_width(v));
        if (st == TS_OK) {
            *embeds = malloc(sizeof(float) * level * (size_t)v->levels);
            if (!*embeds) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory");
        }
        if (st == TS_OK) {
            /* Main rows, then the DeepStack output [K][units][width]: the same layout, one after the other. */
            memcpy(*embeds, outs[0], sizeof(float) * level);
            if (v->levels > 1) memcpy(*embeds + level, outs[1], sizeof(float) * level * (size_t)(v->levels - 1));
            *n_rows = units;
        }
    }
    free(pixels), free(positions), free(segments), free(windows), free(window_index), free(pos_index), free(pos_weight);
    return st;
}

/* The rows an image makes, from its own header; 0 when the header is not plausible (the
 * uncached encode then reports what is wrong). */
static int64_t image_rows(const ts_vision *v, const ts_pixel_values *p)
{
    if (v->kind == TOWER_LLAVA) return p->n_dims == 4 && p->shape[0] >= 1 && p->shape[0] <= 64 ? p->shape[0] * v->clip.tokens : 0;
    int64_t unit = qwen_merge(v) * qwen_merge(v), t = p->grid_thw[0], h = p->grid_thw[1], w = p->grid_thw[2];
    if (t < 1 || h < 1 || w < 1 || t > 1024 || h > 4096 || w > 4096) return 0;
    int64_t rows = t * h * w % unit == 0 ? t * h * w / unit : 0;
    return rows <= ((int64_t)1 << 22) ? rows : 0;
}

/* Every level of the images' rows, [levels][*n_rows][width] (owned), each image from the encoder
 * cache when it holds it. Each image's rows depend only on that image (the towers' attention is
 * block-diagonal per image, the DeepStack mergers per merge unit), so cached images are copied in
 * and only the others run, together. A cache entry is one image's [levels][rows][width]. */
static ts_status encode_levels(ts_vision *v, const ts_pixel_values *images, int n_images, float **embeds, int64_t *n_rows, ts_error *err)
{
    *embeds = NULL;
    if (n_images < 1 || n_images > 64) return ts_error_set(err, TS_ERR_RANGE, "vision: %d images (1..64 allowed)", n_images);
    int64_t width = out_width(v), total = 0, rows[64];
    size_t levels = (size_t)v->levels;
    uint8_t keys[64][32];
    bool hit[64];
    ts_pixel_values misses[64];
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
        hit[i] = rows[i] > 0 && ts_encoder_cache_get(v->cache, keys[i], levels > 1 ? entry : out + at * width, n * levels);
        for (size_t l = 1; hit[i] && l < levels; l++) memcpy(out + l * level + (size_t)(at * width), entry + l * n, sizeof(float) * n);
        if (hit[i] && levels > 1) memcpy(out + at * width, entry, sizeof(float) * n);
        if (!hit[i]) misses[n_misses++] = images[i];
    }
    float *fresh = NULL;
    int64_t fresh_rows = 0;
    ts_status st = n_misses ? encode_uncached(v, misses, n_misses, &fresh, &fresh_rows, err) : TS_OK;
    int64_t expected = 0;
    for (int i = 0; st == TS_OK && i < n_images; i++) expected += hit[i] ? 0 : rows[i];
    if (st == TS_OK && (fresh_rows != expected || total == 0))
        st = ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "vision: the images make %lld rows, their headers say %lld", (long long)fresh_rows,
                          (long long)expected);
    size_t fresh_level = (size_t)(fresh_rows * width);
    for (int i = 0, at = 0, next = 0; st == TS_OK && i < n_images; at += (int)rows[i], i++) {
        if (hit[i]) continue;
        size_t n = (size_t)(rows[i] * width);
        for (size_t l = 0; l < levels; l++) {
            const float *src = fresh + l * fresh_level + (size_t)(next * width);
            memcpy(out + l * level + (size_t)(at * width), src, sizeof(float) * n);
            if (levels > 1) memcpy(entry + l * n, src, sizeof(float) * n);
        }
        ts_encoder_cache_put(v->cache, keys[i], levels > 1 ? entry : fresh + next * width, n * levels);
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

ts_status ts_vision_encode(ts_vision *v, const ts_pixel_values *images, int n_images, float **embeds, int64_t *n_rows,
                           ts_error *err)
{
    ts_status st = encode_levels(v, images, n_images, embeds, n_rows, err);
    if (st != TS_OK || v->levels == 1) return st;
    /* The main rows are the first level: drop the DeepStack ones. */
    float *main_rows = realloc(*embeds, sizeof(float) * (size_t)(*n_rows * out_width(v)));
    if (main_rows) *embeds = main_rows;
    return TS_OK;
}

ts_status ts_vision_encode_deepstack(ts_vision *v, const ts_pixel_values *images, int n_images, float **embeds, float **deepstack,
                                     int *k, int64_t *n_rows, ts_error *err)
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

ts_encoder_cache *ts_vision_cache(ts_vision *v) { return v->cache; }

ts_status ts_vision_assemble_rows(const ts_vision *v, const ts_model *m, const int32_t *ids, size_t n, const ts_pixel_values *images,
                                  int n_images, const float *image, int64_t image_rows, float *inputs, int32_t *positions,
                                  int64_t *delta, ts_error *err)
{
    const ts_model_config *cfg = ts_model_get_config(m);
    if (!ts_vision_has_image_prefill(cfg)) return refuse_prefill(cfg, err);
    int64_t hidden = cfg->text.hidden_size, image_tokens = 0;
    for (size_t i = 0; i < n; i++) image_tokens += ids[i] == cfg->image_token_id;
    if (image_tokens != image_rows)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "prefill: the prompt has %lld image tokens, the images make %lld",
                            (long long)image_tokens, (long long)image_rows);
    /* Token embeddings with the image rows replaced, in prompt order. */
    int32_t *text_ids = malloc(sizeof(int32_t) * n);
    if (!text_ids) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "prefill: out of memory");
    for (size_t i = 0; i < n; i++) text_ids[i] = ids[i] == cfg->image_token_id ? 0 : ids[i];
    ts_status st = ts_model_embed_tokens(m, text_ids, n, inputs, err);
    free(text_ids);
    int64_t next = 0;
    for (size_t i = 0; st == TS_OK && i < n; i++)
        if (ids[i] == cfg->image_token_id) memcpy(inputs + i * (size_t)hidden, image + (next++) * hidden, sizeof(float) * (size_t)hidden);
    /* M-RoPE positions and delta for Qwen; LLaVA's 1-D positions are the arange. */
    *delta = 0;
    if (st == TS_OK && v->kind != TOWER_LLAVA) {
        ts_vision_grid grids[64];
        if (n_images > 64) return ts_error_set(err, TS_ERR_RANGE, "prefill: %d images (1..64 allowed)", n_images);
        for (int i = 0; i < n_images; i++) grids[i] = (ts_vision_grid){images[i].grid_thw[0], images[i].grid_thw[1], images[i].grid_thw[2]};
        st = ts_mrope_index(ids, (int64_t)n, (int32_t)cfg->image_token_id, grids, n_images, qwen_merge(v), v->tokens_per_second, positions,
                            delta, err);
    } else if (st == TS_OK) {
        for (size_t i = 0; i < n; i++) positions[i] = (int32_t)i;
    }
    return st;
}

ts_status ts_vision_assemble(const ts_vision *v, const ts_model *m, const int32_t *ids, size_t n, const ts_pixel_values *images,
                             int n_images, const float *image, int64_t image_rows, float *inputs, int32_t *positions, int64_t *delta,
                             ts_error *err)
{
    /* Qwen3-VL's main rows alone would make a wrong prefill: its callers go through the DeepStack
     * path (ts_vision_prefill), which also carries the side features. */
    if (ts_vision_deepstack_levels(v) > 0)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "%s: this path has no DeepStack features for the language model (a bundle has no "
                            "prefill_embeddings_deepstack.main yet)",
                            ts_family_name(ts_model_get_config(m)->family));
    return ts_vision_assemble_rows(v, m, ids, n, images, n_images, image, image_rows, inputs, positions, delta, err);
}

bool ts_vision_mrope(const ts_vision *v) { return v->kind != TOWER_LLAVA; }

/* Qwen3-VL: the tower's main rows replace the image tokens, and its DeepStack levels go to the
 * language model as the compact payload: the image tokens' positions, [K][rows][hidden]. */
static ts_status prefill_deepstack(ts_vision *v, ts_model *m, ts_sequence *seq, const int32_t *ids, size_t n, const ts_pixel_values *images,
                                   int n_images, float *logits, ts_error *err)
{
    const ts_model_config *cfg = ts_model_get_config(m);
    int64_t hidden = cfg->text.hidden_size, delta = 0, rows = 0;
    float *image = NULL, *deepstack = NULL, *inputs = malloc(sizeof(float) * n * (size_t)hidden);
    int32_t *positions = malloc(sizeof(int32_t) * 3 * n), *visual = malloc(sizeof(int32_t) * n);
    int k = 0, n_layers = 0;
    const int32_t *layers = ts_model_deepstack_layers(m, &n_layers);
    ts_status st = inputs && positions && visual ? TS_OK : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "prefill: out of memory");
    if (st == TS_OK) st = ts_vision_encode_deepstack(v, images, n_images, &image, &deepstack, &k, &rows, err);
    if (st == TS_OK) st = ts_vision_assemble_rows(v, m, ids, n, images, n_images, image, rows, inputs, positions, &delta, err);
    int64_t n_visual = 0;
    for (size_t i = 0; st == TS_OK && i < n; i++)
        if (ids[i] == cfg->image_token_id) visual[n_visual++] = (int32_t)i;
    if (st == TS_OK && (k != n_layers || n_visual != rows))
        st = ts_error_set(err, TS_ERR_INTERNAL, "prefill: the tower gives %d DeepStack levels for %lld rows, the model takes %d at %lld image tokens", k,
                          (long long)rows, n_layers, (long long)n_visual);
    ts_deepstack payload = {visual, n_visual, deepstack, layers, n_layers};
    if (st == TS_OK) st = ts_model_prefill_embeddings_deepstack(m, seq, inputs, n, positions, delta, &payload, logits, err);
    free(image), free(deepstack), free(inputs), free(positions), free(visual);
    return st;
}

ts_status ts_vision_prefill(ts_vision *v, ts_model *m, ts_sequence *seq, const int32_t *ids, size_t n, const ts_pixel_values *images,
                            int n_images, float *logits, ts_error *err)
{
    const ts_model_config *cfg = ts_model_get_config(m);
    /* Checked before the tower runs: Qwen3-VL's rows alone would make a wrong prefill. */
    if (!ts_vision_has_image_prefill(cfg)) return refuse_prefill(cfg, err);
    if (ts_vision_deepstack_levels(v) > 0) return prefill_deepstack(v, m, seq, ids, n, images, n_images, logits, err);
    int64_t hidden = cfg->text.hidden_size;
    float *image = NULL, *inputs = malloc(sizeof(float) * n * (size_t)hidden);
    int32_t *positions = malloc(sizeof(int32_t) * 3 * n);
    int64_t delta = 0, encoded = 0;
    ts_status st = inputs && positions ? TS_OK : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "prefill: out of memory");
    if (st == TS_OK) st = ts_vision_encode(v, images, n_images, &image, &encoded, err);
    if (st == TS_OK) st = ts_vision_assemble_rows(v, m, ids, n, images, n_images, image, encoded, inputs, positions, &delta, err);
    if (st == TS_OK) st = ts_model_prefill_embeddings(m, seq, inputs, n, ts_vision_mrope(v) ? positions : NULL, delta, logits, err);
    free(image), free(inputs), free(positions);
    return st;
}
