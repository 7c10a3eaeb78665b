/* jinja_json.c — cJSON to values, values to json.dumps text. */
#include "text/jinja_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ts_jinja_value ts_jinja_from_json(ts_jinja_rt *rt, const cJSON *json)
{
    if (++rt->depth > rt->limits.max_depth)
        ts_jinja_throw(rt, TS_ERR_RANGE, "JSON nested deeper than %d levels", rt->limits.max_depth);
    ts_jinja_value v;
    if (cJSON_IsObject(json)) {
        v = ts_jinja_dict_new(rt, (size_t)cJSON_GetArraySize(json));
        for (const cJSON *c = json->child; c; c = c->next)
            ts_jinja_dict_set(rt, v, ts_jinja_cstring(rt, c->string ? c->string : ""), ts_jinja_from_json(rt, c));
    } else if (cJSON_IsArray(json)) {
        v = ts_jinja_list_new(rt, (size_t)cJSON_GetArraySize(json));
        for (const cJSON *c = json->child; c; c = c->next) ts_jinja_list_push(rt, v, ts_jinja_from_json(rt, c));
    } else if (cJSON_IsString(json)) {
        v = ts_jinja_cstring(rt, json->valuestring);
    } else if (cJSON_IsNumber(json)) {
        double d = json->valuedouble;
        if (d == floor(d) && fabs(d) < 9.0e15) v = ts_jinja_int((int64_t)d);
        else v = ts_jinja_float(d);
    } else if (cJSON_IsBool(json)) {
        v = ts_jinja_bool(cJSON_IsTrue(json));
    } else {
        v = ts_jinja_none();
    }
    rt->depth--;
    return v;
}

static void json_string(ts_jinja_rt *rt, ts_jinja_buf *out, const char *s, size_t len, bool ascii)
{
    ts_jinja_buf_addc(rt, out, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': ts_jinja_buf_add(rt, out, "\\\"", 2); continue;
        case '\\': ts_jinja_buf_add(rt, out, "\\\\", 2); continue;
        case '\n': ts_jinja_buf_add(rt, out, "\\n", 2); continue;
        case '\r': ts_jinja_buf_add(rt, out, "\\r", 2); continue;
        case '\t': ts_jinja_buf_add(rt, out, "\\t", 2); continue;
        case '\b': ts_jinja_buf_add(rt, out, "\\b", 2); continue;
        case '\f': ts_jinja_buf_add(rt, out, "\\f", 2); continue;
        default: break;
        }
        if (c < 0x20) {
            ts_jinja_buf_addf(rt, out, "\\u%04x", c);
        } else if (c >= 0x80 && ascii) {
            uint32_t cp;
            size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
            cp = c & (0x3F >> (n - 1));
            for (size_t k = 1; k < n && i + k < len; k++) cp = (cp << 6) | ((unsigned char)s[i + k] & 0x3F);
            i += n - 1;
            if (cp >= 0x10000) {
                cp -= 0x10000;
                ts_jinja_buf_addf(rt, out, "\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
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
        if (st->indent_str) ts_jinja_buf_add(rt, out, st->indent_str, strlen(st->indent_str));
        else
            for (int k = 0; k < st->indent; k++) ts_jinja_buf_addc(rt, out, ' ');
    }
}

static void key_text(ts_jinja_rt *rt, ts_jinja_buf *out, ts_jinja_value k, const ts_jinja_json_style *st)
{
    char tmp[64];
    switch (k.kind) {
    case TS_JV_STRING: json_string(rt, out, k.u.str.s, k.u.str.len, st->ensure_ascii); break;
    case TS_JV_INT: ts_jinja_buf_addf(rt, out, "\"%lld\"", (long long)k.u.i); break;
    case TS_JV_BOOL: ts_jinja_buf_add(rt, out, k.u.b ? "\"true\"" : "\"false\"", k.u.b ? 6 : 7); break;
    case TS_JV_NONE: ts_jinja_buf_add(rt, out, "\"null\"", 6); break;
    case TS_JV_FLOAT:
        ts_jinja_format_float(tmp, sizeof(tmp), k.u.f);
        ts_jinja_buf_addf(rt, out, "\"%s\"", tmp);
        break;
    default:
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "keys must be str, int, float, bool or None, not %s",
                       ts_jinja_kind_name(k));
    }
}

static void dump(ts_jinja_rt *rt, ts_jinja_buf *out, ts_jinja_value v, const ts_jinja_json_style *st, int level)
{
    if (++rt->depth > rt->limits.max_depth)
        ts_jinja_throw(rt, TS_ERR_RANGE, "value nested deeper than %d levels", rt->limits.max_depth);
    bool pretty = st->indent >= 0 || st->indent_str;
    const char *item_sep = st->item_sep ? st->item_sep : pretty ? "," : ", ";
    const char *key_sep = st->key_sep ? st->key_sep : ": ";
    char tmp[64];
    switch ((ts_jinja_kind)v.kind) {
    case TS_JV_NONE: ts_jinja_buf_add(rt, out, "null", 4); break;
    case TS_JV_BOOL: ts_jinja_buf_add(rt, out, v.u.b ? "true" : "false", v.u.b ? 4 : 5); break;
    case TS_JV_INT: ts_jinja_buf_addf(rt, out, "%lld", (long long)v.u.i); break;
    case TS_JV_FLOAT:
        if (isnan(v.u.f)) snprintf(tmp, sizeof(tmp), "NaN");
        else if (isinf(v.u.f)) snprintf(tmp, sizeof(tmp), v.u.f < 0 ? "-Infinity" : "Infinity");
        else ts_jinja_format_float(tmp, sizeof(tmp), v.u.f);
        ts_jinja_buf_add(rt, out, tmp, strlen(tmp));
        break;
    case TS_JV_STRING: json_string(rt, out, v.u.str.s, v.u.str.len, st->ensure_ascii); break;
    case TS_JV_LIST:
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
        size_t n = v.u.dict->n;
        if (n == 0) {
            ts_jinja_buf_add(rt, out, "{}", 2);
            break;
        }
        size_t *order = ts_jinja_alloc(rt, n * sizeof(size_t));
        for (size_t i = 0; i < n; i++) order[i] = i;
        if (st->sort_keys) /* insertion sort keeps equal keys stable; dicts here are small */
            for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && ts_jinja_compare(rt, v.u.dict->keys[order[j - 1]], v.u.dict->keys[order[j]]) > 0; j--) {
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

void ts_jinja_to_json(ts_jinja_rt *rt, ts_jinja_buf *out, ts_jinja_value v, const ts_jinja_json_style *style)
{
    dump(rt, out, v, style, 0);
}
