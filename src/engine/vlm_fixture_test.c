/* vlm_fixture_test.c — Qwen2-VL, Qwen2.5-VL and LLaVA (CLIP and SigLIP towers) end to end
 * against the transformers fixtures: the fixture PNG decoded by ts_image_load, preprocessed, the
 * chat rendered and expanded, tokenized (the prompt ids must be the reference's), the images
 * encoded and merged, prefilled (M-RoPE for Qwen, 1-D for LLaVA), then greedy decoding: the 16
 * tokens must be the reference's. One image and two images; Qwen3-VL (dense and MoE) with its
 * DeepStack rows; Gemma3 with its bidirectional image blocks. */
#include "check.h"
#include "engine/model.h"
#include "engine/vision.h"
#include "models/family.h"
#include "tessera.h"

#include <math.h>

static ts_context *ctx;

static void run_case(const char *name, const char *const *pngs, int n_images)
{
    char dir[128], refpath[160];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    snprintf(refpath, sizeof(refpath), "tests/fixtures/%s/reference.safetensors", name);
    ts_error err;
    ts_model *m;
    ts_tokenizer *tok;
    ts_chat_template *tmpl;
    ts_preprocessor_config pc;
    ts_checkpoint *ref;
    REQUIRE_INT_EQ(ts_model_load(ctx, dir, NULL, &m, &err), TS_OK);
    REQUIRE_INT_EQ(ts_tokenizer_load(dir, &tok, &err), TS_OK);
    REQUIRE_INT_EQ(ts_chat_template_load(dir, NULL, &tmpl, &err), TS_OK);
    REQUIRE_INT_EQ(ts_preprocessor_config_load(dir, &pc, &err), TS_OK);
    REQUIRE_INT_EQ(ts_checkpoint_open(refpath, &ref, &err), TS_OK);
    const ts_model_config *cfg = ts_model_get_config(m);
    ts_pixel_values images[4];
    int64_t counts[4];
    for (int i = 0; i < n_images; i++) {
        char png[160];
        snprintf(png, sizeof(png), "tests/fixtures/%s/%s", name, pngs[i]);
        ts_image img;
        REQUIRE_INT_EQ(ts_image_load(png, NULL, &img, &err), TS_OK);
        CHECK_INT_EQ(ts_preprocess_image(&pc, cfg->family, img.rgb, img.width, img.height, NULL, &images[i], &err), TS_OK);
        counts[i] = ts_model_image_tokens(m, &images[i]);
        CHECK(counts[i] > 0);
        ts_image_free(&img);
    }
    /* The messages of the fixture: images first, then the question. */
    char context[1024];
    snprintf(context, sizeof(context),
             "{\"messages\": [{\"role\": \"user\", \"content\": [%s{\"type\": \"text\", \"text\": \"%s\"}]}], \"add_generation_prompt\": true}",
             n_images == 2 ? "{\"type\": \"image\"}, {\"type\": \"image\"}, " : "{\"type\": \"image\"}, ",
             n_images == 2 ? "Compare these two images." : "Describe this image.");
    char *prompt, *expanded;
    size_t len;
    CHECK_INT_EQ(ts_chat_template_render(tmpl, context, &prompt, &err), TS_OK);
    CHECK_INT_EQ(ts_prompt_expand_images(cfg, tok, prompt, strlen(prompt), counts, n_images, &expanded, &len, &err), TS_OK);
    int32_t *ids;
    size_t n;
    REQUIRE_INT_EQ(ts_tokenizer_encode(tok, expanded, len, true, &ids, &n, &err), TS_OK);
    const ts_tensor_info *want_ids = ts_checkpoint_find(ref, "input_ids"), *gen = ts_checkpoint_find(ref, "generated_ids");
    bool same_ids = (int64_t)n == want_ids->shape[1];
    for (size_t i = 0; same_ids && i < n; i++) same_ids = ids[i] == ((const int64_t *)want_ids->data)[i];
    CHECK(same_ids);
    int64_t v = ts_model_vocab_size(m), n_new = gen->shape[0];
    ts_sequence *seq;
    ts_sequence_create(m, (int64_t)n + n_new, &seq, &err);
    float *logits = malloc(sizeof(float) * (size_t)v);
    CHECK_INT_EQ(ts_model_prefill_images(m, seq, ids, n, images, n_images, logits, &err), TS_OK);
    bool same = true;
    for (int64_t i = 0; i < n_new; i++) {
        int32_t want = (int32_t)((const int64_t *)gen->data)[i];
        same &= ts_argmax_masked(logits, v, cfg->eos_token_ids, cfg->n_eos_token_ids) == want;
        if (i + 1 < n_new) CHECK_INT_EQ(ts_model_decode(m, &seq, &want, 1, logits, &err), TS_OK);
    }
    CHECK(same);
    fprintf(stderr, "  %s: %d image(s), %zu prompt ids %s, 16 greedy tokens %s\n", name, n_images, n, same_ids ? "exact" : "DIFFER",
            same ? "identical" : "DIFFER");
    free(logits), free(ids), free(prompt), free(expanded);
    for (int i = 0; i < n_images; i++) ts_pixel_values_free(&images[i]);
    ts_sequence_destroy(seq);
    ts_checkpoint_close(ref);
    ts_chat_template_destroy(tmpl);
    ts_tokenizer_destroy(tok);
    ts_model_destroy(m);
}

static void test_qwen2_vl(void)
{
    static const char *const one[] = {"chelsea.png"}, *const two[] = {"chelsea.png", "coffee.png"};
    run_case("qwen2_vl", one, 1);
    run_case("qwen2_vl-two-images", two, 2);
}

static void test_qwen2_5_vl(void)
{
    static const char *const one[] = {"chelsea.png"};
    run_case("qwen2_5_vl", one, 1);
}

/* Qwen3-VL, dense and MoE: the tower's main rows at the image tokens and its DeepStack rows added
 * after the first language-model layers, end to end from the PNG. */
static void test_qwen3_vl(void)
{
    static const char *const one[] = {"chelsea.png"};
    run_case("qwen3_vl", one, 1);
    run_case("qwen3_vl_moe", one, 1);
    /* Dense MLP layers between the sparse ones (decoder_sparse_step 2, mlp_only_layers [3]). */
    run_case("qwen3_vl_moe-sparse-step", one, 1);
}

/* Cross-image isolation: encoding (A, B) and (A, B′) gives bit-identical rows for A. */
static void test_cross_image_isolation(void)
{
    ts_error err;
    ts_model *m;
    ts_preprocessor_config pc;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/qwen2_vl-two-images/model", NULL, &m, &err), TS_OK);
    REQUIRE_INT_EQ(ts_preprocessor_config_load("tests/fixtures/qwen2_vl-two-images/model", &pc, &err), TS_OK);
    const char *pngs[2] = {"tests/fixtures/qwen2_vl-two-images/chelsea.png", "tests/fixtures/qwen2_vl-two-images/coffee.png"};
    ts_pixel_values first[2], second[2];
    for (int i = 0; i < 2; i++) {
        ts_image img;
        REQUIRE_INT_EQ(ts_image_load(pngs[i], NULL, &img, &err), TS_OK);
        int w = img.width, h = img.height;
        uint8_t *rgb = img.rgb;
        CHECK_INT_EQ(ts_preprocess_image(&pc, ts_family_find("qwen2_vl"), rgb, w, h, NULL, &first[i], &err), TS_OK);
        if (i == 1)
            for (size_t k = 0; k < (size_t)w * (size_t)h * 3; k++) rgb[k] = (uint8_t)(255 - rgb[k]); /* a different image B */
        CHECK_INT_EQ(ts_preprocess_image(&pc, ts_family_find("qwen2_vl"), rgb, w, h, NULL, &second[i], &err), TS_OK);
        ts_image_free(&img);
    }
    float *a, *b;
    int64_t rows_a, rows_b;
    ts_vision *v = ts_model_vision(m);
    ts_encoder_cache *cache = ts_vision_cache(v);
    ts_encoder_cache_resize(cache, 0); /* the tower itself, not the cache, must keep A apart */
    REQUIRE_INT_EQ(ts_vision_encode(v, first, 2, &a, &rows_a, &err), TS_OK);
    REQUIRE_INT_EQ(ts_vision_encode(v, second, 2, &b, &rows_b, &err), TS_OK);
    CHECK_INT_EQ(ts_encoder_cache_get_stats(cache).hits, 0);
    int64_t h = ts_model_get_config(m)->text.hidden_size, a_rows = first[0].n_tokens;
    CHECK(memcmp(a, b, sizeof(float) * (size_t)(a_rows * h)) == 0);                             /* image A untouched */
    CHECK(memcmp(a + a_rows * h, b + a_rows * h, sizeof(float) * (size_t)((rows_a - a_rows) * h)) != 0); /* B did change */

    /* With the cache: a repeat is served whole and bit-identical; [A, B'] reuses A and runs B'
     * alone, which matches B' run beside A within 1e-5 of the largest value. */
    ts_encoder_cache_resize(cache, (size_t)64 << 20);
    float *c1, *c2, *c3;
    int64_t r1, r2, r3;
    REQUIRE_INT_EQ(ts_vision_encode(v, first, 2, &c1, &r1, &err), TS_OK);
    REQUIRE_INT_EQ(ts_vision_encode(v, first, 2, &c2, &r2, &err), TS_OK);
    ts_encoder_cache_stats st = ts_encoder_cache_get_stats(cache);
    CHECK_INT_EQ(st.hits, 2);
    CHECK_INT_EQ(st.entries, 2);
    CHECK(r1 == rows_a && r2 == rows_a && memcmp(c1, a, sizeof(float) * (size_t)(rows_a * h)) == 0 &&
          memcmp(c2, a, sizeof(float) * (size_t)(rows_a * h)) == 0);
    REQUIRE_INT_EQ(ts_vision_encode(v, second, 2, &c3, &r3, &err), TS_OK);
    CHECK_INT_EQ(ts_encoder_cache_get_stats(cache).hits, 3);
    CHECK_INT_EQ(ts_encoder_cache_get_stats(cache).entries, 3);
    CHECK(memcmp(c3, b, sizeof(float) * (size_t)(a_rows * h)) == 0);
    float worst = 0, limit = 1;
    for (int64_t k = a_rows * h; k < rows_b * h; k++) worst = fmaxf(worst, fabsf(c3[k] - b[k])), limit = fmaxf(limit, fabsf(b[k]));
    CHECK(worst <= 1e-5f * limit);
    /* The preprocessing settings are part of the key: other pixels of the same file miss. */
    ts_pixel_values small;
    ts_image img;
    ts_image_budget budget = {.max_pixels = 28 * 28 * 16};
    REQUIRE_INT_EQ(ts_image_load(pngs[0], NULL, &img, &err), TS_OK);
    CHECK_INT_EQ(ts_preprocess_image(&pc, ts_family_find("qwen2_vl"), img.rgb, img.width, img.height, &budget, &small, &err), TS_OK);
    float *c4;
    int64_t r4;
    REQUIRE_INT_EQ(ts_vision_encode(v, &small, 1, &c4, &r4, &err), TS_OK);
    CHECK_INT_EQ(ts_encoder_cache_get_stats(cache).hits, 3);
    CHECK(r4 == small.n_tokens && r4 < a_rows);
    free(c1), free(c2), free(c3), free(c4), free(a), free(b);
    ts_image_free(&img);
    ts_pixel_values_free(&small);
    for (int i = 0; i < 2; i++) ts_pixel_values_free(&first[i]), ts_pixel_values_free(&second[i]);
    ts_model_destroy(m);
}

static void test_llava(void)
{
    static const char *const one[] = {"chelsea.png"};
    run_case("llava", one, 1);
    run_case("llava_siglip", one, 1);
}

/* Gemma3: SigLIP + average pool, the image rows merged after the √hidden scaling, and the
 * image's tokens attending to each other both ways (the attention-bias side input). */
static void test_gemma3(void)
{
    static const char *const one[] = {"chelsea.png"};
    run_case("gemma3", one, 1);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    RUN(test_qwen2_vl);
    RUN(test_qwen2_5_vl);
    RUN(test_qwen3_vl);
    RUN(test_cross_image_isolation);
    RUN(test_llava);
    RUN(test_gemma3);
    ts_context_destroy(ctx);
    return check_finish();
}
