/* qwen3_vl.c — the Qwen3-VL family (Qwen3VLForConditionalGeneration) and its MoE twin: Qwen3
 * language-model layers (q/k norms) with interleaved M-RoPE under text_config, the MoE variant
 * with a sparse expert MLP in every layer; a patch-row tower with a learned position table whose
 * DeepStack mergers give side rows that the language model adds after its first K layers; the
 * Qwen2-VL image processor and prompt rule.
 */
#include "base/error.h"
#include "loader/config_keys.h"
#include "models/qwen2/qwen2.h"
#include "models/qwen2_vl/qwen_vl.h"
#include "models/qwen2_vl/qwen_vl_processor.h"
#include "models/qwen3/qwen3_moe.h"
#include "models/qwen3_vl/qwen3_vl_vision.h"

#include <stdlib.h>

/* Qwen3VLTextConfig */
static const ts_text_defaults qwen3_vl_text = {"qwen3_vl_text",
                                               TS_CONFIG_REQUIRED,
                                               TS_CONFIG_REQUIRED,
                                               TS_CONFIG_REQUIRED,
                                               TS_CONFIG_REQUIRED,
                                               TS_CONFIG_REQUIRED,
                                               TS_CONFIG_REQUIRED,
                                               128,
                                               128000,
                                               1e-6,
                                               5000000.0,
                                               "silu",
                                               false,
                                               false,
                                               false};
/* Qwen3VLMoeTextConfig */
static const ts_text_defaults qwen3_vl_moe_text = {"qwen3_vl_moe_text",
                                                   TS_CONFIG_REQUIRED,
                                                   TS_CONFIG_REQUIRED,
                                                   TS_CONFIG_REQUIRED,
                                                   TS_CONFIG_REQUIRED,
                                                   TS_CONFIG_REQUIRED,
                                                   TS_CONFIG_REQUIRED,
                                                   128,
                                                   128000,
                                                   1e-6,
                                                   5000000.0,
                                                   "silu",
                                                   false,
                                                   false,
                                                   false};

static ts_status read_text(const ts_json_reader *r, const cJSON *text, ts_text_config *t)
{
    TS_TRY(ts_config_require_mrope(r, t));
    return ts_qwen2_reject_sliding(r, text);
}

/* Qwen3VLMoeTextConfig defaults */
static const ts_qwen3_moe_defaults moe_keys = {60, 4, 1408, true};

static ts_status read_text_moe(const ts_json_reader *r, const cJSON *text, ts_text_config *t)
{
    TS_TRY(read_text(r, text, t));
    return ts_qwen3_read_moe(r, text, &moe_keys, t);
}

static ts_status read_qwen3_vl_vision(const ts_json_reader *r, const cJSON *v, const char *type,
                                      ts_vision_config *o)
{
    TS_TRY(ts_json_string(r, v, "model_type", type, o->model_type, sizeof(o->model_type)));
    TS_TRY(ts_config_dim(r, v, "depth", TS_CONFIG_REQUIRED, &o->depth));
    TS_TRY(ts_config_dim(r, v, "hidden_size", TS_CONFIG_REQUIRED, &o->hidden_size));
    TS_TRY(ts_config_dim(r, v, "intermediate_size", TS_CONFIG_REQUIRED, &o->intermediate_size));
    TS_TRY(ts_config_dim(r, v, "num_heads", TS_CONFIG_REQUIRED, &o->num_heads));
    TS_TRY(ts_config_dim(r, v, "out_hidden_size", TS_CONFIG_REQUIRED, &o->out_hidden_size));
    TS_TRY(ts_config_dim(r, v, "num_position_embeddings", TS_CONFIG_REQUIRED,
                         &o->num_position_embeddings));
    TS_TRY(ts_json_int_list(r, v, "deepstack_visual_indexes", false, o->deepstack_visual_indexes,
                            16, &o->n_deepstack_visual_indexes));
    TS_TRY(ts_json_string(r, v, "hidden_act", "gelu_pytorch_tanh", o->hidden_act,
                          sizeof(o->hidden_act)));
    o->layer_norm_eps = 1e-6;
    return TS_OK;
}

static ts_status read_vision(const ts_json_reader *r, const cJSON *v, ts_model_config *c)
{
    TS_TRY(read_qwen3_vl_vision(r, v, "qwen3_vl", &c->vision));
    return ts_qwen_vl_read_patching(r, v, 16, &c->vision);
}

static ts_status read_vision_moe(const ts_json_reader *r, const cJSON *v, ts_model_config *c)
{
    TS_TRY(read_qwen3_vl_vision(r, v, "qwen3_vl_moe", &c->vision));
    return ts_qwen_vl_read_patching(r, v, 16, &c->vision);
}

/* Text-only prompts are exact without DeepStack: it only touches image positions. */
static ts_status decoder(const ts_model_config *cfg, ts_decoder_spec *spec, ts_error *err)
{
    (void)err;
    spec->qk_norm = true;
    spec->prefix = "model.language_model.";
    /* DeepStack: the tower's k-th side output is added after LM layer k. */
    if (cfg->has_vision) spec->n_deepstack = cfg->vision.n_deepstack_visual_indexes;
    return TS_OK;
}

/* The MoE layers' router renormalises the top-k probabilities whatever norm_topk_prob says
 * (Qwen3VLMoeTextTopKRouter never reads it). */
static ts_status decoder_moe(const ts_model_config *cfg, ts_decoder_spec *spec, ts_error *err)
{
    TS_TRY(decoder(cfg, spec, err));
    return ts_qwen3_moe_decoder(cfg, true, spec, err);
}

static ts_status positions(const ts_model_config *cfg, const int32_t *ids, size_t n,
                           const ts_pixel_values *images, int n_images, int32_t *out,
                           int64_t *delta, ts_error *err)
{
    return ts_qwen_vl_positions(cfg, ids, n, images, n_images, 0, out, delta, err);
}

/* ---------------------------------------------------------------- tower */

static ts_status tower_init(const ts_model_config *cfg, void *spec, ts_error *err)
{
    return ts_qwen3_vl_vision_spec_init(cfg, spec, err);
}

static ts_status tower_build(ts_graph *g, const void *spec, const ts_weight_source *weights,
                             int64_t n_patches, ts_error *err)
{
    return ts_qwen3_vl_vision_build(g, spec, weights, n_patches, false, err);
}

static int64_t tower_smallest(const void *spec)
{
    const ts_qwen3_vl_vision_spec *s = spec;
    return s->merge * s->merge;
}

static int tower_levels(const void *spec)
{
    return 1 + ((const ts_qwen3_vl_vision_spec *)spec)->n_deepstack;
}
static int64_t tower_width(const void *spec)
{
    return ((const ts_qwen3_vl_vision_spec *)spec)->out_hidden;
}
static int64_t tower_image_tokens(const void *spec, const ts_pixel_values *pv)
{
    return (void)spec, ts_qwen_vl_image_tokens(pv);
}
static int64_t tower_image_rows(const void *spec, const ts_pixel_values *pv)
{
    return ts_qwen_vl_image_rows(((const ts_qwen3_vl_vision_spec *)spec)->merge, pv);
}

static void taps(const void *spec, const ts_vision_grid *grids, int n_grids, int64_t rows,
                 int32_t *index, float *weight)
{
    ts_qwen3_vl_vision_pos_taps(spec, grids, n_grids, rows, index, weight);
}

static ts_status tower_encode(const void *spec, ts_tower_runner *runner,
                              const ts_pixel_values *images, int n_images, float **out,
                              int64_t *rows, ts_error *err)
{
    const ts_qwen3_vl_vision_spec *s = spec;
    ts_qwen_vl_tower tower = {s->patch_dim, s->merge, s->out_hidden, 1 + s->n_deepstack, 0,
                              taps,         s};
    return ts_qwen_vl_encode(&tower, runner, images, n_images, out, rows, err);
}

static ts_status entry_geometry(const ts_model_config *cfg, ts_vision_entry_geometry *out,
                                ts_error *err)
{
    ts_qwen3_vl_vision_spec s;
    TS_TRY(ts_qwen3_vl_vision_spec_init(cfg, &s, err));
    *out = (ts_vision_entry_geometry){
        "patch_rows_deepstack", s.patch, s.temporal,    s.merge,       s.width, s.depth,
        s.out_hidden,           0,       s.n_deepstack, s.n_positions, 0};
    return TS_OK;
}

static ts_status entry_build(ts_graph *g, const ts_model_config *cfg,
                             const ts_weight_source *weights, int64_t n_patches, ts_error *err)
{
    ts_qwen3_vl_vision_spec s;
    TS_TRY(ts_qwen3_vl_vision_spec_init(cfg, &s, err));
    if (s.n_deepstack < 1)
        return ts_error_set(
            err, TS_ERR_UNSUPPORTED,
            "vision.main: this Qwen3-VL tower declares no deepstack_visual_indexes");
    return ts_qwen3_vl_vision_build(g, &s, weights, n_patches, false, err);
}

static const ts_tower_ops tower = {sizeof(ts_qwen3_vl_vision_spec),
                                   tower_init,
                                   tower_build,
                                   tower_smallest,
                                   tower_levels,
                                   tower_width,
                                   tower_image_tokens,
                                   tower_image_rows,
                                   tower_encode,
                                   entry_geometry,
                                   entry_build};

static const char *const processors[] = {"Qwen2VLImageProcessor", NULL};

const ts_family_desc ts_qwen3_vl_family = {
    .name = "qwen3_vl",
    .layouts =
        (const ts_config_layout[]){{"qwen3_vl", &qwen3_vl_text,
                                    TS_LAYOUT_NESTED | TS_LAYOUT_TEXT_REQUIRED | TS_LAYOUT_VISION},
                                   {NULL, NULL, 0}},
    .read_text = read_text,
    .read_vision = read_vision,
    .read_media_ids = ts_qwen_vl_read_media_ids,
    .decoder = decoder,
    .image_processors = processors,
    .preprocess = ts_qwen_vl_preprocess,
    .tower = &tower,
    .image_prompt = TS_IMAGE_PROMPT_REPEAT,
    .position_rows = 3,
    .positions = positions,
};

const ts_family_desc ts_qwen3_vl_moe_family = {
    .name = "qwen3_vl_moe",
    .layouts =
        (const ts_config_layout[]){{"qwen3_vl_moe", &qwen3_vl_moe_text,
                                    TS_LAYOUT_NESTED | TS_LAYOUT_TEXT_REQUIRED | TS_LAYOUT_VISION},
                                   {NULL, NULL, 0}},
    .read_text = read_text_moe,
    .read_vision = read_vision_moe,
    .read_media_ids = ts_qwen_vl_read_media_ids,
    .decoder = decoder_moe,
    .image_processors = processors,
    .preprocess = ts_qwen_vl_preprocess,
    .tower = &tower,
    .image_prompt = TS_IMAGE_PROMPT_REPEAT,
    .position_rows = 3,
    .positions = positions,
};
