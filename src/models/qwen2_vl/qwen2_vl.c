/* qwen2_vl.c — the Qwen2-VL family (Qwen2VLForConditionalGeneration) and its Qwen2.5-VL
 * derivative: Qwen2 language-model layers with M-RoPE, a patch-row tower (Qwen2.5-VL: window
 * attention, RMSNorm, gated MLP), the Qwen2-VL image processor, <|image_pad|> repeated per image
 * token, and 3-axis positions from the image grids (Qwen2.5-VL scales the temporal axis by
 * tokens_per_second). The language model's keys are flat as published.
 */
#include "base/error.h"
#include "loader/config_keys.h"
#include "models/qwen2/qwen2.h"
#include "models/qwen2_vl/qwen2_vl_vision.h"
#include "models/qwen2_vl/qwen_vl.h"
#include "models/qwen2_vl/qwen_vl_processor.h"

#include <stdlib.h>

/* Qwen2VLTextConfig */
static const ts_text_defaults qwen2_vl_text = {"qwen2_vl",
                                               TS_CONFIG_REQUIRED,
                                               TS_CONFIG_REQUIRED,
                                               TS_CONFIG_REQUIRED,
                                               TS_CONFIG_REQUIRED,
                                               TS_CONFIG_REQUIRED,
                                               TS_CONFIG_REQUIRED,
                                               0,
                                               32768,
                                               1e-5,
                                               1000000.0,
                                               "silu",
                                               false,
                                               true,
                                               true};
/* Qwen2_5_VLTextConfig */
static const ts_text_defaults qwen2_5_vl_text = {"qwen2_5_vl",
                                                 TS_CONFIG_REQUIRED,
                                                 TS_CONFIG_REQUIRED,
                                                 TS_CONFIG_REQUIRED,
                                                 TS_CONFIG_REQUIRED,
                                                 TS_CONFIG_REQUIRED,
                                                 TS_CONFIG_REQUIRED,
                                                 0,
                                                 32768,
                                                 1e-6,
                                                 1000000.0,
                                                 "silu",
                                                 false,
                                                 true,
                                                 true};

static ts_status read_text(const ts_json_reader *r, const cJSON *text, ts_text_config *t)
{
    TS_TRY(ts_config_require_mrope(r, t));
    return ts_qwen2_reject_sliding(r, text);
}

static ts_status read_qwen2_vl_vision(const ts_json_reader *r, const cJSON *v, ts_vision_config *o)
{
    /* Qwen2VLVisionConfig: the tower width is embed_dim; hidden_size is the LM width the merger
     * projects to. */
    int64_t mlp_ratio;
    TS_TRY(ts_json_string(r, v, "model_type", "qwen2_vl", o->model_type, sizeof(o->model_type)));
    TS_TRY(ts_config_dim(r, v, "depth", TS_CONFIG_REQUIRED, &o->depth));
    TS_TRY(ts_config_dim(r, v, "embed_dim", TS_CONFIG_REQUIRED, &o->hidden_size));
    TS_TRY(ts_config_dim(r, v, "mlp_ratio", 4, &mlp_ratio));
    o->intermediate_size = o->hidden_size * mlp_ratio;
    TS_TRY(ts_config_dim(r, v, "num_heads", TS_CONFIG_REQUIRED, &o->num_heads));
    TS_TRY(ts_config_dim(r, v, "hidden_size", TS_CONFIG_REQUIRED, &o->out_hidden_size));
    TS_TRY(ts_json_string(r, v, "hidden_act", "quick_gelu", o->hidden_act, sizeof(o->hidden_act)));
    o->layer_norm_eps = 1e-6; /* hard-coded in Qwen2VisionTransformer */
    return TS_OK;
}

static ts_status read_qwen2_5_vl_vision(const ts_json_reader *r, const cJSON *v,
                                        ts_vision_config *o)
{
    TS_TRY(ts_json_string(r, v, "model_type", "qwen2_5_vl", o->model_type, sizeof(o->model_type)));
    TS_TRY(ts_config_dim(r, v, "depth", TS_CONFIG_REQUIRED, &o->depth));
    TS_TRY(ts_config_dim(r, v, "hidden_size", TS_CONFIG_REQUIRED, &o->hidden_size));
    TS_TRY(ts_config_dim(r, v, "intermediate_size", TS_CONFIG_REQUIRED, &o->intermediate_size));
    TS_TRY(ts_config_dim(r, v, "num_heads", TS_CONFIG_REQUIRED, &o->num_heads));
    TS_TRY(ts_config_dim(r, v, "out_hidden_size", TS_CONFIG_REQUIRED, &o->out_hidden_size));
    TS_TRY(ts_config_dim(r, v, "window_size", 112, &o->window_size));
    /* Qwen2_5_VLVisionConfig default; scales the temporal M-RoPE ids (reference-semantics §5.3). */
    TS_TRY(ts_config_dim(r, v, "tokens_per_second", 4, &o->tokens_per_second));
    TS_TRY(ts_json_int_list(r, v, "fullatt_block_indexes", false, o->fullatt_block_indexes, 16,
                            &o->n_fullatt_block_indexes));
    TS_TRY(ts_json_string(r, v, "hidden_act", "silu", o->hidden_act, sizeof(o->hidden_act)));
    o->layer_norm_eps = 1e-6;
    return TS_OK;
}

static ts_status read_vision_2(const ts_json_reader *r, const cJSON *v, ts_model_config *c)
{
    TS_TRY(read_qwen2_vl_vision(r, v, &c->vision));
    return ts_qwen_vl_read_patching(r, v, 14, &c->vision);
}

static ts_status read_vision_2_5(const ts_json_reader *r, const cJSON *v, ts_model_config *c)
{
    TS_TRY(read_qwen2_5_vl_vision(r, v, &c->vision));
    return ts_qwen_vl_read_patching(r, v, 14, &c->vision);
}

static ts_status decoder(const ts_model_config *cfg, ts_decoder_spec *spec, ts_error *err)
{
    (void)cfg, (void)err;
    spec->qkv_bias = true;
    return TS_OK;
}

static ts_status positions_2(const ts_model_config *cfg, const int32_t *ids, size_t n,
                             const ts_pixel_values *images, int n_images, int32_t *positions,
                             int64_t *delta, ts_error *err)
{
    return ts_qwen_vl_positions(cfg, ids, n, images, n_images, 0, positions, delta, err);
}

static ts_status positions_2_5(const ts_model_config *cfg, const int32_t *ids, size_t n,
                               const ts_pixel_values *images, int n_images, int32_t *positions,
                               int64_t *delta, ts_error *err)
{
    return ts_qwen_vl_positions(cfg, ids, n, images, n_images, cfg->vision.tokens_per_second,
                                positions, delta, err);
}

/* ---------------------------------------------------------------- tower */

static ts_status tower_init(const ts_model_config *cfg, void *spec, ts_error *err)
{
    return ts_qwen2_vl_vision_spec_init(cfg, spec, err);
}

static ts_status tower_build(ts_graph *g, const void *spec, const ts_weight_source *weights,
                             int64_t n_patches, ts_error *err)
{
    return ts_qwen2_vl_vision_build(g, spec, weights, n_patches, false, err);
}

static int64_t tower_smallest(const void *spec)
{
    const ts_qwen2_vl_vision_spec *s = spec;
    return s->merge * s->merge;
}

static int tower_levels(const void *spec)
{
    return (void)spec, 1;
}
static int64_t tower_width(const void *spec)
{
    return ((const ts_qwen2_vl_vision_spec *)spec)->out_hidden;
}
static int64_t tower_image_tokens(const void *spec, const ts_pixel_values *pv)
{
    return (void)spec, ts_qwen_vl_image_tokens(pv);
}
static int64_t tower_image_rows(const void *spec, const ts_pixel_values *pv)
{
    return ts_qwen_vl_image_rows(((const ts_qwen2_vl_vision_spec *)spec)->merge, pv);
}

static ts_status tower_encode(const void *spec, ts_tower_runner *runner,
                              const ts_pixel_values *images, int n_images, float **out,
                              int64_t *rows, ts_error *err)
{
    const ts_qwen2_vl_vision_spec *s = spec;
    ts_qwen_vl_tower tower = {s->patch_dim, s->merge, s->out_hidden, 1, s->windowed ? s->window : 0,
                              NULL,         s};
    return ts_qwen_vl_encode(&tower, runner, images, n_images, out, rows, err);
}

static ts_status entry_geometry(const ts_model_config *cfg, ts_vision_entry_geometry *out,
                                ts_error *err)
{
    ts_qwen2_vl_vision_spec s;
    TS_TRY(ts_qwen2_vl_vision_spec_init(cfg, &s, err));
    /* Qwen2.5-VL: the window layout (window order, its reverse, both masks) is an input. */
    *out = (ts_vision_entry_geometry){s.windowed ? "patch_rows_windowed" : "patch_rows",
                                      s.patch,
                                      s.temporal,
                                      s.merge,
                                      s.width,
                                      s.depth,
                                      s.out_hidden,
                                      0,
                                      0,
                                      0,
                                      s.windowed ? s.window : 0};
    return TS_OK;
}

static ts_status entry_build(ts_graph *g, const ts_model_config *cfg,
                             const ts_weight_source *weights, int64_t n_patches, ts_error *err)
{
    ts_qwen2_vl_vision_spec s;
    TS_TRY(ts_qwen2_vl_vision_spec_init(cfg, &s, err));
    return ts_qwen2_vl_vision_build(g, &s, weights, n_patches, false, err);
}

static const ts_tower_ops tower = {sizeof(ts_qwen2_vl_vision_spec),
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

/* Benchmark shapes (tessera bench --synthetic ID): the published config.json of each. */
static const ts_synthetic_preset presets[] = {
    /* Qwen/Qwen2-VL-2B-Instruct: the tower shape the vision benchmark measures. */
    {"qwen2-vl-2b",
     "{\"model_type\":\"qwen2_vl\",\"architectures\":[\"Qwen2VLForConditionalGeneration\"],"
     "\"hidden_size\":1536,\"intermediate_size\":8960,\"num_hidden_layers\":28,"
     "\"num_attention_heads\":12,\"num_key_value_heads\":2,\"vocab_size\":151936,"
     "\"max_position_embeddings\":32768,\"rms_norm_eps\":1e-06,\"rope_theta\":1000000.0,"
     "\"rope_scaling\":{\"type\":\"mrope\",\"mrope_section\":[16,24,24]},"
     "\"tie_word_embeddings\":true,\"hidden_act\":\"silu\",\"bos_token_id\":151643,"
     "\"eos_token_id\":151645,\"image_token_id\":151655,\"video_token_id\":151656,"
     "\"vision_start_token_id\":151652,\"vision_end_token_id\":151653,"
     "\"vision_config\":{\"depth\":32,\"embed_dim\":1280,\"mlp_ratio\":4,\"num_heads\":16,"
     "\"in_chans\":3,\"hidden_size\":1536,\"patch_size\":14,\"spatial_merge_size\":2,"
     "\"temporal_patch_size\":2}}"},
    {NULL, NULL},
};

const ts_family_desc ts_qwen2_vl_family = {
    .name = "qwen2_vl",
    .layouts =
        (const ts_config_layout[]){
            {"qwen2_vl", &qwen2_vl_text, TS_LAYOUT_MAY_NEST | TS_LAYOUT_VISION}, {NULL, NULL, 0}},
    .read_text = read_text,
    .read_vision = read_vision_2,
    .read_media_ids = ts_qwen_vl_read_media_ids,
    .decoder = decoder,
    .image_processors = processors,
    .preprocess = ts_qwen_vl_preprocess,
    .tower = &tower,
    .image_prompt = TS_IMAGE_PROMPT_REPEAT,
    .position_rows = 3,
    .positions = positions_2,
    .presets = presets,
};

const ts_family_desc ts_qwen2_5_vl_family = {
    .name = "qwen2_5_vl",
    .layouts = (const ts_config_layout[]){{"qwen2_5_vl", &qwen2_5_vl_text,
                                           TS_LAYOUT_MAY_NEST | TS_LAYOUT_VISION},
                                          {NULL, NULL, 0}},
    .read_text = read_text,
    .read_vision = read_vision_2_5,
    .read_media_ids = ts_qwen_vl_read_media_ids,
    .decoder = decoder,
    .image_processors = processors,
    .preprocess = ts_qwen_vl_preprocess,
    .tower = &tower, /* vision.main: patch_rows_windowed (entry_geometry) */
    .image_prompt = TS_IMAGE_PROMPT_REPEAT,
    .position_rows = 3,
    .positions = positions_2_5,
};
