/* model_config_test.c — config.json, generation_config.json and preprocessor_config.json readers.
 *
 * Every fixture folder parses to its family with the numbers written in its files; published
 * layouts the fixtures do not cover (partial LLaVA text_config, minimal Gemma3, rope_parameters,
 * layer_types) are given inline; every error names the file and the key.
 */
#include "check.h"
#include "models/family.h"
#include "tessera.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp_dir[64];

static bool load_fixture(const char *name, ts_model_config *c)
{
    const char *root = getenv("TS_ROOT");
    char dir[512];
    snprintf(dir, sizeof(dir), "%s/tests/fixtures/%s/model", root ? root : ".", name);
    ts_error err = {0};
    ts_status st = ts_model_config_load(dir, c, &err);
    if (st) fprintf(stderr, "%s: %s\n", name, err.message);
    return st == TS_OK;
}

static ts_status parse(const char *json, ts_model_config *c, ts_error *err)
{
    return ts_model_config_parse(json, strlen(json), "cfg.json", c, err);
}

#define EXPECT_PARSE_FAIL(json, status, needle)                                                    \
    do {                                                                                           \
        ts_model_config c_;                                                                        \
        ts_error err_ = {0};                                                                       \
        CHECK_INT_EQ(parse(json, &c_, &err_), status);                                             \
        CHECK_CONTAINS(err_.message, "cfg.json: ");                                                \
        CHECK_CONTAINS(err_.message, needle);                                                      \
    } while (0)

static void check_qwen_lm(const ts_text_config *t)
{
    CHECK_INT_EQ(t->vocab_size, 1344);
    CHECK_INT_EQ(t->hidden_size, 64);
    CHECK_INT_EQ(t->intermediate_size, 160);
    CHECK_INT_EQ(t->num_hidden_layers, 3);
    CHECK_INT_EQ(t->num_attention_heads, 4);
    CHECK_INT_EQ(t->num_key_value_heads, 2);
    CHECK(t->tie_word_embeddings);
}

/* ------------------------------------------------------------------ fixtures */

static void test_text_fixtures(void)
{
    ts_model_config c;
    if (load_fixture("qwen2", &c)) {
        CHECK_STR_EQ(ts_family_name(c.family), "qwen2");
        CHECK_STR_EQ(c.architecture, "Qwen2ForCausalLM");
        check_qwen_lm(&c.text);
        CHECK_INT_EQ(c.text.head_dim, 16);
        CHECK_INT_EQ(c.text.max_position_embeddings, 32768);
        CHECK(c.text.rms_norm_eps == 1e-6);
        CHECK(c.text.rope_theta == 1000000.0);
        CHECK(c.text.attention_bias); /* Qwen2 always has q/k/v biases */
        CHECK_STR_EQ(c.text.rope_type, "default");
        CHECK_STR_EQ(c.text.hidden_act, "silu");
        CHECK_INT_EQ(c.text.sliding_window, 0);
        CHECK_INT_EQ(c.bos_token_id, 1280);
        CHECK_INT_EQ(c.n_eos_token_ids, 1);
        CHECK_INT_EQ(c.eos_token_ids[0], 1282);
        CHECK_INT_EQ(c.modalities, TS_MODALITY_TEXT);
        CHECK(!c.has_vision);
        CHECK_INT_EQ(c.image_token_id, -1);
    }
    if (load_fixture("qwen3", &c)) {
        CHECK_STR_EQ(ts_family_name(c.family), "qwen3");
        check_qwen_lm(&c.text);
        CHECK_INT_EQ(c.text.head_dim, 32);
        CHECK(!c.text.attention_bias);
    }
    if (load_fixture("llama", &c)) {
        CHECK_STR_EQ(ts_family_name(c.family), "llama");
        CHECK_INT_EQ(c.text.num_key_value_heads, 2);
        CHECK_INT_EQ(c.text.head_dim, 16);
        CHECK_INT_EQ(c.text.max_position_embeddings, 131072);
        CHECK(c.text.rms_norm_eps == 1e-5);
        CHECK(c.text.rope_theta == 500000.0);
        CHECK_STR_EQ(c.text.rope_type, "llama3");
        CHECK(c.text.rope_factor == 32.0);
        CHECK(c.text.rope_low_freq_factor == 1.0);
        CHECK(c.text.rope_high_freq_factor == 4.0);
        CHECK_INT_EQ(c.text.rope_original_max_position, 8192);
        CHECK(c.text.tie_word_embeddings);
        CHECK_INT_EQ(c.n_eos_token_ids, 2);
        CHECK_INT_EQ(c.eos_token_ids[0], 1281);
        CHECK_INT_EQ(c.eos_token_ids[1], 1284);
    }
}

static void test_qwen_vl_fixtures(void)
{
    static const char *const qwen2_vl_cases[] = {"qwen2_vl", "qwen2_vl-text-only", "qwen2_vl-two-images"};
    ts_model_config c;
    for (int i = 0; i < 3; i++) {
        if (!load_fixture(qwen2_vl_cases[i], &c)) {
            CHECK(!"qwen2_vl fixture loads");
            continue;
        }
        CHECK_STR_EQ(ts_family_name(c.family), "qwen2_vl");
        check_qwen_lm(&c.text);
        CHECK_INT_EQ(c.text.mrope_section[0], 2);
        CHECK_INT_EQ(c.text.mrope_section[1], 3);
        CHECK_INT_EQ(c.text.mrope_section[2], 3);
        CHECK(!c.text.mrope_interleaved);
        CHECK_STR_EQ(c.text.rope_type, "default"); /* legacy "type": "mrope" */
        CHECK_INT_EQ(c.modalities, TS_MODALITY_TEXT | TS_MODALITY_IMAGE);
        CHECK(c.has_vision);
        /* Qwen2-VL: embed_dim is the tower width, hidden_size the LM width. */
        CHECK_INT_EQ(c.vision.depth, 3);
        CHECK_INT_EQ(c.vision.hidden_size, 48);
        CHECK_INT_EQ(c.vision.intermediate_size, 192);
        CHECK_INT_EQ(c.vision.num_heads, 3);
        CHECK_INT_EQ(c.vision.out_hidden_size, 64);
        CHECK_INT_EQ(c.vision.patch_size, 14);
        CHECK_INT_EQ(c.vision.temporal_patch_size, 2);
        CHECK_INT_EQ(c.vision.spatial_merge_size, 2);
        CHECK_INT_EQ(c.vision.in_channels, 3);
        CHECK_STR_EQ(c.vision.hidden_act, "quick_gelu");
        CHECK_INT_EQ(c.image_token_id, 1292);
        CHECK_INT_EQ(c.video_token_id, 1293);
        CHECK_INT_EQ(c.vision_start_token_id, 1289);
        CHECK_INT_EQ(c.vision_end_token_id, 1290);
    }
    if (load_fixture("qwen2_5_vl", &c)) {
        CHECK_STR_EQ(ts_family_name(c.family), "qwen2_5_vl");
        check_qwen_lm(&c.text);
        CHECK_INT_EQ(c.vision.depth, 4);
        CHECK_INT_EQ(c.vision.hidden_size, 48);
        CHECK_INT_EQ(c.vision.intermediate_size, 96);
        CHECK_INT_EQ(c.vision.out_hidden_size, 64);
        CHECK_INT_EQ(c.vision.window_size, 112);
        CHECK_INT_EQ(c.vision.n_fullatt_block_indexes, 2);
        CHECK_INT_EQ(c.vision.fullatt_block_indexes[0], 1);
        CHECK_INT_EQ(c.vision.fullatt_block_indexes[1], 3);
        CHECK_STR_EQ(c.vision.hidden_act, "silu");
    }
    if (load_fixture("qwen3_vl", &c)) {
        CHECK_STR_EQ(ts_family_name(c.family), "qwen3_vl");
        check_qwen_lm(&c.text);
        CHECK_STR_EQ(c.text.model_type, "qwen3_vl_text");
        CHECK_INT_EQ(c.text.head_dim, 32);
        CHECK_INT_EQ(c.text.max_position_embeddings, 262144);
        CHECK(c.text.rope_theta == 5000000.0);
        CHECK_INT_EQ(c.text.mrope_section[0], 6);
        CHECK_INT_EQ(c.text.mrope_section[1], 5);
        CHECK_INT_EQ(c.text.mrope_section[2], 5);
        CHECK(c.text.mrope_interleaved);
        CHECK_INT_EQ(c.text.num_experts, 0);
        CHECK_INT_EQ(c.vision.n_deepstack_visual_indexes, 2);
        CHECK_INT_EQ(c.vision.deepstack_visual_indexes[0], 1);
        CHECK_INT_EQ(c.vision.deepstack_visual_indexes[1], 2);
        CHECK_INT_EQ(c.vision.num_position_embeddings, 64);
        CHECK_INT_EQ(c.vision.patch_size, 16);
        CHECK_INT_EQ(c.vision.out_hidden_size, 64);
        CHECK_STR_EQ(c.vision.hidden_act, "gelu_pytorch_tanh");
        CHECK_INT_EQ(c.eos_token_ids[0], 1282);
    }
    if (load_fixture("qwen3_vl_moe", &c)) {
        CHECK_STR_EQ(ts_family_name(c.family), "qwen3_vl_moe");
        CHECK_INT_EQ(c.text.num_experts, 4);
        CHECK_INT_EQ(c.text.num_experts_per_tok, 2);
        CHECK_INT_EQ(c.text.moe_intermediate_size, 48);
        CHECK(c.text.norm_topk_prob);
        CHECK_STR_EQ(c.vision.model_type, "qwen3_vl_moe");
        CHECK_INT_EQ(c.text.decoder_sparse_step, 1);
        CHECK_INT_EQ(c.text.n_mlp_only_layers, 0);
    }
    /* Dense layers between sparse ones: layer 3 listed, layers 0 and 2 by the step. */
    if (load_fixture("qwen3_vl_moe-sparse-step", &c)) {
        CHECK_STR_EQ(ts_family_name(c.family), "qwen3_vl_moe");
        CHECK_INT_EQ(c.text.decoder_sparse_step, 2);
        CHECK_INT_EQ(c.text.n_mlp_only_layers, 1);
        CHECK_INT_EQ(c.text.mlp_only_layers[0], 3);
    }
    if (load_fixture("qwen3_moe", &c)) {
        CHECK_STR_EQ(ts_family_name(c.family), "qwen3_moe");
        CHECK_INT_EQ(c.text.num_experts, 4);
        CHECK_INT_EQ(c.text.head_dim, 32);
        CHECK(c.text.norm_topk_prob);
        CHECK(!c.has_vision);
    }
}

static void test_llava_gemma3_fixtures(void)
{
    ts_model_config c;
    if (load_fixture("llava", &c)) {
        CHECK_STR_EQ(ts_family_name(c.family), "llava");
        CHECK_STR_EQ(c.text.model_type, "llama");
        CHECK_INT_EQ(c.text.hidden_size, 64);
        CHECK_INT_EQ(c.text.num_key_value_heads, 4);
        CHECK_INT_EQ(c.text.max_position_embeddings, 4096);
        CHECK(!c.text.tie_word_embeddings);
        CHECK_STR_EQ(c.vision.model_type, "clip_vision_model");
        CHECK_INT_EQ(c.vision.depth, 3);
        CHECK_INT_EQ(c.vision.hidden_size, 48);
        CHECK_INT_EQ(c.vision.num_heads, 3);
        CHECK_INT_EQ(c.vision.image_size, 56);
        CHECK_INT_EQ(c.vision.patch_size, 14);
        CHECK_STR_EQ(c.vision.hidden_act, "quick_gelu");
        CHECK(c.vision.layer_norm_eps == 1e-5);
        CHECK_INT_EQ(c.vision.out_hidden_size, 64);
        CHECK_INT_EQ(c.vision_feature_layer, -2);
        CHECK_STR_EQ(c.vision_feature_select_strategy, "default");
        CHECK_STR_EQ(c.projector_hidden_act, "gelu");
        CHECK_INT_EQ(c.image_token_id, 1283);
        CHECK_INT_EQ(c.bos_token_id, 1281); /* from text_config */
        CHECK_INT_EQ(c.pad_token_id, 1284);
        CHECK_INT_EQ(c.n_eos_token_ids, 1);
        CHECK_INT_EQ(c.eos_token_ids[0], 1282);
    }
    if (load_fixture("llava_siglip", &c)) {
        CHECK_STR_EQ(c.vision.model_type, "siglip_vision_model");
        CHECK_INT_EQ(c.vision_feature_layer, -1);
        CHECK_STR_EQ(c.vision_feature_select_strategy, "full");
        CHECK_STR_EQ(c.vision.hidden_act, "gelu_pytorch_tanh");
    }
    if (load_fixture("gemma3", &c)) {
        CHECK_STR_EQ(ts_family_name(c.family), "gemma3");
        CHECK_STR_EQ(c.text.model_type, "gemma3_text");
        CHECK_INT_EQ(c.text.num_hidden_layers, 4);
        CHECK_INT_EQ(c.text.head_dim, 32);
        CHECK(c.text.query_pre_attn_scalar == 32);
        CHECK_INT_EQ(c.text.sliding_window, 8);
        CHECK_INT_EQ(c.text.sliding_window_pattern, 2);
        CHECK(c.text.rope_theta == 1000000.0);
        CHECK(c.text.rope_local_base_freq == 10000.0);
        CHECK_STR_EQ(c.text.rope_type, "linear");
        CHECK(c.text.rope_factor == 8.0);
        CHECK(c.text.final_logit_softcapping == 0); /* null */
        CHECK_STR_EQ(c.text.hidden_act, "gelu_pytorch_tanh");
        CHECK(c.text.tie_word_embeddings); /* Gemma3 default */
        CHECK_INT_EQ(c.n_eos_token_ids, 2); /* the top level wins over text_config */
        CHECK_INT_EQ(c.eos_token_ids[1], 1286);
        CHECK_INT_EQ(c.bos_token_id, 1282);
        CHECK_INT_EQ(c.image_token_id, 1289);
        CHECK_INT_EQ(c.vision_start_token_id, 1287);
        CHECK_INT_EQ(c.vision_end_token_id, 1288);
        CHECK_INT_EQ(c.mm_tokens_per_image, 4);
        CHECK_STR_EQ(c.vision.model_type, "siglip_vision_model");
        CHECK(c.vision.layer_norm_eps == 1e-6);
    }
}

/* ------------------------------------------------------------------ published layouts */

static void test_published_defaults(void)
{
    ts_model_config c;
    ts_error err = {0};
    /* llava-hf/llava-1.5-7b-hf states only a few text keys; the rest are LlamaConfig defaults. */
    const char *llava =
        "{\"model_type\":\"llava\",\"image_token_index\":32000,\"text_config\":{"
        "\"model_type\":\"llama\",\"max_position_embeddings\":4096,\"rms_norm_eps\":1e-05,"
        "\"vocab_size\":32064},\"vision_config\":{\"model_type\":\"clip_vision_model\","
        "\"hidden_size\":1024,\"image_size\":336,\"intermediate_size\":4096,"
        "\"num_attention_heads\":16,\"num_hidden_layers\":24,\"patch_size\":14,"
        "\"projection_dim\":768},\"vision_feature_layer\":-2}";
    CHECK_INT_EQ(parse(llava, &c, &err), TS_OK);
    CHECK_INT_EQ(c.text.hidden_size, 4096);
    CHECK_INT_EQ(c.text.num_hidden_layers, 32);
    CHECK_INT_EQ(c.text.num_attention_heads, 32);
    CHECK_INT_EQ(c.text.num_key_value_heads, 32);
    CHECK_INT_EQ(c.text.intermediate_size, 11008);
    CHECK_INT_EQ(c.text.vocab_size, 32064);
    CHECK_INT_EQ(c.text.head_dim, 128);
    CHECK_INT_EQ(c.vision.depth, 24);
    CHECK_INT_EQ(c.vision.image_size, 336);
    CHECK_INT_EQ(c.vision.out_hidden_size, 4096);

    /* A text-only Gemma3 with few keys: Gemma3TextConfig defaults fill the rest. */
    const char *gemma = "{\"model_type\":\"gemma3_text\",\"hidden_size\":1152,"
                        "\"num_hidden_layers\":26,\"intermediate_size\":6912}";
    CHECK_INT_EQ(parse(gemma, &c, &err), TS_OK);
    CHECK_STR_EQ(ts_family_name(c.family), "gemma3");
    CHECK(!c.has_vision);
    CHECK_INT_EQ(c.modalities, TS_MODALITY_TEXT);
    CHECK_INT_EQ(c.text.vocab_size, 262208);
    CHECK_INT_EQ(c.text.num_attention_heads, 8);
    CHECK_INT_EQ(c.text.num_key_value_heads, 4);
    CHECK_INT_EQ(c.text.head_dim, 256);
    CHECK_INT_EQ(c.text.sliding_window, 4096);
    CHECK_INT_EQ(c.text.sliding_window_pattern, 6);
    CHECK(c.text.query_pre_attn_scalar == 256);
    CHECK(c.text.rope_local_base_freq == 10000.0);

    /* Qwen2.5-VL as newer transformers save it: LM keys under text_config. */
    const char *nested_qwen =
        "{\"model_type\":\"qwen2_5_vl\",\"text_config\":{\"vocab_size\":100,\"hidden_size\":32,"
        "\"intermediate_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":2,"
        "\"rope_scaling\":{\"type\":\"mrope\",\"mrope_section\":[2,3,3]}},"
        "\"vision_config\":{\"depth\":2,\"hidden_size\":16,\"intermediate_size\":32,"
        "\"num_heads\":2,\"out_hidden_size\":32}}";
    CHECK_INT_EQ(parse(nested_qwen, &c, &err), TS_OK);
    CHECK_INT_EQ(c.text.hidden_size, 32);
    CHECK_INT_EQ(c.text.head_dim, 16);
    CHECK_INT_EQ(c.text.mrope_section[2], 3);
    CHECK_INT_EQ(c.vision.window_size, 112);
    CHECK_INT_EQ(c.image_token_id, 151655);

    /* Qwen3 without head_dim: Qwen3Config's default is 128, not hidden / heads. */
    const char *qwen3 = "{\"model_type\":\"qwen3\",\"vocab_size\":100,\"hidden_size\":64,"
                        "\"intermediate_size\":128,\"num_hidden_layers\":2,\"num_attention_heads\":4}";
    CHECK_INT_EQ(parse(qwen3, &c, &err), TS_OK);
    CHECK_INT_EQ(c.text.head_dim, 128);
    CHECK_INT_EQ(c.text.num_key_value_heads, 4);
    CHECK_INT_EQ(c.n_eos_token_ids, 0);
    CHECK_INT_EQ(c.bos_token_id, -1);
}

static void test_rope_parameters(void)
{
    ts_model_config c;
    ts_error err = {0};
    /* transformers ≥ 5: rope_parameters carries rope_theta. */
    const char *qwen2 = "{\"model_type\":\"qwen2\",\"vocab_size\":100,\"hidden_size\":64,"
                        "\"intermediate_size\":128,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
                        "\"rope_parameters\":{\"rope_type\":\"default\",\"rope_theta\":123456.0}}";
    CHECK_INT_EQ(parse(qwen2, &c, &err), TS_OK);
    CHECK(c.text.rope_theta == 123456.0);
    CHECK_STR_EQ(c.text.rope_type, "default");

    /* Gemma3 keyed by layer kind, with layer_types instead of sliding_window_pattern. */
    const char *gemma =
        "{\"model_type\":\"gemma3_text\",\"rope_parameters\":{"
        "\"full_attention\":{\"rope_type\":\"linear\",\"factor\":8.0,\"rope_theta\":1000000.0},"
        "\"sliding_attention\":{\"rope_type\":\"default\",\"rope_theta\":10000.0}},"
        "\"layer_types\":[\"sliding_attention\",\"sliding_attention\",\"full_attention\","
        "\"sliding_attention\",\"sliding_attention\",\"full_attention\"]}";
    CHECK_INT_EQ(parse(gemma, &c, &err), TS_OK);
    CHECK_STR_EQ(c.text.rope_type, "linear");
    CHECK(c.text.rope_factor == 8.0);
    CHECK(c.text.rope_theta == 1000000.0);
    CHECK(c.text.rope_local_base_freq == 10000.0);
    CHECK_INT_EQ(c.text.sliding_window_pattern, 3);

    EXPECT_PARSE_FAIL("{\"model_type\":\"gemma3_text\",\"layer_types\":[\"full_attention\","
                      "\"sliding_attention\",\"full_attention\"]}",
                      TS_ERR_UNSUPPORTED, "layer_types: layers are not every 1-th full attention");
    EXPECT_PARSE_FAIL("{\"model_type\":\"qwen2\",\"vocab_size\":100,\"hidden_size\":64,"
                      "\"intermediate_size\":128,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
                      "\"rope_scaling\":{\"rope_type\":\"yarn\",\"factor\":4.0}}",
                      TS_ERR_UNSUPPORTED, "rope_scaling.rope_type \"yarn\" is not supported");
    EXPECT_PARSE_FAIL("{\"model_type\":\"llama\",\"vocab_size\":100,\"hidden_size\":64,"
                      "\"intermediate_size\":128,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
                      "\"rope_scaling\":{\"rope_type\":\"llama3\",\"factor\":8.0,"
                      "\"high_freq_factor\":4.0,\"original_max_position_embeddings\":8192}}",
                      TS_ERR_NOT_FOUND, "rope_scaling.low_freq_factor: missing");
    EXPECT_PARSE_FAIL("{\"model_type\":\"qwen2_vl\",\"vocab_size\":100,\"hidden_size\":64,"
                      "\"intermediate_size\":128,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
                      "\"rope_scaling\":{\"type\":\"mrope\",\"mrope_section\":[2,2,2]},"
                      "\"vision_config\":{}}",
                      TS_ERR_RANGE, "rope_scaling.mrope_section sums to 6, expected head_dim / 2 = 8");
}

/* ------------------------------------------------------------------ errors */

static void test_errors(void)
{
    ts_model_config c;
    ts_error err = {0};
    CHECK_INT_EQ(parse("{\"model_type\":\"mistral\"}", &c, &err), TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "cfg.json: model_type \"mistral\" is not supported");
    CHECK_CONTAINS(err.message, "supported: qwen2, qwen3, qwen3_moe, llama, qwen2_vl, qwen2_5_vl, qwen3_vl, "
                                "qwen3_vl_moe, llava, gemma3, gemma3_text, phi4_multimodal");

    EXPECT_PARSE_FAIL("{\"hidden_size\":64}", TS_ERR_NOT_FOUND, "model_type: missing");
    EXPECT_PARSE_FAIL("{\"model_type\":7}", TS_ERR_FORMAT, "model_type: expected a string");
    EXPECT_PARSE_FAIL("[1]", TS_ERR_FORMAT, "expected a JSON object at the top level");
    EXPECT_PARSE_FAIL("{\"model_type\": \"qwen2\",", TS_ERR_FORMAT, "not valid JSON: error at byte");
    EXPECT_PARSE_FAIL("{\"model_type\":\"qwen3_vl\",\"text_config\":{\"vocab_size\":9,\"hidden_size\":\"64\"},"
                      "\"vision_config\":{}}",
                      TS_ERR_FORMAT, "cfg.json: text_config.hidden_size: expected an integer");
    EXPECT_PARSE_FAIL("{\"model_type\":\"qwen2\",\"vocab_size\":100,\"intermediate_size\":128,"
                      "\"num_hidden_layers\":2,\"num_attention_heads\":4}",
                      TS_ERR_NOT_FOUND, "cfg.json: hidden_size: missing");
    EXPECT_PARSE_FAIL("{\"model_type\":\"qwen2\",\"vocab_size\":100,\"hidden_size\":64.5,"
                      "\"intermediate_size\":128,\"num_hidden_layers\":2,\"num_attention_heads\":4}",
                      TS_ERR_FORMAT, "cfg.json: hidden_size: expected an integer");
    EXPECT_PARSE_FAIL("{\"model_type\":\"qwen2\",\"vocab_size\":100,\"hidden_size\":64,"
                      "\"intermediate_size\":128,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
                      "\"num_key_value_heads\":3}",
                      TS_ERR_RANGE, "num_attention_heads 4 is not a multiple of num_key_value_heads 3");
    EXPECT_PARSE_FAIL("{\"model_type\":\"qwen2\",\"vocab_size\":100,\"hidden_size\":64,"
                      "\"intermediate_size\":128,\"num_hidden_layers\":0,\"num_attention_heads\":4}",
                      TS_ERR_RANGE, "num_hidden_layers: 0, expected a positive integer");
    EXPECT_PARSE_FAIL("{\"model_type\":\"qwen2\",\"vocab_size\":100,\"hidden_size\":64,"
                      "\"intermediate_size\":128,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
                      "\"tie_word_embeddings\":\"yes\"}",
                      TS_ERR_FORMAT, "tie_word_embeddings: expected true or false");
    EXPECT_PARSE_FAIL("{\"model_type\":\"qwen2\",\"vocab_size\":100,\"hidden_size\":64,"
                      "\"intermediate_size\":128,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
                      "\"eos_token_id\":[1,2,3,4,5,6,7,8,9]}",
                      TS_ERR_RANGE, "eos_token_id: 9 values, at most 8 supported");
    EXPECT_PARSE_FAIL("{\"model_type\":\"qwen2\",\"vocab_size\":100,\"hidden_size\":64,"
                      "\"intermediate_size\":128,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
                      "\"eos_token_id\":\"</s>\"}",
                      TS_ERR_FORMAT, "eos_token_id: expected an integer or a list of integers");
    EXPECT_PARSE_FAIL("{\"model_type\":\"qwen2\",\"vocab_size\":100,\"hidden_size\":64,"
                      "\"intermediate_size\":128,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
                      "\"use_sliding_window\":true}",
                      TS_ERR_UNSUPPORTED, "use_sliding_window: true is not supported");
    EXPECT_PARSE_FAIL("{\"model_type\":\"qwen2_vl\",\"vocab_size\":100,\"hidden_size\":64,"
                      "\"intermediate_size\":128,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
                      "\"rope_scaling\":{\"type\":\"mrope\",\"mrope_section\":[2,3,3]}}",
                      TS_ERR_NOT_FOUND, "cfg.json: vision_config: missing");
    EXPECT_PARSE_FAIL("{\"model_type\":\"qwen3_vl\",\"vision_config\":{}}", TS_ERR_NOT_FOUND,
                      "cfg.json: text_config: missing");
    EXPECT_PARSE_FAIL("{\"model_type\":\"llava\",\"text_config\":{\"model_type\":\"mistral\"},"
                      "\"vision_config\":{}}",
                      TS_ERR_UNSUPPORTED, "text_config.model_type \"mistral\" is not supported for llava");
    EXPECT_PARSE_FAIL("{\"model_type\":\"gemma3\",\"text_config\":{},\"vision_config\":{"
                      "\"model_type\":\"clip_vision_model\"}}",
                      TS_ERR_UNSUPPORTED, "vision_config.model_type \"clip_vision_model\" is not supported for gemma3");
    EXPECT_PARSE_FAIL("{\"model_type\":\"llava\",\"vision_config\":{\"num_hidden_layers\":\"3\"}}",
                      TS_ERR_FORMAT, "cfg.json: vision_config.num_hidden_layers: expected an integer");
    EXPECT_PARSE_FAIL("{\"model_type\":\"llava\",\"vision_config\":{},\"vision_feature_layer\":[-2,-5]}",
                      TS_ERR_UNSUPPORTED, "vision_feature_layer: a list of layers is not supported");
    EXPECT_PARSE_FAIL("{\"model_type\":\"qwen3_vl\",\"text_config\":{\"vocab_size\":100,"
                      "\"hidden_size\":64,\"intermediate_size\":128,\"num_hidden_layers\":2,"
                      "\"num_attention_heads\":4,\"head_dim\":16,\"rope_scaling\":{\"mrope_section\":"
                      "[2,3,3]}},\"vision_config\":{\"depth\":4,\"hidden_size\":48,"
                      "\"intermediate_size\":96,\"num_heads\":3,\"out_hidden_size\":64,"
                      "\"num_position_embeddings\":64,\"deepstack_visual_indexes\":[1,4]}}",
                      TS_ERR_RANGE, "vision_config.deepstack_visual_indexes[1] = 4 is outside the 4 blocks");
    EXPECT_PARSE_FAIL("{\"model_type\":\"qwen3_vl_moe\",\"text_config\":{\"vocab_size\":100,"
                      "\"hidden_size\":64,\"intermediate_size\":128,\"num_hidden_layers\":2,"
                      "\"num_attention_heads\":4,\"head_dim\":16,\"rope_scaling\":{\"mrope_section\":"
                      "[2,3,3]},\"num_experts\":4,\"num_experts_per_tok\":2,\"mlp_only_layers\":[2]},"
                      "\"vision_config\":{}}",
                      TS_ERR_RANGE, "text_config.mlp_only_layers[0] = 2 is outside the 2 layers");
    EXPECT_PARSE_FAIL("{\"model_type\":\"qwen3_moe\",\"vocab_size\":100,\"hidden_size\":64,"
                      "\"intermediate_size\":128,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
                      "\"num_key_value_heads\":2,\"decoder_sparse_step\":0}",
                      TS_ERR_RANGE, "decoder_sparse_step 0, expected ≥ 1");

    static const char *const all_types[] = {"qwen2", "qwen3", "llama", "qwen2_vl", "qwen2_5_vl",
                                            "qwen3_vl", "qwen3_vl_moe", "llava", "gemma3", "gemma3_text",
                                            "phi4_multimodal"};
    for (size_t f = 0; f < sizeof(all_types) / sizeof(all_types[0]); f++) CHECK(strcmp(ts_family_name(ts_family_find(all_types[f])), "unknown family") != 0);
    CHECK(ts_family_find("mistral") == NULL);
    CHECK_STR_EQ(ts_family_name(NULL), "unknown family");
    CHECK(ts_family_find("gemma3_text") == ts_family_find("gemma3"));
    CHECK_STR_EQ(ts_family_name(ts_family_find("qwen2_5_vl")), "qwen2_5_vl");
    CHECK_STR_EQ(ts_family_name(ts_family_find("gemma3")), "gemma3");

    CHECK_INT_EQ(ts_model_config_load("/nonexistent-dir", &c, &err), TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, "/nonexistent-dir/config.json");
}

/* ------------------------------------------------------------------ generation and preprocessor */

static void fixture_dir(char *buf, size_t cap, const char *name)
{
    const char *root = getenv("TS_ROOT");
    snprintf(buf, cap, "%s/tests/fixtures/%s/model", root ? root : ".", name);
}

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", tmp_dir, name);
    FILE *f = fopen(path, "wb");
    fputs(text, f);
    fclose(f);
}

static void test_generation_config(void)
{
    char dir[512];
    ts_generation_config g;
    ts_error err = {0};
    fixture_dir(dir, sizeof(dir), "qwen2_vl");
    REQUIRE_INT_EQ(ts_generation_config_load(dir, &g, &err), TS_OK);
    CHECK(g.do_sample);
    CHECK(g.temperature == 0.1);
    CHECK(g.top_p == 0.001);
    CHECK_INT_EQ(g.top_k, 1);
    CHECK(g.repetition_penalty == 1.05);
    CHECK_INT_EQ(g.n_eos_token_ids, 2);
    CHECK_INT_EQ(g.eos_token_ids[0], 1282);
    CHECK_INT_EQ(g.eos_token_ids[1], 1280);
    CHECK_INT_EQ(g.bos_token_id, 1280);
    CHECK_INT_EQ(g.pad_token_id, 1280);

    fixture_dir(dir, sizeof(dir), "llava");
    REQUIRE_INT_EQ(ts_generation_config_load(dir, &g, &err), TS_OK);
    CHECK_INT_EQ(g.n_eos_token_ids, 1); /* a bare integer */
    CHECK_INT_EQ(g.eos_token_ids[0], 1282);
    CHECK(!g.do_sample);
    CHECK(g.temperature == 1.0);
    CHECK_INT_EQ(g.top_k, 50);

    /* No file: greedy defaults, no EOS. */
    REQUIRE_INT_EQ(ts_generation_config_load(tmp_dir, &g, &err), TS_OK);
    CHECK_INT_EQ(g.n_eos_token_ids, 0);
    CHECK(!g.do_sample);
    CHECK_INT_EQ(g.bos_token_id, -1);

    write_file("generation_config.json", "{\"temperature\":\"hot\"}");
    CHECK_INT_EQ(ts_generation_config_load(tmp_dir, &g, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "generation_config.json: temperature: expected a number");
    write_file("generation_config.json", "{\"top_p\":1.5}");
    CHECK_INT_EQ(ts_generation_config_load(tmp_dir, &g, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "top_p 1.5");
}

static void test_preprocessor_config(void)
{
    char dir[512];
    ts_preprocessor_config p;
    ts_error err = {0};
    fixture_dir(dir, sizeof(dir), "qwen2_vl");
    REQUIRE_INT_EQ(ts_preprocessor_config_load(dir, &p, &err), TS_OK);
    CHECK_STR_EQ(p.image_processor_type, "Qwen2VLImageProcessor");
    CHECK_STR_EQ(p.processor_class, "Qwen2VLProcessor");
    CHECK_INT_EQ(p.min_pixels, 3136);
    CHECK_INT_EQ(p.max_pixels, 50176);
    CHECK_INT_EQ(p.patch_size, 14);
    CHECK_INT_EQ(p.temporal_patch_size, 2);
    CHECK_INT_EQ(p.merge_size, 2);
    CHECK(p.image_mean[0] == 0.48145466 && p.image_std[2] == 0.27577711);
    CHECK(p.do_resize && p.do_rescale && p.do_normalize);
    CHECK(fabs(p.rescale_factor - 1.0 / 255.0) < 1e-12);

    fixture_dir(dir, sizeof(dir), "qwen3_vl");
    REQUIRE_INT_EQ(ts_preprocessor_config_load(dir, &p, &err), TS_OK);
    CHECK_INT_EQ(p.min_pixels, 4096); /* from size.shortest_edge */
    CHECK_INT_EQ(p.max_pixels, 65536);
    CHECK_INT_EQ(p.patch_size, 16);
    CHECK(p.image_mean[1] == 0.5);

    fixture_dir(dir, sizeof(dir), "llava");
    REQUIRE_INT_EQ(ts_preprocessor_config_load(dir, &p, &err), TS_OK);
    CHECK_INT_EQ(p.size_shortest_edge, 56);
    CHECK_INT_EQ(p.size_height, 0);
    CHECK(p.do_center_crop);
    CHECK_INT_EQ(p.crop_height, 56);
    CHECK_INT_EQ(p.crop_width, 56);
    CHECK_INT_EQ(p.resample, 3);
    CHECK_INT_EQ(p.min_pixels, 0);

    fixture_dir(dir, sizeof(dir), "gemma3");
    REQUIRE_INT_EQ(ts_preprocessor_config_load(dir, &p, &err), TS_OK);
    CHECK_STR_EQ(p.processor_class, "Gemma3Processor");
    CHECK_INT_EQ(p.size_height, 56);
    CHECK_INT_EQ(p.size_width, 56);
    CHECK_INT_EQ(p.resample, 2);
    CHECK(!p.do_center_crop);

    fixture_dir(dir, sizeof(dir), "qwen2");
    CHECK_INT_EQ(ts_preprocessor_config_load(dir, &p, &err), TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, "preprocessor_config.json");

    write_file("preprocessor_config.json", "{\"image_processor_type\":\"CLIPImageProcessor\","
                                           "\"image_mean\":[0.5,0.5]}");
    CHECK_INT_EQ(ts_preprocessor_config_load(tmp_dir, &p, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "preprocessor_config.json: image_mean: expected three numbers");
    write_file("preprocessor_config.json", "{\"image_processor_type\":\"MyProcessor\"}");
    CHECK_INT_EQ(ts_preprocessor_config_load(tmp_dir, &p, &err), TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, "image_mean: missing");
    write_file("preprocessor_config.json", "{\"image_processor_type\":\"Qwen2VLImageProcessor\","
                                           "\"size\":{\"shortest_edge\":\"big\"}}");
    CHECK_INT_EQ(ts_preprocessor_config_load(tmp_dir, &p, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "size.shortest_edge: expected an integer");
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int main(void)
{
    snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/ts_model_config_XXXXXX");
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_text_fixtures);
    RUN(test_qwen_vl_fixtures);
    RUN(test_llava_gemma3_fixtures);
    RUN(test_published_defaults);
    RUN(test_rope_parameters);
    RUN(test_errors);
    RUN(test_generation_config);
    RUN(test_preprocessor_config);
    nftw(tmp_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return check_finish();
}
