/* tokenizer_test.c — known encodings (fixtures' reference.json), a synthetic Llama-2-style
 * tokenizer (Prepend/Replace normalizer, byte fallback, unk fusing, added-token flags, decoder
 * chain), a Metaspace variant, invalid UTF-8 and malformed tokenizer.json errors.
 *
 * Expected ids for the synthetic tokenizers were produced by Hugging Face `tokenizers` on the
 * same JSON (see tests/oracle/tokenize_oracle.js for the harness).
 */
#include "check.h"
#include "tessera.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <unistd.h>

static const char *root(void)
{
    const char *r = getenv("TS_ROOT");
    return r ? r : ".";
}

/* ------------------------------------------------------------------ helpers */

static char tmp_dir[256];

/* Writes `json` as tmp_dir/tokenizer.json (and config when given); returns the folder. */
static const char *write_tokenizer(const char *json, const char *config)
{
    if (!tmp_dir[0]) {
        snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/ts_tokenizer_test_XXXXXX");
        if (!mkdtemp(tmp_dir)) return NULL;
    }
    char path[512];
    snprintf(path, sizeof(path), "%s/tokenizer.json", tmp_dir);
    FILE *f = fopen(path, "w");
    fputs(json, f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/tokenizer_config.json", tmp_dir);
    unlink(path);
    if (config) {
        f = fopen(path, "w");
        fputs(config, f);
        fclose(f);
    }
    return tmp_dir;
}

static void cleanup(void)
{
    if (!tmp_dir[0]) return;
    char path[512];
    snprintf(path, sizeof(path), "%s/tokenizer.json", tmp_dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/tokenizer_config.json", tmp_dir);
    unlink(path);
    rmdir(tmp_dir);
}

/* Replaces each "@" in `tmpl` with `with`. Owned, free(). */
static char *fill(const char *tmpl, const char *with)
{
    size_t n = 0;
    for (const char *p = tmpl; *p; p++)
        n += *p == '@';
    char *out = malloc(strlen(tmpl) + n * strlen(with) + 1), *o = out;
    for (const char *p = tmpl; *p; p++) {
        if (*p == '@')
            o = stpcpy(o, with);
        else
            *o++ = *p;
    }
    *o = '\0';
    return out;
}

/* "1 2 3" form of an encoding, for readable comparisons. */
static char *encode_str(const ts_tokenizer *tok, const char *text, bool special)
{
    int32_t *ids;
    size_t n;
    ts_error err = {0};
    if (ts_tokenizer_encode(tok, text, strlen(text), special, &ids, &n, &err))
        return strdup(err.message);
    char *out = malloc(n * 12 + 1), *o = out;
    *o = '\0';
    for (size_t i = 0; i < n; i++)
        o += sprintf(o, i ? " %d" : "%d", ids[i]);
    free(ids);
    return out;
}

static void check_encode(const ts_tokenizer *tok, const char *text, bool special, const char *want)
{
    char *got = encode_str(tok, text, special);
    CHECK_STR_EQ(got, want);
    if (strcmp(got, want) != 0) fprintf(stderr, "  text: \"%s\"\n", text);
    free(got);
}

static void check_decode(const ts_tokenizer *tok, const int32_t *ids, size_t n, bool skip,
                         const char *want)
{
    char *text;
    size_t len;
    ts_error err = {0};
    REQUIRE_INT_EQ(ts_tokenizer_decode(tok, ids, n, skip, &text, &len, &err), TS_OK);
    CHECK_STR_EQ(text, want);
    CHECK_INT_EQ(len, strlen(want));
    free(text);
}

/* ------------------------------------------------------------------ fixtures */

static void check_fixture(const char *name)
{
    char dir[512], path[512];
    snprintf(dir, sizeof(dir), "%s/tests/fixtures/%s/model", root(), name);
    snprintf(path, sizeof(path), "%s/tests/fixtures/%s/reference.json", root(), name);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f) return;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *data = malloc((size_t)size + 1);
    CHECK(fread(data, 1, (size_t)size, f) == (size_t)size);
    data[size] = '\0';
    fclose(f);
    cJSON *ref = cJSON_Parse(data);
    free(data);
    const char *prompt = cJSON_GetObjectItem(ref, "prompt_text")->valuestring;
    const cJSON *want = cJSON_GetObjectItem(ref, "input_ids");
    ts_tokenizer *tok;
    ts_error err = {0};
    CHECK_INT_EQ(ts_tokenizer_load(dir, &tok, &err), TS_OK);
    if (!tok) return;
    int32_t *ids;
    size_t n;
    REQUIRE_INT_EQ(ts_tokenizer_encode(tok, prompt, strlen(prompt), true, &ids, &n, &err), TS_OK);
    CHECK_INT_EQ(n, cJSON_GetArraySize(want));
    bool same = n == (size_t)cJSON_GetArraySize(want);
    for (size_t i = 0; same && i < n; i++)
        same = ids[i] == cJSON_GetArrayItem(want, (int)i)->valueint;
    CHECK(same);
    if (!same) fprintf(stderr, "  fixture %s: prompt ids differ\n", name);
    free(ids);
    /* Without the added BOS, decoding (specials kept) gives the prompt back. */
    char *text;
    size_t len;
    REQUIRE_INT_EQ(ts_tokenizer_encode(tok, prompt, strlen(prompt), false, &ids, &n, &err), TS_OK);
    REQUIRE_INT_EQ(ts_tokenizer_decode(tok, ids, n, false, &text, &len, &err), TS_OK);
    CHECK_STR_EQ(text, prompt);
    free(text);
    free(ids);
    /* generated_text is the decode of generated_ids, which include ids past the vocabulary. */
    const cJSON *gen = cJSON_GetObjectItem(ref, "generated_ids");
    int n_gen = cJSON_GetArraySize(gen);
    int32_t *gen_ids = malloc((size_t)n_gen * sizeof(int32_t));
    for (int i = 0; i < n_gen; i++)
        gen_ids[i] = cJSON_GetArrayItem(gen, i)->valueint;
    REQUIRE_INT_EQ(ts_tokenizer_decode(tok, gen_ids, (size_t)n_gen, false, &text, &len, &err),
                   TS_OK);
    CHECK_STR_EQ(text, cJSON_GetObjectItem(ref, "generated_text")->valuestring);
    free(text);
    free(gen_ids);
    ts_tokenizer_destroy(tok);
    cJSON_Delete(ref);
}

static void test_fixture_prompts(void)
{
    check_fixture("qwen2");
    check_fixture("qwen3");
    check_fixture("qwen2_vl-text-only");
    check_fixture("llama"); /* BOS from tokenizer_config.json add_bos_token, not tokenizer.json */
}

static void test_fixture_specials(void)
{
    char dir[512];
    snprintf(dir, sizeof(dir), "%s/tests/fixtures/llama/model", root());
    ts_tokenizer *tok;
    ts_error err = {0};
    CHECK_INT_EQ(ts_tokenizer_load(dir, &tok, &err), TS_OK);
    if (!tok) return;
    CHECK_INT_EQ(ts_tokenizer_token_to_id(tok, "<|begin_of_text|>"), 1280);
    CHECK_INT_EQ(ts_tokenizer_token_to_id(tok, "<|eot_id|>"), 1284);
    CHECK_INT_EQ(ts_tokenizer_token_to_id(tok, "no such token"), -1);
    CHECK_STR_EQ(ts_tokenizer_id_to_token(tok, 1280), "<|begin_of_text|>");
    CHECK(ts_tokenizer_id_to_token(tok, 100000) == NULL);
    CHECK(ts_tokenizer_is_special(tok, 1284));
    CHECK(!ts_tokenizer_is_special(tok, 54));
    CHECK_STR_EQ(ts_tokenizer_special_token(tok, "bos_token"), "<|begin_of_text|>");
    CHECK_STR_EQ(ts_tokenizer_special_token(tok, "eos_token"), "<|eot_id|>");
    CHECK(ts_tokenizer_special_token(tok, "unk_token") == NULL);
    CHECK_INT_EQ(ts_tokenizer_vocab_size(tok), 1285);
    check_encode(tok, "Hi", true, "1280 39 72");
    check_encode(tok, "Hi", false, "39 72");
    check_encode(tok, "", true, "1280");
    check_encode(tok, "", false, "");
    /* A rendered chat: BOS added once, whether or not the template wrote it. */
    int32_t *ids = NULL;
    size_t n = 0;
    REQUIRE_INT_EQ(ts_tokenizer_encode_chat(tok, "Hi", 2, &ids, &n, &err), TS_OK);
    CHECK(n == 3 && ids[0] == 1280 && ids[1] == 39);
    free(ids);
    REQUIRE_INT_EQ(ts_tokenizer_encode_chat(tok, "<|begin_of_text|>Hi", 19, &ids, &n, &err), TS_OK);
    CHECK(n == 3 && ids[0] == 1280 && ids[1] == 39);
    free(ids);
    ts_tokenizer_destroy(tok);
}

/* ------------------------------------------------------------------ synthetic Llama-2 style */

/* "@" stands for the 256 byte-fallback entries "<0x00>": 3 … "<0xFF>": 258. */
static const char llama2_tmpl[] =
    "{\"version\":\"1.0\",\"added_tokens\":["
    "{\"id\":0,\"content\":\"<unk>\",\"special\":true,\"normalized\":false},"
    "{\"id\":1,\"content\":\"<s>\",\"special\":true,\"normalized\":false},"
    "{\"id\":2,\"content\":\"</s>\",\"special\":true,\"normalized\":false},"
    "{\"id\":283,\"content\":\"<L>\",\"special\":true,\"normalized\":false,\"lstrip\":true},"
    "{\"id\":284,\"content\":\"<R>\",\"special\":true,\"normalized\":false,\"rstrip\":true},"
    "{\"id\":285,\"content\":\"cab\",\"special\":false,\"normalized\":false,\"single_word\":true},"
    "{\"id\":286,\"content\":\"ab c\",\"special\":false,\"normalized\":true}],"
    "\"normalizer\":{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\",\"prepend\":"
    "\"\xE2\x96\x81\"},"
    "{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"\xE2\x96\x81\"}]},"
    "\"pre_tokenizer\":null,"
    "\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[{\"SpecialToken\":{\"id\":\"<"
    "s>\",\"type_id\":0}},"
    "{\"Sequence\":{\"id\":\"A\",\"type_id\":0}}],\"pair\":[],"
    "\"special_tokens\":{\"<s>\":{\"id\":\"<s>\",\"ids\":[1],\"tokens\":[\"<s>\"]}}},"
    "\"decoder\":{\"type\":\"Sequence\",\"decoders\":[{\"type\":\"Replace\",\"pattern\":{"
    "\"String\":\"\xE2\x96\x81\"},"
    "\"content\":\" "
    "\"},{\"type\":\"ByteFallback\"},{\"type\":\"Fuse\"},{\"type\":\"Strip\",\"content\":\" \","
    "\"start\":1,\"stop\":0}]},"
    "\"model\":{\"type\":\"BPE\",\"dropout\":null,\"unk_token\":\"<unk>\",\"fuse_unk\":true,\"byte_"
    "fallback\":true,"
    "\"vocab\":{\"<unk>\":0,\"<s>\":1,\"</"
    "s>\":2,@,\"\xE2\x96\x81\":259,\"h\":260,\"e\":261,\"l\":262,"
    "\"o\":263,\"w\":264,\"r\":265,\"d\":266,\"\xE2\x96\x81h\":267,\"\xE2\x96\x81he\":268,\"ll\":"
    "269,"
    "\"\xE2\x96\x81hell\":270,\"\xE2\x96\x81hello\":271,\"\xE2\x96\x81w\":272,\"\xE2\x96\x81wo\":"
    "273,"
    "\"\xE2\x96\x81wor\":274,\"\xE2\x96\x81worl\":275,\"\xE2\x96\x81world\":276,\"x\":277,\"a\":"
    "278,"
    "\"b\":279,\"c\":280,\"\xE2\x96\x81"
    "a\":281,\"\xC3\xA9\":282},"
    "\"merges\":[\"\xE2\x96\x81 h\",\"\xE2\x96\x81h e\",\"l l\",\"\xE2\x96\x81he "
    "ll\",\"\xE2\x96\x81hell o\","
    "\"\xE2\x96\x81 w\",\"\xE2\x96\x81w o\",\"\xE2\x96\x81wo r\",\"\xE2\x96\x81wor "
    "l\",\"\xE2\x96\x81worl d\","
    "\"\xE2\x96\x81 a\"]}}";

static char *llama2_json(const char *tmpl)
{
    char bytes[256 * 16], *o = bytes;
    for (int b = 0; b < 256; b++)
        o += sprintf(o, "%s\"<0x%02X>\":%d", b ? "," : "", b, 3 + b);
    return fill(tmpl, bytes);
}

static ts_tokenizer *load_json(const char *json, const char *config)
{
    ts_tokenizer *tok = NULL;
    ts_error err = {0};
    ts_status st = ts_tokenizer_load(write_tokenizer(json, config), &tok, &err);
    CHECK_INT_EQ(st, TS_OK);
    if (st) fprintf(stderr, "  load: %s\n", err.message);
    return tok;
}

static void test_llama2_style(void)
{
    char *json = llama2_json(llama2_tmpl);
    ts_tokenizer *tok = load_json(json, NULL);
    free(json);
    if (!tok) return;
    check_encode(tok, "hello world", true, "1 271 276");
    check_encode(tok, "hello  world", true, "1 271 259 276");
    check_encode(tok, "", true, "1");
    check_encode(tok, " ", true, "1 259 259");
    check_encode(tok, "  hello", true, "1 259 259 271");
    /* The Prepend normalizer runs per piece between special tokens (legacy Llama behaviour). */
    check_encode(tok, "hello</s>world", true, "1 271 2 276");
    /* Byte fallback: é is in the vocab; € and 😀 become <0x..> pieces; y and z too. */
    check_encode(tok, "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80z", true,
                 "1 259 282 229 133 175 243 162 155 131 125");
    const int32_t ids[] = {1, 271, 276};
    check_decode(tok, ids, 3, false, "<s> hello world");
    check_decode(tok, ids, 3, true, "hello world");
    const int32_t bytes[] = {259, 282, 229, 133, 175, 243, 162, 155, 131, 125, 999999};
    check_decode(tok, bytes, 11, true, "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80z");
    /* An unfinished byte sequence decodes to one U+FFFD per byte, as ByteFallback does. */
    const int32_t cut[] = {271, 243, 162};
    check_decode(tok, cut, 3, false, "hello\xEF\xBF\xBD\xEF\xBF\xBD");
    ts_tokenizer_destroy(tok);
}

static void test_added_token_flags(void)
{
    char *json = llama2_json(llama2_tmpl);
    ts_tokenizer *tok = load_json(json, NULL);
    free(json);
    if (!tok) return;
    /* lstrip: the token takes the whitespace before it. */
    check_encode(tok, "hello<L> world", true, "1 271 283 259 276");
    check_encode(tok, " x <L>  a", true, "1 259 259 277 283 259 259 281");
    /* rstrip: the token takes the whitespace after it. */
    check_encode(tok, "a <R>  world", true, "1 281 259 284 276");
    /* single_word: only when no word character touches it. */
    check_encode(tok, "cab x", true, "1 285 259 259 277");
    check_encode(tok, "xcab", true, "1 259 277 280 278 279");
    check_encode(tok, "cab_", true, "1 259 280 278 279 98");
    check_encode(tok, "a cab.", true, "1 281 259 285 259 49");
    /* normalized=true: matched by its normalized form "▁ab▁c" after normalization. */
    check_encode(tok, "ab c", true, "1 286");
    check_encode(tok, "hello ab c", true, "1 271 286");
    check_encode(tok, "ab  c", true, "1 281 279 259 259 280");
    const int32_t ids[] = {1, 271, 283, 259, 276};
    check_decode(tok, ids, 5, false, "<s> hello<L>  world");
    check_decode(tok, ids, 5, true, "hello  world");
    ts_tokenizer_destroy(tok);
}

static void test_metaspace(void)
{
    char *base = llama2_json(llama2_tmpl);
    /* Swap the normalizer for a Metaspace pre-tokenizer and decoder, and turn byte fallback off. */
    const char *meta = "{\"type\":\"Metaspace\",\"replacement\":\"\xE2\x96\x81\",\"prepend_"
                       "scheme\":\"first\",\"split\":true}";
    cJSON *j = cJSON_Parse(base);
    free(base);
    cJSON_ReplaceItemInObject(j, "normalizer", cJSON_CreateNull());
    cJSON_ReplaceItemInObject(j, "pre_tokenizer", cJSON_Parse(meta));
    cJSON_ReplaceItemInObject(j, "decoder", cJSON_Parse(meta));
    cJSON *model = cJSON_GetObjectItem(j, "model");
    cJSON_ReplaceItemInObject(model, "byte_fallback", cJSON_CreateFalse());
    cJSON_ReplaceItemInObject(model, "fuse_unk", cJSON_CreateFalse());
    char *json = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    ts_tokenizer *tok = load_json(json, NULL);
    free(json);
    if (!tok) return;
    check_encode(tok, "hello world", true, "1 271 276");
    check_encode(tok, " hello", true, "1 271");
    /* "first": only the piece at the very start of the input gets the ▁. */
    check_encode(tok, "<s>hello world", true, "1 1 260 261 269 263 276");
    check_encode(tok, "x<s> hello", true, "1 259 277 1 271");
    check_encode(tok, "hello<R> world", true, "1 271 284 264 263 265 262 266");
    /* Without byte fallback and fuse_unk, each unknown character is its own <unk>. */
    check_encode(tok, "\xC3\xA9\xE2\x82\xAC z", true, "1 259 282 0 259 0");
    const int32_t ids[] = {1, 259, 277, 1, 271};
    check_decode(tok, ids, 5, false, "<s> x<s> hello");
    check_decode(tok, ids, 5, true, "x hello");
    ts_tokenizer_destroy(tok);
}

static void test_config_add_bos(void)
{
    /* tokenizer_config.json add_bos_token/add_eos_token replace the post-processor. */
    char *json = llama2_json(llama2_tmpl);
    ts_tokenizer *tok =
        load_json(json, "{\"bos_token\":\"<s>\",\"eos_token\":{\"content\":\"</s>\"},"
                        "\"add_bos_token\":false,\"add_eos_token\":true}");
    if (tok) {
        check_encode(tok, "hello", true, "271 2");
        ts_tokenizer_destroy(tok);
    }
    ts_tokenizer *bad = NULL;
    ts_error err = {0};
    CHECK_INT_EQ(ts_tokenizer_load(write_tokenizer(json, "{\"add_bos_token\":true}"), &bad, &err),
                 TS_ERR_FORMAT);
    CHECK(bad == NULL);
    CHECK_CONTAINS(err.message,
                   "tokenizer_config.json: add_bos_token is true but bos_token is unset");
    free(json);
}

/* ------------------------------------------------------------------ errors */

static void test_invalid_utf8(void)
{
    char dir[512];
    snprintf(dir, sizeof(dir), "%s/tests/fixtures/qwen2/model", root());
    ts_tokenizer *tok;
    ts_error err = {0};
    REQUIRE_INT_EQ(ts_tokenizer_load(dir, &tok, &err), TS_OK);
    int32_t *ids = (int32_t *)1;
    size_t n = 7;
    const char bad[] = "caf\xC3\xA9 \xE2\x82 x";
    CHECK_INT_EQ(ts_tokenizer_encode(tok, bad, sizeof(bad) - 1, true, &ids, &n, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "invalid UTF-8 at byte offset 6");
    CHECK(ids == NULL);
    CHECK_INT_EQ(n, 0);
    const char surrogate[] = "\xED\xA0\x80";
    CHECK_INT_EQ(ts_tokenizer_encode(tok, surrogate, 3, true, &ids, &n, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "byte offset 0");
    /* An embedded NUL is valid text. */
    REQUIRE_INT_EQ(ts_tokenizer_encode(tok, "a\0b", 3, false, &ids, &n, &err), TS_OK);
    CHECK_INT_EQ(n, 3);
    free(ids);
    ts_tokenizer_destroy(tok);
}

static void expect_load_error(const char *json, ts_status status, const char *needle)
{
    ts_tokenizer *tok = NULL;
    ts_error err = {0};
    CHECK_INT_EQ(ts_tokenizer_load(write_tokenizer(json, NULL), &tok, &err), status);
    CHECK(tok == NULL);
    CHECK_CONTAINS(err.message, needle);
    CHECK_CONTAINS(err.message, "tokenizer.json");
}

static void test_malformed(void)
{
    expect_load_error("{\"added_tokens\":[]}", TS_ERR_FORMAT, "no \"model\"");
    expect_load_error("{\"model\":{\"type\":\"Unigram\",\"vocab\":[]}}", TS_ERR_UNSUPPORTED,
                      "model type \"Unigram\" is not supported");
    expect_load_error("{\"model\":{\"type\":\"WordPiece\",\"vocab\":{}}}", TS_ERR_UNSUPPORTED,
                      "\"WordPiece\"");
    expect_load_error("{\"model\":{\"type\":\"BPE\",\"unk_token\":\"<unk>\",\"vocab\":{\"a\":0},\"merges\":[]}}",
                      TS_ERR_FORMAT, "model.unk_token \"<unk>\" is not in the vocabulary");
    expect_load_error("{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1,\"ab\":2},"
                      "\"merges\":[\"a b\",\"a  b\"]}}",
                      TS_ERR_FORMAT, "model.merges[1]");
    expect_load_error(
        "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1},\"merges\":[[\"a\",\"b\"]]}}",
        TS_ERR_FORMAT, "token \"ab\" is not in the vocab");
    expect_load_error("{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[[\"a\"]]}}",
                      TS_ERR_FORMAT, "model.merges[0]");
    expect_load_error("{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":-3},\"merges\":[]}}",
                      TS_ERR_FORMAT, "model.vocab[\"a\"]");
    expect_load_error("{\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]},"
                      "\"pre_tokenizer\":{\"type\":\"BertPreTokenizer\"}}",
                      TS_ERR_UNSUPPORTED, "pre_tokenizer type \"BertPreTokenizer\"");
    expect_load_error("{\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]},"
                      "\"pre_tokenizer\":{\"type\":\"Split\",\"pattern\":{\"Regex\":\"(a\"},"
                      "\"behavior\":\"Isolated\",\"invert\":false}}",
                      TS_ERR_UNSUPPORTED, "does not compile");
    expect_load_error("{\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]},"
                      "\"normalizer\":{\"type\":\"Precompiled\"}}",
                      TS_ERR_UNSUPPORTED, "normalizer type \"Precompiled\"");
    expect_load_error("{\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]},"
                      "\"decoder\":{\"type\":\"CTC\"}}",
                      TS_ERR_UNSUPPORTED, "decoder type \"CTC\"");
    expect_load_error("{\"model\": {\"type\": \"BPE\",\n \"vocab\": {,}}}", TS_ERR_FORMAT,
                      "invalid JSON near byte");
    ts_tokenizer *tok;
    ts_error err = {0};
    CHECK_INT_EQ(ts_tokenizer_load("/nonexistent/dir", &tok, &err), TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, "/nonexistent/dir/tokenizer.json");
}

/* ------------------------------------------------------------------ threads */

/* One tokenizer shared by several threads (the BPE cache is the only shared mutable state):
 * every thread must get the single-threaded answer. Run under TSan/ASan builds to catch races. */
typedef struct thread_job {
    const ts_tokenizer *tok;
    const char *const *texts;
    char **want;
    size_t n_texts;
    int mismatches;
} thread_job;

static void *encode_all(void *arg)
{
    thread_job *j = arg;
    for (int round = 0; round < 20; round++) {
        for (size_t i = 0; i < j->n_texts; i++) {
            char *got = encode_str(j->tok, j->texts[i], true);
            j->mismatches += strcmp(got, j->want[i]) != 0;
            free(got);
        }
    }
    return NULL;
}

static void test_shared_between_threads(void)
{
    char dir[512];
    snprintf(dir, sizeof(dir), "%s/tests/fixtures/qwen2/model", root());
    ts_tokenizer *tok;
    ts_error err = {0};
    CHECK_INT_EQ(ts_tokenizer_load(dir, &tok, &err), TS_OK);
    if (!tok) return;
    static const char *const texts[] = {"The quick brown fox jumps over the lazy dog.",
                                        "hello hello hello world",
                                        "\xE4\xBB\x8A\xE5\xA4\xA9 \xF0\x9F\x8E\x89 caf\xC3\xA9",
                                        "  leading and trailing  ",
                                        "<|im_start|>user\nHi<|im_end|>",
                                        "1234567890 numbers 42",
                                        "don't won't I'LL"};
    size_t n = sizeof(texts) / sizeof(texts[0]);
    char *want[sizeof(texts) / sizeof(texts[0])];
    for (size_t i = 0; i < n; i++)
        want[i] = encode_str(tok, texts[i], true);
    thread_job jobs[4];
    pthread_t threads[4];
    for (int t = 0; t < 4; t++) {
        jobs[t] = (thread_job){tok, texts, want, n, 0};
        pthread_create(&threads[t], NULL, encode_all, &jobs[t]);
    }
    for (int t = 0; t < 4; t++) {
        pthread_join(threads[t], NULL);
        CHECK_INT_EQ(jobs[t].mismatches, 0);
    }
    for (size_t i = 0; i < n; i++)
        free(want[i]);
    ts_tokenizer_destroy(tok);
}

int main(void)
{
    RUN(test_fixture_prompts);
    RUN(test_fixture_specials);
    RUN(test_llama2_style);
    RUN(test_added_token_flags);
    RUN(test_metaspace);
    RUN(test_config_add_bos);
    RUN(test_invalid_utf8);
    RUN(test_malformed);
    RUN(test_shared_between_threads);
    cleanup();
    return check_finish();
}
