/* step_test.c — the multi-sequence step (ts_model_step): several sequences' prompt chunks and
 * decode tokens in one call give every sequence the logits it gets alone, bit for bit.
 *
 * Each case runs a few "lanes" (a prompt, a chunk size, some greedy decode steps) twice: alone,
 * through the one-sequence calls (ts_model_prefill, ts_model_prefill_embeddings with
 * ts_mm_inputs_slice's chunks, ts_model_decode), and together, every lane's next chunk or decode
 * token in one ts_model_step per iteration, so chunks of different lengths (under and over the
 * tiled matmuls' 16 rows) meet decode rows. Cases: text (Qwen2, f32, bf16 products, W8A8),
 * MoE (Qwen3-MoE), sliding-window rings (Gemma3 text), images with M-RoPE (Qwen2-VL), with an
 * image-block attention bias (Gemma3) and with DeepStack (Qwen3-VL: two image prompts' payloads
 * merged into one step). */
#include "engine/model.h"
#include "check.h"

#include <string.h>

static ts_context *ctx, *ctx_auto;

typedef struct lane {
    int32_t *ids; /* the prompt (an expanded image prompt with mm) */
    size_t n;
    ts_mm_inputs mm; /* image prompts: embeddings; mm.embeddings NULL for text */
    size_t chunk;    /* rows per prefill call at most */
    int decode;      /* decode steps after the prompt */
    /* a run's state */
    ts_sequence *seq;
    size_t at;
    int steps, decoded;
    int32_t next;
    float *logits; /* [steps][vocab] of the run */
} lane;

#define MAX_STEPS 64
#define MAX_LANES 16

static int32_t greedy(const float *logits, int64_t vocab)
{
    int32_t best = 0;
    for (int64_t i = 1; i < vocab; i++)
        if (logits[i] > logits[best]) best = (int32_t)i;
    return best;
}

static bool lane_done(const lane *l) { return l->at == l->n && l->decoded == l->decode; }

/* The lane's next rows: a prompt chunk (slice holds an image prompt's) or its decode token. */
static void next_rows(lane *l, ts_step_rows *r, ts_mm_inputs *slice, ts_side_inputs *side)
{
    *r = (ts_step_rows){.seq = l->seq};
    if (l->at == l->n) {
        r->n = 1, r->tokens = &l->next;
        return;
    }
    size_t left = l->n - l->at, n = left < l->chunk ? left : l->chunk;
    if (!l->mm.embeddings) {
        r->n = n, r->tokens = l->ids + l->at;
        return;
    }
    ts_error err;
    n = ts_mm_inputs_chunk(&l->mm, l->at, l->chunk);
    CHECK_INT_EQ(ts_mm_inputs_slice(&l->mm, l->at, n, slice, &err), TS_OK);
    *side = ts_mm_inputs_side(slice);
    *r = (ts_step_rows){.seq = l->seq,
                        .n = n,
                        .embeddings = slice->embeddings,
                        .positions = slice->positions,
                        .rope_delta = slice->rope_delta,
                        .side = side};
}

/* After a step: the logits kept, the prompt advanced or the decode counted, the next token. */
static void advance(lane *l, const ts_step_rows *r, const float *logits, int64_t vocab)
{
    if (l->steps < MAX_STEPS) memcpy(l->logits + (size_t)l->steps * (size_t)vocab, logits, sizeof(float) * (size_t)vocab);
    l->steps++;
    if (l->at < l->n) l->at += r->n;
    else l->decoded++;
    l->next = greedy(logits, vocab);
}

static void reset(ts_model *m, lane *lanes, int n, int64_t capacity)
{
    ts_error err;
    for (int i = 0; i < n; i++) {
        lane *l = &lanes[i];
        if (!l->seq) CHECK_INT_EQ(ts_sequence_create(m, capacity, &l->seq, &err), TS_OK);
        ts_sequence_reset(l->seq);
        l->at = 0, l->steps = 0, l->decoded = 0;
    }
}

/* Every lane alone through the one-sequence calls. */
static void run_alone(ts_model *m, lane *lanes, int n, int64_t capacity)
{
    int64_t vocab = ts_model_vocab_size(m);
    float *logits = malloc(sizeof(float) * (size_t)vocab);
    ts_error err;
    reset(m, lanes, n, capacity);
    for (int i = 0; i < n; i++) {
        lane *l = &lanes[i];
        while (!lane_done(l)) {
            ts_step_rows r;
            ts_mm_inputs slice = {0};
            ts_side_inputs side;
            next_rows(l, &r, &slice, &side);
            ts_status st = l->at == l->n ? ts_model_decode(m, &l->seq, r.tokens, 1, logits, &err)
                           : r.embeddings
                               ? ts_model_prefill_embeddings(m, l->seq, r.embeddings, r.n, r.positions,
                                                             r.rope_delta, r.side, logits, &err)
                               : ts_model_prefill(m, l->seq, r.tokens, r.n, logits, &err);
            ts_mm_inputs_free(&slice);
            CHECK_INT_EQ(st, TS_OK);
            if (st != TS_OK) {
                fprintf(stderr, "  alone: %s\n", err.message);
                break;
            }
            advance(l, &r, logits, vocab);
        }
    }
    free(logits);
}

/* Every lane's next rows in one step per iteration; returns the iterations where two or more
 * lanes prefilled together (*mixed: where a decode row rode with a prefill chunk; *most: the most
 * decode rows of one step). */
static int run_together(ts_model *m, lane *lanes, int n, int64_t capacity, int *mixed, int *most)
{
    int64_t vocab = ts_model_vocab_size(m);
    float *logits = malloc(sizeof(float) * (size_t)vocab * (size_t)n);
    ts_error err;
    reset(m, lanes, n, capacity);
    int shared = 0;
    *mixed = 0, *most = 0;
    for (;;) {
        ts_step_rows r[MAX_LANES];
        ts_mm_inputs slice[MAX_LANES] = {{0}};
        ts_side_inputs side[MAX_LANES];
        lane *in[MAX_LANES];
        int k = 0, prefilling = 0, decoding = 0;
        for (int i = 0; i < n; i++)
            if (!lane_done(&lanes[i])) {
                in[k] = &lanes[i];
                prefilling += lanes[i].at < lanes[i].n, decoding += lanes[i].at == lanes[i].n;
                next_rows(&lanes[i], &r[k], &slice[k], &side[k]);
                k++;
            }
        if (!k) break;
        shared += prefilling >= 2;
        *mixed += prefilling >= 1 && decoding >= 1;
        *most = decoding > *most ? decoding : *most;
        ts_status st = ts_model_step(m, r, k, logits, &err);
        for (int i = 0; i < k; i++) ts_mm_inputs_free(&slice[i]);
        CHECK_INT_EQ(st, TS_OK);
        if (st != TS_OK) {
            fprintf(stderr, "  together: %s\n", err.message);
            break;
        }
        for (int i = 0; i < k; i++) advance(in[i], &r[i], logits + (size_t)i * (size_t)vocab, vocab);
    }
    free(logits);
    return shared;
}

/* Runs the lanes alone and together and compares every step's logits bit for bit; returns the
 * most decode rows one step held. */
static int check_lanes(const char *what, ts_model *m, lane *lanes, int n, int64_t capacity)
{
    int64_t vocab = ts_model_vocab_size(m);
    float *alone[MAX_LANES];
    int steps[MAX_LANES];
    for (int i = 0; i < n; i++) {
        lanes[i].logits = malloc(sizeof(float) * (size_t)vocab * MAX_STEPS);
        alone[i] = lanes[i].logits;
    }
    run_alone(m, lanes, n, capacity);
    for (int i = 0; i < n; i++) {
        steps[i] = lanes[i].steps;
        lanes[i].logits = malloc(sizeof(float) * (size_t)vocab * MAX_STEPS);
    }
    int mixed, most, shared = run_together(m, lanes, n, capacity, &mixed, &most);
    CHECK(shared > 0);
    CHECK(mixed > 0);
    int compared = 0, differ = 0;
    double worst = 0;
    for (int i = 0; i < n; i++) {
        CHECK_INT_EQ(lanes[i].steps, steps[i]);
        CHECK(steps[i] <= MAX_STEPS);
        for (size_t j = 0; j < (size_t)steps[i] * (size_t)vocab; j++) {
            double d = fabs((double)alone[i][j] - lanes[i].logits[j]);
            differ += memcmp(&alone[i][j], &lanes[i].logits[j], sizeof(float)) != 0;
            worst = d > worst ? d : worst;
        }
        compared += steps[i];
        free(alone[i]), free(lanes[i].logits);
        lanes[i].logits = NULL;
    }
    CHECK_INT_EQ(differ, 0);
    fprintf(stderr, "  %s: %d lanes, %d steps' logits compared, %d differing values (max |diff| %g); "
                    "%d iterations prefilled 2+ lanes together, %d mixed decode and prefill rows, "
                    "up to %d decode rows in one step\n",
            what, n, compared, differ, worst, shared, mixed, most);
    return most;
}

static void free_lanes(lane *lanes, int n)
{
    for (int i = 0; i < n; i++) {
        ts_sequence_destroy(lanes[i].seq);
        ts_mm_inputs_free(&lanes[i].mm);
        free(lanes[i].ids);
    }
}

/* A text prompt of n ids (deterministic, inside a small vocabulary). */
static int32_t *text_ids(size_t n, int salt, int64_t vocab)
{
    int32_t *ids = malloc(sizeof(int32_t) * n);
    for (size_t i = 0; i < n; i++) ids[i] = (int32_t)(((int64_t)i * 389 + salt * 97 + 17) % (vocab - 3) + 2);
    return ids;
}

/* Text lanes: prompts of 37, 20, 5 and 50 ids in chunks of 16, 7, 8 and 40 rows (tiled and dot
 * paths), 6 decode steps each. */
static void text_case(const char *what, ts_model *m)
{
    int64_t vocab = ts_model_vocab_size(m);
    size_t len[4] = {37, 20, 5, 50}, chunk[4] = {16, 7, 8, 40};
    lane lanes[4] = {{0}};
    for (int i = 0; i < 4; i++) {
        lanes[i].n = len[i], lanes[i].chunk = chunk[i], lanes[i].decode = 6;
        lanes[i].ids = text_ids(len[i], i, vocab < 1000 ? vocab : 1000);
    }
    check_lanes(what, m, lanes, 4, 96);
    free_lanes(lanes, 4);
}

static void test_text(void)
{
    ts_error err;
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/qwen2/model", NULL, &m, &err), TS_OK);
    text_case("qwen2 f32", m);
    ts_model_destroy(m);
    /* bf16 weights with bf16 products (the tiled kernel's) where the CPU has them */
    ts_model_options bf = {.weights = "tests/fixtures/qwen2/model-bf16"};
    REQUIRE_INT_EQ(ts_model_load(ctx_auto, "tests/fixtures/qwen2/model", &bf, &m, &err), TS_OK);
    text_case("qwen2 bf16 weights, compute auto", m);
    ts_model_destroy(m);
    /* q8 weights with int8 activations (W8A8 row dots and GEMM) where the CPU has them */
    REQUIRE_INT_EQ(ts_model_load(ctx_auto, "tests/fixtures/qwen2/model", NULL, &m, &err), TS_OK);
    REQUIRE_INT_EQ(ts_model_quantize(m, "q8", &err), TS_OK);
    text_case("qwen2 q8, compute auto", m);
    ts_model_destroy(m);
}

/* Many decoding sequences: n lanes with prompts of 3 to 3 + 2(n − 1) ids in chunks of 4, the
 * early lanes decoding while the last prompts' chunks come (mixed steps), each lane decoding until
 * all finish together, so the last 5 steps hold n decode rows (the row dots' tiles of four weight
 * rows over 4-row groups, and a last partial group where n is not a multiple of 4). */
static void decode_case(const char *what, ts_model *m, int n)
{
    int64_t vocab = ts_model_vocab_size(m);
    lane lanes[MAX_LANES] = {{0}};
    int last = (3 + 2 * (n - 1) + 3) / 4; /* the longest prompt's chunks */
    for (int i = 0; i < n; i++) {
        lanes[i].n = 3 + 2 * (size_t)i, lanes[i].chunk = 4;
        lanes[i].decode = 5 + last - (int)(lanes[i].n + 3) / 4;
        lanes[i].ids = text_ids(lanes[i].n, 10 + i, vocab < 1000 ? vocab : 1000);
    }
    char label[128];
    snprintf(label, sizeof(label), "%s, %d decoding", what, n);
    CHECK_INT_EQ(check_lanes(label, m, lanes, n, 64), n);
    free_lanes(lanes, n);
}

/* 8, 13 and 16 decoding sequences over every weight format the decode rows read: f32 and bf16
 * (the paired and tiled row dots; bf16 products too), q8 and q4 (W8A8 where the CPU has it, f32 activations otherwise). */
static void test_many_decoding(void)
{
    ts_error err;
    ts_model *m;
    static const int counts[] = {8, 13, 16};
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/qwen2/model", NULL, &m, &err), TS_OK);
    for (int c = 0; c < 3; c++) decode_case("qwen2 f32", m, counts[c]);
    ts_model_destroy(m);
    /* bf16 weights under f32 products, and under bf16 products where the CPU has them (auto):
     * the decode rows' VDPBF16PS dots, one weight row, a row group or a pair of weight rows a
     * pass, each row's bits the same. */
    ts_model_options bf = {.weights = "tests/fixtures/qwen2/model-bf16"};
    for (int a = 0; a < 2; a++) {
        REQUIRE_INT_EQ(ts_model_load(a ? ctx_auto : ctx, "tests/fixtures/qwen2/model", &bf, &m, &err), TS_OK);
        for (int c = 0; c < 3; c++) decode_case(a ? "qwen2 bf16 weights, compute auto" : "qwen2 bf16 weights", m, counts[c]);
        ts_model_destroy(m);
    }
    static const char *formats[] = {"q8", "q4"};
    for (int f = 0; f < 2; f++)
        for (int a = 0; a < 2; a++) {
            REQUIRE_INT_EQ(ts_model_load(a ? ctx_auto : ctx, "tests/fixtures/qwen2/model", NULL, &m, &err), TS_OK);
            REQUIRE_INT_EQ(ts_model_quantize(m, formats[f], &err), TS_OK);
            char what[64];
            snprintf(what, sizeof(what), "qwen2 %s, compute %s", formats[f], a ? "auto" : "f32");
            decode_case(what, m, 8);
            decode_case(what, m, 16);
            ts_model_destroy(m);
        }
}

static void test_moe(void)
{
    ts_error err;
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/qwen3_moe/model", NULL, &m, &err), TS_OK);
    text_case("qwen3_moe", m);
    ts_model_destroy(m);
}

/* Gemma3 text, window 8: capacity 96 makes every local layer a ring of 8 rows. */
static void test_ring(void)
{
    ts_error err;
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/gemma3_text/model", NULL, &m, &err), TS_OK);
    ts_sequence *probe;
    REQUIRE_INT_EQ(ts_sequence_create(m, 96, &probe, &err), TS_OK);
    CHECK_INT_EQ(ts_sequence_cache_rows(probe, 0), 8);
    ts_sequence_destroy(probe);
    text_case("gemma3_text rings", m);
    ts_model_destroy(m);
}

/* An image prompt of the fixture: its chat template around the fixture image and `question`,
 * expanded, tokenized, encoded and assembled by ts_mm_inputs_build. */
static bool image_lane(ts_model *m, const char *name, const char *question, lane *l)
{
    char dir[128], png[160];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    snprintf(png, sizeof(png), "tests/fixtures/%s/chelsea.png", name);
    ts_error err;
    ts_tokenizer *tok;
    ts_chat_template *tmpl;
    ts_preprocessor_config pc;
    if (ts_tokenizer_load(dir, &tok, &err) != TS_OK) return false;
    bool ok = ts_chat_template_load(dir, NULL, &tmpl, &err) == TS_OK;
    ok = ok && ts_preprocessor_config_load(dir, &pc, &err) == TS_OK;
    const ts_model_config *cfg = ts_model_get_config(m);
    ts_image img;
    ts_pixel_values px;
    ok = ok && ts_image_load(png, NULL, &img, &err) == TS_OK;
    ok = ok && ts_preprocess_image(&pc, cfg->family, img.rgb, img.width, img.height, NULL, &px, &err) == TS_OK;
    int64_t count = ok ? ts_model_image_tokens(m, &px) : 0;
    char context[512], *prompt = NULL, *expanded = NULL;
    size_t len;
    snprintf(context, sizeof(context),
             "{\"messages\": [{\"role\": \"user\", \"content\": [{\"type\": \"image\"}, {\"type\": \"text\", "
             "\"text\": \"%s\"}]}], \"add_generation_prompt\": true}",
             question);
    ok = ok && ts_chat_template_render(tmpl, context, &prompt, &err) == TS_OK;
    ok = ok && ts_prompt_expand_images(cfg, tok, prompt, strlen(prompt), &count, 1, &expanded, &len, &err) == TS_OK;
    ok = ok && ts_tokenizer_encode(tok, expanded, len, true, &l->ids, &l->n, &err) == TS_OK;
    ts_encoded_media media = {0};
    ok = ok && ts_model_encode_images(m, &px, 1, &media, &err) == TS_OK;
    ok = ok && ts_mm_inputs_build(m, l->ids, l->n, &px, 1, &media, &l->mm, &err) == TS_OK;
    if (!ok) fprintf(stderr, "  %s image prompt: %s\n", name, err.message);
    ts_encoded_media_free(&media);
    free(prompt), free(expanded);
    ts_pixel_values_free(&px);
    ts_image_free(&img);
    ts_chat_template_destroy(tmpl);
    ts_tokenizer_destroy(tok);
    return ok;
}

/* Two image prompts (chunks of 24 and 10 rows; image blocks stay whole where the model needs
 * them so) and a text prompt, 5 decode steps each. */
static void image_case(const char *name)
{
    char dir[128];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    ts_error err;
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, dir, NULL, &m, &err), TS_OK);
    lane lanes[3] = {{0}};
    bool ok = image_lane(m, name, "Describe this image.", &lanes[0]) &&
              image_lane(m, name, "What animal is in the picture, and what colour is it?", &lanes[1]);
    CHECK(ok);
    if (ok) {
        lanes[0].chunk = 24, lanes[1].chunk = 10;
        lanes[0].decode = lanes[1].decode = lanes[2].decode = 5;
        lanes[2].n = 30, lanes[2].chunk = 16;
        lanes[2].ids = text_ids(30, 3, ts_model_vocab_size(m) < 1000 ? ts_model_vocab_size(m) : 1000);
        int64_t cap = (int64_t)(lanes[0].n > lanes[1].n ? lanes[0].n : lanes[1].n) + 16;
        char what[96];
        snprintf(what, sizeof(what), "%s (%zu and %zu image-prompt rows, side inputs %d)", name, lanes[0].n, lanes[1].n,
                 (int)lanes[0].mm.side_kind);
        check_lanes(what, m, lanes, 3, cap);
    }
    free_lanes(lanes, 3);
    ts_model_destroy(m);
}

static void test_images_mrope(void) { image_case("qwen2_vl"); }
static void test_images_bias(void) { image_case("gemma3"); }
static void test_images_deepstack(void) { image_case("qwen3_vl"); }

/* The step's own refusals, each before anything runs. */
static void test_errors(void)
{
    ts_error err;
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/qwen2/model", NULL, &m, &err), TS_OK);
    ts_sequence *a, *b, *c;
    REQUIRE_INT_EQ(ts_sequence_create(m, 8, &a, &err), TS_OK);
    REQUIRE_INT_EQ(ts_sequence_create(m, 8, &b, &err), TS_OK);
    REQUIRE_INT_EQ(ts_sequence_create(m, 16, &c, &err), TS_OK);
    int32_t ids[12] = {5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    float *logits = malloc(sizeof(float) * 2 * (size_t)ts_model_vocab_size(m));
    ts_step_rows twice[2] = {{.seq = a, .n = 2, .tokens = ids}, {.seq = a, .n = 1, .tokens = ids}};
    CHECK_INT_EQ(ts_model_step(m, twice, 2, logits, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "step: sequence 1:") != NULL);
    ts_step_rows caps[2] = {{.seq = a, .n = 2, .tokens = ids}, {.seq = c, .n = 1, .tokens = ids}};
    CHECK_INT_EQ(ts_model_step(m, caps, 2, logits, &err), TS_ERR_UNSUPPORTED);
    ts_step_rows full[2] = {{.seq = a, .n = 2, .tokens = ids}, {.seq = b, .n = 12, .tokens = ids}};
    CHECK_INT_EQ(ts_model_step(m, full, 2, logits, &err), TS_ERR_RANGE);
    ts_step_rows none[1] = {{.seq = a, .n = 2}};
    CHECK_INT_EQ(ts_model_step(m, none, 1, logits, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_INT_EQ(ts_model_step(m, none, 0, logits, &err), TS_ERR_RANGE);
    /* nothing ran: both sequences still empty */
    CHECK_INT_EQ(ts_sequence_length(a), 0);
    CHECK_INT_EQ(ts_sequence_length(b), 0);
    free(logits);
    ts_sequence_destroy(a), ts_sequence_destroy(b), ts_sequence_destroy(c);
    ts_model_destroy(m);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    ts_context_options oa = {.n_threads = 2, .log_level = TS_LOG_WARN, .compute = "auto"};
    if (ts_context_create(&oa, &ctx_auto, &err) != TS_OK) return 1;
    RUN(test_text);
    RUN(test_many_decoding);
    RUN(test_moe);
    RUN(test_ring);
    RUN(test_images_mrope);
    RUN(test_images_bias);
    RUN(test_images_deepstack);
    RUN(test_errors);
    ts_context_destroy(ctx_auto);
    ts_context_destroy(ctx);
    return check_finish();
}
