/* jinja_json.c — JSON text to values (as json.loads), values to json.dumps text. */
#include "text/jinja_json.h"
#include "base/text_escape.h"
#include "base/utf8.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void json_string(ts_jinja_rt *rt, ts_jinja_buf *out, const char *s, size_t len, bool ascii)
{
    /* json.dumps spells \b \f \n \r \t short; ensure_ascii escapes DEL too. */
    unsigned flags = TS_JSON_ESC_NRT | TS_JSON_ESC_BF | (ascii ? TS_JSON_ESC_DEL : 0);
    ts_jinja_buf_addc(rt, out, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        size_t n_esc = ts_json_escape_byte(c, flags, esc);
        if (n_esc) {
            ts_jinja_buf_add(rt, out, esc, n_esc);
        } else if (c >= 0x80 && ascii) {
            uint32_t cp;
            size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
            cp = c & (0x3F >> (n - 1));
            for (size_t k = 1; k < n && i + k < len; k++)
                cp = (cp << 6) | ((unsigned char)s[i + k] & 0x3F);
            i += n - 1;
            if (cp >= 0x10000) {
                cp -= 0x10000;
                ts_jinja_buf_addf(rt, out, "\\u%04x\\u%04x", 0xD800 + (cp >> 10),
                                  0xDC00 + (cp & 0x3FF));
            } else {
                ts_jinja_buf_addf(rt, out, "\\u%04x", cp);
            }
        } else {
            ts_jinja_buf_addc(rt, out, (char)c);
        }
    }
    ts_jinja_buf_addc(rt, out, '"');
}

static void newline(ts_jinja_rt *rt, ts_jinja_buf *out, const ts_jinja_json_style *st, int level)
{
    ts_jinja_buf_addc(rt, out, '\n');
    for (int i = 0; i < level; i++) {
        if (st->indent_str)
            ts_jinja_buf_add(rt, out, st->indent_str, strlen(st->indent_str));
        else
            for (int k = 0; k < st->indent; k++)
                ts_jinja_buf_addc(rt, out, ' ');
    }
}

static void key_text(ts_jinja_rt *rt, ts_jinja_buf *out, ts_jinja_value k,
                     const ts_jinja_json_style *st)
{
    char tmp[64];
    switch (k.kind) {
    case TS_JV_STRING:
        json_string(rt, out, k.u.str.s, k.u.str.len, st->ensure_ascii);
        break;
    case TS_JV_INT:
        ts_jinja_buf_addf(rt, out, "\"%lld\"", (long long)k.u.i);
        break;
    case TS_JV_BOOL:
        ts_jinja_buf_add(rt, out, k.u.b ? "\"true\"" : "\"false\"", k.u.b ? 6 : 7);
        break;
    case TS_JV_NONE:
        ts_jinja_buf_add(rt, out, "\"null\"", 6);
        break;
    case TS_JV_FLOAT:
        ts_jinja_format_float(tmp, sizeof(tmp), k.u.f);
        ts_jinja_buf_addf(rt, out, "\"%s\"", tmp);
        break;
    default:
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT,
                       "keys must be str, int, float, bool or None, not %s", ts_jinja_kind_name(k));
    }
}

static void dump(ts_jinja_rt *rt, ts_jinja_buf *out, ts_jinja_value v,
                 const ts_jinja_json_style *st, int level)
{
    if (++rt->depth > rt->limits.max_depth)
        ts_jinja_throw(rt, TS_ERR_RANGE, "value nested deeper than %d levels",
                       rt->limits.max_depth);
    bool pretty = st->indent >= 0 || st->indent_str;
    const char *item_sep = st->item_sep ? st->item_sep : pretty ? "," : ", ";
    const char *key_sep = st->key_sep ? st->key_sep : ": ";
    char tmp[64];
    switch ((ts_jinja_kind)v.kind) {
    case TS_JV_NONE:
        ts_jinja_buf_add(rt, out, "null", 4);
        break;
    case TS_JV_BOOL:
        ts_jinja_buf_add(rt, out, v.u.b ? "true" : "false", v.u.b ? 4 : 5);
        break;
    case TS_JV_INT:
        ts_jinja_buf_addf(rt, out, "%lld", (long long)v.u.i);
        break;
    case TS_JV_FLOAT:
        if (isnan(v.u.f))
            snprintf(tmp, sizeof(tmp), "NaN");
        else if (isinf(v.u.f))
            snprintf(tmp, sizeof(tmp), v.u.f < 0 ? "-Infinity" : "Infinity");
        else
            ts_jinja_format_float(tmp, sizeof(tmp), v.u.f);
        ts_jinja_buf_add(rt, out, tmp, strlen(tmp));
        break;
    case TS_JV_STRING:
        json_string(rt, out, v.u.str.s, v.u.str.len, st->ensure_ascii);
        break;
    case TS_JV_LIST:
        if (v.flags & (TS_JV_ITERATOR | TS_JV_VIEW))
            ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT,
                           "Object of type %s is not JSON serializable", ts_jinja_kind_name(v));
        if (v.u.list->n == 0) {
            ts_jinja_buf_add(rt, out, "[]", 2);
            break;
        }
        ts_jinja_buf_addc(rt, out, '[');
        for (size_t i = 0; i < v.u.list->n; i++) {
            if (i) ts_jinja_buf_add(rt, out, item_sep, strlen(item_sep));
            if (pretty) newline(rt, out, st, level + 1);
            dump(rt, out, v.u.list->items[i], st, level + 1);
        }
        if (pretty) newline(rt, out, st, level);
        ts_jinja_buf_addc(rt, out, ']');
        break;
    case TS_JV_DICT: {
        if (v.flags & (TS_JV_NAMESPACE | TS_JV_LOOP))
            ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT,
                           "Object of type %s is not JSON serializable", ts_jinja_kind_name(v));
        size_t n = v.u.dict->n;
        if (n == 0) {
            ts_jinja_buf_add(rt, out, "{}", 2);
            break;
        }
        size_t *order = ts_jinja_alloc(rt, n * sizeof(size_t));
        for (size_t i = 0; i < n; i++)
            order[i] = i;
        if (st->sort_keys) /* insertion sort keeps equal keys stable; dicts here are small */
            for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && ts_jinja_compare(rt, v.u.dict->keys[order[j - 1]],
                                                             v.u.dict->keys[order[j]]) > 0;
                     j--) {
                    size_t t = order[j];
                    order[j] = order[j - 1];
                    order[j - 1] = t;
                }
        ts_jinja_buf_addc(rt, out, '{');
        for (size_t k = 0; k < n; k++) {
            size_t i = order[k];
            if (k) ts_jinja_buf_add(rt, out, item_sep, strlen(item_sep));
            if (pretty) newline(rt, out, st, level + 1);
            key_text(rt, out, v.u.dict->keys[i], st);
            ts_jinja_buf_add(rt, out, key_sep, strlen(key_sep));
            dump(rt, out, v.u.dict->values[i], st, level + 1);
        }
        if (pretty) newline(rt, out, st, level);
        ts_jinja_buf_addc(rt, out, '}');
        break;
    }
    default:
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "Object of type %s is not JSON serializable",
                       ts_jinja_kind_name(v));
    }
    rt->depth--;
}

void ts_jinja_to_json(ts_jinja_rt *rt, ts_jinja_buf *out, ts_jinja_value v,
                      const ts_jinja_json_style *style)
{
    dump(rt, out, v, style, 0);
}

/* ------------------------------------------------------------------------ JSON reader */

typedef struct json_reader {
    ts_jinja_rt *rt;
    const char *s;
    size_t len, pos;
    const char *what;
} json_reader;

static _Noreturn void json_fail(json_reader *r, const char *msg)
{
    r->rt->line = 0;
    ts_jinja_throw(r->rt, TS_ERR_INVALID_ARGUMENT, "%s: invalid JSON at byte %zu: %s", r->what,
                   r->pos, msg);
}

static void json_ws(json_reader *r)
{
    while (r->pos < r->len && (r->s[r->pos] == ' ' || r->s[r->pos] == '\t' ||
                               r->s[r->pos] == '\n' || r->s[r->pos] == '\r'))
        r->pos++;
}

static bool json_word(json_reader *r, const char *w)
{
    size_t n = strlen(w);
    if (r->len - r->pos >= n && memcmp(r->s + r->pos, w, n) == 0) {
        r->pos += n;
        return true;
    }
    return false;
}

static unsigned json_hex4(json_reader *r)
{
    if (r->len - r->pos < 4) json_fail(r, "truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = r->s[r->pos++];
        int d = ts_hex_value(c);
        if (d < 0) json_fail(r, "bad \\u escape");
        v = v << 4 | (unsigned)d;
    }
    return v;
}

static ts_jinja_value json_string_value(json_reader *r)
{
    r->pos++; /* opening quote */
    ts_jinja_buf b = {0};
    size_t run = r->pos;
    for (;;) {
        if (r->pos >= r->len) json_fail(r, "unterminated string");
        unsigned char c = (unsigned char)r->s[r->pos];
        if (c == '"' || c == '\\' || c < 0x20) {
            ts_jinja_buf_add(r->rt, &b, r->s + run, r->pos - run);
            if (c < 0x20) json_fail(r, "control character in string");
            r->pos++;
            if (c == '"') break;
            if (r->pos >= r->len) json_fail(r, "unterminated escape");
            char e = r->s[r->pos++];
            switch (e) {
            case '"':
                ts_jinja_buf_addc(r->rt, &b, '"');
                break;
            case '\\':
                ts_jinja_buf_addc(r->rt, &b, '\\');
                break;
            case '/':
                ts_jinja_buf_addc(r->rt, &b, '/');
                break;
            case 'b':
                ts_jinja_buf_addc(r->rt, &b, '\b');
                break;
            case 'f':
                ts_jinja_buf_addc(r->rt, &b, '\f');
                break;
            case 'n':
                ts_jinja_buf_addc(r->rt, &b, '\n');
                break;
            case 'r':
                ts_jinja_buf_addc(r->rt, &b, '\r');
                break;
            case 't':
                ts_jinja_buf_addc(r->rt, &b, '\t');
                break;
            case 'u': {
                unsigned cp = json_hex4(r);
                if (cp >= 0xD800 && cp < 0xDC00 && r->len - r->pos >= 6 && r->s[r->pos] == '\\' &&
                    r->s[r->pos + 1] == 'u') {
                    size_t save = r->pos;
                    r->pos += 2;
                    unsigned lo = json_hex4(r);
                    if (lo >= 0xDC00 && lo < 0xE000)
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    else
                        r->pos = save;
                }
                /* A lone surrogate cannot be UTF-8; it becomes U+FFFD. */
                if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD;
                {
                    char u[4];
                    ts_jinja_buf_add(r->rt, &b, u, ts_utf8_encode(cp, u));
                }
                break;
            }
            default:
                r->pos--;
                json_fail(r, "unknown escape");
            }
            run = r->pos;
        } else {
            r->pos++;
        }
    }
    ts_jinja_value v = ts_jinja_buf_value(r->rt, &b);
    return v.u.str.s ? v : ts_jinja_string_ref("", 0);
}

static ts_jinja_value json_number(json_reader *r)
{
    size_t start = r->pos;
    bool is_float = false;
    if (r->s[r->pos] == '-') r->pos++;
    if (json_word(r, "Infinity")) return ts_jinja_float(r->s[start] == '-' ? -INFINITY : INFINITY);
    if (r->pos >= r->len || r->s[r->pos] < '0' || r->s[r->pos] > '9')
        json_fail(r, "expected a value");
    if (r->s[r->pos] == '0')
        r->pos++;
    else
        while (r->pos < r->len && r->s[r->pos] >= '0' && r->s[r->pos] <= '9')
            r->pos++;
    if (r->pos < r->len && r->s[r->pos] == '.') {
        size_t d = ++r->pos;
        while (r->pos < r->len && r->s[r->pos] >= '0' && r->s[r->pos] <= '9')
            r->pos++;
        if (r->pos == d) json_fail(r, "expected digits after '.'");
        is_float = true;
    }
    if (r->pos < r->len && (r->s[r->pos] == 'e' || r->s[r->pos] == 'E')) {
        r->pos++;
        if (r->pos < r->len && (r->s[r->pos] == '+' || r->s[r->pos] == '-')) r->pos++;
        size_t d = r->pos;
        while (r->pos < r->len && r->s[r->pos] >= '0' && r->s[r->pos] <= '9')
            r->pos++;
        if (r->pos == d) json_fail(r, "expected exponent digits");
        is_float = true;
    }
    char buf[64];
    size_t n = r->pos - start;
    if (n >= sizeof(buf)) {
        /* Long literals: strtod over an arena copy. */
        char *copy = ts_jinja_alloc(r->rt, n + 1);
        memcpy(copy, r->s + start, n);
        return ts_jinja_float(strtod(copy, NULL));
    }
    memcpy(buf, r->s + start, n);
    buf[n] = '\0';
    if (!is_float) {
        errno = 0;
        long long v = strtoll(buf, NULL, 10);
        if (errno == 0) return ts_jinja_int(v);
    }
    return ts_jinja_float(strtod(buf, NULL));
}

static ts_jinja_value json_value(json_reader *r)
{
    if (++r->rt->depth > r->rt->limits.max_depth) json_fail(r, "nested too deeply");
    json_ws(r);
    if (r->pos >= r->len) json_fail(r, "unexpected end of text");
    ts_jinja_value v;
    char c = r->s[r->pos];
    if (c == '{') {
        r->pos++;
        v = ts_jinja_dict_new(r->rt, 0);
        json_ws(r);
        if (r->pos < r->len && r->s[r->pos] == '}') {
            r->pos++;
        } else {
            for (;;) {
                json_ws(r);
                if (r->pos >= r->len || r->s[r->pos] != '"') json_fail(r, "expected a string key");
                ts_jinja_value key = json_string_value(r);
                json_ws(r);
                if (r->pos >= r->len || r->s[r->pos] != ':') json_fail(r, "expected ':'");
                r->pos++;
                ts_jinja_dict_set(r->rt, v, key, json_value(r));
                json_ws(r);
                if (r->pos < r->len && r->s[r->pos] == ',') {
                    r->pos++;
                    continue;
                }
                if (r->pos < r->len && r->s[r->pos] == '}') {
                    r->pos++;
                    break;
                }
                json_fail(r, "expected ',' or '}'");
            }
        }
    } else if (c == '[') {
        r->pos++;
        v = ts_jinja_list_new(r->rt, 0);
        json_ws(r);
        if (r->pos < r->len && r->s[r->pos] == ']') {
            r->pos++;
        } else {
            for (;;) {
                ts_jinja_list_push(r->rt, v, json_value(r));
                json_ws(r);
                if (r->pos < r->len && r->s[r->pos] == ',') {
                    r->pos++;
                    continue;
                }
                if (r->pos < r->len && r->s[r->pos] == ']') {
                    r->pos++;
                    break;
                }
                json_fail(r, "expected ',' or ']'");
            }
        }
    } else if (c == '"') {
        v = json_string_value(r);
    } else if (json_word(r, "true")) {
        v = ts_jinja_bool(true);
    } else if (json_word(r, "false")) {
        v = ts_jinja_bool(false);
    } else if (json_word(r, "null")) {
        v = ts_jinja_none();
    } else if (json_word(r, "NaN")) {
        v = ts_jinja_float(NAN);
    } else {
        v = json_number(r);
    }
    r->rt->depth--;
    return v;
}

ts_jinja_value ts_jinja_parse_json(ts_jinja_rt *rt, const char *text, size_t len, const char *what)
{
    json_reader r = {.rt = rt, .s = text, .len = len, .what = what};
    ts_jinja_value v = json_value(&r);
    json_ws(&r);
    if (r.pos != r.len) json_fail(&r, "extra data after the value");
    return v;
}
