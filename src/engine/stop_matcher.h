/* stop_matcher.h — finds stop strings in streamed text and holds back what might start one.
 *
 * Text arrives in pieces (as a streaming detokenizer emits it). ts_stop_matcher_push returns the
 * part that is now safe to show: everything except a tail that is a proper prefix of some stop
 * string. When a stop string completes, the text before its earliest occurrence is released,
 * the stop string and anything after it are dropped, and the matcher reports stopped; later
 * pushes release nothing. ts_stop_matcher_finish releases the held-back tail (no stop came).
 * The returned text is borrowed, valid until the next call on the matcher. Stop strings are
 * copied at init; empty ones are TS_ERR_INVALID_ARGUMENT. Free with ts_stop_matcher_fini.
 */
#ifndef TS_ENGINE_STOP_MATCHER_H
#define TS_ENGINE_STOP_MATCHER_H

#include "base/buf.h"
#include "tessera.h"

typedef struct ts_stop_matcher {
    char **stop;
    size_t *stop_len;
    int n_stop;
    size_t longest;   /* longest stop string, bounds the held-back tail */
    ts_buf text;      /* released prefix (from the last call) + held-back tail */
    size_t released;  /* bytes at the front of text handed out by the last call */
    bool stopped;
    int matched;      /* index of the stop string that matched, -1 while none */
} ts_stop_matcher;

ts_status ts_stop_matcher_init(ts_stop_matcher *m, const char *const *stop, int n_stop, ts_error *err);
void ts_stop_matcher_fini(ts_stop_matcher *m);
/* After the call, m->stopped says whether a stop string has completed (now or earlier). */
ts_status ts_stop_matcher_push(ts_stop_matcher *m, const char *piece, size_t len, const char **out,
                          size_t *out_len, ts_error *err);
void ts_stop_matcher_finish(ts_stop_matcher *m, const char **out, size_t *out_len);

#endif
