/* jinja_builtins.h — filters, tests, methods, globals and attribute access.
 *
 * Everything a template can name without defining it: the filters and tests of jinja2 that
 * chat templates use, Python's str/dict/list methods (read-only, as the immutable sandbox
 * allows), the globals Hugging Face adds (raise_exception, strftime_now) plus range, namespace
 * and dict. Results live in rt's arena; misuse (wrong types, bad arguments, raise_exception)
 * throws at rt's current line:column.
 */
#ifndef TS_TEXT_JINJA_BUILTINS_H
#define TS_TEXT_JINJA_BUILTINS_H

#include "text/jinja_value.h"

typedef struct ts_jinja_args {
    const ts_jinja_value *pos;
    size_t n_pos;
    const char *const *kw_names;
    const ts_jinja_value *kw;
    size_t n_kw;
} ts_jinja_args;

ts_jinja_value ts_jinja_filter(ts_jinja_rt *rt, const char *name, ts_jinja_value input,
                               const ts_jinja_args *args);
bool ts_jinja_test(ts_jinja_rt *rt, const char *name, ts_jinja_value input,
                   const ts_jinja_args *args);
/* Calls a GLOBAL or METHOD callable; macros are the interpreter's. */
ts_jinja_value ts_jinja_call_builtin(ts_jinja_rt *rt, ts_jinja_value fn, const ts_jinja_args *args);
bool ts_jinja_is_global(const char *name);
/* jinja2's getattr/getitem: a missing member is undefined; a member of undefined throws. */
ts_jinja_value ts_jinja_getattr(ts_jinja_rt *rt, ts_jinja_value obj, const char *name);
ts_jinja_value ts_jinja_getitem(ts_jinja_rt *rt, ts_jinja_value obj, ts_jinja_value key);
ts_jinja_value ts_jinja_slice(ts_jinja_rt *rt, ts_jinja_value obj, ts_jinja_value start,
                              ts_jinja_value stop, ts_jinja_value step);
/* Python's `fmt % args` (args a tuple or one value). */
ts_jinja_value ts_jinja_percent_format(ts_jinja_rt *rt, ts_jinja_value fmt, ts_jinja_value args);
/* Python's `needle in haystack`. */
bool ts_jinja_contains(ts_jinja_rt *rt, ts_jinja_value haystack, ts_jinja_value needle);

#endif
