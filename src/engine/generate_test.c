/* generate_test.c — the stop-string matcher on its own, then the generation loop on the qwen2
 * fixture model: greedy with EOS ignored reproduces the fixture's 16 generated_ids, max_tokens
 * and a full cache end with "length", an EOS id ends with "stop" at its first occurrence, and
 * stop strings over a stand-in text stream ("[id]" per token) end generation, cut the text and
 * hold back what might start a stop string, releasing it at the end when none comes. */
#include "engine/generate.h"
#include "engine/stop_matcher.h"
#include "check.h"

static ts_context *ctx;

/* RUN for the tests that take the loaded fixture. */
#define RUN_WITH(fn, arg)                                                                          \
    do {                                                                                           \
        int before_ = check_failed;                                                                \
        fn(arg);                                                                                   \
        fprintf(stderr, "%s %s\n", check_failed == before_ ? "ok  " : "FAIL", #fn);                \
    } while (0)

/* ------------------------------------------------------------------ stop matcher */

typedef struct collected {
    char text[256];
    size_t len;
} collected;

static void push(ts_stop_matcher *m, collected *c, const char *piece, const char *want)
{
    const char *out;
    size_t len;
    ts_error err;
    CHECK_INT_EQ(ts_stop_matcher_push(m, piece, strlen(piece), &out, &len, &err), TS_OK);
    char got[256];
    snprintf(got, sizeof(got), "%.*s", (int)len, out);
    CHECK_STR_EQ(got, want);
    memcpy(c->text + c->len, out, len);
    c->len += len;
    c->text[c->len] = '\0';
}

static void finish(ts_stop_matcher *m, collected *c, const char *want)
{
    const char *out;
    size_t len;
    ts_stop_matcher_finish(m, &out, &len);
    char got[256];
    snprintf(got, sizeof(got), "%.*s", (int)len, out);
    CHECK_STR_EQ(got, want);
    memcpy(c->text + c->len, out, len);
    c->len += len;
    c->text[c->len] = '\0';
}

static void test_stop_in_one_piece(void)
{
    const char *stops[1] = {"STOP"};
    ts_stop_matcher m;
    collected c = {0};
    ts_error err;
    REQUIRE_INT_EQ(ts_stop_matcher_init(&m, stops, 1, &err), TS_OK);
    push(&m, &c, "hello STOP world", "hello ");
    CHECK(m.stopped);
    CHECK_INT_EQ(m.matched, 0);
    push(&m, &c, "more", "");
    finish(&m, &c, "");
    CHECK_STR_EQ(c.text, "hello ");
    ts_stop_matcher_fini(&m);
}

static void test_stop_split_across_pieces(void)
{
    const char *stops[1] = {"STOP"};
    ts_stop_matcher m;
    collected c = {0};
    ts_error err;
    REQUIRE_INT_EQ(ts_stop_matcher_init(&m, stops, 1, &err), TS_OK);
    push(&m, &c, "ab", "ab");
    push(&m, &c, "cS", "c"); /* "S" could start STOP: held back */
    CHECK(!m.stopped);
    push(&m, &c, "TO", "");  /* "STO" still could */
    push(&m, &c, "P!", "");  /* completes it: the stop and what follows are dropped */
    CHECK(m.stopped);
    finish(&m, &c, "");
    CHECK_STR_EQ(c.text, "abc");
    ts_stop_matcher_fini(&m);
}

static void test_false_start_is_released(void)
{
    const char *stops[1] = {"STOP"};
    ts_stop_matcher m;
    collected c = {0};
    ts_error err;
    REQUIRE_INT_EQ(ts_stop_matcher_init(&m, stops, 1, &err), TS_OK);
    push(&m, &c, "xST", "x");
    push(&m, &c, "OX", "STOX");
    push(&m, &c, " S", " ");
    CHECK(!m.stopped);
    finish(&m, &c, "S"); /* held back at the end, then released: no stop came */
    CHECK_STR_EQ(c.text, "xSTOX S");
    ts_stop_matcher_fini(&m);
}

static void test_earliest_of_several_stops(void)
{
    const char *stops[3] = {"world", "lo w", "aab"};
    ts_stop_matcher m;
    collected c = {0};
    ts_error err;
    REQUIRE_INT_EQ(ts_stop_matcher_init(&m, stops, 3, &err), TS_OK);
    push(&m, &c, "hel", "he"); /* "l" may start "lo w" */
    push(&m, &c, "lo world", "l");
    CHECK_INT_EQ(m.matched, 1);
    CHECK_STR_EQ(c.text, "hel");
    ts_stop_matcher_fini(&m);

    /* Self-overlapping stop: "aa" then "aab" holds "aa", then finds the stop at offset 2. */
    collected d = {0};
    REQUIRE_INT_EQ(ts_stop_matcher_init(&m, stops, 3, &err), TS_OK);
    push(&m, &d, "aa", "");
    push(&m, &d, "aab", "aa");
    CHECK_INT_EQ(m.matched, 2);
    ts_stop_matcher_fini(&m);
}

static void test_matcher_without_stops_and_errors(void)
{
    ts_stop_matcher m;
    collected c = {0};
    ts_error err;
    REQUIRE_INT_EQ(ts_stop_matcher_init(&m, NULL, 0, &err), TS_OK);
    push(&m, &c, "anything", "anything");
    push(&m, &c, "", "");
    finish(&m, &c, "");
    CHECK(!m.stopped);
    ts_stop_matcher_fini(&m);
    const char *bad[2] = {"ok", ""};
    CHECK_INT_EQ(ts_stop_matcher_init(&m, bad, 2, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "stop string 1 is empty");
    ts_stop_matcher_fini(&m);
}

/* The earliest start of a stop string lying wholly inside t[0..n), or -1. */
static int reference_stop(const char *t, int n, const char *const *stops, int n_stop)
{
    for (int start = 0; start < n; start++)
        for (int k = 0; k < n_stop; k++) {
            int sl = (int)strlen(stops[k]);
            if (start + sl <= n && memcmp(t + start, stops[k], (size_t)sl) == 0) return start;
        }
    return -1;
}

/* Random texts over {a, b, c}, random stop strings and random cuts into pieces, against the
 * obvious reference: at the first piece after which the text so far contains a stop string,
 * the output is the text before the earliest such occurrence; until then, exactly the longest
 * tail that could start a stop string is held back; with no stop, finish releases the rest. */
static void test_matcher_against_reference(void)
{
    uint64_t x = 0x5eed;
#define NEXT(n) ((x = x * 6364136223846793005ull + 1442695040888963407ull), (int)((x >> 33) % (n)))
    int failures = 0, stopped_rounds = 0;
    for (int round = 0; round < 3000; round++) {
        char text[64], stops_buf[3][6];
        const char *stops[3];
        int n_text = 1 + NEXT(40), n_stop = 1 + NEXT(3);
        for (int i = 0; i < n_text; i++) text[i] = (char)('a' + NEXT(3));
        text[n_text] = '\0';
        for (int k = 0; k < n_stop; k++) {
            int len = 1 + NEXT(5);
            for (int i = 0; i < len; i++) stops_buf[k][i] = (char)('a' + NEXT(3));
            stops_buf[k][len] = '\0';
            stops[k] = stops_buf[k];
        }
        ts_stop_matcher m;
        ts_error err;
        char out[64];
        int n_out = 0, want_stop = -1;
        bool ok = ts_stop_matcher_init(&m, stops, n_stop, &err) == TS_OK;
        for (int at = 0; at < n_text && want_stop < 0;) {
            int len = 1 + NEXT(5);
            if (at + len > n_text) len = n_text - at;
            const char *piece;
            size_t piece_len;
            ok &= ts_stop_matcher_push(&m, text + at, (size_t)len, &piece, &piece_len, &err) == TS_OK;
            memcpy(out + n_out, piece, piece_len);
            n_out += (int)piece_len;
            at += len;
            want_stop = reference_stop(text, at, stops, n_stop);
            ok &= m.stopped == (want_stop >= 0);
            if (want_stop >= 0) {
                ok &= n_out == want_stop;
                break;
            }
            int held = 0;
            for (int k = 0; k < n_stop; k++)
                for (int t = (int)strlen(stops[k]) - 1; t > held; t--)
                    if (t <= at && memcmp(text + at - t, stops[k], (size_t)t) == 0) {
                        held = t;
                        break;
                    }
            ok &= n_out == at - held;
        }
        if (want_stop < 0) {
            const char *tail;
            size_t tail_len;
            ts_stop_matcher_finish(&m, &tail, &tail_len);
            memcpy(out + n_out, tail, tail_len);
            n_out += (int)tail_len;
            ok &= n_out == n_text;
        } else {
            stopped_rounds++;
        }
        ok &= memcmp(out, text, (size_t)n_out) == 0;
        if (!ok && failures++ < 5)
            fprintf(stderr, "  round %d: text \"%s\", stops \"%s\" \"%s\" \"%s\": got \"%.*s\"\n",
                    round, text, stops[0], n_stop > 1 ? stops[1] : "", n_stop > 2 ? stops[2] : "",
                    n_out, out);
        ts_stop_matcher_fini(&m);
    }
#undef NEXT
    CHECK_INT_EQ(failures, 0);
    CHECK(stopped_rounds > 500 && stopped_rounds < 2900); /* both outcomes were exercised */
}

/* ------------------------------------------------------------------ generation on the fixture */

typedef struct fixture {
    ts_model *model;
    int32_t prompt[64];
    size_t n_prompt;
    int32_t greedy[16];
    int64_t eos[8];
    int n_eos;
} fixture;

static bool load_fixture(fixture *f)
{
    ts_error err;
    const char *dir = "tests/fixtures/qwen2/model";
    if (ts_model_load(ctx, dir, NULL, &f->model, &err) != TS_OK) {
        fprintf(stderr, "%s\n", err.message);
        return false;
    }
    ts_checkpoint *ref;
    if (ts_checkpoint_open("tests/fixtures/qwen2/reference.safetensors", &ref, &err) != TS_OK) {
        fprintf(stderr, "%s\n", err.message);
        return false;
    }
    const ts_tensor_info *ids = ts_checkpoint_find(ref, "input_ids");
    const ts_tensor_info *gen = ts_checkpoint_find(ref, "generated_ids");
    bool ok = ids && gen && ids->dtype == TS_DTYPE_I64 && gen->dtype == TS_DTYPE_I64 &&
              ids->shape[1] <= 64 && gen->shape[0] == 16;
    if (ok) {
        f->n_prompt = (size_t)ids->shape[1];
        for (size_t i = 0; i < f->n_prompt; i++) f->prompt[i] = (int32_t)((const int64_t *)ids->data)[i];
        for (int i = 0; i < 16; i++) f->greedy[i] = (int32_t)((const int64_t *)gen->data)[i];
    }
    ts_checkpoint_close(ref);
    ts_generation_config gc;
    ok = ok && ts_generation_config_load(dir, &gc, &err) == TS_OK;
    f->n_eos = ts_generation_eos_ids(&gc, ts_model_get_config(f->model), f->eos);
    return ok;
}

static void greedy_params(const fixture *f, ts_generate_params *p)
{
    memset(p, 0, sizeof(*p));
    ts_sampling_params_default(&p->sampling);
    p->max_tokens = 16;
    p->eos_ids = f->eos;
    p->n_eos_ids = f->n_eos;
}

static ts_status run_generate(fixture *f, int64_t capacity, const ts_generate_params *p,
                              const ts_text_stream *text, ts_generation *g, ts_error *err)
{
    ts_sequence *seq;
    ts_status st = ts_sequence_create(f->model, capacity, &seq, err);
    if (st) return st;
    st = ts_generate_stream(f->model, seq, f->prompt, f->n_prompt, p, text, g, err);
    ts_sequence_destroy(seq);
    return st;
}

static void test_greedy_matches_fixture(fixture *f)
{
    CHECK_INT_EQ(f->n_eos, 2); /* generation_config.json: [1282, 1280] */
    ts_generate_params p;
    greedy_params(f, &p);
    p.ignore_eos = true;
    ts_generation g;
    ts_error err;
    CHECK_INT_EQ(run_generate(f, 64, &p, NULL, &g, &err), TS_OK);
    CHECK_INT_EQ(g.n_ids, 16);
    CHECK(g.n_ids == 16 && memcmp(g.ids, f->greedy, sizeof(f->greedy)) == 0);
    CHECK_INT_EQ(g.finish_reason, TS_FINISH_LENGTH);
    CHECK_STR_EQ(ts_finish_reason_name(g.finish_reason), "length");
    CHECK_INT_EQ(g.prompt_tokens, f->n_prompt);
    CHECK_STR_EQ(g.text, "");
    CHECK(g.prompt_ms >= 0 && g.generation_ms > 0);
    ts_generation_free(&g);
}

static void test_max_tokens_and_capacity_give_length(fixture *f)
{
    ts_generate_params p;
    greedy_params(f, &p);
    p.ignore_eos = true;
    p.max_tokens = 5;
    ts_generation g;
    ts_error err;
    CHECK_INT_EQ(run_generate(f, 64, &p, NULL, &g, &err), TS_OK);
    CHECK_INT_EQ(g.n_ids, 5);
    CHECK(g.n_ids == 5 && memcmp(g.ids, f->greedy, 5 * sizeof(int32_t)) == 0);
    CHECK_INT_EQ(g.finish_reason, TS_FINISH_LENGTH);
    ts_generation_free(&g);

    /* Room for 4 decodes after the prompt: the 5th token is sampled, then the cache is full. */
    p.max_tokens = 16;
    CHECK_INT_EQ(run_generate(f, (int64_t)f->n_prompt + 4, &p, NULL, &g, &err), TS_OK);
    CHECK_INT_EQ(g.n_ids, 5);
    CHECK_INT_EQ(g.finish_reason, TS_FINISH_LENGTH);
    ts_generation_free(&g);

    /* A prompt that does not fit is the model's error, prefixed. */
    CHECK_INT_EQ(run_generate(f, 8, &p, NULL, &g, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "generate: ");
    CHECK(g.ids == NULL && g.n_ids == 0);
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(f->model, 8, &seq, &err), TS_OK);
    CHECK_INT_EQ(ts_generate(f->model, seq, f->prompt, f->n_prompt, &p, &g, NULL), TS_ERR_RANGE);
    ts_sequence_destroy(seq);
    p.max_tokens = 0;
    CHECK_INT_EQ(run_generate(f, 64, &p, NULL, &g, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "max_tokens 0");
}

static void test_eos_stops(fixture *f)
{
    /* The fixture's third greedy token made an EOS id: generation stops right there. */
    int64_t eos[1] = {f->greedy[2]};
    ts_generate_params p;
    greedy_params(f, &p);
    p.eos_ids = eos, p.n_eos_ids = 1;
    ts_generation g;
    ts_error err;
    CHECK_INT_EQ(run_generate(f, 64, &p, NULL, &g, &err), TS_OK);
    CHECK_INT_EQ(g.n_ids, 3);
    CHECK(g.n_ids == 3 && memcmp(g.ids, f->greedy, 3 * sizeof(int32_t)) == 0);
    CHECK_INT_EQ(g.finish_reason, TS_FINISH_STOP);
    ts_generation_free(&g);

    /* ignore_eos bans it instead: the third token differs and generation runs to the end. */
    p.ignore_eos = true;
    CHECK_INT_EQ(run_generate(f, 64, &p, NULL, &g, &err), TS_OK);
    CHECK_INT_EQ(g.n_ids, 16);
    CHECK(g.n_ids == 16 && memcmp(g.ids, f->greedy, 2 * sizeof(int32_t)) == 0 && g.ids[2] != f->greedy[2]);
    for (size_t i = 0; i < g.n_ids; i++) CHECK(g.ids[i] != f->greedy[2]);
    CHECK_INT_EQ(g.finish_reason, TS_FINISH_LENGTH);
    ts_generation_free(&g);
}

static void test_sampling_is_seeded(fixture *f)
{
    ts_generate_params p;
    greedy_params(f, &p);
    p.ignore_eos = true;
    p.sampling.temperature = 1.0f, p.sampling.seed = 99;
    ts_generation a, b, c;
    ts_error err;
    CHECK_INT_EQ(run_generate(f, 64, &p, NULL, &a, &err), TS_OK);
    CHECK_INT_EQ(run_generate(f, 64, &p, NULL, &b, &err), TS_OK);
    p.sampling.seed = 100;
    CHECK_INT_EQ(run_generate(f, 64, &p, NULL, &c, &err), TS_OK);
    CHECK(a.n_ids == 16 && b.n_ids == 16 && c.n_ids == 16);
    CHECK(memcmp(a.ids, b.ids, 16 * sizeof(int32_t)) == 0);
    CHECK(memcmp(a.ids, c.ids, 16 * sizeof(int32_t)) != 0);
    ts_generation_free(&a);
    ts_generation_free(&b);
    ts_generation_free(&c);
}

/* A stand-in detokenizer: id 14 → "[14]"; finish adds `tail`. */
typedef struct bracket_stream {
    char piece[32];
    const char *tail;
} bracket_stream;

static ts_status bracket_push(void *self, int32_t id, const char **piece, size_t *len, ts_error *err)
{
    bracket_stream *s = self;
    *len = (size_t)snprintf(s->piece, sizeof(s->piece), "[%d]", id);
    *piece = s->piece;
    return TS_OK;
}

static ts_status bracket_finish(void *self, const char **piece, size_t *len, ts_error *err)
{
    bracket_stream *s = self;
    *piece = s->tail ? s->tail : "";
    *len = strlen(*piece);
    return TS_OK;
}

typedef struct recorder {
    int calls;
    int32_t ids[32];
    char pieces[32][64];
    int stop_after; /* return false after this many calls; 0 = never */
} recorder;

static bool record(void *user, int32_t id, const char *text, size_t len)
{
    recorder *r = user;
    if (r->calls < 32) {
        r->ids[r->calls] = id;
        snprintf(r->pieces[r->calls], sizeof(r->pieces[0]), "%.*s", (int)len, text);
    }
    r->calls++;
    return r->stop_after == 0 || r->calls < r->stop_after;
}

static void test_stop_strings_in_the_loop(fixture *f)
{
    /* The greedy text is "[9][14][891][452]…": "4][891" spans the second and third pieces. */
    bracket_stream bs = {0};
    ts_text_stream stream = {&bs, bracket_push, bracket_finish};
    const char *stops[2] = {"never", "4][891"};
    recorder rec = {0};
    ts_generate_params p;
    greedy_params(f, &p);
    p.ignore_eos = true;
    p.stop = stops, p.n_stop = 2;
    p.on_token = record, p.user = &rec;
    ts_generation g;
    ts_error err;
    CHECK_INT_EQ(run_generate(f, 64, &p, &stream, &g, &err), TS_OK);
    CHECK_INT_EQ(g.finish_reason, TS_FINISH_STOP);
    CHECK_INT_EQ(g.n_ids, 3); /* the id that completed the stop string is kept */
    CHECK_STR_EQ(g.text, "[9][1");
    CHECK_INT_EQ(g.text_len, 5);
    CHECK_INT_EQ(rec.calls, 4);
    CHECK(rec.ids[0] == f->greedy[0] && rec.ids[1] == f->greedy[1] && rec.ids[2] == f->greedy[2] && rec.ids[3] == -1);
    CHECK_STR_EQ(rec.pieces[0], "[9]");
    CHECK_STR_EQ(rec.pieces[1], "[1"); /* "4]" held back: it starts the stop string */
    CHECK_STR_EQ(rec.pieces[2], "");
    CHECK_STR_EQ(rec.pieces[3], "");
    ts_generation_free(&g);

    /* "[976]" ends the 16 tokens and could start "[976]!": held back, released at the end
     * together with the stream's tail. */
    char last[16];
    snprintf(last, sizeof(last), "[%d]", f->greedy[15]);
    char stop[24];
    snprintf(stop, sizeof(stop), "%s!", last);
    const char *stops2[1] = {stop};
    memset(&rec, 0, sizeof(rec));
    bs.tail = "~";
    p.stop = stops2, p.n_stop = 1;
    CHECK_INT_EQ(run_generate(f, 64, &p, &stream, &g, &err), TS_OK);
    CHECK_INT_EQ(g.finish_reason, TS_FINISH_LENGTH);
    CHECK_INT_EQ(g.n_ids, 16);
    CHECK_INT_EQ(rec.calls, 17);
    CHECK_STR_EQ(rec.pieces[15], "");
    char want_end[24];
    snprintf(want_end, sizeof(want_end), "%s~", last);
    CHECK_STR_EQ(rec.pieces[16], want_end);
    CHECK_INT_EQ(rec.ids[16], -1);
    char want[256] = "";
    for (int i = 0; i < 16; i++) snprintf(want + strlen(want), sizeof(want) - strlen(want), "[%d]", f->greedy[i]);
    strcat(want, "~");
    CHECK_STR_EQ(g.text, want);
    ts_generation_free(&g);

    /* The stream's tail can itself complete a stop string. */
    bs.tail = "!";
    CHECK_INT_EQ(run_generate(f, 64, &p, &stream, &g, &err), TS_OK);
    CHECK_INT_EQ(g.finish_reason, TS_FINISH_STOP);
    want[strlen(want) - 1 - strlen(last)] = '\0';
    CHECK_STR_EQ(g.text, want);
    ts_generation_free(&g);
    bs.tail = NULL;

    /* A callback returning false ends generation after that token. */
    memset(&rec, 0, sizeof(rec));
    rec.stop_after = 4;
    p.stop = NULL, p.n_stop = 0;
    CHECK_INT_EQ(run_generate(f, 64, &p, &stream, &g, &err), TS_OK);
    CHECK_INT_EQ(g.n_ids, 4);
    CHECK_INT_EQ(g.finish_reason, TS_FINISH_STOP);
    ts_generation_free(&g);

    /* Stop strings without any text to match are refused. */
    p.stop = stops, p.n_stop = 2;
    CHECK_INT_EQ(run_generate(f, 64, &p, NULL, &g, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "stop strings need a tokenizer");
}

static void test_generate_without_tokenizer(fixture *f)
{
    /* ts_generate with a tokenizer goes through ts_detokenizer; with none, ids only. */
    ts_generate_params p;
    greedy_params(f, &p);
    p.ignore_eos = true;
    p.max_tokens = 3;
    ts_sequence *seq;
    ts_error err;
    REQUIRE_INT_EQ(ts_sequence_create(f->model, 64, &seq, &err), TS_OK);
    ts_generation g;
    CHECK_INT_EQ(ts_generate(f->model, seq, f->prompt, f->n_prompt, &p, &g, &err), TS_OK);
    CHECK(g.n_ids == 3 && memcmp(g.ids, f->greedy, 3 * sizeof(int32_t)) == 0);
    CHECK_INT_EQ(ts_sequence_length(seq), (int64_t)f->n_prompt + 2);
    ts_generation_free(&g);
    ts_sequence_destroy(seq);
}

int main(void)
{
    RUN(test_stop_in_one_piece);
    RUN(test_stop_split_across_pieces);
    RUN(test_false_start_is_released);
    RUN(test_earliest_of_several_stops);
    RUN(test_matcher_without_stops_and_errors);
    RUN(test_matcher_against_reference);

    ts_error err;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    fixture f = {0};
    bool loaded = load_fixture(&f);
    CHECK(loaded);
    if (loaded) {
        RUN_WITH(test_greedy_matches_fixture, &f);
        RUN_WITH(test_max_tokens_and_capacity_give_length, &f);
        RUN_WITH(test_eos_stops, &f);
        RUN_WITH(test_sampling_is_seeded, &f);
        RUN_WITH(test_stop_strings_in_the_loop, &f);
        RUN_WITH(test_generate_without_tokenizer, &f);
    }
    ts_model_destroy(f.model);
    ts_context_destroy(ctx);
    return check_finish();
}
