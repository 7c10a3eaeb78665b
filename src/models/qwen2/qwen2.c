/* qwen2.c — the Qwen2 family (Qwen2ForCausalLM): Llama's layers with q/k/v biases. */
#include "models/qwen2/qwen2.h"
#include "base/error.h"
#include "loader/config_keys.h"

/* Qwen2Config */
static const ts_text_defaults qwen2_text = {"qwen2",
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
                                            true,
                                            true};

ts_status ts_qwen2_reject_sliding(const ts_json_reader *r, const cJSON *text)
{
    bool use = false;
    TS_TRY(ts_json_bool(r, text, "use_sliding_window", false, &use));
    if (use)
        return ts_error_set(r->err, TS_ERR_UNSUPPORTED,
                            "%s: %suse_sliding_window: true is not supported", r->origin,
                            r->prefix);
    return TS_OK;
}

static ts_status read_text(const ts_json_reader *r, const cJSON *text, ts_text_config *t)
{
    (void)t;
    return ts_qwen2_reject_sliding(r, text);
}

static ts_status decoder(const ts_model_config *cfg, ts_decoder_spec *spec, ts_error *err)
{
    (void)cfg, (void)err;
    spec->qkv_bias = true;
    return TS_OK;
}

/* Benchmark shapes (tessera bench --synthetic ID): the published config.json of each. */
static const ts_synthetic_preset presets[] = {
    {"qwen2.5-0.5b",
     "{\"model_type\":\"qwen2\",\"architectures\":[\"Qwen2ForCausalLM\"],\"hidden_size\":896,"
     "\"intermediate_size\":4864,\"num_hidden_layers\":24,\"num_attention_heads\":14,"
     "\"num_key_value_heads\":2,\"vocab_size\":151936,\"max_position_embeddings\":32768,"
     "\"rms_norm_eps\":1e-06,\"rope_theta\":1000000.0,\"tie_word_embeddings\":true,"
     "\"hidden_act\":\"silu\",\"bos_token_id\":151643,\"eos_token_id\":151645}"},
    {"qwen2-1.5b",
     "{\"model_type\":\"qwen2\",\"architectures\":[\"Qwen2ForCausalLM\"],\"hidden_size\":1536,"
     "\"intermediate_size\":8960,\"num_hidden_layers\":28,\"num_attention_heads\":12,"
     "\"num_key_value_heads\":2,\"vocab_size\":151936,\"max_position_embeddings\":32768,"
     "\"rms_norm_eps\":1e-06,\"rope_theta\":1000000.0,\"tie_word_embeddings\":true,"
     "\"hidden_act\":\"silu\",\"bos_token_id\":151643,\"eos_token_id\":151645}"},
    {NULL, NULL},
};

const ts_family_desc ts_qwen2_family = {
    .name = "qwen2",
    .layouts = (const ts_config_layout[]){{"qwen2", &qwen2_text, 0}, {NULL, NULL, 0}},
    .read_text = read_text,
    .decoder = decoder,
    .presets = presets,
};
