/* jinja_interp.c — a tree-walking interpreter over the parsed template.
 *
 * Scopes follow jinja2: a for loop and a macro call open a scope, `set` writes the innermost
 * one (so a loop's assignments vanish after it, which is why templates use namespace()), and
 * lookups walk outwards to the render's variables and then the builtin globals. */
#include "text/jinja_interp.h"

#include "base/error.h"
#include "text/jinja_builtins.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ts_jinja_program {
    ts_jinja_rt rt; /* owns the syntax tree */
    ts_jinja_node *root;
    char *origin;
};

typedef struct frame frame;
struct frame {
    frame *parent;
    const char **names;
    ts_jinja_value *values;
    size_t n, cap;
};

typedef struct interp {
    ts_jinja_rt *rt;
    ts_jinja_value placeholder; /* the body text a filter block filters */
} interp;

enum { FLOW_NORMAL, FLOW_BREAK, FLOW_CONTINUE };

static frame *frame_new(ts_jinja_rt *rt, frame *parent)
{
    frame *f = ts_jinja_alloc(rt, sizeof(*f));
    f->parent = parent;
    return f;
}

static void frame_set(ts_jinja_rt *rt, frame *f, const char *name, ts_jinja_value v)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->names[i], name) == 0) {
            f->values[i] = v;
            return;
        }
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 8;
        const char **names = ts_jinja_alloc(rt, cap * sizeof(*names));
        ts_jinja_value *values = ts_jinja_alloc(rt, cap * sizeof(*values));
        if (f->n) {
            memcpy(names, f->names, f->n * sizeof(*names));
            memcpy(values, f->values, f->n * sizeof(*values));
        }
        f->names = names;
        f->values = values;
        f->cap = cap;
    }
    f->names[f->n] = name;
    f->values[f->n++] = v;
}

static ts_jinja_value lookup(ts_jinja_rt *rt, frame *f, const char *name)
{
    for (; f; f = f->parent)
        for (size_t i = f->n; i-- > 0;)
            if (strcmp(f->names[i], name) == 0) return f->values[i];
    if (ts_jinja_is_global(name)) return ts_jinja_callable_new(rt, TS_JC_GLOBAL, name);
    return ts_jinja_undefined(name);
}

static void at(ts_jinja_rt *rt, const ts_jinja_node *n)
{
    rt->line = n->line;
    rt->col = n->col;
}

static void step(ts_jinja_rt *rt)
{
    if (++rt->steps > rt->limits.max_steps)
        ts_jinja_throw(rt, TS_ERR_RANGE, "template ran more than %llu steps",
                       (unsigned long long)rt->limits.max_steps);
}

static ts_jinja_value eval(interp *in, frame *f, const ts_jinja_node *n);
static int exec_body(interp *in, frame *f, ts_jinja_node *const *items, size_t n_items,
                     ts_jinja_buf *out);

/* ------------------------------------------------------------------------- operators */

static bool numeric(ts_jinja_value v)
{
    return v.kind == TS_JV_INT || v.kind == TS_JV_FLOAT || v.kind == TS_JV_BOOL;
}
static int64_t ival(ts_jinja_value v)
{
    return v.kind == TS_JV_BOOL ? v.u.b : v.u.i;
}
static double fval(ts_jinja_value v)
{
    return v.kind == TS_JV_FLOAT ? v.u.f : (double)ival(v);
}

static const char *op_name(int op)
{
    static const char *const names[] = {"+",  "-",  "*", "/",  "//", "%",  "**", "~",
                                        "==", "!=", "<", "<=", ">",  ">=", "in", "not in"};
    return names[op];
}

static _Noreturn void bad_operands(ts_jinja_rt *rt, int op, ts_jinja_value a, ts_jinja_value b)
{
    if (a.kind == TS_JV_UNDEFINED) ts_jinja_throw_undefined(rt, a);
    if (b.kind == TS_JV_UNDEFINED) ts_jinja_throw_undefined(rt, b);
    ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "unsupported operand type(s) for %s: '%s' and '%s'",
                   op_name(op), ts_jinja_kind_name(a), ts_jinja_kind_name(b));
}

static ts_jinja_value repeat(ts_jinja_rt *rt, ts_jinja_value seq, int64_t times)
{
    if (seq.kind == TS_JV_STRING) {
        ts_jinja_buf b = {0};
        for (int64_t i = 0; i < times; i++)
            ts_jinja_buf_add(rt, &b, seq.u.str.s, seq.u.str.len);
        return ts_jinja_buf_value(rt, &b);
    }
    if (times > 0 && seq.u.list->n &&
        (uint64_t)times > rt->limits.max_memory / seq.u.list->n / sizeof(ts_jinja_value))
        ts_jinja_throw(rt, TS_ERR_RANGE, "list repetition too large");
    ts_jinja_value out = ts_jinja_list_new(rt, 0);
    out.flags = seq.flags & TS_JV_TUPLE;
    for (int64_t i = 0; i < times; i++)
        for (size_t k = 0; k < seq.u.list->n; k++)
            ts_jinja_list_push(rt, out, seq.u.list->items[k]);
    return out;
}

/* CPython's float floor division: from fmod, so 1 // 0.1 is 9.0, not floor(10.000…) = 10.0. */
static double py_floordiv(double vx, double wx)
{
    double mod = fmod(vx, wx), div = (vx - mod) / wx;
    if (mod != 0 && ((wx < 0) != (mod < 0))) div -= 1.0;
    if (div == 0) return copysign(0.0, vx / wx);
    double floordiv = floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
    return floordiv;
}

static ts_jinja_value binary(ts_jinja_rt *rt, int op, ts_jinja_value a, ts_jinja_value b)
{
    switch (op) {
    case TS_JB_EQ:
        return ts_jinja_bool(ts_jinja_equal(a, b));
    case TS_JB_NE:
        return ts_jinja_bool(!ts_jinja_equal(a, b));
    case TS_JB_LT:
        return ts_jinja_bool(ts_jinja_compare(rt, a, b) < 0);
    case TS_JB_LE:
        return ts_jinja_bool(ts_jinja_compare(rt, a, b) <= 0);
    case TS_JB_GT:
        return ts_jinja_bool(ts_jinja_compare(rt, a, b) > 0);
    case TS_JB_GE:
        return ts_jinja_bool(ts_jinja_compare(rt, a, b) >= 0);
    case TS_JB_IN:
        return ts_jinja_bool(ts_jinja_contains(rt, b, a));
    case TS_JB_NOT_IN:
        return ts_jinja_bool(!ts_jinja_contains(rt, b, a));
    case TS_JB_CONCAT: {
        ts_jinja_buf buf = {0};
        ts_jinja_str(rt, &buf, a);
        ts_jinja_str(rt, &buf, b);
        return ts_jinja_buf_value(rt, &buf);
    }
    default:
        break;
    }
    if (numeric(a) && numeric(b)) {
        bool ints = a.kind != TS_JV_FLOAT && b.kind != TS_JV_FLOAT;
        int64_t x = ints ? ival(a) : 0, y = ints ? ival(b) : 0, r;
        double p = fval(a), q = fval(b);
        switch (op) {
        case TS_JB_ADD:
            if (!ints) return ts_jinja_float(p + q);
            if (__builtin_add_overflow(x, y, &r)) break;
            return ts_jinja_int(r);
        case TS_JB_SUB:
            if (!ints) return ts_jinja_float(p - q);
            if (__builtin_sub_overflow(x, y, &r)) break;
            return ts_jinja_int(r);
        case TS_JB_MUL:
            if (!ints) return ts_jinja_float(p * q);
            if (__builtin_mul_overflow(x, y, &r)) break;
            return ts_jinja_int(r);
        case TS_JB_DIV:
            if (q == 0) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "division by zero");
            return ts_jinja_float(p / q);
        case TS_JB_FLOORDIV:
        case TS_JB_MOD:
            if (q == 0)
                ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "integer division or modulo by zero");
            if (ints) {
                if (x == INT64_MIN && y == -1) break;
                /* Python floors toward negative infinity; C truncates. */
                int64_t quot = x / y, rem = x % y;
                if (rem != 0 && ((rem < 0) != (y < 0))) {
                    quot--;
                    rem += y;
                }
                return ts_jinja_int(op == TS_JB_MOD ? rem : quot);
            }
            if (op == TS_JB_FLOORDIV) return ts_jinja_float(py_floordiv(p, q));
            {
                double m = fmod(p, q);
                if (m != 0 && ((m < 0) != (q < 0))) m += q;
                return ts_jinja_float(m);
            }
        case TS_JB_POW:
            if (ints && y >= 0) {
                int64_t acc = 1, base = x;
                int64_t e = y;
                bool overflow = false;
                while (e > 0 && !overflow) {
                    if (e & 1) overflow |= __builtin_mul_overflow(acc, base, &acc);
                    e >>= 1;
                    if (e) overflow |= __builtin_mul_overflow(base, base, &base);
                }
                if (overflow) break;
                return ts_jinja_int(acc);
            }
            if (p == 0 && q < 0)
                ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "zero to a negative power");
            return ts_jinja_float(pow(p, q));
        }
        ts_jinja_throw(rt, TS_ERR_RANGE, "integer overflow in %s", op_name(op));
    }
    if (op == TS_JB_ADD && a.kind == TS_JV_STRING && b.kind == TS_JV_STRING) {
        ts_jinja_buf buf = {0};
        ts_jinja_buf_add(rt, &buf, a.u.str.s, a.u.str.len);
        ts_jinja_buf_add(rt, &buf, b.u.str.s, b.u.str.len);
        return ts_jinja_buf_value(rt, &buf);
    }
    if (op == TS_JB_ADD && a.kind == TS_JV_LIST && b.kind == TS_JV_LIST &&
        (a.flags & TS_JV_TUPLE) == (b.flags & TS_JV_TUPLE)) {
        ts_jinja_value out = ts_jinja_list_new(rt, a.u.list->n + b.u.list->n);
        out.flags = a.flags & TS_JV_TUPLE;
        for (size_t i = 0; i < a.u.list->n; i++)
            ts_jinja_list_push(rt, out, a.u.list->items[i]);
        for (size_t i = 0; i < b.u.list->n; i++)
            ts_jinja_list_push(rt, out, b.u.list->items[i]);
        return out;
    }
    if (op == TS_JB_MUL) {
        if ((a.kind == TS_JV_STRING || a.kind == TS_JV_LIST) &&
            (b.kind == TS_JV_INT || b.kind == TS_JV_BOOL))
            return repeat(rt, a, ival(b));
        if ((b.kind == TS_JV_STRING || b.kind == TS_JV_LIST) &&
            (a.kind == TS_JV_INT || a.kind == TS_JV_BOOL))
            return repeat(rt, b, ival(a));
    }
    if (op == TS_JB_MOD && a.kind == TS_JV_STRING) return ts_jinja_percent_format(rt, a, b);
    bad_operands(rt, op, a, b);
}

/* ------------------------------------------------------------------------------ calls */

static ts_jinja_args eval_args(interp *in, frame *f, const ts_jinja_node *n)
{
    ts_jinja_args a = {0};
    ts_jinja_value *pos = n->n_items ? ts_jinja_alloc(in->rt, n->n_items * sizeof(*pos)) : NULL;
    ts_jinja_value *kw = n->n_items2 ? ts_jinja_alloc(in->rt, n->n_items2 * sizeof(*kw)) : NULL;
    for (size_t i = 0; i < n->n_items; i++)
        pos[i] = eval(in, f, n->items[i]);
    for (size_t i = 0; i < n->n_items2; i++)
        kw[i] = eval(in, f, n->items2[i]);
    a.pos = pos;
    a.n_pos = n->n_items;
    a.kw_names = n->names;
    a.kw = kw;
    a.n_kw = n->n_items2;
    return a;
}

static ts_jinja_value call_macro(interp *in, ts_jinja_value fn, const ts_jinja_args *a,
                                 ts_jinja_value caller)
{
    ts_jinja_rt *rt = in->rt;
    const ts_jinja_node *def = fn.u.fn->node;
    if (rt->depth > rt->limits.max_depth)
        ts_jinja_throw(rt, TS_ERR_RANGE, "macro calls nested deeper than %d", rt->limits.max_depth);
    frame *f = frame_new(rt, fn.u.fn->frame);
    ts_jinja_value varargs = ts_jinja_list_new(rt, 0), kwargs = ts_jinja_dict_new(rt, 0);
    varargs.flags |= TS_JV_TUPLE;
    for (size_t i = 0; i < a->n_pos; i++) {
        if (i < def->n_names)
            frame_set(rt, f, def->names[i], a->pos[i]);
        else {
            if (!(def->op & TS_JM_VARARGS))
                ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT,
                               "macro '%s' takes not more than %zu argument(s)", fn.u.fn->name,
                               def->n_names);
            ts_jinja_list_push(rt, varargs, a->pos[i]);
        }
    }
    for (size_t k = 0; k < a->n_kw; k++) {
        bool matched = false;
        for (size_t i = 0; i < def->n_names; i++)
            if (strcmp(def->names[i], a->kw_names[k]) == 0) {
                if (i < a->n_pos)
                    ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT,
                                   "macro '%s' got multiple values for argument '%s'",
                                   fn.u.fn->name, def->names[i]);
                frame_set(rt, f, def->names[i], a->kw[k]);
                matched = true;
            }
        if (!matched && !(def->op & TS_JM_KWARGS))
            ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "macro '%s' takes no keyword argument '%s'",
                           fn.u.fn->name, a->kw_names[k]);
        if (!matched) ts_jinja_dict_set(rt, kwargs, ts_jinja_cstring(rt, a->kw_names[k]), a->kw[k]);
    }
    for (size_t i = a->n_pos; i < def->n_names; i++) {
        bool given = false;
        for (size_t k = 0; k < a->n_kw; k++)
            given |= strcmp(def->names[i], a->kw_names[k]) == 0;
        if (given) continue;
        frame_set(rt, f, def->names[i],
                  def->items2[i] ? eval(in, f, def->items2[i]) : ts_jinja_undefined(def->names[i]));
    }
    frame_set(rt, f, "varargs", varargs);
    frame_set(rt, f, "kwargs", kwargs);
    if (caller.kind == TS_JV_CALLABLE) {
        if (!(def->op & TS_JM_CALLER))
            ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT,
                           "macro '%s' was invoked with two values for the special caller argument",
                           fn.u.fn->name);
        frame_set(rt, f, "caller", caller);
    } else if (def->op & TS_JM_CALLER) {
        frame_set(rt, f, "caller", ts_jinja_undefined("caller")); /* never an outer caller */
    }
    ts_jinja_buf out = {0};
    rt->depth++;
    exec_body(in, f, def->items, def->n_items, &out);
    rt->depth--;
    return ts_jinja_buf_value(rt, &out);
}

static ts_jinja_value call_value(interp *in, const ts_jinja_node *n, ts_jinja_value fn,
                                 const ts_jinja_args *a, ts_jinja_value caller)
{
    at(in->rt, n);
    if (fn.kind == TS_JV_UNDEFINED) {
        ts_jinja_throw_undefined(in->rt, fn);
    }
    if (fn.kind != TS_JV_CALLABLE)
        ts_jinja_throw(in->rt, TS_ERR_INVALID_ARGUMENT, "'%s' object is not callable",
                       ts_jinja_kind_name(fn));
    if (fn.u.fn->kind == TS_JC_MACRO) return call_macro(in, fn, a, caller);
    return ts_jinja_call_builtin(in->rt, fn, a);
}

/* -------------------------------------------------------------------------- expressions */

static ts_jinja_value eval(interp *in, frame *f, const ts_jinja_node *n)
{
    ts_jinja_rt *rt = in->rt;
    step(rt);
    at(rt, n);
    switch (n->kind) {
    case TS_JN_LITERAL:
        return n->value;
    case TS_JN_NAME:
        return lookup(rt, f, n->str);
    case TS_JN_PLACEHOLDER:
        return in->placeholder;
    case TS_JN_LIST:
    case TS_JN_TUPLE: {
        ts_jinja_value l = ts_jinja_list_new(rt, n->n_items);
        if (n->kind == TS_JN_TUPLE) l.flags |= TS_JV_TUPLE;
        for (size_t i = 0; i < n->n_items; i++)
            ts_jinja_list_push(rt, l, eval(in, f, n->items[i]));
        return l;
    }
    case TS_JN_DICT: {
        ts_jinja_value d = ts_jinja_dict_new(rt, n->n_items);
        for (size_t i = 0; i < n->n_items; i++) {
            ts_jinja_value k = eval(in, f, n->items[i]);
            if (k.kind == TS_JV_LIST && !(k.flags & TS_JV_TUPLE)) {
                at(rt, n->items[i]);
                ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "unhashable type: 'list'");
            }
            ts_jinja_dict_set(rt, d, k, eval(in, f, n->items2[i]));
        }
        return d;
    }
    case TS_JN_GETATTR: {
        ts_jinja_value obj = eval(in, f, n->a);
        at(rt, n);
        return ts_jinja_getattr(rt, obj, n->str);
    }
    case TS_JN_GETITEM: {
        ts_jinja_value obj = eval(in, f, n->a), key = eval(in, f, n->b);
        at(rt, n);
        return ts_jinja_getitem(rt, obj, key);
    }
    case TS_JN_SLICE: {
        ts_jinja_value obj = eval(in, f, n->a);
        ts_jinja_value s = n->b ? eval(in, f, n->b) : ts_jinja_none();
        ts_jinja_value e = n->c ? eval(in, f, n->c) : ts_jinja_none();
        ts_jinja_value st = n->d ? eval(in, f, n->d) : ts_jinja_none();
        at(rt, n);
        return ts_jinja_slice(rt, obj, s, e, st);
    }
    case TS_JN_CALL: {
        ts_jinja_value fn = eval(in, f, n->a);
        ts_jinja_args a = eval_args(in, f, n);
        return call_value(in, n, fn, &a, ts_jinja_undefined(NULL));
    }
    case TS_JN_FILTER: {
        ts_jinja_value v = eval(in, f, n->a);
        ts_jinja_args a = eval_args(in, f, n);
        at(rt, n);
        return ts_jinja_filter(rt, n->str, v, &a);
    }
    case TS_JN_TEST: {
        ts_jinja_value v = eval(in, f, n->a);
        ts_jinja_args a = eval_args(in, f, n);
        at(rt, n);
        return ts_jinja_bool(ts_jinja_test(rt, n->str, v, &a) != n->negate);
    }
    case TS_JN_UNARY: {
        ts_jinja_value v = eval(in, f, n->a);
        at(rt, n);
        if (n->op == 'n') return ts_jinja_bool(!ts_jinja_truthy(v));
        if (v.kind == TS_JV_FLOAT) return ts_jinja_float(n->op == '-' ? -v.u.f : v.u.f);
        if (v.kind == TS_JV_INT || v.kind == TS_JV_BOOL) {
            int64_t x = ival(v);
            if (n->op == '-' && x == INT64_MIN)
                ts_jinja_throw(rt, TS_ERR_RANGE, "integer overflow");
            return ts_jinja_int(n->op == '-' ? -x : x);
        }
        if (v.kind == TS_JV_UNDEFINED) ts_jinja_throw_undefined(rt, v);
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "bad operand type for unary %c: '%s'", n->op,
                       ts_jinja_kind_name(v));
    }
    case TS_JN_BINARY: {
        ts_jinja_value a = eval(in, f, n->a), b = eval(in, f, n->b);
        at(rt, n);
        return binary(rt, n->op, a, b);
    }
    case TS_JN_AND: {
        ts_jinja_value a = eval(in, f, n->a);
        return ts_jinja_truthy(a) ? eval(in, f, n->b) : a;
    }
    case TS_JN_OR: {
        ts_jinja_value a = eval(in, f, n->a);
        return ts_jinja_truthy(a) ? a : eval(in, f, n->b);
    }
    case TS_JN_COND:
        if (ts_jinja_truthy(eval(in, f, n->b))) return eval(in, f, n->a);
        return n->c ? eval(in, f, n->c) : ts_jinja_undefined(NULL);
    default:
        ts_jinja_throw(rt, TS_ERR_INTERNAL, "statement node %d used as an expression",
                       (int)n->kind);
    }
}

/* --------------------------------------------------------------------------- statements */

static void unpack(ts_jinja_rt *rt, frame *f, const char *const *names, size_t n_names,
                   ts_jinja_value v)
{
    if (n_names == 1) {
        frame_set(rt, f, names[0], v);
        return;
    }
    if (v.kind != TS_JV_LIST && v.kind != TS_JV_STRING && v.kind != TS_JV_DICT)
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "cannot unpack non-iterable %s object",
                       ts_jinja_kind_name(v));
    ts_jinja_value l = ts_jinja_iterate(rt, v);
    if (l.u.list->n != n_names)
        ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "%s values to unpack (expected %zu, got %zu)",
                       l.u.list->n < n_names ? "not enough" : "too many", n_names, l.u.list->n);
    for (size_t i = 0; i < n_names; i++)
        frame_set(rt, f, names[i], l.u.list->items[i]);
}

static void exec_for(interp *in, frame *f, const ts_jinja_node *n, ts_jinja_buf *out)
{
    ts_jinja_rt *rt = in->rt;
    ts_jinja_value seq = eval(in, f, n->a);
    at(rt, n->a);
    ts_jinja_value items = ts_jinja_iterate(rt, seq);
    /* jinja2 gives every iteration fresh locals: `set` in one iteration is gone in the next. */
    frame *lf = frame_new(rt, f);
    if (n->b) {
        ts_jinja_value kept = ts_jinja_list_new(rt, items.u.list->n);
        for (size_t i = 0; i < items.u.list->n; i++) {
            at(rt, n);
            unpack(rt, lf, n->names, n->n_names, items.u.list->items[i]);
            if (ts_jinja_truthy(eval(in, lf, n->b)))
                ts_jinja_list_push(rt, kept, items.u.list->items[i]);
        }
        items = kept;
    }
    size_t len = items.u.list->n;
    /* The loop object costs a dict per iteration; build it only for bodies that name it. */
    bool wants_loop = n->op & TS_JM_LOOP;
    for (size_t i = 0; i < len; i++) {
        ts_jinja_value loop = wants_loop ? ts_jinja_dict_new(rt, 12) : ts_jinja_undefined("loop");
        loop.flags |= TS_JV_LOOP;
        struct {
            const char *k;
            ts_jinja_value v;
        } fields[] = {
            {"index", ts_jinja_int((int64_t)i + 1)},
            {"index0", ts_jinja_int((int64_t)i)},
            {"revindex", ts_jinja_int((int64_t)(len - i))},
            {"revindex0", ts_jinja_int((int64_t)(len - i - 1))},
            {"first", ts_jinja_bool(i == 0)},
            {"last", ts_jinja_bool(i + 1 == len)},
            {"length", ts_jinja_int((int64_t)len)},
            {"depth", ts_jinja_int(1)},
            {"depth0", ts_jinja_int(0)},
            {"previtem", i > 0 ? items.u.list->items[i - 1] : ts_jinja_undefined("previtem")},
            {"nextitem", i + 1 < len ? items.u.list->items[i + 1] : ts_jinja_undefined("nextitem")},
        };
        for (size_t k = 0; wants_loop && k < sizeof(fields) / sizeof(fields[0]); k++)
            ts_jinja_dict_set(rt, loop, ts_jinja_string_ref(fields[k].k, strlen(fields[k].k)),
                              fields[k].v);
        at(rt, n);
        lf = frame_new(rt, f);
        unpack(rt, lf, n->names, n->n_names, items.u.list->items[i]);
        if (wants_loop) frame_set(rt, lf, "loop", loop);
        int flow = exec_body(in, lf, n->items, n->n_items, out);
        if (flow == FLOW_BREAK) break;
    }
    if (len == 0) exec_body(in, frame_new(rt, f), n->items2, n->n_items2, out);
}

/* jinja2 compiles these bodies inline in a scope of their own: assignments inside stay
 * inside, and a break or continue leaves the enclosing loop at once, dropping the block's
 * result (*flow says which). */
static ts_jinja_value render_block(interp *in, frame *f, const ts_jinja_node *n, int *flow)
{
    ts_jinja_buf body = {0};
    *flow = exec_body(in, frame_new(in->rt, f), n->items, n->n_items, &body);
    if (*flow != FLOW_NORMAL) return ts_jinja_undefined(NULL);
    ts_jinja_value text = ts_jinja_buf_value(in->rt, &body);
    if (!n->b) return text;
    ts_jinja_value saved = in->placeholder;
    in->placeholder = text;
    ts_jinja_value r = eval(in, f, n->b);
    in->placeholder = saved;
    return r;
}

static int exec_node(interp *in, frame *f, const ts_jinja_node *n, ts_jinja_buf *out)
{
    ts_jinja_rt *rt = in->rt;
    step(rt);
    at(rt, n);
    switch (n->kind) {
    case TS_JN_TEXT:
        ts_jinja_buf_add(rt, out, n->str, n->len);
        return FLOW_NORMAL;
    case TS_JN_OUTPUT:
        ts_jinja_str(rt, out, eval(in, f, n->a));
        return FLOW_NORMAL;
    case TS_JN_BODY:
        return exec_body(in, f, n->items, n->n_items, out);
    case TS_JN_IF:
        if (ts_jinja_truthy(eval(in, f, n->a))) return exec_body(in, f, n->items, n->n_items, out);
        return exec_body(in, f, n->items2, n->n_items2, out);
    case TS_JN_FOR:
        exec_for(in, f, n, out);
        return FLOW_NORMAL;
    case TS_JN_SET: {
        ts_jinja_value v = eval(in, f, n->b);
        at(rt, n);
        if (n->a) {
            ts_jinja_value ns = lookup(rt, f, n->a->a->str);
            if (ns.kind != TS_JV_DICT || !(ns.flags & TS_JV_NAMESPACE))
                ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT,
                               "cannot assign attribute on non-namespace object '%s'",
                               n->a->a->str);
            ts_jinja_dict_set(rt, ns, ts_jinja_cstring(rt, n->a->str), v);
        } else {
            unpack(rt, f, n->names, n->n_names, v);
        }
        return FLOW_NORMAL;
    }
    case TS_JN_SET_BLOCK: {
        int flow;
        ts_jinja_value v = render_block(in, f, n, &flow);
        if (flow == FLOW_NORMAL) frame_set(rt, f, n->names[0], v);
        return flow;
    }
    case TS_JN_WITH: {
        /* Values are evaluated in the outer scope, as jinja2 does, then bound in a new one. */
        frame *w = frame_new(rt, f);
        for (size_t i = 0; i < n->n_names; i++)
            frame_set(rt, w, n->names[i], eval(in, f, n->items2[i]));
        return exec_body(in, w, n->items, n->n_items, out);
    }
    case TS_JN_FILTER_BLOCK: {
        int flow;
        ts_jinja_value v = render_block(in, f, n, &flow);
        if (flow == FLOW_NORMAL) ts_jinja_str(rt, out, v);
        return flow;
    }
    case TS_JN_MACRO: {
        ts_jinja_value m = ts_jinja_callable_new(rt, TS_JC_MACRO, n->str);
        m.u.fn->node = n;
        m.u.fn->frame = f;
        frame_set(rt, f, n->str, m);
        return FLOW_NORMAL;
    }
    case TS_JN_CALL_BLOCK: {
        ts_jinja_value caller = ts_jinja_callable_new(rt, TS_JC_MACRO, "caller");
        caller.u.fn->node = n;
        caller.u.fn->frame = f;
        ts_jinja_value fn = eval(in, f, n->a->a);
        ts_jinja_args a = eval_args(in, f, n->a);
        ts_jinja_str(rt, out, call_value(in, n->a, fn, &a, caller));
        return FLOW_NORMAL;
    }
    case TS_JN_BREAK:
        return FLOW_BREAK;
    case TS_JN_CONTINUE:
        return FLOW_CONTINUE;
    default:
        ts_jinja_throw(rt, TS_ERR_INTERNAL, "expression node %d used as a statement", (int)n->kind);
    }
}

static int exec_body(interp *in, frame *f, ts_jinja_node *const *items, size_t n_items,
                     ts_jinja_buf *out)
{
    for (size_t i = 0; i < n_items; i++) {
        int flow = exec_node(in, f, items[i], out);
        if (flow != FLOW_NORMAL) return flow;
    }
    return FLOW_NORMAL;
}

/* ------------------------------------------------------------------------------ entry */

ts_status ts_jinja_compile(const char *source, size_t len, const char *origin,
                           ts_jinja_program **out, ts_error *err)
{
    *out = NULL;
    ts_jinja_program *prog = calloc(1, sizeof(*prog));
    char *name = strdup(origin ? origin : "<template>");
    if (!prog || !name) {
        free(prog);
        free(name);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory compiling a template");
    }
    prog->origin = name;
    ts_jinja_rt_init(&prog->rt, name, err);
    jmp_buf jump;
    prog->rt.jump = &jump;
    if (setjmp(jump)) {
        ts_status st = err ? err->status : TS_ERR_FORMAT;
        ts_jinja_program_destroy(prog);
        return st == TS_OK ? TS_ERR_FORMAT : st;
    }
    prog->root = ts_jinja_parse(&prog->rt, source, len);
    prog->rt.jump = NULL;
    *out = prog;
    return TS_OK;
}

void ts_jinja_program_destroy(ts_jinja_program *prog)
{
    if (!prog) return;
    ts_jinja_rt_fini(&prog->rt);
    free(prog->origin);
    free(prog);
}

/* The setjmp frame: nothing it reads after a longjmp is modified after setjmp, except
 * through memory (rt, *out), so -Wclobbered has nothing to warn about. */
static ts_status render_guarded(const ts_jinja_program *prog, ts_jinja_build_fn build, void *user,
                                char **out, size_t *out_len, ts_error *err)
{
    ts_jinja_rt rt;
    ts_jinja_rt_init(&rt, prog->origin, err);
    jmp_buf jump;
    rt.jump = &jump;
    if (setjmp(jump)) {
        free(*out);
        *out = NULL;
        ts_jinja_rt_fini(&rt);
        return err->status == TS_OK ? TS_ERR_INTERNAL : err->status;
    }
    ts_jinja_value vars = ts_jinja_dict_new(&rt, 16);
    if (build) build(&rt, vars, user);
    frame *globals = frame_new(&rt, NULL);
    for (size_t i = 0; i < vars.u.dict->n; i++) {
        ts_jinja_value k = vars.u.dict->keys[i];
        if (k.kind != TS_JV_STRING) continue;
        frame_set(&rt, globals, ts_jinja_string(&rt, k.u.str.s, k.u.str.len).u.str.s,
                  vars.u.dict->values[i]);
    }
    frame *top = frame_new(&rt, globals);
    interp in = {.rt = &rt};
    ts_jinja_buf buf = {0};
    exec_body(&in, top, prog->root->items, prog->root->n_items, &buf);
    char *result = malloc(buf.len + 1);
    if (!result)
        ts_jinja_throw(&rt, TS_ERR_OUT_OF_MEMORY, "out of memory copying %zu bytes of output",
                       buf.len);
    if (buf.len) memcpy(result, buf.data, buf.len);
    result[buf.len] = '\0';
    if (out_len) *out_len = buf.len;
    *out = result;
    ts_jinja_rt_fini(&rt);
    return TS_OK;
}

ts_status ts_jinja_render(const ts_jinja_program *prog, ts_jinja_build_fn build, void *user,
                          char **out, size_t *out_len, ts_error *err)
{
    *out = NULL;
    if (out_len) *out_len = 0;
    ts_error local;
    return render_guarded(prog, build, user, out, out_len, err ? err : &local);
}
