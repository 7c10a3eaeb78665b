/* config_keys.c — config.json readers shared by families (see config_keys.h). */
#include "loader/config_keys.h"
#include "base/error.h"
#include "models/family.h"

#include <string.h>

ts_status ts_config_dim(const ts_json_reader *r, const cJSON *obj, const char *key, int64_t def,
                        int64_t *out)
{
    if (def == TS_CONFIG_REQUIRED)
        TS_TRY(ts_json_int_required(r, obj, key, out));
    else
        TS_TRY(ts_json_int(r, obj, key, def, out));
    if (*out <= 0)
        return ts_error_set(r->err, TS_ERR_RANGE, "%s: %s%s: %lld, expected a positive integer",
                            r->origin, r->prefix, key, (long long)*out);
    return TS_OK;
}

ts_status ts_config_vit_vision(const ts_json_reader *r, const cJSON *v, const char *family,
                               bool allow_clip, int64_t lm_hidden, ts_vision_config *o)
{
    TS_TRY(ts_json_string(r, v, "model_type", "clip_vision_model", o->model_type,
                          sizeof(o->model_type)));
    bool clip = strcmp(o->model_type, "clip_vision_model") == 0;
    bool siglip = strcmp(o->model_type, "siglip_vision_model") == 0;
    if ((!clip && !siglip) || (clip && !allow_clip))
        return ts_error_set(
            r->err, TS_ERR_UNSUPPORTED,
            "%s: vision_config.model_type \"%s\" is not supported for %s (supported: %s)",
            r->origin, o->model_type, family,
            allow_clip ? "clip_vision_model, siglip_vision_model" : "siglip_vision_model");
    TS_TRY(ts_config_dim(r, v, "hidden_size", 768, &o->hidden_size));
    TS_TRY(ts_config_dim(r, v, "intermediate_size", 3072, &o->intermediate_size));
    TS_TRY(ts_config_dim(r, v, "num_hidden_layers", 12, &o->depth));
    TS_TRY(ts_config_dim(r, v, "num_attention_heads", 12, &o->num_heads));
    TS_TRY(ts_config_dim(r, v, "num_channels", 3, &o->in_channels));
    TS_TRY(ts_config_dim(r, v, "image_size", 224, &o->image_size));
    TS_TRY(ts_config_dim(r, v, "patch_size", clip ? 32 : 16, &o->patch_size));
    TS_TRY(ts_json_string(r, v, "hidden_act", clip ? "quick_gelu" : "gelu_pytorch_tanh",
                          o->hidden_act, sizeof(o->hidden_act)));
    TS_TRY(ts_json_double(r, v, "layer_norm_eps", clip ? 1e-5 : 1e-6, &o->layer_norm_eps));
    if (o->image_size % o->patch_size != 0)
        return ts_error_set(
            r->err, TS_ERR_RANGE,
            "%s: vision_config.image_size %lld is not a multiple of patch_size %lld", r->origin,
            (long long)o->image_size, (long long)o->patch_size);
    o->out_hidden_size = lm_hidden;
    return TS_OK;
}

ts_status ts_config_require_mrope(const ts_json_reader *r, const ts_text_config *t)
{
    int sum = t->mrope_section[0] + t->mrope_section[1] + t->mrope_section[2];
    if (sum == 0)
        return ts_error_set(r->err, TS_ERR_NOT_FOUND, "%s: %srope_scaling.mrope_section: missing",
                            r->origin, r->prefix);
    /* The sections split the rotary half of head_dim among t, h and w. */
    if (sum * 2 != t->head_dim)
        return ts_error_set(
            r->err, TS_ERR_RANGE,
            "%s: %srope_scaling.mrope_section sums to %d, expected head_dim / 2 = %lld", r->origin,
            r->prefix, sum, (long long)t->head_dim / 2);
    return TS_OK;
}

ts_status ts_config_check_vision(const ts_json_reader *r, const ts_vision_config *o)
{
    if (o->hidden_size % o->num_heads != 0)
        return ts_error_set(
            r->err, TS_ERR_RANGE,
            "%s: vision_config.hidden_size %lld is not a multiple of the %lld heads", r->origin,
            (long long)o->hidden_size, (long long)o->num_heads);
    for (int i = 0; i < o->n_fullatt_block_indexes; i++)
        if (o->fullatt_block_indexes[i] < 0 || o->fullatt_block_indexes[i] >= o->depth)
            return ts_error_set(
                r->err, TS_ERR_RANGE,
                "%s: vision_config.fullatt_block_indexes[%d] = %lld is outside the %lld blocks",
                r->origin, i, (long long)o->fullatt_block_indexes[i], (long long)o->depth);
    for (int i = 0; i < o->n_deepstack_visual_indexes; i++)
        if (o->deepstack_visual_indexes[i] < 0 || o->deepstack_visual_indexes[i] >= o->depth)
            return ts_error_set(
                r->err, TS_ERR_RANGE,
                "%s: vision_config.deepstack_visual_indexes[%d] = %lld is outside the %lld blocks",
                r->origin, i, (long long)o->deepstack_visual_indexes[i], (long long)o->depth);
    return TS_OK;
}
