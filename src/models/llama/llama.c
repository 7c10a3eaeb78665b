/* llama.c — the Llama family (LlamaForCausalLM): biases only where attention_bias says. */
#include "models/family.h"

/* LlamaConfig, stated in full at the top level */
static const ts_text_defaults llama_text = {"llama",
                                            TS_CONFIG_REQUIRED,
                                            TS_CONFIG_REQUIRED,
                                            TS_CONFIG_REQUIRED,
                                            TS_CONFIG_REQUIRED,
                                            TS_CONFIG_REQUIRED,
                                            TS_CONFIG_REQUIRED,
                                            0,
                                            2048,
                                            1e-6,
                                            10000.0,
                                            "silu",
                                            false,
                                            false,
                                            false};

static ts_status decoder(const ts_model_config *cfg, ts_decoder_spec *spec, ts_error *err)
{
    (void)err;
    spec->qkv_bias = cfg->text.attention_bias;
    return TS_OK;
}

const ts_family_desc ts_llama_family = {
    .name = "llama",
    .layouts = (const ts_config_layout[]){{"llama", &llama_text, 0}, {NULL, NULL, 0}},
    .decoder = decoder,
};
