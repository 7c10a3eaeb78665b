/* phi4_lora.c — Phi-4-multimodal's LoRA description (phi4_lora.h): which adapters, which one an
 * input mode runs with, and where each decoder projection sits in the adapters' fused modules.
 * peft wraps Phi4MultimodalAttention.qkv_proj and Phi4MultimodalMLP.gate_up_proj whole, so
 * lora_B has the fused rows: q, k, v (Hq·D, Hkv·D, Hkv·D) and gate, up (I, I). */
#include "models/phi4_mm/phi4_lora.h"

#include <stdio.h>
#include <string.h>

const ts_lora_folder ts_phi4_mm_lora_folders[] = {
    {"speech", "speech-lora"}, {"vision", "vision-lora"}, {NULL, NULL}};

const char *ts_phi4_mm_lora_for_input(unsigned inputs)
{
    if (inputs & TS_INPUT_IMAGE) return "vision";
    if (inputs & TS_INPUT_AUDIO) return "speech";
    return NULL;
}

bool ts_phi4_mm_lora_module(const ts_model_config *cfg, const char *weight, char *module,
                            size_t cap, int64_t *row0, int64_t *rows, int64_t *total_rows)
{
    const ts_text_config *t = &cfg->text;
    int64_t D = t->head_dim ? t->head_dim : t->hidden_size / t->num_attention_heads;
    int64_t q = t->num_attention_heads * D, kv = t->num_key_value_heads * D,
            inter = t->intermediate_size, H = t->hidden_size;
    const struct {
        const char *tail, *module;
        int64_t row0, rows, total;
    } parts[] = {
        {"self_attn.q_proj.weight", "self_attn.qkv_proj", 0, q, q + 2 * kv},
        {"self_attn.k_proj.weight", "self_attn.qkv_proj", q, kv, q + 2 * kv},
        {"self_attn.v_proj.weight", "self_attn.qkv_proj", q + kv, kv, q + 2 * kv},
        {"self_attn.o_proj.weight", "self_attn.o_proj", 0, H, H},
        {"mlp.gate_proj.weight", "mlp.gate_up_proj", 0, inter, 2 * inter},
        {"mlp.up_proj.weight", "mlp.gate_up_proj", inter, inter, 2 * inter},
        {"mlp.down_proj.weight", "mlp.down_proj", 0, H, H},
    };
    size_t len = strlen(weight);
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        size_t tlen = strlen(parts[i].tail);
        if (len <= tlen || strcmp(weight + len - tlen, parts[i].tail) != 0) continue;
        int n = snprintf(module, cap, "%.*s%s", (int)(len - tlen), weight, parts[i].module);
        if (n < 0 || (size_t)n >= cap) return false;
        *row0 = parts[i].row0, *rows = parts[i].rows, *total_rows = parts[i].total;
        return true;
    }
    return false;
}
