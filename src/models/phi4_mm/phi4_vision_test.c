/* phi4_vision_test.c — Phi-4-multimodal's image path against the phi4_mm-image-small fixture
 * (tools/fixtures/make_phi4_fixture.py: a 1200x60 strip, dynamic_hd 2 → 2 crops + the global
 * view, 339 image tokens), stage by stage:
 *   1. the HD processor: every pixel value bit-exact (sha256 of the whole tensor, which the slim
 *      fixture keeps instead of the 7 MB tensor, plus the kept rows and per-view sums), the patch
 *      mask, the canvas size and the token count;
 *   2. the tower's features (hidden_states[-2]) of every view, from our own pixel values;
 *   2b. the image rows from the image graph (ts_phi4_vision_build: tower, pooling, layout,
 *       projector in one program), at the image's view count and in a bucket one view larger;
 *   3. the HD layout the projector reads (pooling, cut, separators) and the projected rows;
 *   4. the prompt: <|image|> expanded by the count of stage 1 (ts_prompt_expand_images with the
 *      descriptor's REPEAT rule), tokenized = input_ids, and
 *      the token embeddings with the image rows in place = lm_inputs_embeds;
 * each within the fixtures' tolerance 1e-4 · max(1, max |ref|).
 */
#include "models/phi4_mm/phi4_image_processor.h"
#include "models/phi4_mm/phi4_vision.h"
#include "cpu/executor.h"
#include "engine/model.h"
#include "models/family.h"
#include "base/file.h"
#include "base/error.h"
#include "base/sha256.h"
#include "check.h"
#include "fixture_compare.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CASE "tests/fixtures/phi4_mm-image-small/"

static ts_checkpoint *open_ref(void)
{
    ts_checkpoint *ref = NULL;
    ts_error err;
    if (ts_checkpoint_open(CASE "reference.safetensors", &ref, &err) != TS_OK) {
        fprintf(stderr, "%s\n", err.message);
        return NULL;
    }
    return ref;
}

/* The processor's output for the fixture's image with the fixture's settings. */
static bool preprocess(ts_phi4_hd_image *im)
{
    ts_error err;
    ts_image img = {0};
    if (ts_image_load(CASE "chelsea_strip_1200x60.png", NULL, &img, &err) != TS_OK) {
        fprintf(stderr, "%s\n", err.message);
        return false;
    }
    /* processor_config.json: size 448, patch_size 14, dynamic_hd 2. */
    ts_phi4_hd_settings hs;
    ts_status st = ts_phi4_hd_settings_load(CASE "model", &hs, &err);
    if (!st && (hs.crop != 448 || hs.patch != 14 || hs.max_crops != 2)) {
        st = ts_error_set(&err, TS_ERR_FORMAT, "settings %d %d %d, want 448 14 2", hs.crop, hs.patch,
                          hs.max_crops);
    }
    if (!st) st = ts_phi4_hd_preprocess(img.rgb, img.width, img.height, hs.crop, hs.patch, hs.max_crops, im, &err);
    if (st) fprintf(stderr, "%s\n", err.message);
    ts_image_free(&img);
    return st == TS_OK;
}

/* reference.json's "image_pixel_values_sha256". */
static bool ref_pixel_sha(char out[65])
{
    char *text = NULL;
    size_t len;
    ts_error err;
    if (ts_file_read(CASE "reference.json", &text, &len, &err) != TS_OK) return false;
    const char *key = "\"image_pixel_values_sha256\": \"";
    const char *p = strstr(text, key);
    bool ok = p && strlen(p + strlen(key)) >= 64;
    if (ok) {
        memcpy(out, p + strlen(key), 64);
        out[64] = 0;
    }
    free(text);
    return ok;
}

static void test_processor(void)
{
    ts_checkpoint *ref = open_ref();
    REQUIRE(ref);
    ts_phi4_hd_image im;
    bool ok = preprocess(&im);
    CHECK(ok);
    if (!ok) {
        ts_checkpoint_close(ref);
        return;
    }
    CHECK_INT_EQ(im.grid_w, 2);
    CHECK_INT_EQ(im.grid_h, 1);
    CHECK_INT_EQ(im.views, 3);
    const ts_tensor_info *sizes = ref_tensor(ref, "image_sizes");
    const ts_tensor_info *mask = ref_tensor(ref, "image_attention_mask");
    const ts_tensor_info *rows = ref_tensor(ref, "image_pixel_values_rows64");
    const ts_tensor_info *sums = ref_tensor(ref, "image_pixel_values_sum");
    const ts_tensor_info *ids = ref_tensor(ref, "input_ids");
    CHECK(sizes && mask && rows && sums && ids);
    if (sizes && mask && rows && sums && ids) {
        const int64_t *hw = (const int64_t *)sizes->data;
        CHECK_INT_EQ(hw[0], 448 * im.grid_h);
        CHECK_INT_EQ(hw[1], 448 * im.grid_w);
        /* Token count = the <|image|> (1285) tokens the reference's processor put in the prompt. */
        int64_t want = 0;
        for (int64_t i = 0; i < ids->shape[1]; i++)
            want += ((const int64_t *)ids->data)[i] == 1285;
        CHECK_INT_EQ(im.tokens, want);
        CHECK_INT_EQ(im.tokens, 339);
        CHECK_INT_EQ(mask->shape[1], im.views);
        size_t m = 32 * 32, bad = 0;
        for (size_t i = 0; i < (size_t)im.views * m; i++)
            bad += ((const int64_t *)mask->data)[i] != im.mask[i];
        CHECK_INT_EQ(bad, 0);
        /* As shared code carries it (ts_pixel_values): the masks and the count rebuilt from the
         * header are the processor's. */
        ts_phi4_hd_image moved, view;
        ts_pixel_values pv;
        ts_error e;
        REQUIRE(preprocess(&moved));
        ts_phi4_hd_to_pixels(&moved, &pv);
        CHECK(moved.pixels == NULL && pv.n_dims == 4 && pv.shape[0] == 3 && pv.grid_thw[2] == 2);
        CHECK_INT_EQ(pv.n_tokens, 339);
        REQUIRE_INT_EQ(ts_phi4_hd_view(&pv, 14, &view, &e), TS_OK);
        CHECK_INT_EQ(view.tokens, 339);
        CHECK(view.pixels == pv.data);
        CHECK(memcmp(view.mask, im.mask, (size_t)im.views * m) == 0);
        free(view.mask);
        pv.grid_thw[2] = 3; /* 1 + 1·3 views ≠ 3 */
        CHECK_INT_EQ(ts_phi4_hd_view(&pv, 14, &view, &e), TS_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(e.message, "crop grid");
        ts_pixel_values_free(&pv);
        /* Every 64th row of every view and channel, bit for bit. */
        const float *r = (const float *)rows->data;
        size_t plane = 448 * 448, differ = 0, k = 0;
        for (int v = 0; v < im.views; v++)
            for (int c = 0; c < 3; c++)
                for (int y = 0; y < 448; y += 64)
                    for (int x = 0; x < 448; x++, k++)
                        differ += memcmp(&r[k], &im.pixels[(size_t)(v * 3 + c) * plane + (size_t)y * 448 + x],
                                         sizeof(float)) != 0;
        CHECK_INT_EQ(k, (size_t)rows->shape[1] * 3 * 7 * 448);
        CHECK_INT_EQ(differ, 0);
        double worst = 0;
        for (int v = 0; v < im.views; v++)
            for (int c = 0; c < 3; c++) {
                double s = 0;
                for (size_t i = 0; i < plane; i++)
                    s += im.pixels[(size_t)(v * 3 + c) * plane + i];
                worst = fmax(worst, fabs(s - ((const float *)sums->data)[v * 3 + c]) / fmax(1, fabs(s)));
            }
        CHECK(worst < 1e-6);
        char want_sha[65], got_sha[65];
        CHECK(ref_pixel_sha(want_sha));
        ts_sha256_hex(im.pixels, (size_t)im.views * 3 * plane * sizeof(float), got_sha);
        CHECK_STR_EQ(got_sha, want_sha);
        fprintf(stderr, "processor: %d views, %" PRId64 " tokens, rows64 differing %zu, sums rel %.3g, sha %s\n",
                im.views, im.tokens, differ, worst, strcmp(got_sha, want_sha) ? "DIFFERS" : "equal");
    }
    ts_phi4_hd_free(&im);
    ts_checkpoint_close(ref);
}

/* The checkpoint as a weight source. */
static const ts_tensor_info *find(void *self, const char *name, int rank, const int64_t *dims)
{
    (void)rank, (void)dims;
    return ts_checkpoint_find(self, name);
}

static bool read_spec(ts_phi4_vision_spec *spec)
{
    ts_error err;
    cJSON *root = NULL;
    ts_json_reader r = {"config.json", "vision_config.", &err};
    bool ok = ts_json_read_file(CASE "model/config.json", &root, &err) == TS_OK &&
              ts_phi4_vision_spec_read(&r, ts_json_member(root, "vision_config"),
                                       cJSON_GetObjectItem(root, "hidden_size")->valueint, spec) == TS_OK;
    if (!ok) fprintf(stderr, "%s\n", err.message);
    cJSON_Delete(root);
    return ok;
}

/* Largest error of n floats against the named reference tensor (which must hold n). */
static double stage(const ts_checkpoint *ref, const char *name, const float *ours, size_t n)
{
    const ts_tensor_info *t = ref_tensor(ref, name);
    if (!t || t->n_bytes != n * sizeof(float)) {
        fprintf(stderr, "%s: %zu bytes, want %zu\n", name, t ? t->n_bytes : 0, n * sizeof(float));
        return INFINITY;
    }
    double scale, d = max_diff(ours, t->data, n, &scale);
    fprintf(stderr, "%-22s max |ours - ref| %.3g (tolerance %.3g)\n", name, d, 1e-4 * scale);
    return d / (1e-4 * scale);
}

/* The reference, the weights, the spec and our processor's output for the fixture's image. */
typedef struct {
    ts_checkpoint *ref, *weights;
    ts_phi4_vision_spec spec;
    ts_phi4_hd_image im;
} setup;

static void setup_close(setup *f)
{
    ts_phi4_hd_free(&f->im);
    if (f->weights) ts_checkpoint_close(f->weights);
    if (f->ref) ts_checkpoint_close(f->ref);
}

static bool setup_open(setup *f)
{
    memset(f, 0, sizeof(*f));
    ts_error err;
    f->ref = open_ref();
    bool ok = f->ref && read_spec(&f->spec) && ts_checkpoint_open(CASE "model", &f->weights, &err) == TS_OK;
    if (f->ref && !f->weights) fprintf(stderr, "%s\n", err.message);
    return ok && preprocess(&f->im);
}

static void test_tower_and_projector(void)
{
    ts_error err;
    setup f;
    bool ok = setup_open(&f);
    CHECK(ok);
    if (!ok) return setup_close(&f);
    CHECK_INT_EQ(f.spec.layers, 2);
    ts_weight_source ws = {find, f.weights};
    float *feat = NULL, *rows = NULL, *hd = NULL;
    CHECK_INT_EQ(ts_phi4_vision_features(&f.spec, &ws, &f.im, &feat, &err), TS_OK);
    if (feat) CHECK(stage(f.ref, "vision_block_1", feat, (size_t)f.im.views * 1024 * 16) <= 1);
    CHECK_INT_EQ(ts_phi4_image_rows(&f.spec, &ws, &f.im, &rows, &hd, &err), TS_OK);
    if (rows && hd) {
        CHECK(stage(f.ref, "image_features_hd", hd, (size_t)f.im.tokens * 16) <= 1);
        CHECK(stage(f.ref, "image_embeds", rows, (size_t)f.im.tokens * 48) <= 1);
    }
    free(feat), free(rows), free(hd);
    setup_close(&f);
}

/* What the processor refuses, before any pixel: settings it does not follow, and the reference's
 * "very extreme" aspect ratios. */
static void test_refusals(void)
{
    ts_error err;
    ts_phi4_hd_settings hs;
    char dir[] = "/tmp/phi4_hd_XXXXXX";
    REQUIRE(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof(path), "%s/preprocessor_config.json", dir);
    CHECK_INT_EQ(ts_phi4_hd_settings_load(dir, &hs, &err), TS_ERR_NOT_FOUND);
    const char *cases[][2] = {{"\"dynamic_hd\": 0}", "dynamic_hd"},
                              {"\"size\": {\"height\": 448, \"width\": 224}}", "size"},
                              {"\"image_mean\": [0.48, 0.45, 0.4]}", "image_mean"}};
    for (int i = 0; i < 3; i++) {
        FILE *f = fopen(path, "w");
        REQUIRE(f);
        fprintf(f, "{\"image_processor_type\": \"Phi4MultimodalImageProcessor\", %s", cases[i][0]);
        fclose(f);
        CHECK_INT_EQ(ts_phi4_hd_settings_load(dir, &hs, &err), TS_ERR_UNSUPPORTED);
        CHECK_CONTAINS(err.message, cases[i][1]);
    }
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    fputs("{\"image_processor_type\": \"Phi4MultimodalImageProcessor\"}", f);
    fclose(f);
    CHECK_INT_EQ(ts_phi4_hd_settings_load(dir, &hs, &err), TS_OK);
    CHECK(hs.crop == 448 && hs.patch == 14 && hs.max_crops == 36);
    remove(path);
    rmdir(dir);
    /* 2000 × 4: the canvas is 2240 × 448 and the image 4·1.12 = 4 rows tall (< 10). */
    uint8_t *px = calloc(2000 * 4 * 3, 1);
    ts_phi4_hd_image im;
    CHECK_INT_EQ(ts_phi4_hd_preprocess(px, 2000, 4, 448, 14, 36, &im, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "very extreme");
    CHECK_INT_EQ(ts_phi4_hd_preprocess(px, 2000, 4, 448, 14, 0, &im, &err), TS_ERR_INVALID_ARGUMENT);
    free(px);
}

static ts_context *ctx;

/* The image graph (tower, pooling, HD layout, projector), run once for the image's views and once
 * in a bucket of more views (padding views as vision.main gets them), against the fixture's rows. */
static void test_graph_tower(void)
{
    ts_error err;
    setup f;
    bool ok = setup_open(&f);
    CHECK(ok);
    if (!ok) return setup_close(&f);
    ts_weight_source ws = {find, f.weights};
    size_t n = 1024, plane = 3 * 448 * 448;
    for (int64_t views = f.im.views; views <= f.im.views + 1; views++) {
        ts_graph *g = NULL;
        ts_program *prog = NULL;
        bool built = ts_graph_create(&g, &err) == TS_OK && ts_phi4_vision_build(g, &f.spec, &ws, views, &err) == TS_OK &&
                     ts_program_create(g, ctx, &prog, &err) == TS_OK;
        if (!built) fprintf(stderr, "%s\n", err.message);
        CHECK(built);
        int64_t max = ts_phi4_image_rows_max(&f.spec, views);
        float *px = calloc(plane * (size_t)views, sizeof(float)), *bias = malloc(sizeof(float) * n * (size_t)views);
        int32_t *pos = malloc(sizeof(int32_t) * n * (size_t)views), *layout = malloc(sizeof(int32_t) * (size_t)max);
        memcpy(px, f.im.pixels, sizeof(float) * plane * (size_t)f.im.views);
        CHECK_INT_EQ(ts_phi4_image_inputs(&f.spec, &f.im, views, pos, bias, layout, &err), TS_OK);
        void **params = built ? calloc((size_t)g->n_parameters, sizeof(void *)) : NULL;
        for (int32_t i = 0; params && i < g->n_nodes; i++) {
            const ts_node *nd = &g->nodes[i];
            if (nd->op != TS_OP_PARAMETER) continue;
            void **slot = &params[nd->attrs.parameter.index];
            if (nd->attrs.parameter.role == TS_PARAM_WEIGHT) *slot = (void *)ts_checkpoint_find(f.weights, nd->name)->data;
            else if (strcmp(nd->name, "pixel_values") == 0) *slot = px;
            else if (strcmp(nd->name, "positions") == 0) *slot = pos;
            else if (strcmp(nd->name, "key_bias") == 0) *slot = bias;
            else if (strcmp(nd->name, "layout") == 0) *slot = layout;
        }
        const void *out = NULL;
        if (params) CHECK_INT_EQ(ts_program_run(prog, params, &out, &err), TS_OK);
        if (out) CHECK(stage(f.ref, "image_embeds", out, (size_t)f.im.tokens * 48) <= 1);
        /* Fewer views than the image has is refused, naming the counts. */
        CHECK_INT_EQ(ts_phi4_image_inputs(&f.spec, &f.im, f.im.views - 1, pos, bias, layout, &err),
                     TS_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(err.message, "views");
        free(params), free(px), free(bias), free(pos), free(layout);
        ts_program_destroy(prog);
        ts_graph_destroy(g);
    }
    setup_close(&f);
}

static void test_prompt_and_embeddings(void)
{
    ts_checkpoint *ref = open_ref(), *weights = NULL;
    ts_error err;
    REQUIRE(ref);
    ts_phi4_vision_spec spec;
    ts_phi4_hd_image im;
    ts_model *m = NULL;
    ts_tokenizer *tok = NULL;
    cJSON *doc = NULL;
    bool ok = read_spec(&spec) && preprocess(&im);
    REQUIRE(ok);
    ok = ts_checkpoint_open(CASE "model", &weights, &err) == TS_OK &&
         ts_model_load(ctx, CASE "model", NULL, &m, &err) == TS_OK &&
         ts_tokenizer_load(CASE "model", &tok, &err) == TS_OK &&
         ts_json_read_file(CASE "reference.json", &doc, &err) == TS_OK;
    if (!ok) fprintf(stderr, "%s\n", err.message);
    CHECK(ok);
    const cJSON *prompt = ok ? ts_json_member(doc, "prompt_text") : NULL;
    CHECK(prompt && cJSON_IsString(prompt));
    if (ok && prompt && cJSON_IsString(prompt)) {
        /* The model's own config: the descriptor's image rule and vision_config's image token. */
        ts_model_config cfg = *ts_model_get_config(m);
        CHECK(cfg.family->image_prompt == TS_IMAGE_PROMPT_REPEAT);
        CHECK_INT_EQ(cfg.image_token_id, spec.image_token_id);
        char *expanded = NULL;
        size_t len = 0, n = 0;
        int32_t *ids = NULL;
        const char *text = prompt->valuestring;
        CHECK_INT_EQ(ts_prompt_expand_images(&cfg, tok, text, strlen(text), &im.tokens, 1, &expanded, &len, &err),
                     TS_OK);
        CHECK_INT_EQ(ts_tokenizer_encode(tok, expanded ? expanded : "", len, true, &ids, &n, &err), TS_OK);
        const ts_tensor_info *want = ref_tensor(ref, "input_ids");
        bool same = want && ids && (int64_t)n == want->shape[1];
        for (size_t i = 0; same && i < n; i++)
            same = ids[i] == ((const int64_t *)want->data)[i];
        CHECK(same);
        ts_weight_source ws = {find, weights};
        float *rows = NULL;
        CHECK_INT_EQ(ts_phi4_image_rows(&spec, &ws, &im, &rows, NULL, &err), TS_OK);
        int64_t hidden = cfg.text.hidden_size;
        float *emb = same && rows ? malloc(sizeof(float) * n * (size_t)hidden) : NULL;
        if (emb) {
            /* ts_mm_inputs_build's merge: token rows, the image rows in prompt order at the image
             * tokens. */
            int32_t *text_ids = malloc(sizeof(int32_t) * n);
            for (size_t i = 0; i < n; i++)
                text_ids[i] = ids[i] == spec.image_token_id ? 0 : ids[i];
            CHECK_INT_EQ(ts_model_embed_tokens(m, text_ids, n, emb, &err), TS_OK);
            int64_t next = 0;
            for (size_t i = 0; i < n; i++)
                if (ids[i] == spec.image_token_id && next < im.tokens)
                    memcpy(emb + i * (size_t)hidden, rows + next++ * hidden, sizeof(float) * (size_t)hidden);
            CHECK_INT_EQ(next, im.tokens);
            CHECK(stage(ref, "lm_inputs_embeds", emb, n * (size_t)hidden) <= 1);
            free(text_ids);
        }
        free(emb), free(rows), free(ids), free(expanded);
    }
    cJSON_Delete(doc);
    if (tok) ts_tokenizer_destroy(tok);
    if (m) ts_model_destroy(m);
    if (weights) ts_checkpoint_close(weights);
    ts_phi4_hd_free(&im);
    ts_checkpoint_close(ref);
}

int main(void)
{
    ts_context_options o = {.n_threads = 2};
    ts_error err;
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    RUN(test_processor);
    RUN(test_refusals);
    RUN(test_tower_and_projector);
    RUN(test_graph_tower);
    RUN(test_prompt_and_embeddings);
    ts_context_destroy(ctx);
    return check_finish();
}
