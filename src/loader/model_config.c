/* model_config.c — config.json → ts_model_config for every supported family.
 *
 * Layouts: Qwen2/Qwen3/Llama and Qwen2-VL/2.5-VL keep the language model's keys at the top level;
 * LLaVA, Gemma3 and Qwen3-VL(-MoE) nest them under text_config. Vision keys are always under
 * vision_config. Missing keys take the transformers class default of that family (the tables
 * below name the class) only where published checkpoints rely on it: LLaVA and Gemma3 configs
 * omit most text dims, so those default; the flat families and the Qwen-VL families must state
 * their dims, and a missing one is an error naming the key.
 */
#include "base/error.h"
#include "base/file.h"
#include "loader/json_fields.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRY(x)                                                                                     \
    do {                                                                                           \
        ts_status try_status_ = (x);                                                               \
        if (try_status_) return try_status_;                                                       \
    } while (0)

#define REQUIRED (-1)

static const char *const family_names[] = {
    [TS_FAMILY_QWEN2] = "qwen2",
    [TS_FAMILY_QWEN3] = "qwen3",
    [TS_FAMILY_LLAMA] = "llama",
    [TS_FAMILY_QWEN2_VL] = "qwen2_vl",
    [TS_FAMILY_QWEN2_5_VL] = "qwen2_5_vl",
    [TS_FAMILY_QWEN3_VL] = "qwen3_vl",
    [TS_FAMILY_QWEN3_VL_MOE] = "qwen3_vl_moe",
    [TS_FAMILY_LLAVA] = "llava",
    [TS_FAMILY_GEMMA3] = "gemma3",
};
_Static_assert(sizeof(family_names) / sizeof(family_names[0]) == TS_FAMILY_COUNT,
               "family_names out of step with ts_family");

#define SUPPORTED_TYPES                                                                            \
    "qwen2, qwen3, llama, qwen2_vl, qwen2_5_vl, qwen3_vl, qwen3_vl_moe, llava, gemma3, gemma3_text"

const char *ts_family_name(ts_family family)
{
    if ((unsigned)family >= TS_FAMILY_COUNT) return "unknown family";
    return family_names[family];
}

/* Defaults of one transformers text config class. REQUIRED marks a key the file must state. */
typedef struct text_defaults {
    const char *model_type;
    int64_t vocab_size, hidden_size, intermediate_size, num_hidden_layers, num_attention_heads;
    int64_t num_key_value_heads; /* REQUIRED here means "= num_attention_heads" */
    int64_t head_dim;            /* 0 = hidden_size / num_attention_heads */
    int64_t max_position_embeddings;
    double rms_norm_eps, rope_theta;
    const char *hidden_act;
    bool tie_word_embeddings;
    bool attention_bias;       /* Qwen2-era models always have q/k/v biases */
    bool attention_bias_fixed; /* true: not a config key, the modeling code hard-codes it */
} text_defaults;

/* Qwen2Config */
static const text_defaults qwen2_text = {"qwen2", REQUIRED, REQUIRED, REQUIRED, REQUIRED, REQUIRED,
                                         REQUIRED, 0, 32768, 1e-6, 10000.0, "silu", false, true, true};
/* Qwen3Config (head_dim defaults to 128 there, not hidden / heads) */
static const text_defaults qwen3_text = {"qwen3", REQUIRED, REQUIRED, REQUIRED, REQUIRED, REQUIRED,
                                         REQUIRED, 128, 32768, 1e-6, 10000.0, "silu", false, false, false};
/* LlamaConfig, stated in full at the top level */
static const text_defaults llama_text = {"llama", REQUIRED, REQUIRED, REQUIRED, REQUIRED, REQUIRED,
                                         REQUIRED, 0, 2048, 1e-6, 10000.0, "silu", false, false, false};
/* LlamaConfig as LLaVA's text_config: published files list a few keys, the rest default. */
static const text_defaults llava_llama_text = {"llama", 32000, 4096, 11008, 32, 32, REQUIRED, 0,
                                               2048, 1e-6, 10000.0, "silu", false, false, false};
/* Qwen2VLTextConfig */
static const text_defaults qwen2_vl_text = {"qwen2_vl", REQUIRED, REQUIRED, REQUIRED, REQUIRED,
                                            REQUIRED, REQUIRED, 0, 32768, 1e-5, 1000000.0, "silu",
                                            false, true, true};
/* Qwen2_5_VLTextConfig */
static const text_defaults qwen2_5_vl_text = {"qwen2_5_vl", REQUIRED, REQUIRED, REQUIRED, REQUIRED,
                                              REQUIRED, REQUIRED, 0, 32768, 1e-6, 1000000.0, "silu",
                                              false, true, true};
/* Qwen3VLTextConfig */
static const text_defaults qwen3_vl_text = {"qwen3_vl_text", REQUIRED, REQUIRED, REQUIRED, REQUIRED,
                                            REQUIRED, REQUIRED, 128, 128000, 1e-6, 5000000.0, "silu",
                                            false, false, false};
/* Qwen3VLMoeTextConfig */
static const text_defaults qwen3_vl_moe_text = {"qwen3_vl_moe_text", REQUIRED, REQUIRED, REQUIRED,
                                                REQUIRED, REQUIRED, REQUIRED, 128, 128000, 1e-6,
                                                5000000.0, "silu", false, false, false};
/* Gemma3TextConfig: published Gemma3 configs omit most of these. */
static const text_defaults gemma3_text = {"gemma3_text", 262208, 2304, 9216, 26, 8, 4, 256, 131072,
                                          1e-6, 1000000.0, "gelu_pytorch_tanh", true, false, false};

typedef struct reader {
    ts_json_reader top;  /* keys of the root object */
    ts_json_reader text; /* keys of the LM object: the root or text_config */
    ts_json_reader vision;
} reader;

static ts_status read_dim(const ts_json_reader *r, const cJSON *obj, const char *key, int64_t def,
                          int64_t *out)
{
    if (def == REQUIRED) TRY(ts_json_int_required(r, obj, key, out));
    else TRY(ts_json_int(r, obj, key, def, out));
    if (*out <= 0)
        return ts_error_set(r->err, TS_ERR_RANGE, "%s: %s%s: %lld, expected a positive integer",
                            r->origin, r->prefix, key, (long long)*out);
    return TS_OK;
}

static bool in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0) return true;
    return false;
}

/* rope_scaling (older) or rope_parameters (transformers ≥ 5) of one attention kind. The legacy
 * "type": "mrope" of Qwen2-VL means default frequencies laid out by mrope_section, as transformers
 * rewrites it; M-RoPE is signalled by mrope_section, not by rope_type. */
static ts_status read_rope(const ts_json_reader *r, const cJSON *rope, ts_text_config *t)
{
    static const char *const supported[] = {"default", "linear", "llama3", "dynamic", NULL};
    char key_buf[64];
    ts_json_reader sub = *r;
    snprintf(key_buf, sizeof(key_buf), "%s%s.", r->prefix, rope->string ? rope->string : "rope");
    sub.prefix = key_buf;
    char type[32];
    TRY(ts_json_string(&sub, rope, "type", "default", type, sizeof(type)));
    TRY(ts_json_string(&sub, rope, "rope_type", type, t->rope_type, sizeof(t->rope_type)));
    if (strcmp(t->rope_type, "mrope") == 0) strcpy(t->rope_type, "default");
    if (!in_list(t->rope_type, supported))
        return ts_error_set(r->err, TS_ERR_UNSUPPORTED,
                            "%s: %srope_type \"%s\" is not supported (supported: default, linear, "
                            "llama3, dynamic)",
                            r->origin, key_buf, t->rope_type);
    TRY(ts_json_double(&sub, rope, "rope_theta", t->rope_theta, &t->rope_theta));
    TRY(ts_json_double(&sub, rope, "partial_rotary_factor", t->partial_rotary_factor,
                       &t->partial_rotary_factor));
    bool llama3 = strcmp(t->rope_type, "llama3") == 0;
    bool scaled = strcmp(t->rope_type, "default") != 0;
    if (scaled && ts_json_absent(rope, "factor")) return ts_json_missing(&sub, "factor");
    TRY(ts_json_double(&sub, rope, "factor", 1.0, &t->rope_factor));
    if (llama3) {
        if (ts_json_absent(rope, "low_freq_factor")) return ts_json_missing(&sub, "low_freq_factor");
        if (ts_json_absent(rope, "high_freq_factor")) return ts_json_missing(&sub, "high_freq_factor");
        if (ts_json_absent(rope, "original_max_position_embeddings"))
            return ts_json_missing(&sub, "original_max_position_embeddings");
    }
    TRY(ts_json_double(&sub, rope, "low_freq_factor", 0.0, &t->rope_low_freq_factor));
    TRY(ts_json_double(&sub, rope, "high_freq_factor", 0.0, &t->rope_high_freq_factor));
    TRY(ts_json_int(&sub, rope, "original_max_position_embeddings", 0, &t->rope_original_max_position));
    int64_t section[3];
    int n_section = 0;
    TRY(ts_json_int_list(&sub, rope, "mrope_section", false, section, 3, &n_section));
    if (n_section != 0 && n_section != 3)
        return ts_json_wrong_type(&sub, "mrope_section", "three integers (t, h, w)");
    for (int i = 0; i < n_section; i++) t->mrope_section[i] = (int)section[i];
    TRY(ts_json_bool(&sub, rope, "mrope_interleaved", false, &t->mrope_interleaved));
    return TS_OK;
}

/* Gemma3 in transformers ≥ 5 keys rope_parameters by layer kind; the sliding layers' theta is
 * what older files call rope_local_base_freq. */
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
    if (!cJSON_IsObject(full)) return ts_json_wrong_type(r, "rope_parameters.full_attention", "an object");
    TRY(read_rope(r, full, t));
    const cJSON *sliding = ts_json_member(rope, "sliding_attention");
    if (sliding) {
        if (!cJSON_IsObject(sliding))
            return ts_json_wrong_type(r, "rope_parameters.sliding_attention", "an object");
        ts_json_reader sub = *r;
        sub.prefix = "rope_parameters.sliding_attention.";
        TRY(ts_json_double(&sub, sliding, "rope_theta", t->rope_local_base_freq,
                           &t->rope_local_base_freq));
    }
    return TS_OK;
}

/* Newer Gemma3 files list layer_types instead of sliding_window_pattern; accept them when they
 * follow a period (every p-th layer full), which is all the architecture describes. */
static ts_status read_layer_types(const ts_json_reader *r, const cJSON *obj, ts_text_config *t)
{
    const cJSON *types = ts_json_member(obj, "layer_types");
    if (!types) return TS_OK;
    if (!cJSON_IsArray(types)) return ts_json_wrong_type(r, "layer_types", "a list of strings");
    int64_t pattern = 0, i = 0;
    for (const cJSON *v = types->child; v; v = v->next, i++) {
        if (!cJSON_IsString(v)) return ts_json_wrong_type(r, "layer_types", "a list of strings");
        if (strcmp(v->valuestring, "full_attention") == 0) {
            if (pattern == 0) pattern = i + 1;
        } else if (strcmp(v->valuestring, "sliding_attention") != 0) {
            return ts_error_set(r->err, TS_ERR_UNSUPPORTED,
                                "%s: %slayer_types[%lld]: \"%s\" is not supported", r->origin,
                                r->prefix, (long long)i, v->valuestring);
        }
    }
    if (pattern == 0) pattern = i + 1;
    i = 0;
    for (const cJSON *v = types->child; v; v = v->next, i++) {
        bool full = strcmp(v->valuestring, "full_attention") == 0;
        if (full != ((i + 1) % pattern == 0))
            return ts_error_set(r->err, TS_ERR_UNSUPPORTED,
                                "%s: %slayer_types: layers are not every %lld-th full attention",
                                r->origin, r->prefix, (long long)pattern);
    }
    t->sliding_window_pattern = pattern;
    return TS_OK;
}

static ts_status read_moe(const ts_json_reader *r, const cJSON *obj, ts_text_config *t)
{
    /* Qwen3VLMoeTextConfig defaults */
    TRY(ts_json_int(r, obj, "num_experts", 60, &t->num_experts));
    TRY(ts_json_int(r, obj, "num_experts_per_tok", 4, &t->num_experts_per_tok));
    TRY(ts_json_int(r, obj, "moe_intermediate_size", 1408, &t->moe_intermediate_size));
    TRY(ts_json_bool(r, obj, "norm_topk_prob", true, &t->norm_topk_prob));
    if (t->num_experts <= 0 || t->num_experts_per_tok <= 0 || t->num_experts_per_tok > t->num_experts)
        return ts_error_set(r->err, TS_ERR_RANGE,
                            "%s: %snum_experts_per_tok %lld must be in 1..num_experts (%lld)",
                            r->origin, r->prefix, (long long)t->num_experts_per_tok,
                            (long long)t->num_experts);
    /* Dense layers between sparse ones have no field in ts_text_config: refuse them. */
    int64_t step;
    TRY(ts_json_int(r, obj, "decoder_sparse_step", 1, &step));
    int64_t dense[16];
    int n_dense = 0;
    TRY(ts_json_int_list(r, obj, "mlp_only_layers", false, dense, 16, &n_dense));
    if (step != 1 || n_dense != 0)
        return ts_error_set(r->err, TS_ERR_UNSUPPORTED,
                            "%s: %sdense layers in an MoE model (decoder_sparse_step %lld, %d "
                            "mlp_only_layers) are not supported",
                            r->origin, r->prefix, (long long)step, n_dense);
    return TS_OK;
}

static ts_status read_gemma3(const ts_json_reader *r, const cJSON *obj, ts_text_config *t)
{
    TRY(ts_json_int(r, obj, "sliding_window", 4096, &t->sliding_window));
    TRY(ts_json_int(r, obj, "sliding_window_pattern", 6, &t->sliding_window_pattern));
    TRY(read_layer_types(r, obj, t));
    TRY(ts_json_double(r, obj, "query_pre_attn_scalar", 256, &t->query_pre_attn_scalar));
    TRY(ts_json_double(r, obj, "final_logit_softcapping", 0, &t->final_logit_softcapping));
    TRY(ts_json_double(r, obj, "attn_logit_softcapping", 0, &t->attn_logit_softcapping));
    TRY(ts_json_double(r, obj, "rope_local_base_freq", 10000.0, &t->rope_local_base_freq));
    return TS_OK;
}

/* Qwen2-style sliding windows apply only to layers past max_window_layers, which this struct
 * cannot describe; such configs are refused rather than run with full attention. */
static ts_status reject_qwen_sliding(const ts_json_reader *r, const cJSON *obj)
{
    bool use = false;
    TRY(ts_json_bool(r, obj, "use_sliding_window", false, &use));
    if (use)
        return ts_error_set(r->err, TS_ERR_UNSUPPORTED, "%s: %suse_sliding_window: true is not supported",
                            r->origin, r->prefix);
    return TS_OK;
}

static ts_status read_text(const reader *rd, const cJSON *root, const cJSON *obj,
                           const text_defaults *d, ts_family family, ts_text_config *t)
{
    const ts_json_reader *r = &rd->text;
    TRY(ts_json_string(r, obj, "model_type", d->model_type, t->model_type, sizeof(t->model_type)));
    TRY(read_dim(r, obj, "vocab_size", d->vocab_size, &t->vocab_size));
    TRY(read_dim(r, obj, "hidden_size", d->hidden_size, &t->hidden_size));
    TRY(read_dim(r, obj, "intermediate_size", d->intermediate_size, &t->intermediate_size));
    TRY(read_dim(r, obj, "num_hidden_layers", d->num_hidden_layers, &t->num_hidden_layers));
    TRY(read_dim(r, obj, "num_attention_heads", d->num_attention_heads, &t->num_attention_heads));
    int64_t kv_default = d->num_key_value_heads == REQUIRED ? t->num_attention_heads
                                                            : d->num_key_value_heads;
    TRY(read_dim(r, obj, "num_key_value_heads", kv_default, &t->num_key_value_heads));
    if (t->num_attention_heads % t->num_key_value_heads != 0)
        return ts_error_set(r->err, TS_ERR_RANGE,
                            "%s: %snum_attention_heads %lld is not a multiple of num_key_value_heads "
                            "%lld",
                            r->origin, r->prefix, (long long)t->num_attention_heads,
                            (long long)t->num_key_value_heads);
    int64_t head_default = d->head_dim ? d->head_dim : t->hidden_size / t->num_attention_heads;
    TRY(read_dim(r, obj, "head_dim", head_default, &t->head_dim));
    TRY(read_dim(r, obj, "max_position_embeddings", d->max_position_embeddings,
                 &t->max_position_embeddings));
    TRY(ts_json_double(r, obj, "rms_norm_eps", d->rms_norm_eps, &t->rms_norm_eps));
    TRY(ts_json_double(r, obj, "rope_theta", d->rope_theta, &t->rope_theta));
    /* Gemma names it hidden_activation; either spelling is accepted everywhere. */
    char act[32];
    TRY(ts_json_string(r, obj, "hidden_act", d->hidden_act, act, sizeof(act)));
    TRY(ts_json_string(r, obj, "hidden_activation", act, t->hidden_act, sizeof(t->hidden_act)));
    /* The composite models decide tying at the top level; text_config speaks only if it has to. */
    bool tie;
    TRY(ts_json_bool(r, obj, "tie_word_embeddings", d->tie_word_embeddings, &tie));
    TRY(ts_json_bool(&rd->top, root, "tie_word_embeddings", tie, &t->tie_word_embeddings));
    if (d->attention_bias_fixed) t->attention_bias = d->attention_bias;
    else TRY(ts_json_bool(r, obj, "attention_bias", d->attention_bias, &t->attention_bias));

    strcpy(t->rope_type, "default");
    t->rope_factor = 1.0;
    t->partial_rotary_factor = 1.0;
    TRY(ts_json_double(r, obj, "partial_rotary_factor", 1.0, &t->partial_rotary_factor));
    if (family == TS_FAMILY_GEMMA3) TRY(read_gemma3(r, obj, t));
    TRY(read_rope_block(r, obj, t));
    bool needs_mrope = family == TS_FAMILY_QWEN2_VL || family == TS_FAMILY_QWEN2_5_VL ||
                       family == TS_FAMILY_QWEN3_VL || family == TS_FAMILY_QWEN3_VL_MOE;
    if (needs_mrope) {
        int sum = t->mrope_section[0] + t->mrope_section[1] + t->mrope_section[2];
        if (sum == 0)
            return ts_error_set(r->err, TS_ERR_NOT_FOUND, "%s: %srope_scaling.mrope_section: missing",
                                r->origin, r->prefix);
        /* The sections split the rotary half of head_dim among t, h and w. */
        if (sum * 2 != t->head_dim)
            return ts_error_set(r->err, TS_ERR_RANGE,
                                "%s: %srope_scaling.mrope_section sums to %d, expected head_dim / 2 "
                                "= %lld",
                                r->origin, r->prefix, sum, (long long)t->head_dim / 2);
    }
    if (family == TS_FAMILY_QWEN2 || needs_mrope) TRY(reject_qwen_sliding(r, obj));
    if (family == TS_FAMILY_QWEN3_VL_MOE) TRY(read_moe(r, obj, t));
    return TS_OK;
}

/* ------------------------------------------------------------------ vision towers */

static ts_status read_qwen2_vl_vision(const ts_json_reader *r, const cJSON *v, ts_vision_config *o)
{
    /* Qwen2VLVisionConfig: the tower width is embed_dim; hidden_size is the LM width the merger
     * projects to. */
    int64_t mlp_ratio;
    TRY(ts_json_string(r, v, "model_type", "qwen2_vl", o->model_type, sizeof(o->model_type)));
    TRY(read_dim(r, v, "depth", REQUIRED, &o->depth));
    TRY(read_dim(r, v, "embed_dim", REQUIRED, &o->hidden_size));
    TRY(read_dim(r, v, "mlp_ratio", 4, &mlp_ratio));
    o->intermediate_size = o->hidden_size * mlp_ratio;
    TRY(read_dim(r, v, "num_heads", REQUIRED, &o->num_heads));
    TRY(read_dim(r, v, "hidden_size", REQUIRED, &o->out_hidden_size));
    TRY(ts_json_string(r, v, "hidden_act", "quick_gelu", o->hidden_act, sizeof(o->hidden_act)));
    o->layer_norm_eps = 1e-6; /* hard-coded in Qwen2VisionTransformer */
    return TS_OK;
}

static ts_status read_qwen2_5_vl_vision(const ts_json_reader *r, const cJSON *v, ts_vision_config *o)
{
    TRY(ts_json_string(r, v, "model_type", "qwen2_5_vl", o->model_type, sizeof(o->model_type)));
    TRY(read_dim(r, v, "depth", REQUIRED, &o->depth));
    TRY(read_dim(r, v, "hidden_size", REQUIRED, &o->hidden_size));
    TRY(read_dim(r, v, "intermediate_size", REQUIRED, &o->intermediate_size));
    TRY(read_dim(r, v, "num_heads", REQUIRED, &o->num_heads));
    TRY(read_dim(r, v, "out_hidden_size", REQUIRED, &o->out_hidden_size));
    TRY(read_dim(r, v, "window_size", 112, &o->window_size));
    /* Qwen2_5_VLVisionConfig default; scales the temporal M-RoPE ids (reference-semantics §5.3). */
    TRY(read_dim(r, v, "tokens_per_second", 4, &o->tokens_per_second));
    TRY(ts_json_int_list(r, v, "fullatt_block_indexes", false, o->fullatt_block_indexes, 16,
                         &o->n_fullatt_block_indexes));
    TRY(ts_json_string(r, v, "hidden_act", "silu", o->hidden_act, sizeof(o->hidden_act)));
    o->layer_norm_eps = 1e-6;
    return TS_OK;
}

static ts_status read_qwen3_vl_vision(const ts_json_reader *r, const cJSON *v, const char *type,
                                      ts_vision_config *o)
{
    TRY(ts_json_string(r, v, "model_type", type, o->model_type, sizeof(o->model_type)));
    TRY(read_dim(r, v, "depth", REQUIRED, &o->depth));
    TRY(read_dim(r, v, "hidden_size", REQUIRED, &o->hidden_size));
    TRY(read_dim(r, v, "intermediate_size", REQUIRED, &o->intermediate_size));
    TRY(read_dim(r, v, "num_heads", REQUIRED, &o->num_heads));
    TRY(read_dim(r, v, "out_hidden_size", REQUIRED, &o->out_hidden_size));
    TRY(read_dim(r, v, "num_position_embeddings", REQUIRED, &o->num_position_embeddings));
    TRY(ts_json_int_list(r, v, "deepstack_visual_indexes", false, o->deepstack_visual_indexes, 16,
                         &o->n_deepstack_visual_indexes));
    TRY(ts_json_string(r, v, "hidden_act", "gelu_pytorch_tanh", o->hidden_act, sizeof(o->hidden_act)));
    o->layer_norm_eps = 1e-6;
    return TS_OK;
}

/* The parts every Qwen-VL tower shares: patching and merging. */
static ts_status read_qwen_patching(const ts_json_reader *r, const cJSON *v, int64_t patch,
                                    ts_vision_config *o)
{
    TRY(read_dim(r, v, "patch_size", patch, &o->patch_size));
    TRY(read_dim(r, v, "temporal_patch_size", 2, &o->temporal_patch_size));
    TRY(read_dim(r, v, "spatial_merge_size", 2, &o->spatial_merge_size));
    int64_t in_chans;
    TRY(read_dim(r, v, "in_chans", 3, &in_chans)); /* the older spelling */
    TRY(read_dim(r, v, "in_channels", in_chans, &o->in_channels));
    return TS_OK;
}

/* CLIPVisionConfig / SiglipVisionConfig, as used by LLaVA and Gemma3. */
static ts_status read_vit_vision(const ts_json_reader *r, const cJSON *v, ts_family family,
                                 ts_vision_config *o)
{
    TRY(ts_json_string(r, v, "model_type", "clip_vision_model", o->model_type, sizeof(o->model_type)));
    bool clip = strcmp(o->model_type, "clip_vision_model") == 0;
    bool siglip = strcmp(o->model_type, "siglip_vision_model") == 0;
    if ((!clip && !siglip) || (clip && family == TS_FAMILY_GEMMA3))
        return ts_error_set(r->err, TS_ERR_UNSUPPORTED,
                            "%s: vision_config.model_type \"%s\" is not supported for %s "
                            "(supported: %s)",
                            r->origin, o->model_type, ts_family_name(family),
                            family == TS_FAMILY_GEMMA3 ? "siglip_vision_model"
                                                       : "clip_vision_model, siglip_vision_model");
    TRY(read_dim(r, v, "hidden_size", 768, &o->hidden_size));
    TRY(read_dim(r, v, "intermediate_size", 3072, &o->intermediate_size));
    TRY(read_dim(r, v, "num_hidden_layers", 12, &o->depth));
    TRY(read_dim(r, v, "num_attention_heads", 12, &o->num_heads));
    TRY(read_dim(r, v, "num_channels", 3, &o->in_channels));
    TRY(read_dim(r, v, "image_size", 224, &o->image_size));
    TRY(read_dim(r, v, "patch_size", clip ? 32 : 16, &o->patch_size));
    TRY(ts_json_string(r, v, "hidden_act", clip ? "quick_gelu" : "gelu_pytorch_tanh", o->hidden_act,
                       sizeof(o->hidden_act)));
    TRY(ts_json_double(r, v, "layer_norm_eps", clip ? 1e-5 : 1e-6, &o->layer_norm_eps));
    if (o->image_size % o->patch_size != 0)
        return ts_error_set(r->err, TS_ERR_RANGE,
                            "%s: vision_config.image_size %lld is not a multiple of patch_size %lld",
                            r->origin, (long long)o->image_size, (long long)o->patch_size);
    return TS_OK;
}

static ts_status read_vision(const reader *rd, const cJSON *v, ts_family family,
                             const ts_text_config *text, ts_vision_config *o)
{
    const ts_json_reader *r = &rd->vision;
    if (!cJSON_IsObject(v)) return ts_json_wrong_type(&rd->top, "vision_config", "an object");
    switch (family) {
    case TS_FAMILY_QWEN2_VL:
        TRY(read_qwen2_vl_vision(r, v, o));
        TRY(read_qwen_patching(r, v, 14, o));
        break;
    case TS_FAMILY_QWEN2_5_VL:
        TRY(read_qwen2_5_vl_vision(r, v, o));
        TRY(read_qwen_patching(r, v, 14, o));
        break;
    case TS_FAMILY_QWEN3_VL:
    case TS_FAMILY_QWEN3_VL_MOE:
        TRY(read_qwen3_vl_vision(r, v, family == TS_FAMILY_QWEN3_VL ? "qwen3_vl" : "qwen3_vl_moe", o));
        TRY(read_qwen_patching(r, v, 16, o));
        break;
    case TS_FAMILY_LLAVA:
    case TS_FAMILY_GEMMA3:
        TRY(read_vit_vision(r, v, family, o));
        o->out_hidden_size = text->hidden_size;
        break;
    default:
        return ts_error_set(rd->top.err, TS_ERR_UNSUPPORTED, "%s: vision_config is not supported for %s",
                            rd->top.origin, ts_family_name(family));
    }
    if (o->hidden_size % o->num_heads != 0)
        return ts_error_set(r->err, TS_ERR_RANGE,
                            "%s: vision_config.hidden_size %lld is not a multiple of the %lld heads",
                            r->origin, (long long)o->hidden_size, (long long)o->num_heads);
    for (int i = 0; i < o->n_fullatt_block_indexes; i++)
        if (o->fullatt_block_indexes[i] < 0 || o->fullatt_block_indexes[i] >= o->depth)
            return ts_error_set(r->err, TS_ERR_RANGE,
                                "%s: vision_config.fullatt_block_indexes[%d] = %lld is outside the "
                                "%lld blocks",
                                r->origin, i, (long long)o->fullatt_block_indexes[i], (long long)o->depth);
    for (int i = 0; i < o->n_deepstack_visual_indexes; i++)
        if (o->deepstack_visual_indexes[i] < 0 || o->deepstack_visual_indexes[i] >= o->depth)
            return ts_error_set(r->err, TS_ERR_RANGE,
                                "%s: vision_config.deepstack_visual_indexes[%d] = %lld is outside the "
                                "%lld blocks",
                                r->origin, i, (long long)o->deepstack_visual_indexes[i], (long long)o->depth);
    return TS_OK;
}

/* ------------------------------------------------------------------ top level */

typedef struct family_entry {
    const char *model_type;
    ts_family family;
    const text_defaults *text;
    bool nested; /* LM keys under text_config */
    bool vision; /* has a vision tower (vision_config required) */
} family_entry;

static const family_entry families[] = {
    {"qwen2", TS_FAMILY_QWEN2, &qwen2_text, false, false},
    {"qwen3", TS_FAMILY_QWEN3, &qwen3_text, false, false},
    {"llama", TS_FAMILY_LLAMA, &llama_text, false, false},
    {"qwen2_vl", TS_FAMILY_QWEN2_VL, &qwen2_vl_text, false, true},
    {"qwen2_5_vl", TS_FAMILY_QWEN2_5_VL, &qwen2_5_vl_text, false, true},
    {"qwen3_vl", TS_FAMILY_QWEN3_VL, &qwen3_vl_text, true, true},
    {"qwen3_vl_moe", TS_FAMILY_QWEN3_VL_MOE, &qwen3_vl_moe_text, true, true},
    {"llava", TS_FAMILY_LLAVA, &llava_llama_text, true, true},
    {"gemma3", TS_FAMILY_GEMMA3, &gemma3_text, true, true},
    {"gemma3_text", TS_FAMILY_GEMMA3, &gemma3_text, false, false},
};

/* Token ids live at the top level in some families and in text_config in others; the top level
 * wins when both speak (Gemma3 lists two EOS ids there, one in text_config). */
static ts_status read_special_ids(const reader *rd, const cJSON *root, const cJSON *text,
                                  ts_model_config *c)
{
    TRY(ts_json_int(&rd->text, text, "bos_token_id", -1, &c->bos_token_id));
    TRY(ts_json_int(&rd->top, root, "bos_token_id", c->bos_token_id, &c->bos_token_id));
    TRY(ts_json_int(&rd->text, text, "pad_token_id", -1, &c->pad_token_id));
    TRY(ts_json_int(&rd->top, root, "pad_token_id", c->pad_token_id, &c->pad_token_id));
    const ts_json_reader *r = ts_json_absent(root, "eos_token_id") ? &rd->text : &rd->top;
    const cJSON *from = ts_json_absent(root, "eos_token_id") ? text : root;
    return ts_json_int_list(r, from, "eos_token_id", true, c->eos_token_ids, 8, &c->n_eos_token_ids);
}

static ts_status read_multimodal_ids(const reader *rd, const cJSON *root, ts_model_config *c)
{
    const ts_json_reader *r = &rd->top;
    switch (c->family) {
    case TS_FAMILY_QWEN2_VL:
    case TS_FAMILY_QWEN2_5_VL:
    case TS_FAMILY_QWEN3_VL:
    case TS_FAMILY_QWEN3_VL_MOE:
        TRY(ts_json_int(r, root, "image_token_id", 151655, &c->image_token_id));
        TRY(ts_json_int(r, root, "video_token_id", 151656, &c->video_token_id));
        TRY(ts_json_int(r, root, "vision_start_token_id", 151652, &c->vision_start_token_id));
        TRY(ts_json_int(r, root, "vision_end_token_id", 151653, &c->vision_end_token_id));
        break;
    case TS_FAMILY_LLAVA:
        TRY(ts_json_int(r, root, "image_token_index", 32000, &c->image_token_id));
        TRY(ts_json_int(r, root, "image_token_id", c->image_token_id, &c->image_token_id));
        if (cJSON_IsArray(ts_json_member(root, "vision_feature_layer")))
            return ts_error_set(r->err, TS_ERR_UNSUPPORTED,
                                "%s: vision_feature_layer: a list of layers is not supported",
                                r->origin);
        TRY(ts_json_int(r, root, "vision_feature_layer", -2, &c->vision_feature_layer));
        TRY(ts_json_string(r, root, "vision_feature_select_strategy", "default",
                           c->vision_feature_select_strategy, sizeof(c->vision_feature_select_strategy)));
        if (strcmp(c->vision_feature_select_strategy, "default") != 0 &&
            strcmp(c->vision_feature_select_strategy, "full") != 0)
            return ts_error_set(r->err, TS_ERR_UNSUPPORTED,
                                "%s: vision_feature_select_strategy \"%s\" is not supported "
                                "(supported: default, full)",
                                r->origin, c->vision_feature_select_strategy);
        /* A layer index counts from the embeddings (0) to the last block (depth). */
        if (c->vision_feature_layer < -(c->vision.depth + 1) || c->vision_feature_layer > c->vision.depth)
            return ts_error_set(r->err, TS_ERR_RANGE,
                                "%s: vision_feature_layer %lld is outside the %lld-block tower",
                                r->origin, (long long)c->vision_feature_layer,
                                (long long)c->vision.depth);
        TRY(ts_json_string(r, root, "projector_hidden_act", "gelu", c->projector_hidden_act,
                           sizeof(c->projector_hidden_act)));
        break;
    case TS_FAMILY_GEMMA3:
        TRY(ts_json_int(r, root, "image_token_index", 262144, &c->image_token_id));
        TRY(ts_json_int(r, root, "image_token_id", c->image_token_id, &c->image_token_id));
        TRY(ts_json_int(r, root, "boi_token_index", 255999, &c->vision_start_token_id));
        TRY(ts_json_int(r, root, "eoi_token_index", 256000, &c->vision_end_token_id));
        TRY(read_dim(r, root, "mm_tokens_per_image", 256, &c->mm_tokens_per_image));
        break;
    default:
        break;
    }
    return TS_OK;
}

static ts_status parse_root(const cJSON *root, const char *origin, ts_model_config *c, ts_error *err)
{
    reader rd = {{origin, "", err}, {origin, "", err}, {origin, "vision_config.", err}};
    if (!cJSON_IsObject(root))
        return ts_error_set(err, TS_ERR_FORMAT, "%s: expected a JSON object at the top level", origin);
    if (ts_json_absent(root, "model_type")) return ts_json_missing(&rd.top, "model_type");
    TRY(ts_json_string(&rd.top, root, "model_type", "", c->model_type, sizeof(c->model_type)));
    const family_entry *fe = NULL;
    for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
        if (strcmp(families[i].model_type, c->model_type) == 0) fe = &families[i];
    if (!fe)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "%s: model_type \"%s\" is not supported (supported: " SUPPORTED_TYPES ")",
                            origin, c->model_type);
    c->family = fe->family;
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
    /* Newer transformers save Qwen2-VL/2.5-VL with a text_config beside (or instead of) the
     * published flat keys; read it when the flat keys are not there. */
    bool qwen_flat_vl = fe->family == TS_FAMILY_QWEN2_VL || fe->family == TS_FAMILY_QWEN2_5_VL;
    if (qwen_flat_vl && ts_json_absent(root, "hidden_size") &&
        cJSON_IsObject(ts_json_member(root, "text_config"))) {
        text = ts_json_member(root, "text_config");
        rd.text.prefix = "text_config.";
    }
    if (fe->nested) {
        text = ts_json_member(root, "text_config");
        if (!text) {
            /* LLaVA and Gemma3 fall back to an all-default text config, as transformers does;
             * the Qwen3-VL families have no usable defaults. */
            if (fe->family == TS_FAMILY_QWEN3_VL || fe->family == TS_FAMILY_QWEN3_VL_MOE)
                return ts_json_missing(&rd.top, "text_config");
            text = NULL;
        } else if (!cJSON_IsObject(text)) {
            return ts_json_wrong_type(&rd.top, "text_config", "an object");
        }
        rd.text.prefix = "text_config.";
    }
    const text_defaults *defaults = fe->text;
    if (fe->family == TS_FAMILY_LLAVA && text) {
        const cJSON *tm = ts_json_member(text, "model_type");
        if (tm && (!cJSON_IsString(tm) || strcmp(tm->valuestring, "llama") != 0))
            return ts_error_set(err, TS_ERR_UNSUPPORTED,
                                "%s: text_config.model_type %s%s%s is not supported for llava "
                                "(supported: llama)",
                                origin, cJSON_IsString(tm) ? "\"" : "",
                                cJSON_IsString(tm) ? tm->valuestring : "(not a string)",
                                cJSON_IsString(tm) ? "\"" : "");
    }
    TRY(read_text(&rd, root, text, defaults, fe->family, &c->text));
    TRY(read_special_ids(&rd, root, text, c));

    c->modalities = TS_MODALITY_TEXT;
    const cJSON *vision = ts_json_member(root, "vision_config");
    if (fe->vision) {
        if (!vision) return ts_json_missing(&rd.top, "vision_config");
        TRY(read_vision(&rd, vision, fe->family, &c->text, &c->vision));
        c->has_vision = true;
        c->modalities |= TS_MODALITY_IMAGE;
    }
    return read_multimodal_ids(&rd, root, c);
}

ts_status ts_model_config_parse(const char *json, size_t len, const char *origin,
                                ts_model_config *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    out->image_token_id = out->video_token_id = -1;
    out->vision_start_token_id = out->vision_end_token_id = -1;
    out->bos_token_id = out->pad_token_id = -1;
    cJSON *root = NULL;
    TRY(ts_json_parse_text(json, len, origin, &root, err));
    ts_status st = parse_root(root, origin, out, err);
    cJSON_Delete(root);
    return st;
}

ts_status ts_model_config_load(const char *dir, ts_model_config *out, ts_error *err)
{
    char path[4096];
    TRY(ts_path_join(path, sizeof(path), dir, "config.json", err));
    char *text = NULL;
    size_t len = 0;
    TRY(ts_file_read(path, &text, &len, err));
    ts_status st = ts_model_config_parse(text, len, path, out, err);
    free(text);
    return st;
}
