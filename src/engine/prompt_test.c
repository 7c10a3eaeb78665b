/* prompt_test.c — the fixtures' rendered prompts, expanded for their images and tokenized, are
 * exactly the reference's input_ids (Qwen2-VL one and two images, Qwen2.5-VL, Qwen3-VL, LLaVA with
 * CLIP and SigLIP, Gemma3); placeholder/image count mismatches are errors. */
#include "check.h"
#include "tessera.h"

/* Image token counts as the reference computed them: the placeholder rows of input_ids. */
static void check_case(const char *name)
{
    char dir[128], ref[160], json_path[160];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    snprintf(ref, sizeof(ref), "tests/fixtures/%s/reference.safetensors", name);
    snprintf(json_path, sizeof(json_path), "tests/fixtures/%s/reference.json", name);
    ts_error err;
    ts_model_config cfg;
    ts_tokenizer *tok;
    ts_checkpoint *r;
    CHECK_INT_EQ(ts_model_config_load(dir, &cfg, &err), TS_OK);
    CHECK_INT_EQ(ts_tokenizer_load(dir, &tok, &err), TS_OK);
    CHECK_INT_EQ(ts_checkpoint_open(ref, &r, &err), TS_OK);
    const ts_tensor_info *ids64 = ts_checkpoint_find(r, "input_ids");
    int64_t n = ids64->shape[1];
    const int64_t *want = ids64->data;
    /* Count each run of image tokens: that is the per-image count the processor used. */
    int64_t counts[8];
    int n_images = 0;
    for (int64_t i = 0; i < n; i++)
        if (want[i] == cfg.image_token_id) {
            if (i == 0 || want[i - 1] != cfg.image_token_id) counts[n_images++] = 0;
            counts[n_images - 1]++;
        }
    /* prompt_text from reference.json (the rendered chat, one placeholder per image). */
    FILE *f = fopen(json_path, "rb");
    char *json = calloc(1, 1 << 20);
    size_t got = fread(json, 1, (1 << 20) - 1, f);
    fclose(f);
    json[got] = '\0';
    char *p = strstr(json, "\"prompt_text\": \""), prompt[4096];
    size_t len = 0;
    for (p += 16; *p && *p != '"' && len < sizeof(prompt) - 1; p++) {
        if (*p == '\\') {
            p++;
            prompt[len++] = *p == 'n' ? '\n' : *p;
        } else {
            prompt[len++] = *p;
        }
    }
    char *expanded;
    size_t elen;
    CHECK_INT_EQ(ts_prompt_expand_images(&cfg, tok, prompt, len, counts, n_images, &expanded, &elen, &err), TS_OK);
    int32_t *ids;
    size_t n_ids;
    CHECK_INT_EQ(ts_tokenizer_encode(tok, expanded, elen, true, &ids, &n_ids, &err), TS_OK);
    bool same = (int64_t)n_ids == n;
    for (size_t i = 0; same && i < n_ids; i++) same = ids[i] == want[i];
    CHECK(same);
    fprintf(stderr, "  %s: %d image(s), %lld ids: %s\n", name, n_images, (long long)n, same ? "match" : "DIFFER");
    /* One image too many or too few is refused with the numbers. */
    char *extra = NULL;
    CHECK_INT_EQ(ts_prompt_expand_images(&cfg, tok, prompt, len, counts, n_images + 1, &extra, NULL, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK(extra == NULL);
    CHECK_CONTAINS(err.message, "image placeholder");
    free(ids), free(expanded), free(json);
    ts_checkpoint_close(r);
    ts_tokenizer_destroy(tok);
}

static void test_fixtures(void)
{
    static const char *const cases[] = {"qwen2_vl", "qwen2_vl-two-images", "qwen2_5_vl", "qwen3_vl", "llava", "llava_siglip", "gemma3"};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) check_case(cases[i]);
}

int main(void)
{
    RUN(test_fixtures);
    return check_finish();
}
