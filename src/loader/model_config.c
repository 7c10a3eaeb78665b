/* model_config.c — config.json → ts_model_config: what every family shares.
 *
 * The family (src/models/registry.c, by model_type) says where the language model's keys are
 * (flat, or under text_config), the defaults of its transformers config class, and reads the
 * keys only it has (its read_text, read_vision, read_media_ids hooks). Missing keys take the
 * class default only where published checkpoints rely on it; a layout whose published files
 * state their dims marks them TS_CONFIG_REQUIRED, and a missing one is an error naming the key.
 */
#include "base/error.h"
#include "base/file.h"
#include "loader/config_keys.h"
#include "models/family.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
    ts_json_reader top;  /* keys of the root object */
    ts_json_reader text; /* keys of the LM object: the root or text_config */
    ts_json_reader vision;
} reader;

static bool in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0) return true;
    return false;
}

/* rope_scaling (older) or rope_parameters (transformers ≥ 5) of one attention kind. The legacy
 * "type": "mrope" (multimodal rotary sections) means default frequencies laid out by mrope_section,
 * as transformers rewrites it; M-RoPE is signalled by mrope_section, not by rope_type. */
static ts_status read_rope(const ts_json_reader *r, const cJSON *rope, ts_text_config *t)
{
    static const char *const supported[] = {"default", "linear", "llama3", "dynamic", "longrope",
                                            NULL};
    char key_buf[64];
    ts_json_reader sub = *r;
    snprintf(key_buf, sizeof(key_buf), "%s%s.", r->prefix, rope->string ? rope->string : "rope");
    sub.prefix = key_buf;
    char type[32];
    TS_TRY(ts_json_string(&sub, rope, "type", "default", type, sizeof(type)));
    TS_TRY(ts_json_string(&sub, rope, "rope_type", type, t->rope_type, sizeof(t->rope_type)));
    if (strcmp(t->rope_type, "mrope") == 0) strcpy(t->rope_type, "default");
    if (!in_list(t->rope_type, supported))
        return ts_error_set(r->err, TS_ERR_UNSUPPORTED,
                            "%s: %srope_type \"%s\" is not supported (supported: default, linear, "
                            "llama3, dynamic, longrope)",
                            r->origin, key_buf, t->rope_type);
    TS_TRY(ts_json_double(&sub, rope, "rope_theta", t->rope_theta, &t->rope_theta));
    TS_TRY(ts_json_double(&sub, rope, "partial_rotary_factor", t->partial_rotary_factor,
                          &t->partial_rotary_factor));
    bool llama3 = strcmp(t->rope_type, "llama3") == 0;
    bool longrope = strcmp(t->rope_type, "longrope") == 0;
    bool scaled = strcmp(t->rope_type, "default") != 0;
    if (scaled && !longrope && ts_json_absent(rope, "factor"))
        return ts_json_missing(&sub, "factor");
    TS_TRY(ts_json_double(&sub, rope, "factor", longrope ? 0.0 : 1.0, &t->rope_factor));
    if (longrope) {
        /* _compute_longrope_parameters: both factor lists are required, one entry per rotary
         * frequency (checked against the rotary dimension when the decoder is built). */
        if (ts_json_absent(rope, "short_factor")) return ts_json_missing(&sub, "short_factor");
        if (ts_json_absent(rope, "long_factor")) return ts_json_missing(&sub, "long_factor");
        TS_TRY(ts_json_double_list(&sub, rope, "short_factor", t->rope_short_factor, 256,
                                   &t->n_rope_short_factor));
        TS_TRY(ts_json_double_list(&sub, rope, "long_factor", t->rope_long_factor, 256,
                                   &t->n_rope_long_factor));
        TS_TRY(ts_json_double(&sub, rope, "attention_factor", 0.0, &t->rope_attention_factor));
    }
    if (llama3) {
        if (ts_json_absent(rope, "low_freq_factor"))
            return ts_json_missing(&sub, "low_freq_factor");
        if (ts_json_absent(rope, "high_freq_factor"))
            return ts_json_missing(&sub, "high_freq_factor");
        if (ts_json_absent(rope, "original_max_position_embeddings"))
            return ts_json_missing(&sub, "original_max_position_embeddings");
    }
    TS_TRY(ts_json_double(&sub, rope, "low_freq_factor", 0.0, &t->rope_low_freq_factor));
    TS_TRY(ts_json_double(&sub, rope, "high_freq_factor", 0.0, &t->rope_high_freq_factor));
    TS_TRY(ts_json_int(&sub, rope, "original_max_position_embeddings", 0,
                       &t->rope_original_max_position));
    int64_t section[3];
    int n_section = 0;
    TS_TRY(ts_json_int_list(&sub, rope, "mrope_section", false, section, 3, &n_section));
    if (n_section != 0 && n_section != 3)
        return ts_json_wrong_type(&sub, "mrope_section", "three integers (t, h, w)");
    for (int i = 0; i < n_section; i++)
        t->mrope_section[i] = (int)section[i];
    TS_TRY(ts_json_bool(&sub, rope, "mrope_interleaved", false, &t->mrope_interleaved));
    return TS_OK;
}

/* transformers ≥ 5 may key rope_parameters by layer kind (full_attention, sliding_attention); the
 * sliding layers' theta is what older files call rope_local_base_freq. */
static ts_status read_rope_block(const ts_json_reader *r, const cJSON *obj, ts_text_config *t)
{
    const cJSON *params = ts_json_member(obj, "rope_parameters");
    const cJSON *scaling = ts_json_member(obj, "rope_scaling");
    const cJSON *rope = params ? params : scaling;
    const char *key = params ? "rope_parameters" : "rope_scaling";
    if (!rope) return TS_OK;
    if (!cJSON_IsObject(rope)) return ts_json_wrong_type(r, key, "an object");
    const cJSON *full = ts_json_member(rope, "full_attention");
    if (!full) return read_rope(r, rope, t);
    if (!cJSON_IsObject(full))
        return ts_json_wrong_type(r, "rope_parameters.full_attention", "an object");
    TS_TRY(read_rope(r, full, t));
    const cJSON *sliding = ts_json_member(rope, "sliding_attention");
    if (sliding) {
        if (!cJSON_IsObject(sliding))
            return ts_json_wrong_type(r, "rope_parameters.sliding_attention", "an object");
        ts_json_reader sub = *r;
        sub.prefix = "rope_parameters.sliding_attention.";
        TS_TRY(ts_json_double(&sub, sliding, "rope_theta", t->rope_local_base_freq,
                              &t->rope_local_base_freq));
    }
    return TS_OK;
}

static ts_status read_text(const reader *rd, const cJSON *root, const cJSON *obj,
                           const ts_text_defaults *d, ts_text_config *t)
{
    const ts_json_reader *r = &rd->text;
    TS_TRY(
        ts_json_string(r, obj, "model_type", d->model_type, t->model_type, sizeof(t->model_type)));
    TS_TRY(ts_config_dim(r, obj, "vocab_size", d->vocab_size, &t->vocab_size));
    TS_TRY(ts_config_dim(r, obj, "hidden_size", d->hidden_size, &t->hidden_size));
    TS_TRY(ts_config_dim(r, obj, "intermediate_size", d->intermediate_size, &t->intermediate_size));
    TS_TRY(ts_config_dim(r, obj, "num_hidden_layers", d->num_hidden_layers, &t->num_hidden_layers));
    TS_TRY(ts_config_dim(r, obj, "num_attention_heads", d->num_attention_heads,
                         &t->num_attention_heads));
    int64_t kv_default = d->num_key_value_heads == TS_CONFIG_REQUIRED ? t->num_attention_heads
                                                                      : d->num_key_value_heads;
    TS_TRY(ts_config_dim(r, obj, "num_key_value_heads", kv_default, &t->num_key_value_heads));
    if (t->num_attention_heads % t->num_key_value_heads != 0)
        return ts_error_set(
            r->err, TS_ERR_RANGE,
            "%s: %snum_attention_heads %lld is not a multiple of num_key_value_heads %lld",
            r->origin, r->prefix, (long long)t->num_attention_heads,
            (long long)t->num_key_value_heads);
    int64_t head_default = d->head_dim ? d->head_dim : t->hidden_size / t->num_attention_heads;
    TS_TRY(ts_config_dim(r, obj, "head_dim", head_default, &t->head_dim));
    TS_TRY(ts_config_dim(r, obj, "max_position_embeddings", d->max_position_embeddings,
                         &t->max_position_embeddings));
    TS_TRY(ts_json_double(r, obj, "rms_norm_eps", d->rms_norm_eps, &t->rms_norm_eps));
    TS_TRY(ts_json_double(r, obj, "rope_theta", d->rope_theta, &t->rope_theta));
    /* Some families name it hidden_activation; either spelling is accepted everywhere. */
    char act[32];
    TS_TRY(ts_json_string(r, obj, "hidden_act", d->hidden_act, act, sizeof(act)));
    TS_TRY(ts_json_string(r, obj, "hidden_activation", act, t->hidden_act, sizeof(t->hidden_act)));
    /* The composite models decide tying at the top level; text_config speaks only if it has to. */
    bool tie;
    TS_TRY(ts_json_bool(r, obj, "tie_word_embeddings", d->tie_word_embeddings, &tie));
    TS_TRY(ts_json_bool(&rd->top, root, "tie_word_embeddings", tie, &t->tie_word_embeddings));
    if (d->attention_bias_fixed)
        t->attention_bias = d->attention_bias;
    else
        TS_TRY(ts_json_bool(r, obj, "attention_bias", d->attention_bias, &t->attention_bias));

    strcpy(t->rope_type, "default");
    t->rope_factor = 1.0;
    t->partial_rotary_factor = 1.0;
    TS_TRY(ts_json_double(r, obj, "partial_rotary_factor", 1.0, &t->partial_rotary_factor));
    TS_TRY(read_rope_block(r, obj, t));
    /* Phi-3-style files keep the pretraining length at the top level, and transformers gives it
     * priority over the rope block's for the types that use it (standardize_rope_params). */
    if (strcmp(t->rope_type, "longrope") == 0)
        TS_TRY(ts_json_int(r, obj, "original_max_position_embeddings",
                           t->rope_original_max_position, &t->rope_original_max_position));
    return TS_OK;
}

/* Token ids live at the top level in some families and in text_config in others; the top level
 * wins when both speak (a file may list two EOS ids there and one in text_config). */
static ts_status read_special_ids(const reader *rd, const cJSON *root, const cJSON *text,
                                  ts_model_config *c)
{
    TS_TRY(ts_json_int(&rd->text, text, "bos_token_id", -1, &c->bos_token_id));
    TS_TRY(ts_json_int(&rd->top, root, "bos_token_id", c->bos_token_id, &c->bos_token_id));
    TS_TRY(ts_json_int(&rd->text, text, "pad_token_id", -1, &c->pad_token_id));
    TS_TRY(ts_json_int(&rd->top, root, "pad_token_id", c->pad_token_id, &c->pad_token_id));
    const ts_json_reader *r = ts_json_absent(root, "eos_token_id") ? &rd->text : &rd->top;
    const cJSON *from = ts_json_absent(root, "eos_token_id") ? text : root;
    return ts_json_int_list(r, from, "eos_token_id", true, c->eos_token_ids, 8,
                            &c->n_eos_token_ids);
}

static ts_status read_vision(const reader *rd, const cJSON *v, ts_model_config *c)
{
    if (!cJSON_IsObject(v)) return ts_json_wrong_type(&rd->top, "vision_config", "an object");
    if (!c->family->read_vision)
        return ts_error_set(rd->top.err, TS_ERR_UNSUPPORTED,
                            "%s: vision_config is not supported for %s", rd->top.origin,
                            ts_family_name(c->family));
    TS_TRY(c->family->read_vision(&rd->vision, v, c));
    return ts_config_check_vision(&rd->vision, &c->vision);
}

static ts_status parse_root(const cJSON *root, const char *origin, ts_model_config *c,
                            ts_error *err)
{
    reader rd = {{origin, "", err}, {origin, "", err}, {origin, "vision_config.", err}};
    if (!cJSON_IsObject(root))
        return ts_error_set(err, TS_ERR_FORMAT, "%s: expected a JSON object at the top level",
                            origin);
    if (ts_json_absent(root, "model_type")) return ts_json_missing(&rd.top, "model_type");
    TS_TRY(ts_json_string(&rd.top, root, "model_type", "", c->model_type, sizeof(c->model_type)));
    const ts_config_layout *layout = NULL;
    c->family = ts_family_layout(c->model_type, &layout);
    if (!c->family)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "%s: model_type \"%s\" is not supported (supported: %s)", origin,
                            c->model_type, ts_family_model_types());
    const cJSON *archs = ts_json_member(root, "architectures");
    if (archs) {
        if (!cJSON_IsArray(archs) || (archs->child && !cJSON_IsString(archs->child)))
            return ts_json_wrong_type(&rd.top, "architectures", "a list of strings");
        if (archs->child) {
            const char *name = archs->child->valuestring;
            if (strlen(name) >= sizeof(c->architecture))
                return ts_error_set(err, TS_ERR_RANGE, "%s: architectures[0] is too long", origin);
            strcpy(c->architecture, name);
        }
    }

    const cJSON *text = root;
    /* Newer transformers save some flat families with a text_config beside (or instead of) the
     * published flat keys; read it when the flat keys are not there. */
    if ((layout->flags & TS_LAYOUT_MAY_NEST) && ts_json_absent(root, "hidden_size") &&
        cJSON_IsObject(ts_json_member(root, "text_config"))) {
        text = ts_json_member(root, "text_config");
        rd.text.prefix = "text_config.";
    }
    if (layout->flags & TS_LAYOUT_NESTED) {
        text = ts_json_member(root, "text_config");
        if (!text) {
            /* Most nested families fall back to an all-default text config, as transformers does.
             */
            if (layout->flags & TS_LAYOUT_TEXT_REQUIRED)
                return ts_json_missing(&rd.top, "text_config");
        } else if (!cJSON_IsObject(text)) {
            return ts_json_wrong_type(&rd.top, "text_config", "an object");
        }
        rd.text.prefix = "text_config.";
    }
    TS_TRY(read_text(&rd, root, text, layout->text, &c->text));
    if (c->family->read_text) TS_TRY(c->family->read_text(&rd.text, text, &c->text));
    TS_TRY(read_special_ids(&rd, root, text, c));

    c->modalities = TS_MODALITY_TEXT;
    const cJSON *vision = ts_json_member(root, "vision_config");
    if (layout->flags & TS_LAYOUT_VISION) {
        if (!vision) return ts_json_missing(&rd.top, "vision_config");
        TS_TRY(read_vision(&rd, vision, c));
        c->has_vision = true;
        c->modalities |= TS_MODALITY_IMAGE;
    }
    return c->family->read_media_ids ? c->family->read_media_ids(&rd.top, root, c) : TS_OK;
}

ts_status ts_model_config_parse(const char *json, size_t len, const char *origin,
                                ts_model_config *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    out->image_token_id = out->video_token_id = out->audio_token_id = -1;
    out->vision_start_token_id = out->vision_end_token_id = -1;
    out->bos_token_id = out->pad_token_id = -1;
    cJSON *root = NULL;
    TS_TRY(ts_json_parse_text(json, len, origin, &root, err));
    ts_status st = parse_root(root, origin, out, err);
    cJSON_Delete(root);
    return st;
}

ts_status ts_model_config_load(const char *dir, ts_model_config *out, ts_error *err)
{
    char path[4096];
    TS_TRY(ts_path_join(path, sizeof(path), dir, "config.json", err));
    char *text = NULL;
    size_t len = 0;
    TS_TRY(ts_file_read(path, &text, &len, err));
    ts_status st = ts_model_config_parse(text, len, path, out, err);
    free(text);
    return st;
}
