/* image_encoder_test.c — the pieces the server's media stage is built on, on the Qwen2-VL and
 * LLaVA fixtures: an image encoder on a second context gives the model's own tower rows bit for
 * bit, also while the model decodes on another thread; images of two requests encoded in one call
 * give each request's rows bit for bit; the encoder cache counts its hits; and
 * ts_mm_inputs_build's inputs, prefilled in chunks cut by ts_mm_inputs_slice, give the reference's
 * 16 greedy tokens, with the prefill logits of the one-call prefill. */
#include "check.h"
#include "engine/model.h"
#include "tessera.h"

#include <pthread.h>

static ts_context *ctx, *media_ctx;

static void load_image(ts_model *m, const char *dir, const char *png, ts_pixel_values *out)
{
    ts_error err;
    ts_preprocessor_config pc;
    ts_image img;
    REQUIRE_INT_EQ(ts_preprocessor_config_load(dir, &pc, &err), TS_OK);
    REQUIRE_INT_EQ(ts_image_load(png, NULL, &img, &err), TS_OK);
    CHECK_INT_EQ(ts_preprocess_image(&pc, ts_model_get_config(m)->family, img.rgb, img.width, img.height, NULL, out, &err), TS_OK);
    ts_image_free(&img);
}

typedef struct {
    ts_image_encoder *enc;
    const ts_pixel_values *images;
    int n;
    const float *want;
    int64_t want_rows, width;
    int same;
} encode_job;

static void *encode_many(void *arg)
{
    encode_job *j = arg;
    for (int round = 0; round < 4; round++) {
        ts_encoded_media media;
        ts_error err;
        if (ts_image_encoder_encode(j->enc, j->images, j->n, &media, &err) != TS_OK) continue;
        j->same += media.n_rows == j->want_rows &&
                   !memcmp(media.rows, j->want, sizeof(float) * (size_t)(media.n_rows * j->width));
        ts_encoded_media_free(&media);
    }
    return NULL;
}

/* The expanded prompt of the fixture (its input_ids) and its greedy tokens. */
static void reference_ids(ts_checkpoint *ref, int32_t **ids, size_t *n, int32_t want[16])
{
    const ts_tensor_info *in = ts_checkpoint_find(ref, "input_ids"), *gen = ts_checkpoint_find(ref, "generated_ids");
    *n = (size_t)in->shape[1];
    *ids = malloc(sizeof(int32_t) * *n);
    for (size_t i = 0; i < *n; i++) (*ids)[i] = (int32_t)((const int64_t *)in->data)[i];
    for (int i = 0; i < 16; i++) want[i] = (int32_t)((const int64_t *)gen->data)[i];
}

/* Prefill of the inputs in chunks of `chunk` rows (each cut by ts_mm_inputs_slice, checked against
 * the rows it cuts), then greedy decoding: the tokens. */
static void chunked_greedy(ts_model *m, const int32_t *ids, size_t n, const ts_mm_inputs *in,
                           size_t chunk, float *first_logits, int32_t got[16])
{
    const float *inputs = in->embeddings;
    const int32_t *positions = in->positions;
    int rows = in->position_rows;
    int64_t delta = in->rope_delta;
    ts_error err;
    const ts_model_config *cfg = ts_model_get_config(m);
    int64_t v = ts_model_vocab_size(m), hidden = cfg->text.hidden_size;
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(m, (int64_t)n + 16, &seq, &err), TS_OK);
    float *logits = malloc(sizeof(float) * (size_t)v);
    int32_t *slice = malloc(sizeof(int32_t) * 3 * chunk);
    for (size_t at = 0; at < n; at += chunk) {
        size_t k = n - at < chunk ? n - at : chunk;
        for (int r = 0; r < rows; r++) memcpy(slice + (size_t)r * k, positions + (size_t)r * n + at, sizeof(int32_t) * k);
        ts_mm_inputs cut;
        CHECK_INT_EQ(ts_mm_inputs_slice(in, at, k, &cut, &err), TS_OK);
        CHECK(cut.n == k && cut.position_rows == rows && cut.rope_delta == delta &&
              !memcmp(cut.positions, slice, sizeof(int32_t) * (size_t)rows * k) &&
              !memcmp(cut.embeddings, inputs + at * (size_t)hidden,
                      sizeof(float) * k * (size_t)hidden));
        ts_side_inputs side = ts_mm_inputs_side(&cut);
        CHECK_INT_EQ(ts_model_prefill_embeddings(m, seq, cut.embeddings, k, cut.positions,
                                                 cut.rope_delta, &side, logits, &err),
                     TS_OK);
        ts_mm_inputs_free(&cut);
    }
    memcpy(first_logits, logits, sizeof(float) * (size_t)v);
    (void)ids;
    for (int i = 0; i < 16; i++) {
        got[i] = ts_argmax_masked(logits, v, cfg->eos_token_ids, cfg->n_eos_token_ids);
        if (i < 15) CHECK_INT_EQ(ts_model_decode(m, &seq, &got[i], 1, logits, &err), TS_OK);
    }
    free(logits), free(slice);
    ts_sequence_destroy(seq);
}

static void test_fixture(const char *name, const char *const *pngs, int n_images)
{
    char dir[128], path[192];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    ts_error err;
    ts_model *m;
    ts_checkpoint *ref;
    REQUIRE_INT_EQ(ts_model_load(ctx, dir, NULL, &m, &err), TS_OK);
    snprintf(path, sizeof(path), "tests/fixtures/%s/reference.safetensors", name);
    REQUIRE_INT_EQ(ts_checkpoint_open(path, &ref, &err), TS_OK);
    ts_pixel_values images[2];
    for (int i = 0; i < n_images; i++) {
        snprintf(path, sizeof(path), "tests/fixtures/%s/%s", name, pngs[i]);
        load_image(m, dir, path, &images[i]);
    }
    int64_t width = ts_model_get_config(m)->text.hidden_size;

    /* The model's own tower: the rows every other path must reproduce. */
    ts_encoded_media want_media;
    REQUIRE_INT_EQ(ts_model_encode_images(m, images, n_images, &want_media, &err), TS_OK);
    float *want = want_media.rows;
    int64_t want_rows = want_media.n_rows;
    ts_image_encoder *enc;
    REQUIRE_INT_EQ(ts_image_encoder_create(m, media_ctx, 0, &enc, &err), TS_OK);

    /* Encoding on another thread while this one decodes: both contexts busy at once. */
    encode_job job = {enc, images, n_images, want, want_rows, width, 0};
    pthread_t t;
    pthread_create(&t, NULL, encode_many, &job);
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(m, 64, &seq, &err), TS_OK);
    float *logits = malloc(sizeof(float) * (size_t)ts_model_vocab_size(m));
    int32_t tok = 5;
    CHECK_INT_EQ(ts_model_prefill(m, seq, &tok, 1, logits, &err), TS_OK);
    for (int i = 0; i < 40; i++) CHECK_INT_EQ(ts_model_decode(m, &seq, &tok, 1, logits, &err), TS_OK);
    pthread_join(t, NULL);
    CHECK_INT_EQ(job.same, 4);
    ts_sequence_destroy(seq);

    /* Two requests' images in one call: each request's rows as when alone. */
    if (n_images == 2) {
        ts_encoded_media ma, mb, mboth;
        REQUIRE_INT_EQ(ts_image_encoder_encode(enc, &images[0], 1, &ma, &err), TS_OK);
        REQUIRE_INT_EQ(ts_image_encoder_encode(enc, &images[1], 1, &mb, &err), TS_OK);
        REQUIRE_INT_EQ(ts_image_encoder_encode(enc, images, 2, &mboth, &err), TS_OK);
        float *a = ma.rows, *b = mb.rows, *both = mboth.rows;
        int64_t na = ma.n_rows, nb = mb.n_rows, nboth = mboth.n_rows;
        CHECK_INT_EQ(nboth, na + nb);
        CHECK(!memcmp(both, a, sizeof(float) * (size_t)(na * width)));
        /* The second image's rows sit at another offset of the packed rows, so their sums may
         * round differently (lanes, tiles): within f32 rounding, not bit for bit. */
        double worst = 0, scale = 1;
        for (int64_t i = 0; i < nb * width; i++) {
            worst = fmax(worst, fabs(both[na * width + i] - b[i]));
            scale = fmax(scale, fabs(b[i]));
        }
        fprintf(stderr, "  two requests in one encode: first rows bit-identical, second max |Δ| %.2g (scale %.2g)\n", worst, scale);
        CHECK(worst <= 1e-5 * scale);
        /* The server's cut of a batched encode: the second request's rows, as the batch has them.
         */
        ts_encoded_media cut;
        CHECK_INT_EQ(ts_encoded_media_slice(&mboth, na, nb, &cut, &err), TS_OK);
        CHECK(cut.n_rows == nb && cut.hidden == width &&
              !memcmp(cut.rows, both + na * width, sizeof(float) * (size_t)(nb * width)));
        ts_encoded_media_free(&cut);
        CHECK_INT_EQ(ts_encoded_media_slice(&mboth, na, nb + 1, &cut, &err), TS_ERR_RANGE);
        ts_encoded_media_free(&ma), ts_encoded_media_free(&mb), ts_encoded_media_free(&mboth);
    }
    ts_image_encoder_destroy(enc);

    /* With a cache: the second encode of the same images is served from it, unchanged. */
    REQUIRE_INT_EQ(ts_image_encoder_create(m, media_ctx, (size_t)16 << 20, &enc, &err), TS_OK);
    ts_encoded_media m1, m2;
    int64_t hits, misses;
    REQUIRE_INT_EQ(ts_image_encoder_encode(enc, images, n_images, &m1, &err), TS_OK);
    REQUIRE_INT_EQ(ts_image_encoder_encode(enc, images, n_images, &m2, &err), TS_OK);
    float *first = m1.rows, *second = m2.rows;
    int64_t r1 = m1.n_rows, r2 = m2.n_rows;
    ts_image_encoder_cache_stats(enc, &hits, &misses);
    CHECK_INT_EQ(hits, n_images);
    CHECK_INT_EQ(misses, n_images);
    CHECK(r1 == want_rows && r2 == want_rows && !memcmp(first, want, sizeof(float) * (size_t)(r1 * width)) &&
          !memcmp(second, want, sizeof(float) * (size_t)(r2 * width)));
    ts_encoded_media_free(&m1), ts_encoded_media_free(&m2);
    ts_image_encoder_destroy(enc);

    /* The prompt's inputs from those rows, prefilled in chunks of 7 and in one piece. */
    int32_t *ids, want_tokens[16], got[16];
    size_t n;
    reference_ids(ref, &ids, &n, want_tokens);
    ts_mm_inputs in;
    REQUIRE_INT_EQ(ts_mm_inputs_build(m, ids, n, images, n_images, &want_media, &in, &err), TS_OK);
    CHECK_INT_EQ(in.position_rows, strcmp(ts_family_name(ts_model_get_config(m)->family), "llava") == 0 ? 1 : 3);
    int64_t v = ts_model_vocab_size(m);
    float *chunked = malloc(sizeof(float) * (size_t)v), *whole = malloc(sizeof(float) * (size_t)v);
    chunked_greedy(m, ids, n, &in, 7, chunked, got);
    ts_mm_inputs_free(&in);
    CHECK(!memcmp(got, want_tokens, sizeof(got)));
    REQUIRE_INT_EQ(ts_sequence_create(m, (int64_t)n, &seq, &err), TS_OK);
    CHECK_INT_EQ(ts_model_prefill_images(m, seq, ids, n, images, n_images, whole, &err), TS_OK);
    double worst = 0, scale = 1;
    for (int64_t i = 0; i < v; i++) {
        worst = fmax(worst, fabs(chunked[i] - whole[i]));
        scale = fmax(scale, fabs(whole[i]));
    }
    CHECK(worst <= 1e-4 * scale);
    /* A row count that is not the prompt's image-token count is refused. */
    ts_encoded_media short_media = want_media;
    short_media.n_rows--;
    CHECK_INT_EQ(ts_mm_inputs_build(m, ids, n, images, n_images, &short_media, &in, &err) != TS_OK,
                 1);
    CHECK_CONTAINS(err.message, "image tokens");
    fprintf(stderr, "  %s: encoder rows bit-identical (4 concurrent runs), chunked prefill max |Δlogit| %.2g, 16 tokens %s\n", name,
            worst, memcmp(got, want_tokens, sizeof(got)) ? "DIFFER" : "identical");
    ts_sequence_destroy(seq);
    free(chunked), free(whole), free(logits), free(ids);
    ts_encoded_media_free(&want_media);
    for (int i = 0; i < n_images; i++) ts_pixel_values_free(&images[i]);
    ts_checkpoint_close(ref);
    ts_model_destroy(m);
}

static void test_qwen2_vl(void)
{
    const char *one[] = {"chelsea.png"}, *two[] = {"chelsea.png", "coffee.png"};
    test_fixture("qwen2_vl", one, 1);
    test_fixture("qwen2_vl-two-images", two, 2);
}

static void test_llava(void)
{
    const char *one[] = {"chelsea.png"};
    test_fixture("llava", one, 1);
}

/* A quantized model's encoder (the server's media stage of `serve --quantize q8`) runs the
 * quantized tower, as the model's own does: the same rows bit for bit, not the float tower's. */
static void test_quantized_tower(void)
{
    const char *dir = "tests/fixtures/qwen2_vl/model";
    ts_error err;
    ts_model *f, *q;
    ts_model_options mo = {.quantize = "q8"};
    REQUIRE_INT_EQ(ts_model_load(ctx, dir, NULL, &f, &err), TS_OK);
    REQUIRE_INT_EQ(ts_model_load(ctx, dir, &mo, &q, &err), TS_OK);
    ts_pixel_values pv;
    load_image(q, dir, "tests/fixtures/qwen2_vl/chelsea.png", &pv);
    ts_encoded_media own, twin, flt;
    ts_image_encoder *enc;
    REQUIRE_INT_EQ(ts_image_encoder_create(q, media_ctx, 0, &enc, &err), TS_OK);
    REQUIRE_INT_EQ(ts_model_encode_images(q, &pv, 1, &own, &err), TS_OK);
    REQUIRE_INT_EQ(ts_model_encode_images(f, &pv, 1, &flt, &err), TS_OK);
    REQUIRE_INT_EQ(ts_image_encoder_encode(enc, &pv, 1, &twin, &err), TS_OK);
    size_t n = (size_t)(own.n_rows * ts_model_get_config(q)->text.hidden_size);
    REQUIRE(twin.n_rows == own.n_rows && flt.n_rows == own.n_rows);
    CHECK(!memcmp(twin.rows, own.rows, sizeof(float) * n));
    CHECK(memcmp(flt.rows, own.rows, sizeof(float) * n) != 0);
    ts_encoded_media_free(&own), ts_encoded_media_free(&twin), ts_encoded_media_free(&flt);
    ts_image_encoder_destroy(enc);
    ts_pixel_values_free(&pv);
    ts_model_destroy(f), ts_model_destroy(q);
}

static void test_text_model_has_no_encoder(void)
{
    ts_error err;
    ts_model *m;
    ts_image_encoder *enc = (void *)1;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/qwen2/model", NULL, &m, &err), TS_OK);
    CHECK_INT_EQ(ts_image_encoder_create(m, media_ctx, 0, &enc, &err), TS_ERR_UNSUPPORTED);
    CHECK(enc == NULL);
    CHECK_CONTAINS(err.message, "images are not supported");
    ts_model_destroy(m);
}

int main(void)
{
    ts_context_options o = {.n_threads = 1};
    ts_error err;
    if (ts_context_create(&o, &ctx, &err) != TS_OK || ts_context_create(&o, &media_ctx, &err) != TS_OK) return 1;
    RUN(test_qwen2_vl);
    RUN(test_llava);
    RUN(test_quantized_tower);
    RUN(test_text_model_has_no_encoder);
    ts_context_destroy(media_ctx);
    ts_context_destroy(ctx);
    return check_finish();
}
