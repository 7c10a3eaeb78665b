/* tokenizer_encode_fuzz.c — libFuzzer target: arbitrary bytes through encode, decode and the
 * streaming detokenizer of one tokenizer (TS_FUZZ_TOKENIZER, default the qwen2 fixture).
 *
 * Checks what must hold for any input: invalid UTF-8 is refused, valid text encodes, every id is
 * inside the vocabulary, streamed pieces are whole characters, and for encoded ids they
 * concatenate to the full decode. Input bytes double as ids (4 bytes each, any sequence) for
 * decode and streaming, so out-of-range ids and broken byte runs are exercised too.
 */
#include "tessera.h"
#include "base/utf8.h"
#include "text/detokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ts_tokenizer *tok;

static void check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "tokenizer_encode_fuzz: %s\n", what);
        abort();
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *dir = getenv("TS_FUZZ_TOKENIZER");
    ts_error err = {0};
    if (ts_tokenizer_load(dir ? dir : "tests/fixtures/qwen2/model", &tok, &err)) {
        fprintf(stderr, "tokenizer_encode_fuzz: %s\n", err.message);
        exit(1);
    }
    return 0;
}

/* Streams ids; pieces must be UTF-8, and equal the full decode when `exact`. */
static void stream(const int32_t *raw, size_t n_ids, bool exact)
{
    ts_error err = {0};
    ts_status st;
    char *full;
    size_t full_len;
    check(ts_tokenizer_decode(tok, raw, n_ids, false, &full, &full_len, &err) == TS_OK, "decode");
    check(ts_utf8_validate((const uint8_t *)full, full_len) == full_len, "decode is UTF-8");
    ts_detokenizer *d;
    check(ts_detokenizer_create(tok, false, &d, &err) == TS_OK, "detokenizer");
    ts_buf all = {0};
    ts_buf_append(&all, "", 0);
    for (size_t i = 0; i <= n_ids; i++) {
        const char *piece;
        size_t len;
        st = i < n_ids ? ts_detokenizer_push(d, raw[i], &piece, &len, &err)
                       : ts_detokenizer_finish(d, &piece, &len, &err);
        check(st == TS_OK, "push");
        check(ts_utf8_validate((const uint8_t *)piece, len) == len, "piece is UTF-8");
        ts_buf_append(&all, piece, len);
    }
    if (exact)
        check(all.len == full_len && memcmp(all.data, full, full_len) == 0, "stream == decode");
    ts_buf_fini(&all);
    ts_detokenizer_destroy(d);
    free(full);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ts_error err = {0};
    int32_t *ids;
    size_t n;
    bool valid = ts_utf8_validate(data, size) == size;
    ts_status st = ts_tokenizer_encode(tok, (const char *)data, size, size & 1, &ids, &n, &err);
    check(valid ? st == TS_OK : st == TS_ERR_INVALID_ARGUMENT, "encode status");
    if (st == TS_OK) {
        for (size_t i = 0; i < n; i++)
            check(ids[i] >= 0 && (size_t)ids[i] < ts_tokenizer_vocab_size(tok), "id in vocab");
        stream(ids, n, true);
        free(ids);
    }
    /* The same bytes as ids. */
    size_t n_ids = size / 4;
    int32_t *raw = malloc((n_ids ? n_ids : 1) * sizeof(int32_t));
    memcpy(raw, data, n_ids * 4);
    for (size_t i = 0; i < n_ids; i++)
        raw[i] = (int32_t)((uint32_t)raw[i] % 2000u);
    stream(raw, n_ids, false);
    free(raw);
    return 0;
}
