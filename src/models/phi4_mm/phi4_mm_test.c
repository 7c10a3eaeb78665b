/* phi4_mm_test.c — the Phi-4-multimodal family's config, rotary table and fused weights, against
 * the tests/fixtures/phi4_mm-text checkpoint (tools/fixtures/make_phi4_fixture.py) and
 * transformers' formulas (the whole language model against the reference is text_fixture_test's
 * phi4_mm-text case):
 *   - config.json: longrope with its short/long factors, partial rotary 0.75, the top-level
 *     original_max_position_embeddings; refusals name the key (other rope types, factor lists
 *     missing or of the wrong length, a sliding window shorter than the context);
 *   - the rotary table: inv_freq = 1 / (short_factor · θ^(2i/d)) and cos/sin scaled by
 *     sqrt(1 + ln(max/original) / ln(original)), computed here in double;
 *   - q/k/v and gate/up are views of the fused rows (no copy), in the order the reference slices;
 *   - long_inv_freq from the long factors; sequences up to max_position_embeddings;
 *   - text and audio are advertised (audio_config's audio_token_id read), images not (no tower). */
#include "check.h"
#include "engine/model.h"
#include "models/family.h"

#include <math.h>

#define DIR "tests/fixtures/phi4_mm-text/model"

static ts_context *ctx;

static ts_status parse(const char *json, ts_model_config *c, ts_error *err)
{
    return ts_model_config_parse(json, strlen(json), "cfg.json", c, err);
}

static void test_config_and_rope(void)
{
    ts_model_config c;
    ts_error err;
    REQUIRE_INT_EQ(ts_model_config_load(DIR, &c, &err), TS_OK);
    CHECK_STR_EQ(ts_family_name(c.family), "phi4_multimodal");
    CHECK_STR_EQ(c.text.rope_type, "longrope");
    CHECK_INT_EQ(c.text.n_rope_short_factor, 6);
    CHECK_INT_EQ(c.text.n_rope_long_factor, 6);
    CHECK(c.text.rope_long_factor[5] == 27.0);
    CHECK_INT_EQ(c.text.rope_original_max_position, 4096);
    CHECK(c.text.partial_rotary_factor == 0.75);
    CHECK(c.text.tie_word_embeddings);
    /* vision_config read (phi4_mm_vision.c) and audio_config (phi4_mm_audio.c): both paths
     * advertised. */
    CHECK(c.has_vision);
    CHECK_INT_EQ(c.image_token_id, 1285);
    CHECK_INT_EQ(c.vision.depth, 3);
    CHECK_INT_EQ(c.vision_feature_layer, -2);
    CHECK(c.has_audio);
    CHECK_INT_EQ(c.audio_token_id, 1286);
    CHECK_INT_EQ(ts_model_supported_modalities(&c), TS_MODALITY_TEXT | TS_MODALITY_IMAGE | TS_MODALITY_AUDIO);

    ts_decoder_spec spec;
    REQUIRE_INT_EQ(ts_decoder_spec_init(&c, &spec, &err), TS_OK);
    CHECK_INT_EQ(spec.rotary_dim, 12);
    CHECK_INT_EQ(spec.rope_positions, 131072);
    CHECK_INT_EQ(spec.rope_long_after, 4096);
    double scale = sqrt(1.0 + log(131072.0 / 4096.0) / log(4096.0));
    CHECK(fabs(spec.rope_scale - scale) < 1e-6);
    for (int i = 0; i < 6; i++) {
        double want = 1.0 / (c.text.rope_short_factor[i] * pow(10000.0, 2.0 * i / 12.0));
        CHECK(fabs(spec.inv_freq[i] - want) <= 1e-6 * want);
        want = 1.0 / (c.text.rope_long_factor[i] * pow(10000.0, 2.0 * i / 12.0));
        CHECK(fabs(spec.long_inv_freq[i] - want) <= 1e-6 * want);
    }
    /* attention_factor and factor from the file win over the derived ones. */
    c.text.rope_attention_factor = 1.5;
    REQUIRE_INT_EQ(ts_decoder_spec_init(&c, &spec, &err), TS_OK);
    CHECK(spec.rope_scale == 1.5f);
    c.text.rope_attention_factor = 0, c.text.rope_factor = 1.0;
    REQUIRE_INT_EQ(ts_decoder_spec_init(&c, &spec, &err), TS_OK);
    CHECK(spec.rope_scale == 1.0f);
    /* Factor lists of the wrong length for the rotary dimension. */
    c.text.rope_factor = 0, c.text.n_rope_long_factor = 5;
    CHECK_INT_EQ(ts_decoder_spec_init(&c, &spec, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message,
                   "short_factor has 6 and long_factor 5 entries; the rotary dimension 12 needs 6");
}

#define PHI4(extra)                                                                                \
    "{\"model_type\":\"phi4_multimodal\",\"vocab_size\":200064,\"hidden_size\":3072,"           \
    "\"intermediate_size\":8192,\"num_hidden_layers\":32,\"num_attention_heads\":24,"             \
    "\"num_key_value_heads\":8,\"max_position_embeddings\":131072,\"rope_theta\":10000.0,"        \
    "\"partial_rotary_factor\":0.75,\"tie_word_embeddings\":true" extra "}"

static void test_config_refusals(void)
{
    ts_model_config c;
    ts_error err;
    /* The published shape (head_dim 128, rotary 96: 48 factors; placeholder values, all 1). */
    char factors[512] = "[1.0";
    for (int i = 1; i < 48; i++) strcat(factors, ",1.0");
    strcat(factors, "]");
    char json[2048];
    snprintf(json, sizeof(json),
             PHI4(",\"original_max_position_embeddings\":4096,\"sliding_window\":262144,"
                  "\"rope_scaling\":{\"type\":\"longrope\",\"short_factor\":%s,"
                  "\"long_factor\":%s}"),
             factors, factors);
    REQUIRE_INT_EQ(parse(json, &c, &err), TS_OK);
    ts_decoder_spec spec;
    REQUIRE_INT_EQ(ts_decoder_spec_init(&c, &spec, &err), TS_OK);
    CHECK_INT_EQ(spec.rotary_dim, 96);
    CHECK_INT_EQ(spec.head_dim, 128);
    CHECK(spec.lm_head == NULL);
    /* No top-level or rope-block original length: Phi4MultimodalConfig's 4096. */
    snprintf(json, sizeof(json),
             PHI4(",\"rope_scaling\":{\"type\":\"longrope\",\"short_factor\":%s,"
                  "\"long_factor\":%s}"),
             factors, factors);
    REQUIRE_INT_EQ(parse(json, &c, &err), TS_OK);
    CHECK_INT_EQ(c.text.rope_original_max_position, 4096);
    /* Plain rotary: no scaling, no cap. No vision_config: Phi4MultimodalVisionConfig's defaults
     * (27 layers of 1152, image token 200010), as the class reads it. */
    REQUIRE_INT_EQ(parse(PHI4(""), &c, &err), TS_OK);
    CHECK(c.has_vision);
    CHECK_INT_EQ(c.vision.depth, 27);
    CHECK_INT_EQ(c.vision.hidden_size, 1152);
    CHECK_INT_EQ(c.image_token_id, 200010);
    CHECK_INT_EQ(parse(PHI4(",\"vision_config\":{\"hidden_act\":\"gelu\"}"), &c, &err), TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "vision_config.hidden_act");
    CHECK_INT_EQ(parse(PHI4(",\"vision_config\":{\"image_token_id\":300000}"), &c, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "vision_config.image_token_id 300000 is outside the vocabulary");
    REQUIRE_INT_EQ(parse(PHI4(""), &c, &err), TS_OK);
    REQUIRE_INT_EQ(ts_decoder_spec_init(&c, &spec, &err), TS_OK);
    CHECK_INT_EQ(spec.rope_positions, 0);
    CHECK_INT_EQ(spec.rope_long_after, 0);

    CHECK_INT_EQ(
        parse(PHI4(",\"rope_scaling\":{\"type\":\"longrope\",\"long_factor\":[1]}"), &c, &err),
        TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, "rope_scaling.short_factor: missing");
    CHECK_INT_EQ(
        parse(PHI4(",\"rope_scaling\":{\"type\":\"longrope\",\"short_factor\":[1]}"), &c, &err),
        TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, "rope_scaling.long_factor: missing");
    CHECK_INT_EQ(parse(PHI4(",\"rope_scaling\":{\"type\":\"longrope\",\"short_factor\":[\"a\"],"
                            "\"long_factor\":[1]}"),
                       &c, &err),
                 TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "short_factor");
    CHECK_INT_EQ(parse(PHI4(",\"rope_scaling\":{\"type\":\"linear\",\"factor\":2.0}"), &c, &err),
                 TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message,
                   "rope_scaling type \"linear\" (Phi4MultimodalConfig takes default or longrope)");
    CHECK_INT_EQ(parse(PHI4(",\"rope_scaling\":{\"type\":\"su\"}"), &c, &err), TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "rope_type \"su\" is not supported");
    CHECK_INT_EQ(parse(PHI4(",\"sliding_window\":2048"), &c, &err), TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message,
                   "sliding_window 2048 is shorter than max_position_embeddings 131072");
    REQUIRE_INT_EQ(parse(PHI4(",\"sliding_window\":null"), &c, &err), TS_OK);
}

/* The parts the decoder names are the fused tensor's rows, in place. */
static void test_fused_views(void)
{
    ts_error err;
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, DIR, NULL, &m, &err), TS_OK);
    const ts_weight_source *src = ts_model_weights(m);
    const ts_tensor_info *qkv =
        src->find(src->self, "model.layers.1.self_attn.qkv_proj.weight", 0, NULL);
    const ts_tensor_info *gu =
        src->find(src->self, "model.layers.2.mlp.gate_up_proj.weight", 0, NULL);
    REQUIRE(qkv && gu);
    static const struct {
        const char *name;
        int64_t row0, rows;
        int gate_up;
    } parts[] = {
        {"model.layers.1.self_attn.q_proj.weight", 0, 48, 0},
        {"model.layers.1.self_attn.k_proj.weight", 48, 16, 0},
        {"model.layers.1.self_attn.v_proj.weight", 64, 16, 0},
        {"model.layers.2.mlp.gate_proj.weight", 0, 96, 1},
        {"model.layers.2.mlp.up_proj.weight", 96, 96, 1},
    };
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        const ts_tensor_info *t = src->find(src->self, parts[i].name, 0, NULL);
        REQUIRE(t != NULL);
        const ts_tensor_info *fused = parts[i].gate_up ? gu : qkv;
        CHECK_INT_EQ(t->shape[0], parts[i].rows);
        CHECK_INT_EQ(t->shape[1], 48);
        CHECK(t->data == (const float *)fused->data + parts[i].row0 * 48); /* a view, not a copy */
        CHECK(memcmp(t->data, (const float *)fused->data + parts[i].row0 * 48,
                     (size_t)(parts[i].rows * 48) * sizeof(float)) == 0);
    }
    CHECK(src->find(src->self, "model.layers.1.self_attn.w_proj.weight", 0, NULL) == NULL);
    CHECK(src->find(src->self, "model.layers.9.self_attn.q_proj.weight", 0, NULL) == NULL);

    /* Pixel values that are not an HD image's (no crop grid) are refused before any compute,
     * the sequence untouched. */
    ts_sequence *s;
    REQUIRE_INT_EQ(ts_sequence_create(m, 64, &s, &err), TS_OK);
    float pixels[3 * 14 * 14] = {0};
    ts_pixel_values image = {.data = pixels, .n_dims = 4, .shape = {1, 3, 14, 14}, .n_tokens = 1};
    int32_t ids[3] = {1282, 1285, 1284};
    float *logits = malloc(sizeof(float) * (size_t)ts_model_vocab_size(m));
    CHECK_INT_EQ(ts_model_prefill_images(m, s, ids, 3, &image, 1, logits, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "the crop grid is not an HD image's");
    CHECK_INT_EQ(ts_sequence_length(s), 0);
    free(logits);
    ts_sequence_destroy(s);

    /* Sequences past original_max_position_embeddings (long factors), up to
     * max_position_embeddings. */
    CHECK_INT_EQ(ts_sequence_create(m, 131073, &s, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "sequence capacity 131073: this model's rotary embedding holds "
                                "131072 positions (max_position_embeddings)");
    REQUIRE_INT_EQ(ts_sequence_create(m, 8192, &s, &err), TS_OK);
    ts_sequence_destroy(s);
    ts_model_destroy(m);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 1, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    RUN(test_config_and_rope);
    RUN(test_config_refusals);
    RUN(test_fused_views);
    ts_context_destroy(ctx);
    return check_finish();
}
