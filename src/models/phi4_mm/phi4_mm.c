/* phi4_mm.c — the Phi-4-multimodal family (Phi4MultimodalForCausalLM, model_type
 * "phi4_multimodal"): its Phi-3-style language model, its image path (phi4_mm_vision.c: the HD
 * processor, the SigLIP tower per view, pooling, HD layout and projector; <|image|> expanded by
 * repetition, the REPEAT rule), its audio path (phi4_mm_audio.c: the Conformer encoder,
 * <|audio|> expanded by repetition) and its LoRA adapters (phi4_lora.c).
 *
 * The language model (Phi4MultimodalModel) is a Llama-style decoder whose checkpoints fuse two
 * pairs of projections: self_attn.qkv_proj [(Hq + 2·Hkv)·D, H] (q rows, then k, then v) and
 * mlp.gate_up_proj [2·I, H] (gate rows, then up: `gate, up = x.chunk(2)`). The shared decoder
 * names the parts; derive_weight answers with views of the fused tensor's rows (no copy: each
 * part is a contiguous run of rows of the [out, in] matrix). Rotary: partial (partial_rotary_
 * factor, the first rotary_dim channels of a head, rotate_half within them) with longrope's short
 * factors and attention factor (src/models/decoder.c), its long factors for sequences past
 * original_max_position_embeddings (the engine's switch: src/engine/model.c), up to
 * max_position_embeddings. */
#include "base/error.h"
#include "loader/config_keys.h"
#include "models/family.h"
#include "models/phi4_mm/phi4_lora.h"
#include "models/phi4_mm/phi4_mm_audio.h"
#include "models/phi4_mm/phi4_mm_vision.h"

#include <stdio.h>
#include <string.h>

/* Phi4MultimodalConfig (transformers 5.23): flat text keys; no biases anywhere in the decoder. */
static const ts_text_defaults phi4_mm_text = {
    .model_type = "phi4_multimodal",
    .vocab_size = 200064,
    .hidden_size = 3072,
    .intermediate_size = 8192,
    .num_hidden_layers = 32,
    .num_attention_heads = 32,
    .num_key_value_heads = 8,
    .head_dim = 0,
    .max_position_embeddings = 131072,
    .rms_norm_eps = 1e-5,
    .rope_theta = 10000.0,
    .hidden_act = "silu",
    .tie_word_embeddings = false,
    .attention_bias = false,
    .attention_bias_fixed = true,
};

/* Phi4MultimodalConfig.original_max_position_embeddings when the file states none. */
#define PHI4_MM_ORIGINAL_MAX_POSITIONS 4096

static ts_status read_text(const ts_json_reader *r, const cJSON *text, ts_text_config *t)
{
    if (strcmp(t->rope_type, "default") != 0 && strcmp(t->rope_type, "longrope") != 0)
        return ts_error_set(r->err, TS_ERR_UNSUPPORTED,
                            "%s: %srope_scaling type \"%s\" (Phi4MultimodalConfig takes default or "
                            "longrope)",
                            r->origin, r->prefix, t->rope_type);
    if (strcmp(t->rope_type, "longrope") == 0 && t->rope_original_max_position == 0)
        t->rope_original_max_position = PHI4_MM_ORIGINAL_MAX_POSITIONS;
    /* A sliding window as long as the context is no window (the published file: 262144 for
     * 131072 positions); a shorter one would mask, which this family does not build. */
    int64_t window = 0;
    if (!ts_json_absent(text, "sliding_window") &&
        !cJSON_IsNull(ts_json_member(text, "sliding_window")))
        TS_TRY(ts_json_int(r, text, "sliding_window", 0, &window));
    if (window > 0 && window < t->max_position_embeddings)
        return ts_error_set(r->err, TS_ERR_UNSUPPORTED,
                            "%s: %ssliding_window %lld is shorter than max_position_embeddings "
                            "%lld (a sliding-window Phi-4 decoder is not built)",
                            r->origin, r->prefix, (long long)window,
                            (long long)t->max_position_embeddings);
    return TS_OK;
}

/* vision_config as Phi4MultimodalConfig reads it: absent, the class defaults (the tower is part of
 * every checkpoint of the class); then audio_config (phi4_mm_audio.c). */
static ts_status read_media_ids(const ts_json_reader *r, const cJSON *root, ts_model_config *c)
{
    const cJSON *vision = ts_json_member(root, "vision_config");
    cJSON *empty = vision ? NULL : cJSON_CreateObject();
    if (!vision && !empty) return ts_error_set(r->err, TS_ERR_OUT_OF_MEMORY, "%s: out of memory", r->origin);
    ts_json_reader vr = {r->origin, "vision_config.", r->err};
    ts_status st = vision && !cJSON_IsObject(vision) ? ts_json_wrong_type(r, "vision_config", "an object")
                                                     : ts_phi4_mm_read_vision(&vr, vision ? vision : empty, c);
    cJSON_Delete(empty);
    if (st != TS_OK) return st;
    c->has_vision = true;
    c->modalities |= TS_MODALITY_IMAGE;
    return ts_phi4_mm_read_media_ids(r, root, c);
}

static ts_status decoder(const ts_model_config *cfg, ts_decoder_spec *spec, ts_error *err)
{
    (void)cfg, (void)err;
    spec->qkv_bias = false;
    return TS_OK;
}

/* "….layers.N.<tail>" with the given tail: the prefix up to ".layers.N." copied into out. */
static bool split_name(const char *name, const char *tail, char *out, size_t cap)
{
    size_t len = strlen(name), tlen = strlen(tail);
    if (len <= tlen || strcmp(name + len - tlen, tail) != 0 || len - tlen >= cap) return false;
    memcpy(out, name, len - tlen);
    out[len - tlen] = '\0';
    return true;
}

/* Rows [row0, row0 + rows) of the fused [out, in] matrix `fused_tail` beside `name`, as a view. */
static bool row_view(const ts_checkpoint *ckpt, const char *prefix, const char *fused_tail,
                     int64_t out_rows, int64_t row0, int64_t rows, ts_tensor_info *info)
{
    char fused[512];
    int n = snprintf(fused, sizeof(fused), "%s%s", prefix, fused_tail);
    if (n < 0 || (size_t)n >= sizeof(fused)) return false;
    const ts_tensor_info *t = ts_checkpoint_find(ckpt, fused);
    if (!t || t->n_dims != 2 || (out_rows && t->shape[0] != out_rows) || row0 < 0 || rows < 1 ||
        row0 + rows > t->shape[0])
        return false;
    size_t row_bytes = (size_t)t->shape[1] * ts_dtype_size(t->dtype);
    *info = (ts_tensor_info){.dtype = t->dtype,
                             .n_dims = 2,
                             .shape = {rows, t->shape[1]},
                             .data = (const uint8_t *)t->data + (size_t)row0 * row_bytes,
                             .n_bytes = (size_t)rows * row_bytes,
                             .file = t->file};
    return true;
}

/* q/k/v_proj from qkv_proj, gate/up_proj from gate_up_proj: views (data stays NULL: nothing to
 * free). The split follows the config's heads and head size, as Phi4MultimodalAttention slices. */
static bool derive_weight(const ts_checkpoint *ckpt, const ts_model_config *cfg, const char *name,
                          ts_tensor_info *info, void **data)
{
    *data = NULL;
    const ts_text_config *t = &cfg->text;
    int64_t D = t->head_dim ? t->head_dim : t->hidden_size / t->num_attention_heads;
    int64_t q = t->num_attention_heads * D, kv = t->num_key_value_heads * D,
            inter = t->intermediate_size;
    static const struct {
        const char *tail, *fused;
        int which;
    } parts[] = {
        {"self_attn.q_proj.weight", "self_attn.qkv_proj.weight", 0},
        {"self_attn.k_proj.weight", "self_attn.qkv_proj.weight", 1},
        {"self_attn.v_proj.weight", "self_attn.qkv_proj.weight", 2},
        {"mlp.gate_proj.weight", "mlp.gate_up_proj.weight", 3},
        {"mlp.up_proj.weight", "mlp.gate_up_proj.weight", 4},
    };
    char prefix[512];
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        if (!split_name(name, parts[i].tail, prefix, sizeof(prefix))) continue;
        switch (parts[i].which) {
        case 0: return row_view(ckpt, prefix, parts[i].fused, q + 2 * kv, 0, q, info);
        case 1: return row_view(ckpt, prefix, parts[i].fused, q + 2 * kv, q, kv, info);
        case 2: return row_view(ckpt, prefix, parts[i].fused, q + 2 * kv, q + kv, kv, info);
        case 3: return row_view(ckpt, prefix, parts[i].fused, 2 * inter, 0, inter, info);
        default: return row_view(ckpt, prefix, parts[i].fused, 2 * inter, inter, inter, info);
        }
    }
    return false;
}

const ts_family_desc ts_phi4_mm_family = {
    .name = "phi4_multimodal",
    .layouts = (const ts_config_layout[]){{"phi4_multimodal", &phi4_mm_text, 0}, {NULL, NULL, 0}},
    .read_text = read_text,
    .read_vision = ts_phi4_mm_read_vision,
    .read_media_ids = read_media_ids,
    .derive_weight = derive_weight,
    .decoder = decoder,
    .image_processors = ts_phi4_mm_image_processors,
    .preprocess = ts_phi4_mm_preprocess,
    .tower = &ts_phi4_mm_tower,
    .image_prompt = TS_IMAGE_PROMPT_REPEAT,
    .audio = &ts_phi4_mm_audio_path,
    .lora_adapters = ts_phi4_mm_lora_folders,
    .lora_for_input = ts_phi4_mm_lora_for_input,
    .lora_module = ts_phi4_mm_lora_module,
};
