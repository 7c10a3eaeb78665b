/* normalizer.c — normalizer steps (see normalizer.h). */
#include "text/normalizer.h"

#include "base/error.h"
#include "base/utf8.h"

#include <utf8proc.h>

typedef enum step_kind {
    STEP_UNICODE, /* NFC, NFD, NFKC, NFKD: options in utf8proc_flags */
    STEP_LOWERCASE,
    STEP_REPLACE,
    STEP_PREPEND,
    STEP_STRIP,
} step_kind;

typedef struct step {
    step_kind kind;
    int utf8proc_flags;
    char *pattern, *content; /* Replace: pattern → content; Prepend: content */
    size_t pattern_len, content_len;
    bool strip_left, strip_right;
} step;

struct ts_normalizer {
    step *steps;
    size_t n_steps;
};

void ts_normalizer_destroy(ts_normalizer *norm)
{
    if (!norm) return;
    for (size_t i = 0; i < norm->n_steps; i++) {
        free(norm->steps[i].pattern);
        free(norm->steps[i].content);
    }
    free(norm->steps);
    free(norm);
}

static char *dup_string(const cJSON *item, size_t *len)
{
    if (!cJSON_IsString(item)) return NULL;
    *len = strlen(item->valuestring);
    return strdup(item->valuestring);
}

static ts_status add_step(ts_normalizer *norm, const cJSON *json, ts_error *err)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(json, "type");
    if (!cJSON_IsString(type)) return ts_error_set(err, TS_ERR_FORMAT, "normalizer without a type");
    const char *t = type->valuestring;
    if (strcmp(t, "Sequence") == 0) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(json, "normalizers");
        if (!cJSON_IsArray(list))
            return ts_error_set(err, TS_ERR_FORMAT, "Sequence normalizer without \"normalizers\"");
        const cJSON *child;
        cJSON_ArrayForEach(child, list)
        {
            ts_status st = add_step(norm, child, err);
            if (st) return st;
        }
        return TS_OK;
    }
    step *grown = realloc(norm->steps, (norm->n_steps + 1) * sizeof(*grown));
    if (!grown) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "normalizer: out of memory");
    norm->steps = grown;
    step *s = &norm->steps[norm->n_steps];
    memset(s, 0, sizeof(*s));
    if (strcmp(t, "NFC") == 0) {
        s->kind = STEP_UNICODE, s->utf8proc_flags = UTF8PROC_STABLE | UTF8PROC_COMPOSE;
    } else if (strcmp(t, "NFD") == 0) {
        s->kind = STEP_UNICODE, s->utf8proc_flags = UTF8PROC_STABLE | UTF8PROC_DECOMPOSE;
    } else if (strcmp(t, "NFKC") == 0) {
        s->kind = STEP_UNICODE,
        s->utf8proc_flags = UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
    } else if (strcmp(t, "NFKD") == 0) {
        s->kind = STEP_UNICODE,
        s->utf8proc_flags = UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT;
    } else if (strcmp(t, "Lowercase") == 0) {
        s->kind = STEP_LOWERCASE;
    } else if (strcmp(t, "Replace") == 0) {
        const cJSON *pattern = cJSON_GetObjectItemCaseSensitive(json, "pattern");
        const cJSON *literal = cJSON_GetObjectItemCaseSensitive(pattern, "String");
        if (!literal) {
            if (cJSON_GetObjectItemCaseSensitive(pattern, "Regex"))
                return ts_error_set(err, TS_ERR_UNSUPPORTED,
                                    "Replace normalizer with a Regex pattern is not supported");
            return ts_error_set(err, TS_ERR_FORMAT, "Replace normalizer without a pattern");
        }
        s->kind = STEP_REPLACE;
        s->pattern = dup_string(literal, &s->pattern_len);
        s->content = dup_string(cJSON_GetObjectItemCaseSensitive(json, "content"), &s->content_len);
        if (!s->pattern || !s->content || s->pattern_len == 0) {
            free(s->pattern), free(s->content);
            return ts_error_set(err, TS_ERR_FORMAT, "Replace normalizer: bad pattern or content");
        }
    } else if (strcmp(t, "Prepend") == 0) {
        s->kind = STEP_PREPEND;
        s->content = dup_string(cJSON_GetObjectItemCaseSensitive(json, "prepend"), &s->content_len);
        if (!s->content)
            return ts_error_set(err, TS_ERR_FORMAT, "Prepend normalizer without \"prepend\"");
    } else if (strcmp(t, "Strip") == 0) {
        s->kind = STEP_STRIP;
        s->strip_left = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(json, "strip_left"));
        s->strip_right = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(json, "strip_right"));
    } else {
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "normalizer type \"%s\" is not supported", t);
    }
    norm->n_steps++;
    return TS_OK;
}

ts_status ts_normalizer_parse(const cJSON *json, ts_normalizer **out, ts_error *err)
{
    *out = NULL;
    if (!json || cJSON_IsNull(json)) return TS_OK;
    ts_normalizer *norm = calloc(1, sizeof(*norm));
    if (!norm) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "normalizer: out of memory");
    ts_status st = add_step(norm, json, err);
    if (st) {
        ts_normalizer_destroy(norm);
        return st;
    }
    *out = norm;
    return TS_OK;
}

/* True when canonical composition can neither change this character nor join it to a neighbour:
 * combining class 0, no decomposition, no part in a composition pair, and not Hangul (which
 * composes algorithmically, outside those tables). Everything below U+0300 qualifies except as the
 * first half of a pair, which nfc_append handles by taking one character of left context. */
static bool composition_inert(uint32_t cp)
{
    if (cp < 0x300) return true;
    if ((cp >= 0x1100 && cp <= 0x11FF) || (cp >= 0xA960 && cp <= 0xA97F) ||
        (cp >= 0xAC00 && cp <= 0xD7FF))
        return false;
    const utf8proc_property_t *p = utf8proc_get_property((utf8proc_int32_t)cp);
    return p->combining_class == 0 && p->decomp_seqindex == UINT16_MAX &&
           p->comb_index == UINT16_MAX;
}

/* NFC that sends only the spans around non-inert characters through utf8proc (measured: most
 * text, CJK and emoji included, then never reaches it). A span starts one character early, since
 * the character before a combining mark may be the first half of a composition, and ends before
 * the next inert character, which blocks reordering and composition across it. */
static ts_status nfc_append(const uint8_t *s, size_t len, int flags, ts_buf *out, ts_error *err)
{
    size_t copied = 0, i = 0;
    while (i < len) {
        if (s[i] < 0xCC) { /* ASCII, continuation bytes and lead bytes below U+0300 */
            i++;
            continue;
        }
        uint32_t cp;
        size_t k = ts_utf8_decode(s + i, len - i, &cp);
        if (composition_inert(cp)) {
            i += k;
            continue;
        }
        size_t start = i;
        if (start > copied) {
            start--;
            while (start > copied && (s[start] & 0xC0) == 0x80)
                start--;
        }
        size_t end = i + k;
        while (end < len) {
            size_t k2 = ts_utf8_decode(s + end, len - end, &cp);
            if (composition_inert(cp)) break;
            end += k2;
        }
        utf8proc_uint8_t *mapped = NULL;
        utf8proc_ssize_t n = utf8proc_map(s + start, (utf8proc_ssize_t)(end - start), &mapped,
                                          (utf8proc_option_t)flags);
        if (n < 0)
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "normalizer: %s", utf8proc_errmsg(n));
        bool ok =
            ts_buf_append(out, s + copied, start - copied) && ts_buf_append(out, mapped, (size_t)n);
        free(mapped);
        if (!ok) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "normalizer: out of memory");
        copied = i = end;
    }
    if (!ts_buf_append(out, s + copied, len - copied))
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "normalizer: out of memory");
    return TS_OK;
}

static ts_status apply_step(const step *s, const char *in, size_t len, ts_buf *out, ts_error *err)
{
    const uint8_t *u = (const uint8_t *)in;
    bool ok = true;
    switch (s->kind) {
    case STEP_UNICODE: {
        bool composing = (s->utf8proc_flags & UTF8PROC_COMPOSE) != 0;
        bool compat = (s->utf8proc_flags & UTF8PROC_COMPAT) != 0;
        if (composing && !compat) return nfc_append(u, len, s->utf8proc_flags, out, err);
        utf8proc_uint8_t *mapped = NULL;
        utf8proc_ssize_t n =
            utf8proc_map(u, (utf8proc_ssize_t)len, &mapped, (utf8proc_option_t)s->utf8proc_flags);
        if (n < 0)
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "normalizer: %s", utf8proc_errmsg(n));
        ok = ts_buf_append(out, mapped, (size_t)n);
        free(mapped);
        break;
    }
    case STEP_LOWERCASE:
        for (size_t i = 0; i < len && ok;) {
            uint32_t cp;
            i += ts_utf8_decode(u + i, len - i, &cp);
            char buf[8];
            /* Rust's char::to_lowercase: simple mappings, plus the one unconditional
             * multi-character one, İ → i + combining dot above. */
            if (cp == 0x130)
                ok = ts_buf_append(out, "i\xCC\x87", 3);
            else
                ok = ts_buf_append(
                    out, buf,
                    ts_utf8_encode((uint32_t)utf8proc_tolower((utf8proc_int32_t)cp), buf));
        }
        break;
    case STEP_REPLACE: {
        size_t i = 0;
        while (ok && i < len) {
            const char *hit = len - i >= s->pattern_len
                                  ? memmem(in + i, len - i, s->pattern, s->pattern_len)
                                  : NULL;
            if (!hit) {
                ok = ts_buf_append(out, in + i, len - i);
                break;
            }
            size_t at = (size_t)(hit - in);
            ok = ts_buf_append(out, in + i, at - i) &&
                 ts_buf_append(out, s->content, s->content_len);
            i = at + s->pattern_len;
        }
        break;
    }
    case STEP_PREPEND:
        /* Hugging Face leaves empty pieces empty. */
        if (len) ok = ts_buf_append(out, s->content, s->content_len);
        ok = ok && ts_buf_append(out, in, len);
        break;
    case STEP_STRIP: {
        size_t b = 0, e = len;
        while (s->strip_left && b < e) {
            uint32_t cp;
            size_t k = ts_utf8_decode(u + b, e - b, &cp);
            if (!ts_utf8_is_whitespace(cp)) break;
            b += k;
        }
        while (s->strip_right && e > b) {
            size_t k = 1;
            while (k < e - b && (u[e - k] & 0xC0) == 0x80)
                k++;
            uint32_t cp;
            ts_utf8_decode(u + e - k, k, &cp);
            if (!ts_utf8_is_whitespace(cp)) break;
            e -= k;
        }
        ok = ts_buf_append(out, in + b, e - b);
        break;
    }
    }
    return ok ? TS_OK : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "normalizer: out of memory");
}

ts_status ts_normalizer_apply(const ts_normalizer *norm, const char *text, size_t len, ts_buf *out,
                              ts_error *err)
{
    if (!norm || norm->n_steps == 0) {
        return ts_buf_append(out, text, len)
                   ? TS_OK
                   : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "normalizer: out of memory");
    }
    if (norm->n_steps == 1) return apply_step(&norm->steps[0], text, len, out, err);
    /* Multi-step chains ping-pong between two scratch buffers, then copy the last one out. */
    ts_buf a = {0}, b = {0};
    ts_status st = TS_OK;
    const char *cur = text;
    size_t cur_len = len;
    for (size_t i = 0; i < norm->n_steps && !st; i++) {
        ts_buf *dst = (i % 2 == 0) ? &a : &b;
        dst->len = 0;
        st = apply_step(&norm->steps[i], cur, cur_len, dst, err);
        cur = dst->data ? dst->data : "";
        cur_len = dst->len;
    }
    if (!st && !ts_buf_append(out, cur, cur_len))
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "normalizer: out of memory");
    ts_buf_fini(&a);
    ts_buf_fini(&b);
    return st;
}
