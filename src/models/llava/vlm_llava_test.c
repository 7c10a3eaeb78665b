/* vlm_llava_test.c — LLaVA's image prefill through the engine without the PIL oracle: the
 * fixtures' own pixel_values and input_ids into ts_model_prefill_images give the reference's
 * prefill logits (1e-4 × max(1, max |ref|)) and 16 greedy tokens, for the CLIP and the SigLIP
 * tower. Several images in one prompt: one [2, C, S, S] tensor and two [1, C, S, S] tensors
 * give the same bits. Bad requests fail with a message and leave the sequence as it was.
 * (vlm_fixture_test runs the whole path from the PNG, when PIL is there.) */
#include "check.h"
#include "engine/model.h"
#include "tessera.h"

#include <math.h>

static ts_context *ctx;

typedef struct {
    ts_model *m;
    ts_checkpoint *ref;
    const ts_model_config *cfg;
    int32_t *ids;
    size_t n;
    int64_t vocab;
    ts_pixel_values image; /* the reference's pixel_values, borrowed (data not owned) */
} fixture;

static bool fixture_open(fixture *f, const char *name)
{
    memset(f, 0, sizeof(*f));
    char dir[128], refpath[160];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    snprintf(refpath, sizeof(refpath), "tests/fixtures/%s/reference.safetensors", name);
    ts_error err;
    if (ts_model_load(ctx, dir, NULL, &f->m, &err) != TS_OK || ts_checkpoint_open(refpath, &f->ref, &err) != TS_OK) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        return false;
    }
    f->cfg = ts_model_get_config(f->m);
    f->vocab = ts_model_vocab_size(f->m);
    const ts_tensor_info *ids = ts_checkpoint_find(f->ref, "input_ids"), *pv = ts_checkpoint_find(f->ref, "pixel_values");
    if (!ids || !pv || pv->n_dims != 4) return false;
    f->n = (size_t)ids->shape[1];
    f->ids = malloc(sizeof(int32_t) * f->n);
    for (size_t i = 0; i < f->n; i++) f->ids[i] = (int32_t)((const int64_t *)ids->data)[i];
    f->image = (ts_pixel_values){.data = (float *)pv->data, .n_dims = 4};
    memcpy(f->image.shape, pv->shape, sizeof(f->image.shape));
    return true;
}

static void fixture_close(fixture *f)
{
    free(f->ids);
    if (f->ref) ts_checkpoint_close(f->ref);
    ts_model_destroy(f->m);
}

static void check_reference(const char *name)
{
    fixture f;
    bool opened = fixture_open(&f, name);
    CHECK(opened);
    if (!opened) {
        fixture_close(&f);
        return;
    }
    ts_error err;
    const ts_tensor_info *gen = ts_checkpoint_find(f.ref, "generated_ids"), *last = ts_checkpoint_find(f.ref, "prefill_last_logits");
    int64_t n_new = gen->shape[0];
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(f.m, (int64_t)f.n + n_new, &seq, &err), TS_OK);
    float *logits = malloc(sizeof(float) * (size_t)f.vocab);
    CHECK_INT_EQ(ts_model_prefill_images(f.m, seq, f.ids, f.n, &f.image, 1, logits, &err), TS_OK);
    double worst = 0, scale = 1;
    for (int64_t i = 0; i < f.vocab; i++) {
        const float r = ((const float *)last->data)[i];
        scale = fmax(scale, fabs(r));
        worst = fmax(worst, fabs((double)logits[i] - r));
    }
    CHECK(worst <= 1e-4 * scale);
    bool same = true;
    for (int64_t i = 0; i < n_new; i++) {
        int32_t want = (int32_t)((const int64_t *)gen->data)[i];
        same &=
            ts_argmax_masked(logits, f.vocab, f.cfg->eos_token_ids, f.cfg->n_eos_token_ids) == want;
        if (i + 1 < n_new) CHECK_INT_EQ(ts_model_decode(f.m, &seq, &want, 1, logits, &err), TS_OK);
    }
    CHECK(same);
    fprintf(stderr, "  %s: reference pixels and ids, prefill logits max |diff| %.3g (tolerance %.3g), 16 greedy tokens %s\n", name, worst,
            1e-4 * scale, same ? "identical" : "DIFFER");
    free(logits);
    ts_sequence_destroy(seq);
    fixture_close(&f);
}

static void test_clip(void) { check_reference("llava"); }
static void test_siglip(void) { check_reference("llava_siglip"); }

/* The prompt's image block twice (the image's rows once per image), as one [2, C, S, S]
 * tensor and as two tensors: the same logits, bit for bit. */
static void test_two_images(void)
{
    fixture f;
    bool opened = fixture_open(&f, "llava");
    CHECK(opened);
    if (!opened) {
        fixture_close(&f);
        return;
    }
    ts_error err;
    size_t first = 0, block = 0;
    while (first < f.n && f.ids[first] != f.cfg->image_token_id) first++;
    while (first + block < f.n && f.ids[first + block] == f.cfg->image_token_id) block++;
    CHECK_INT_EQ(block, 16);
    size_t n = f.n + block;
    int32_t *ids = malloc(sizeof(int32_t) * n);
    memcpy(ids, f.ids, sizeof(int32_t) * (first + block));
    memcpy(ids + first + block, f.ids + first, sizeof(int32_t) * (f.n - first));
    size_t pixels = (size_t)(f.image.shape[1] * f.image.shape[2] * f.image.shape[3]);
    ts_pixel_values pair = f.image;
    pair.shape[0] = 2;
    pair.data = malloc(sizeof(float) * 2 * pixels);
    memcpy(pair.data, f.image.data, sizeof(float) * pixels);
    memcpy(pair.data + pixels, f.image.data, sizeof(float) * pixels);
    ts_pixel_values apart[2] = {f.image, f.image};
    float *a = malloc(sizeof(float) * (size_t)f.vocab), *b = malloc(sizeof(float) * (size_t)f.vocab);
    ts_sequence *s1, *s2;
    REQUIRE_INT_EQ(ts_sequence_create(f.m, (int64_t)n, &s1, &err), TS_OK);
    REQUIRE_INT_EQ(ts_sequence_create(f.m, (int64_t)n, &s2, &err), TS_OK);
    CHECK_INT_EQ(ts_model_prefill_images(f.m, s1, ids, n, &pair, 1, a, &err), TS_OK);
    CHECK_INT_EQ(ts_model_prefill_images(f.m, s2, ids, n, apart, 2, b, &err), TS_OK);
    CHECK(memcmp(a, b, sizeof(float) * (size_t)f.vocab) == 0);
    CHECK_INT_EQ(ts_sequence_length(s1), (int64_t)n);
    free(a), free(b), free(ids), free(pair.data);
    ts_sequence_destroy(s1);
    ts_sequence_destroy(s2);
    fixture_close(&f);
}

static void test_bad_requests(void)
{
    fixture f;
    bool opened = fixture_open(&f, "llava_siglip");
    CHECK(opened);
    if (!opened) {
        fixture_close(&f);
        return;
    }
    ts_error err;
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(f.m, 128, &seq, &err), TS_OK);
    float *logits = malloc(sizeof(float) * (size_t)f.vocab);
    /* One image token too few for the image's 16 rows. */
    size_t at = 0;
    while (f.ids[at] != f.cfg->image_token_id) at++;
    int32_t *short_ids = malloc(sizeof(int32_t) * f.n);
    memcpy(short_ids, f.ids, sizeof(int32_t) * at);
    memcpy(short_ids + at, f.ids + at + 1, sizeof(int32_t) * (f.n - at - 1));
    CHECK_INT_EQ(ts_model_prefill_images(f.m, seq, short_ids, f.n - 1, &f.image, 1, logits, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "the prompt has 15 image tokens, the images make 16");
    /* Pixels of another size (a Qwen-style patch-row tensor is 2-D: also refused). */
    ts_pixel_values small = f.image;
    small.shape[2] = small.shape[3] = 28;
    CHECK_INT_EQ(ts_model_prefill_images(f.m, seq, f.ids, f.n, &small, 1, logits, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "image 0 is not [k, 3, 56, 56] pixel values for this tower");
    ts_pixel_values rows = {.data = f.image.data, .n_dims = 2, .shape = {16, 588}};
    CHECK_INT_EQ(ts_model_prefill_images(f.m, seq, f.ids, f.n, &rows, 1, logits, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_INT_EQ(ts_sequence_length(seq), 0);
    /* The sequence is still usable: the good request goes through. */
    CHECK_INT_EQ(ts_model_prefill_images(f.m, seq, f.ids, f.n, &f.image, 1, logits, &err), TS_OK);
    CHECK_INT_EQ(ts_sequence_length(seq), (int64_t)f.n);
    free(logits), free(short_ids);
    ts_sequence_destroy(seq);
    fixture_close(&f);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    RUN(test_clip);
    RUN(test_siglip);
    RUN(test_two_images);
    RUN(test_bad_requests);
    ts_context_destroy(ctx);
    return check_finish();
}
