/* reader.c — recursive-descent reader for the StableHLO subset the printer writes.
 *
 * One pass over the text, building the graph through the public builders (which type-check);
 * printed operand and result types are compared with what the graph infers. Constants and iotas
 * are held back ("pending") until the next op: if that op consumes them as a reduction init or
 * argmax index they are dropped (the graph's reduce has neither), else they are appended in text
 * order, so a printed graph reads back with its nodes in the same order. Every size that reaches
 * an allocation or an index is checked first; the builders are never handed an attribute they
 * would index out of range.
 */
#include "export/reader.h"
#include "base/text_escape.h"
#include "export/stablehlo_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAME 256
#define MAX_OPERANDS 64
#define MAX_DIM ((int64_t)1 << 31)
#define MAX_ELEMENTS ((int64_t)1 << 40)
#define MAX_CONSTANT_BYTES ((size_t)1 << 30)
#define MAX_REGION_VALUES 32
#define MAX_RESULTS 65536

typedef enum entry_kind {
    ENTRY_VALUE = 0, /* a graph value */
    ENTRY_ARGMAX,    /* the (value, index) pair of an argmax reduce: only #1 is a graph value */
    ENTRY_PENDING,   /* a constant or iota not yet appended */
    ENTRY_LAZY,      /* consumed as a reduction helper: appended only if something else uses it */
    ENTRY_UNDEFINED, /* named by the op being read */
} entry_kind;

typedef struct entry {
    const char *name;
    entry_kind kind;
    ts_value value;
    ts_type type;
    ts_type type0; /* ENTRY_ARGMAX: the max values (#0) */
    ts_op pending_op;
    const void *data;
    int iota_dim;
    const char *loc;
    size_t pos;
} entry;

typedef struct scope {
    entry *entries;
    int32_t n, cap;
    int32_t *table; /* open addressing over entries; -1 empty */
    uint32_t table_cap;
    int32_t *pending;
    int32_t n_pending, cap_pending;
} scope;

typedef struct ref {
    int32_t entry;
    int result; /* -1: no #N */
    size_t pos;
} ref;

typedef struct func_sig {
    const char *name;
    ts_graph *graph; /* private functions: kept to compare with the composite's expansion */
    ts_type *args, *results;
    int n_args, n_results;
    size_t pos;
} func_sig;

typedef struct symbol_use {
    const char *symbol;
    const ts_graph *g; /* the composite node's graph and value */
    ts_value value;
    ts_type types[9]; /* operands, then the result */
    int n_operands;
    size_t pos;
} symbol_use;

typedef struct reader {
    const char *text;
    size_t len, pos;
    const char *origin;
    ts_error *err;
    ts_status status;
    ts_arena arena;
    func_sig *funcs;
    int n_funcs, cap_funcs;
    scope symbols;          /* function names; entry i names funcs[i] */
    uint64_t constant_bytes; /* expanded by splats so far (bounded by the text's length) */
    symbol_use *uses;
    int n_uses, cap_uses;
} reader;

/* ------------------------------------------------------------------ errors */

static bool fail(reader *r, size_t pos, ts_status status, const char *fmt, ...) TS_PRINTF(4, 5);

static bool fail(reader *r, size_t pos, ts_status status, const char *fmt, ...)
{
    if (r->status != TS_OK) return false;
    int line = 1, col = 1;
    for (size_t i = 0; i < pos && i < r->len; i++) {
        if (r->text[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    r->status = ts_error_set(r->err, status, "%s: line %d:%d: %s", r->origin, line, col, msg);
    return false;
}

#define syntax(r, pos, ...) fail(r, pos, TS_ERR_FORMAT, __VA_ARGS__)
#define unsupported(r, pos, ...) fail(r, pos, TS_ERR_UNSUPPORTED, __VA_ARGS__)

static bool oom(reader *r) { return fail(r, r->pos, TS_ERR_OUT_OF_MEMORY, "out of memory"); }

/* ------------------------------------------------------------------ lexing */

static void skip_ws(reader *r)
{
    while (r->pos < r->len) {
        char c = r->text[r->pos];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            r->pos++;
        } else if (c == '/' && r->pos + 1 < r->len && r->text[r->pos + 1] == '/') {
            while (r->pos < r->len && r->text[r->pos] != '\n') r->pos++;
        } else {
            break;
        }
    }
}

static char peek(reader *r)
{
    skip_ws(r);
    return r->pos < r->len ? r->text[r->pos] : 0;
}

static bool is_id_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.'; }

/* Punctuation, or a keyword that must not run on into an identifier. */
static bool accept(reader *r, const char *s)
{
    skip_ws(r);
    size_t n = strlen(s);
    if (r->len - r->pos < n || memcmp(r->text + r->pos, s, n) != 0) return false;
    if (is_id_char(s[n - 1]) && r->pos + n < r->len && is_id_char(r->text[r->pos + n])) return false;
    r->pos += n;
    return true;
}

/* What stands at the cursor, for messages: up to 16 printable characters or "end of input". */
static const char *found(reader *r, char *buf, size_t cap)
{
    skip_ws(r);
    if (r->pos >= r->len) return "end of input";
    size_t n = 0;
    buf[n++] = '\'';
    for (size_t i = r->pos; i < r->len && n + 2 < cap && n < 17; i++) {
        char c = r->text[i];
        if (c == '\n' || (unsigned char)c < 0x20) break;
        buf[n++] = c;
    }
    buf[n++] = '\'';
    buf[n] = 0;
    return buf;
}

static bool expect(reader *r, const char *s, const char *context)
{
    if (accept(r, s)) return true;
    char buf[32];
    return syntax(r, r->pos, "expected '%s'%s%s, found %s", s, *context ? " " : "", context, found(r, buf, sizeof(buf)));
}

/* A bare identifier (letters, digits, _ $ .), at most MAX_NAME-1 bytes. */
static bool parse_id(reader *r, char *out, const char *what)
{
    skip_ws(r);
    size_t start = r->pos, n = 0;
    if (r->pos >= r->len || !(isalpha((unsigned char)r->text[r->pos]) || r->text[r->pos] == '_')) {
        char buf[32];
        return syntax(r, r->pos, "expected %s, found %s", what, found(r, buf, sizeof(buf)));
    }
    while (r->pos < r->len && is_id_char(r->text[r->pos])) {
        if (n + 1 >= MAX_NAME) return syntax(r, start, "%s is longer than %d bytes", what, MAX_NAME - 1);
        out[n++] = r->text[r->pos++];
    }
    out[n] = 0;
    return true;
}

static bool parse_int(reader *r, int64_t *out, int64_t lo, int64_t hi, const char *what)
{
    skip_ws(r);
    size_t start = r->pos;
    bool neg = false;
    if (r->pos < r->len && r->text[r->pos] == '-') {
        neg = true;
        r->pos++;
    }
    if (r->pos >= r->len || !isdigit((unsigned char)r->text[r->pos])) {
        char buf[32];
        r->pos = start;
        return syntax(r, start, "expected %s, found %s", what, found(r, buf, sizeof(buf)));
    }
    uint64_t v = 0;
    while (r->pos < r->len && isdigit((unsigned char)r->text[r->pos])) {
        unsigned d = (unsigned)(r->text[r->pos++] - '0');
        if (v > (UINT64_MAX - d) / 10) return fail(r, start, TS_ERR_RANGE, "%s is out of range", what);
        v = v * 10 + d;
    }
    uint64_t limit = neg ? (uint64_t)1 << 63 : (uint64_t)INT64_MAX;
    if (v > limit) return fail(r, start, TS_ERR_RANGE, "%s is out of range", what);
    int64_t s = neg ? (v == (uint64_t)1 << 63 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    if (s < lo || s > hi) return fail(r, start, TS_ERR_RANGE, "%s %lld outside %lld..%lld", what, (long long)s, (long long)lo, (long long)hi);
    *out = s;
    return true;
}

/* "…" with MLIR escapes (\" \\ \n \t \XX); the result in the arena, at most 4095 bytes. */
static bool parse_string(reader *r, const char **out)
{
    skip_ws(r);
    size_t start = r->pos;
    if (r->pos >= r->len || r->text[r->pos] != '"') {
        char buf[32];
        return syntax(r, r->pos, "expected a string, found %s", found(r, buf, sizeof(buf)));
    }
    r->pos++;
    char buf[4096];
    size_t n = 0;
    for (;;) {
        if (r->pos >= r->len || r->text[r->pos] == '\n') return syntax(r, start, "unterminated string");
        char c = r->text[r->pos++];
        if (c == '"') break;
        if (c == '\\') {
            if (r->pos >= r->len) return syntax(r, start, "unterminated string");
            char e = r->text[r->pos++];
            if (e == '"' || e == '\\') c = e;
            else if (e == 'n') c = '\n';
            else if (e == 't') c = '\t';
            else if (r->pos < r->len && ts_hex_value(e) >= 0 && ts_hex_value(r->text[r->pos]) >= 0)
                c = (char)(ts_hex_value(e) * 16 + ts_hex_value(r->text[r->pos++]));
            else return syntax(r, r->pos - 2, "bad escape in string");
        }
        if (c == 0) return syntax(r, r->pos - 1, "NUL byte in string");
        if (n + 1 >= sizeof(buf)) return syntax(r, start, "string longer than %zu bytes", sizeof(buf) - 1);
        buf[n++] = c;
    }
    char *s = ts_arena_strndup(&r->arena, buf, n);
    if (!s) return oom(r);
    *out = s;
    return true;
}

/* @name or @"name" */
static bool parse_symbol(reader *r, const char **out)
{
    if (!expect(r, "@", "before a symbol name")) return false;
    if (r->pos < r->len && r->text[r->pos] == '"') return parse_string(r, out);
    char name[MAX_NAME];
    if (!parse_id(r, name, "a symbol name")) return false;
    char *s = ts_arena_strndup(&r->arena, name, strlen(name));
    if (!s) return oom(r);
    *out = s;
    return true;
}

/* ------------------------------------------------------------------ types */

static bool element_from_name(const char *s, ts_dtype *out)
{
    for (int d = 0; d < TS_DTYPE_COUNT; d++) {
        const char *n = ts_type_element_name((ts_dtype)d);
        if (n && strcmp(n, s) == 0) {
            *out = (ts_dtype)d;
            return true;
        }
    }
    return false;
}

static bool parse_type(reader *r, ts_type *out)
{
    skip_ws(r);
    size_t start = r->pos;
    if (!accept(r, "tensor")) {
        char buf[32];
        if (r->pos < r->len && isalpha((unsigned char)r->text[r->pos])) {
            char id[MAX_NAME];
            if (parse_id(r, id, "a type")) unsupported(r, start, "unsupported type '%s' (only tensor<...>)", id);
            return false;
        }
        return syntax(r, r->pos, "expected a type, found %s", found(r, buf, sizeof(buf)));
    }
    if (r->pos >= r->len || r->text[r->pos] != '<') return syntax(r, r->pos, "expected '<' after 'tensor'");
    r->pos++;
    ts_type t = {.rank = 0};
    int64_t elements = 1;
    for (;;) {
        if (r->pos >= r->len) return syntax(r, r->pos, "unterminated tensor type");
        char c = r->text[r->pos];
        if (c == '?' || c == '*') return unsupported(r, r->pos, "dynamic shapes are not supported");
        if (!isdigit((unsigned char)c)) break;
        int64_t d = 0;
        size_t dpos = r->pos;
        while (r->pos < r->len && isdigit((unsigned char)r->text[r->pos])) {
            d = d * 10 + (r->text[r->pos++] - '0');
            if (d >= MAX_DIM) return fail(r, dpos, TS_ERR_RANGE, "dimension exceeds %lld", (long long)MAX_DIM - 1);
        }
        if (t.rank == TS_MAX_DIMS) return unsupported(r, dpos, "rank above %d is not supported", TS_MAX_DIMS);
        if (d && elements > MAX_ELEMENTS / d) return fail(r, dpos, TS_ERR_RANGE, "tensor has more than 2^40 elements");
        elements *= d ? d : 1;
        t.dims[t.rank++] = d;
        if (r->pos >= r->len || r->text[r->pos] != 'x') return syntax(r, r->pos, "expected 'x' after a dimension");
        r->pos++;
    }
    size_t epos = r->pos;
    char el[MAX_NAME];
    size_t n = 0;
    while (r->pos < r->len && isalnum((unsigned char)r->text[r->pos]) && n + 1 < sizeof(el)) el[n++] = r->text[r->pos++];
    el[n] = 0;
    if (!n) return syntax(r, epos, "expected an element type");
    if (!element_from_name(el, &t.dtype)) return unsupported(r, epos, "unsupported element type '%s'", el);
    if (r->pos >= r->len || r->text[r->pos] != '>') {
        if (r->pos < r->len && r->text[r->pos] == ',') return unsupported(r, r->pos, "tensor encodings are not supported");
        return syntax(r, r->pos, "expected '>' to close the tensor type");
    }
    r->pos++;
    *out = t;
    return true;
}

static const char *type_str(const ts_type *t, char *buf) { return ts_type_format(t, buf, 160); }

/* Types after ':' — "T" (every operand and the result), "(T, …) -> R" or "(T, …) -> (R, …)" —
 * into operand and result lists. `plain` tells which form it was. */
static bool parse_signature(reader *r, ts_type *ins, int max_ins, int *n_ins, ts_type *outs, int max_outs, int *n_outs,
                            bool *plain)
{
    *n_ins = *n_outs = 0;
    *plain = false;
    if (!accept(r, "(")) {
        if (!parse_type(r, &outs[0])) return false;
        *n_outs = 1;
        *plain = true;
        return true;
    }
    if (!accept(r, ")")) {
        do {
            if (*n_ins == max_ins) return syntax(r, r->pos, "too many operand types");
            if (!parse_type(r, &ins[(*n_ins)++])) return false;
        } while (accept(r, ","));
        if (!expect(r, ")", "after the operand types")) return false;
    }
    if (!expect(r, "->", "after the operand types")) return false;
    if (accept(r, "(")) {
        do {
            if (*n_outs == max_outs) return syntax(r, r->pos, "too many result types");
            if (!parse_type(r, &outs[(*n_outs)++])) return false;
        } while (accept(r, ","));
        return expect(r, ")", "after the result types");
    }
    if (!parse_type(r, &outs[0])) return false;
    *n_outs = 1;
    return true;
}

/* [1, 2, 3] into d (at most TS_MAX_DIMS entries). */
static bool parse_dims(reader *r, ts_dims *d, int64_t lo, int64_t hi)
{
    d->n = 0;
    if (!expect(r, "[", "to open a dimension list")) return false;
    if (accept(r, "]")) return true;
    do {
        if (d->n == TS_MAX_DIMS) return unsupported(r, r->pos, "more than %d entries in a dimension list", TS_MAX_DIMS);
        if (!parse_int(r, &d->v[d->n++], lo, hi, "an integer")) return false;
    } while (accept(r, ","));
    return expect(r, "]", "to close a dimension list");
}

/* array<i64: 1, 2> or array<i64> */
static bool parse_array(reader *r, ts_dims *d)
{
    d->n = 0;
    if (!expect(r, "array", "(a dense i64 array)") || !expect(r, "<", "after 'array'") || !expect(r, "i64", "in array<i64: ...>"))
        return false;
    if (accept(r, ":")) {
        do {
            if (d->n == TS_MAX_DIMS) return unsupported(r, r->pos, "more than %d entries in an array", TS_MAX_DIMS);
            if (!parse_int(r, &d->v[d->n++], -MAX_DIM, MAX_DIM, "an integer")) return false;
        } while (accept(r, ","));
    }
    return expect(r, ">", "to close the array");
}

/* ------------------------------------------------------------------ scopes */

static uint32_t hash_name(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void scope_fini(scope *s)
{
    free(s->entries);
    free(s->table);
    free(s->pending);
    memset(s, 0, sizeof(*s));
}

static int32_t scope_find(const scope *s, const char *name)
{
    if (!s->table_cap) return -1;
    for (uint32_t i = hash_name(name) & (s->table_cap - 1);; i = (i + 1) & (s->table_cap - 1)) {
        int32_t e = s->table[i];
        if (e < 0) return -1;
        if (strcmp(s->entries[e].name, name) == 0) return e;
    }
}

static bool scope_grow_table(reader *r, scope *s)
{
    uint32_t cap = s->table_cap ? s->table_cap * 2 : 256;
    int32_t *t = malloc(sizeof(int32_t) * cap);
    if (!t) return oom(r);
    memset(t, 0xff, sizeof(int32_t) * cap);
    for (int32_t e = 0; e < s->n; e++) {
        uint32_t i = hash_name(s->entries[e].name) & (cap - 1);
        while (t[i] >= 0) i = (i + 1) & (cap - 1);
        t[i] = e;
    }
    free(s->table);
    s->table = t;
    s->table_cap = cap;
    return true;
}

/* Defines `name` (without the %); returns the entry index or -1. */
static int32_t scope_define(reader *r, scope *s, const char *name, size_t pos)
{
    if (scope_find(s, name) >= 0) return syntax(r, pos, "redefinition of %%%s", name), -1;
    if (s->n >= (1 << 24)) return fail(r, pos, TS_ERR_RANGE, "more than 2^24 values in one function"), -1;
    if (s->n == s->cap) {
        int32_t cap = s->cap ? s->cap * 2 : 256;
        entry *e = realloc(s->entries, sizeof(entry) * (size_t)cap);
        if (!e) return oom(r), -1;
        s->entries = e;
        s->cap = cap;
    }
    if ((uint32_t)(s->n + 1) * 2 > s->table_cap && !scope_grow_table(r, s)) return -1;
    entry *e = &s->entries[s->n];
    memset(e, 0, sizeof(*e));
    e->name = ts_arena_strndup(&r->arena, name, strlen(name));
    if (!e->name) return oom(r), -1;
    e->value = TS_NO_VALUE;
    e->kind = ENTRY_UNDEFINED;
    e->pos = pos;
    uint32_t i = hash_name(name) & (s->table_cap - 1);
    while (s->table[i] >= 0) i = (i + 1) & (s->table_cap - 1);
    s->table[i] = s->n;
    return s->n++;
}

/* %name (letters, digits, _ $ . -), at most MAX_NAME-1 bytes, without the %. */
static bool parse_value_name(reader *r, char *out)
{
    skip_ws(r);
    if (r->pos >= r->len || r->text[r->pos] != '%') {
        char buf[32];
        return syntax(r, r->pos, "expected a value (%%name), found %s", found(r, buf, sizeof(buf)));
    }
    size_t start = r->pos++;
    size_t n = 0;
    while (r->pos < r->len && (is_id_char(r->text[r->pos]) || r->text[r->pos] == '-')) {
        if (n + 1 >= MAX_NAME) return syntax(r, start, "value name longer than %d bytes", MAX_NAME - 1);
        out[n++] = r->text[r->pos++];
    }
    if (!n) return syntax(r, start, "expected a value name after '%%'");
    out[n] = 0;
    return true;
}

static bool parse_ref(reader *r, scope *s, ref *out)
{
    char name[MAX_NAME];
    skip_ws(r);
    out->pos = r->pos;
    if (!parse_value_name(r, name)) return false;
    out->result = -1;
    if (r->pos < r->len && r->text[r->pos] == '#') {
        r->pos++;
        int64_t k;
        if (!parse_int(r, &k, 0, 1, "a result number")) return false;
        out->result = (int)k;
    }
    out->entry = scope_find(s, name);
    if (out->entry < 0) return syntax(r, out->pos, "use of undefined value %%%s", name);
    if (s->entries[out->entry].kind == ENTRY_UNDEFINED) return syntax(r, out->pos, "%%%s is used in its own definition", name);
    return true;
}

/* Operands "%a, %b, …"; stops before a ", key = …" that follows them. */
static bool parse_refs(reader *r, scope *s, ref *refs, int max, int *n)
{
    *n = 0;
    for (;;) {
        if (*n == max) return unsupported(r, r->pos, "more than %d operands", max);
        if (!parse_ref(r, s, &refs[(*n)++])) return false;
        size_t save = r->pos;
        if (!accept(r, ",")) return true;
        if (peek(r) != '%') {
            r->pos = save;
            return true;
        }
    }
}

/* ------------------------------------------------------------------ building */

typedef struct fn {
    reader *r;
    scope s;
    ts_graph *g;
    const char *loc; /* of the op being read */
} fn;

static void set_stage(fn *f, const char *loc)
{
    if (loc == f->g->stage || (loc && f->g->stage && strcmp(loc, f->g->stage) == 0)) return;
    if (loc) ts_graph_set_stage(f->g, "%s", loc);
    else f->g->stage = NULL;
}

static bool check_graph(fn *f, size_t pos, const char *op)
{
    ts_error e;
    if (ts_graph_status(f->g, &e) == TS_OK) return true;
    return syntax(f->r, pos, "%s: %s", op, e.message);
}

static bool materialize(fn *f, int32_t idx)
{
    entry *e = &f->s.entries[idx];
    if (e->kind != ENTRY_PENDING && e->kind != ENTRY_LAZY) return true;
    set_stage(f, e->loc);
    e->value = e->pending_op == TS_OP_CONSTANT ? ts_graph_constant(f->g, e->type, e->data)
                                               : ts_graph_iota(f->g, e->type, e->iota_dim);
    e->kind = ENTRY_VALUE;
    return check_graph(f, e->pos, e->pending_op == TS_OP_CONSTANT ? "stablehlo.constant" : "stablehlo.iota");
}

/* Appends every pending constant/iota in text order, except those now marked lazy. */
static bool flush_pending(fn *f)
{
    for (int32_t i = 0; i < f->s.n_pending; i++)
        if (f->s.entries[f->s.pending[i]].kind == ENTRY_PENDING && !materialize(f, f->s.pending[i])) return false;
    f->s.n_pending = 0;
    return true;
}

static bool add_pending(fn *f, int32_t idx)
{
    scope *s = &f->s;
    if (s->n_pending == s->cap_pending) {
        int32_t cap = s->cap_pending ? s->cap_pending * 2 : 16;
        int32_t *p = realloc(s->pending, sizeof(int32_t) * (size_t)cap);
        if (!p) return oom(f->r);
        s->pending = p;
        s->cap_pending = cap;
    }
    s->pending[s->n_pending++] = idx;
    return true;
}

static const ts_type *ref_type(fn *f, const ref *x)
{
    const entry *e = &f->s.entries[x->entry];
    return e->kind == ENTRY_ARGMAX && x->result == 0 ? &e->type0 : &e->type;
}

/* The graph value of an operand (appending a held-back constant if needed). */
static bool resolve(fn *f, const ref *x, ts_value *out)
{
    entry *e = &f->s.entries[x->entry];
    if (e->kind == ENTRY_ARGMAX) {
        if (x->result != 1)
            return unsupported(f->r, x->pos, "%%%s has two results; only #1 (the argmax index) may be used", e->name);
    } else if (x->result > 0) {
        return syntax(f->r, x->pos, "%%%s has one result, not #%d", e->name, x->result);
    }
    if (!materialize(f, x->entry)) return false;
    *out = e->value;
    return true;
}

/* Compares each operand's type with the one the text gives it. */
static bool check_operand_types(fn *f, const ref *refs, int n, const ts_type *types, int n_types, const char *op)
{
    if (n_types != n) return syntax(f->r, refs[0].pos, "%s has %d operands but %d operand types", op, n, n_types);
    for (int i = 0; i < n; i++)
        if (!ts_type_equal(ref_type(f, &refs[i]), &types[i])) {
            char b1[160], b2[160];
            return syntax(f->r, refs[i].pos, "type mismatch: %%%s is %s but %s says %s", f->s.entries[refs[i].entry].name,
                          type_str(ref_type(f, &refs[i]), b1), op, type_str(&types[i], b2));
        }
    return true;
}

/* Resolves operands after flushing held-back values. */
static bool operands(fn *f, const ref *refs, int n, ts_value *out)
{
    if (!flush_pending(f)) return false;
    for (int i = 0; i < n; i++)
        if (!resolve(f, &refs[i], &out[i])) return false;
    return true;
}

/* Binds the op's result name to v after checking the builder and the printed result type. */
static bool define_result(fn *f, int32_t idx, ts_value v, const ts_type *printed, size_t pos, const char *op)
{
    if (!check_graph(f, pos, op)) return false;
    const ts_type *t = ts_graph_type(f->g, v);
    if (!ts_type_equal(t, printed)) {
        char b1[160], b2[160];
        return syntax(f->r, pos, "result type mismatch: %s yields %s but the text says %s", op, type_str(t, b1), type_str(printed, b2));
    }
    entry *e = &f->s.entries[idx];
    e->kind = ENTRY_VALUE;
    e->value = v;
    e->type = *t;
    return true;
}

/* ------------------------------------------------------------------ constants */

typedef struct literal {
    enum { LIT_EMPTY, LIT_HEX, LIT_BLOB, LIT_LIST } kind;
    size_t pos;
    const char *hex;
    size_t hex_len;
    int64_t *ints;
    int64_t n_ints, cap_ints;
    int depth;       /* LIST: nesting depth of the leaves; 0 = a splat scalar */
    int64_t lens[TS_MAX_DIMS];
    bool have[TS_MAX_DIMS]; /* lens[d] is recorded */
    bool bools, numbers;
} literal;

static bool push_int(reader *r, literal *lit, int64_t v)
{
    if (lit->n_ints == lit->cap_ints) {
        int64_t cap = lit->cap_ints ? lit->cap_ints * 2 : 64;
        int64_t *p = realloc(lit->ints, sizeof(int64_t) * (size_t)cap);
        if (!p) return oom(r);
        lit->ints = p;
        lit->cap_ints = cap;
    }
    lit->ints[lit->n_ints++] = v;
    return true;
}

static bool parse_scalar_element(reader *r, literal *lit)
{
    int64_t v;
    if (accept(r, "true")) {
        lit->bools = true;
        return push_int(r, lit, 1);
    }
    if (accept(r, "false")) {
        lit->bools = true;
        return push_int(r, lit, 0);
    }
    skip_ws(r);
    size_t start = r->pos;
    if (!parse_int(r, &v, INT64_MIN, INT64_MAX, "an integer element")) return false;
    if (r->pos < r->len && (r->text[r->pos] == '.' || r->text[r->pos] == 'e' || r->text[r->pos] == 'E')) {
        return unsupported(r, start, "decimal float constants are not supported (use the hex form)");
    }
    lit->numbers = true;
    return push_int(r, lit, v);
}

static bool parse_list(reader *r, literal *lit, int depth)
{
    if (depth >= TS_MAX_DIMS) return unsupported(r, r->pos, "constant nested deeper than rank %d", TS_MAX_DIMS);
    expect(r, "[", "");
    int64_t count = 0;
    if (!accept(r, "]")) {
        do {
            if (peek(r) == '[') {
                if (!parse_list(r, lit, depth + 1)) return false;
            } else {
                if (lit->depth >= 0 && lit->depth != depth + 1) return syntax(r, r->pos, "ragged constant: elements at different depths");
                lit->depth = depth + 1;
                if (!parse_scalar_element(r, lit)) return false;
            }
            count++;
        } while (accept(r, ","));
        if (!expect(r, "]", "to close a constant list")) return false;
    }
    if (lit->have[depth]) {
        if (lit->lens[depth] != count) return syntax(r, r->pos, "ragged constant: lists of %lld and %lld elements", (long long)lit->lens[depth], (long long)count);
    } else {
        lit->lens[depth] = count;
        lit->have[depth] = true;
    }
    return true;
}

static bool parse_literal(reader *r, literal *lit)
{
    memset(lit, 0, sizeof(*lit));
    lit->depth = -1;
    if (!expect(r, "dense", "(a dense constant)") || !expect(r, "<", "after 'dense'")) return false;
    skip_ws(r);
    lit->pos = r->pos;
    if (accept(r, ">")) {
        lit->kind = LIT_EMPTY;
        return true;
    }
    char c = peek(r);
    if (c == '"' || (c == '0' && r->pos + 1 < r->len && (r->text[r->pos + 1] == 'x' || r->text[r->pos + 1] == 'X'))) {
        bool blob = c == '"';
        if (blob) r->pos++;
        if (!(r->pos + 1 < r->len && r->text[r->pos] == '0' && (r->text[r->pos + 1] == 'x' || r->text[r->pos + 1] == 'X')))
            return syntax(r, r->pos, "expected \"0x...\" (a hex blob)");
        r->pos += 2;
        lit->hex = r->text + r->pos;
        while (r->pos < r->len && isalnum((unsigned char)r->text[r->pos])) {
            if (ts_hex_value(r->text[r->pos]) < 0) return syntax(r, r->pos, "bad hex digit '%c' in constant", r->text[r->pos]);
            r->pos++;
        }
        lit->hex_len = (size_t)(r->text + r->pos - lit->hex);
        if (!lit->hex_len) return syntax(r, r->pos, "empty hex constant");
        if (blob && !expect(r, "\"", "to close the hex blob")) return false;
        lit->kind = blob ? LIT_BLOB : LIT_HEX;
        return expect(r, ">", "to close the constant");
    }
    lit->kind = LIT_LIST;
    if (c == '[') {
        if (!parse_list(r, lit, 0)) return false;
        if (lit->depth < 0) /* only empty lists */
            for (lit->depth = 0; lit->depth < TS_MAX_DIMS && lit->have[lit->depth];) lit->depth++;
    } else {
        lit->depth = 0;
        if (!parse_scalar_element(r, lit)) return false;
    }
    return expect(r, ">", "to close the constant");
}

static bool int_fits(ts_dtype d, int64_t v)
{
    switch (d) {
    case TS_DTYPE_I64: return true;
    case TS_DTYPE_I32: return v >= INT32_MIN && v <= INT32_MAX;
    case TS_DTYPE_I16: return v >= INT16_MIN && v <= INT16_MAX;
    case TS_DTYPE_I8: return v >= INT8_MIN && v <= INT8_MAX;
    case TS_DTYPE_U8: return v >= 0 && v <= 255;
    default: return false;
    }
}

static void store_int(ts_dtype d, unsigned char *p, int64_t v)
{
    switch (d) {
    case TS_DTYPE_I64: memcpy(p, &v, 8); break;
    case TS_DTYPE_I32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    case TS_DTYPE_I16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    default: p[0] = (unsigned char)v; break;
    }
}

static bool is_float_dtype(ts_dtype d) { return d == TS_DTYPE_F32 || d == TS_DTYPE_F16 || d == TS_DTYPE_BF16; }

/* The constant's bytes (arena) for type t. */
static bool literal_bytes(reader *r, literal *lit, const ts_type *t, void **out)
{
    int64_t n = ts_type_elements(t);
    size_t size = ts_dtype_size(t->dtype);
    if ((size_t)n > MAX_CONSTANT_BYTES / size) return fail(r, lit->pos, TS_ERR_RANGE, "constant larger than 1 GiB");
    size_t bytes = (size_t)n * size;
    /* Splats can ask for far more than the text holds: cap the total at 64 bytes per byte of text
     * plus 64 MiB, so a short hostile text cannot claim gigabytes. */
    r->constant_bytes += bytes;
    if (r->constant_bytes > (uint64_t)r->len * 64 + ((uint64_t)64 << 20))
        return fail(r, lit->pos, TS_ERR_RANGE, "constants expand to more than 64 bytes per byte of text");
    unsigned char *p = ts_arena_alloc_aligned(&r->arena, bytes ? bytes : 1, 64);
    if (!p) return oom(r);
    *out = p;
    char b[160];
    switch (lit->kind) {
    case LIT_EMPTY:
        if (n) return syntax(r, lit->pos, "empty constant for %s", type_str(t, b));
        return true;
    case LIT_HEX: {
        if (t->dtype == TS_DTYPE_BOOL) return syntax(r, lit->pos, "i1 constants are true/false, not hex");
        if (lit->hex_len > 2 * size) return syntax(r, lit->pos, "hex constant 0x%.*s does not fit %s", (int)(lit->hex_len > 32 ? 32 : lit->hex_len), lit->hex, type_str(t, b));
        uint64_t v = 0;
        for (size_t i = 0; i < lit->hex_len; i++) v = v << 4 | (uint64_t)ts_hex_value(lit->hex[i]);
        for (int64_t i = 0; i < n; i++)
            for (size_t k = 0; k < size; k++) p[(size_t)i * size + k] = (unsigned char)(v >> (8 * k));
        return true;
    }
    case LIT_BLOB: {
        if (t->dtype == TS_DTYPE_BOOL) return syntax(r, lit->pos, "i1 constants are true/false, not hex");
        size_t have = lit->hex_len / 2;
        if (lit->hex_len % 2 || (have != bytes && have != size))
            return syntax(r, lit->pos, "hex blob holds %zu digits; %s needs %zu", lit->hex_len, type_str(t, b), 2 * bytes);
        for (size_t i = 0; i < bytes; i++) {
            size_t k = have == bytes ? i : i % size;
            p[i] = (unsigned char)(ts_hex_value(lit->hex[2 * k]) * 16 + ts_hex_value(lit->hex[2 * k + 1]));
        }
        return true;
    }
    case LIT_LIST:
        if (is_float_dtype(t->dtype)) return unsupported(r, lit->pos, "float constants must be hex (0x...), not decimal");
        if (t->dtype == TS_DTYPE_BOOL ? lit->numbers : lit->bools)
            return syntax(r, lit->pos, "%s elements in a %s constant", lit->bools ? "true/false" : "integer", type_str(t, b));
        if (lit->depth != 0) {
            if (lit->depth != t->rank) return syntax(r, lit->pos, "constant has %d levels of nesting; %s has rank %d", lit->depth, type_str(t, b), t->rank);
            for (int d = 0; d < t->rank; d++)
                if (lit->lens[d] != t->dims[d]) return syntax(r, lit->pos, "constant shape differs from %s on axis %d", type_str(t, b), d);
            if (lit->n_ints != n) return syntax(r, lit->pos, "constant has %lld elements; %s needs %lld", (long long)lit->n_ints, type_str(t, b), (long long)n);
        }
        for (int64_t i = 0; i < n; i++) {
            int64_t v = lit->ints[lit->depth ? i : 0];
            if (t->dtype == TS_DTYPE_BOOL) p[i] = (unsigned char)v;
            else if (!int_fits(t->dtype, v)) return fail(r, lit->pos, TS_ERR_RANGE, "%lld does not fit %s", (long long)v, type_str(t, b));
            else store_int(t->dtype, p + (size_t)i * size, v);
        }
        return true;
    }
    return false;
}

/* ------------------------------------------------------------------ regions */

typedef struct region_op {
    char name[40];
    int operands[4], n_operands;
    char words[2][12];
    int n_words;
    ts_type types[4];
    int n_types;
} region_op;

typedef struct region {
    int n_args;
    ts_type args[4];
    int n_ops;
    region_op ops[MAX_REGION_VALUES];
} region;

static int region_lookup(char names[][MAX_NAME], int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

/* ({ ^bb0(%a: T, …): ops… stablehlo.return …  }) — structure only; matched by region_equal. */
static bool parse_region(reader *r, region *rg)
{
    static const int max_names = MAX_REGION_VALUES + 4;
    char(*names)[MAX_NAME] = calloc((size_t)max_names, MAX_NAME);
    if (!names) return oom(r);
    int n_names = 0;
    bool ok = false;
    memset(rg, 0, sizeof(*rg));
    if (!expect(r, "(", "to open the region list") || !expect(r, "{", "to open the region") ||
        !expect(r, "^bb0", "(the region's block)") || !expect(r, "(", "after ^bb0"))
        goto done;
    do {
        if (rg->n_args == 4) {
            unsupported(r, r->pos, "region with more than 4 arguments");
            goto done;
        }
        skip_ws(r);
        size_t pos = r->pos;
        if (!parse_value_name(r, names[n_names])) goto done;
        if (region_lookup(names, n_names, names[n_names]) >= 0) {
            syntax(r, pos, "redefinition of %%%s", names[n_names]);
            goto done;
        }
        n_names++;
        if (!expect(r, ":", "after a block argument") || !parse_type(r, &rg->args[rg->n_args++])) goto done;
    } while (accept(r, ","));
    if (!expect(r, ")", "after the block arguments") || !expect(r, ":", "after the block header")) goto done;
    for (;;) {
        if (rg->n_ops == MAX_REGION_VALUES) {
            unsupported(r, r->pos, "region longer than %d ops", MAX_REGION_VALUES);
            goto done;
        }
        region_op *op = &rg->ops[rg->n_ops];
        bool is_return = false;
        skip_ws(r);
        size_t pos = r->pos;
        if (peek(r) == '}') {
            syntax(r, r->pos, "region ends without stablehlo.return");
            goto done;
        }
        if (accept(r, "stablehlo.return")) {
            is_return = true;
            strcpy(op->name, "stablehlo.return");
        } else {
            if (!parse_value_name(r, names[n_names])) goto done;
            if (region_lookup(names, n_names, names[n_names]) >= 0) {
                syntax(r, pos, "redefinition of %%%s", names[n_names]);
                goto done;
            }
            if (!expect(r, "=", "after the result name")) goto done;
            char id[MAX_NAME];
            if (!parse_id(r, id, "an op name")) goto done;
            if (strlen(id) >= sizeof(op->name)) {
                unsupported(r, pos, "unsupported op %s in a region", id);
                goto done;
            }
            strcpy(op->name, id);
        }
        /* Items up to ':' — operands and bare words (comparison direction and type). */
        do {
            skip_ws(r);
            if (peek(r) == '%') {
                char name[MAX_NAME];
                size_t vpos = r->pos;
                if (!parse_value_name(r, name)) goto done;
                int k = region_lookup(names, n_names, name);
                if (k < 0) {
                    syntax(r, vpos, "use of undefined value %%%s", name);
                    goto done;
                }
                if (op->n_operands == 4) {
                    unsupported(r, vpos, "too many operands in a region op");
                    goto done;
                }
                op->operands[op->n_operands++] = k;
            } else {
                char word[MAX_NAME];
                if (!parse_id(r, word, "an operand") ) goto done;
                if (op->n_words == 2 || strlen(word) >= sizeof(op->words[0])) {
                    syntax(r, r->pos, "unexpected '%s' in a region op", word);
                    goto done;
                }
                strcpy(op->words[op->n_words++], word);
            }
        } while (accept(r, ","));
        if (!expect(r, ":", "before the types of a region op")) goto done;
        if (accept(r, "(")) {
            do {
                if (op->n_types == 3 || !parse_type(r, &op->types[op->n_types++])) {
                    if (r->status == TS_OK) syntax(r, r->pos, "too many types");
                    goto done;
                }
            } while (accept(r, ","));
            if (!expect(r, ")", "after the operand types") || !expect(r, "->", "after the operand types") ||
                !parse_type(r, &op->types[op->n_types++]))
                goto done;
        } else {
            do {
                if (op->n_types == 4 || !parse_type(r, &op->types[op->n_types++])) {
                    if (r->status == TS_OK) syntax(r, r->pos, "too many types");
                    goto done;
                }
            } while (accept(r, ","));
        }
        rg->n_ops++;
        if (is_return) break;
        n_names++;
    }
    if (!expect(r, "}", "to close the region") || !expect(r, ")", "after the region")) goto done;
    ok = true;
done:
    free(names);
    return ok;
}

static bool region_equal(const region *a, const region *b)
{
    if (a->n_args != b->n_args || a->n_ops != b->n_ops) return false;
    for (int i = 0; i < a->n_args; i++)
        if (!ts_type_equal(&a->args[i], &b->args[i])) return false;
    for (int i = 0; i < a->n_ops; i++) {
        const region_op *x = &a->ops[i], *y = &b->ops[i];
        if (strcmp(x->name, y->name) || x->n_operands != y->n_operands || x->n_words != y->n_words || x->n_types != y->n_types)
            return false;
        for (int k = 0; k < x->n_operands; k++)
            if (x->operands[k] != y->operands[k]) return false;
        for (int k = 0; k < x->n_words; k++)
            if (strcmp(x->words[k], y->words[k])) return false;
        for (int k = 0; k < x->n_types; k++)
            if (!ts_type_equal(&x->types[k], &y->types[k])) return false;
    }
    return true;
}

/* Is `rg` the region the printer writes for (kind, dtype)? */
static bool region_is(reader *r, const region *rg, ts_shlo_region kind, ts_dtype dtype)
{
    ts_buf b;
    ts_buf_init(&b);
    int next_arg = 0, next_value = 0;
    ts_shlo_print_region(&b, kind, dtype, "", &next_arg, &next_value);
    if (b.failed) {
        ts_buf_fini(&b);
        return oom(r);
    }
    reader sub = {.text = b.data, .len = b.len, .origin = "canonical region", .status = TS_OK};
    ts_error e;
    sub.err = &e;
    region *canon = malloc(sizeof(region));
    bool same = false;
    if (canon) {
        ts_arena_init(&sub.arena, 4096);
        TS_ASSERT(parse_region(&sub, canon));
        same = region_equal(rg, canon);
        ts_arena_fini(&sub.arena);
        free(canon);
    } else {
        oom(r);
    }
    ts_buf_fini(&b);
    return same;
}

/* ------------------------------------------------------------------ ops */

/* loc("stage") after an op */
static bool parse_loc(fn *f)
{
    f->loc = NULL;
    if (!accept(f->r, "loc")) return true;
    if (!expect(f->r, "(", "after 'loc'")) return false;
    if (peek(f->r) != '"') return unsupported(f->r, f->r->pos, "only loc(\"name\") locations are supported");
    if (!parse_string(f->r, &f->loc)) return false;
    return expect(f->r, ")", "to close loc(...)");
}

typedef struct op_ctx {
    fn *f;
    const char *name; /* as written */
    size_t pos;
    int32_t result;   /* entry of the result name */
    int n_results;
} op_ctx;

#define R (o->f->r)

static bool finish(op_ctx *o, ts_value v, const ts_type *printed)
{
    return define_result(o->f, o->result, v, printed, o->pos, o->name);
}

static bool read_constant(op_ctx *o)
{
    literal lit;
    ts_type t;
    void *data = NULL;
    bool ok = parse_literal(R, &lit) && expect(R, ":", "before the constant's type") && parse_type(R, &t) &&
              literal_bytes(R, &lit, &t, &data) && parse_loc(o->f);
    free(lit.ints);
    if (!ok) return false;
    entry *e = &o->f->s.entries[o->result];
    e->kind = ENTRY_PENDING;
    e->pending_op = TS_OP_CONSTANT;
    e->type = t;
    e->data = data;
    e->loc = o->f->loc;
    e->pos = o->pos;
    return add_pending(o->f, o->result);
}

static bool read_iota(op_ctx *o)
{
    int64_t dim;
    ts_type t;
    if (!expect(R, "dim", "in stablehlo.iota") || !expect(R, "=", "after 'dim'") || !parse_int(R, &dim, 0, TS_MAX_DIMS, "an iota dimension") ||
        !expect(R, ":", "before the iota's type") || !parse_type(R, &t) || !parse_loc(o->f))
        return false;
    if (dim >= t.rank) return syntax(R, o->pos, "iota dimension %lld outside rank %d", (long long)dim, t.rank);
    entry *e = &o->f->s.entries[o->result];
    e->kind = ENTRY_PENDING;
    e->pending_op = TS_OP_IOTA;
    e->type = t;
    e->iota_dim = (int)dim;
    e->loc = o->f->loc;
    e->pos = o->pos;
    return add_pending(o->f, o->result);
}

/* Operands, ':' and a signature; `plain` signatures apply one type to every operand. */
static bool operands_and_types(op_ctx *o, ref *refs, int *n, ts_type *ins, int *n_ins, ts_type *out)
{
    ts_type outs[2];
    int n_outs;
    bool plain;
    if (!parse_refs(R, &o->f->s, refs, MAX_OPERANDS, n)) return false;
    if (!expect(R, ":", "before the op's types")) return false;
    if (!parse_signature(R, ins, MAX_OPERANDS, n_ins, outs, 1, &n_outs, &plain)) return false;
    if (plain) {
        for (int i = 0; i < *n; i++) ins[i] = outs[0];
        *n_ins = *n;
    }
    *out = outs[0];
    return true;
}

static bool read_elementwise(op_ctx *o, ts_op op)
{
    ref refs[MAX_OPERANDS];
    ts_type ins[MAX_OPERANDS], out;
    int n, n_ins;
    if (!operands_and_types(o, refs, &n, ins, &n_ins, &out) || !parse_loc(o->f)) return false;
    int want = ts_op_get_info(op)->n_inputs;
    if (n != want) return syntax(R, o->pos, "%s takes %d operands, not %d", o->name, want, n);
    if (!check_operand_types(o->f, refs, n, ins, n_ins, o->name)) return false;
    ts_value in[3] = {0};
    if (!operands(o->f, refs, n, in)) return false;
    set_stage(o->f, o->f->loc);
    ts_value v = TS_NO_VALUE;
    if (op == TS_OP_CONVERT) v = ts_graph_convert(o->f->g, in[0], out.dtype);
    else if (op == TS_OP_RESHAPE) v = ts_graph_reshape(o->f->g, in[0], out.rank, out.dims);
    else if (op == TS_OP_ERF || ts_op_is_elementwise_unary(op)) v = ts_graph_unary(o->f->g, op, in[0]);
    else v = ts_graph_binary(o->f->g, op, in[0], in[1]);
    return finish(o, v, &out);
}

static bool read_erf(op_ctx *o)
{
    ref x;
    ts_type in, out;
    if (!parse_ref(R, &o->f->s, &x) || !expect(R, ":", "before the op's types") || !parse_type(R, &in) ||
        !expect(R, "->", "in chlo.erf's type") || !parse_type(R, &out) || !parse_loc(o->f))
        return false;
    if (!check_operand_types(o->f, &x, 1, &in, 1, o->name)) return false;
    ts_value v = TS_NO_VALUE;
    if (!operands(o->f, &x, 1, &v)) return false;
    set_stage(o->f, o->f->loc);
    return finish(o, ts_graph_unary(o->f->g, TS_OP_ERF, v), &out);
}

/* ": (T…) -> R loc(…)" after an op's operands and attributes: the functional type (`shape`
 * names the form expected), the location, and the operand types checked against the values the
 * operands name. */
static bool read_op_types(op_ctx *o, const ref *refs, int n, ts_type *ins, ts_type *outs, const char *shape)
{
    int n_ins, n_outs;
    bool plain;
    if (!expect(R, ":", "before the op's types") || !parse_signature(R, ins, MAX_OPERANDS, &n_ins, outs, 1, &n_outs, &plain) || !parse_loc(o->f))
        return false;
    if (plain) return syntax(R, o->pos, "%s needs a functional type %s", o->name, shape);
    return check_operand_types(o->f, refs, n, ins, n_ins, o->name);
}

static bool read_compare(op_ctx *o)
{
    char dir[MAX_NAME];
    skip_ws(R);
    size_t dpos = R->pos;
    if (!parse_id(R, dir, "a comparison direction")) return false;
    int direction = -1;
    for (int i = 0; i < TS_COMPARE_COUNT; i++)
        if (strcmp(dir, ts_compare_name((ts_compare)i)) == 0) direction = i;
    if (direction < 0) return syntax(R, dpos, "unknown comparison direction '%s'", dir);
    ref refs[2];
    if (!expect(R, ",", "after the comparison direction") || !parse_ref(R, &o->f->s, &refs[0]) || !expect(R, ",", "between operands") ||
        !parse_ref(R, &o->f->s, &refs[1]))
        return false;
    char ctype[MAX_NAME] = "";
    size_t cpos = 0;
    if (accept(R, ",")) {
        skip_ws(R);
        cpos = R->pos;
        if (!parse_id(R, ctype, "a compare type")) return false;
    }
    ts_type ins[MAX_OPERANDS], outs[1];
    if (!read_op_types(o, refs, 2, ins, outs, "(T, T) -> R")) return false;
    const char *want = ts_shlo_compare_type(ins[0].dtype);
    if (ctype[0] && strcmp(ctype, want) != 0)
        return syntax(R, cpos, "compare type %s does not match %s operands (%s)", ctype, ts_type_element_name(ins[0].dtype), want);
    ts_value in[2] = {0};
    if (!operands(o->f, refs, 2, in)) return false;
    set_stage(o->f, o->f->loc);
    return finish(o, ts_graph_compare(o->f->g, (ts_compare)direction, in[0], in[1]), &outs[0]);
}

static bool read_select(op_ctx *o)
{
    ref refs[MAX_OPERANDS];
    int n;
    if (!parse_refs(R, &o->f->s, refs, MAX_OPERANDS, &n) || !expect(R, ":", "before the op's types")) return false;
    if (n != 3) return syntax(R, o->pos, "stablehlo.select takes 3 operands, not %d", n);
    ts_type ins[MAX_OPERANDS], outs[1], out;
    int n_ins, n_outs;
    bool plain;
    if (!parse_signature(R, ins, MAX_OPERANDS, &n_ins, outs, 1, &n_outs, &plain)) return false;
    if (plain) {
        /* "P, T" */
        ins[0] = outs[0];
        if (!expect(R, ",", "after the predicate type (select's types are 'P, T')") || !parse_type(R, &out)) return false;
        ins[1] = ins[2] = out;
        n_ins = 3;
    } else {
        out = outs[0];
    }
    if (!parse_loc(o->f) || !check_operand_types(o->f, refs, 3, ins, n_ins, o->name)) return false;
    ts_value in[3] = {0};
    if (!operands(o->f, refs, 3, in)) return false;
    set_stage(o->f, o->f->loc);
    return finish(o, ts_graph_select(o->f->g, in[0], in[1], in[2]), &out);
}

/* ", key = [..]" for the ops with one dimension-list attribute. */
static bool read_with_dims(op_ctx *o, ts_op op)
{
    ref x;
    ts_dims d;
    const char *key = op == TS_OP_BROADCAST_IN_DIM || op == TS_OP_TRANSPOSE ? "dims" : "sizes";
    if (!parse_ref(R, &o->f->s, &x) || !expect(R, ",", "after the operand") || !expect(R, key, "") || !expect(R, "=", "after the attribute name") ||
        !parse_dims(R, &d, 0, MAX_DIM))
        return false;
    ts_type ins[MAX_OPERANDS], outs[1];
    if (!read_op_types(o, &x, 1, ins, outs, "(T) -> R")) return false;
    const ts_type *t = ref_type(o->f, &x);
    if (d.n != t->rank) return syntax(R, o->pos, "%s has %d %s for an operand of rank %d", o->name, d.n, key, t->rank);
    ts_value v = TS_NO_VALUE;
    if (!operands(o->f, &x, 1, &v)) return false;
    set_stage(o->f, o->f->loc);
    if (op == TS_OP_BROADCAST_IN_DIM) return finish(o, ts_graph_broadcast_in_dim(o->f->g, v, outs[0].rank, outs[0].dims, d.v), &outs[0]);
    return finish(o, ts_graph_transpose(o->f->g, v, d.v), &outs[0]);
}

static bool read_slice(op_ctx *o)
{
    ref x;
    ts_dims start = {0}, limit = {0}, strides = {0};
    if (!parse_ref(R, &o->f->s, &x) || !expect(R, "[", "to open the slice ranges")) return false;
    if (!accept(R, "]")) {
        do {
            if (start.n == TS_MAX_DIMS) return unsupported(R, R->pos, "more than %d slice ranges", TS_MAX_DIMS);
            int k = start.n++;
            limit.n = strides.n = start.n;
            strides.v[k] = 1;
            if (!parse_int(R, &start.v[k], 0, MAX_DIM, "a slice start") || !expect(R, ":", "between slice start and limit") ||
                !parse_int(R, &limit.v[k], 0, MAX_DIM, "a slice limit"))
                return false;
            if (accept(R, ":") && !parse_int(R, &strides.v[k], 1, MAX_DIM, "a slice stride")) return false;
        } while (accept(R, ","));
        if (!expect(R, "]", "to close the slice ranges")) return false;
    }
    ts_type ins[MAX_OPERANDS], outs[1];
    if (!read_op_types(o, &x, 1, ins, outs, "(T) -> R")) return false;
    if (start.n != ref_type(o->f, &x)->rank) return syntax(R, o->pos, "stablehlo.slice has %d ranges for rank %d", start.n, ref_type(o->f, &x)->rank);
    ts_value v = TS_NO_VALUE;
    if (!operands(o->f, &x, 1, &v)) return false;
    set_stage(o->f, o->f->loc);
    return finish(o, ts_graph_slice(o->f->g, v, start.v, limit.v, strides.v), &outs[0]);
}

/* The ops whose operands are followed by ", key = …" attributes or nothing. */
static bool read_operand_list_op(op_ctx *o, ts_op op)
{
    ref refs[MAX_OPERANDS];
    int n;
    if (!parse_refs(R, &o->f->s, refs, MAX_OPERANDS, &n)) return false;
    ts_dims sizes = {0}, low = {0}, high = {0}, interior = {0};
    int64_t dim = 0;
    if (op == TS_OP_DYNAMIC_SLICE) {
        if (!expect(R, ",", "before sizes") || !expect(R, "sizes", "") || !expect(R, "=", "after 'sizes'") || !parse_dims(R, &sizes, 0, MAX_DIM)) return false;
    } else if (op == TS_OP_CONCATENATE) {
        if (!expect(R, ",", "before dim") || !expect(R, "dim", "") || !expect(R, "=", "after 'dim'") || !parse_int(R, &dim, 0, TS_MAX_DIMS, "a dimension"))
            return false;
    } else if (op == TS_OP_PAD) {
        if (!expect(R, ",", "before low") || !expect(R, "low", "") || !expect(R, "=", "after 'low'") || !parse_dims(R, &low, -MAX_DIM, MAX_DIM) ||
            !expect(R, ",", "before high") || !expect(R, "high", "") || !expect(R, "=", "after 'high'") || !parse_dims(R, &high, -MAX_DIM, MAX_DIM) ||
            !expect(R, ",", "before interior") || !expect(R, "interior", "") || !expect(R, "=", "after 'interior'") ||
            !parse_dims(R, &interior, 0, MAX_DIM))
            return false;
    }
    ts_type ins[MAX_OPERANDS], outs[1];
    if (!read_op_types(o, refs, n, ins, outs, "(...) -> R")) return false;
    int rank = ref_type(o->f, &refs[0])->rank;
    ts_value in[MAX_OPERANDS] = {0};
    switch (op) {
    case TS_OP_DYNAMIC_SLICE:
        if (n != 1 + rank || sizes.n != rank) return syntax(R, o->pos, "stablehlo.dynamic_slice of rank %d needs %d start indices and %d sizes", rank, rank, rank);
        break;
    case TS_OP_DYNAMIC_UPDATE_SLICE:
        if (n != 2 + rank) return syntax(R, o->pos, "stablehlo.dynamic_update_slice of rank %d needs %d start indices", rank, rank);
        break;
    case TS_OP_PAD:
        if (n != 2 || low.n != rank || high.n != rank || interior.n != rank) return syntax(R, o->pos, "stablehlo.pad needs 2 operands and %d entries per padding list", rank);
        break;
    default: break;
    }
    if (!operands(o->f, refs, n, in)) return false;
    set_stage(o->f, o->f->loc);
    ts_value v = TS_NO_VALUE;
    switch (op) {
    case TS_OP_DYNAMIC_SLICE: v = ts_graph_dynamic_slice(o->f->g, in[0], in + 1, sizes.v); break;
    case TS_OP_DYNAMIC_UPDATE_SLICE: v = ts_graph_dynamic_update_slice(o->f->g, in[0], in[1], in + 2); break;
    case TS_OP_CONCATENATE: v = ts_graph_concatenate(o->f->g, in, n, (int)dim); break;
    case TS_OP_PAD: v = ts_graph_pad(o->f->g, in[0], in[1], low.v, high.v, interior.v); break;
    default: break;
    }
    return finish(o, v, &outs[0]);
}

/* Entries in [0, rank), no repeats. */
static bool dims_valid(const ts_dims *d, int rank)
{
    for (int i = 0; i < d->n; i++) {
        if (d->v[i] < 0 || d->v[i] >= rank) return false;
        for (int k = 0; k < i; k++)
            if (d->v[k] == d->v[i]) return false;
    }
    return true;
}

static bool dims_disjoint(const ts_dims *a, const ts_dims *b)
{
    for (int i = 0; i < a->n; i++)
        for (int k = 0; k < b->n; k++)
            if (a->v[i] == b->v[k]) return false;
    return true;
}

static bool read_dot_general(op_ctx *o)
{
    ref refs[2];
    ts_dims lb = {0}, rb = {0}, lc = {0}, rc = {0};
    if (!parse_ref(R, &o->f->s, &refs[0]) || !expect(R, ",", "between operands") || !parse_ref(R, &o->f->s, &refs[1])) return false;
    while (accept(R, ",")) {
        char key[MAX_NAME];
        skip_ws(R);
        size_t kpos = R->pos;
        if (!parse_id(R, key, "an attribute name") || !expect(R, "=", "after the attribute name")) return false;
        ts_dims *l, *rr;
        if (strcmp(key, "batching_dims") == 0) l = &lb, rr = &rb;
        else if (strcmp(key, "contracting_dims") == 0) l = &lc, rr = &rc;
        else return unsupported(R, kpos, "unsupported attribute '%s' on stablehlo.dot_general", key);
        if (!parse_dims(R, l, 0, TS_MAX_DIMS) || !expect(R, "x", "between lhs and rhs dimensions") || !parse_dims(R, rr, 0, TS_MAX_DIMS)) return false;
    }
    ts_type ins[MAX_OPERANDS], outs[1];
    if (!read_op_types(o, refs, 2, ins, outs, "(L, R) -> T")) return false;
    int lr = ins[0].rank, rr = ins[1].rank;
    if (lb.n != rb.n || lc.n != rc.n || !dims_valid(&lb, lr) || !dims_valid(&lc, lr) || !dims_valid(&rb, rr) || !dims_valid(&rc, rr) ||
        !dims_disjoint(&lb, &lc) || !dims_disjoint(&rb, &rc))
        return syntax(R, o->pos, "stablehlo.dot_general: batching/contracting dimensions must be distinct, in range and paired");
    if (lr + rr - lb.n - 2 * lc.n > TS_MAX_DIMS) return unsupported(R, o->pos, "stablehlo.dot_general result rank above %d", TS_MAX_DIMS);
    ts_value in[2] = {0};
    if (!operands(o->f, refs, 2, in)) return false;
    set_stage(o->f, o->f->loc);
    return finish(o, ts_graph_dot_general(o->f->g, in[0], in[1], &lb, &rb, &lc, &rc), &outs[0]);
}

/* ---- generic ops: "stablehlo.gather" / "stablehlo.scatter" / "stablehlo.reduce" */

typedef struct generic_attrs {
    bool has_gather, has_scatter, has_slice_sizes, has_dimensions;
    ts_dims offset_dims, collapsed, start_index_map, slice_sizes;
    ts_dims update_window, inserted_window, scatter_to_operand;
    int64_t index_vector_dim;
    ts_dims dimensions;
} generic_attrs;

/* #stablehlo.gather<key = [..], …> / #stablehlo.scatter<…> */
static bool parse_dimension_numbers(reader *r, generic_attrs *a, bool scatter)
{
    if (!expect(r, scatter ? "#stablehlo.scatter" : "#stablehlo.gather", "") || !expect(r, "<", "to open the dimension numbers")) return false;
    if (accept(r, ">")) return true;
    do {
        char key[MAX_NAME];
        skip_ws(r);
        size_t kpos = r->pos;
        if (!parse_id(r, key, "a dimension-number name") || !expect(r, "=", "after the name")) return false;
        ts_dims *d = NULL, ignore;
        if (strcmp(key, "index_vector_dim") == 0) {
            if (!parse_int(r, &a->index_vector_dim, 0, TS_MAX_DIMS, "index_vector_dim")) return false;
            continue;
        }
        if (!scatter && strcmp(key, "offset_dims") == 0) d = &a->offset_dims;
        else if (!scatter && strcmp(key, "collapsed_slice_dims") == 0) d = &a->collapsed;
        else if (!scatter && strcmp(key, "start_index_map") == 0) d = &a->start_index_map;
        else if (scatter && strcmp(key, "update_window_dims") == 0) d = &a->update_window;
        else if (scatter && strcmp(key, "inserted_window_dims") == 0) d = &a->inserted_window;
        else if (scatter && strcmp(key, "scatter_dims_to_operand_dims") == 0) d = &a->scatter_to_operand;
        else if (strstr(key, "batching_dims")) d = &ignore;
        else return unsupported(r, kpos, "unsupported dimension number '%s'", key);
        if (!parse_dims(r, d, 0, TS_MAX_DIMS)) return false;
        if (d == &ignore && ignore.n) return unsupported(r, kpos, "%s is not supported", key);
    } while (accept(r, ","));
    return expect(r, ">", "to close the dimension numbers");
}

/* <{…}> or {…} holding the generic op's attributes. */
static bool parse_generic_attrs(reader *r, generic_attrs *a, const char *op)
{
    if (accept(r, "}")) return true;
    do {
        char key[MAX_NAME];
        skip_ws(r);
        size_t kpos = r->pos;
        if (!parse_id(r, key, "an attribute name") || !expect(r, "=", "after the attribute name")) return false;
        if (strcmp(op, "stablehlo.gather") == 0 && strcmp(key, "dimension_numbers") == 0) {
            if (!parse_dimension_numbers(r, a, false)) return false;
            a->has_gather = true;
        } else if (strcmp(op, "stablehlo.gather") == 0 && strcmp(key, "slice_sizes") == 0) {
            if (!parse_array(r, &a->slice_sizes)) return false;
            a->has_slice_sizes = true;
        } else if (strcmp(op, "stablehlo.scatter") == 0 && strcmp(key, "scatter_dimension_numbers") == 0) {
            if (!parse_dimension_numbers(r, a, true)) return false;
            a->has_scatter = true;
        } else if (strcmp(op, "stablehlo.reduce") == 0 && strcmp(key, "dimensions") == 0) {
            if (!parse_array(r, &a->dimensions)) return false;
            a->has_dimensions = true;
        } else if (strcmp(key, "indices_are_sorted") == 0 || strcmp(key, "unique_indices") == 0) {
            /* hints only: the result does not depend on them */
            if (!accept(r, "true") && !accept(r, "false")) return syntax(r, r->pos, "expected true or false");
        } else {
            return unsupported(r, kpos, "unsupported attribute '%s' on %s", key, op);
        }
    } while (accept(r, ","));
    return expect(r, "}", "to close the attributes");
}

/* A reduction helper: a held-back constant equal to `want`, or an iota along `dim` of `type`. */
static bool is_helper_constant(fn *f, const ref *x, const void *want, ts_dtype dtype)
{
    const entry *e = &f->s.entries[x->entry];
    if ((e->kind != ENTRY_PENDING && e->kind != ENTRY_LAZY) || e->pending_op != TS_OP_CONSTANT || x->result > 0) return false;
    if (e->type.rank != 0 || e->type.dtype != dtype) return false;
    return memcmp(e->data, want, ts_dtype_size(dtype)) == 0;
}

static bool read_generic(op_ctx *o)
{
    fn *f = o->f;
    ref refs[MAX_OPERANDS];
    int n = 0;
    if (!expect(R, "(", "to open the operand list")) return false;
    if (!accept(R, ")")) {
        if (!parse_refs(R, &f->s, refs, MAX_OPERANDS, &n) || !expect(R, ")", "to close the operand list")) return false;
    }
    generic_attrs a;
    memset(&a, 0, sizeof(a));
    if (accept(R, "<{") && (!parse_generic_attrs(R, &a, o->name) || !expect(R, ">", "to close the properties"))) return false;
    region *rg = NULL;
    bool is_gather = strcmp(o->name, "stablehlo.gather") == 0;
    bool ok = false;
    if (!is_gather) {
        rg = malloc(sizeof(region));
        if (!rg) return oom(R);
        skip_ws(R);
        if (peek(R) != '(') {
            char buf[32];
            syntax(R, R->pos, "%s needs a region ({ ... }), found %s", o->name, found(R, buf, sizeof(buf)));
            goto done;
        }
        if (!parse_region(R, rg)) goto done;
    }
    if (accept(R, "{") && !parse_generic_attrs(R, &a, o->name)) goto done;
    ts_type ins[MAX_OPERANDS], outs[2];
    int n_ins, n_outs;
    bool plain;
    if (!expect(R, ":", "before the op's types") || !parse_signature(R, ins, MAX_OPERANDS, &n_ins, outs, 2, &n_outs, &plain) || !parse_loc(f)) goto done;
    if (plain) {
        syntax(R, o->pos, "%s needs a functional type (...) -> R", o->name);
        goto done;
    }
    if (n_outs != o->n_results) {
        syntax(R, o->pos, "%s has %d result types but defines %d values", o->name, n_outs, o->n_results);
        goto done;
    }
    if (n == 0) {
        syntax(R, o->pos, "%s needs operands", o->name);
        goto done;
    }
    if (!check_operand_types(f, refs, n, ins, n_ins, o->name)) goto done;
    const ts_type *t0 = &ins[0];
    ts_value in[3] = {0};
    if (is_gather) {
        if (n != 2 || !a.has_gather || !a.has_slice_sizes) {
            syntax(R, o->pos, "stablehlo.gather needs 2 operands, dimension_numbers and slice_sizes");
            goto done;
        }
        if (!dims_valid(&a.collapsed, t0->rank) || !dims_valid(&a.start_index_map, t0->rank) || a.slice_sizes.n != t0->rank) {
            syntax(R, o->pos, "stablehlo.gather: collapsed_slice_dims, start_index_map or slice_sizes do not fit the operand's rank %d", t0->rank);
            goto done;
        }
        if (!operands(f, refs, 2, in)) goto done;
        set_stage(f, f->loc);
        ok = finish(o, ts_graph_gather(f->g, in[0], in[1], &a.offset_dims, &a.collapsed, &a.start_index_map, (int)a.index_vector_dim, &a.slice_sizes), &outs[0]);
    } else if (strcmp(o->name, "stablehlo.scatter") == 0) {
        if (n != 3 || !a.has_scatter) {
            syntax(R, o->pos, "stablehlo.scatter needs 3 operands and scatter_dimension_numbers");
            goto done;
        }
        if (!region_is(R, rg, TS_SHLO_REGION_ADD, t0->dtype)) {
            if (R->status == TS_OK) unsupported(R, o->pos, "unsupported stablehlo.scatter region: only the add body is supported");
            goto done;
        }
        if (!dims_valid(&a.update_window, ins[2].rank) || !dims_valid(&a.inserted_window, t0->rank) || !dims_valid(&a.scatter_to_operand, t0->rank)) {
            syntax(R, o->pos, "stablehlo.scatter: dimension numbers out of range");
            goto done;
        }
        if (!operands(f, refs, 3, in)) goto done;
        set_stage(f, f->loc);
        ok = finish(o, ts_graph_scatter_add(f->g, in[0], in[1], in[2], &a.update_window, &a.inserted_window, &a.scatter_to_operand, (int)a.index_vector_dim), &outs[0]);
    } else {
        /* reduce: (x, init) → reduce_sum / reduce_max; (x, iota, init, 0) → argmax */
        if (!a.has_dimensions) {
            syntax(R, o->pos, "stablehlo.reduce needs dimensions");
            goto done;
        }
        unsigned char want[8];
        if (n == 2 && o->n_results == 1) {
            ts_op op = TS_OP_COUNT;
            if (region_is(R, rg, TS_SHLO_REGION_ADD, t0->dtype)) op = TS_OP_REDUCE_SUM;
            else if (R->status == TS_OK && region_is(R, rg, TS_SHLO_REGION_MAX, t0->dtype)) op = TS_OP_REDUCE_MAX;
            if (op == TS_OP_COUNT) {
                if (R->status == TS_OK) unsupported(R, o->pos, "unsupported stablehlo.reduce region: only add and maximum bodies are supported");
                goto done;
            }
            ts_shlo_identity(op, t0->dtype, want);
            if (!is_helper_constant(f, &refs[1], want, t0->dtype)) {
                unsupported(R, refs[1].pos, "the init of a %s reduce must be a constant %s", op == TS_OP_REDUCE_SUM ? "sum" : "max",
                            op == TS_OP_REDUCE_SUM ? "zero" : "lowest value (-inf for floats)");
                goto done;
            }
            f->s.entries[refs[1].entry].kind = ENTRY_LAZY;
            if (!operands(f, refs, 1, in)) goto done;
            set_stage(f, f->loc);
            ok = finish(o, ts_graph_reduce(f->g, op, in[0], &a.dimensions), &outs[0]);
        } else if (n == 4 && o->n_results == 2) {
            if (!region_is(R, rg, TS_SHLO_REGION_ARGMAX, t0->dtype)) {
                if (R->status == TS_OK) unsupported(R, o->pos, "unsupported two-operand stablehlo.reduce: only the argmax body is supported");
                goto done;
            }
            if (a.dimensions.n != 1 || a.dimensions.v[0] < 0 || a.dimensions.v[0] >= t0->rank) {
                syntax(R, o->pos, "an argmax reduce has one dimension within the operand's rank");
                goto done;
            }
            int dim = (int)a.dimensions.v[0];
            const entry *iota = &f->s.entries[refs[1].entry];
            ts_type index_type = *t0;
            index_type.dtype = TS_DTYPE_I32;
            if ((iota->kind != ENTRY_PENDING && iota->kind != ENTRY_LAZY) || iota->pending_op != TS_OP_IOTA || iota->iota_dim != dim ||
                !ts_type_equal(&iota->type, &index_type)) {
                unsupported(R, refs[1].pos, "the indices of an argmax reduce must be an i32 iota along dimension %d", dim);
                goto done;
            }
            ts_shlo_identity(TS_OP_ARGMAX, t0->dtype, want);
            unsigned char zero[8] = {0};
            if (!is_helper_constant(f, &refs[2], want, t0->dtype) || !is_helper_constant(f, &refs[3], zero, TS_DTYPE_I32)) {
                unsupported(R, refs[2].pos, "the inits of an argmax reduce must be the lowest value and 0");
                goto done;
            }
            for (int i = 1; i < 4; i++) f->s.entries[refs[i].entry].kind = ENTRY_LAZY;
            if (!operands(f, refs, 1, in)) goto done;
            set_stage(f, f->loc);
            ts_value v = ts_graph_argmax(f->g, in[0], dim);
            if (!check_graph(f, o->pos, o->name)) goto done;
            ts_type values_type = *ts_graph_type(f->g, v);
            values_type.dtype = t0->dtype;
            if (!ts_type_equal(&values_type, &outs[0])) {
                char b1[160], b2[160];
                syntax(R, o->pos, "result type mismatch: stablehlo.reduce yields %s but the text says %s", type_str(&values_type, b1), type_str(&outs[0], b2));
                goto done;
            }
            if (!finish(o, v, &outs[1])) goto done;
            entry *e = &f->s.entries[o->result];
            e->kind = ENTRY_ARGMAX;
            e->type0 = outs[0];
            ok = true;
        } else {
            unsupported(R, o->pos, "stablehlo.reduce with %d operands and %d results is not supported", n, o->n_results);
        }
    }
done:
    free(rg);
    return ok;
}

/* ---- composites */

typedef struct attr_value {
    enum { ATTR_FLOAT, ATTR_INT, ATTR_BOOL, ATTR_STRING } kind;
    double f;
    int64_t i;
    const char *s;
    size_t pos;
} attr_value;

static bool parse_attr_value(reader *r, attr_value *v)
{
    skip_ws(r);
    v->pos = r->pos;
    if (accept(r, "true") || accept(r, "false")) {
        v->kind = ATTR_BOOL;
        v->i = r->text[v->pos] == 't';
        return true;
    }
    if (peek(r) == '"') {
        v->kind = ATTR_STRING;
        return parse_string(r, &v->s);
    }
    /* numbers: hex bits, decimal integer, or float (has '.' or an exponent) */
    size_t start = r->pos, end = start;
    while (end < r->len && (isalnum((unsigned char)r->text[end]) || r->text[end] == '.' || r->text[end] == '-' || r->text[end] == '+')) end++;
    if (end == start || end - start > 64) {
        char buf[32];
        return syntax(r, start, "expected an attribute value, found %s", found(r, buf, sizeof(buf)));
    }
    char num[72];
    memcpy(num, r->text + start, end - start);
    num[end - start] = 0;
    char *stop;
    if (num[0] == '0' && (num[1] == 'x' || num[1] == 'X')) {
        uint64_t bits = strtoull(num + 2, &stop, 16);
        if (*stop || !num[2] || strlen(num + 2) > 16) return syntax(r, start, "bad hex number '%s'", num);
        v->kind = ATTR_FLOAT;
        memcpy(&v->f, &bits, 8);
        v->i = (int64_t)bits;
    } else if (strpbrk(num, ".eE")) {
        v->kind = ATTR_FLOAT;
        v->f = strtod(num, &stop);
        if (*stop) return syntax(r, start, "bad number '%s'", num);
    } else {
        v->kind = ATTR_INT;
        v->i = strtoll(num, &stop, 10);
        if (*stop || strlen(num) > 18) return syntax(r, start, "bad integer '%s'", num);
        v->f = (double)v->i;
    }
    r->pos = end;
    if (accept(r, ":")) {
        char type[MAX_NAME];
        if (!parse_id(r, type, "an attribute type")) return false;
        if (strcmp(type, "f64") && strcmp(type, "f32") && strcmp(type, "i64") && strcmp(type, "i32"))
            return unsupported(r, start, "unsupported attribute type %s", type);
        if (type[0] == 'f' && v->kind == ATTR_INT) v->kind = ATTR_FLOAT;
        if (type[0] == 'i' && v->kind != ATTR_INT) return syntax(r, start, "'%s' is not an integer", num);
    }
    return true;
}

typedef struct composite_attrs {
    const char *keys[8];
    attr_value values[8];
    int n;
} composite_attrs;

static bool parse_composite_attrs(reader *r, composite_attrs *c)
{
    if (!expect(r, "{", "to open composite_attributes")) return false;
    if (accept(r, "}")) return true;
    do {
        if (c->n == 8) return unsupported(r, r->pos, "more than 8 composite attributes");
        char key[MAX_NAME];
        if (!parse_id(r, key, "an attribute name") || !expect(r, "=", "after the attribute name")) return false;
        for (int i = 0; i < c->n; i++)
            if (strcmp(c->keys[i], key) == 0) return syntax(r, r->pos, "attribute '%s' given twice", key);
        c->keys[c->n] = ts_arena_strndup(&r->arena, key, strlen(key));
        if (!c->keys[c->n]) return oom(r);
        if (!parse_attr_value(r, &c->values[c->n])) return false;
        c->n++;
    } while (accept(r, ","));
    return expect(r, "}", "to close composite_attributes");
}

/* The attribute `key` of the given kind; marks it used. */
static bool get_attr(reader *r, composite_attrs *c, unsigned *used, const char *key, int kind, size_t pos, const char *op, attr_value *out)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->keys[i], key) == 0) {
            if ((int)c->values[i].kind != kind) return syntax(r, c->values[i].pos, "%s: attribute '%s' has the wrong kind", op, key);
            *used |= 1u << i;
            *out = c->values[i];
            return true;
        }
    return syntax(r, pos, "%s needs the attribute '%s'", op, key);
}

static bool add_symbol_use(reader *r, const char *symbol, const ts_type *types, int n_operands, size_t pos,
                           const ts_graph *g, ts_value value)
{
    if (r->n_uses == r->cap_uses) {
        int cap = r->cap_uses ? r->cap_uses * 2 : 64;
        symbol_use *u = realloc(r->uses, sizeof(*u) * (size_t)cap);
        if (!u) return oom(r);
        r->uses = u;
        r->cap_uses = cap;
    }
    symbol_use *u = &r->uses[r->n_uses++];
    u->symbol = symbol;
    u->g = g;
    u->value = value;
    u->n_operands = n_operands;
    u->pos = pos;
    memcpy(u->types, types, sizeof(ts_type) * (size_t)(n_operands + 1));
    return true;
}

static bool read_composite(op_ctx *o)
{
    fn *f = o->f;
    const char *cname;
    skip_ws(R);
    size_t npos = R->pos;
    if (!parse_string(R, &cname)) return false;
    ts_op op = TS_OP_COUNT;
    for (int i = 0; i < TS_OP_COUNT; i++)
        if (ts_op_get_info((ts_op)i)->composite && strcmp(ts_op_get_info((ts_op)i)->stablehlo, cname) == 0) op = (ts_op)i;
    if (op == TS_OP_COUNT) return unsupported(R, npos, "unsupported composite \"%s\"", cname);
    ref refs[MAX_OPERANDS];
    int n;
    if (!parse_refs(R, &f->s, refs, 8, &n) || !expect(R, "{", "to open the composite's attributes")) return false;
    composite_attrs ca = {.n = 0};
    const char *symbol = NULL;
    do {
        char key[MAX_NAME];
        skip_ws(R);
        size_t kpos = R->pos;
        if (!parse_id(R, key, "an attribute name") || !expect(R, "=", "after the attribute name")) return false;
        if (strcmp(key, "composite_attributes") == 0) {
            if (!parse_composite_attrs(R, &ca)) return false;
        } else if (strcmp(key, "decomposition") == 0) {
            if (!parse_symbol(R, &symbol)) return false;
        } else if (strcmp(key, "version") == 0) {
            attr_value v;
            if (!parse_attr_value(R, &v)) return false;
        } else {
            return unsupported(R, kpos, "unsupported attribute '%s' on stablehlo.composite", key);
        }
    } while (accept(R, ","));
    if (!expect(R, "}", "to close the composite's attributes")) return false;
    if (!symbol) return syntax(R, o->pos, "stablehlo.composite needs decomposition = @name");
    ts_type ins[MAX_OPERANDS + 1], outs[1];
    int n_ins, n_outs;
    bool plain;
    if (!expect(R, ":", "before the op's types") || !parse_signature(R, ins, MAX_OPERANDS, &n_ins, outs, 1, &n_outs, &plain) || !parse_loc(f)) return false;
    if (plain) return syntax(R, o->pos, "stablehlo.composite needs a functional type (...) -> R");
    if (n_outs != 1) return unsupported(R, o->pos, "composites with %d results are not supported", n_outs);
    if (!check_operand_types(f, refs, n, ins, n_ins, o->name)) return false;
    ins[n] = outs[0];

    unsigned used = 0;
    attr_value a1, a2, a3, a4;
    ts_value in[8] = {0};
    if (!operands(f, refs, n, in)) return false;
    set_stage(f, f->loc);
    ts_graph *g = f->g;
    ts_value v = TS_NO_VALUE;
    const char *name = cname;
    int want = ts_op_get_info(op)->n_inputs;
    if (want >= 0 && n != want) return syntax(R, o->pos, "%s takes %d operands, not %d", name, want, n);
    switch (op) {
    case TS_OP_RMS_NORM:
        if (!get_attr(R, &ca, &used, "eps", ATTR_FLOAT, o->pos, name, &a1) || !get_attr(R, &ca, &used, "weight_offset", ATTR_FLOAT, o->pos, name, &a2)) return false;
        v = ts_graph_rms_norm(g, in[0], in[1], a1.f, a2.f);
        break;
    case TS_OP_LAYER_NORM:
        if (!get_attr(R, &ca, &used, "eps", ATTR_FLOAT, o->pos, name, &a1)) return false;
        v = ts_graph_layer_norm(g, in[0], in[1], in[2], a1.f);
        break;
    case TS_OP_SOFTMAX:
        if (n < 1 || n > 2) return syntax(R, o->pos, "%s takes 1 or 2 operands, not %d", name, n);
        v = ts_graph_softmax(g, in[0], n > 1 ? in[1] : TS_NO_VALUE);
        break;
    case TS_OP_ROPE:
        if (!get_attr(R, &ca, &used, "interleaved", ATTR_BOOL, o->pos, name, &a1) || !get_attr(R, &ca, &used, "rotary_dim", ATTR_INT, o->pos, name, &a2)) return false;
        if (a2.i < 0 || a2.i > MAX_DIM) return fail(R, a2.pos, TS_ERR_RANGE, "rotary_dim out of range");
        v = ts_graph_rope(g, in[0], in[1], in[2], (int)a2.i, a1.i != 0);
        break;
    case TS_OP_ATTENTION: {
        if (!get_attr(R, &ca, &used, "causal", ATTR_BOOL, o->pos, name, &a1) || !get_attr(R, &ca, &used, "has_bias", ATTR_BOOL, o->pos, name, &a2) ||
            !get_attr(R, &ca, &used, "scale", ATTR_FLOAT, o->pos, name, &a3) || !get_attr(R, &ca, &used, "softcap", ATTR_FLOAT, o->pos, name, &a4))
            return false;
        int expect_n = 3 + (a1.i != 0) + (a2.i != 0);
        if (n != expect_n) return syntax(R, o->pos, "%s with causal = %s and has_bias = %s takes %d operands, not %d", name, a1.i ? "true" : "false", a2.i ? "true" : "false", expect_n, n);
        ts_value bias = a2.i ? in[3] : TS_NO_VALUE, q_start = a1.i ? in[a2.i ? 4 : 3] : TS_NO_VALUE;
        v = ts_graph_attention(g, in[0], in[1], in[2], bias, q_start, a3.f, a4.f);
        break;
    }
    case TS_OP_GATED_MLP:
    case TS_OP_MOE_MLP: {
        if (!get_attr(R, &ca, &used, "activation", ATTR_STRING, o->pos, name, &a1)) return false;
        int act = -1;
        for (int i = 0; i < TS_ACT_COUNT; i++)
            if (strcmp(a1.s, ts_shlo_activation_name((ts_activation)i)) == 0) act = i;
        if (act < 0) return unsupported(R, a1.pos, "unknown activation \"%s\"", a1.s);
        if (op == TS_OP_GATED_MLP) {
            v = ts_graph_gated_mlp(g, in[0], in[1], in[2], in[3], (ts_activation)act);
            break;
        }
        if (!get_attr(R, &ca, &used, "normalize", ATTR_BOOL, o->pos, name, &a2) ||
            !get_attr(R, &ca, &used, "top_k", ATTR_INT, o->pos, name, &a3))
            return false;
        if (a3.i < 1 || a3.i > MAX_DIM) return fail(R, a3.pos, TS_ERR_RANGE, "top_k out of range");
        v = ts_graph_moe_mlp(g, in[0], in[1], in[2], in[3], (int)a3.i, a2.i != 0,
                             (ts_activation)act);
        break;
    }
    case TS_OP_LINEAR:
        if (n < 2 || n > 3) return syntax(R, o->pos, "%s takes 2 or 3 operands, not %d", name, n);
        v = ts_graph_linear(g, in[0], in[1], n > 2 ? in[2] : TS_NO_VALUE);
        break;
    case TS_OP_EMBEDDING: v = ts_graph_embedding(g, in[0], in[1]); break;
    case TS_OP_LORA_LINEAR:
        v = ts_graph_lora_linear(g, in[0], in[1], in[2], in[3], in[4], in[5]);
        break;
    case TS_OP_ERF: v = ts_graph_unary(g, TS_OP_ERF, in[0]); break;
    case TS_OP_QLINEAR: {
        if (!get_attr(R, &ca, &used, "bits", ATTR_INT, o->pos, name, &a1) || !get_attr(R, &ca, &used, "block", ATTR_INT, o->pos, name, &a2) ||
            !get_attr(R, &ca, &used, "has_bias", ATTR_BOOL, o->pos, name, &a3) || !get_attr(R, &ca, &used, "has_zero", ATTR_BOOL, o->pos, name, &a4))
            return false;
        int expect_n = 3 + (a3.i != 0) + (a4.i != 0);
        if (n != expect_n) return syntax(R, o->pos, "%s with has_bias = %s and has_zero = %s takes %d operands, not %d", name, a3.i ? "true" : "false", a4.i ? "true" : "false", expect_n, n);
        if (a2.i < 1 || a2.i > MAX_DIM) return fail(R, a2.pos, TS_ERR_RANGE, "block out of range");
        ts_value zero = a4.i ? in[3] : TS_NO_VALUE, bias = a3.i ? in[a4.i ? 4 : 3] : TS_NO_VALUE;
        v = ts_graph_qlinear(g, in[0], in[1], in[2], zero, bias, a2.i);
        /* bits is implied by the weight type; a module that says otherwise is refused. */
        if (v != TS_NO_VALUE && ts_graph_node(g, v)->attrs.qlinear.bits != a1.i)
            return syntax(R, a1.pos, "%s: bits = %lld disagrees with the weight type", name, (long long)a1.i);
        break;
    }
    default: break;
    }
    for (int i = 0; i < ca.n; i++)
        if (!(used & (1u << i))) return unsupported(R, ca.values[i].pos, "unknown attribute '%s' for %s", ca.keys[i], name);
    return finish(o, v, &outs[0]) && add_symbol_use(R, symbol, ins, n, o->pos, g, v);
}

/* ------------------------------------------------------------------ functions */

static ts_op pretty_op(const char *name)
{
    for (int i = 0; i < TS_OP_COUNT; i++) {
        const ts_op_info *info = ts_op_get_info((ts_op)i);
        if (info->composite || i == TS_OP_PARAMETER || i == TS_OP_GATHER || i == TS_OP_SCATTER_ADD || i == TS_OP_REDUCE_SUM ||
            i == TS_OP_REDUCE_MAX || i == TS_OP_ARGMAX)
            continue;
        if (strcmp(info->stablehlo, name) == 0) return (ts_op)i;
    }
    return TS_OP_COUNT;
}

static bool read_op(fn *f)
{
    reader *r = f->r;
    char name[MAX_NAME];
    skip_ws(r);
    size_t npos = r->pos;
    if (!parse_value_name(r, name)) return false;
    int n_results = 1;
    if (r->pos < r->len && r->text[r->pos] == ':') {
        r->pos++;
        int64_t k;
        if (!parse_int(r, &k, 1, 2, "a result count")) return false;
        n_results = (int)k;
    }
    if (!expect(r, "=", "after the result name")) return false;
    int32_t idx = scope_define(r, &f->s, name, npos);
    if (idx < 0) return false;
    op_ctx o = {.f = f, .result = idx, .n_results = n_results};
    skip_ws(r);
    o.pos = r->pos;
    char opname[MAX_NAME];
    if (peek(r) == '"') {
        const char *quoted;
        if (!parse_string(r, &quoted)) return false;
        if (strcmp(quoted, "stablehlo.gather") && strcmp(quoted, "stablehlo.scatter") && strcmp(quoted, "stablehlo.reduce"))
            return unsupported(r, o.pos, "unsupported op \"%s\" (generic form is read for gather, scatter and reduce)", quoted);
        o.name = quoted;
        return read_generic(&o);
    }
    if (!parse_id(r, opname, "an op name")) return false;
    o.name = ts_arena_strndup(&r->arena, opname, strlen(opname));
    if (!o.name) return oom(r);
    if (n_results != 1) return syntax(r, o.pos, "%s has one result, not %d", opname, n_results);
    if (strcmp(opname, "stablehlo.composite") == 0) return read_composite(&o);
    /* Other producers (jax) write erf in CHLO; Tessera prints it as the composite "tessera.erf". */
    if (strcmp(opname, "chlo.erf") == 0) return read_erf(&o);
    ts_op op = pretty_op(opname);
    switch (op) {
    case TS_OP_CONSTANT: return read_constant(&o);
    case TS_OP_IOTA: return read_iota(&o);
    case TS_OP_COMPARE: return read_compare(&o);
    case TS_OP_SELECT: return read_select(&o);
    case TS_OP_BROADCAST_IN_DIM:
    case TS_OP_TRANSPOSE: return read_with_dims(&o, op);
    case TS_OP_SLICE: return read_slice(&o);
    case TS_OP_DYNAMIC_SLICE:
    case TS_OP_DYNAMIC_UPDATE_SLICE:
    case TS_OP_CONCATENATE:
    case TS_OP_PAD: return read_operand_list_op(&o, op);
    case TS_OP_DOT_GENERAL: return read_dot_general(&o);
    case TS_OP_COUNT:
        if (strcmp(opname, "stablehlo.reduce") == 0 || strcmp(opname, "stablehlo.gather") == 0 || strcmp(opname, "stablehlo.scatter") == 0)
            return unsupported(r, o.pos, "%s is read in the generic form (\"%s\"(...) ...)", opname, opname);
        return unsupported(r, o.pos, "unsupported op %s", opname);
    default: return read_elementwise(&o, op);
    }
}

static bool add_func(reader *r, const char *name, size_t pos, func_sig **out)
{
    if (scope_find(&r->symbols, name) >= 0) return syntax(r, pos, "redefinition of @%s", name);
    if (scope_define(r, &r->symbols, name, pos) < 0) return false;
    if (r->n_funcs == r->cap_funcs) {
        if (r->n_funcs >= (1 << 16)) return fail(r, pos, TS_ERR_RANGE, "more than 65536 functions");
        int cap = r->cap_funcs ? r->cap_funcs * 2 : 16;
        func_sig *fs = realloc(r->funcs, sizeof(*fs) * (size_t)cap);
        if (!fs) return oom(r);
        r->funcs = fs;
        r->cap_funcs = cap;
    }
    func_sig *fs = &r->funcs[r->n_funcs++];
    memset(fs, 0, sizeof(*fs));
    fs->name = name;
    fs->pos = pos;
    *out = fs;
    return true;
}

/* {tessera.name = "…", tessera.role = "…"[, tf.aliasing_output = N : i32]} after an argument of
 * @main; *alias is N (the result that takes the argument's buffer) or stays -1. */
static bool parse_arg_attrs(reader *r, const char **name, ts_param_role *role, int *alias)
{
    if (accept(r, "}")) return true;
    do {
        char key[MAX_NAME];
        skip_ws(r);
        size_t kpos = r->pos;
        if (!parse_id(r, key, "an argument attribute") || !expect(r, "=", "after the attribute name")) return false;
        const char *value;
        if (strcmp(key, "tessera.name") == 0) {
            if (!parse_string(r, name)) return false;
        } else if (strcmp(key, "tessera.role") == 0) {
            skip_ws(r);
            size_t vpos = r->pos;
            if (!parse_string(r, &value)) return false;
            if (strcmp(value, "weight") == 0) *role = TS_PARAM_WEIGHT;
            else if (strcmp(value, "input") == 0) *role = TS_PARAM_INPUT;
            else if (strcmp(value, "state") == 0) *role = TS_PARAM_STATE;
            else return syntax(r, vpos, "unknown tessera.role \"%s\" (weight, input or state)", value);
        } else if (strcmp(key, "tf.aliasing_output") == 0) {
            int64_t n;
            char type[MAX_NAME];
            if (!parse_int(r, &n, 0, MAX_RESULTS - 1, "a result index") || !expect(r, ":", "after the result index")) return false;
            skip_ws(r);
            size_t tpos = r->pos;
            if (!parse_id(r, type, "i32")) return false;
            if (strcmp(type, "i32") != 0) return syntax(r, tpos, "tf.aliasing_output is an i32, not %s", type);
            *alias = (int)n;
        } else {
            return unsupported(r, kpos, "unsupported argument attribute '%s'", key);
        }
    } while (accept(r, ","));
    return expect(r, "}", "to close the argument attributes");
}

/* func.func [public|private] @name(args) [-> results] { body } into a new graph. */
static bool read_function(reader *r, ts_graph **out_graph, bool *is_main)
{
    *out_graph = NULL;
    if (!accept(r, "public")) accept(r, "private");
    skip_ws(r);
    size_t spos = r->pos;
    const char *sym;
    if (!parse_symbol(r, &sym)) return false;
    *is_main = strcmp(sym, "main") == 0;
    func_sig *sig = NULL;
    if (!add_func(r, sym, spos, &sig)) return false;
    fn f = {.r = r};
    if (ts_graph_create(&f.g, r->err) != TS_OK) {
        r->status = TS_ERR_OUT_OF_MEMORY;
        return false;
    }
    bool ok = false;
    ts_type *args = NULL, *results = NULL, *types = NULL;
    ref *refs = NULL;
    ts_value *vals = NULL;
    int cap_args = 0;
    /* Donated arguments (tf.aliasing_output), checked against the results at the return. */
    struct donation {
        ts_value param;
        int result;
        size_t pos;
    } *donations = NULL;
    int n_donations = 0;
    if (!expect(r, "(", "to open the argument list")) goto done;
    if (!accept(r, ")")) {
        do {
            char name[MAX_NAME];
            skip_ws(r);
            size_t apos = r->pos;
            ts_type t;
            if (!parse_value_name(r, name) || !expect(r, ":", "after an argument name") || !parse_type(r, &t)) goto done;
            const char *pname = NULL;
            ts_param_role role = TS_PARAM_INPUT;
            int alias = -1;
            if (accept(r, "{") && !parse_arg_attrs(r, &pname, &role, &alias)) goto done;
            if (!*is_main && (pname || alias >= 0)) {
                unsupported(r, apos, "argument names and aliasing are only read on @main");
                goto done;
            }
            int32_t idx = scope_define(r, &f.s, name, apos);
            if (idx < 0) goto done;
            f.g->stage = NULL;
            ts_value v = ts_graph_parameter(f.g, pname ? pname : name, role, t);
            if (!check_graph(&f, apos, "argument")) goto done;
            f.s.entries[idx].kind = ENTRY_VALUE;
            f.s.entries[idx].value = v;
            f.s.entries[idx].type = t;
            if (alias >= 0) {
                struct donation *d = realloc(donations, sizeof(*d) * (size_t)(n_donations + 1));
                if (!d) {
                    oom(r);
                    goto done;
                }
                donations = d;
                donations[n_donations++] = (struct donation){v, alias, apos};
            }
            if (sig->n_args == cap_args) {
                cap_args = cap_args ? cap_args * 2 : 16;
                ts_type *a = realloc(args, sizeof(ts_type) * (size_t)cap_args);
                if (!a) {
                    oom(r);
                    goto done;
                }
                args = a;
            }
            args[sig->n_args++] = t;
        } while (accept(r, ","));
        if (!expect(r, ")", "to close the argument list")) goto done;
    }
    int n_results = 0;
    int cap_results = 0;
    if (accept(r, "->")) {
        bool paren = accept(r, "(");
        if (!paren || !accept(r, ")")) {
            do {
                if (n_results == MAX_RESULTS) {
                    unsupported(r, r->pos, "more than %d results", MAX_RESULTS);
                    goto done;
                }
                if (n_results == cap_results) {
                    cap_results = cap_results ? cap_results * 2 : 16;
                    ts_type *t = realloc(results, sizeof(ts_type) * (size_t)cap_results);
                    if (!t) {
                        oom(r);
                        goto done;
                    }
                    results = t;
                }
                if (!parse_type(r, &results[n_results++])) goto done;
                if (paren && peek(r) == '{') {
                    unsupported(r, r->pos, "result attributes are not supported");
                    goto done;
                }
            } while (paren && accept(r, ","));
            if (paren && !expect(r, ")", "to close the result types")) goto done;
        }
    }
    if (!expect(r, "{", "to open the function body")) goto done;
    for (;;) {
        skip_ws(r);
        size_t pos = r->pos;
        if (accept(r, "return") || accept(r, "func.return")) {
            /* one more slot than declared, to report a longer return by its count */
            refs = malloc(sizeof(ref) * (size_t)(n_results + 1));
            types = malloc(sizeof(ts_type) * (size_t)(n_results + 1));
            vals = malloc(sizeof(ts_value) * (size_t)(n_results + 1));
            if (!refs || !types || !vals) {
                oom(r);
                goto done;
            }
            int n = 0;
            if (peek(r) == '%' && !parse_refs(r, &f.s, refs, n_results + 1, &n)) goto done;
            int n_types = 0;
            if (n) {
                if (!expect(r, ":", "before the returned types")) goto done;
                do {
                    if (n_types == n_results + 1 || !parse_type(r, &types[n_types++])) {
                        if (r->status == TS_OK) syntax(r, r->pos, "too many types");
                        goto done;
                    }
                } while (accept(r, ","));
            }
            if (n != n_results) {
                syntax(r, pos, "return gives %d values; the function declares %d results", n, n_results);
                goto done;
            }
            if (n && !check_operand_types(&f, refs, n, types, n_types, "return")) goto done;
            for (int i = 0; i < n; i++)
                if (!ts_type_equal(&types[i], &results[i])) {
                    char b1[160], b2[160];
                    syntax(r, refs[i].pos, "return value %d is %s; the function declares %s", i, type_str(&types[i], b1), type_str(&results[i], b2));
                    goto done;
                }
            if (!operands(&f, refs, n, vals)) goto done;
            ts_graph_set_outputs(f.g, vals, n);
            for (int i = 0; i < n_donations; i++) {
                const struct donation *d = &donations[i];
                const ts_node *p = ts_graph_node(f.g, d->param);
                char b1[160], b2[160];
                if (d->result >= n) {
                    syntax(r, d->pos, "argument %s: tf.aliasing_output = %d, but @%s has %d results", p->name, d->result, sym, n);
                    goto done;
                }
                if (p->attrs.parameter.role != TS_PARAM_STATE) {
                    syntax(r, d->pos, "argument %s: tf.aliasing_output on a non-state argument (only state is donated)", p->name);
                    goto done;
                }
                if (!ts_type_equal(&p->type, &results[d->result])) {
                    syntax(r, d->pos, "argument %s is %s; the result %d it aliases is %s", p->name, type_str(&p->type, b1), d->result,
                           type_str(&results[d->result], b2));
                    goto done;
                }
                ts_graph_alias_output(f.g, d->param, d->result);
                if (!check_graph(&f, d->pos, "tf.aliasing_output")) goto done;
            }
            if (!expect(r, "}", "after return (one block per function)")) goto done;
            break;
        }
        char c = peek(r);
        if (c == '}') {
            syntax(r, r->pos, "function @%s ends without a return", sym);
            goto done;
        }
        if (c == 0) {
            syntax(r, r->pos, "unexpected end of input in function @%s", sym);
            goto done;
        }
        if (c != '%') {
            char buf[32];
            if (isalpha((unsigned char)c)) {
                char id[MAX_NAME];
                if (parse_id(r, id, "an op")) unsupported(r, pos, "unsupported op %s (or an op without a result)", id);
            } else {
                syntax(r, pos, "expected an op or return, found %s", found(r, buf, sizeof(buf)));
            }
            goto done;
        }
        if (!read_op(&f)) goto done;
    }
    f.g->stage = NULL;
    sig->n_results = n_results;
    ok = true;
done:
    free(refs);
    free(types);
    free(vals);
    free(donations);
    sig->args = args;
    sig->results = results;
    scope_fini(&f.s);
    if (!ok) {
        ts_graph_destroy(f.g);
        return false;
    }
    *out_graph = f.g;
    return true;
}

/* Each composite's decomposition function exists, has its signature, and is exactly the
 * expansion graph/decompose.c gives (compared as canonical text): a body that says something else
 * would make the fused op Tessera runs differ from what the text means. */
static bool check_symbols(reader *r)
{
    ts_buf want, have;
    ts_buf_init(&want);
    ts_buf_init(&have);
    bool ok = true;
    for (int i = 0; ok && i < r->n_uses; i++) {
        const symbol_use *u = &r->uses[i];
        int32_t k = scope_find(&r->symbols, u->symbol);
        const func_sig *fs = k >= 0 ? &r->funcs[k] : NULL;
        if (!fs || !fs->graph) {
            ok = syntax(r, u->pos, "decomposition @%s is not defined", u->symbol);
            break;
        }
        bool same = fs->n_args == u->n_operands && fs->n_results == 1 && ts_type_equal(&fs->results[0], &u->types[u->n_operands]);
        for (int a = 0; same && a < u->n_operands; a++) same = ts_type_equal(&fs->args[a], &u->types[a]);
        if (!same) {
            ok = syntax(r, u->pos, "decomposition @%s does not have the composite's signature", u->symbol);
            break;
        }
        want.len = have.len = 0;
        ts_error e;
        if (ts_shlo_print_decomposition(u->g, u->value, &want, &e) != TS_OK || ts_shlo_print_function(fs->graph, &have, &e) != TS_OK) {
            ok = fail(r, u->pos, e.status, "%s", e.message);
            break;
        }
        if (strcmp(want.data, have.data) != 0) {
            ok = unsupported(r, u->pos, "decomposition @%s is not Tessera's expansion of %s", u->symbol,
                             ts_op_get_info(ts_graph_node(u->g, u->value)->op)->stablehlo);
            break;
        }
    }
    ts_buf_fini(&want);
    ts_buf_fini(&have);
    return ok;
}

ts_status ts_stablehlo_read(const char *text, size_t len, const char *origin, ts_graph **out, ts_error *err)
{
    *out = NULL;
    reader r = {.text = text, .len = len, .origin = origin ? origin : "stablehlo", .err = err, .status = TS_OK};
    ts_arena_init(&r.arena, 1 << 16);
    ts_graph *main_graph = NULL;
    bool wrapped = false;
    if (accept(&r, "module")) {
        wrapped = true;
        if (peek(&r) == '@') {
            const char *module_name;
            parse_symbol(&r, &module_name);
        }
        if (r.status == TS_OK && accept(&r, "attributes")) unsupported(&r, r.pos, "module attributes are not supported");
        if (r.status == TS_OK) expect(&r, "{", "to open the module");
    }
    while (r.status == TS_OK) {
        skip_ws(&r);
        if (wrapped && accept(&r, "}")) {
            skip_ws(&r);
            if (r.pos < r.len) {
                char buf[32];
                syntax(&r, r.pos, "text after the module: %s", found(&r, buf, sizeof(buf)));
            }
            break;
        }
        if (!wrapped && r.pos >= r.len) break;
        if (r.pos >= r.len) {
            syntax(&r, r.pos, "unexpected end of input: the module is not closed");
            break;
        }
        if (!accept(&r, "func.func")) {
            char buf[32];
            syntax(&r, r.pos, "expected func.func, found %s", found(&r, buf, sizeof(buf)));
            break;
        }
        ts_graph *g;
        bool is_main;
        if (!read_function(&r, &g, &is_main)) break;
        if (is_main) main_graph = g;
        else r.funcs[r.n_funcs - 1].graph = g; /* compared with the composites that call it */
    }
    if (r.status == TS_OK && !main_graph) syntax(&r, r.len, "no @main function");
    if (r.status == TS_OK) check_symbols(&r);
    for (int i = 0; i < r.n_funcs; i++) {
        ts_graph_destroy(r.funcs[i].graph);
        free(r.funcs[i].args);
        free(r.funcs[i].results);
    }
    free(r.funcs);
    free(r.uses);
    scope_fini(&r.symbols);
    ts_arena_fini(&r.arena);
    if (r.status != TS_OK) {
        ts_graph_destroy(main_graph);
        return r.status;
    }
    *out = main_graph;
    return TS_OK;
}
