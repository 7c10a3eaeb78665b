/* jinja_parser.h — the Jinja syntax tree and the parser that builds it from tokens.
 *
 * One node type serves statements and expressions; `kind` says which fields mean what (listed
 * beside each kind). Nodes live in rt's arena and are immutable once parsed, so one compiled
 * template may be rendered many times. Unknown tags, filters and tests, unclosed blocks and
 * malformed expressions throw with origin:line:column; nesting is bounded.
 */
#ifndef TS_TEXT_JINJA_PARSER_H
#define TS_TEXT_JINJA_PARSER_H

#include "text/jinja_lexer.h"

typedef enum ts_jinja_node_kind {
    /* statements */
    TS_JN_BODY,      /* items: statements */
    TS_JN_TEXT,      /* str */
    TS_JN_OUTPUT,    /* a: expression */
    TS_JN_IF,        /* a: condition, items: then, items2: else (an elif is a nested IF) */
    TS_JN_FOR,       /* names: targets, a: iterable, b: filter or NULL, items: body, items2: else */
    TS_JN_SET,       /* names: targets, or a: attribute target (GETATTR); b: value */
    TS_JN_SET_BLOCK, /* names[0]: target, items: body, b: filter chain on PLACEHOLDER or NULL */
    TS_JN_MACRO,     /* str: name, names: params, items2: defaults (NULL entries), items: body,
                        op: TS_JM_* names the body uses */
    TS_JN_CALL_BLOCK,   /* a: CALL expression, names/items2: caller params/defaults, items: body */
    TS_JN_FILTER_BLOCK, /* b: filter chain on PLACEHOLDER, items: body */
    TS_JN_WITH,         /* names + items2: assignments, items: body (a scope of its own) */
    TS_JN_BREAK,
    TS_JN_CONTINUE,
    /* expressions */
    TS_JN_LITERAL,     /* value */
    TS_JN_NAME,        /* str */
    TS_JN_LIST,        /* items */
    TS_JN_TUPLE,       /* items */
    TS_JN_DICT,        /* items: keys, items2: values */
    TS_JN_GETATTR,     /* a: object, str: attribute */
    TS_JN_GETITEM,     /* a: object, b: key */
    TS_JN_SLICE,       /* a: object, b/c/d: start/stop/step or NULL */
    TS_JN_CALL,        /* a: callee, items: positional, names+items2: keyword arguments */
    TS_JN_FILTER,      /* a: input, str: filter, items/names/items2: arguments */
    TS_JN_TEST,        /* a: input, str: test, items: arguments, negate */
    TS_JN_UNARY,       /* op: '-', '+' or 'n' (not); a */
    TS_JN_BINARY,      /* op: see ts_jinja_binop; a, b */
    TS_JN_AND,         /* a, b */
    TS_JN_OR,          /* a, b */
    TS_JN_COND,        /* a: then, b: condition, c: else or NULL */
    TS_JN_PLACEHOLDER, /* the body text fed to a filter block / set block filter */
} ts_jinja_node_kind;

/* A macro accepts extra positional arguments, unknown keywords or a caller only when its body
 * names varargs, kwargs or caller (jinja2's rule). */
enum {
    TS_JM_VARARGS = 1,
    TS_JM_KWARGS = 2,
    TS_JM_CALLER = 4,
    TS_JM_LOOP = 8 /* FOR: body uses loop */
};

typedef enum ts_jinja_binop {
    TS_JB_ADD,
    TS_JB_SUB,
    TS_JB_MUL,
    TS_JB_DIV,
    TS_JB_FLOORDIV,
    TS_JB_MOD,
    TS_JB_POW,
    TS_JB_CONCAT,
    TS_JB_EQ,
    TS_JB_NE,
    TS_JB_LT,
    TS_JB_LE,
    TS_JB_GT,
    TS_JB_GE,
    TS_JB_IN,
    TS_JB_NOT_IN,
} ts_jinja_binop;

typedef struct ts_jinja_node ts_jinja_node;
struct ts_jinja_node {
    ts_jinja_node_kind kind;
    int line, col;
    int op;
    bool negate;
    ts_jinja_node *a, *b, *c, *d;
    ts_jinja_node **items;
    size_t n_items;
    ts_jinja_node **items2;
    size_t n_items2;
    const char **names;
    size_t n_names;
    const char *str;
    size_t len;
    ts_jinja_value value;
};

/* Returns the template's BODY node. */
ts_jinja_node *ts_jinja_parse(ts_jinja_rt *rt, const char *source, size_t len);

/* Known filter and test names, checked at parse time (jinja2 does the same). */
bool ts_jinja_is_filter(const char *name);
bool ts_jinja_is_test(const char *name);

#endif
