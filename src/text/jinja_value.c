/* jinja_value.c — Jinja values with Python semantics for str, repr, ==, < and truthiness. */
#include "text/jinja_value.h"

#include "base/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ts_jinja_rt_init(ts_jinja_rt *rt, const char *origin, ts_error *err)
{
    memset(rt, 0, sizeof(*rt));
    ts_arena_init(&rt->arena, 64 * 1024);
    rt->origin = origin ? origin : "<template>";
    rt->error = err;
    rt->limits.max_output = 64u << 20;
    rt->limits.max_memory = 512u << 20;
    rt->limits.max_depth = 200;
    /* Real chat templates take thousands of steps; this caps a hostile one at a few seconds. */
    rt->limits.max_steps = 50000000ull;
}

void ts_jinja_rt_fini(ts_jinja_rt *rt)
{
    ts_arena_fini(&rt->arena);
}

void ts_jinja_throw(ts_jinja_rt *rt, ts_status status, const char *fmt, ...)
{
    char msg[TS_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* Line 0 marks errors that are not about the template text (bad context JSON). */
    if (rt->line > 0)
        ts_error_set(rt->error, status, "%s:%d:%d: %s", rt->origin, rt->line, rt->col, msg);
    else
        ts_error_set(rt->error, status, "%s", msg);
    longjmp(*rt->jump, 1);
}

void ts_jinja_rethrow(ts_jinja_rt *rt, ts_status status, const char *message)
{
    ts_error_set(rt->error, status, "%s", message);
    longjmp(*rt->jump, 1);
}

void *ts_jinja_alloc(ts_jinja_rt *rt, size_t size)
{
    if (rt->arena.bytes_used + size > rt->limits.max_memory)
        ts_jinja_throw(rt, TS_ERR_RANGE, "template uses more than %zu bytes of memory",
                       rt->limits.max_memory);
    void *p = ts_arena_alloc(&rt->arena, size);
    if (!p) ts_jinja_throw(rt, TS_ERR_OUT_OF_MEMORY, "out of memory");
    return p;
}

void ts_jinja_buf_add(ts_jinja_rt *rt, ts_jinja_buf *b, const char *s, size_t len)
{
    size_t limit = b->limit ? b->limit : rt->limits.max_output;
    if (len > limit || b->len > limit - len)
        ts_jinja_throw(rt, TS_ERR_RANGE, "rendered text exceeds %zu bytes", limit);
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        while (cap < b->len + len + 1)
            cap *= 2;
        char *data = ts_jinja_alloc(rt, cap);
        if (b->len) memcpy(data, b->data, b->len);
        b->data = data;
        b->cap = cap;
    }
    if (len) memcpy(b->data + b->len, s, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void ts_jinja_buf_addc(ts_jinja_rt *rt, ts_jinja_buf *b, char c)
{
    ts_jinja_buf_add(rt, b, &c, 1);
}

void ts_jinja_buf_addf(ts_jinja_rt *rt, ts_jinja_buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n > 0) ts_jinja_buf_add(rt, b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

ts_jinja_value ts_jinja_buf_value(ts_jinja_rt *rt, ts_jinja_buf *b)
{
    if (!b->data) return ts_jinja_string_ref("", 0);
    return ts_jinja_string_ref(b->data, b->len);
}

ts_jinja_value ts_jinja_undefined(const char *name)
{
    ts_jinja_value v = {.kind = TS_JV_UNDEFINED};
    v.u.str.s = name;
    return v;
}
ts_jinja_value ts_jinja_undefined_member(ts_jinja_rt *rt, ts_jinja_value owner, ts_jinja_value key)
{
    ts_jinja_buf b = {0};
    ts_jinja_buf_addf(rt, &b, "'%s object' has no %s ", ts_jinja_kind_name(owner),
                      key.kind == TS_JV_STRING ? "attribute" : "element");
    ts_jinja_repr(rt, &b, key);
    ts_jinja_value v = ts_jinja_undefined(b.data);
    v.flags |= TS_JV_UNDEF_MESSAGE;
    return v;
}

void ts_jinja_throw_undefined(ts_jinja_rt *rt, ts_jinja_value u)
{
    if (u.flags & TS_JV_UNDEF_MESSAGE) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "%s", u.u.str.s);
    if (u.u.str.s) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "'%s' is undefined", u.u.str.s);
    ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "undefined value used");
}

ts_jinja_value ts_jinja_none(void)
{
    return (ts_jinja_value){.kind = TS_JV_NONE};
}
ts_jinja_value ts_jinja_bool(bool b)
{
    return (ts_jinja_value){.kind = TS_JV_BOOL, .u.b = b};
}
ts_jinja_value ts_jinja_int(int64_t i)
{
    return (ts_jinja_value){.kind = TS_JV_INT, .u.i = i};
}
ts_jinja_value ts_jinja_float(double f)
{
    return (ts_jinja_value){.kind = TS_JV_FLOAT, .u.f = f};
}

ts_jinja_value ts_jinja_string_ref(const char *s, size_t len)
{
    ts_jinja_value v = {.kind = TS_JV_STRING};
    v.u.str.s = s;
    v.u.str.len = len;
    return v;
}

ts_jinja_value ts_jinja_string(ts_jinja_rt *rt, const char *s, size_t len)
{
    char *copy = ts_jinja_alloc(rt, len + 1);
    if (len) memcpy(copy, s, len);
    return ts_jinja_string_ref(copy, len);
}

ts_jinja_value ts_jinja_cstring(ts_jinja_rt *rt, const char *s)
{
    return ts_jinja_string(rt, s, strlen(s));
}

ts_jinja_value ts_jinja_list_new(ts_jinja_rt *rt, size_t cap)
{
    ts_jinja_value v = {.kind = TS_JV_LIST};
    v.u.list = ts_jinja_alloc(rt, sizeof(ts_jinja_list));
    if (cap) {
        v.u.list->items = ts_jinja_alloc(rt, cap * sizeof(ts_jinja_value));
        v.u.list->cap = cap;
    }
    return v;
}

void ts_jinja_list_push(ts_jinja_rt *rt, ts_jinja_value list, ts_jinja_value item)
{
    ts_jinja_list *l = list.u.list;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 4;
        ts_jinja_value *items = ts_jinja_alloc(rt, cap * sizeof(ts_jinja_value));
        if (l->n) memcpy(items, l->items, l->n * sizeof(ts_jinja_value));
        l->items = items;
        l->cap = cap;
    }
    l->items[l->n++] = item;
}

ts_jinja_value ts_jinja_dict_new(ts_jinja_rt *rt, size_t cap)
{
    ts_jinja_value v = {.kind = TS_JV_DICT};
    v.u.dict = ts_jinja_alloc(rt, sizeof(ts_jinja_dict));
    if (cap) {
        v.u.dict->keys = ts_jinja_alloc(rt, cap * sizeof(ts_jinja_value));
        v.u.dict->values = ts_jinja_alloc(rt, cap * sizeof(ts_jinja_value));
        v.u.dict->cap = cap;
    }
    return v;
}

ts_jinja_value *ts_jinja_dict_get(ts_jinja_value dict, ts_jinja_value key)
{
    ts_jinja_dict *d = dict.u.dict;
    for (size_t i = 0; i < d->n; i++)
        if (ts_jinja_equal(d->keys[i], key)) return &d->values[i];
    return NULL;
}

ts_jinja_value *ts_jinja_dict_get_str(ts_jinja_value dict, const char *key)
{
    return ts_jinja_dict_get(dict, ts_jinja_string_ref(key, strlen(key)));
}

void ts_jinja_dict_set(ts_jinja_rt *rt, ts_jinja_value dict, ts_jinja_value key, ts_jinja_value v)
{
    ts_jinja_value *slot = ts_jinja_dict_get(dict, key);
    if (slot) {
        *slot = v;
        return;
    }
    ts_jinja_dict *d = dict.u.dict;
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 4;
        ts_jinja_value *keys = ts_jinja_alloc(rt, cap * sizeof(ts_jinja_value));
        ts_jinja_value *values = ts_jinja_alloc(rt, cap * sizeof(ts_jinja_value));
        if (d->n) {
            memcpy(keys, d->keys, d->n * sizeof(ts_jinja_value));
            memcpy(values, d->values, d->n * sizeof(ts_jinja_value));
        }
        d->keys = keys;
        d->values = values;
        d->cap = cap;
    }
    d->keys[d->n] = key;
    d->values[d->n] = v;
    d->n++;
}

ts_jinja_value ts_jinja_callable_new(ts_jinja_rt *rt, ts_jinja_callable_kind kind, const char *name)
{
    ts_jinja_value v = {.kind = TS_JV_CALLABLE};
    v.u.fn = ts_jinja_alloc(rt, sizeof(ts_jinja_callable));
    v.u.fn->kind = kind;
    v.u.fn->name = name;
    return v;
}

bool ts_jinja_truthy(ts_jinja_value v)
{
    switch ((ts_jinja_kind)v.kind) {
    case TS_JV_UNDEFINED:
    case TS_JV_NONE:
        return false;
    case TS_JV_BOOL:
        return v.u.b;
    case TS_JV_INT:
        return v.u.i != 0;
    case TS_JV_FLOAT:
        return v.u.f != 0.0;
    case TS_JV_STRING:
        return v.u.str.len != 0;
    case TS_JV_LIST:
        return (v.flags & TS_JV_ITERATOR) || v.u.list->n != 0;
    /* namespace() and loop are plain objects to Python: always true. */
    case TS_JV_DICT:
        return (v.flags & (TS_JV_NAMESPACE | TS_JV_LOOP)) || v.u.dict->n != 0;
    case TS_JV_CALLABLE:
        return true;
    }
    return false;
}

static bool is_number(ts_jinja_value v)
{
    return v.kind == TS_JV_INT || v.kind == TS_JV_FLOAT || v.kind == TS_JV_BOOL;
}

static double as_double(ts_jinja_value v)
{
    return v.kind == TS_JV_FLOAT ? v.u.f : v.kind == TS_JV_BOOL ? (double)v.u.b : (double)v.u.i;
}

bool ts_jinja_equal(ts_jinja_value a, ts_jinja_value b)
{
    if (is_number(a) && is_number(b)) {
        if (a.kind != TS_JV_FLOAT && b.kind != TS_JV_FLOAT) {
            int64_t x = a.kind == TS_JV_BOOL ? a.u.b : a.u.i;
            int64_t y = b.kind == TS_JV_BOOL ? b.u.b : b.u.i;
            return x == y;
        }
        return as_double(a) == as_double(b);
    }
    if (a.kind != b.kind) return false;
    switch ((ts_jinja_kind)a.kind) {
    case TS_JV_UNDEFINED:
    case TS_JV_NONE:
        return true;
    case TS_JV_STRING:
        return a.u.str.len == b.u.str.len && memcmp(a.u.str.s, b.u.str.s, a.u.str.len) == 0;
    case TS_JV_LIST:
        /* Python: a tuple never equals a list; generators and views compare by identity. */
        if (a.flags != b.flags) return false;
        if (a.flags & (TS_JV_ITERATOR | TS_JV_VIEW)) return a.u.list == b.u.list;
        if (a.u.list->n != b.u.list->n) return false;
        for (size_t i = 0; i < a.u.list->n; i++)
            if (!ts_jinja_equal(a.u.list->items[i], b.u.list->items[i])) return false;
        return true;
    case TS_JV_DICT:
        if (a.u.dict == b.u.dict) return true;
        if (a.u.dict->n != b.u.dict->n || (a.flags & TS_JV_NAMESPACE)) return false;
        for (size_t i = 0; i < a.u.dict->n; i++) {
            ts_jinja_value *o = ts_jinja_dict_get(b, a.u.dict->keys[i]);
            if (!o || !ts_jinja_equal(a.u.dict->values[i], *o)) return false;
        }
        return true;
    case TS_JV_CALLABLE:
        return a.u.fn == b.u.fn;
    default:
        return false;
    }
}

const char *ts_jinja_kind_name(ts_jinja_value v)
{
    switch ((ts_jinja_kind)v.kind) {
    case TS_JV_UNDEFINED:
        return "Undefined";
    case TS_JV_NONE:
        return "NoneType";
    case TS_JV_BOOL:
        return "bool";
    case TS_JV_INT:
        return "int";
    case TS_JV_FLOAT:
        return "float";
    case TS_JV_STRING:
        return "str";
    case TS_JV_LIST:
        if (v.flags & TS_JV_ITERATOR) return "generator";
        if (v.flags & TS_JV_VIEW_ITEMS) return "dict_items";
        if (v.flags & TS_JV_VIEW_KEYS) return "dict_keys";
        if (v.flags & TS_JV_VIEW_VALUES) return "dict_values";
        return v.flags & TS_JV_TUPLE ? "tuple" : "list";
    case TS_JV_DICT:
        return v.flags & TS_JV_NAMESPACE ? "Namespace"
               : v.flags & TS_JV_LOOP    ? "LoopContext"
                                         : "dict";
    case TS_JV_CALLABLE:
        return "function";
    }
    return "?";
}

int ts_jinja_compare(ts_jinja_rt *rt, ts_jinja_value a, ts_jinja_value b)
{
    if (is_number(a) && is_number(b)) {
        if (a.kind != TS_JV_FLOAT && b.kind != TS_JV_FLOAT) {
            int64_t x = a.kind == TS_JV_BOOL ? a.u.b : a.u.i;
            int64_t y = b.kind == TS_JV_BOOL ? b.u.b : b.u.i;
            return x < y ? -1 : x > y;
        }
        double x = as_double(a), y = as_double(b);
        return x < y ? -1 : x > y;
    }
    if (a.kind == TS_JV_STRING && b.kind == TS_JV_STRING) {
        /* UTF-8 byte order is code point order, which is what Python compares. */
        size_t n = a.u.str.len < b.u.str.len ? a.u.str.len : b.u.str.len;
        int c = memcmp(a.u.str.s, b.u.str.s, n);
        if (c) return c < 0 ? -1 : 1;
        return a.u.str.len < b.u.str.len ? -1 : a.u.str.len > b.u.str.len;
    }
    if (a.kind == TS_JV_LIST && b.kind == TS_JV_LIST &&
        (a.flags & TS_JV_TUPLE) == (b.flags & TS_JV_TUPLE)) {
        size_t n = a.u.list->n < b.u.list->n ? a.u.list->n : b.u.list->n;
        for (size_t i = 0; i < n; i++) {
            if (ts_jinja_equal(a.u.list->items[i], b.u.list->items[i])) continue;
            return ts_jinja_compare(rt, a.u.list->items[i], b.u.list->items[i]);
        }
        return a.u.list->n < b.u.list->n ? -1 : a.u.list->n > b.u.list->n;
    }
    ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT,
                   "'<' not supported between instances of '%s' and '%s'", ts_jinja_kind_name(a),
                   ts_jinja_kind_name(b));
}

void ts_jinja_format_float(char *buf, size_t cap, double f)
{
    if (isnan(f)) {
        snprintf(buf, cap, "nan");
        return;
    }
    if (isinf(f)) {
        snprintf(buf, cap, f < 0 ? "-inf" : "inf");
        return;
    }
    char tmp[64];
    int prec = 1;
    for (; prec <= 17; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, f);
        if (strtod(tmp, NULL) == f) break;
    }
    /* tmp is d.ddde±XX: pull the digits and exponent apart, then lay out as repr() does. */
    char digits[32];
    size_t nd = 0;
    const char *p = tmp;
    bool neg = false;
    if (*p == '-') {
        neg = true;
        p++;
    }
    for (; *p && *p != 'e'; p++)
        if (*p != '.') digits[nd++] = *p;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    int exp = atoi(p + 1);
    char out[64];
    size_t o = 0;
    if (neg) out[o++] = '-';
    if (exp < -4 || exp >= 16) {
        out[o++] = digits[0];
        if (nd > 1) {
            out[o++] = '.';
            for (size_t i = 1; i < nd; i++)
                out[o++] = digits[i];
        }
        o += (size_t)snprintf(out + o, sizeof(out) - o, "e%c%02d", exp < 0 ? '-' : '+',
                              exp < 0 ? -exp : exp);
    } else if (exp < 0) {
        out[o++] = '0';
        out[o++] = '.';
        for (int i = 0; i < -exp - 1; i++)
            out[o++] = '0';
        for (size_t i = 0; i < nd; i++)
            out[o++] = digits[i];
    } else {
        for (int i = 0; i <= exp; i++)
            out[o++] = (size_t)i < nd ? digits[i] : '0';
        out[o++] = '.';
        if ((size_t)exp + 1 < nd)
            for (size_t i = (size_t)exp + 1; i < nd; i++)
                out[o++] = digits[i];
        else
            out[o++] = '0';
    }
    out[o] = '\0';
    snprintf(buf, cap, "%s", out);
}

static void repr_string(ts_jinja_rt *rt, ts_jinja_buf *out, const char *s, size_t len)
{
    bool has_single = memchr(s, '\'', len) != NULL, has_double = memchr(s, '"', len) != NULL;
    char quote = has_single && !has_double ? '"' : '\'';
    ts_jinja_buf_addc(rt, out, quote);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == (unsigned char)quote || c == '\\') {
            ts_jinja_buf_addc(rt, out, '\\');
            ts_jinja_buf_addc(rt, out, (char)c);
        } else if (c == '\n') {
            ts_jinja_buf_add(rt, out, "\\n", 2);
        } else if (c == '\r') {
            ts_jinja_buf_add(rt, out, "\\r", 2);
        } else if (c == '\t') {
            ts_jinja_buf_add(rt, out, "\\t", 2);
        } else if (c < 0x20 || c == 0x7f) {
            ts_jinja_buf_addf(rt, out, "\\x%02x", c);
        } else {
            ts_jinja_buf_addc(rt, out, (char)c);
        }
    }
    ts_jinja_buf_addc(rt, out, quote);
}

void ts_jinja_repr(ts_jinja_rt *rt, ts_jinja_buf *out, ts_jinja_value v)
{
    if (++rt->depth > rt->limits.max_depth)
        ts_jinja_throw(rt, TS_ERR_RANGE, "value nested deeper than %d levels",
                       rt->limits.max_depth);
    switch ((ts_jinja_kind)v.kind) {
    case TS_JV_STRING:
        repr_string(rt, out, v.u.str.s, v.u.str.len);
        break;
    case TS_JV_LIST: {
        if (v.flags & TS_JV_ITERATOR) {
            ts_jinja_buf_add(rt, out, "<generator object>", 18);
            break;
        }
        if (v.flags & TS_JV_VIEW) {
            const char *name = ts_jinja_kind_name(v);
            ts_jinja_buf_add(rt, out, name, strlen(name));
            ts_jinja_buf_addc(rt, out, '(');
        }
        bool tuple = v.flags & TS_JV_TUPLE;
        ts_jinja_buf_addc(rt, out, tuple ? '(' : '[');
        for (size_t i = 0; i < v.u.list->n; i++) {
            if (i) ts_jinja_buf_add(rt, out, ", ", 2);
            ts_jinja_repr(rt, out, v.u.list->items[i]);
        }
        if (tuple && v.u.list->n == 1) ts_jinja_buf_addc(rt, out, ',');
        ts_jinja_buf_addc(rt, out, tuple ? ')' : ']');
        if (v.flags & TS_JV_VIEW) ts_jinja_buf_addc(rt, out, ')');
        break;
    }
    case TS_JV_DICT:
        if (v.flags & TS_JV_NAMESPACE) ts_jinja_buf_add(rt, out, "<Namespace ", 11);
        ts_jinja_buf_addc(rt, out, '{');
        for (size_t i = 0; i < v.u.dict->n; i++) {
            if (i) ts_jinja_buf_add(rt, out, ", ", 2);
            ts_jinja_repr(rt, out, v.u.dict->keys[i]);
            ts_jinja_buf_add(rt, out, ": ", 2);
            ts_jinja_repr(rt, out, v.u.dict->values[i]);
        }
        ts_jinja_buf_addc(rt, out, '}');
        if (v.flags & TS_JV_NAMESPACE) ts_jinja_buf_addc(rt, out, '>');
        break;
    default:
        ts_jinja_str(rt, out, v);
        break;
    }
    rt->depth--;
}

void ts_jinja_str(ts_jinja_rt *rt, ts_jinja_buf *out, ts_jinja_value v)
{
    char tmp[64];
    switch ((ts_jinja_kind)v.kind) {
    case TS_JV_UNDEFINED:
        break;
    case TS_JV_NONE:
        ts_jinja_buf_add(rt, out, "None", 4);
        break;
    case TS_JV_BOOL:
        ts_jinja_buf_add(rt, out, v.u.b ? "True" : "False", v.u.b ? 4 : 5);
        break;
    case TS_JV_INT:
        ts_jinja_buf_addf(rt, out, "%lld", (long long)v.u.i);
        break;
    case TS_JV_FLOAT:
        ts_jinja_format_float(tmp, sizeof(tmp), v.u.f);
        ts_jinja_buf_add(rt, out, tmp, strlen(tmp));
        break;
    case TS_JV_STRING:
        ts_jinja_buf_add(rt, out, v.u.str.s, v.u.str.len);
        break;
    case TS_JV_LIST:
    case TS_JV_DICT:
        ts_jinja_repr(rt, out, v);
        break;
    case TS_JV_CALLABLE:
        ts_jinja_buf_addf(rt, out, "<function %s>", v.u.fn->name ? v.u.fn->name : "?");
        break;
    }
}

ts_jinja_value ts_jinja_to_string(ts_jinja_rt *rt, ts_jinja_value v)
{
    if (v.kind == TS_JV_STRING) return v;
    ts_jinja_buf b = {0};
    ts_jinja_str(rt, &b, v);
    return ts_jinja_buf_value(rt, &b);
}

size_t ts_jinja_utf8_length(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80) n++;
    return n;
}

size_t ts_jinja_utf8_offset(const char *s, size_t len, size_t index)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (n == index) return i;
            n++;
        }
    }
    return len;
}

ts_jinja_value ts_jinja_iterate(ts_jinja_rt *rt, ts_jinja_value v)
{
    switch ((ts_jinja_kind)v.kind) {
    case TS_JV_LIST:
        if (v.u.list->error) ts_jinja_rethrow(rt, v.u.list->error_status, v.u.list->error);
        return v;
    case TS_JV_UNDEFINED:
        return ts_jinja_list_new(rt, 0);
    case TS_JV_DICT: {
        if (v.flags & (TS_JV_NAMESPACE | TS_JV_LOOP))
            ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "'%s' object is not iterable",
                           ts_jinja_kind_name(v));
        ts_jinja_value l = ts_jinja_list_new(rt, v.u.dict->n);
        for (size_t i = 0; i < v.u.dict->n; i++)
            ts_jinja_list_push(rt, l, v.u.dict->keys[i]);
        return l;
    }
    case TS_JV_STRING: {
        ts_jinja_value l = ts_jinja_list_new(rt, v.u.str.len);
        const char *s = v.u.str.s;
        size_t i = 0;
        while (i < v.u.str.len) {
            size_t j = i + 1;
            while (j < v.u.str.len && ((unsigned char)s[j] & 0xC0) == 0x80)
                j++;
            ts_jinja_list_push(rt, l, ts_jinja_string_ref(s + i, j - i));
            i = j;
        }
        return l;
    }
    default:
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "'%s' object is not iterable",
                       ts_jinja_kind_name(v));
    }
}
