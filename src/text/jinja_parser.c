/* jinja_parser.c — recursive descent over tokens, with jinja2's operator precedence:
 * cond-if < or < and < not < comparisons < + - < ~ < * / // % < ** < unary < postfix/filters. */
#include "text/jinja_parser.h"

#include <string.h>

typedef struct parser {
    ts_jinja_rt *rt;
    ts_jinja_token *t;
    size_t n, pos;
    int depth;
    int loop_depth; /* enclosing for bodies within the current macro: break/continue need one */
} parser;

typedef struct node_vec {
    ts_jinja_node **items;
    size_t n, cap;
} node_vec;

typedef struct name_vec {
    const char **items;
    size_t n, cap;
} name_vec;

static void vec_push(parser *p, node_vec *v, ts_jinja_node *node)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 4;
        ts_jinja_node **items = ts_jinja_alloc(p->rt, cap * sizeof(*items));
        if (v->n) memcpy(items, v->items, v->n * sizeof(*items));
        v->items = items;
        v->cap = cap;
    }
    v->items[v->n++] = node;
}

static void name_push(parser *p, name_vec *v, const char *name)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 4;
        const char **items = ts_jinja_alloc(p->rt, cap * sizeof(*items));
        if (v->n) memcpy(items, v->items, v->n * sizeof(*items));
        v->items = items;
        v->cap = cap;
    }
    v->items[v->n++] = name;
}

static ts_jinja_token *peek(parser *p)
{
    return &p->t[p->pos];
}
static ts_jinja_token *peek_at(parser *p, size_t k)
{
    return p->pos + k < p->n ? &p->t[p->pos + k] : &p->t[p->n - 1];
}
static ts_jinja_token *next(parser *p)
{
    ts_jinja_token *t = &p->t[p->pos];
    if (t->type != TS_JT_EOF) p->pos++;
    return t;
}

static _Noreturn void fail(parser *p, const ts_jinja_token *t, const char *fmt, const char *arg)
{
    p->rt->line = t->line;
    p->rt->col = t->col;
    ts_jinja_throw(p->rt, TS_ERR_FORMAT, fmt, arg);
}

static bool tok_is(const ts_jinja_token *t, ts_jinja_token_type type, const char *text)
{
    if (t->type != type) return false;
    return !text || (t->len == strlen(text) && memcmp(t->text, text, t->len) == 0);
}
static bool is_op(parser *p, const char *op)
{
    return tok_is(peek(p), TS_JT_OP, op);
}
static bool is_name(parser *p, const char *name)
{
    return tok_is(peek(p), TS_JT_NAME, name);
}

static bool accept_op(parser *p, const char *op)
{
    if (!is_op(p, op)) return false;
    next(p);
    return true;
}
static bool accept_name(parser *p, const char *name)
{
    if (!is_name(p, name)) return false;
    next(p);
    return true;
}

static void expect_op(parser *p, const char *op)
{
    if (!accept_op(p, op)) fail(p, peek(p), "expected '%s'", op);
}

static const char *describe(const ts_jinja_token *t)
{
    switch (t->type) {
    case TS_JT_EOF:
        return "end of template";
    case TS_JT_BLOCK_END:
        return "end of tag '%}'";
    case TS_JT_VAR_END:
        return "end of expression '}}'";
    case TS_JT_TEXT:
        return "text";
    default:
        return "token";
    }
}

static const char *expect_name(parser *p)
{
    ts_jinja_token *t = peek(p);
    if (t->type != TS_JT_NAME) fail(p, t, "expected a name, found %s", describe(t));
    next(p);
    return ts_jinja_string(p->rt, t->text, t->len).u.str.s;
}

static ts_jinja_node *node_new(parser *p, ts_jinja_node_kind kind, const ts_jinja_token *at)
{
    ts_jinja_node *n = ts_jinja_alloc(p->rt, sizeof(*n));
    n->kind = kind;
    n->line = at->line;
    n->col = at->col;
    return n;
}

static void enter(parser *p)
{
    if (++p->depth > 128) fail(p, peek(p), "%s", "template nested too deeply");
}

static ts_jinja_node *parse_expression(parser *p);
static ts_jinja_node *parse_or(parser *p);
static ts_jinja_node *parse_unary(parser *p, bool with_filter);
static ts_jinja_node *parse_primary(parser *p);
static ts_jinja_node *parse_postfix(parser *p, ts_jinja_node *node);

/* Call arguments after '(' up to ')': positional into items, name=value into names/items2. */
static void parse_args(parser *p, ts_jinja_node *call)
{
    node_vec pos = {0}, kwv = {0};
    name_vec kwn = {0};
    while (!is_op(p, ")")) {
        if (pos.n + kwv.n) expect_op(p, ",");
        if (is_op(p, ")")) break;
        if (peek(p)->type == TS_JT_NAME && tok_is(peek_at(p, 1), TS_JT_OP, "=")) {
            name_push(p, &kwn, expect_name(p));
            next(p);
            vec_push(p, &kwv, parse_expression(p));
        } else {
            if (kwv.n) fail(p, peek(p), "%s", "positional argument after keyword argument");
            vec_push(p, &pos, parse_expression(p));
        }
    }
    expect_op(p, ")");
    call->items = pos.items;
    call->n_items = pos.n;
    call->names = kwn.items;
    call->n_names = kwn.n;
    call->items2 = kwv.items;
    call->n_items2 = kwv.n;
}

static ts_jinja_node *parse_filter(parser *p, ts_jinja_node *input)
{
    ts_jinja_token *at = peek(p);
    const char *name = expect_name(p);
    if (!ts_jinja_is_filter(name)) fail(p, at, "unknown filter '%s'", name);
    ts_jinja_node *f = node_new(p, TS_JN_FILTER, at);
    f->a = input;
    f->str = name;
    if (accept_op(p, "(")) parse_args(p, f);
    return f;
}

static ts_jinja_node *parse_test(parser *p, ts_jinja_node *input)
{
    ts_jinja_token *at = peek(p);
    bool negate = accept_name(p, "not");
    at = peek(p);
    const char *name;
    /* `is none`, `is true` … are names, but `is not none` keeps working too. */
    name = expect_name(p);
    if (!ts_jinja_is_test(name)) fail(p, at, "unknown test '%s'", name);
    ts_jinja_node *t = node_new(p, TS_JN_TEST, at);
    t->a = input;
    t->str = name;
    t->negate = negate;
    if (accept_op(p, "(")) {
        parse_args(p, t);
    } else {
        ts_jinja_token *n = peek(p);
        bool arg = n->type == TS_JT_STRING || n->type == TS_JT_INT || n->type == TS_JT_FLOAT ||
                   tok_is(n, TS_JT_OP, "[") || tok_is(n, TS_JT_OP, "{") ||
                   (n->type == TS_JT_NAME && !tok_is(n, TS_JT_NAME, "else") &&
                    !tok_is(n, TS_JT_NAME, "or") && !tok_is(n, TS_JT_NAME, "and") &&
                    !tok_is(n, TS_JT_NAME, "if") && !tok_is(n, TS_JT_NAME, "is") &&
                    !tok_is(n, TS_JT_NAME, "in") && !tok_is(n, TS_JT_NAME, "not"));
        if (arg) {
            t->items = ts_jinja_alloc(p->rt, sizeof(ts_jinja_node *));
            t->items[0] = parse_postfix(p, parse_primary(p));
            t->n_items = 1;
        }
    }
    return t;
}

static ts_jinja_node *parse_filter_expr(parser *p, ts_jinja_node *node)
{
    for (;;) {
        if (accept_op(p, "|"))
            node = parse_filter(p, node);
        else if (accept_name(p, "is"))
            node = parse_test(p, node);
        else if (is_op(p, "(")) {
            ts_jinja_node *c = node_new(p, TS_JN_CALL, next(p));
            /* Blame the callee's start: `raise_exception(...)` reads better than its '('. */
            c->line = node->line;
            c->col = node->col;
            c->a = node;
            parse_args(p, c);
            node = c;
        } else
            return node;
    }
}

static ts_jinja_node *parse_postfix(parser *p, ts_jinja_node *node)
{
    for (;;) {
        ts_jinja_token *at = peek(p);
        if (accept_op(p, ".")) {
            ts_jinja_token *t = next(p);
            if (t->type == TS_JT_NAME) {
                ts_jinja_node *g = node_new(p, TS_JN_GETATTR, at);
                g->a = node;
                g->str = ts_jinja_string(p->rt, t->text, t->len).u.str.s;
                node = g;
            } else if (t->type == TS_JT_INT) {
                ts_jinja_node *g = node_new(p, TS_JN_GETITEM, at);
                g->a = node;
                g->b = node_new(p, TS_JN_LITERAL, t);
                g->b->value = ts_jinja_int(t->i);
                node = g;
            } else {
                fail(p, t, "%s", "expected an attribute name after '.'");
            }
        } else if (accept_op(p, "[")) {
            ts_jinja_node *parts[3] = {NULL, NULL, NULL};
            int n_colons = 0;
            for (;;) {
                if (is_op(p, "]")) break;
                if (accept_op(p, ":")) {
                    if (++n_colons > 2) fail(p, at, "%s", "too many ':' in slice");
                    continue;
                }
                if (parts[n_colons]) fail(p, peek(p), "%s", "expected ':' or ']' in subscript");
                parts[n_colons] = parse_expression(p);
            }
            expect_op(p, "]");
            ts_jinja_node *g;
            if (n_colons == 0) {
                if (!parts[0]) fail(p, at, "%s", "empty subscript");
                g = node_new(p, TS_JN_GETITEM, at);
                g->b = parts[0];
            } else {
                g = node_new(p, TS_JN_SLICE, at);
                g->b = parts[0];
                g->c = parts[1];
                g->d = parts[2];
            }
            g->a = node;
            node = g;
        } else if (is_op(p, "(")) {
            ts_jinja_node *c = node_new(p, TS_JN_CALL, next(p));
            /* Blame the callee's start: `raise_exception(...)` reads better than its '('. */
            c->line = node->line;
            c->col = node->col;
            c->a = node;
            parse_args(p, c);
            node = c;
        } else {
            return node;
        }
    }
}

static ts_jinja_node *parse_tuple_or_expr(parser *p, ts_jinja_token *at, const char *close)
{
    node_vec items = {0};
    bool trailing_comma = false;
    while (!is_op(p, close)) {
        if (items.n) {
            expect_op(p, ",");
            trailing_comma = true;
            if (is_op(p, close)) break;
        }
        vec_push(p, &items, parse_expression(p));
        trailing_comma = false;
    }
    expect_op(p, close);
    if (items.n == 1 && !trailing_comma) return items.items[0];
    ts_jinja_node *t = node_new(p, TS_JN_TUPLE, at);
    t->items = items.items;
    t->n_items = items.n;

    return t;
}

static ts_jinja_node *parse_primary(parser *p)
{
    enter(p);
    ts_jinja_token *t = next(p);
    ts_jinja_node *n = NULL;
    switch (t->type) {
    case TS_JT_NAME:
        n = node_new(p, TS_JN_LITERAL, t);
        if (tok_is(t, TS_JT_NAME, "true") || tok_is(t, TS_JT_NAME, "True"))
            n->value = ts_jinja_bool(true);
        else if (tok_is(t, TS_JT_NAME, "false") || tok_is(t, TS_JT_NAME, "False"))
            n->value = ts_jinja_bool(false);
        else if (tok_is(t, TS_JT_NAME, "none") || tok_is(t, TS_JT_NAME, "None"))
            n->value = ts_jinja_none();
        else {
            n->kind = TS_JN_NAME;
            n->str = ts_jinja_string(p->rt, t->text, t->len).u.str.s;
        }
        break;
    case TS_JT_STRING: {
        /* Adjacent literals concatenate, as in Python. */
        ts_jinja_buf b = {0};
        ts_jinja_buf_add(p->rt, &b, t->text, t->len);
        while (peek(p)->type == TS_JT_STRING) {
            ts_jinja_token *s = next(p);
            ts_jinja_buf_add(p->rt, &b, s->text, s->len);
        }
        n = node_new(p, TS_JN_LITERAL, t);
        n->value = ts_jinja_buf_value(p->rt, &b);
        break;
    }
    case TS_JT_INT:
        n = node_new(p, TS_JN_LITERAL, t);
        n->value = ts_jinja_int(t->i);
        break;
    case TS_JT_FLOAT:
        n = node_new(p, TS_JN_LITERAL, t);
        n->value = ts_jinja_float(t->f);
        break;
    case TS_JT_OP:
        if (tok_is(t, TS_JT_OP, "(")) {
            n = parse_tuple_or_expr(p, t, ")");
        } else if (tok_is(t, TS_JT_OP, "[")) {
            node_vec items = {0};
            while (!is_op(p, "]")) {
                if (items.n) {
                    expect_op(p, ",");
                    if (is_op(p, "]")) break;
                }
                vec_push(p, &items, parse_expression(p));
            }
            expect_op(p, "]");
            n = node_new(p, TS_JN_LIST, t);
            n->items = items.items;
            n->n_items = items.n;
        } else if (tok_is(t, TS_JT_OP, "{")) {
            node_vec keys = {0}, values = {0};
            while (!is_op(p, "}")) {
                if (keys.n) {
                    expect_op(p, ",");
                    if (is_op(p, "}")) break;
                }
                vec_push(p, &keys, parse_expression(p));
                expect_op(p, ":");
                vec_push(p, &values, parse_expression(p));
            }
            expect_op(p, "}");
            n = node_new(p, TS_JN_DICT, t);
            n->items = keys.items;
            n->n_items = keys.n;
            n->items2 = values.items;
            n->n_items2 = values.n;
        }
        break;
    default:
        break;
    }
    if (!n)
        fail(p, t, "unexpected %s in expression", t->type == TS_JT_OP ? "operator" : describe(t));
    p->depth--;
    return n;
}

static ts_jinja_node *parse_unary(parser *p, bool with_filter)
{
    enter(p);
    ts_jinja_token *at = peek(p);
    ts_jinja_node *node;
    if (is_op(p, "-") || is_op(p, "+")) {
        next(p);
        node = node_new(p, TS_JN_UNARY, at);
        node->op = at->text[0];
        node->a = parse_unary(p, false);
    } else {
        node = parse_postfix(p, parse_primary(p));
    }
    if (with_filter) node = parse_filter_expr(p, node);
    p->depth--;
    return node;
}

static ts_jinja_node *binary(parser *p, const ts_jinja_token *at, int op, ts_jinja_node *a,
                             ts_jinja_node *b)
{
    ts_jinja_node *n = node_new(p, TS_JN_BINARY, at);
    n->op = op;
    n->a = a;
    n->b = b;
    return n;
}

/* One left-associative precedence level: operand (op operand)* over the level's operators
 * (NULL-terminated; each is matched as a whole operator token). */
typedef struct binary_op {
    const char *text;
    int op;
} binary_op;

static ts_jinja_node *parse_level(parser *p, ts_jinja_node *(*operand)(parser *),
                                  const binary_op *ops)
{
    ts_jinja_node *left = operand(p);
    for (;;) {
        const binary_op *o = ops;
        while (o->text && !is_op(p, o->text))
            o++;
        if (!o->text) return left;
        ts_jinja_token *at = next(p);
        left = binary(p, at, o->op, left, operand(p));
    }
}

/* From the tightest level out: ** · (* / // %) · ~ · (+ -). */
static ts_jinja_node *parse_filtered_unary(parser *p)
{
    return parse_unary(p, true);
}

static ts_jinja_node *parse_pow(parser *p)
{
    static const binary_op ops[] = {{"**", TS_JB_POW}, {NULL, 0}};
    return parse_level(p, parse_filtered_unary, ops);
}

static ts_jinja_node *parse_math2(parser *p)
{
    static const binary_op ops[] = {
        {"*", TS_JB_MUL}, {"/", TS_JB_DIV}, {"//", TS_JB_FLOORDIV}, {"%", TS_JB_MOD}, {NULL, 0}};
    return parse_level(p, parse_pow, ops);
}

static ts_jinja_node *parse_concat(parser *p)
{
    static const binary_op ops[] = {{"~", TS_JB_CONCAT}, {NULL, 0}};
    return parse_level(p, parse_math2, ops);
}

static ts_jinja_node *parse_math1(parser *p)
{
    static const binary_op ops[] = {{"+", TS_JB_ADD}, {"-", TS_JB_SUB}, {NULL, 0}};
    return parse_level(p, parse_concat, ops);
}

static ts_jinja_node *parse_compare(parser *p)
{
    ts_jinja_node *left = parse_math1(p);
    ts_jinja_node *result = NULL;
    for (;;) {
        ts_jinja_token *at = peek(p);
        int op;
        if (is_op(p, "=="))
            op = TS_JB_EQ;
        else if (is_op(p, "!="))
            op = TS_JB_NE;
        else if (is_op(p, "<"))
            op = TS_JB_LT;
        else if (is_op(p, "<="))
            op = TS_JB_LE;
        else if (is_op(p, ">"))
            op = TS_JB_GT;
        else if (is_op(p, ">="))
            op = TS_JB_GE;
        else if (is_name(p, "in"))
            op = TS_JB_IN;
        else if (is_name(p, "not") && tok_is(peek_at(p, 1), TS_JT_NAME, "in")) {
            next(p);
            op = TS_JB_NOT_IN;
        } else
            break;
        next(p);
        ts_jinja_node *right = parse_math1(p);
        /* a < b < c is (a < b) and (b < c); b has no side effects worth doubling. */
        ts_jinja_node *cmp = binary(p, at, op, left, right);
        if (result) {
            ts_jinja_node *and = node_new(p, TS_JN_AND, at);
            and->a = result;
            and->b = cmp;
            result = and;
        } else {
            result = cmp;
        }
        left = right;
    }
    return result ? result : left;
}

static ts_jinja_node *parse_not(parser *p)
{
    ts_jinja_token *at = peek(p);
    if (accept_name(p, "not")) {
        enter(p);
        ts_jinja_node *n = node_new(p, TS_JN_UNARY, at);
        n->op = 'n';
        n->a = parse_not(p);
        p->depth--;
        return n;
    }
    return parse_compare(p);
}

static ts_jinja_node *parse_and(parser *p)
{
    ts_jinja_node *left = parse_not(p);
    while (is_name(p, "and")) {
        ts_jinja_node *n = node_new(p, TS_JN_AND, next(p));
        n->a = left;
        n->b = parse_not(p);
        left = n;
    }
    return left;
}

static ts_jinja_node *parse_or(parser *p)
{
    ts_jinja_node *left = parse_and(p);
    while (is_name(p, "or")) {
        ts_jinja_node *n = node_new(p, TS_JN_OR, next(p));
        n->a = left;
        n->b = parse_and(p);
        left = n;
    }
    return left;
}

static ts_jinja_node *parse_expression(parser *p)
{
    enter(p);
    ts_jinja_node *node = parse_or(p);
    while (is_name(p, "if")) {
        ts_jinja_node *c = node_new(p, TS_JN_COND, next(p));
        c->a = node;
        c->b = parse_or(p);
        if (accept_name(p, "else")) c->c = parse_expression(p);
        node = c;
    }
    p->depth--;
    return node;
}

/* ------------------------------------------------------------------------------ statements */

static void expect_block_end(parser *p)
{
    ts_jinja_token *t = peek(p);
    if (t->type != TS_JT_BLOCK_END) fail(p, t, "expected end of tag '%%}', found %s", describe(t));
    next(p);
}

/* Parses statements until a block tag whose name is one of `stops` (NULL-terminated); leaves
 * the parser on that name and returns its index, or -1 at end of template when allowed. */
static int parse_body(parser *p, node_vec *out, const char *const *stops,
                      const ts_jinja_token *opener, const char *opener_name);

static ts_jinja_node *body_node(parser *p, node_vec *v, const ts_jinja_token *at)
{
    ts_jinja_node *b = node_new(p, TS_JN_BODY, at);
    b->items = v->items;
    b->n_items = v->n;
    return b;
}

static void parse_targets(parser *p, name_vec *names)
{
    bool paren = accept_op(p, "(");
    do {
        name_push(p, names, expect_name(p));
    } while (accept_op(p, ","));
    if (paren) expect_op(p, ")");
}

static ts_jinja_node *parse_filter_chain(parser *p, const ts_jinja_token *at)
{
    ts_jinja_node *node = node_new(p, TS_JN_PLACEHOLDER, at);
    do {
        node = parse_filter(p, node);
    } while (accept_op(p, "|"));
    return node;
}

/* TS_JM_* for the varargs/kwargs/caller names a subtree mentions. The parser bounds the
 * tree's depth, so the recursion is bounded too. */
static int special_names(const ts_jinja_node *n)
{
    if (!n) return 0;
    int found = 0;
    if (n->kind == TS_JN_NAME) {
        if (strcmp(n->str, "varargs") == 0)
            found |= TS_JM_VARARGS;
        else if (strcmp(n->str, "kwargs") == 0)
            found |= TS_JM_KWARGS;
        else if (strcmp(n->str, "caller") == 0)
            found |= TS_JM_CALLER;
        else if (strcmp(n->str, "loop") == 0)
            found |= TS_JM_LOOP;
    }
    found |= special_names(n->a) | special_names(n->b) | special_names(n->c) | special_names(n->d);
    for (size_t i = 0; i < n->n_items; i++)
        found |= special_names(n->items[i]);
    for (size_t i = 0; i < n->n_items2; i++)
        found |= special_names(n->items2[i]);
    return found;
}

static ts_jinja_node *parse_statement(parser *p)
{
    ts_jinja_token *kw = peek(p);
    if (kw->type != TS_JT_NAME) fail(p, kw, "expected a tag name, found %s", describe(kw));
    const char *name = expect_name(p);
    enter(p);
    ts_jinja_node *n = NULL;
    if (strcmp(name, "if") == 0) {
        n = node_new(p, TS_JN_IF, kw);
        n->a = parse_expression(p);
        expect_block_end(p);
        ts_jinja_node *cur = n;
        for (;;) {
            static const char *const stops[] = {"elif", "else", "endif", NULL};
            node_vec body = {0};
            int which = parse_body(p, &body, stops, kw, "if");
            cur->items = body.items;
            cur->n_items = body.n;
            ts_jinja_token *st = next(p);
            if (which == 0) {
                ts_jinja_node *elif = node_new(p, TS_JN_IF, st);
                elif->a = parse_expression(p);
                expect_block_end(p);
                cur->items2 = ts_jinja_alloc(p->rt, sizeof(ts_jinja_node *));
                cur->items2[0] = elif;
                cur->n_items2 = 1;
                cur = elif;
            } else if (which == 1) {
                expect_block_end(p);
                static const char *const end[] = {"endif", NULL};
                node_vec els = {0};
                parse_body(p, &els, end, kw, "if");
                next(p);
                cur->items2 = els.items;
                cur->n_items2 = els.n;
                expect_block_end(p);
                break;
            } else {
                expect_block_end(p);
                break;
            }
        }
    } else if (strcmp(name, "for") == 0) {
        n = node_new(p, TS_JN_FOR, kw);
        name_vec targets = {0};
        parse_targets(p, &targets);
        n->names = targets.items;
        n->n_names = targets.n;
        if (!accept_name(p, "in")) fail(p, peek(p), "%s", "expected 'in' in for loop");
        /* The iterable may not use an un-parenthesised conditional: `if` starts the filter. */
        n->a = parse_or(p);
        if (accept_name(p, "if")) n->b = parse_expression(p);
        if (is_name(p, "recursive")) fail(p, peek(p), "%s", "recursive loops are not supported");
        expect_block_end(p);
        static const char *const stops[] = {"else", "endfor", NULL};
        node_vec body = {0};
        p->loop_depth++;
        int which = parse_body(p, &body, stops, kw, "for");
        p->loop_depth--;
        for (size_t i = 0; i < body.n; i++)
            n->op |= special_names(body.items[i]) & TS_JM_LOOP;
        n->items = body.items;
        n->n_items = body.n;
        next(p);
        expect_block_end(p);
        if (which == 0) {
            static const char *const end[] = {"endfor", NULL};
            node_vec els = {0};
            parse_body(p, &els, end, kw, "for");
            next(p);
            expect_block_end(p);
            n->items2 = els.items;
            n->n_items2 = els.n;
        }
    } else if (strcmp(name, "set") == 0) {
        ts_jinja_token *target_at = peek(p);
        name_vec targets = {0};
        name_push(p, &targets, expect_name(p));
        if (accept_op(p, ".")) {
            n = node_new(p, TS_JN_SET, kw);
            ts_jinja_node *obj = node_new(p, TS_JN_NAME, target_at);
            obj->str = targets.items[0];
            n->a = node_new(p, TS_JN_GETATTR, target_at);
            n->a->a = obj;
            n->a->str = expect_name(p);
            expect_op(p, "=");
            n->b = parse_expression(p);
            expect_block_end(p);
        } else {
            while (accept_op(p, ","))
                name_push(p, &targets, expect_name(p));
            if (accept_op(p, "=")) {
                n = node_new(p, TS_JN_SET, kw);
                n->b = parse_expression(p);
                if (is_op(p, ",")) {
                    ts_jinja_node *tuple = node_new(p, TS_JN_TUPLE, kw);
                    node_vec items = {0};
                    vec_push(p, &items, n->b);
                    while (accept_op(p, ","))
                        vec_push(p, &items, parse_expression(p));
                    tuple->items = items.items;
                    tuple->n_items = items.n;
                    n->b = tuple;
                }
                expect_block_end(p);
            } else {
                if (targets.n != 1) fail(p, peek(p), "%s", "expected '=' after set targets");
                n = node_new(p, TS_JN_SET_BLOCK, kw);
                if (accept_op(p, "|")) n->b = parse_filter_chain(p, kw);
                expect_block_end(p);
                static const char *const stops[] = {"endset", NULL};
                node_vec body = {0};
                parse_body(p, &body, stops, kw, "set");
                next(p);
                expect_block_end(p);
                n->items = body.items;
                n->n_items = body.n;
            }
            n->names = targets.items;
            n->n_names = targets.n;
        }
    } else if (strcmp(name, "macro") == 0 || strcmp(name, "call") == 0) {
        bool is_call = name[0] == 'c';
        n = node_new(p, is_call ? TS_JN_CALL_BLOCK : TS_JN_MACRO, kw);
        name_vec params = {0};
        node_vec defaults = {0};
        if (!is_call) n->str = expect_name(p);
        if (!is_call || is_op(p, "(")) {
            expect_op(p, "(");
            while (!is_op(p, ")")) {
                if (params.n) expect_op(p, ",");
                name_push(p, &params, expect_name(p));
                vec_push(p, &defaults, accept_op(p, "=") ? parse_expression(p) : NULL);
            }
            expect_op(p, ")");
        }
        n->names = params.items;
        n->n_names = params.n;
        n->items2 = defaults.items;
        n->n_items2 = defaults.n;
        if (is_call) {
            n->a = parse_expression(p);
            if (n->a->kind != TS_JN_CALL) fail(p, kw, "%s", "{% call %} needs a macro call");
        }
        expect_block_end(p);
        static const char *const mstops[] = {"endmacro", NULL};
        static const char *const cstops[] = {"endcall", NULL};
        node_vec body = {0};
        /* A macro or caller body is a function of its own: no loop encloses it. */
        int loops = p->loop_depth;
        p->loop_depth = 0;
        parse_body(p, &body, is_call ? cstops : mstops, kw, name);
        p->loop_depth = loops;
        next(p);
        if (!is_call && peek(p)->type == TS_JT_NAME) next(p); /* {% endmacro name %} */
        expect_block_end(p);
        n->items = body.items;
        n->n_items = body.n;
        for (size_t i = 0; i < body.n; i++)
            n->op |= special_names(body.items[i]);
    } else if (strcmp(name, "filter") == 0) {
        n = node_new(p, TS_JN_FILTER_BLOCK, kw);
        n->b = parse_filter_chain(p, kw);
        expect_block_end(p);
        static const char *const stops[] = {"endfilter", NULL};
        node_vec body = {0};
        parse_body(p, &body, stops, kw, "filter");
        next(p);
        expect_block_end(p);
        n->items = body.items;
        n->n_items = body.n;
    } else if (strcmp(name, "with") == 0) {
        n = node_new(p, TS_JN_WITH, kw);
        name_vec names = {0};
        node_vec values = {0};
        while (peek(p)->type != TS_JT_BLOCK_END) {
            if (names.n) expect_op(p, ",");
            name_push(p, &names, expect_name(p));
            expect_op(p, "=");
            vec_push(p, &values, parse_expression(p));
        }
        expect_block_end(p);
        static const char *const stops[] = {"endwith", NULL};
        node_vec body = {0};
        parse_body(p, &body, stops, kw, "with");
        next(p);
        expect_block_end(p);
        n->names = names.items;
        n->n_names = names.n;
        n->items2 = values.items;
        n->n_items2 = values.n;
        n->items = body.items;
        n->n_items = body.n;
    } else if (strcmp(name, "generation") == 0) {
        /* transformers' AssistantTracker tag: renders its body unchanged. */
        expect_block_end(p);
        static const char *const stops[] = {"endgeneration", NULL};
        node_vec body = {0};
        parse_body(p, &body, stops, kw, "generation");
        next(p);
        expect_block_end(p);
        n = body_node(p, &body, kw);
    } else if (strcmp(name, "break") == 0 || strcmp(name, "continue") == 0) {
        if (p->loop_depth == 0) fail(p, kw, "'%s' outside a for loop", name);
        n = node_new(p, name[0] == 'b' ? TS_JN_BREAK : TS_JN_CONTINUE, kw);
        expect_block_end(p);
    } else {
        fail(p, kw, "unknown tag '%s'", name);
    }

    p->depth--;
    return n;
}

static int parse_body(parser *p, node_vec *out, const char *const *stops,
                      const ts_jinja_token *opener, const char *opener_name)
{
    for (;;) {
        ts_jinja_token *t = peek(p);
        switch (t->type) {
        case TS_JT_EOF:
            if (!stops) return -1;
            fail(p, opener, "unclosed '%s' block: end of template before its end tag", opener_name);
        case TS_JT_TEXT: {
            ts_jinja_node *n = node_new(p, TS_JN_TEXT, t);
            n->str = t->text;
            n->len = t->len;
            vec_push(p, out, n);
            next(p);
            break;
        }
        case TS_JT_VAR_BEGIN: {
            next(p);
            ts_jinja_node *n = node_new(p, TS_JN_OUTPUT, t);
            n->a = parse_expression(p);
            ts_jinja_token *e = peek(p);
            if (e->type != TS_JT_VAR_END)
                fail(p, e, "expected end of expression '}}', found %s", describe(e));
            next(p);
            vec_push(p, out, n);
            break;
        }
        case TS_JT_BLOCK_BEGIN: {
            ts_jinja_token *name = peek_at(p, 1);
            if (stops && name->type == TS_JT_NAME) {
                for (int k = 0; stops[k]; k++)
                    if (tok_is(name, TS_JT_NAME, stops[k])) {
                        next(p);
                        return k;
                    }
            }
            if (name->type == TS_JT_NAME && name->len > 3 &&
                (memcmp(name->text, "end", 3) == 0 || tok_is(name, TS_JT_NAME, "else") ||
                 tok_is(name, TS_JT_NAME, "elif"))) {
                char buf[64];
                size_t n = name->len < sizeof(buf) - 1 ? name->len : sizeof(buf) - 1;
                memcpy(buf, name->text, n);
                buf[n] = '\0';
                fail(p, name, "unexpected '%s' here", buf);
            }
            next(p);
            vec_push(p, out, parse_statement(p));
            break;
        }
        default:
            fail(p, t, "unexpected %s", describe(t));
        }
    }
}

ts_jinja_node *ts_jinja_parse(ts_jinja_rt *rt, const char *source, size_t len)
{
    parser p = {.rt = rt};
    ts_jinja_lex(rt, source, len, &p.t, &p.n);
    node_vec body = {0};
    parse_body(&p, &body, NULL, NULL, NULL);
    return body_node(&p, &body, &p.t[0]);
}
