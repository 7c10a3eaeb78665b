/* gemma3_vlm_test.c — Gemma3's bidirectional image blocks against tests/fixtures/gemma3: the
 * attention bias ts_mm_inputs_build makes equals the mask transformers derives from the
 * fixture's token_type_ids (causal OR same image group); with it every hidden state and the
 * prefill logits are within 1e-4 × max(1, max |ref|), without it (causal only) the image rows
 * diverge past that; a prefill in chunks equals the whole one and a chunk edge inside an image
 * is refused; bad biases, image counts and over-long image blocks are refused with the sequence
 * unchanged. (vlm_fixture_test runs the whole path from the PNG to the 16 greedy tokens.) */
#include "check.h"
#include "engine/model.h"
#include "tessera.h"

#include <math.h>

static ts_context *ctx;

typedef struct {
    ts_model *m;
    ts_checkpoint *ref;
    int32_t *ids;
    size_t n;
    int64_t hidden, vocab, image_token;
    ts_pixel_values image;  /* the reference's pixel_values (data borrowed) */
    ts_encoded_media media; /* the reference's image_embeds as the tower's rows (owned copy) */
    const int64_t *token_type_ids;
} fixture;

static bool fixture_open(fixture *f)
{
    memset(f, 0, sizeof(*f));
    ts_error err;
    if (ts_model_load(ctx, "tests/fixtures/gemma3/model", NULL, &f->m, &err) != TS_OK ||
        ts_checkpoint_open("tests/fixtures/gemma3/reference.safetensors", &f->ref, &err) != TS_OK) {
        fprintf(stderr, "gemma3: %s\n", err.message);
        return false;
    }
    const ts_model_config *cfg = ts_model_get_config(f->m);
    f->hidden = cfg->text.hidden_size, f->vocab = ts_model_vocab_size(f->m);
    f->image_token = cfg->image_token_id;
    const ts_tensor_info *ids = ts_checkpoint_find(f->ref, "input_ids"),
                         *pv = ts_checkpoint_find(f->ref, "pixel_values"),
                         *emb = ts_checkpoint_find(f->ref, "image_embeds"),
                         *tt = ts_checkpoint_find(f->ref, "token_type_ids");
    if (!ids || !pv || !emb || !tt || pv->n_dims != 4) return false;
    f->n = (size_t)ids->shape[1];
    f->ids = malloc(sizeof(int32_t) * f->n);
    for (size_t i = 0; i < f->n; i++)
        f->ids[i] = (int32_t)((const int64_t *)ids->data)[i];
    f->image = (ts_pixel_values){.data = (float *)pv->data, .n_dims = 4};
    memcpy(f->image.shape, pv->shape, sizeof(f->image.shape));
    int64_t rows = emb->shape[1];
    f->media = (ts_encoded_media){.rows = malloc(sizeof(float) * (size_t)(rows * f->hidden)),
                                  .n_rows = rows, .hidden = f->hidden};
    memcpy(f->media.rows, emb->data, sizeof(float) * (size_t)(rows * f->hidden));
    f->token_type_ids = tt->data;
    return true;
}

static void fixture_close(fixture *f)
{
    free(f->ids);
    ts_encoded_media_free(&f->media);
    if (f->ref) ts_checkpoint_close(f->ref);
    ts_model_destroy(f->m);
}

/* max |ours − ref| over a stage and its tolerance 1e-4 × max(1, max |ref|). */
static double stage_diff(const float *ours, const ts_tensor_info *t, int64_t count,
                         double *tolerance)
{
    const float *r = t->data;
    double worst = 0, scale = 1;
    for (int64_t i = 0; i < count; i++)
        scale = fmax(scale, fabs(r[i])), worst = fmax(worst, fabs((double)ours[i] - r[i]));
    *tolerance = 1e-4 * scale;
    return worst;
}

/* The mask transformers builds (create_causal_mask with token_type_ids_mask_function as
 * or_mask): image_group_ids count runs of token_type_ids == 1; q sees k when k ≤ q, or both are
 * image tokens of the same group. Written from the reference's rule, apart from mm_inputs.c. */
static void test_bias_is_the_reference_mask(void)
{
    fixture f;
    REQUIRE(fixture_open(&f));
    ts_error err;
    ts_mm_inputs mm;
    REQUIRE_INT_EQ(ts_mm_inputs_build(f.m, f.ids, f.n, &f.image, 1, &f.media, &mm, &err), TS_OK);
    CHECK_INT_EQ(mm.side_kind, TS_SIDE_ATTENTION_BIAS);
    CHECK(mm.attention.shape[0] == 1 && mm.attention.shape[1] == 1 &&
          mm.attention.shape[2] == (int64_t)f.n && mm.attention.shape[3] == (int64_t)f.n);
    int64_t group[64], g = -1;
    REQUIRE(f.n <= 64);
    for (size_t i = 0; i < f.n; i++) {
        bool image = f.token_type_ids[i] == 1, previous = i > 0 && f.token_type_ids[i - 1] == 1;
        if (image && !previous) g++;
        group[i] = image ? g : -1;
    }
    int64_t wrong = 0, future = 0;
    for (size_t q = 0; q < f.n; q++)
        for (size_t k = 0; k < f.n; k++) {
            bool see = k <= q || (group[q] >= 0 && group[q] == group[k]);
            float want = see ? 0.0f : -INFINITY, got = mm.attention.bias[q * f.n + k];
            wrong += got != want;
            future += k > q && got == 0.0f;
        }
    CHECK_INT_EQ(wrong, 0);
    CHECK_INT_EQ(g, 0);      /* one image … */
    CHECK_INT_EQ(future, 6); /* … of 4 tokens: 3 + 2 + 1 keys after the query are visible */
    ts_side_inputs side = ts_mm_inputs_side(&mm);
    CHECK(side.kind == TS_SIDE_ATTENTION_BIAS && side.attention == &mm.attention &&
          !side.deepstack);
    fprintf(stderr,
            "  bias [1, 1, %zu, %zu]: %lld entries differ from the token_type_ids mask, %lld "
            "bidirectional\n",
            f.n, f.n, (long long)wrong, (long long)future);
    ts_mm_inputs_free(&mm);
    /* A text prompt needs no payload: the causal prefill is the same. */
    int32_t text[3] = {f.ids[0], f.ids[1], f.ids[2]};
    REQUIRE_INT_EQ(ts_mm_inputs_build(f.m, text, 3, NULL, 0, NULL, &mm, &err), TS_OK);
    CHECK_INT_EQ(mm.side_kind, TS_SIDE_NONE);
    CHECK(mm.attention.bias == NULL);
    ts_mm_inputs_free(&mm);
    fixture_close(&f);
}

/* The reference's LM inputs with our bias: every hidden state and the prefill logits within
 * tolerance. Causal only (no side input), the layers after the first see the image rows'
 * outputs without their later image tokens: past tolerance. */
static void test_stages_need_the_bias(void)
{
    fixture f;
    REQUIRE(fixture_open(&f));
    ts_error err;
    ts_mm_inputs mm;
    REQUIRE_INT_EQ(ts_mm_inputs_build(f.m, f.ids, f.n, &f.image, 1, &f.media, &mm, &err), TS_OK);
    const ts_tensor_info *inputs = ts_checkpoint_find(f.ref, "lm_inputs_embeds"),
                         *pl = ts_checkpoint_find(f.ref, "prefill_logits");
    REQUIRE(inputs && pl);
    int64_t layers = ts_model_get_config(f.m)->text.num_hidden_layers, n = (int64_t)f.n;
    REQUIRE(layers < 16);
    float *logits = malloc(sizeof(float) * (size_t)(n * f.vocab)), *hid[16];
    for (int64_t l = 0; l <= layers; l++)
        hid[l] = malloc(sizeof(float) * (size_t)(n * f.hidden));
    ts_side_inputs side = ts_mm_inputs_side(&mm);
    for (int with = 1; with >= 0; with--) {
        ts_sequence *seq;
        REQUIRE_INT_EQ(ts_sequence_create(f.m, n, &seq, &err), TS_OK);
        ts_diagnostic_prefill d = {.logits = logits,
                                   .hidden = hid,
                                   .embeddings = inputs->data,
                                   .positions = mm.positions,
                                   .side = with ? &side : NULL};
        REQUIRE_INT_EQ(ts_model_prefill_diagnostic(f.m, seq, NULL, f.n, &d, &err), TS_OK);
        double worst_ratio = 0, tol;
        for (int64_t l = 0; l <= layers; l++) {
            char stage[32];
            snprintf(stage, sizeof(stage), "hidden_state_%lld", (long long)l);
            const ts_tensor_info *t = ts_checkpoint_find(f.ref, stage);
            REQUIRE(t);
            double diff = stage_diff(hid[l], t, n * f.hidden, &tol);
            worst_ratio = fmax(worst_ratio, diff / tol);
            if (with) CHECK(diff <= tol);
            fprintf(stderr, "  %s %s: max |diff| %.3g (tolerance %.3g)\n",
                    with ? "bidirectional" : "causal only", stage, diff, tol);
        }
        double diff = stage_diff(logits, pl, n * f.vocab, &tol);
        fprintf(stderr, "  %s prefill_logits: max |diff| %.3g (tolerance %.3g)\n",
                with ? "bidirectional" : "causal only", diff, tol);
        if (with)
            CHECK(diff <= tol);
        else
            CHECK(worst_ratio > 10); /* the bias is what makes the image rows match */
        ts_sequence_destroy(seq);
    }
    for (int64_t l = 0; l <= layers; l++)
        free(hid[l]);
    free(logits);
    ts_mm_inputs_free(&mm);
    fixture_close(&f);
}

/* The whole prompt in one call and in chunks through ts_mm_inputs_slice: the same last logits
 * (within 1e-5 × max(1, max |ref|)); a chunk edge at row 8, inside the image's rows 6 … 9, is
 * refused before anything runs. */
static void test_chunked_prefill(void)
{
    fixture f;
    REQUIRE(fixture_open(&f));
    ts_error err;
    ts_mm_inputs mm;
    REQUIRE_INT_EQ(ts_mm_inputs_build(f.m, f.ids, f.n, &f.image, 1, &f.media, &mm, &err), TS_OK);
    float *whole = malloc(sizeof(float) * (size_t)f.vocab),
          *chunked = malloc(sizeof(float) * (size_t)f.vocab);
    ts_sequence *a, *b;
    REQUIRE_INT_EQ(ts_sequence_create(f.m, (int64_t)f.n, &a, &err), TS_OK);
    REQUIRE_INT_EQ(ts_sequence_create(f.m, (int64_t)f.n, &b, &err), TS_OK);
    ts_side_inputs side = ts_mm_inputs_side(&mm);
    REQUIRE_INT_EQ(
        ts_model_prefill_embeddings(f.m, a, mm.embeddings, f.n, NULL, 0, &side, whole, &err),
        TS_OK);
    size_t edges[3] = {0, 12, f.n};
    for (int c = 0; c < 2; c++) {
        ts_mm_inputs part;
        REQUIRE_INT_EQ(ts_mm_inputs_slice(&mm, edges[c], edges[c + 1] - edges[c], &part, &err),
                       TS_OK);
        ts_side_inputs ps = ts_mm_inputs_side(&part);
        CHECK(c == 1 || ps.kind == TS_SIDE_ATTENTION_BIAS);
        CHECK_INT_EQ(ts_model_prefill_embeddings(f.m, b, part.embeddings, part.n, NULL, 0, &ps,
                                                 chunked, &err),
                     TS_OK);
        ts_mm_inputs_free(&part);
    }
    double worst = 0, scale = 1;
    for (int64_t i = 0; i < f.vocab; i++)
        scale = fmax(scale, fabs(whole[i])),
        worst = fmax(worst, fabs((double)whole[i] - chunked[i]));
    CHECK(worst <= 1e-5 * scale);
    CHECK_INT_EQ(ts_sequence_length(b), (int64_t)f.n);
    fprintf(stderr, "  chunks 0..11, 12..26 vs one call: last logits max |diff| %.3g\n", worst);
    /* The chunk sizes a scheduler asks for: an edge inside rows 6 … 9 moves back to 6, a block
     * longer than the chunk is taken whole, other edges stay. */
    CHECK_INT_EQ(ts_mm_inputs_chunk(&mm, 0, 8), 6);
    CHECK_INT_EQ(ts_mm_inputs_chunk(&mm, 0, 10), 10);
    CHECK_INT_EQ(ts_mm_inputs_chunk(&mm, 6, 2), 4);
    CHECK_INT_EQ(ts_mm_inputs_chunk(&mm, 10, 100), f.n - 10);
    CHECK_INT_EQ(ts_mm_inputs_chunk(&mm, f.n, 4), 0);
    ts_mm_inputs part;
    CHECK_INT_EQ(ts_mm_inputs_slice(&mm, 0, 8, &part, &err), TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "image block split between chunks");
    CHECK_INT_EQ(ts_mm_inputs_slice(&mm, 8, 10, &part, &err), TS_ERR_UNSUPPORTED);
    ts_sequence_destroy(a), ts_sequence_destroy(b);
    free(whole), free(chunked);
    ts_mm_inputs_free(&mm);
    fixture_close(&f);
}

/* Each refused with a message, the sequence as it was (length 0, then a good prefill works). */
static void test_refusals(void)
{
    fixture f;
    REQUIRE(fixture_open(&f));
    ts_error err;
    ts_mm_inputs mm;
    REQUIRE_INT_EQ(ts_mm_inputs_build(f.m, f.ids, f.n, &f.image, 1, &f.media, &mm, &err), TS_OK);
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(f.m, (int64_t)f.n + 8, &seq, &err), TS_OK);
    float *logits = malloc(sizeof(float) * (size_t)f.vocab);
    size_t n = f.n, cells = n * n;
    float *bias = malloc(sizeof(float) * cells);
    ts_attention_bias ab;
    ts_side_inputs side = {TS_SIDE_ATTENTION_BIAS, NULL, &ab};
    /* Wrong shape: a [1, 1, n−1, n] mask, a [2, 1, n, n] batch, a per-head [1, 4, n, n]. */
    static const int64_t shapes[3][4] = {{1, 1, -1, 0}, {2, 1, 0, 0}, {1, 4, 0, 0}};
    for (int i = 0; i < 3; i++) {
        memcpy(bias, mm.attention.bias, sizeof(float) * cells);
        ab = (ts_attention_bias){
            bias,
            {shapes[i][0], shapes[i][1], (int64_t)n + shapes[i][2], (int64_t)n + shapes[i][3]}};
        CHECK_INT_EQ(
            ts_model_prefill_embeddings(f.m, seq, mm.embeddings, n, NULL, 0, &side, logits, &err),
            TS_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(err.message, "attention bias: shape");
        CHECK_INT_EQ(ts_sequence_length(seq), 0);
    }
    /* NaN, +inf anywhere; −inf on the diagonal (a row that sees nothing). */
    ab = (ts_attention_bias){bias, {1, 1, (int64_t)n, (int64_t)n}};
    const float poison[3] = {NAN, INFINITY, -INFINITY};
    const size_t at[3] = {3 * n + 20, 7 * n + 1, 8 * n + 8};
    for (int i = 0; i < 3; i++) {
        memcpy(bias, mm.attention.bias, sizeof(float) * cells);
        bias[at[i]] = poison[i];
        CHECK_INT_EQ(
            ts_model_prefill_embeddings(f.m, seq, mm.embeddings, n, NULL, 0, &side, logits, &err),
            TS_ERR_RANGE);
        CHECK_CONTAINS(err.message, "attention bias: value at");
        CHECK_INT_EQ(ts_sequence_length(seq), 0);
    }
    ab.bias = NULL;
    CHECK_INT_EQ(
        ts_model_prefill_embeddings(f.m, seq, mm.embeddings, n, NULL, 0, &side, logits, &err),
        TS_ERR_INVALID_ARGUMENT);
    side.attention = NULL;
    CHECK_INT_EQ(
        ts_model_prefill_embeddings(f.m, seq, mm.embeddings, n, NULL, 0, &side, logits, &err),
        TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "no payload");
    /* Image count against the placeholders: two images for the prompt's one block. */
    ts_pixel_values two = f.image;
    size_t pixels = (size_t)(two.shape[1] * two.shape[2] * two.shape[3]);
    two.shape[0] = 2;
    two.data = malloc(sizeof(float) * 2 * pixels);
    memcpy(two.data, f.image.data, sizeof(float) * pixels);
    memcpy(two.data + pixels, f.image.data, sizeof(float) * pixels);
    CHECK_INT_EQ(ts_model_prefill_images(f.m, seq, f.ids, n, &two, 1, logits, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "image tokens");
    CHECK_INT_EQ(ts_sequence_length(seq), 0);
    ts_pixel_values apart[2] = {f.image, f.image};
    CHECK_INT_EQ(ts_model_prefill_images(f.m, seq, f.ids, n, apart, 2, logits, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK_INT_EQ(ts_sequence_length(seq), 0);
    /* An image block longer than sliding_window (8): 9 image tokens in a row. */
    int32_t long_ids[12] = {f.ids[0], f.ids[1]};
    for (int i = 2; i < 11; i++)
        long_ids[i] = (int32_t)f.image_token;
    long_ids[11] = f.ids[1];
    ts_encoded_media nine = {.rows = calloc(9 * (size_t)f.hidden, sizeof(float)), .n_rows = 9, .hidden = f.hidden};
    ts_mm_inputs bad;
    CHECK_INT_EQ(ts_mm_inputs_build(f.m, long_ids, 12, NULL, 0, &nine, &bad, &err),
                 TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "longer than sliding_window 8");
    nine.n_rows = 8, long_ids[10] = f.ids[1]; /* 8 tokens fit the window */
    CHECK_INT_EQ(ts_mm_inputs_build(f.m, long_ids, 12, NULL, 0, &nine, &bad, &err), TS_OK);
    ts_mm_inputs_free(&bad);
    /* The sequence is unharmed: the good prefill still gives the reference's last logits. */
    side = ts_mm_inputs_side(&mm);
    CHECK_INT_EQ(
        ts_model_prefill_embeddings(f.m, seq, mm.embeddings, n, NULL, 0, &side, logits, &err),
        TS_OK);
    const ts_tensor_info *last = ts_checkpoint_find(f.ref, "prefill_last_logits");
    double tol, diff = stage_diff(logits, last, f.vocab, &tol);
    CHECK(diff <= tol);
    ts_encoded_media_free(&nine);
    free(two.data), free(bias), free(logits);
    ts_sequence_destroy(seq);
    ts_mm_inputs_free(&mm);
    fixture_close(&f);
}

/* Pan-and-scan (off in the fixture's preprocessor_config; on here with 20-pixel crops): chelsea
 * (451×300, ratio 1.5) gives the original and 2 crops, three views of 4 tokens; the prompt gives
 * each its own block in Gemma3Processor's words; the attention bias three groups; the prefill of
 * the one image with three views equals the same ids with the views as three images, bit for
 * bit (the crops are extra images). A config asking for more views than the image budget, and a
 * prompt expanded without the crops, are refused. */
static void test_pan_and_scan(void)
{
    fixture f;
    REQUIRE(fixture_open(&f));
    ts_error err;
    const char *dir = "tests/fixtures/gemma3/model";
    ts_preprocessor_config pc;
    ts_tokenizer *tok;
    REQUIRE_INT_EQ(ts_preprocessor_config_load(dir, &pc, &err), TS_OK);
    REQUIRE_INT_EQ(ts_tokenizer_load(dir, &tok, &err), TS_OK);
    CHECK(!pc.do_pan_and_scan && pc.pan_and_scan_min_crop_size == 256 &&
          pc.pan_and_scan_max_num_crops == 4);
    pc.do_pan_and_scan = true, pc.pan_and_scan_min_crop_size = 20;
    const ts_model_config *cfg = ts_model_get_config(f.m);
    ts_image img;
    REQUIRE_INT_EQ(ts_image_load("tests/fixtures/gemma3/chelsea.png", NULL, &img, &err), TS_OK);
    ts_pixel_values views;
    REQUIRE_INT_EQ(
        ts_preprocess_image(&pc, cfg->family, img.rgb, img.width, img.height, NULL, &views, &err),
        TS_OK);
    CHECK_INT_EQ(views.shape[0], 3);
    int64_t count = ts_model_image_tokens(f.m, &views);
    CHECK_INT_EQ(count, 12);
    /* The original view is the fixture's pixel_values exactly (pan-and-scan adds, never alters). */
    size_t view = (size_t)(views.shape[1] * views.shape[2] * views.shape[3]);
    CHECK(memcmp(views.data, f.image.data, sizeof(float) * view) == 0);
    const char *prompt =
        "<bos><start_of_turn>user\n<start_of_image>Describe this image.<end_of_turn>\n";
    char *expanded;
    size_t len;
    REQUIRE_INT_EQ(
        ts_prompt_expand_images(cfg, tok, prompt, strlen(prompt), &count, 1, &expanded, &len, &err),
        TS_OK);
    const char *block = "\n\n<start_of_image><image_soft_token><image_soft_token><image_soft_token>"
                        "<image_soft_token><end_of_image>\n\n";
    char want[1024];
    snprintf(want, sizeof(want),
             "<bos><start_of_turn>user\nHere is the original image %s and here are some crops to "
             "help you "
             "see better %s %sDescribe this image.<end_of_turn>\n",
             block, block, block);
    CHECK_STR_EQ(expanded, want);
    int32_t *ids;
    size_t n;
    REQUIRE_INT_EQ(ts_tokenizer_encode(tok, expanded, len, false, &ids, &n, &err), TS_OK);
    /* Three groups in the bias, one per view. */
    ts_encoded_media media;
    ts_mm_inputs mm;
    REQUIRE_INT_EQ(ts_model_encode_images(f.m, &views, 1, &media, &err), TS_OK);
    REQUIRE_INT_EQ(ts_mm_inputs_build(f.m, ids, n, &views, 1, &media, &mm, &err), TS_OK);
    int64_t future = 0;
    for (size_t q = 0; q < n; q++)
        for (size_t k = q + 1; k < n; k++)
            future += mm.attention.bias[q * n + k] == 0.0f;
    CHECK_INT_EQ(future, 3 * 6);
    ts_mm_inputs_free(&mm);
    ts_encoded_media_free(&media);
    ts_pixel_values apart[3];
    for (int i = 0; i < 3; i++)
        apart[i] = (ts_pixel_values){.data = views.data + view * (size_t)i,
                                     .n_dims = 4,
                                     .shape = {1, views.shape[1], views.shape[2], views.shape[3]}};
    float *a = malloc(sizeof(float) * (size_t)f.vocab),
          *b = malloc(sizeof(float) * (size_t)f.vocab);
    ts_sequence *s1, *s2;
    REQUIRE_INT_EQ(ts_sequence_create(f.m, (int64_t)n, &s1, &err), TS_OK);
    REQUIRE_INT_EQ(ts_sequence_create(f.m, (int64_t)n, &s2, &err), TS_OK);
    CHECK_INT_EQ(ts_model_prefill_images(f.m, s1, ids, n, &views, 1, a, &err), TS_OK);
    CHECK_INT_EQ(ts_model_prefill_images(f.m, s2, ids, n, apart, 3, b, &err), TS_OK);
    CHECK(memcmp(a, b, sizeof(float) * (size_t)f.vocab) == 0);
    /* The prompt of the image without its crops: 4 image tokens for 12 rows. */
    ts_sequence_reset(s1);
    CHECK_INT_EQ(ts_model_prefill_images(f.m, s1, f.ids, f.n, &views, 1, a, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "the prompt has 4 image tokens, the images make 12");
    CHECK_INT_EQ(ts_sequence_length(s1), 0);
    /* Over the image budget: 1-pixel crops of a 1×200 strip, up to 100 of them. */
    ts_preprocessor_config many = pc;
    many.pan_and_scan_min_crop_size = 1, many.pan_and_scan_max_num_crops = 100;
    uint8_t strip[200 * 3];
    for (int i = 0; i < 600; i++)
        strip[i] = (uint8_t)i;
    ts_pixel_values over;
    CHECK_INT_EQ(ts_preprocess_image(&many, cfg->family, strip, 1, 200, NULL, &over, &err),
                 TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "over the image budget of 64 views");
    fprintf(stderr,
            "  pan-and-scan: chelsea -> %lld views, %lld tokens, %zu prompt ids; 3 bidirectional "
            "blocks\n",
            (long long)views.shape[0], (long long)count, n);
    ts_sequence_destroy(s1), ts_sequence_destroy(s2);
    free(a), free(b), free(ids), free(expanded);
    ts_pixel_values_free(&views);
    ts_image_free(&img);
    ts_tokenizer_destroy(tok);
    fixture_close(&f);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    RUN(test_bias_is_the_reference_mask);
    RUN(test_stages_need_the_bias);
    RUN(test_chunked_prefill);
    RUN(test_refusals);
    RUN(test_pan_and_scan);
    ts_context_destroy(ctx);
    return check_finish();
}
