/* jinja_builtins.c — jinja2's filters and tests, Python's read-only str/dict/list methods and
 * the template globals, with Python's semantics (code point strings, Unicode whitespace). */
#include "text/jinja_builtins.h"

#include "base/error.h"

#include "text/jinja_case.h"
#include "text/jinja_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <utf8proc.h>

/* jinja2's sandbox refuses ranges longer than this (MAX_RANGE). */
#define MAX_RANGE 100000

/* ------------------------------------------------------------------------------ helpers */

static const ts_jinja_value *arg(const ts_jinja_args *a, size_t i, const char *name)
{
    if (i < a->n_pos) return &a->pos[i];
    for (size_t k = 0; name && k < a->n_kw; k++)
        if (strcmp(a->kw_names[k], name) == 0) return &a->kw[k];
    return NULL;
}

static ts_jinja_value arg_or(const ts_jinja_args *a, size_t i, const char *name, ts_jinja_value def)
{
    const ts_jinja_value *v = arg(a, i, name);
    return v ? *v : def;
}

static bool arg_bool(const ts_jinja_args *a, size_t i, const char *name, bool def)
{
    const ts_jinja_value *v = arg(a, i, name);
    return v ? ts_jinja_truthy(*v) : def;
}

static int64_t want_int(ts_jinja_rt *rt, ts_jinja_value v, const char *what)
{
    if (v.kind == TS_JV_INT) return v.u.i;
    if (v.kind == TS_JV_BOOL) return v.u.b;
    ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "%s must be an integer, not %s", what,
                   ts_jinja_kind_name(v));
}

static ts_jinja_value want_str(ts_jinja_rt *rt, ts_jinja_value v, const char *what)
{
    if (v.kind != TS_JV_STRING)
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "%s must be a string, not %s", what,
                       ts_jinja_kind_name(v));
    return v;
}

static ts_jinja_value str_of(ts_jinja_rt *rt, ts_jinja_value v)
{
    return ts_jinja_to_string(rt, v);
}

static ts_jinja_value new_tuple(ts_jinja_rt *rt, ts_jinja_value a, ts_jinja_value b)
{
    ts_jinja_value t = ts_jinja_list_new(rt, 2);
    t.flags |= TS_JV_TUPLE;
    ts_jinja_list_push(rt, t, a);
    ts_jinja_list_push(rt, t, b);
    return t;
}

/* Decodes one code point at s[*i]; invalid bytes come back as themselves. */
static int32_t next_cp(const char *s, size_t len, size_t *i)
{
    utf8proc_int32_t cp;
    utf8proc_ssize_t n =
        utf8proc_iterate((const utf8proc_uint8_t *)s + *i, (utf8proc_ssize_t)(len - *i), &cp);
    if (n <= 0) {
        cp = (unsigned char)s[*i];
        n = 1;
    }
    *i += (size_t)n;
    return cp;
}

static void add_cp(ts_jinja_rt *rt, ts_jinja_buf *b, int32_t cp)
{
    utf8proc_uint8_t u[4];
    utf8proc_ssize_t n = utf8proc_encode_char(cp, u);
    ts_jinja_buf_add(rt, b, (const char *)u, (size_t)n);
}

/* Python's str.isspace set. */
static bool py_space(int32_t c)
{
    return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
           c == 0x202f || c == 0x205f || c == 0x3000;
}

/* str.splitlines boundaries. */
static bool py_linebreak(int32_t c)
{
    return c == '\n' || c == '\r' || c == 0x0b || c == 0x0c || (c >= 0x1c && c <= 0x1e) ||
           c == 0x85 || c == 0x2028 || c == 0x2029;
}

static bool is_cased(int32_t c)
{
    utf8proc_category_t k = utf8proc_category(c);
    return k == UTF8PROC_CATEGORY_LU || k == UTF8PROC_CATEGORY_LL || k == UTF8PROC_CATEGORY_LT ||
           ts_jinja_is_extra_cased(c);
}

static bool is_alpha(int32_t c)
{
    utf8proc_category_t k = utf8proc_category(c);
    return k >= UTF8PROC_CATEGORY_LU && k <= UTF8PROC_CATEGORY_LO;
}

static bool is_digit(int32_t c)
{
    return utf8proc_category(c) == UTF8PROC_CATEGORY_ND;
}

static bool is_numeric(int32_t c)
{
    utf8proc_category_t k = utf8proc_category(c);
    return k >= UTF8PROC_CATEGORY_ND && k <= UTF8PROC_CATEGORY_NO;
}

typedef enum { CASE_UPPER, CASE_LOWER, CASE_TITLE_PY, CASE_CAPITALIZE } case_mode;

/* Appends cp mapped as Python maps it: SpecialCasing expansions first, else utf8proc's
 * one-to-one mapping. */
static void add_mapped(ts_jinja_rt *rt, ts_jinja_buf *b, int32_t cp, ts_jinja_case mode)
{
    int32_t expansion[3];
    size_t n = ts_jinja_special_case(cp, mode, expansion);
    if (n) {
        for (size_t k = 0; k < n; k++)
            add_cp(rt, b, expansion[k]);
        return;
    }
    add_cp(rt, b,
           mode == TS_JINJA_UPPER   ? utf8proc_toupper(cp)
           : mode == TS_JINJA_LOWER ? utf8proc_tolower(cp)
                                    : utf8proc_totitle(cp));
}

static bool case_ignorable(int32_t c)
{
    utf8proc_category_t k = utf8proc_category(c);
    if (k == UTF8PROC_CATEGORY_MN || k == UTF8PROC_CATEGORY_ME || k == UTF8PROC_CATEGORY_CF ||
        k == UTF8PROC_CATEGORY_LM || k == UTF8PROC_CATEGORY_SK)
        return true;
    static const int32_t mid[] = {0x27,   0x2E,   0x3A,   0xB7,   0x387,  0x5F4,  0x2018, 0x2019,
                                  0x2024, 0x2027, 0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A};
    for (size_t i = 0; i < sizeof(mid) / sizeof(mid[0]); i++)
        if (mid[i] == c) return true;
    return false;
}

/* Python lowers Σ to final ς after a cased letter and before none (case-ignorables skipped). */
static int32_t lower_sigma(const int32_t *cps, size_t n, size_t at)
{
    size_t j = at;
    while (j > 0 && case_ignorable(cps[j - 1]))
        j--;
    if (j == 0 || !is_cased(cps[j - 1])) return 0x3C3;
    j = at + 1;
    while (j < n && case_ignorable(cps[j]))
        j++;
    return j < n && is_cased(cps[j]) ? 0x3C3 : 0x3C2;
}

static ts_jinja_value change_case(ts_jinja_rt *rt, ts_jinja_value s, case_mode mode)
{
    size_t n = 0, i = 0;
    int32_t *cps = ts_jinja_alloc(rt, (s.u.str.len + 1) * sizeof(int32_t));
    while (i < s.u.str.len)
        cps[n++] = next_cp(s.u.str.s, s.u.str.len, &i);
    ts_jinja_buf b = {0};
    bool prev_cased = false;
    for (size_t k = 0; k < n; k++) {
        int32_t c = cps[k];
        ts_jinja_case m = TS_JINJA_LOWER;
        switch (mode) {
        case CASE_UPPER:
            m = TS_JINJA_UPPER;
            break;
        case CASE_LOWER:
            m = TS_JINJA_LOWER;
            break;
        case CASE_TITLE_PY:
            m = prev_cased ? TS_JINJA_LOWER : TS_JINJA_TITLE;
            break;
        case CASE_CAPITALIZE:
            m = k == 0 ? TS_JINJA_TITLE : TS_JINJA_LOWER;
            break;
        }
        if (m == TS_JINJA_LOWER && c == 0x3A3)
            add_cp(rt, &b, lower_sigma(cps, n, k));
        else
            add_mapped(rt, &b, c, m);
        prev_cased = is_cased(c);
    }
    return ts_jinja_buf_value(rt, &b);
}

/* jinja2's title filter: capitalise after runs of whitespace, '-', '(', '{', '[', '<'. */
static ts_jinja_value jinja_title(ts_jinja_rt *rt, ts_jinja_value s)
{
    ts_jinja_buf b = {0};
    const char *p = s.u.str.s;
    size_t len = s.u.str.len, i = 0;
    while (i < len) {
        int32_t c = next_cp(p, len, &i);
        bool sep = py_space(c) || c == '-' || c == '(' || c == '{' || c == '[' || c == '<';
        if (sep) {
            add_cp(rt, &b, c);
            continue;
        }
        /* A word: item[0].upper() + item[1:].lower(), each on its own as jinja2 does. */
        add_mapped(rt, &b, c, TS_JINJA_UPPER);
        size_t rest = i;
        while (i < len) {
            size_t at = i;
            int32_t d = next_cp(p, len, &i);
            if (py_space(d) || d == '-' || d == '(' || d == '{' || d == '[' || d == '<') {
                i = at;
                break;
            }
        }
        ts_jinja_value lowered =
            change_case(rt, ts_jinja_string_ref(p + rest, i - rest), CASE_LOWER);
        ts_jinja_buf_add(rt, &b, lowered.u.str.s, lowered.u.str.len);
    }
    return ts_jinja_buf_value(rt, &b);
}

static bool in_chars(int32_t c, const ts_jinja_value *chars)
{
    if (!chars) return py_space(c);
    size_t i = 0;
    while (i < chars->u.str.len)
        if (next_cp(chars->u.str.s, chars->u.str.len, &i) == c) return true;
    return false;
}

/* str.strip/lstrip/rstrip; chars NULL → whitespace. */
static ts_jinja_value strip(ts_jinja_value s, const ts_jinja_value *chars, bool left, bool right)
{
    const char *p = s.u.str.s;
    size_t start = 0, end = s.u.str.len;
    if (left)
        while (start < end) {
            size_t i = start;
            if (!in_chars(next_cp(p, end, &i), chars)) break;
            start = i;
        }
    if (right)
        while (end > start) {
            size_t j = end - 1;
            while (j > start && ((unsigned char)p[j] & 0xC0) == 0x80)
                j--;
            size_t i = j;
            if (!in_chars(next_cp(p, end, &i), chars)) break;
            end = j;
        }
    return ts_jinja_string_ref(p + start, end - start);
}

static const ts_jinja_value *chars_arg(ts_jinja_rt *rt, const ts_jinja_args *a)
{
    const ts_jinja_value *c = arg(a, 0, "chars");
    if (!c || c->kind == TS_JV_NONE) return NULL;
    want_str(rt, *c, "strip characters");
    return c;
}

static const char *find_bytes(const char *h, size_t hl, const char *n, size_t nl)
{
    if (nl == 0) return h;
    if (nl > hl) return NULL;
    return memmem(h, hl, n, nl);
}

static const char *rfind_bytes(const char *h, size_t hl, const char *n, size_t nl)
{
    if (nl > hl) return NULL;
    for (size_t i = hl - nl + 1; i-- > 0;)
        if (memcmp(h + i, n, nl) == 0) return h + i;
    return NULL;
}

static ts_jinja_value split(ts_jinja_rt *rt, ts_jinja_value s, const ts_jinja_args *a,
                            bool from_right)
{
    ts_jinja_value sepv = arg_or(a, 0, "sep", ts_jinja_none());
    int64_t maxsplit = want_int(rt, arg_or(a, 1, "maxsplit", ts_jinja_int(-1)), "maxsplit");
    const char *p = s.u.str.s;
    size_t len = s.u.str.len;
    ts_jinja_value out = ts_jinja_list_new(rt, 4);
    if (sepv.kind != TS_JV_NONE) {
        want_str(rt, sepv, "separator");
        if (sepv.u.str.len == 0) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "empty separator");
        const char *sep = sepv.u.str.s;
        size_t sl = sepv.u.str.len;
        if (!from_right) {
            size_t start = 0;
            int64_t n = 0;
            const char *hit;
            while ((maxsplit < 0 || n < maxsplit) &&
                   (hit = find_bytes(p + start, len - start, sep, sl))) {
                ts_jinja_list_push(rt, out,
                                   ts_jinja_string_ref(p + start, (size_t)(hit - p) - start));
                start = (size_t)(hit - p) + sl;
                n++;
            }
            ts_jinja_list_push(rt, out, ts_jinja_string_ref(p + start, len - start));
            return out;
        }
        size_t end = len;
        int64_t n = 0;
        const char *hit;
        ts_jinja_value rev = ts_jinja_list_new(rt, 4);
        while ((maxsplit < 0 || n < maxsplit) && (hit = rfind_bytes(p, end, sep, sl))) {
            size_t at = (size_t)(hit - p);
            ts_jinja_list_push(rt, rev, ts_jinja_string_ref(p + at + sl, end - at - sl));
            end = at;
            n++;
        }
        ts_jinja_list_push(rt, rev, ts_jinja_string_ref(p, end));
        for (size_t i = rev.u.list->n; i-- > 0;)
            ts_jinja_list_push(rt, out, rev.u.list->items[i]);
        return out;
    }
    /* Whitespace split: runs of whitespace separate, ends are dropped, the unsplit rest keeps
     * its inner whitespace. */
    if (!from_right) {
        size_t i = 0;
        int64_t n = 0;
        for (;;) {
            size_t j = i;
            while (i < len) {
                j = i;
                if (!py_space(next_cp(p, len, &j))) break;
                i = j;
            }
            if (i >= len) break;
            if (maxsplit >= 0 && n >= maxsplit) {
                ts_jinja_list_push(rt, out, ts_jinja_string_ref(p + i, len - i));
                break;
            }
            size_t start = i;
            while (i < len) {
                j = i;
                if (py_space(next_cp(p, len, &j))) break;
                i = j;
            }
            ts_jinja_list_push(rt, out, ts_jinja_string_ref(p + start, i - start));
            n++;
        }
        return out;
    }
    ts_jinja_value rev = ts_jinja_list_new(rt, 4);
    size_t end = len;
    int64_t n = 0;
    for (;;) {
        ts_jinja_value trimmed = strip(ts_jinja_string_ref(p, end), NULL, false, true);
        end = trimmed.u.str.len;
        if (end == 0) break;
        if (maxsplit >= 0 && n >= maxsplit) {
            ts_jinja_list_push(rt, rev, ts_jinja_string_ref(p, end));
            break;
        }
        size_t start = end;
        while (start > 0) {
            size_t j = start - 1;
            while (j > 0 && ((unsigned char)p[j] & 0xC0) == 0x80)
                j--;
            size_t k = j;
            if (py_space(next_cp(p, end, &k))) break;
            start = j;
        }
        ts_jinja_list_push(rt, rev, ts_jinja_string_ref(p + start, end - start));
        end = start;
        n++;
    }
    for (size_t i = rev.u.list->n; i-- > 0;)
        ts_jinja_list_push(rt, out, rev.u.list->items[i]);
    return out;
}

static ts_jinja_value splitlines(ts_jinja_rt *rt, ts_jinja_value s, bool keepends)
{
    ts_jinja_value out = ts_jinja_list_new(rt, 4);
    const char *p = s.u.str.s;
    size_t len = s.u.str.len, start = 0, i = 0;
    while (i < len) {
        size_t at = i;
        int32_t c = next_cp(p, len, &i);
        if (!py_linebreak(c)) continue;
        if (c == '\r' && i < len && p[i] == '\n') i++;
        ts_jinja_list_push(rt, out, ts_jinja_string_ref(p + start, (keepends ? i : at) - start));
        start = i;
    }
    if (start < len) ts_jinja_list_push(rt, out, ts_jinja_string_ref(p + start, len - start));
    return out;
}

static ts_jinja_value replace(ts_jinja_rt *rt, ts_jinja_value s, ts_jinja_value old,
                              ts_jinja_value new, int64_t count)
{
    ts_jinja_buf b = {0};
    const char *p = s.u.str.s;
    size_t len = s.u.str.len, i = 0;
    int64_t n = 0;
    if (old.u.str.len == 0) {
        /* Python inserts `new` before every code point and at the end. */
        while (count < 0 || n < count) {
            ts_jinja_buf_add(rt, &b, new.u.str.s, new.u.str.len);
            n++;
            if (i >= len) break;
            size_t j = i;
            next_cp(p, len, &j);
            ts_jinja_buf_add(rt, &b, p + i, j - i);
            i = j;
        }
        ts_jinja_buf_add(rt, &b, p + i, len - i);
        return ts_jinja_buf_value(rt, &b);
    }
    const char *hit;
    while ((count < 0 || n < count) &&
           (hit = find_bytes(p + i, len - i, old.u.str.s, old.u.str.len))) {
        ts_jinja_buf_add(rt, &b, p + i, (size_t)(hit - p) - i);
        ts_jinja_buf_add(rt, &b, new.u.str.s, new.u.str.len);
        i = (size_t)(hit - p) + old.u.str.len;
        n++;
    }
    ts_jinja_buf_add(rt, &b, p + i, len - i);
    return ts_jinja_buf_value(rt, &b);
}

static bool affix_match(ts_jinja_rt *rt, ts_jinja_value s, ts_jinja_value affix, bool suffix)
{
    if (affix.kind == TS_JV_LIST && (affix.flags & TS_JV_TUPLE)) {
        for (size_t i = 0; i < affix.u.list->n; i++)
            if (affix_match(rt, s, affix.u.list->items[i], suffix)) return true;
        return false;
    }
    want_str(rt, affix, suffix ? "endswith argument" : "startswith argument");
    if (affix.u.str.len > s.u.str.len) return false;
    const char *at = suffix ? s.u.str.s + s.u.str.len - affix.u.str.len : s.u.str.s;
    return memcmp(at, affix.u.str.s, affix.u.str.len) == 0;
}

static ts_jinja_value join(ts_jinja_rt *rt, ts_jinja_value sep, ts_jinja_value items)
{
    ts_jinja_buf b = {0};
    ts_jinja_value l = ts_jinja_iterate(rt, items);
    for (size_t i = 0; i < l.u.list->n; i++) {
        if (i) ts_jinja_buf_add(rt, &b, sep.u.str.s, sep.u.str.len);
        ts_jinja_str(rt, &b, l.u.list->items[i]);
    }
    return ts_jinja_buf_value(rt, &b);
}

/* str.format with {} / {0} / {name} fields and no format specs. */
static ts_jinja_value str_format(ts_jinja_rt *rt, ts_jinja_value fmt, const ts_jinja_args *a)
{
    ts_jinja_buf b = {0};
    const char *p = fmt.u.str.s;
    size_t len = fmt.u.str.len, auto_index = 0;
    for (size_t i = 0; i < len; i++) {
        char c = p[i];
        if ((c == '{' || c == '}') && i + 1 < len && p[i + 1] == c) {
            ts_jinja_buf_addc(rt, &b, c);
            i++;
            continue;
        }
        if (c == '}') ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "single '}' in format string");
        if (c != '{') {
            ts_jinja_buf_addc(rt, &b, c);
            continue;
        }
        const char *close = memchr(p + i, '}', len - i);
        if (!close) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "unclosed '{' in format string");
        size_t fl = (size_t)(close - p) - i - 1;
        const char *field = p + i + 1;
        if (memchr(field, ':', fl) || memchr(field, '!', fl))
            ts_jinja_throw(rt, TS_ERR_UNSUPPORTED, "format specs in str.format are not supported");
        const ts_jinja_value *v = NULL;
        if (fl == 0) {
            v = arg(a, auto_index++, NULL);
        } else if (field[0] >= '0' && field[0] <= '9') {
            v = arg(a, (size_t)strtoul(field, NULL, 10), NULL);
        } else {
            for (size_t k = 0; k < a->n_kw; k++)
                if (strlen(a->kw_names[k]) == fl && memcmp(a->kw_names[k], field, fl) == 0)
                    v = &a->kw[k];
        }
        if (!v)
            ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT,
                           "str.format: missing argument for field '%.*s'", (int)fl, field);
        ts_jinja_str(rt, &b, *v);
        i = (size_t)(close - p);
    }
    return ts_jinja_buf_value(rt, &b);
}

/* printf-style `fmt % args` / the format filter: %s %r %d %i %f %x %% with flags/width/precision.
 */
static ts_jinja_value percent_format(ts_jinja_rt *rt, ts_jinja_value fmt,
                                     const ts_jinja_value *args, size_t n, bool allow_unused)
{
    ts_jinja_buf b = {0};
    const char *p = fmt.u.str.s;
    size_t len = fmt.u.str.len, used = 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] != '%') {
            ts_jinja_buf_addc(rt, &b, p[i]);
            continue;
        }
        size_t start = i++;
        while (i < len && strchr("-+ #0123456789.", p[i]))
            i++;
        if (i >= len) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "incomplete format");
        char conv = p[i];
        if (conv == '%') {
            ts_jinja_buf_addc(rt, &b, '%');
            continue;
        }
        if (used >= n)
            ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "not enough arguments for format string");
        ts_jinja_value v = args[used++];
        char spec[32];
        size_t sl = i - start;
        if (sl > 20) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "format spec too long");
        memcpy(spec, p + start, sl);
        if (conv == 's' || conv == 'r') {
            ts_jinja_buf t = {0};
            if (conv == 'r')
                ts_jinja_repr(rt, &t, v);
            else
                ts_jinja_str(rt, &t, v);
            spec[sl] = 's';
            spec[sl + 1] = '\0';
            if (sl == 1)
                ts_jinja_buf_add(rt, &b, t.data ? t.data : "", t.len);
            else
                ts_jinja_buf_addf(rt, &b, spec, t.data ? t.data : "");
        } else if (conv == 'd' || conv == 'i' || conv == 'x' || conv == 'X' || conv == 'o') {
            int64_t x = v.kind == TS_JV_FLOAT ? (int64_t)v.u.f : want_int(rt, v, "%d argument");
            memcpy(spec + sl, "ll", 2);
            spec[sl + 2] = conv == 'i' ? 'd' : conv;
            spec[sl + 3] = '\0';
            ts_jinja_buf_addf(rt, &b, spec, (long long)x);
        } else if (conv == 'f' || conv == 'F' || conv == 'e' || conv == 'g') {
            double x = v.kind == TS_JV_FLOAT ? v.u.f : (double)want_int(rt, v, "%f argument");
            spec[sl] = conv;
            spec[sl + 1] = '\0';
            ts_jinja_buf_addf(rt, &b, spec, x);
        } else {
            ts_jinja_throw(rt, TS_ERR_UNSUPPORTED, "unsupported format character '%c'", conv);
        }
    }
    if (used < n && !allow_unused)
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT,
                       "not all arguments converted during string formatting");
    return ts_jinja_buf_value(rt, &b);
}

/* ------------------------------------------------------------------------------ methods */

/* One function per method, or per family of methods sharing a body; m is the name called,
 * which the shared bodies read (find or rfind) and the errors quote. */
typedef ts_jinja_value (*method_fn)(ts_jinja_rt *rt, ts_jinja_value self, const char *m,
                                    const ts_jinja_args *a);

typedef struct method_entry {
    const char *name;
    method_fn fn;
} method_entry;

static ts_jinja_value str_strip(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                const ts_jinja_args *a)
{
    return strip(s, chars_arg(rt, a), true, true);
}

static ts_jinja_value str_lstrip(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                 const ts_jinja_args *a)
{
    return strip(s, chars_arg(rt, a), true, false);
}

static ts_jinja_value str_rstrip(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                 const ts_jinja_args *a)
{
    return strip(s, chars_arg(rt, a), false, true);
}

static ts_jinja_value str_split(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                const ts_jinja_args *a)
{
    return split(rt, s, a, false);
}

static ts_jinja_value str_rsplit(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                 const ts_jinja_args *a)
{
    return split(rt, s, a, true);
}

/* startswith, endswith */
static ts_jinja_value str_affix(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                const ts_jinja_args *a)
{
    const ts_jinja_value *x = arg(a, 0, NULL);
    if (!x) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "%s() takes at least 1 argument", m);
    if (a->n_pos > 1)
        ts_jinja_throw(rt, TS_ERR_UNSUPPORTED, "%s(): start/end arguments are not supported", m);
    return ts_jinja_bool(affix_match(rt, s, *x, m[0] == 'e'));
}

static ts_jinja_value str_upper(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                const ts_jinja_args *a)
{
    return change_case(rt, s, CASE_UPPER);
}

/* lower, casefold */
static ts_jinja_value str_lower(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                const ts_jinja_args *a)
{
    return change_case(rt, s, CASE_LOWER);
}

static ts_jinja_value str_title(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                const ts_jinja_args *a)
{
    return change_case(rt, s, CASE_TITLE_PY);
}

static ts_jinja_value str_capitalize(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                     const ts_jinja_args *a)
{
    return change_case(rt, s, CASE_CAPITALIZE);
}

static ts_jinja_value str_swapcase(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                   const ts_jinja_args *a)
{
    const char *p = s.u.str.s;
    size_t len = s.u.str.len;
    ts_jinja_buf b = {0};
    size_t i = 0;
    while (i < len) {
        int32_t c = next_cp(p, len, &i);
        utf8proc_category_t k = utf8proc_category(c);
        if (k == UTF8PROC_CATEGORY_LU)
            add_mapped(rt, &b, c, TS_JINJA_LOWER);
        else if (k == UTF8PROC_CATEGORY_LL)
            add_mapped(rt, &b, c, TS_JINJA_UPPER);
        else
            add_cp(rt, &b, c);
    }
    return ts_jinja_buf_value(rt, &b);
}

static ts_jinja_value str_replace(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                  const ts_jinja_args *a)
{
    const ts_jinja_value *o = arg(a, 0, NULL), *n = arg(a, 1, NULL);
    if (!o || !n)
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "replace() takes at least 2 arguments");
    int64_t count = want_int(rt, arg_or(a, 2, "count", ts_jinja_int(-1)), "count");
    return replace(rt, s, want_str(rt, *o, "replace old"), want_str(rt, *n, "replace new"), count);
}

/* find, rfind, index, rindex */
static ts_jinja_value str_find(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                               const ts_jinja_args *a)
{
    const char *p = s.u.str.s;
    size_t len = s.u.str.len;
    const ts_jinja_value *x = arg(a, 0, NULL);
    if (!x) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "%s() takes at least 1 argument", m);
    want_str(rt, *x, m);
    bool right = m[0] == 'r';
    const char *hit = right ? rfind_bytes(p, len, x->u.str.s, x->u.str.len)
                            : find_bytes(p, len, x->u.str.s, x->u.str.len);
    if (!hit) {
        if (strstr(m, "index")) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "substring not found");
        return ts_jinja_int(-1);
    }
    return ts_jinja_int((int64_t)ts_jinja_utf8_length(p, (size_t)(hit - p)));
}

static ts_jinja_value str_count(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                const ts_jinja_args *a)
{
    const char *p = s.u.str.s;
    size_t len = s.u.str.len;
    const ts_jinja_value *x = arg(a, 0, NULL);
    if (!x) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "count() takes at least 1 argument");
    want_str(rt, *x, "count argument");
    if (x->u.str.len == 0) return ts_jinja_int((int64_t)ts_jinja_utf8_length(p, len) + 1);
    int64_t n = 0;
    size_t i = 0;
    const char *hit;
    while ((hit = find_bytes(p + i, len - i, x->u.str.s, x->u.str.len))) {
        n++;
        i = (size_t)(hit - p) + x->u.str.len;
    }
    return ts_jinja_int(n);
}

static ts_jinja_value str_join(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                               const ts_jinja_args *a)
{
    const ts_jinja_value *x = arg(a, 0, NULL);
    if (!x) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "join() takes exactly one argument");
    ts_jinja_value l = ts_jinja_iterate(rt, *x);
    for (size_t i = 0; i < l.u.list->n; i++)
        if (l.u.list->items[i].kind != TS_JV_STRING)
            ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT,
                           "sequence item %zu: expected str instance, %s found", i,
                           ts_jinja_kind_name(l.u.list->items[i]));
    return join(rt, s, l);
}

static ts_jinja_value str_format_method(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                        const ts_jinja_args *a)
{
    return str_format(rt, s, a);
}

static ts_jinja_value str_splitlines(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                     const ts_jinja_args *a)
{
    return splitlines(rt, s, arg_bool(a, 0, "keepends", false));
}

/* isdigit, isdecimal, isnumeric, isalpha, isalnum, isspace, isupper, islower */
static ts_jinja_value str_is(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                             const ts_jinja_args *a)
{
    const char *p = s.u.str.s;
    size_t len = s.u.str.len;
    size_t i = 0;
    bool any = false, ok = len > 0, has_cased = false;
    while (i < len) {
        int32_t c = next_cp(p, len, &i);
        any = true;
        if (!strcmp(m, "isdigit") || !strcmp(m, "isdecimal"))
            ok = ok && is_digit(c);
        else if (!strcmp(m, "isnumeric"))
            ok = ok && is_numeric(c);
        else if (!strcmp(m, "isalpha"))
            ok = ok && is_alpha(c);
        else if (!strcmp(m, "isalnum"))
            ok = ok && (is_alpha(c) || is_numeric(c));
        else if (!strcmp(m, "isspace"))
            ok = ok && py_space(c);
        else if (!strcmp(m, "isupper") || !strcmp(m, "islower")) {
            utf8proc_category_t k = utf8proc_category(c);
            if (is_cased(c)) {
                has_cased = true;
                if (m[2] == 'u' ? k == UTF8PROC_CATEGORY_LL : k == UTF8PROC_CATEGORY_LU)
                    ok = false;
            }
        }
    }
    if (!strcmp(m, "isupper") || !strcmp(m, "islower")) ok = ok && has_cased;
    return ts_jinja_bool(any && ok);
}

/* zfill, center, ljust, rjust */
static ts_jinja_value str_pad(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                              const ts_jinja_args *a)
{
    const char *p = s.u.str.s;
    size_t len = s.u.str.len;
    int64_t width = want_int(rt, arg_or(a, 0, "width", ts_jinja_int(0)), "width");
    ts_jinja_value fillv = arg_or(a, 1, "fillchar", ts_jinja_string_ref(" ", 1));
    want_str(rt, fillv, "fillchar");
    int64_t n = (int64_t)ts_jinja_utf8_length(p, len);
    if (width <= n) return s;
    if (width > (int64_t)rt->limits.max_output) ts_jinja_throw(rt, TS_ERR_RANGE, "width too large");
    int64_t pad = width - n, left = 0;
    if (!strcmp(m, "center"))
        left = pad / 2 + (pad & width & 1);
    else if (!strcmp(m, "rjust") || !strcmp(m, "zfill"))
        left = pad;
    ts_jinja_buf b = {0};
    bool sign = !strcmp(m, "zfill") && len && (p[0] == '-' || p[0] == '+');
    if (sign) ts_jinja_buf_addc(rt, &b, p[0]);
    for (int64_t i = 0; i < left; i++)
        ts_jinja_buf_add(rt, &b, m[0] == 'z' ? "0" : fillv.u.str.s,
                         m[0] == 'z' ? 1 : fillv.u.str.len);
    ts_jinja_buf_add(rt, &b, p + sign, len - sign);
    for (int64_t i = left; i < pad; i++)
        ts_jinja_buf_add(rt, &b, fillv.u.str.s, fillv.u.str.len);
    return ts_jinja_buf_value(rt, &b);
}

/* removeprefix, removesuffix */
static ts_jinja_value str_remove_affix(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                       const ts_jinja_args *a)
{
    const char *p = s.u.str.s;
    size_t len = s.u.str.len;
    const ts_jinja_value *x = arg(a, 0, NULL);
    if (!x) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "%s() takes exactly one argument", m);
    bool suffix = m[6] == 's';
    if (!affix_match(rt, s, *x, suffix)) return s;
    return ts_jinja_string_ref(suffix ? p : p + x->u.str.len, len - x->u.str.len);
}

/* partition, rpartition */
static ts_jinja_value str_partition(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                    const ts_jinja_args *a)
{
    const char *p = s.u.str.s;
    size_t len = s.u.str.len;
    const ts_jinja_value *x = arg(a, 0, NULL);
    if (!x) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "%s() takes exactly one argument", m);
    want_str(rt, *x, "separator");
    bool right = m[0] == 'r';
    const char *hit = right ? rfind_bytes(p, len, x->u.str.s, x->u.str.len)
                            : find_bytes(p, len, x->u.str.s, x->u.str.len);
    ts_jinja_value t = ts_jinja_list_new(rt, 3);
    t.flags |= TS_JV_TUPLE;
    ts_jinja_value empty = ts_jinja_string_ref("", 0);
    if (!hit) {
        ts_jinja_list_push(rt, t, right ? empty : s);
        ts_jinja_list_push(rt, t, empty);
        ts_jinja_list_push(rt, t, right ? s : empty);
    } else {
        size_t at = (size_t)(hit - p);
        ts_jinja_list_push(rt, t, ts_jinja_string_ref(p, at));
        ts_jinja_list_push(rt, t, *x);
        ts_jinja_list_push(rt, t,
                           ts_jinja_string_ref(p + at + x->u.str.len, len - at - x->u.str.len));
    }
    return t;
}

/* Python has it, so getattr finds it; it makes bytes, which a template has no use for. */
static ts_jinja_value str_unsupported(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                      const ts_jinja_args *a)
{
    ts_jinja_throw(rt, TS_ERR_UNSUPPORTED, "str.%s() is not supported", m);
}

/* items, keys, values: views, which the filters and tests tell from lists. */
static ts_jinja_value dict_view(ts_jinja_rt *rt, ts_jinja_value self, const char *m,
                                const ts_jinja_args *a)
{
    ts_jinja_dict *d = self.u.dict;
    ts_jinja_value out = ts_jinja_list_new(rt, d->n);
    out.flags |= m[0] == 'i'   ? TS_JV_VIEW_ITEMS
                 : m[0] == 'k' ? TS_JV_VIEW_KEYS
                               : TS_JV_VIEW_VALUES;
    for (size_t i = 0; i < d->n; i++)
        ts_jinja_list_push(rt, out,
                           m[0] == 'i'   ? new_tuple(rt, d->keys[i], d->values[i])
                           : m[0] == 'k' ? d->keys[i]
                                         : d->values[i]);
    return out;
}

static ts_jinja_value dict_get(ts_jinja_rt *rt, ts_jinja_value self, const char *m,
                               const ts_jinja_args *a)
{
    const ts_jinja_value *k = arg(a, 0, NULL);
    if (!k) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "get expected at least 1 argument, got 0");
    ts_jinja_value *v = ts_jinja_dict_get(self, *k);
    return v ? *v : arg_or(a, 1, NULL, ts_jinja_none());
}

static ts_jinja_value dict_copy(ts_jinja_rt *rt, ts_jinja_value self, const char *m,
                                const ts_jinja_args *a)
{
    ts_jinja_dict *d = self.u.dict;
    ts_jinja_value out = ts_jinja_dict_new(rt, d->n);
    for (size_t i = 0; i < d->n; i++)
        ts_jinja_dict_set(rt, out, d->keys[i], d->values[i]);
    return out;
}

static ts_jinja_value list_copy(ts_jinja_rt *rt, ts_jinja_value self, const char *m,
                                const ts_jinja_args *a)
{
    ts_jinja_list *l = self.u.list;
    ts_jinja_value out = ts_jinja_list_new(rt, l->n);
    for (size_t i = 0; i < l->n; i++)
        ts_jinja_list_push(rt, out, l->items[i]);
    return out;
}

/* index, count */
static ts_jinja_value list_find(ts_jinja_rt *rt, ts_jinja_value self, const char *m,
                                const ts_jinja_args *a)
{
    ts_jinja_list *l = self.u.list;
    const ts_jinja_value *x = arg(a, 0, NULL);
    if (!x) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "%s() takes exactly one argument", m);
    int64_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        if (ts_jinja_equal(l->items[i], *x)) {
            if (m[0] == 'i') return ts_jinja_int((int64_t)i);
            n++;
        }
    if (m[0] == 'i') ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "value is not in list");
    return ts_jinja_int(n);
}

/* The methods getattr binds, per kind, in strcmp order; each ends with {NULL, NULL}. */
static const method_entry str_methods[] = {
    {"capitalize", str_capitalize},
    {"casefold", str_lower},
    {"center", str_pad},
    {"count", str_count},
    {"encode", str_unsupported},
    {"endswith", str_affix},
    {"find", str_find},
    {"format", str_format_method},
    {"index", str_find},
    {"isalnum", str_is},
    {"isalpha", str_is},
    {"isdecimal", str_is},
    {"isdigit", str_is},
    {"islower", str_is},
    {"isnumeric", str_is},
    {"isspace", str_is},
    {"isupper", str_is},
    {"join", str_join},
    {"ljust", str_pad},
    {"lower", str_lower},
    {"lstrip", str_lstrip},
    {"partition", str_partition},
    {"removeprefix", str_remove_affix},
    {"removesuffix", str_remove_affix},
    {"replace", str_replace},
    {"rfind", str_find},
    {"rindex", str_find},
    {"rjust", str_pad},
    {"rpartition", str_partition},
    {"rsplit", str_rsplit},
    {"rstrip", str_rstrip},
    {"split", str_split},
    {"splitlines", str_splitlines},
    {"startswith", str_affix},
    {"strip", str_strip},
    {"swapcase", str_swapcase},
    {"title", str_title},
    {"upper", str_upper},
    {"zfill", str_pad},
    {NULL, NULL},
};
static const method_entry dict_methods[] = {
    {"copy", dict_copy}, {"get", dict_get},     {"items", dict_view},
    {"keys", dict_view}, {"values", dict_view}, {NULL, NULL},
};
static const method_entry list_methods[] = {
    {"copy", list_copy}, {"count", list_find}, {"index", list_find}, {NULL, NULL}};

static const method_entry *find_method(const method_entry *t, const char *name)
{
    for (; t->name; t++)
        if (strcmp(t->name, name) == 0) return t;
    return NULL;
}

static ts_jinja_value str_method(ts_jinja_rt *rt, ts_jinja_value s, const char *m,
                                 const ts_jinja_args *a)
{
    const method_entry *e = find_method(str_methods, m);
    if (!e) ts_jinja_throw(rt, TS_ERR_UNSUPPORTED, "str.%s() is not supported", m);
    return e->fn(rt, s, m, a);
}

static ts_jinja_value call_method(ts_jinja_rt *rt, ts_jinja_value self, const char *m,
                                  const ts_jinja_args *a)
{
    if (self.kind == TS_JV_STRING) return str_method(rt, self, m, a);
    if (self.kind == TS_JV_DICT && (self.flags & TS_JV_LOOP)) {
        if (a->n_pos == 0)
            ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "no items for cycling given");
        ts_jinja_value *i0 = ts_jinja_dict_get_str(self, "index0");
        return a->pos[(size_t)i0->u.i % a->n_pos];
    }
    const method_entry *e = self.kind == TS_JV_DICT   ? find_method(dict_methods, m)
                            : self.kind == TS_JV_LIST ? find_method(list_methods, m)
                                                      : NULL;
    if (e) return e->fn(rt, self, m, a);
    ts_jinja_throw(rt, TS_ERR_UNSUPPORTED, "method %s() is not supported on %s", m,
                   ts_jinja_kind_name(self));
}

/* --------------------------------------------------------------------------- attributes */

static ts_jinja_value bound(ts_jinja_rt *rt, ts_jinja_value self, const char *name)
{
    ts_jinja_value f = ts_jinja_callable_new(rt, TS_JC_METHOD, name);
    f.u.fn->self = self;
    return f;
}

static _Noreturn void undefined_error(ts_jinja_rt *rt, ts_jinja_value u)
{
    ts_jinja_throw_undefined(rt, u);
}

ts_jinja_value ts_jinja_getattr(ts_jinja_rt *rt, ts_jinja_value obj, const char *name)
{
    if (obj.kind == TS_JV_UNDEFINED) undefined_error(rt, obj);
    /* The sandbox hides private attributes. */
    if (name[0] == '_') return ts_jinja_undefined(name);
    switch ((ts_jinja_kind)obj.kind) {
    case TS_JV_DICT:
        if (obj.flags & TS_JV_LOOP && strcmp(name, "cycle") == 0) return bound(rt, obj, name);
        /* Python getattr first: d.items is the method even when the dict has an "items" key. */
        if (!(obj.flags & (TS_JV_NAMESPACE | TS_JV_LOOP)) && find_method(dict_methods, name))
            return bound(rt, obj, name);
        {
            ts_jinja_value *v = ts_jinja_dict_get_str(obj, name);
            if (v) return *v;
            break;
        }
    case TS_JV_STRING:
        if (find_method(str_methods, name)) return bound(rt, obj, name);
        break;
    case TS_JV_LIST:
        if (find_method(list_methods, name)) return bound(rt, obj, name);
        break;
    default:
        break;
    }
    return ts_jinja_undefined_member(rt, obj, ts_jinja_string_ref(name, strlen(name)));
}

ts_jinja_value ts_jinja_getitem(ts_jinja_rt *rt, ts_jinja_value obj, ts_jinja_value key)
{
    if (obj.kind == TS_JV_UNDEFINED) undefined_error(rt, obj);
    if (obj.kind == TS_JV_DICT) {
        ts_jinja_value *v = ts_jinja_dict_get(obj, key);
        if (v) return *v;
    } else if (((obj.kind == TS_JV_LIST && !(obj.flags & (TS_JV_ITERATOR | TS_JV_VIEW))) ||
                obj.kind == TS_JV_STRING) &&
               (key.kind == TS_JV_INT || key.kind == TS_JV_BOOL)) {
        int64_t i = key.kind == TS_JV_BOOL ? key.u.b : key.u.i;
        size_t n = obj.kind == TS_JV_LIST ? obj.u.list->n
                                          : ts_jinja_utf8_length(obj.u.str.s, obj.u.str.len);
        if (i < 0) i += (int64_t)n;
        if (i < 0 || (uint64_t)i >= n) return ts_jinja_undefined_member(rt, obj, key);
        if (obj.kind == TS_JV_LIST) return obj.u.list->items[i];
        size_t at = ts_jinja_utf8_offset(obj.u.str.s, obj.u.str.len, (size_t)i);
        size_t end = at + 1;
        while (end < obj.u.str.len && ((unsigned char)obj.u.str.s[end] & 0xC0) == 0x80)
            end++;
        return ts_jinja_string_ref(obj.u.str.s + at, end - at);
    }
    if (key.kind == TS_JV_STRING) {
        const char *name = ts_jinja_string(rt, key.u.str.s, key.u.str.len).u.str.s;
        return ts_jinja_getattr(rt, obj, name);
    }
    return ts_jinja_undefined_member(rt, obj, key);
}

static int64_t slice_index(ts_jinja_rt *rt, ts_jinja_value v, int64_t n, int64_t def, bool neg_step)
{
    if (v.kind == TS_JV_NONE || v.kind == TS_JV_UNDEFINED) return def;
    int64_t i = want_int(rt, v, "slice index");
    if (i < 0) {
        i += n;
        if (i < 0) i = neg_step ? -1 : 0;
    } else if (i >= n) {
        i = neg_step ? n - 1 : n;
    }
    return i;
}

ts_jinja_value ts_jinja_slice(ts_jinja_rt *rt, ts_jinja_value obj, ts_jinja_value start,
                              ts_jinja_value stop, ts_jinja_value step)
{
    if (obj.kind == TS_JV_UNDEFINED) undefined_error(rt, obj);
    bool is_str = obj.kind == TS_JV_STRING;
    /* jinja2 compiles slices to plain Python subscripts, so these raise instead of yielding
     * undefined as item lookups do. */
    if (!is_str && (obj.kind != TS_JV_LIST || (obj.flags & (TS_JV_ITERATOR | TS_JV_VIEW))))
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "'%s' object is not subscriptable",
                       ts_jinja_kind_name(obj));
    ts_jinja_value items = is_str ? ts_jinja_iterate(rt, obj) : obj;
    int64_t n = (int64_t)items.u.list->n;
    int64_t st = step.kind == TS_JV_NONE || step.kind == TS_JV_UNDEFINED
                     ? 1
                     : want_int(rt, step, "slice step");
    if (st == 0) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "slice step cannot be zero");
    int64_t a = slice_index(rt, start, n, st > 0 ? 0 : n - 1, st < 0);
    int64_t b = slice_index(rt, stop, n, st > 0 ? n : -1, st < 0);
    ts_jinja_value out = ts_jinja_list_new(rt, 0);
    out.flags = obj.flags & TS_JV_TUPLE;
    ts_jinja_buf sb = {0};
    for (int64_t i = a; st > 0 ? i < b : i > b; i += st) {
        if (is_str)
            ts_jinja_str(rt, &sb, items.u.list->items[i]);
        else
            ts_jinja_list_push(rt, out, items.u.list->items[i]);
    }
    return is_str ? ts_jinja_buf_value(rt, &sb) : out;
}

bool ts_jinja_contains(ts_jinja_rt *rt, ts_jinja_value h, ts_jinja_value n)
{
    switch ((ts_jinja_kind)h.kind) {
    case TS_JV_STRING:
        if (n.kind != TS_JV_STRING)
            ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT,
                           "'in <string>' requires string as left operand, not %s",
                           ts_jinja_kind_name(n));
        return find_bytes(h.u.str.s, h.u.str.len, n.u.str.s, n.u.str.len) != NULL;
    case TS_JV_LIST:
        ts_jinja_iterate(rt, h); /* a failing generator raises here */
        for (size_t i = 0; i < h.u.list->n; i++)
            if (ts_jinja_equal(h.u.list->items[i], n)) return true;
        return false;
    case TS_JV_DICT:
        if (n.kind == TS_JV_DICT || (n.kind == TS_JV_LIST && !(n.flags & TS_JV_TUPLE)))
            ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "unhashable type: '%s'",
                           ts_jinja_kind_name(n));
        return ts_jinja_dict_get(h, n) != NULL;
    case TS_JV_UNDEFINED:
        return false;
    default:
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "argument of type '%s' is not iterable",
                       ts_jinja_kind_name(h));
    }
}

/* ------------------------------------------------------------------------------ globals */

/* One function per global; name is the name called, which dict/namespace read and quote. */
typedef ts_jinja_value (*global_fn)(ts_jinja_rt *rt, const char *name, const ts_jinja_args *a);

static ts_jinja_value global_range(ts_jinja_rt *rt, const char *name, const ts_jinja_args *a)
{
    if (a->n_pos < 1 || a->n_pos > 3)
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "range expected 1 to 3 arguments");
    int64_t start = 0, stop, step = 1;
    if (a->n_pos == 1)
        stop = want_int(rt, a->pos[0], "range argument");
    else {
        start = want_int(rt, a->pos[0], "range argument");
        stop = want_int(rt, a->pos[1], "range argument");
        if (a->n_pos == 3) step = want_int(rt, a->pos[2], "range argument");
    }
    if (step == 0)
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "range() arg 3 must not be zero");
    double count = step > 0 ? ceil(((double)stop - (double)start) / (double)step)
                            : ceil(((double)start - (double)stop) / (double)-step);
    if (count > MAX_RANGE)
        ts_jinja_throw(rt, TS_ERR_RANGE, "range too big (more than %d items)", MAX_RANGE);
    ts_jinja_value out = ts_jinja_list_new(rt, count > 0 ? (size_t)count : 0);
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step)
        ts_jinja_list_push(rt, out, ts_jinja_int(i));
    return out;
}

/* dict, namespace */
static ts_jinja_value global_dict(ts_jinja_rt *rt, const char *name, const ts_jinja_args *a)
{
    ts_jinja_value d = ts_jinja_dict_new(rt, a->n_kw);
    if (name[0] == 'n') d.flags |= TS_JV_NAMESPACE;
    for (size_t i = 0; i < a->n_pos; i++) {
        if (a->pos[i].kind != TS_JV_DICT)
            ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT,
                           "%s() positional argument must be a mapping", name);
        for (size_t k = 0; k < a->pos[i].u.dict->n; k++)
            ts_jinja_dict_set(rt, d, a->pos[i].u.dict->keys[k], a->pos[i].u.dict->values[k]);
    }
    for (size_t i = 0; i < a->n_kw; i++)
        ts_jinja_dict_set(rt, d, ts_jinja_cstring(rt, a->kw_names[i]), a->kw[i]);
    return d;
}

static ts_jinja_value global_raise_exception(ts_jinja_rt *rt, const char *name,
                                             const ts_jinja_args *a)
{
    ts_jinja_value msg = str_of(rt, arg_or(a, 0, "message", ts_jinja_string_ref("", 0)));
    ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "%.*s", (int)msg.u.str.len, msg.u.str.s);
}

static ts_jinja_value global_strftime_now(ts_jinja_rt *rt, const char *name,
                                          const ts_jinja_args *a)
{
    ts_jinja_value fmt =
        want_str(rt, arg_or(a, 0, "format", ts_jinja_string_ref("", 0)), "strftime_now format");
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char f[256], out[512];
    snprintf(f, sizeof(f), "%.*s", (int)fmt.u.str.len, fmt.u.str.s);
    size_t n = strftime(out, sizeof(out), f, &tm);
    return ts_jinja_string(rt, out, n);
}

/* Every global a template can name, in strcmp order. */
typedef struct global_entry {
    const char *name;
    global_fn fn;
} global_entry;

static const global_entry globals[] = {
    {"dict", global_dict},
    {"namespace", global_dict},
    {"raise_exception", global_raise_exception},
    {"range", global_range},
    {"strftime_now", global_strftime_now},
};

static const global_entry *find_global(const char *name)
{
    for (size_t i = 0; i < sizeof(globals) / sizeof(globals[0]); i++)
        if (strcmp(globals[i].name, name) == 0) return &globals[i];
    return NULL;
}

bool ts_jinja_is_global(const char *name)
{
    return find_global(name) != NULL;
}

static ts_jinja_value call_global(ts_jinja_rt *rt, const char *name, const ts_jinja_args *a)
{
    const global_entry *g = find_global(name);
    if (!g) ts_jinja_throw(rt, TS_ERR_INTERNAL, "unknown global %s", name);
    return g->fn(rt, name, a);
}

ts_jinja_value ts_jinja_call_builtin(ts_jinja_rt *rt, ts_jinja_value fn, const ts_jinja_args *args)
{
    if (fn.u.fn->kind == TS_JC_METHOD) return call_method(rt, fn.u.fn->self, fn.u.fn->name, args);
    return call_global(rt, fn.u.fn->name, args);
}

/* -------------------------------------------------------------------------------- tests */

/* One function per test; name is the name the template used, which the errors quote. */
typedef bool (*test_fn)(ts_jinja_rt *rt, const char *name, ts_jinja_value v,
                        const ts_jinja_args *a);

static const ts_jinja_value *need(ts_jinja_rt *rt, const ts_jinja_args *a, size_t i,
                                  const char *what)
{
    const ts_jinja_value *v = arg(a, i, NULL);
    if (!v) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "%s needs an argument", what);
    return v;
}

static bool mod_is_zero(ts_jinja_rt *rt, ts_jinja_value v, ts_jinja_value d)
{
    bool vi = v.kind == TS_JV_INT || v.kind == TS_JV_BOOL,
         di = d.kind == TS_JV_INT || d.kind == TS_JV_BOOL;
    if ((!vi && v.kind != TS_JV_FLOAT) || (!di && d.kind != TS_JV_FLOAT))
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT,
                       "unsupported operand type(s) for %%: '%s' and '%s'", ts_jinja_kind_name(v),
                       ts_jinja_kind_name(d));
    if (vi && di) {
        int64_t x = v.kind == TS_JV_BOOL ? v.u.b : v.u.i, y = d.kind == TS_JV_BOOL ? d.u.b : d.u.i;
        if (y == 0)
            ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "integer division or modulo by zero");
        return y == -1 || x % y == 0;
    }
    double x = v.kind == TS_JV_FLOAT ? v.u.f : (double)(v.kind == TS_JV_BOOL ? v.u.b : v.u.i);
    double y = d.kind == TS_JV_FLOAT ? d.u.f : (double)(d.kind == TS_JV_BOOL ? d.u.b : d.u.i);
    if (y == 0) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "float modulo");
    return fmod(x, y) == 0;
}

static bool test_defined(ts_jinja_rt *rt, const char *name, ts_jinja_value v,
                         const ts_jinja_args *a)
{
    return v.kind != TS_JV_UNDEFINED;
}

static bool test_undefined(ts_jinja_rt *rt, const char *name, ts_jinja_value v,
                           const ts_jinja_args *a)
{
    return v.kind == TS_JV_UNDEFINED;
}

static bool test_none(ts_jinja_rt *rt, const char *name, ts_jinja_value v, const ts_jinja_args *a)
{
    return v.kind == TS_JV_NONE;
}

static bool test_string(ts_jinja_rt *rt, const char *name, ts_jinja_value v,
                        const ts_jinja_args *a)
{
    return v.kind == TS_JV_STRING;
}

static bool test_number(ts_jinja_rt *rt, const char *name, ts_jinja_value v,
                        const ts_jinja_args *a)
{
    return v.kind == TS_JV_INT || v.kind == TS_JV_FLOAT || v.kind == TS_JV_BOOL;
}

static bool test_integer(ts_jinja_rt *rt, const char *name, ts_jinja_value v,
                         const ts_jinja_args *a)
{
    return v.kind == TS_JV_INT;
}

static bool test_float(ts_jinja_rt *rt, const char *name, ts_jinja_value v, const ts_jinja_args *a)
{
    return v.kind == TS_JV_FLOAT;
}

static bool test_mapping(ts_jinja_rt *rt, const char *name, ts_jinja_value v,
                         const ts_jinja_args *a)
{
    return v.kind == TS_JV_DICT && !(v.flags & (TS_JV_NAMESPACE | TS_JV_LOOP));
}

/* jinja2's Undefined is iterable (empty) and passes the sequence test too. */
static bool test_iterable(ts_jinja_rt *rt, const char *name, ts_jinja_value v,
                          const ts_jinja_args *a)
{
    return v.kind == TS_JV_LIST || v.kind == TS_JV_DICT || v.kind == TS_JV_STRING ||
           v.kind == TS_JV_UNDEFINED;
}

static bool test_sequence(ts_jinja_rt *rt, const char *name, ts_jinja_value v,
                          const ts_jinja_args *a)
{
    if (v.kind == TS_JV_LIST && (v.flags & (TS_JV_ITERATOR | TS_JV_VIEW))) return false;
    return v.kind == TS_JV_LIST || v.kind == TS_JV_DICT || v.kind == TS_JV_STRING ||
           v.kind == TS_JV_UNDEFINED;
}

static bool test_boolean(ts_jinja_rt *rt, const char *name, ts_jinja_value v,
                         const ts_jinja_args *a)
{
    return v.kind == TS_JV_BOOL;
}

static bool test_true(ts_jinja_rt *rt, const char *name, ts_jinja_value v, const ts_jinja_args *a)
{
    return v.kind == TS_JV_BOOL && v.u.b;
}

static bool test_false(ts_jinja_rt *rt, const char *name, ts_jinja_value v, const ts_jinja_args *a)
{
    return v.kind == TS_JV_BOOL && !v.u.b;
}

static bool test_callable(ts_jinja_rt *rt, const char *name, ts_jinja_value v,
                          const ts_jinja_args *a)
{
    return v.kind == TS_JV_CALLABLE;
}

static bool test_escaped(ts_jinja_rt *rt, const char *name, ts_jinja_value v,
                         const ts_jinja_args *a)
{
    return false;
}

/* jinja2 tests `value % n == 0` with Python's %, so floats pass through: 2.5 is not even. */
static bool test_even(ts_jinja_rt *rt, const char *name, ts_jinja_value v, const ts_jinja_args *a)
{
    return mod_is_zero(rt, v, ts_jinja_int(2));
}

static bool test_odd(ts_jinja_rt *rt, const char *name, ts_jinja_value v, const ts_jinja_args *a)
{
    return !mod_is_zero(rt, v, ts_jinja_int(2));
}

static bool test_divisibleby(ts_jinja_rt *rt, const char *name, ts_jinja_value v,
                             const ts_jinja_args *a)
{
    return mod_is_zero(rt, v, *need(rt, a, 0, "divisibleby"));
}

/* jinja2: str(value).islower() */
static bool test_lower(ts_jinja_rt *rt, const char *name, ts_jinja_value v, const ts_jinja_args *a)
{
    return str_method(rt, str_of(rt, v), "islower", a).u.b;
}

static bool test_upper(ts_jinja_rt *rt, const char *name, ts_jinja_value v, const ts_jinja_args *a)
{
    return str_method(rt, str_of(rt, v), "isupper", a).u.b;
}

static bool test_in(ts_jinja_rt *rt, const char *name, ts_jinja_value v, const ts_jinja_args *a)
{
    return ts_jinja_contains(rt, *need(rt, a, 0, "in"), v);
}

static bool test_sameas(ts_jinja_rt *rt, const char *name, ts_jinja_value v,
                        const ts_jinja_args *a)
{
    const ts_jinja_value *o = need(rt, a, 0, "sameas");
    ts_jinja_kind k = (ts_jinja_kind)v.kind;
    if (k != o->kind) return false;
    if (k == TS_JV_NONE || k == TS_JV_UNDEFINED) return true;
    if (k == TS_JV_BOOL) return v.u.b == o->u.b;
    if (k == TS_JV_LIST) return v.u.list == o->u.list;
    if (k == TS_JV_DICT) return v.u.dict == o->u.dict;
    return ts_jinja_equal(v, *o);
}

/* The comparisons: eq, ne, lt, le, gt, ge and their aliases; a missing operand is reported
 * under the name the template used. */
static bool test_eq(ts_jinja_rt *rt, const char *name, ts_jinja_value v, const ts_jinja_args *a)
{
    return ts_jinja_equal(v, *need(rt, a, 0, name));
}

static bool test_ne(ts_jinja_rt *rt, const char *name, ts_jinja_value v, const ts_jinja_args *a)
{
    return !ts_jinja_equal(v, *need(rt, a, 0, name));
}

static bool test_lt(ts_jinja_rt *rt, const char *name, ts_jinja_value v, const ts_jinja_args *a)
{
    return ts_jinja_compare(rt, v, *need(rt, a, 0, name)) < 0;
}

static bool test_le(ts_jinja_rt *rt, const char *name, ts_jinja_value v, const ts_jinja_args *a)
{
    return ts_jinja_compare(rt, v, *need(rt, a, 0, name)) <= 0;
}

static bool test_gt(ts_jinja_rt *rt, const char *name, ts_jinja_value v, const ts_jinja_args *a)
{
    return ts_jinja_compare(rt, v, *need(rt, a, 0, name)) > 0;
}

static bool test_ge(ts_jinja_rt *rt, const char *name, ts_jinja_value v, const ts_jinja_args *a)
{
    return ts_jinja_compare(rt, v, *need(rt, a, 0, name)) >= 0;
}

/* Every test the parser accepts, in strcmp order; aliases share a function. */
typedef struct test_entry {
    const char *name;
    test_fn fn;
} test_entry;

static const test_entry tests[] = {
    {"!=", test_ne},
    {"<", test_lt},
    {"<=", test_le},
    {"==", test_eq},
    {">", test_gt},
    {">=", test_ge},
    {"boolean", test_boolean},
    {"callable", test_callable},
    {"defined", test_defined},
    {"divisibleby", test_divisibleby},
    {"eq", test_eq},
    {"equalto", test_eq},
    {"escaped", test_escaped},
    {"even", test_even},
    {"false", test_false},
    {"float", test_float},
    {"ge", test_ge},
    {"greaterthan", test_gt},
    {"gt", test_gt},
    {"in", test_in},
    {"integer", test_integer},
    {"iterable", test_iterable},
    {"le", test_le},
    {"lessthan", test_lt},
    {"lower", test_lower},
    {"lt", test_lt},
    {"mapping", test_mapping},
    {"ne", test_ne},
    {"none", test_none},
    {"number", test_number},
    {"odd", test_odd},
    {"sameas", test_sameas},
    {"sequence", test_sequence},
    {"string", test_string},
    {"true", test_true},
    {"undefined", test_undefined},
    {"upper", test_upper},
};

static const test_entry *find_test(const char *name)
{
    for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
        if (strcmp(tests[i].name, name) == 0) return &tests[i];
    return NULL;
}

bool ts_jinja_is_test(const char *name)
{
    return find_test(name) != NULL;
}

bool ts_jinja_test(ts_jinja_rt *rt, const char *t, ts_jinja_value v, const ts_jinja_args *a)
{
    const test_entry *te = find_test(t);
    /* The parser and select() accept only the names above. */
    if (!te) ts_jinja_throw(rt, TS_ERR_INTERNAL, "test '%s' has no implementation", t);
    return te->fn(rt, t, v, a);
}

/* ------------------------------------------------------------------------------ filters */

/* jinja2's attribute getter: "a.b.0" walks items and attributes; digits index. */
static ts_jinja_value get_path(ts_jinja_rt *rt, ts_jinja_value v, ts_jinja_value path)
{
    if (path.kind == TS_JV_INT) return ts_jinja_getitem(rt, v, path);
    want_str(rt, path, "attribute");
    const char *p = path.u.str.s, *end = p + path.u.str.len;
    while (p <= end) {
        const char *dot = memchr(p, '.', (size_t)(end - p));
        if (!dot) dot = end;
        size_t n = (size_t)(dot - p);
        bool digits = n > 0;
        for (size_t i = 0; i < n; i++)
            digits = digits && p[i] >= '0' && p[i] <= '9';
        ts_jinja_value key =
            digits ? ts_jinja_int(strtoll(p, NULL, 10)) : ts_jinja_string_ref(p, n);
        v = ts_jinja_getitem(rt, v, key);
        p = dot + 1;
    }
    return v;
}

static ts_jinja_value fold_case(ts_jinja_rt *rt, ts_jinja_value v, bool case_sensitive)
{
    return !case_sensitive && v.kind == TS_JV_STRING ? change_case(rt, v, CASE_LOWER) : v;
}

/* Stable merge sort of items by keys. */
static void sort_by(ts_jinja_rt *rt, ts_jinja_value *items, ts_jinja_value *keys, size_t n,
                    bool reverse)
{
    if (n < 2) return;
    size_t h = n / 2;
    sort_by(rt, items, keys, h, reverse);
    sort_by(rt, items + h, keys + h, n - h, reverse);
    ts_jinja_value *ti = ts_jinja_alloc(rt, n * sizeof(*ti)),
                   *tk = ts_jinja_alloc(rt, n * sizeof(*tk));
    size_t i = 0, j = h, o = 0;
    while (i < h && j < n) {
        int c = ts_jinja_compare(rt, keys[j], keys[i]);
        bool take_right = reverse ? c > 0 : c < 0;
        size_t s = take_right ? j++ : i++;
        ti[o] = items[s];
        tk[o++] = keys[s];
    }
    while (i < h) {
        ti[o] = items[i];
        tk[o++] = keys[i++];
    }
    while (j < n) {
        ti[o] = items[j];
        tk[o++] = keys[j++];
    }
    memcpy(items, ti, n * sizeof(*ti));
    memcpy(keys, tk, n * sizeof(*tk));
}

static ts_jinja_value copy_list(ts_jinja_rt *rt, ts_jinja_value l)
{
    ts_jinja_value out = ts_jinja_list_new(rt, l.u.list->n);
    for (size_t i = 0; i < l.u.list->n; i++)
        ts_jinja_list_push(rt, out, l.u.list->items[i]);
    return out;
}

/* select/reject/selectattr/rejectattr: args after `skip` are the test name and its args. */
static ts_jinja_value select_items(ts_jinja_rt *rt, ts_jinja_value seq, const ts_jinja_args *a,
                                   bool by_attr, bool keep)
{
    ts_jinja_value l = ts_jinja_iterate(rt, seq), out = ts_jinja_list_new(rt, 0);
    size_t skip = by_attr ? 1 : 0;
    if (by_attr && a->n_pos < 1)
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "selectattr/rejectattr need an attribute");
    const char *test = NULL;
    char name[64];
    if (a->n_pos > skip) {
        ts_jinja_value t = want_str(rt, a->pos[skip], "test name");
        snprintf(name, sizeof(name), "%.*s", (int)t.u.str.len, t.u.str.s);
        if (!ts_jinja_is_test(name))
            ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "no test named '%s'", name);
        test = name;
    }
    /* The test's own arguments follow its name; a->pos is NULL when there are none. */
    ts_jinja_args targs = {.pos = a->n_pos > skip + 1 ? a->pos + skip + 1 : NULL,
                           .n_pos = a->n_pos > skip + 1 ? a->n_pos - skip - 1 : 0};
    for (size_t i = 0; i < l.u.list->n; i++) {
        ts_jinja_value item = l.u.list->items[i];
        ts_jinja_value probe = by_attr ? get_path(rt, item, a->pos[0]) : item;
        bool ok = test ? ts_jinja_test(rt, test, probe, &targs) : ts_jinja_truthy(probe);
        if (ok == keep) ts_jinja_list_push(rt, out, item);
    }
    return out;
}

static ts_jinja_value html_escape(ts_jinja_rt *rt, ts_jinja_value v)
{
    ts_jinja_value s = str_of(rt, v);
    ts_jinja_buf b = {0};
    for (size_t i = 0; i < s.u.str.len; i++) {
        char c = s.u.str.s[i];
        switch (c) {
        case '&':
            ts_jinja_buf_add(rt, &b, "&amp;", 5);
            break;
        case '<':
            ts_jinja_buf_add(rt, &b, "&lt;", 4);
            break;
        case '>':
            ts_jinja_buf_add(rt, &b, "&gt;", 4);
            break;
        case '"':
            ts_jinja_buf_add(rt, &b, "&#34;", 5);
            break;
        case '\'':
            ts_jinja_buf_add(rt, &b, "&#39;", 5);
            break;
        default:
            ts_jinja_buf_addc(rt, &b, c);
        }
    }
    return ts_jinja_buf_value(rt, &b);
}

static ts_jinja_value to_int(ts_jinja_rt *rt, ts_jinja_value v, ts_jinja_value def)
{
    switch (v.kind) {
    case TS_JV_INT:
        return v;
    case TS_JV_BOOL:
        return ts_jinja_int(v.u.b);
    case TS_JV_FLOAT:
        if (!isfinite(v.u.f) || fabs(v.u.f) >= 9.2e18) return def;
        return ts_jinja_int((int64_t)v.u.f);
    case TS_JV_STRING: {
        ts_jinja_value s = strip(v, NULL, true, true);
        char buf[128];
        size_t n = 0;
        for (size_t i = 0; i < s.u.str.len && n + 1 < sizeof(buf); i++)
            if (s.u.str.s[i] != '_') buf[n++] = s.u.str.s[i];
        buf[n] = '\0';
        if (n == 0 || s.u.str.len >= sizeof(buf)) return def;
        char *end;
        long long x = strtoll(buf, &end, 10);
        if (*end == '\0') return ts_jinja_int(x);
        double d = strtod(buf, &end);
        if (*end == '\0' && isfinite(d)) return ts_jinja_int((int64_t)d);
        return def;
    }
    default:
        return def;
    }
}

static ts_jinja_value to_float(ts_jinja_rt *rt, ts_jinja_value v, ts_jinja_value def)
{
    switch (v.kind) {
    case TS_JV_FLOAT:
        return v;
    case TS_JV_INT:
        return ts_jinja_float((double)v.u.i);
    case TS_JV_BOOL:
        return ts_jinja_float(v.u.b);
    case TS_JV_STRING: {
        ts_jinja_value s = strip(v, NULL, true, true);
        char buf[128];
        if (s.u.str.len == 0 || s.u.str.len >= sizeof(buf)) return def;
        memcpy(buf, s.u.str.s, s.u.str.len);
        buf[s.u.str.len] = '\0';
        char *end;
        double d = strtod(buf, &end);
        return *end == '\0' ? ts_jinja_float(d) : def;
    }
    default:
        return def;
    }
}

static ts_jinja_value indent(ts_jinja_rt *rt, ts_jinja_value s, const ts_jinja_args *a)
{
    ts_jinja_value w = arg_or(a, 0, "width", ts_jinja_int(4));
    ts_jinja_buf ind = {0};
    if (w.kind == TS_JV_STRING)
        ts_jinja_buf_add(rt, &ind, w.u.str.s, w.u.str.len);
    else
        for (int64_t i = want_int(rt, w, "indent width"); i > 0; i--)
            ts_jinja_buf_addc(rt, &ind, ' ');
    bool first = arg_bool(a, 1, "first", false), blank = arg_bool(a, 2, "blank", false);
    ts_jinja_buf t = {0};
    ts_jinja_buf_add(rt, &t, s.u.str.s, s.u.str.len);
    ts_jinja_buf_addc(rt, &t,
                      '\n'); /* jinja2 appends a newline so splitlines keeps a last empty line */
    ts_jinja_value lines = splitlines(rt, ts_jinja_buf_value(rt, &t), false);
    ts_jinja_buf b = {0};
    if (first) ts_jinja_buf_add(rt, &b, ind.data ? ind.data : "", ind.len);
    for (size_t i = 0; i < lines.u.list->n; i++) {
        ts_jinja_value line = lines.u.list->items[i];
        if (i) {
            ts_jinja_buf_addc(rt, &b, '\n');
            if (blank || line.u.str.len)
                ts_jinja_buf_add(rt, &b, ind.data ? ind.data : "", ind.len);
        }
        ts_jinja_buf_add(rt, &b, line.u.str.s, line.u.str.len);
    }
    return ts_jinja_buf_value(rt, &b);
}

static ts_jinja_value min_max(ts_jinja_rt *rt, ts_jinja_value seq, const ts_jinja_args *a,
                              bool want_max)
{
    ts_jinja_value l = ts_jinja_iterate(rt, seq);
    bool cs = arg_bool(a, 0, "case_sensitive", false);
    const ts_jinja_value *attr = arg(a, 1, "attribute");
    if (l.u.list->n == 0) return ts_jinja_undefined(NULL);
    size_t best = 0;
    ts_jinja_value best_key = ts_jinja_undefined(NULL);
    for (size_t i = 0; i < l.u.list->n; i++) {
        ts_jinja_value key = l.u.list->items[i];
        if (attr && attr->kind != TS_JV_NONE) key = get_path(rt, key, *attr);
        key = fold_case(rt, key, cs);
        if (i == 0)
            best_key = key;
        else {
            int c = ts_jinja_compare(rt, key, best_key);
            if (want_max ? c > 0 : c < 0) {
                best = i;
                best_key = key;
            }
        }
    }
    return l.u.list->items[best];
}

static ts_jinja_value arith_add(ts_jinja_rt *rt, ts_jinja_value a, ts_jinja_value b)
{
    if (a.kind == TS_JV_FLOAT || b.kind == TS_JV_FLOAT) {
        double x = a.kind == TS_JV_FLOAT ? a.u.f : (double)want_int(rt, a, "sum item");
        double y = b.kind == TS_JV_FLOAT ? b.u.f : (double)want_int(rt, b, "sum item");
        return ts_jinja_float(x + y);
    }
    int64_t r;
    if (__builtin_add_overflow(want_int(rt, a, "sum item"), want_int(rt, b, "sum item"), &r))
        ts_jinja_throw(rt, TS_ERR_RANGE, "integer overflow");
    return ts_jinja_int(r);
}

/* One function per filter, v the piped value; the table after them maps names to them. */
typedef ts_jinja_value (*filter_fn)(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a);

/* FILTER_GENERATOR: a generator function in jinja2, run through lazy_filter. FILTER_SKIPS_FALSE:
 * its body starts with `if value:` (map, select and the like), so a false input that is not
 * iterable gives an empty generator without running it. */
enum { FILTER_GENERATOR = 1, FILTER_SKIPS_FALSE = 2 };

typedef struct filter_entry {
    const char *name;
    filter_fn fn;
    unsigned flags;
} filter_entry;

static const filter_entry *find_filter(const char *name);

static ts_jinja_value filter_default(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    bool boolean = arg_bool(a, 1, "boolean", false);
    bool use_default = v.kind == TS_JV_UNDEFINED || (boolean && !ts_jinja_truthy(v));
    return use_default ? arg_or(a, 0, "default_value", ts_jinja_string_ref("", 0)) : v;
}

static ts_jinja_value filter_length(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    switch (v.kind) {
    case TS_JV_STRING:
        return ts_jinja_int((int64_t)ts_jinja_utf8_length(v.u.str.s, v.u.str.len));
    case TS_JV_LIST:
        return ts_jinja_int((int64_t)v.u.list->n);
    case TS_JV_DICT:
        if (v.flags & (TS_JV_NAMESPACE | TS_JV_LOOP)) break;
        return ts_jinja_int((int64_t)v.u.dict->n);
    case TS_JV_UNDEFINED:
        return ts_jinja_int(0);
    default:
        break;
    }
    ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "object of type '%s' has no len()",
                   ts_jinja_kind_name(v));
}

/* string, and safe: Markup(value) is a string here. */
static ts_jinja_value filter_string(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    return str_of(rt, v);
}

static ts_jinja_value filter_escape(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    return html_escape(rt, v);
}

static ts_jinja_value filter_tojson(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    ts_jinja_json_style st = {.indent = -1};
    st.ensure_ascii = arg_bool(a, 0, "ensure_ascii", false);
    ts_jinja_value ind = arg_or(a, 1, "indent", ts_jinja_none());
    ts_jinja_buf ib = {0};
    if (ind.kind == TS_JV_STRING) {
        ts_jinja_buf_add(rt, &ib, ind.u.str.s, ind.u.str.len);
        st.indent_str = ib.data ? ib.data : "";
    } else if (ind.kind != TS_JV_NONE) {
        st.indent = (int)want_int(rt, ind, "indent");
        if (st.indent < 0) st.indent = 0;
        if (st.indent > 64) ts_jinja_throw(rt, TS_ERR_RANGE, "tojson indent too large");
    }
    ts_jinja_value seps = arg_or(a, 2, "separators", ts_jinja_none());
    if (seps.kind == TS_JV_LIST && seps.u.list->n == 2) {
        st.item_sep = ts_jinja_string(rt, want_str(rt, seps.u.list->items[0], "separator").u.str.s,
                                      seps.u.list->items[0].u.str.len)
                          .u.str.s;
        st.key_sep = ts_jinja_string(rt, want_str(rt, seps.u.list->items[1], "separator").u.str.s,
                                     seps.u.list->items[1].u.str.len)
                         .u.str.s;
    } else if (seps.kind != TS_JV_NONE) {
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "tojson separators must be a pair of strings");
    }
    st.sort_keys = arg_bool(a, 3, "sort_keys", false);
    ts_jinja_buf b = {0};
    ts_jinja_to_json(rt, &b, v, &st);
    return ts_jinja_buf_value(rt, &b);
}

static ts_jinja_value filter_trim(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    ts_jinja_value s = str_of(rt, v);
    return strip(s, chars_arg(rt, a), true, true);
}

static ts_jinja_value filter_upper(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    return change_case(rt, str_of(rt, v), CASE_UPPER);
}

static ts_jinja_value filter_lower(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    return change_case(rt, str_of(rt, v), CASE_LOWER);
}

static ts_jinja_value filter_capitalize(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    return change_case(rt, str_of(rt, v), CASE_CAPITALIZE);
}

static ts_jinja_value filter_title(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    return jinja_title(rt, str_of(rt, v));
}

static ts_jinja_value filter_replace(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    ts_jinja_value s = str_of(rt, v);
    const ts_jinja_value *o = arg(a, 0, "old"), *n = arg(a, 1, "new");
    if (!o || !n) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "replace needs old and new");
    ts_jinja_value cnt = arg_or(a, 2, "count", ts_jinja_none());
    return replace(rt, s, str_of(rt, *o), str_of(rt, *n),
                   cnt.kind == TS_JV_NONE ? -1 : want_int(rt, cnt, "count"));
}

static ts_jinja_value filter_join(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    ts_jinja_value sep = str_of(rt, arg_or(a, 0, "d", ts_jinja_string_ref("", 0)));
    const ts_jinja_value *attr = arg(a, 1, "attribute");
    ts_jinja_value l = ts_jinja_iterate(rt, v);
    if (attr && attr->kind != TS_JV_NONE) {
        ts_jinja_value m = ts_jinja_list_new(rt, l.u.list->n);
        for (size_t i = 0; i < l.u.list->n; i++)
            ts_jinja_list_push(rt, m, get_path(rt, l.u.list->items[i], *attr));
        l = m;
    }
    return join(rt, sep, l);
}

static ts_jinja_value filter_first(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    ts_jinja_value l = ts_jinja_iterate(rt, v);
    return l.u.list->n ? l.u.list->items[0] : ts_jinja_undefined(NULL);
}

static ts_jinja_value filter_last(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    ts_jinja_value l = ts_jinja_iterate(rt, v);
    return l.u.list->n ? l.u.list->items[l.u.list->n - 1] : ts_jinja_undefined(NULL);
}

static ts_jinja_value filter_list(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    return copy_list(rt, ts_jinja_iterate(rt, v));
}

static ts_jinja_value filter_items(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    if (v.kind == TS_JV_UNDEFINED) return ts_jinja_list_new(rt, 0);
    if (v.kind != TS_JV_DICT)
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "can only get item pairs from a mapping");
    return call_method(rt, v, "items", a);
}

/* int()/float() of an undefined raise jinja2's UndefinedError, which the filters let through;
 * checked before the arguments are looked at. */
static ts_jinja_value filter_int(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    if (v.kind == TS_JV_UNDEFINED) ts_jinja_throw_undefined(rt, v);
    return to_int(rt, v, arg_or(a, 0, "default", ts_jinja_int(0)));
}

static ts_jinja_value filter_float(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    if (v.kind == TS_JV_UNDEFINED) ts_jinja_throw_undefined(rt, v);
    return to_float(rt, v, arg_or(a, 0, "default", ts_jinja_float(0.0)));
}

static ts_jinja_value filter_abs(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    if (v.kind == TS_JV_FLOAT) return ts_jinja_float(fabs(v.u.f));
    int64_t x = want_int(rt, v, "abs operand");
    if (x == INT64_MIN) ts_jinja_throw(rt, TS_ERR_RANGE, "integer overflow");
    return ts_jinja_int(x < 0 ? -x : x);
}

static ts_jinja_value filter_round(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    int64_t prec = want_int(rt, arg_or(a, 0, "precision", ts_jinja_int(0)), "precision");
    ts_jinja_value method = arg_or(a, 1, "method", ts_jinja_string_ref("common", 6));
    want_str(rt, method, "round method");
    double x = v.kind == TS_JV_FLOAT ? v.u.f : (double)want_int(rt, v, "round operand");
    double scale = pow(10.0, (double)prec), r;
    if (method.u.str.len == 4 && !memcmp(method.u.str.s, "ceil", 4))
        r = ceil(x * scale) / scale;
    else if (method.u.str.len == 5 && !memcmp(method.u.str.s, "floor", 5))
        r = floor(x * scale) / scale;
    else if (method.u.str.len == 6 && !memcmp(method.u.str.s, "common", 6)) {
        if (v.kind != TS_JV_FLOAT) /* Python: round(int, n) is an int; round(True) is 1 */
            return ts_jinja_int(v.kind == TS_JV_BOOL ? v.u.b : v.u.i);
        r = nearbyint(x * scale) / scale; /* round-half-even, like Python's round() */
    } else
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "method must be common, ceil or floor");
    return ts_jinja_float(r);
}

static ts_jinja_value filter_wordcount(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    ts_jinja_value s = str_of(rt, v);
    int64_t n = 0;
    bool in_word = false;
    size_t i = 0;
    while (i < s.u.str.len) {
        int32_t c = next_cp(s.u.str.s, s.u.str.len, &i);
        bool w = c == '_' || is_alpha(c) || is_numeric(c);
        if (w && !in_word) n++;
        in_word = w;
    }
    return ts_jinja_int(n);
}

static ts_jinja_value filter_reverse(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    if (v.kind == TS_JV_STRING) {
        ts_jinja_value l = ts_jinja_iterate(rt, v);
        ts_jinja_buf b = {0};
        for (size_t i = l.u.list->n; i-- > 0;)
            ts_jinja_str(rt, &b, l.u.list->items[i]);
        return ts_jinja_buf_value(rt, &b);
    }
    ts_jinja_value l = ts_jinja_iterate(rt, v), out = ts_jinja_list_new(rt, l.u.list->n);
    for (size_t i = l.u.list->n; i-- > 0;)
        ts_jinja_list_push(rt, out, l.u.list->items[i]);
    return out;
}

static ts_jinja_value filter_select(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    return select_items(rt, v, a, false, true);
}

static ts_jinja_value filter_reject(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    return select_items(rt, v, a, false, false);
}

static ts_jinja_value filter_selectattr(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    return select_items(rt, v, a, true, true);
}

static ts_jinja_value filter_rejectattr(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    return select_items(rt, v, a, true, false);
}

static ts_jinja_value filter_map(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    ts_jinja_value l = ts_jinja_iterate(rt, v), out = ts_jinja_list_new(rt, l.u.list->n);
    const ts_jinja_value *attr = arg(a, a->n_pos, "attribute");
    if (attr) {
        ts_jinja_value def = arg_or(a, a->n_pos, "default", ts_jinja_undefined(NULL));
        for (size_t i = 0; i < l.u.list->n; i++) {
            ts_jinja_value x = get_path(rt, l.u.list->items[i], *attr);
            ts_jinja_list_push(rt, out,
                               x.kind == TS_JV_UNDEFINED && def.kind != TS_JV_UNDEFINED ? def : x);
        }
        return out;
    }
    if (a->n_pos < 1)
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "map needs a filter name or attribute=");
    ts_jinja_value fname = want_str(rt, a->pos[0], "filter name");
    char name[64];
    snprintf(name, sizeof(name), "%.*s", (int)fname.u.str.len, fname.u.str.s);
    const filter_entry *fe = find_filter(name);
    if (!fe) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "no filter named '%s'", name);
    ts_jinja_args fa = {.pos = a->pos + 1,
                        .n_pos = a->n_pos - 1,
                        .kw_names = a->kw_names,
                        .kw = a->kw,
                        .n_kw = a->n_kw};
    /* The filter's own function, not ts_jinja_filter: each call is eager, as in jinja2. */
    for (size_t i = 0; i < l.u.list->n; i++)
        ts_jinja_list_push(rt, out, fe->fn(rt, l.u.list->items[i], &fa));
    return out;
}

static ts_jinja_value filter_unique(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    bool cs = arg_bool(a, 0, "case_sensitive", false);
    const ts_jinja_value *attr = arg(a, 1, "attribute");
    ts_jinja_value l = ts_jinja_iterate(rt, v), out = ts_jinja_list_new(rt, 0),
                   seen = ts_jinja_list_new(rt, 0);
    for (size_t i = 0; i < l.u.list->n; i++) {
        ts_jinja_value key = l.u.list->items[i];
        if (attr && attr->kind != TS_JV_NONE) key = get_path(rt, key, *attr);
        key = fold_case(rt, key, cs);
        if (ts_jinja_contains(rt, seen, key)) continue;
        ts_jinja_list_push(rt, seen, key);
        ts_jinja_list_push(rt, out, l.u.list->items[i]);
    }
    return out;
}

static ts_jinja_value filter_sort(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    bool reverse = arg_bool(a, 0, "reverse", false), cs = arg_bool(a, 1, "case_sensitive", false);
    const ts_jinja_value *attr = arg(a, 2, "attribute");
    ts_jinja_value out = copy_list(rt, ts_jinja_iterate(rt, v));
    size_t n = out.u.list->n;
    ts_jinja_value *keys = ts_jinja_alloc(rt, (n ? n : 1) * sizeof(*keys));
    for (size_t i = 0; i < n; i++) {
        ts_jinja_value key = out.u.list->items[i];
        if (attr && attr->kind != TS_JV_NONE) key = get_path(rt, key, *attr);
        keys[i] = fold_case(rt, key, cs);
    }
    sort_by(rt, out.u.list->items, keys, n, reverse);
    return out;
}

static ts_jinja_value filter_dictsort(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    if (v.kind != TS_JV_DICT)
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "dictsort needs a mapping");
    bool cs = arg_bool(a, 0, "case_sensitive", false);
    ts_jinja_value by = arg_or(a, 1, "by", ts_jinja_string_ref("key", 3));
    bool reverse = arg_bool(a, 2, "reverse", false);
    bool by_value = by.kind == TS_JV_STRING && by.u.str.len == 5 && !memcmp(by.u.str.s, "value", 5);
    ts_jinja_value out = call_method(rt, v, "items", a);
    out.flags = 0; /* sorted() makes a list of the view */
    size_t n = out.u.list->n;
    ts_jinja_value *keys = ts_jinja_alloc(rt, (n ? n : 1) * sizeof(*keys));
    for (size_t i = 0; i < n; i++)
        keys[i] = fold_case(rt, out.u.list->items[i].u.list->items[by_value ? 1 : 0], cs);
    sort_by(rt, out.u.list->items, keys, n, reverse);
    return out;
}

static ts_jinja_value filter_min(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    return min_max(rt, v, a, false);
}

static ts_jinja_value filter_max(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    return min_max(rt, v, a, true);
}

static ts_jinja_value filter_sum(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    const ts_jinja_value *attr = arg(a, 0, "attribute");
    ts_jinja_value total = arg_or(a, 1, "start", ts_jinja_int(0));
    ts_jinja_value l = ts_jinja_iterate(rt, v);
    for (size_t i = 0; i < l.u.list->n; i++) {
        ts_jinja_value x = l.u.list->items[i];
        if (attr && attr->kind != TS_JV_NONE) x = get_path(rt, x, *attr);
        total = arith_add(rt, total, x);
    }
    return total;
}

static ts_jinja_value filter_batch(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    int64_t size = want_int(rt, *need(rt, a, 0, "batch"), "batch size");
    if (size <= 0) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "batch size must be positive");
    const ts_jinja_value *fill = arg(a, 1, "fill_with");
    ts_jinja_value l = ts_jinja_iterate(rt, v), out = ts_jinja_list_new(rt, 0),
                   cur = ts_jinja_list_new(rt, 0);
    for (size_t i = 0; i < l.u.list->n; i++) {
        ts_jinja_list_push(rt, cur, l.u.list->items[i]);
        if ((int64_t)cur.u.list->n == size) {
            ts_jinja_list_push(rt, out, cur);
            cur = ts_jinja_list_new(rt, 0);
        }
    }
    if (cur.u.list->n) {
        while (fill && fill->kind != TS_JV_NONE && (int64_t)cur.u.list->n < size)
            ts_jinja_list_push(rt, cur, *fill);
        ts_jinja_list_push(rt, out, cur);
    }
    return out;
}

static ts_jinja_value filter_attr(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    ts_jinja_value name = want_str(rt, *need(rt, a, 0, "attr"), "attribute name");
    return ts_jinja_getattr(rt, v, ts_jinja_string(rt, name.u.str.s, name.u.str.len).u.str.s);
}

static ts_jinja_value filter_indent(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    /* jinja2 appends "\n" to the value, which only strings survive. */
    if (v.kind != TS_JV_STRING)
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "indent needs a string, not %s",
                       ts_jinja_kind_name(v));
    return indent(rt, v, a);
}

static ts_jinja_value filter_center(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    ts_jinja_args ca = {.pos = a->pos, .n_pos = a->n_pos};
    ts_jinja_value w = ts_jinja_int(80);
    if (!a->n_pos) {
        ca.pos = &w;
        ca.n_pos = 1;
    }
    return str_method(rt, str_of(rt, v), "center", &ca);
}

static ts_jinja_value filter_format(ts_jinja_rt *rt, ts_jinja_value v, const ts_jinja_args *a)
{
    return percent_format(rt, str_of(rt, v), a->pos, a->n_pos, false);
}

/* Every filter the parser accepts, in strcmp order; aliases share a function. */
static const filter_entry filters[] = {
    {"abs", filter_abs, 0},
    {"attr", filter_attr, 0},
    {"batch", filter_batch, FILTER_GENERATOR},
    {"capitalize", filter_capitalize, 0},
    {"center", filter_center, 0},
    {"count", filter_length, 0},
    {"d", filter_default, 0},
    {"default", filter_default, 0},
    {"dictsort", filter_dictsort, 0},
    {"e", filter_escape, 0},
    {"escape", filter_escape, 0},
    {"first", filter_first, 0},
    {"float", filter_float, 0},
    {"format", filter_format, 0},
    {"indent", filter_indent, 0},
    {"int", filter_int, 0},
    {"items", filter_items, FILTER_GENERATOR},
    {"join", filter_join, 0},
    {"last", filter_last, 0},
    {"length", filter_length, 0},
    {"list", filter_list, 0},
    {"lower", filter_lower, 0},
    {"map", filter_map, FILTER_GENERATOR | FILTER_SKIPS_FALSE},
    {"max", filter_max, 0},
    {"min", filter_min, 0},
    {"reject", filter_reject, FILTER_GENERATOR | FILTER_SKIPS_FALSE},
    {"rejectattr", filter_rejectattr, FILTER_GENERATOR | FILTER_SKIPS_FALSE},
    {"replace", filter_replace, 0},
    {"reverse", filter_reverse, 0},
    {"round", filter_round, 0},
    {"safe", filter_string, 0},
    {"select", filter_select, FILTER_GENERATOR | FILTER_SKIPS_FALSE},
    {"selectattr", filter_selectattr, FILTER_GENERATOR | FILTER_SKIPS_FALSE},
    {"sort", filter_sort, 0},
    {"string", filter_string, 0},
    {"sum", filter_sum, 0},
    {"title", filter_title, 0},
    {"tojson", filter_tojson, 0},
    {"trim", filter_trim, 0},
    {"unique", filter_unique, FILTER_GENERATOR},
    {"upper", filter_upper, 0},
    {"wordcount", filter_wordcount, 0},
};

/* A linear scan: the table is small and a lookup costs what the strcmp chain it replaced did. */
static const filter_entry *find_filter(const char *name)
{
    for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++)
        if (strcmp(filters[i].name, name) == 0) return &filters[i];
    return NULL;
}

bool ts_jinja_is_filter(const char *name)
{
    return find_filter(name) != NULL;
}

ts_jinja_value ts_jinja_percent_format(ts_jinja_rt *rt, ts_jinja_value fmt, ts_jinja_value args)
{
    if (args.kind == TS_JV_LIST && (args.flags & TS_JV_TUPLE))
        return percent_format(rt, fmt, args.u.list->items, args.u.list->n, false);
    /* Python treats a lone object with __getitem__ (list, dict, Undefined) as a mapping
     * argument, which a format without specs may leave unused. */
    return percent_format(rt, fmt, &args, 1,
                          args.kind == TS_JV_LIST || args.kind == TS_JV_DICT ||
                              args.kind == TS_JV_UNDEFINED);
}

/* Filters that are Python generator functions in jinja2 return one-shot iterators; `reverse`
 * returns a reverse iterator for lists and dicts. Their results behave accordingly. */
/* jinja2 runs a generator filter's body only when the result is consumed, so its errors
 * surface then, or never (`{% if x | select(...) %}` is true and raises nothing). The filter
 * runs now; a failure becomes a generator that rethrows it when iterated. map/select/… skip a
 * false input without iterating it (`if value:`). */
static ts_jinja_value lazy_filter(ts_jinja_rt *rt, const filter_entry *fe, ts_jinja_value v,
                                  const ts_jinja_args *a)
{
    bool guarded = fe->flags & FILTER_SKIPS_FALSE;
    bool iterable = v.kind == TS_JV_LIST || v.kind == TS_JV_DICT || v.kind == TS_JV_STRING ||
                    v.kind == TS_JV_UNDEFINED;
    if (guarded && !iterable && !ts_jinja_truthy(v)) {
        ts_jinja_value empty = ts_jinja_list_new(rt, 0);
        empty.flags = TS_JV_ITERATOR;
        return empty;
    }
    jmp_buf *outer = rt->jump;
    int depth = rt->depth;
    jmp_buf here;
    /* volatile: assigned after setjmp, read after a longjmp. */
    ts_jinja_value volatile result = {0};
    rt->jump = &here;
    if (setjmp(here) == 0) {
        result = fe->fn(rt, v, a);
        rt->jump = outer;
    } else {
        rt->jump = outer;
        rt->depth = depth;
        /* Limits are not the template's errors: they end the render now. */
        if (rt->error->status == TS_ERR_RANGE || rt->error->status == TS_ERR_OUT_OF_MEMORY)
            longjmp(*outer, 1);
        ts_jinja_value g = ts_jinja_list_new(rt, 0);
        g.u.list->error = ts_jinja_cstring(rt, rt->error->message).u.str.s;
        g.u.list->error_status = rt->error->status;
        ts_error_clear(rt->error); /* the render goes on; the error waits in g */
        result = g;
    }
    ts_jinja_value r = result;
    r.flags = TS_JV_ITERATOR;
    return r;
}

ts_jinja_value ts_jinja_filter(ts_jinja_rt *rt, const char *f, ts_jinja_value v,
                               const ts_jinja_args *a)
{
    const filter_entry *fe = find_filter(f);
    /* The parser accepts only the names in the table. */
    if (!fe) ts_jinja_throw(rt, TS_ERR_INTERNAL, "filter '%s' has no implementation", f);
    bool generator_in = v.kind == TS_JV_LIST && (v.flags & TS_JV_ITERATOR);
    if (generator_in && fe->fn == filter_length) /* length, count */
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "object of type 'generator' has no len()");
    if (generator_in && fe->fn == filter_last)
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "'generator' object is not reversible");
    if (fe->flags & FILTER_GENERATOR) return lazy_filter(rt, fe, v, a);
    ts_jinja_value r = fe->fn(rt, v, a);
    if (r.kind == TS_JV_LIST && fe->fn == filter_reverse)
        r.flags = generator_in ? 0 : TS_JV_ITERATOR;
    return r;
}
