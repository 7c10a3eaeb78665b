/* jinja_value.h — the value model of the Jinja interpreter and the runtime it lives in.
 *
 * Values are small structs copied by value; strings, lists, dicts and callables point into the
 * runtime's arena and die with it (one ts_jinja_rt per compile or render, freed in one call).
 * Strings are UTF-8 and immutable; lists and dicts are only mutated while being built, except
 * namespace() objects, which `{% set ns.x = … %}` updates in place.
 * Errors unwind: ts_jinja_throw formats "origin:line:col: message" into rt->error and longjmps
 * to the jmp_buf armed by the entry point (compile or render), which frees the arena.
 * str()/repr()/equality/ordering follow Python, because Hugging Face renders with jinja2.
 */
#ifndef TS_TEXT_JINJA_VALUE_H
#define TS_TEXT_JINJA_VALUE_H

#include "base/arena.h"
#include "tessera.h"

#include <setjmp.h>
#include <stdarg.h>

typedef enum ts_jinja_kind {
    TS_JV_UNDEFINED = 0,
    TS_JV_NONE,
    TS_JV_BOOL,
    TS_JV_INT,
    TS_JV_FLOAT,
    TS_JV_STRING,
    TS_JV_LIST,
    TS_JV_DICT,
    TS_JV_CALLABLE,
} ts_jinja_kind;

enum {
    TS_JV_TUPLE = 1u << 0,         /* a list that prints as (a, b) */
    TS_JV_NAMESPACE = 1u << 1,     /* a dict whose attributes may be set */
    TS_JV_LOOP = 1u << 2,          /* the `loop` object; has cycle() */
    TS_JV_UNDEF_MESSAGE = 1u << 3, /* an undefined whose str.s is the whole error message */
    /* Lists that stand for Python objects jinja2 filters and dict methods return: a generator
     * (map, select, unique, … — always true, no len, not subscriptable) or a dict view
     * (d.items()/keys()/values() — len, no indexing). */
    TS_JV_ITERATOR = 1u << 4,
    TS_JV_VIEW_ITEMS = 1u << 5,
    TS_JV_VIEW_KEYS = 1u << 6,
    TS_JV_VIEW_VALUES = 1u << 7,
    TS_JV_VIEW = TS_JV_VIEW_ITEMS | TS_JV_VIEW_KEYS | TS_JV_VIEW_VALUES,
};

typedef struct ts_jinja_list ts_jinja_list;
typedef struct ts_jinja_dict ts_jinja_dict;
typedef struct ts_jinja_callable ts_jinja_callable;

typedef struct ts_jinja_value {
    uint8_t kind;
    uint8_t flags;
    union {
        bool b;
        int64_t i;
        double f;
        struct {
            const char *s; /* for undefined: the missing name, may be NULL */
            size_t len;
        } str;
        ts_jinja_list *list;
        ts_jinja_dict *dict;
        ts_jinja_callable *fn;
    } u;
} ts_jinja_value;

struct ts_jinja_list {
    size_t n, cap;
    ts_jinja_value *items;
    /* A generator whose first step fails (jinja2 raises only when it is consumed): iterating
     * throws this message; truthiness, str() and item lookups do not. NULL otherwise. */
    const char *error; /* the whole message, origin:line:col included */
    ts_status error_status;
};

struct ts_jinja_dict {
    size_t n, cap;
    ts_jinja_value *keys;
    ts_jinja_value *values;
};

typedef enum ts_jinja_callable_kind {
    TS_JC_GLOBAL, /* range, namespace, raise_exception, … */
    TS_JC_METHOD, /* a bound method: self + name */
    TS_JC_MACRO,  /* a template macro (node + defining frame) */
} ts_jinja_callable_kind;

struct ts_jinja_callable {
    ts_jinja_callable_kind kind;
    const char *name;
    ts_jinja_value self;
    const void *node;        /* macro definition */
    void *frame;             /* macro's defining scope */
    const void *caller_body; /* a {% call %} body bound as `caller` */
};

/* Render-time limits: hostile templates end in an error, never a crash or a hang. */
typedef struct ts_jinja_limits {
    size_t max_output;  /* bytes of rendered text */
    size_t max_memory;  /* arena bytes */
    int max_depth;      /* nested macro calls / expression recursion */
    uint64_t max_steps; /* evaluated nodes */
} ts_jinja_limits;

typedef struct ts_jinja_rt {
    ts_arena arena;
    jmp_buf *jump;
    const char *origin;
    int line, col; /* position blamed by ts_jinja_throw */
    ts_error *error;
    ts_jinja_limits limits;
    int depth;
    uint64_t steps;
} ts_jinja_rt;

void ts_jinja_rt_init(ts_jinja_rt *rt, const char *origin, ts_error *err);
void ts_jinja_rt_fini(ts_jinja_rt *rt);
_Noreturn void ts_jinja_throw(ts_jinja_rt *rt, ts_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Arena allocation; throws when out of memory or over limits.max_memory. */
void *ts_jinja_alloc(ts_jinja_rt *rt, size_t size);
/* Throws a message that is already complete (a deferred error being delivered). */
_Noreturn void ts_jinja_rethrow(ts_jinja_rt *rt, ts_status status, const char *message);

/* A growable byte buffer in the arena. */
typedef struct ts_jinja_buf {
    char *data;
    size_t len, cap;
    size_t limit; /* 0 = limits.max_output */
} ts_jinja_buf;

void ts_jinja_buf_add(ts_jinja_rt *rt, ts_jinja_buf *b, const char *s, size_t len);
void ts_jinja_buf_addc(ts_jinja_rt *rt, ts_jinja_buf *b, char c);
void ts_jinja_buf_addf(ts_jinja_rt *rt, ts_jinja_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The buffer's text as a string value (NUL-terminated). */
ts_jinja_value ts_jinja_buf_value(ts_jinja_rt *rt, ts_jinja_buf *b);

/* Constructors. */
ts_jinja_value ts_jinja_undefined(const char *name);
/* The undefined a missing member yields; using it later says "'dict object' has no attribute 'x'".
 */
ts_jinja_value ts_jinja_undefined_member(ts_jinja_rt *rt, ts_jinja_value owner, ts_jinja_value key);
/* What using undefined `u` is told as, jinja2-style ("'x' is undefined"). */
_Noreturn void ts_jinja_throw_undefined(ts_jinja_rt *rt, ts_jinja_value u);
ts_jinja_value ts_jinja_none(void);
ts_jinja_value ts_jinja_bool(bool b);
ts_jinja_value ts_jinja_int(int64_t i);
ts_jinja_value ts_jinja_float(double f);
/* Copies s into the arena. */
ts_jinja_value ts_jinja_string(ts_jinja_rt *rt, const char *s, size_t len);
ts_jinja_value ts_jinja_cstring(ts_jinja_rt *rt, const char *s);
/* Borrows s; s must outlive the value (literals, arena text). */
ts_jinja_value ts_jinja_string_ref(const char *s, size_t len);
ts_jinja_value ts_jinja_list_new(ts_jinja_rt *rt, size_t cap);
void ts_jinja_list_push(ts_jinja_rt *rt, ts_jinja_value list, ts_jinja_value item);
ts_jinja_value ts_jinja_dict_new(ts_jinja_rt *rt, size_t cap);
/* Replaces the value of an equal key, else appends. */
void ts_jinja_dict_set(ts_jinja_rt *rt, ts_jinja_value dict, ts_jinja_value key, ts_jinja_value v);
/* NULL when absent. */
ts_jinja_value *ts_jinja_dict_get(ts_jinja_value dict, ts_jinja_value key);
ts_jinja_value *ts_jinja_dict_get_str(ts_jinja_value dict, const char *key);
ts_jinja_value ts_jinja_callable_new(ts_jinja_rt *rt, ts_jinja_callable_kind kind,
                                     const char *name);

bool ts_jinja_truthy(ts_jinja_value v);
/* Python ==, with 1 == 1.0 == True. */
bool ts_jinja_equal(ts_jinja_value a, ts_jinja_value b);
/* Python <, >, …: -1/0/1; throws on unorderable types. */
int ts_jinja_compare(ts_jinja_rt *rt, ts_jinja_value a, ts_jinja_value b);
/* str() as jinja2 prints it: undefined → "", None → "None", lists in repr form. */
void ts_jinja_str(ts_jinja_rt *rt, ts_jinja_buf *out, ts_jinja_value v);
void ts_jinja_repr(ts_jinja_rt *rt, ts_jinja_buf *out, ts_jinja_value v);
ts_jinja_value ts_jinja_to_string(ts_jinja_rt *rt, ts_jinja_value v);
/* Python's repr(float): shortest round-trip digits. */
void ts_jinja_format_float(char *buf, size_t cap, double f);
const char *ts_jinja_kind_name(ts_jinja_value v);
/* Code points in a UTF-8 string; byte offset of code point `index`. */
size_t ts_jinja_utf8_length(const char *s, size_t len);
size_t ts_jinja_utf8_offset(const char *s, size_t len, size_t index);
/* Iteration view: lists as-is, dict keys, string characters; throws if not iterable. */
ts_jinja_value ts_jinja_iterate(ts_jinja_rt *rt, ts_jinja_value v);

#endif
