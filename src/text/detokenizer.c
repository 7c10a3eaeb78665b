/* detokenizer.c — streaming decode that never emits a partial character.
 *
 * State: ids[prefix_start, read_index) is text already emitted, kept as left context because
 * decoders are not purely per-token (Strip and Metaspace treat the first token specially,
 * ByteFallback groups byte pieces). Each push decodes ids[prefix_start, end); if that text grows
 * past the context's text and does not end in U+FFFD (an unfinished UTF-8 sequence), the growth is
 * emitted and the window slides: prefix_start = read_index, read_index = end. Otherwise the id is
 * held. finish emits whatever is held, U+FFFD included, so the pieces concatenate to the full
 * decode.
 * One exception, from Hugging Face's ByteFallback rule that a run of <0x..> pieces which is not
 * UTF-8 as a whole becomes one U+FFFD per byte: a later byte piece can spoil a run whose
 * characters were already emitted. Text cannot be taken back, so the stream then continues from
 * the next character boundary (still valid UTF-8) and differs from the full decode there. Ids
 * produced by encoding text never do this.
 */
#include "text/detokenizer.h"
#include "base/error.h"
#include "text/textbuf.h"

struct ts_detokenizer {
    const ts_tokenizer *tok;
    bool skip_special;
    ts_ids ids;
    size_t prefix_start, read_index;
    char *prefix_text; /* decode of ids[prefix_start, read_index) */
    size_t prefix_len;
    ts_buf piece;
};

ts_status ts_detokenizer_create(const ts_tokenizer *tok, bool skip_special_tokens,
                                ts_detokenizer **out, ts_error *err)
{
    *out = calloc(1, sizeof(**out));
    if (!*out) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "detokenizer: out of memory");
    (*out)->tok = tok;
    (*out)->skip_special = skip_special_tokens;
    return TS_OK;
}

void ts_detokenizer_destroy(ts_detokenizer *detok)
{
    if (!detok) return;
    ts_ids_free(&detok->ids);
    free(detok->prefix_text);
    ts_buf_fini(&detok->piece);
    free(detok);
}

static ts_status set_piece(ts_detokenizer *d, const char *text, size_t len, const char **piece,
                           size_t *piece_len, ts_error *err)
{
    d->piece.len = 0;
    if (!ts_buf_append(&d->piece, text, len))
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "detokenizer: out of memory");
    *piece = d->piece.data;
    *piece_len = d->piece.len;
    return TS_OK;
}

/* ids[from, end) decoded; tolerates the empty buffer before the first push. */
static ts_status decode_window(ts_detokenizer *d, size_t from, size_t end, char **text, size_t *len,
                               ts_error *err)
{
    static const int32_t none[1];
    const int32_t *ids = d->ids.data ? d->ids.data + from : none;
    return ts_tokenizer_decode(d->tok, ids, end - from, d->skip_special, text, len, err);
}

static bool ends_with_replacement(const char *text, size_t len)
{
    return len >= 3 && memcmp(text + len - 3, "\xEF\xBF\xBD", 3) == 0;
}

/* Where the new text starts in `full`: right after the context's text, or, when the context no
 * longer decodes to a prefix of it (see the exception above), the next character boundary. */
static size_t emit_start(const ts_detokenizer *d, const char *full, size_t full_len)
{
    size_t from = d->prefix_len;
    if (d->prefix_text && memcmp(full, d->prefix_text, from) == 0) return from;
    while (from < full_len && ((unsigned char)full[from] & 0xC0) == 0x80)
        from++;
    return from;
}

/* Slides the window and drops ids that can no longer matter. */
static ts_status advance(ts_detokenizer *d, ts_error *err)
{
    d->prefix_start = d->read_index;
    d->read_index = d->ids.len;
    if (d->prefix_start > 256) {
        size_t drop = d->prefix_start;
        memmove(d->ids.data, d->ids.data + drop, (d->ids.len - drop) * sizeof(int32_t));
        d->ids.len -= drop;
        d->prefix_start -= drop;
        d->read_index -= drop;
    }
    free(d->prefix_text);
    d->prefix_text = NULL;
    return decode_window(d, d->prefix_start, d->read_index, &d->prefix_text, &d->prefix_len, err);
}

ts_status ts_detokenizer_push(ts_detokenizer *d, int32_t id, const char **piece, size_t *piece_len,
                              ts_error *err)
{
    *piece = "";
    *piece_len = 0;
    if (!ts_ids_push(&d->ids, id))
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "detokenizer: out of memory");
    char *full;
    size_t full_len;
    ts_status st = decode_window(d, d->prefix_start, d->ids.len, &full, &full_len, err);
    if (st) return st;
    if (full_len > d->prefix_len && !ends_with_replacement(full, full_len)) {
        size_t from = emit_start(d, full, full_len);
        st = set_piece(d, full + from, full_len - from, piece, piece_len, err);
        if (!st) st = advance(d, err);
    }
    free(full);
    return st;
}

ts_status ts_detokenizer_finish(ts_detokenizer *d, const char **piece, size_t *piece_len,
                                ts_error *err)
{
    *piece = "";
    *piece_len = 0;
    char *full;
    size_t full_len;
    ts_status st = decode_window(d, d->prefix_start, d->ids.len, &full, &full_len, err);
    if (st) return st;
    if (full_len > d->prefix_len) {
        size_t from = emit_start(d, full, full_len);
        st = set_piece(d, full + from, full_len - from, piece, piece_len, err);
    }
    free(full);
    /* Start over, so the object can serve another sequence. */
    d->ids.len = d->prefix_start = d->read_index = 0;
    free(d->prefix_text);
    d->prefix_text = NULL;
    d->prefix_len = 0;
    return st;
}
