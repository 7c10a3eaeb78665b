/* llava.c — the LLaVA family (LlavaForConditionalGeneration): a Llama language model stored
 * whole under language_model. (its own lm_head included) with 1-D positions, a CLIP or SigLIP
 * tower whose chosen hidden state goes through a two-layer projector, the CLIP/SigLIP image
 * processor, and <image> repeated once per image token.
 */
#include "base/error.h"
#include "loader/config_keys.h"
#include "media/clip_processor.h"
#include "models/family.h"
#include "models/clip_vision.h"

#include <stdlib.h>
#include <string.h>

/* LlamaConfig as LLaVA's text_config: published files list a few keys, the rest default. */
static const ts_text_defaults llava_llama_text = {
    "llama", 32000,   4096,   11008, 32,    32,   TS_CONFIG_REQUIRED, 0, 2048,
    1e-6,    10000.0, "silu", false, false, false};

static ts_status read_text(const ts_json_reader *r, const cJSON *text, ts_text_config *t)
{
    (void)text;
    if (strcmp(t->model_type, "llama") != 0)
        return ts_error_set(
            r->err, TS_ERR_UNSUPPORTED,
            "%s: text_config.model_type \"%s\" is not supported for llava (supported: llama)",
            r->origin, t->model_type);
    return TS_OK;
}

static ts_status read_vision(const ts_json_reader *r, const cJSON *v, ts_model_config *c)
{
    return ts_config_vit_vision(r, v, "llava", true, c->text.hidden_size, &c->vision);
}

static ts_status read_media_ids(const ts_json_reader *r, const cJSON *root, ts_model_config *c)
{
    TS_TRY(ts_json_int(r, root, "image_token_index", 32000, &c->image_token_id));
    TS_TRY(ts_json_int(r, root, "image_token_id", c->image_token_id, &c->image_token_id));
    if (cJSON_IsArray(ts_json_member(root, "vision_feature_layer")))
        return ts_error_set(r->err, TS_ERR_UNSUPPORTED,
                            "%s: vision_feature_layer: a list of layers is not supported",
                            r->origin);
    TS_TRY(ts_json_int(r, root, "vision_feature_layer", -2, &c->vision_feature_layer));
    TS_TRY(ts_json_string(r, root, "vision_feature_select_strategy", "default",
                          c->vision_feature_select_strategy,
                          sizeof(c->vision_feature_select_strategy)));
    if (strcmp(c->vision_feature_select_strategy, "default") != 0 &&
        strcmp(c->vision_feature_select_strategy, "full") != 0)
        return ts_error_set(
            r->err, TS_ERR_UNSUPPORTED,
            "%s: vision_feature_select_strategy \"%s\" is not supported (supported: default, full)",
            r->origin, c->vision_feature_select_strategy);
    /* A layer index counts from the embeddings (0) to the last block (depth). */
    if (c->vision_feature_layer < -(c->vision.depth + 1) ||
        c->vision_feature_layer > c->vision.depth)
        return ts_error_set(
            r->err, TS_ERR_RANGE, "%s: vision_feature_layer %lld is outside the %lld-block tower",
            r->origin, (long long)c->vision_feature_layer, (long long)c->vision.depth);
    TS_TRY(ts_json_string(r, root, "projector_hidden_act", "gelu", c->projector_hidden_act,
                          sizeof(c->projector_hidden_act)));
    return TS_OK;
}

static ts_status decoder(const ts_model_config *cfg, ts_decoder_spec *spec, ts_error *err)
{
    (void)err;
    spec->qkv_bias = cfg->text.attention_bias;
    spec->prefix = "language_model.model.";
    if (spec->lm_head) spec->lm_head = "language_model.lm_head.weight";
    return TS_OK;
}

/* ---------------------------------------------------------------- tower */

static ts_status tower_init(const ts_model_config *cfg, void *spec, ts_error *err)
{
    return ts_clip_vision_spec_init(cfg, spec, err);
}

static const ts_tower_ops tower = {sizeof(ts_clip_vision_spec), tower_init,
                                   ts_clip_tower_build,         ts_clip_tower_smallest,
                                   ts_clip_tower_levels,        ts_clip_tower_width,
                                   ts_clip_tower_image_tokens,  ts_clip_tower_image_rows,
                                   ts_clip_tower_encode,        ts_clip_entry_geometry,
                                   ts_clip_entry_build};

static const char *const processors[] = {"CLIPImageProcessor", "SiglipImageProcessor", NULL};

const ts_family_desc ts_llava_family = {
    .name = "llava",
    .layouts =
        (const ts_config_layout[]){
            {"llava", &llava_llama_text, TS_LAYOUT_NESTED | TS_LAYOUT_VISION}, {NULL, NULL, 0}},
    .read_text = read_text,
    .read_vision = read_vision,
    .read_media_ids = read_media_ids,
    .decoder = decoder,
    .image_processors = processors,
    .preprocess = ts_clip_preprocess,
    .tower = &tower,
    .image_prompt = TS_IMAGE_PROMPT_REPEAT,
    .position_rows = 1,
};
