/* prefix_cache_test.c — the prefix cache against prefills of the whole prompt, driven the way the
 * server drives it (ts_prefix_cache_begin, the rest in chunks from the restored end,
 * ts_prefix_cache_store): last-row logits bit for bit on Qwen2 (tokens), Qwen2-VL (M-RoPE) and
 * Qwen3-VL (DeepStack) image prompts at several chunk sizes, the exact restored counts the block
 * size and the chunk rule imply, media keying (another image: no hit past the image's first
 * block; the same image: hit), eviction under a budget of a few blocks (still exact, the chain
 * kept whole), and the refusal of a ring cache; then the other fixtures: text (bf16 weights, a
 * bf16 KV cache, MoE) and image (Qwen2.5-VL, Qwen3-VL-MoE, LLaVA with CLIP and with SigLIP); and
 * longrope's long rows keyed apart from short ones (Phi-4). */
#include "engine/prefix_cache.h"
#include "check.h"
#include "engine/model.h"

static ts_context *ctx, *ctx_auto; /* f32 products; the server's default policy ("auto") */
/* Sequences with full-capacity caches for sliding-window layers (the window as a mask), which the
 * cache accepts: how the image-block bias path is checked on Gemma3. */
static bool full_caches;

static ts_status make_sequence(ts_model *m, int64_t capacity, ts_sequence **seq, ts_error *err)
{
    return full_caches ? ts_sequence_create_rows(m, capacity, 0, seq, err) : ts_sequence_create(m, capacity, seq, err);
}

static int32_t text_token(int i) { return (int32_t)((i * 389 + 17) % 1000 + 2); }

typedef struct prompt {
    int32_t *ids;
    size_t n;
    ts_mm_inputs mm; /* mm.embeddings NULL: a token prompt */
    ts_prefix_media media[2];
    int n_media;
} prompt;

/* Prefills p into a fresh sequence as the server's scheduler does: restored rows from the cache
 * (when given), then calls of `chunk` rows (an image prompt's edges by ts_mm_inputs_chunk), then
 * the store. The last row's logits into logits; the rows restored. */
static int64_t serve(ts_model *m, ts_prefix_cache *c, const prompt *p, int64_t chunk, float *logits)
{
    ts_error err;
    ts_sequence *seq;
    if (make_sequence(m, (int64_t)p->n + 16, &seq, &err) != TS_OK) return -1;
    const ts_mm_inputs *mm = p->mm.embeddings ? &p->mm : NULL;
    ts_prefix_prompt pp = {p->ids, p->n, mm, p->media, p->n_media, chunk};
    ts_prefix_keys *keys = NULL;
    int64_t restored = 0;
    if (c) CHECK_INT_EQ(ts_prefix_cache_begin(c, &pp, seq, &keys, &restored, &err), TS_OK);
    CHECK_INT_EQ(ts_sequence_length(seq), restored);
    for (size_t at = (size_t)restored; at < p->n;) {
        size_t take = p->n - at < (size_t)chunk ? p->n - at : (size_t)chunk;
        if (mm) {
            take = ts_mm_inputs_chunk(mm, at, (size_t)chunk);
            ts_mm_inputs cut;
            CHECK_INT_EQ(ts_mm_inputs_slice(mm, at, take, &cut, &err), TS_OK);
            ts_side_inputs side = ts_mm_inputs_side(&cut);
            CHECK_INT_EQ(ts_model_prefill_embeddings(m, seq, cut.embeddings, take, cut.positions,
                                                     cut.rope_delta, &side, logits, &err),
                         TS_OK);
            ts_mm_inputs_free(&cut);
        } else {
            CHECK_INT_EQ(ts_model_prefill(m, seq, p->ids + at, take, logits, &err), TS_OK);
        }
        at += take;
    }
    if (c) ts_prefix_cache_store(c, keys, seq);
    ts_prefix_keys_free(keys);
    ts_sequence_destroy(seq);
    return restored;
}

static prompt text_prompt(int n, int salt)
{
    prompt p = {.ids = malloc(sizeof(int32_t) * (size_t)n), .n = (size_t)n};
    for (int i = 0; i < n; i++) p.ids[i] = text_token(i + salt);
    return p;
}

static void prompt_free(prompt *p)
{
    free(p->ids);
    ts_mm_inputs_free(&p->mm);
}

/* A request served from the cache gives the logits of the whole prefill, bit for bit. */
static int64_t served_exactly(ts_model *m, ts_prefix_cache *c, const prompt *p, int64_t chunk)
{
    int64_t v = ts_model_vocab_size(m);
    float *want = malloc(sizeof(float) * (size_t)v), *got = malloc(sizeof(float) * (size_t)v);
    serve(m, NULL, p, chunk, want);
    int64_t restored = serve(m, c, p, chunk, got);
    bool same = !memcmp(want, got, sizeof(float) * (size_t)v);
    if (!same) fprintf(stderr, "  %zu rows, chunk %lld, %lld restored: logits differ\n", p->n, (long long)chunk, (long long)restored);
    CHECK(same);
    free(want), free(got);
    return restored;
}

/* A fixture's model ("name", or "name/bf16" for its bf16 weights; kv: its KV type, NULL for f32)
 * with a cache for 512-token sequences: of `blocks` blocks (and their bookkeeping), or 64 MiB when
 * 0. */
typedef struct setup {
    ts_model *m;
    ts_sequence *like;
    ts_prefix_cache *c;
} setup;

static bool set_up_on(ts_context *on, const char *fixture, const char *kv, const char *quantize, int blocks, setup *s)
{
    char dir[128], weights[192];
    size_t name = strcspn(fixture, "/");
    snprintf(dir, sizeof(dir), "tests/fixtures/%.*s/model", (int)name, fixture);
    snprintf(weights, sizeof(weights), "tests/fixtures/%.*s/model-bf16/model.safetensors", (int)name, fixture);
    ts_error err;
    *s = (setup){0};
    ts_model_options opt = {.kv_cache = kv, .weights = fixture[name] ? weights : NULL, .quantize = quantize};
    if (ts_model_load(on, dir, &opt, &s->m, &err) != TS_OK || make_sequence(s->m, 512, &s->like, &err) != TS_OK) return false;
    size_t budget = blocks ? (size_t)blocks * (TS_PREFIX_BLOCK * ts_model_position_bytes(s->m) + 256) : (size_t)64 << 20;
    return ts_prefix_cache_create(s->m, s->like, budget, &s->c, &err) == TS_OK;
}

static bool set_up(const char *fixture, const char *kv, int blocks, setup *s)
{
    return set_up_on(ctx, fixture, kv, NULL, blocks, s);
}

static void tear_down(setup *s)
{
    ts_prefix_cache_destroy(s->c);
    ts_sequence_destroy(s->like);
    ts_model_destroy(s->m);
}

static void test_text(void)
{
    setup s;
    REQUIRE(set_up("qwen2", NULL, 0, &s));
    ts_model *m = s.m;
    ts_prefix_cache *c = s.c;
    prompt a = text_prompt(150, 0);
    /* The first request misses and stores its 9 full blocks. The same prompt again: 144 rows
     * would leave rows 144…149 to a 6-row call, which takes another kernel path than the whole
     * prompt's 150-row call: 128 restored, the rest in one 22-row call. */
    CHECK_INT_EQ(served_exactly(m, c, &a, 256), 0);
    ts_prefix_cache_stats st = ts_prefix_cache_get_stats(c);
    CHECK_INT_EQ(st.blocks, 9);
    CHECK_INT_EQ(served_exactly(m, c, &a, 256), 128);
    /* 64-row chunks: the whole prefill's calls are 64, 64, 22 rows; from 128 the rest is the same
     * 22-row call. */
    CHECK_INT_EQ(served_exactly(m, c, &a, 64), 128);
    /* A longer prompt sharing the first 150 tokens: its first 9 blocks hit. */
    prompt b = text_prompt(200, 0);
    CHECK_INT_EQ(served_exactly(m, c, &b, 256), 144);
    /* Chunks of 16: every edge agrees with the whole prompt's; the second run restores 192. */
    CHECK_INT_EQ(served_exactly(m, c, &b, 16), 192);
    /* Another prompt diverging at row 40: blocks 0 and 1 hit (32 rows). */
    prompt d = text_prompt(100, 0);
    for (int i = 40; i < 100; i++) d.ids[i] = text_token(i + 7);
    CHECK_INT_EQ(served_exactly(m, c, &d, 256), 32);
    /* 7-row chunks run every row on the short-call path: nothing is stored or restored. */
    prompt e = text_prompt(60, 3);
    CHECK_INT_EQ(served_exactly(m, c, &e, 7), 0);
    CHECK_INT_EQ(served_exactly(m, c, &e, 7), 0);
    st = ts_prefix_cache_get_stats(c);
    CHECK_INT_EQ(st.evictions, 0);
    CHECK_INT_EQ(st.hits, 5);
    CHECK_INT_EQ(st.cached_tokens, 128 + 128 + 144 + 192 + 32);
    printf("  text: %lld lookups, %lld hits, %lld of %lld prompt tokens restored, %lld blocks, %zu bytes\n",
           (long long)st.lookups, (long long)st.hits, (long long)st.cached_tokens, (long long)st.prompt_tokens,
           (long long)st.blocks, st.bytes);
    prompt_free(&a), prompt_free(&b), prompt_free(&d), prompt_free(&e);
    tear_down(&s);
}

/* Every text fixture (and bf16 weights, a bf16 KV cache): a prompt twice, a longer one sharing it,
 * 16-row chunks; the counts as on Qwen2 above. */
static void test_text_fixtures(void)
{
    /* name, KV type, quantized, the server's default compute policy (bf16 products for bf16
     * weights where the CPU has them, int8 activations for quantized weights) */
    const struct {
        const char *name, *kv, *quantize;
        bool server_policy;
    } fixtures[] = {{"qwen2/bf16", NULL, NULL, false}, {"qwen2", "bf16", NULL, false}, {"llama", NULL, NULL, false},
                    {"qwen3", NULL, NULL, false},      {"qwen3_moe", NULL, NULL, false}, {"qwen3_moe/bf16", NULL, NULL, false},
                    {"qwen2/bf16", NULL, NULL, true},  {"qwen2", NULL, "q8", true},      {"qwen3_moe/bf16", NULL, NULL, true}};
    for (size_t f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
        setup s;
        REQUIRE(set_up_on(fixtures[f].server_policy ? ctx_auto : ctx, fixtures[f].name, fixtures[f].kv, fixtures[f].quantize, 0, &s));
        prompt a = text_prompt(150, 0), b = text_prompt(200, 0);
        CHECK_INT_EQ(served_exactly(s.m, s.c, &a, 256), 0);
        CHECK_INT_EQ(served_exactly(s.m, s.c, &a, 256), 128);
        CHECK_INT_EQ(served_exactly(s.m, s.c, &b, 256), 144);
        CHECK_INT_EQ(served_exactly(s.m, s.c, &b, 16), 192);
        CHECK_INT_EQ(served_exactly(s.m, s.c, &b, 64), 192); /* the last call is rows 192…199 either way */
        printf("  %s%s%s%s%s: exact\n", fixtures[f].name, fixtures[f].kv ? ", kv " : "", fixtures[f].kv ? fixtures[f].kv : "",
               fixtures[f].quantize ? ", quantized " : "", fixtures[f].quantize ? fixtures[f].quantize : "");
        if (fixtures[f].server_policy) {
            char buf[256];
            printf("    (compute %s)\n", ts_context_compute_summary(ctx_auto, buf, sizeof(buf)));
        }
        prompt_free(&a), prompt_free(&b);
        tear_down(&s);
    }
}

static void test_eviction(void)
{
    setup s;
    REQUIRE(set_up("qwen2", NULL, 3, &s)); /* room for 3 blocks */
    ts_model *m = s.m;
    ts_prefix_cache *c = s.c;
    prompt a = text_prompt(100, 0), b = text_prompt(100, 50);
    CHECK_INT_EQ(served_exactly(m, c, &a, 256), 0); /* 6 blocks offered: the first 3 kept */
    ts_prefix_cache_stats st = ts_prefix_cache_get_stats(c);
    CHECK_INT_EQ(st.blocks, 3);
    CHECK(st.bytes <= st.budget);
    CHECK_INT_EQ(served_exactly(m, c, &a, 256), 48);
    /* Another prompt: a's blocks are evicted leaf first (only an unreferenced block goes). */
    CHECK_INT_EQ(served_exactly(m, c, &b, 256), 0);
    st = ts_prefix_cache_get_stats(c);
    CHECK_INT_EQ(st.blocks, 3);
    CHECK_INT_EQ(st.evictions, 3);
    CHECK_INT_EQ(served_exactly(m, c, &a, 256), 0); /* evicted: a miss, still exact */
    CHECK_INT_EQ(served_exactly(m, c, &a, 256), 48);
    printf("  eviction: budget %zu bytes (3 blocks), %lld evictions\n", st.budget,
           (long long)ts_prefix_cache_get_stats(c).evictions);
    prompt_free(&a), prompt_free(&b);
    tear_down(&s);
}

/* The fixture's expanded prompt (its input_ids) after `shift` text tokens, with row `changed` (a
 * text row; −1: none) replaced and `tail` text tokens after it, and its image's inputs: pixels
 * perturbed (one value) when `other` — another image of the same grid. */
static prompt shifted_image_prompt(ts_model *m, const char *name, int shift, int changed, int tail, bool other)
{
    char dir[128], path[192];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    prompt p = {0};
    ts_error err;
    ts_checkpoint *ref;
    snprintf(path, sizeof(path), "tests/fixtures/%s/reference.safetensors", name);
    if (ts_checkpoint_open(path, &ref, &err) != TS_OK) return p;
    const ts_tensor_info *in = ts_checkpoint_find(ref, "input_ids");
    size_t base = (size_t)in->shape[1];
    p.n = (size_t)shift + base + (size_t)tail;
    p.ids = malloc(sizeof(int32_t) * p.n);
    for (int i = 0; i < shift; i++) p.ids[i] = text_token(i + 500);
    for (size_t i = 0; i < base; i++) p.ids[(size_t)shift + i] = (int32_t)((const int64_t *)in->data)[i];
    for (size_t i = (size_t)shift + base; i < p.n; i++) p.ids[i] = text_token((int)i);
    if (changed >= 0) p.ids[changed] = text_token(777);
    ts_checkpoint_close(ref);
    ts_preprocessor_config pc;
    ts_image img;
    ts_pixel_values pv;
    snprintf(path, sizeof(path), "tests/fixtures/%s/chelsea.png", name);
    CHECK_INT_EQ(ts_preprocessor_config_load(dir, &pc, &err), TS_OK);
    CHECK_INT_EQ(ts_image_load(path, NULL, &img, &err), TS_OK);
    CHECK_INT_EQ(ts_preprocess_image(&pc, ts_model_get_config(m)->family, img.rgb, img.width, img.height, NULL, &pv, &err), TS_OK);
    ts_image_free(&img);
    if (other) pv.data[5] += 0.5f;
    ts_encoded_media media;
    CHECK_INT_EQ(ts_model_encode_images(m, &pv, 1, &media, &err), TS_OK);
    CHECK_INT_EQ(ts_mm_inputs_build(m, p.ids, p.n, &pv, 1, &media, &p.mm, &err), TS_OK);
    ts_pixel_values_digest(&pv, p.media[0].digest);
    p.media[0].rows = ts_model_image_tokens(m, &pv);
    p.n_media = 1;
    ts_encoded_media_free(&media);
    ts_pixel_values_free(&pv);
    return p;
}

static prompt image_prompt(ts_model *m, const char *name, int tail, bool other)
{
    return shifted_image_prompt(m, name, 0, -1, tail, other);
}

static void test_images(const char *name)
{
    setup s;
    REQUIRE(set_up(name, NULL, 0, &s));
    ts_model *m = s.m;
    ts_prefix_cache *c = s.c;
    prompt a = image_prompt(m, name, 40, false), b = image_prompt(m, name, 70, false),
           other = image_prompt(m, name, 40, true);
    REQUIRE(a.mm.embeddings && b.mm.embeddings && other.mm.embeddings);
    int32_t image_token = (int32_t)ts_model_get_config(m)->image_token_id;
    size_t first_image = 0, last_image = 0;
    for (size_t i = 0; i < a.n; i++)
        if (a.ids[i] == image_token) last_image = i, first_image = first_image ? first_image : i;
    printf("  %s: %zu rows, image rows %zu…%zu (%lld), %d position rows, rope delta %lld\n", name, a.n,
           first_image, last_image, (long long)a.media[0].rows, a.mm.position_rows, (long long)a.mm.rope_delta);
    if (ts_model_position_rows(m) == 3) /* M-RoPE over the image's grid */
        CHECK(a.mm.rope_delta != 0 && a.mm.position_rows == 3);
    /* The whole prompt in one call: a restore leaves at least one block to a call of its own. */
    int64_t full = (int64_t)(a.n - TS_PREFIX_BLOCK) / TS_PREFIX_BLOCK * TS_PREFIX_BLOCK;
    CHECK_INT_EQ(served_exactly(m, c, &a, 256), 0);
    CHECK_INT_EQ(served_exactly(m, c, &a, 256), full);
    /* The same image with a longer tail: a's full blocks hit. */
    CHECK_INT_EQ(served_exactly(m, c, &b, 256), (int64_t)a.n / TS_PREFIX_BLOCK * TS_PREFIX_BLOCK);
    /* Same text, another image: nothing past the block before the image's first row. */
    CHECK_INT_EQ(served_exactly(m, c, &other, 256), (int64_t)first_image / TS_PREFIX_BLOCK * TS_PREFIX_BLOCK);
    CHECK_INT_EQ(served_exactly(m, c, &other, 256), full);
    /* 16-row chunks cut the image across calls (DeepStack rows per chunk): every full block
     * restored, the last call the same as the whole prefill's. */
    CHECK_INT_EQ(served_exactly(m, c, &a, 16), (int64_t)(a.n - 1) / TS_PREFIX_BLOCK * TS_PREFIX_BLOCK);
    /* The token prompt of the same ids never takes an image prompt's rows. */
    prompt t = {.ids = a.ids, .n = first_image};
    CHECK_INT_EQ(served_exactly(m, c, &t, 256), 0);
    prompt_free(&a), prompt_free(&b), prompt_free(&other);
    tear_down(&s);
}

static void test_qwen2_vl(void) { test_images("qwen2_vl"); }
static void test_qwen3_vl(void) { test_images("qwen3_vl"); }
static void test_other_image_fixtures(void)
{
    test_images("qwen2_5_vl");
    test_images("qwen3_vl_moe");
    test_images("llava");
    test_images("llava_siglip");
}

/* Gemma3 (each image's rows see the whole image: a call never starts inside an image) on full
 * caches; its ring is refused (below). */
static void test_gemma3_full_caches(void)
{
    full_caches = true;
    test_images("gemma3");
    /* The image at rows 14…17, across the first block's edge: a prompt that shares the first 16
     * rows (and the image) but not the second block cannot restore them — a call starting at row
     * 16 would split the image's block — so it restores nothing; the same prompt again restores
     * past the image. */
    setup s;
    REQUIRE(set_up("gemma3", NULL, 0, &s));
    int32_t image_token = (int32_t)ts_model_get_config(s.m)->image_token_id;
    prompt a = shifted_image_prompt(s.m, "gemma3", 8, -1, 40, false), b = shifted_image_prompt(s.m, "gemma3", 8, 24, 40, false);
    REQUIRE(a.mm.embeddings && b.mm.embeddings);
    CHECK(a.ids[13] != image_token && a.ids[14] == image_token && a.ids[17] == image_token && a.ids[18] != image_token &&
          b.ids[24] != a.ids[24]);
    CHECK_INT_EQ(served_exactly(s.m, s.c, &a, 256), 0);
    CHECK_INT_EQ(served_exactly(s.m, s.c, &b, 256), 0);
    CHECK_INT_EQ(served_exactly(s.m, s.c, &b, 256), (int64_t)(b.n - TS_PREFIX_BLOCK) / TS_PREFIX_BLOCK * TS_PREFIX_BLOCK);
    prompt_free(&a), prompt_free(&b);
    tear_down(&s);
    full_caches = false;
}

/* longrope (phi4_mm-longrope-cross: the long factors past 32 positions): a prompt past 32 is
 * long from its first row, so its rows chain apart from a short prompt's with the same tokens —
 * neither is restored into the other — and each is served exactly, also in 16-row chunks, where
 * the prefill without the cache computes the first 32 rows again when a chunk passes 32. */
static void test_longrope(void)
{
    ts_error err;
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/phi4_mm-longrope-cross/model", NULL, &m, &err), TS_OK);
    ts_sequence *like;
    ts_prefix_cache *c;
    REQUIRE_INT_EQ(ts_sequence_create(m, 256, &like, &err), TS_OK);
    REQUIRE_INT_EQ(ts_prefix_cache_create(m, like, 1 << 20, &c, &err), TS_OK);
    prompt a = text_prompt(32, 0), b = text_prompt(64, 0); /* b starts with a's 32 tokens */
    CHECK_INT_EQ(served_exactly(m, c, &a, 256), 0);
    CHECK_INT_EQ(served_exactly(m, c, &a, 256), 16);
    CHECK_INT_EQ(served_exactly(m, c, &b, 256), 0); /* a's short blocks are not b's */
    CHECK_INT_EQ(served_exactly(m, c, &b, 256), 48);
    CHECK_INT_EQ(served_exactly(m, c, &b, 16), 48);
    CHECK_INT_EQ(served_exactly(m, c, &a, 16), 16); /* nor b's long ones a's */
    ts_prefix_cache_stats st = ts_prefix_cache_get_stats(c);
    CHECK_INT_EQ(st.blocks, 2 + 4);
    prompt_free(&a), prompt_free(&b);
    ts_prefix_cache_destroy(c);
    ts_sequence_destroy(like);
    ts_model_destroy(m);
}

static void test_ring_refused(void)
{
    ts_error err;
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/gemma3_text/model", NULL, &m, &err), TS_OK);
    ts_sequence *ring, *whole;
    REQUIRE_INT_EQ(ts_sequence_create(m, 64, &ring, &err), TS_OK); /* window 8: a ring */
    REQUIRE_INT_EQ(ts_sequence_create(m, 8, &whole, &err), TS_OK);  /* no longer than the window */
    ts_prefix_cache *c = NULL;
    CHECK_INT_EQ(ts_prefix_cache_create(m, ring, 1 << 20, &c, &err), TS_ERR_UNSUPPORTED);
    CHECK(strstr(err.message, "sliding window") != NULL);
    CHECK_INT_EQ(ts_prefix_cache_create(m, whole, 1 << 20, &c, &err), TS_OK);
    ts_prefix_cache_destroy(c);
    ts_sequence_destroy(ring), ts_sequence_destroy(whole);
    ts_model_destroy(m);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    ts_context_options auto_o = {.n_threads = 2, .log_level = TS_LOG_WARN, .compute = "auto"};
    if (ts_context_create(&auto_o, &ctx_auto, &err) != TS_OK) return 1;
    RUN(test_text);
    RUN(test_eviction);
    RUN(test_qwen2_vl);
    RUN(test_qwen3_vl);
    RUN(test_other_image_fixtures);
    RUN(test_text_fixtures);
    RUN(test_gemma3_full_caches);
    RUN(test_ring_refused);
    RUN(test_longrope);
    ts_context_destroy(ctx);
    ts_context_destroy(ctx_auto);
    return check_finish();
}
