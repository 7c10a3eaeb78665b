/* phi4_mm_vision.c — the image hooks of Phi-4-multimodal's descriptor (see phi4_mm_vision.h).
 *
 * Pixel values: ts_phi4_hd_to_pixels' layout (the views, the crop grid and the resized size; the
 * patch masks follow from them and are rebuilt where needed, ts_phi4_hd_view). Tower: one graph
 * per view count (n_patches = views · (S/P)², the runner's key), one run per image: the SigLIP
 * tower over every view, pooling, HD layout and projector (phi4_vision_graph.c). An image's rows
 * depend on that image alone (the engine's encoder cache relies on it). */
#include "models/phi4_mm/phi4_mm_vision.h"

#include "base/error.h"
#include "models/phi4_mm/phi4_image_processor.h"
#include "models/phi4_mm/phi4_vision.h"
#include "models/weights.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ts_status ts_phi4_mm_read_vision(const ts_json_reader *r, const cJSON *v, ts_model_config *c)
{
    ts_phi4_vision_spec s;
    int64_t feature;
    TS_TRY(ts_phi4_vision_spec_read(r, v, c->text.hidden_size, &s));
    TS_TRY(ts_json_int(r, v, "feature_layer", -2, &feature));
    TS_TRY(ts_json_string(r, v, "model_type", "phi4_multimodal_vision", c->vision.model_type,
                          sizeof(c->vision.model_type)));
    if (s.image_token_id < 0 || s.image_token_id >= c->text.vocab_size)
        return ts_error_set(r->err, TS_ERR_FORMAT, "%s: %simage_token_id %lld is outside the vocabulary (%lld)",
                            r->origin, r->prefix, (long long)s.image_token_id, (long long)c->text.vocab_size);
    c->vision.hidden_size = s.width, c->vision.intermediate_size = s.inter, c->vision.num_heads = s.heads;
    c->vision.depth = s.layers - feature - 1;
    c->vision.patch_size = s.patch, c->vision.image_size = s.image_size, c->vision.in_channels = 3;
    c->vision.out_hidden_size = s.text_width, c->vision.layer_norm_eps = s.eps;
    snprintf(c->vision.hidden_act, sizeof(c->vision.hidden_act), "gelu_pytorch_tanh");
    c->vision_feature_layer = feature;
    c->image_token_id = s.image_token_id;
    return TS_OK;
}

const char *const ts_phi4_mm_image_processors[] = {"Phi4MultimodalImageProcessor", NULL};

ts_status ts_phi4_mm_preprocess(const ts_preprocessor_config *cfg, const uint8_t *rgb, int width, int height,
                                const ts_image_budget *budget, ts_pixel_values *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    if (budget && (budget->min_pixels || budget->max_pixels))
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "Phi-4-multimodal image processor: a pixel budget does not apply (the HD crops "
                            "follow dynamic_hd)");
    ts_phi4_hd_settings s;
    TS_TRY(ts_phi4_hd_settings_from(cfg, &s, err));
    ts_phi4_hd_image im;
    TS_TRY(ts_phi4_hd_preprocess(rgb, width, height, s.crop, s.patch, s.max_crops, &im, err));
    ts_phi4_hd_to_pixels(&im, out);
    return TS_OK;
}

/* ---------------------------------------------------------------- tower */

static ts_status tower_init(const ts_model_config *cfg, void *spec, ts_error *err)
{
    const ts_vision_config *v = &cfg->vision;
    ts_phi4_vision_spec *s = spec;
    *s = (ts_phi4_vision_spec){.width = v->hidden_size,
                               .inter = v->intermediate_size,
                               .heads = v->num_heads,
                               .layers = v->depth + cfg->vision_feature_layer + 1,
                               .patch = v->patch_size,
                               .image_size = v->image_size,
                               .text_width = v->out_hidden_size,
                               .image_token_id = cfg->image_token_id,
                               .eps = v->layer_norm_eps};
    if (s->layers < 0 || s->patch <= 0 || s->image_size % s->patch || (s->image_size / s->patch) % 2)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "Phi-4-multimodal image tower: %lld layers to run, %lld-px views of %lld-px patches "
                            "(an even patch grid is needed for the 2×2 pooling)",
                            (long long)s->layers, (long long)s->image_size, (long long)s->patch);
    return TS_OK;
}

static int64_t view_patches(const ts_phi4_vision_spec *s)
{
    int64_t side = s->image_size / s->patch;
    return side * side;
}

/* A graph per view count: n_patches = views · (S/P)² (the engine's runner key, vision.main's
 * bucket). */
static ts_status tower_build(ts_graph *g, const void *spec, const ts_weight_source *weights, int64_t n_patches,
                             ts_error *err)
{
    const ts_phi4_vision_spec *s = spec;
    int64_t n = view_patches(s);
    if (n_patches < n || n_patches % n || n_patches / n > TS_PHI4_MAX_VIEWS)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "vision.main: a bucket of %lld patches is not 1..%d whole views of %lld patches "
                            "(%lld-px views)",
                            (long long)n_patches, TS_PHI4_MAX_VIEWS, (long long)n, (long long)s->image_size);
    return ts_phi4_vision_build(g, s, weights, n_patches / n, err);
}

static int64_t tower_smallest(const void *spec)
{
    return view_patches(spec);
}

static int tower_levels(const void *spec)
{
    (void)spec;
    return 1;
}

static int64_t tower_width(const void *spec)
{
    return ((const ts_phi4_vision_spec *)spec)->text_width;
}

static int64_t tower_tokens(const void *spec, const ts_pixel_values *pv)
{
    ts_phi4_hd_image im;
    if (ts_phi4_hd_view(pv, (int)((const ts_phi4_vision_spec *)spec)->patch, &im, NULL) != TS_OK) return 0;
    int64_t t = im.crop == ((const ts_phi4_vision_spec *)spec)->image_size ? im.tokens : 0;
    free(im.mask);
    return t;
}

/* Per image: one run of the graph for its view count (tower, pooling, HD layout, projector);
 * the images' rows one after another. */
static ts_status tower_encode(const void *spec, ts_tower_runner *runner, const ts_pixel_values *images, int n_images,
                              float **out, int64_t *n_rows, ts_error *err)
{
    const ts_phi4_vision_spec *s = spec;
    *out = NULL, *n_rows = 0;
    int64_t n = view_patches(s), D = s->text_width, total = 0;
    for (int i = 0; i < n_images; i++)
        total += tower_tokens(spec, &images[i]);
    float *rows = malloc(sizeof(float) * (size_t)(total > 0 ? total * D : 1));
    ts_status st = rows ? TS_OK : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "Phi-4-multimodal image tower: out of memory");
    int64_t at = 0;
    for (int i = 0; st == TS_OK && i < n_images; i++) {
        ts_phi4_hd_image im;
        st = ts_phi4_hd_view(&images[i], (int)s->patch, &im, err);
        if (st != TS_OK) break;
        int64_t views = im.views, max = ts_phi4_image_rows_max(s, views);
        int32_t *positions = malloc(sizeof(int32_t) * (size_t)(views * n)), *layout = malloc(sizeof(int32_t) * (size_t)max);
        float *key_bias = malloc(sizeof(float) * (size_t)(views * n));
        st = positions && layout && key_bias
                 ? ts_phi4_image_inputs(s, &im, views, positions, key_bias, layout, err)
                 : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "Phi-4-multimodal image tower: out of memory");
        if (st == TS_OK && at + im.tokens > total)
            st = ts_error_set(err, TS_ERR_INTERNAL, "Phi-4-multimodal image tower: more rows than counted");
        const void *result[1] = {0};
        void *inputs[4] = {im.pixels, positions, key_bias, layout};
        if (st == TS_OK) st = ts_tower_run(runner, views * n, inputs, 4, result, err);
        if (st == TS_OK) memcpy(rows + at * D, result[0], sizeof(float) * (size_t)(im.tokens * D)), at += im.tokens;
        free(positions), free(layout), free(key_bias), free(im.mask);
    }
    if (st != TS_OK) {
        free(rows);
        return st;
    }
    *out = rows, *n_rows = at;
    return TS_OK;
}

/* vision.main (layout "hd_views", phi4_vision_entry.c): the same image graph, one module per
 * bucket of V views (n_patches = V·(S/P)²). */
static ts_status entry_geometry(const ts_model_config *cfg, ts_vision_entry_geometry *out, ts_error *err)
{
    ts_phi4_vision_spec s;
    TS_TRY(tower_init(cfg, &s, err));
    *out = (ts_vision_entry_geometry){.layout = "hd_views",
                                      .patch = s.patch,
                                      .temporal = 1,
                                      .merge = 2,
                                      .width = s.width,
                                      .depth = cfg->vision.depth,
                                      .out_hidden = s.text_width,
                                      .image_patches = view_patches(&s)};
    return TS_OK;
}

static ts_status entry_build(ts_graph *g, const ts_model_config *cfg, const ts_weight_source *weights,
                             int64_t n_patches, ts_error *err)
{
    ts_phi4_vision_spec s;
    TS_TRY(tower_init(cfg, &s, err));
    return tower_build(g, &s, weights, n_patches, err);
}

const ts_tower_ops ts_phi4_mm_tower = {
    .spec_size = sizeof(ts_phi4_vision_spec),
    .init = tower_init,
    .build = tower_build,
    .smallest = tower_smallest,
    .levels = tower_levels,
    .width = tower_width,
    .image_tokens = tower_tokens,
    .image_rows = tower_tokens,
    .encode = tower_encode,
    .entry_geometry = entry_geometry,
    .entry_build = entry_build,
};
