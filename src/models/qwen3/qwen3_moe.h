/* qwen3_moe.h — the sparse MoE block of the Qwen3 MoE families (Qwen3-MoE, Qwen3-VL-MoE): its
 * config keys and decoder options.
 *
 * A layer's MLP is the MoE block unless the layer is in mlp_only_layers or
 * (layer + 1) % decoder_sparse_step != 0 (Qwen3MoeDecoderLayer); those run a dense MLP of
 * intermediate_size.
 */
#ifndef TS_MODELS_QWEN3_MOE_H
#define TS_MODELS_QWEN3_MOE_H

#include "models/family.h"

/* The config class's defaults for the MoE keys. */
typedef struct ts_qwen3_moe_defaults {
    int64_t experts, experts_per_token, moe_inter;
    bool norm_topk_prob;
} ts_qwen3_moe_defaults;

ts_status ts_qwen3_read_moe(const ts_json_reader *r, const cJSON *text,
                            const ts_qwen3_moe_defaults *d, ts_text_config *t);
/* experts, per token, expert width, which layers are dense; always_normalize: the router
 * renormalises the top-k whatever norm_topk_prob says. */
ts_status ts_qwen3_moe_decoder(const ts_model_config *cfg, bool always_normalize,
                               ts_decoder_spec *spec, ts_error *err);

#endif
