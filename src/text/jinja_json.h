/* jinja_json.h — JSON in and out of Jinja values.
 *
 * ts_jinja_parse_json reads JSON text as Python's json.loads does: objects become ordered
 * dicts (a repeated key keeps its first position, last value), numbers with a fraction or
 * exponent are floats ("1.0" stays 1.0), others ints (beyond int64: floats), NaN/Infinity are
 * accepted; errors throw with the byte offset. (Not cJSON: it keeps no lexical form, so 1.0 would
 * arrive as 1.) ts_jinja_to_json writes what Python's json.dumps writes
 * with Hugging Face's tojson defaults (ensure_ascii=False, separators (", ", ": ") or
 * (",", ": ") under indent); undefined and callables throw, as json.dumps raises TypeError.
 */
#ifndef TS_TEXT_JINJA_JSON_H
#define TS_TEXT_JINJA_JSON_H

#include "text/jinja_value.h"

/* `what` names the text in error messages ("context layer 2"). */
ts_jinja_value ts_jinja_parse_json(ts_jinja_rt *rt, const char *text, size_t len, const char *what);

typedef struct ts_jinja_json_style {
    int indent;             /* < 0: one line */
    const char *indent_str; /* when set, used per level instead of `indent` spaces */
    bool ensure_ascii;
    bool sort_keys;
    const char *item_sep; /* NULL: the default for the indent mode */
    const char *key_sep;
} ts_jinja_json_style;

void ts_jinja_to_json(ts_jinja_rt *rt, ts_jinja_buf *out, ts_jinja_value v,
                      const ts_jinja_json_style *style);

#endif
