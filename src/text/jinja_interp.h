/* jinja_interp.h — compiles and renders Jinja templates (the engine behind chat_template.c).
 *
 * ts_jinja_compile parses source into a ts_jinja_program that owns its arena; it is immutable
 * afterwards and may be rendered any number of times, from several threads at once (renders
 * share nothing mutable), but not concurrently with its destruction.
 * ts_jinja_render runs it against a dict of variables built by `build` in the render's own
 * arena, and returns owned NUL-terminated text (free()). Errors carry origin:line:column; a
 * render is bounded in output size, memory, recursion depth and steps.
 */
#ifndef TS_TEXT_JINJA_INTERP_H
#define TS_TEXT_JINJA_INTERP_H

#include "text/jinja_parser.h"

typedef struct ts_jinja_program ts_jinja_program;

ts_status ts_jinja_compile(const char *source, size_t len, const char *origin,
                           ts_jinja_program **out, ts_error *err);
void ts_jinja_program_destroy(ts_jinja_program *prog);

/* Fills `vars` (an empty dict in rt's arena) with the render's variables; may throw via rt. */
typedef void (*ts_jinja_build_fn)(ts_jinja_rt *rt, ts_jinja_value vars, void *user);

ts_status ts_jinja_render(const ts_jinja_program *prog, ts_jinja_build_fn build, void *user,
                          char **out, size_t *out_len, ts_error *err);

#endif
