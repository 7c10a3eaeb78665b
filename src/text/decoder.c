/* decoder.c — decoder chain (see decoder.h).
 *
 * The chain works on a token list (one byte buffer plus ranges), each step producing a new list,
 * because Fuse, Strip and Metaspace care about token boundaries; the result is the concatenation.
 */
#include "text/decoder.h"
#include "base/text_escape.h"

#include "base/buf.h"
#include "base/error.h"
#include "text/bpe.h"
#include "base/utf8.h"

typedef enum kind {
    DEC_BYTE_LEVEL,
    DEC_BYTE_FALLBACK,
    DEC_REPLACE,
    DEC_FUSE,
    DEC_STRIP,
    DEC_METASPACE
} kind;

typedef struct step {
    kind kind;
    char *pattern, *content;
    size_t pattern_len, content_len;
    int strip_start, strip_stop;
    bool prepend; /* Metaspace: drop the replacement in the first token */
} step;

struct ts_decoder {
    step *steps;
    size_t n_steps;
};

typedef struct range {
    size_t offset, len;
} range;

typedef struct token_list {
    ts_buf buf;
    range *items;
    size_t n, cap;
} token_list;

void ts_decoder_destroy(ts_decoder *dec)
{
    if (!dec) return;
    for (size_t i = 0; i < dec->n_steps; i++) {
        free(dec->steps[i].pattern);
        free(dec->steps[i].content);
    }
    free(dec->steps);
    free(dec);
}

static char *string_field(const cJSON *obj, const char *name, size_t *len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!cJSON_IsString(v)) return NULL;
    *len = strlen(v->valuestring);
    return strdup(v->valuestring);
}

static ts_status add_step(ts_decoder *dec, const cJSON *json, ts_error *err)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(json, "type");
    if (!cJSON_IsString(type)) return ts_error_set(err, TS_ERR_FORMAT, "decoder without a type");
    const char *t = type->valuestring;
    if (strcmp(t, "Sequence") == 0) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(json, "decoders");
        if (!cJSON_IsArray(list))
            return ts_error_set(err, TS_ERR_FORMAT, "Sequence decoder without \"decoders\"");
        const cJSON *child;
        cJSON_ArrayForEach(child, list)
        {
            ts_status st = add_step(dec, child, err);
            if (st) return st;
        }
        return TS_OK;
    }
    step *grown = realloc(dec->steps, (dec->n_steps + 1) * sizeof(*grown));
    if (!grown) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "decoder: out of memory");
    dec->steps = grown;
    step *s = &dec->steps[dec->n_steps];
    memset(s, 0, sizeof(*s));
    if (strcmp(t, "ByteLevel") == 0) {
        s->kind = DEC_BYTE_LEVEL;
    } else if (strcmp(t, "ByteFallback") == 0) {
        s->kind = DEC_BYTE_FALLBACK;
    } else if (strcmp(t, "Fuse") == 0) {
        s->kind = DEC_FUSE;
    } else if (strcmp(t, "Replace") == 0) {
        const cJSON *pattern = cJSON_GetObjectItemCaseSensitive(json, "pattern");
        if (!cJSON_GetObjectItemCaseSensitive(pattern, "String"))
            return ts_error_set(err, TS_ERR_UNSUPPORTED,
                                "Replace decoder: only String patterns are supported");
        s->kind = DEC_REPLACE;
        s->pattern = string_field(pattern, "String", &s->pattern_len);
        s->content = string_field(json, "content", &s->content_len);
        dec->n_steps++;
        if (!s->pattern || !s->content || !s->pattern_len)
            return ts_error_set(err, TS_ERR_FORMAT, "Replace decoder: bad pattern or content");
        return TS_OK;
    } else if (strcmp(t, "Strip") == 0) {
        s->kind = DEC_STRIP;
        s->content = string_field(json, "content", &s->content_len);
        const cJSON *start = cJSON_GetObjectItemCaseSensitive(json, "start");
        const cJSON *stop = cJSON_GetObjectItemCaseSensitive(json, "stop");
        s->strip_start = cJSON_IsNumber(start) ? start->valueint : 0;
        s->strip_stop = cJSON_IsNumber(stop) ? stop->valueint : 0;
        dec->n_steps++;
        if (!s->content || !s->content_len)
            return ts_error_set(err, TS_ERR_FORMAT, "Strip decoder without \"content\"");
        return TS_OK;
    } else if (strcmp(t, "Metaspace") == 0) {
        s->kind = DEC_METASPACE;
        s->content = string_field(json, "replacement", &s->content_len);
        if (!s->content) s->content = strdup("\xE2\x96\x81"), s->content_len = 3;
        const cJSON *scheme = cJSON_GetObjectItemCaseSensitive(json, "prepend_scheme");
        const cJSON *add_prefix = cJSON_GetObjectItemCaseSensitive(json, "add_prefix_space");
        s->prepend = cJSON_IsString(scheme) ? strcmp(scheme->valuestring, "never") != 0
                                            : !cJSON_IsFalse(add_prefix);
    } else {
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "decoder type \"%s\" is not supported", t);
    }
    dec->n_steps++;
    return TS_OK;
}

ts_status ts_decoder_parse(const cJSON *json, ts_decoder **out, ts_error *err)
{
    *out = NULL;
    if (!json || cJSON_IsNull(json)) return TS_OK;
    ts_decoder *dec = calloc(1, sizeof(*dec));
    if (!dec) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "decoder: out of memory");
    ts_status st = add_step(dec, json, err);
    if (st) {
        ts_decoder_destroy(dec);
        return st;
    }
    *out = dec;
    return TS_OK;
}

/* ------------------------------------------------------------------ token lists */

static bool list_push(token_list *l, const char *text, size_t len)
{
    if (l->n == l->cap) {
        range *grown = ts_array_grow(l->items, &l->cap, sizeof(*grown), 64);
        if (!grown) return false;
        l->items = grown;
    }
    size_t offset = l->buf.len;
    if (!ts_buf_append(&l->buf, text, len)) return false;
    l->items[l->n++] = (range){offset, len};
    return true;
}

/* Appends to the last token (which must be the last thing in buf). */
static bool list_extend(token_list *l, const char *text, size_t len)
{
    if (!ts_buf_append(&l->buf, text, len)) return false;
    l->items[l->n - 1].len += len;
    return true;
}

static void list_free(token_list *l)
{
    ts_buf_fini(&l->buf);
    free(l->items);
}

#define TOKEN(l, i) ((l)->buf.data + (l)->items[i].offset)

static bool flush_bytes(token_list *out, ts_buf *pending)
{
    if (!pending->len) return true;
    bool ok;
    if (ts_utf8_validate((const uint8_t *)pending->data, pending->len) == pending->len) {
        ok = list_push(out, pending->data, pending->len);
    } else {
        /* The ByteFallback decoder gives one U+FFFD per byte when the run is not UTF-8. */
        ok = true;
        for (size_t i = 0; i < pending->len && ok; i++)
            ok = list_push(out, "\xEF\xBF\xBD", 3);
    }
    pending->len = 0;
    return ok;
}

static bool run_step(const step *s, const token_list *in, token_list *out)
{
    switch (s->kind) {
    case DEC_BYTE_LEVEL: {
        /* All tokens become one string; a token with any character outside the byte alphabet
         * (an added token such as "<|im_end|>" written plainly) contributes its own bytes. */
        ts_buf raw = {0};
        bool ok = true;
        for (size_t i = 0; i < in->n && ok; i++) {
            const uint8_t *t = (const uint8_t *)TOKEN(in, i);
            size_t len = in->items[i].len, start = raw.len;
            bool mapped = true;
            for (size_t j = 0; j < len && ok;) {
                uint32_t cp;
                j += ts_utf8_decode(t + j, len - j, &cp);
                int b = ts_byte_level_byte(cp);
                if (b < 0) {
                    mapped = false;
                    break;
                }
                uint8_t byte = (uint8_t)b;
                ok = ts_buf_append(&raw, &byte, 1);
            }
            if (!mapped) {
                raw.len = start;
                ok = ts_buf_append(&raw, t, len);
            }
        }
        ts_buf fixed = {0};
        ok = ok && ts_utf8_lossy((const uint8_t *)(raw.data ? raw.data : ""), raw.len, &fixed) &&
             list_push(out, fixed.data ? fixed.data : "", fixed.len);
        ts_buf_fini(&raw);
        ts_buf_fini(&fixed);
        return ok;
    }
    case DEC_BYTE_FALLBACK: {
        ts_buf pending = {0};
        bool ok = true;
        for (size_t i = 0; i < in->n && ok; i++) {
            const char *t = TOKEN(in, i);
            if (in->items[i].len == 6 && memcmp(t, "<0x", 3) == 0 && t[5] == '>' &&
                ts_hex_value(t[3]) >= 0 && ts_hex_value(t[4]) >= 0) {
                uint8_t b = (uint8_t)(ts_hex_value(t[3]) * 16 + ts_hex_value(t[4]));
                ok = ts_buf_append(&pending, &b, 1);
                continue;
            }
            ok = flush_bytes(out, &pending) && list_push(out, t, in->items[i].len);
        }
        ok = ok && flush_bytes(out, &pending);
        ts_buf_fini(&pending);
        return ok;
    }
    case DEC_REPLACE:
        for (size_t i = 0; i < in->n; i++) {
            const char *t = TOKEN(in, i);
            size_t len = in->items[i].len, pos = 0;
            if (!list_push(out, "", 0)) return false;
            while (pos < len) {
                const char *hit = memmem(t + pos, len - pos, s->pattern, s->pattern_len);
                size_t at = hit ? (size_t)(hit - t) : len;
                if (!list_extend(out, t + pos, at - pos)) return false;
                if (!hit) break;
                if (!list_extend(out, s->content, s->content_len)) return false;
                pos = at + s->pattern_len;
            }
        }
        return true;
    case DEC_FUSE:
        if (!list_push(out, "", 0)) return false;
        for (size_t i = 0; i < in->n; i++)
            if (!list_extend(out, TOKEN(in, i), in->items[i].len)) return false;
        return true;
    case DEC_STRIP:
        for (size_t i = 0; i < in->n; i++) {
            const char *t = TOKEN(in, i);
            size_t b = 0, e = in->items[i].len, c = s->content_len;
            for (int k = 0; k < s->strip_start && e - b >= c && memcmp(t + b, s->content, c) == 0;
                 k++)
                b += c;
            for (int k = 0;
                 k < s->strip_stop && e - b >= c && memcmp(t + e - c, s->content, c) == 0; k++)
                e -= c;
            if (!list_push(out, t + b, e - b)) return false;
        }
        return true;
    case DEC_METASPACE:
        for (size_t i = 0; i < in->n; i++) {
            const char *t = TOKEN(in, i);
            size_t len = in->items[i].len, pos = 0;
            if (!list_push(out, "", 0)) return false;
            while (pos < len) {
                const char *hit = memmem(t + pos, len - pos, s->content, s->content_len);
                size_t at = hit ? (size_t)(hit - t) : len;
                if (!list_extend(out, t + pos, at - pos)) return false;
                if (!hit) break;
                /* The first token's replacement stands for the prepended space: drop it. */
                if (!(i == 0 && s->prepend) && !list_extend(out, " ", 1)) return false;
                pos = at + s->content_len;
            }
        }
        return true;
    }
    return false;
}

ts_status ts_decoder_run(const ts_decoder *dec, const ts_token_ref *tokens, size_t n, ts_buf *out,
                         ts_error *err)
{
    if (!dec) {
        for (size_t i = 0; i < n; i++) {
            if ((i && !ts_buf_append(out, " ", 1)) ||
                !ts_buf_append(out, tokens[i].text, tokens[i].len))
                return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "decode: out of memory");
        }
        return TS_OK;
    }
    token_list a = {0}, b = {0};
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++)
        ok = list_push(&a, tokens[i].text, tokens[i].len);
    for (size_t i = 0; i < dec->n_steps && ok; i++) {
        b.n = 0;
        b.buf.len = 0;
        ok = run_step(&dec->steps[i], &a, &b);
        token_list t = a;
        a = b;
        b = t;
    }
    for (size_t i = 0; i < a.n && ok; i++)
        ok = ts_buf_append(out, TOKEN(&a, i), a.items[i].len);
    list_free(&a);
    list_free(&b);
    return ok ? TS_OK : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "decode: out of memory");
}
