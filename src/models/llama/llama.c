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

/* Benchmark shapes (tessera bench --synthetic ID): the published config.json of each. */
static const ts_synthetic_preset presets[] = {
    {"llama-3.2-1b",
     "{\"model_type\":\"llama\",\"architectures\":[\"LlamaForCausalLM\"],\"hidden_size\":2048,"
     "\"intermediate_size\":8192,\"num_hidden_layers\":16,\"num_attention_heads\":32,"
     "\"num_key_value_heads\":8,\"head_dim\":64,\"vocab_size\":128256,"
     "\"max_position_embeddings\":131072,\"rms_norm_eps\":1e-05,\"rope_theta\":500000.0,"
     "\"rope_scaling\":{\"factor\":32.0,\"high_freq_factor\":4.0,\"low_freq_factor\":1.0,"
     "\"original_max_position_embeddings\":8192,\"rope_type\":\"llama3\"},"
     "\"tie_word_embeddings\":true,\"hidden_act\":\"silu\",\"bos_token_id\":128000,"
     "\"eos_token_id\":[128001,128008,128009]}"},
    {NULL, NULL},
};

const ts_family_desc ts_llama_family = {
    .name = "llama",
    .layouts = (const ts_config_layout[]){{"llama", &llama_text, 0}, {NULL, NULL, 0}},
    .decoder = decoder,
    .presets = presets,
};
