/* qwen3.c — the Qwen3 family (Qwen3ForCausalLM): RMSNorm over head_dim on q and k, no biases. */
#include "models/family.h"

/* Qwen3Config (head_dim defaults to 128 there, not hidden / heads) */
static const ts_text_defaults qwen3_text = {"qwen3",
                                            TS_CONFIG_REQUIRED,
                                            TS_CONFIG_REQUIRED,
                                            TS_CONFIG_REQUIRED,
                                            TS_CONFIG_REQUIRED,
                                            TS_CONFIG_REQUIRED,
                                            TS_CONFIG_REQUIRED,
                                            128,
                                            32768,
                                            1e-6,
                                            10000.0,
                                            "silu",
                                            false,
                                            false,
                                            false};

static ts_status decoder(const ts_model_config *cfg, ts_decoder_spec *spec, ts_error *err)
{
    (void)cfg, (void)err;
    spec->qk_norm = true;
    return TS_OK;
}

const ts_family_desc ts_qwen3_family = {
    .name = "qwen3",
    .layouts = (const ts_config_layout[]){{"qwen3", &qwen3_text, 0}, {NULL, NULL, 0}},
    .decoder = decoder,
};
