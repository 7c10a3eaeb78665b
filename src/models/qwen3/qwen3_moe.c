/* qwen3_moe.c — the Qwen3-MoE family (Qwen3MoeForCausalLM): Qwen3's layers with the sparse MoE
 * block as the MLP, and the MoE config keys and decoder options it shares with Qwen3-VL-MoE.
 * Its checkpoints store one gate/up/down matrix per expert; the decoder's MoE op takes them
 * stacked ([E, H, 2·I] gate then up, [E, I, H] down), so the family derives those tensors once at
 * load (derive_weight).
 */
#include "models/qwen3/qwen3_moe.h"
#include "base/error.h"
#include "loader/config_keys.h"
#include "models/qwen2/qwen2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ts_status ts_qwen3_read_moe(const ts_json_reader *r, const cJSON *text,
                            const ts_qwen3_moe_defaults *d, ts_text_config *t)
{
    TS_TRY(ts_json_int(r, text, "num_experts", d->experts, &t->num_experts));
    TS_TRY(
        ts_json_int(r, text, "num_experts_per_tok", d->experts_per_token, &t->num_experts_per_tok));
    TS_TRY(ts_json_int(r, text, "moe_intermediate_size", d->moe_inter, &t->moe_intermediate_size));
    TS_TRY(ts_json_bool(r, text, "norm_topk_prob", d->norm_topk_prob, &t->norm_topk_prob));
    if (t->num_experts <= 0 || t->num_experts_per_tok <= 0 ||
        t->num_experts_per_tok > t->num_experts)
        return ts_error_set(
            r->err, TS_ERR_RANGE, "%s: %snum_experts_per_tok %lld must be in 1..num_experts (%lld)",
            r->origin, r->prefix, (long long)t->num_experts_per_tok, (long long)t->num_experts);
    TS_TRY(ts_json_int(r, text, "decoder_sparse_step", 1, &t->decoder_sparse_step));
    if (t->decoder_sparse_step < 1)
        return ts_error_set(r->err, TS_ERR_RANGE, "%s: %sdecoder_sparse_step %lld, expected ≥ 1",
                            r->origin, r->prefix, (long long)t->decoder_sparse_step);
    int cap = (int)(sizeof(t->mlp_only_layers) / sizeof(t->mlp_only_layers[0]));
    TS_TRY(ts_json_int_list(r, text, "mlp_only_layers", false, t->mlp_only_layers, cap,
                            &t->n_mlp_only_layers));
    for (int i = 0; i < t->n_mlp_only_layers; i++)
        if (t->mlp_only_layers[i] < 0 || t->mlp_only_layers[i] >= t->num_hidden_layers)
            return ts_error_set(r->err, TS_ERR_RANGE,
                                "%s: %smlp_only_layers[%d] = %lld is outside the %lld layers",
                                r->origin, r->prefix, i, (long long)t->mlp_only_layers[i],
                                (long long)t->num_hidden_layers);
    return TS_OK;
}

ts_status ts_qwen3_moe_decoder(const ts_model_config *cfg, bool always_normalize,
                               ts_decoder_spec *spec, ts_error *err)
{
    const ts_text_config *t = &cfg->text;
    spec->qk_norm = true;
    spec->experts = t->num_experts;
    spec->experts_per_token = t->num_experts_per_tok;
    spec->moe_inter = t->moe_intermediate_size;
    spec->norm_topk_prob = always_normalize || t->norm_topk_prob;
    if (spec->experts < 1 || spec->experts_per_token < 1 ||
        spec->experts_per_token > spec->experts || spec->experts_per_token > 64 ||
        spec->moe_inter < 1)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "config.json: %lld experts, %lld per token, moe_intermediate_size %lld "
                            "(1 ≤ per token ≤ min(64, experts))",
                            (long long)spec->experts, (long long)spec->experts_per_token,
                            (long long)spec->moe_inter);
    int64_t step = t->decoder_sparse_step > 0 ? t->decoder_sparse_step : 1;
    int max_layers = (int)(sizeof(spec->dense_mlp) / sizeof(spec->dense_mlp[0]));
    for (int64_t l = 0; l < t->num_hidden_layers && l < max_layers; l++)
        spec->dense_mlp[l] = (l + 1) % step != 0;
    for (int i = 0; i < t->n_mlp_only_layers; i++)
        if (t->mlp_only_layers[i] >= 0 && t->mlp_only_layers[i] < max_layers)
            spec->dense_mlp[t->mlp_only_layers[i]] = true;
    return TS_OK;
}

/* Qwen3MoeConfig: published files state their dims; head_dim defaults to hidden / heads. */
static const ts_text_defaults qwen3_moe_text = {"qwen3_moe",
                                                TS_CONFIG_REQUIRED,
                                                TS_CONFIG_REQUIRED,
                                                TS_CONFIG_REQUIRED,
                                                TS_CONFIG_REQUIRED,
                                                TS_CONFIG_REQUIRED,
                                                TS_CONFIG_REQUIRED,
                                                0,
                                                32768,
                                                1e-6,
                                                10000.0,
                                                "silu",
                                                false,
                                                false,
                                                false};
static const ts_qwen3_moe_defaults qwen3_moe_keys = {128, 8, 768, false};

static ts_status read_text(const ts_json_reader *r, const cJSON *text, ts_text_config *t)
{
    TS_TRY(ts_qwen2_reject_sliding(r, text));
    return ts_qwen3_read_moe(r, text, &qwen3_moe_keys, t);
}

static ts_status decoder(const ts_model_config *cfg, ts_decoder_spec *spec, ts_error *err)
{
    return ts_qwen3_moe_decoder(cfg, false, spec, err);
}

/* One expert matrix, checked: 2-D, [rows, cols], the dtype of the first one. */
static const ts_tensor_info *expert_matrix(const ts_checkpoint *ckpt, const char *prefix, int64_t e,
                                           const char *which, int64_t rows, int64_t cols,
                                           ts_dtype dtype)
{
    char name[512];
    int n = snprintf(name, sizeof(name), "%s.%lld.%s.weight", prefix, (long long)e, which);
    if (n < 0 || (size_t)n >= sizeof(name))
        return NULL; /* a name this long is in no checkpoint */
    const ts_tensor_info *t = ts_checkpoint_find(ckpt, name);
    if (!t || t->n_dims != 2 || (rows && t->shape[0] != rows) || (cols && t->shape[1] != cols) ||
        (e && t->dtype != dtype))
        return NULL;
    return t;
}

/* Stacked [E, H, 2·I] (gate columns then up) or [E, I, H] from experts.e.{gate,up,down}_proj
 * ([I, H], [I, H], [H, I]): each expert's matrices transposed into place, in their dtype. */
static bool derive_weight(const ts_checkpoint *ckpt, const ts_model_config *cfg, const char *name,
                          ts_tensor_info *info, void **data)
{
    (void)cfg;
    static const char gate_up_tail[] = ".gate_up_proj", down_tail[] = ".down_proj";
    size_t len = strlen(name);
    bool gate_up = len > sizeof(gate_up_tail) &&
                   strcmp(name + len - (sizeof(gate_up_tail) - 1), gate_up_tail) == 0;
    bool down =
        len > sizeof(down_tail) && strcmp(name + len - (sizeof(down_tail) - 1), down_tail) == 0;
    if (!gate_up && !down) return false;
    char prefix[512]; /* "….mlp.experts" */
    size_t plen = len - (gate_up ? sizeof(gate_up_tail) : sizeof(down_tail)) + 1;
    if (plen >= sizeof(prefix)) return false;
    memcpy(prefix, name, plen), prefix[plen] = '\0';
    const ts_tensor_info *first =
        expert_matrix(ckpt, prefix, 0, gate_up ? "gate_proj" : "down_proj", 0, 0, TS_DTYPE_F32);
    if (!first) return false;
    int64_t E = 0;
    while (E < 4096 && expert_matrix(ckpt, prefix, E, gate_up ? "gate_proj" : "down_proj",
                                     first->shape[0], first->shape[1], first->dtype))
        E++;
    int64_t I = gate_up ? first->shape[0] : first->shape[1],
            H = gate_up ? first->shape[1] : first->shape[0];
    size_t es = ts_dtype_size(first->dtype), cols = gate_up ? (size_t)(2 * I) : (size_t)H,
           rows = gate_up ? (size_t)H : (size_t)I;
    uint8_t *out = malloc((size_t)E * rows * cols * es);
    if (!out) return false;
    for (int64_t e = 0; e < E; e++) {
        const ts_tensor_info *parts[2] = {
            expert_matrix(ckpt, prefix, e, gate_up ? "gate_proj" : "down_proj", first->shape[0],
                          first->shape[1], first->dtype),
            gate_up ? expert_matrix(ckpt, prefix, e, "up_proj", I, H, first->dtype) : NULL};
        if (!parts[0] || (gate_up && !parts[1])) {
            free(out);
            return false;
        }
        /* out[e][r][c] = part[c / width][c % width][r]: the published [out, in] matrices,
         * transposed. */
        uint8_t *dst = out + (size_t)e * rows * cols * es;
        size_t width = gate_up ? (size_t)I : cols;
        for (size_t c = 0; c < cols; c++) {
            const uint8_t *src = (const uint8_t *)parts[c / width]->data + (c % width) * rows * es;
            for (size_t r = 0; r < rows; r++)
                memcpy(dst + (r * cols + c) * es, src + r * es, es);
        }
    }
    *info = (ts_tensor_info){.dtype = first->dtype,
                             .n_dims = 3,
                             .shape = {E, (int64_t)rows, (int64_t)cols},
                             .data = out,
                             .n_bytes = (size_t)E * rows * cols * es,
                             .file = first->file};
    *data = out;
    return true;
}

const ts_family_desc ts_qwen3_moe_family = {
    .name = "qwen3_moe",
    .layouts = (const ts_config_layout[]){{"qwen3_moe", &qwen3_moe_text, 0}, {NULL, NULL, 0}},
    .read_text = read_text,
    .derive_weight = derive_weight,
    .decoder = decoder,
};
