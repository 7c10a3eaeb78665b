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

const ts_family_desc ts_qwen2_family = {
    .name = "qwen2",
    .layouts = (const ts_config_layout[]){{"qwen2", &qwen2_text, 0}, {NULL, NULL, 0}},
    .read_text = read_text,
    .decoder = decoder,
};
