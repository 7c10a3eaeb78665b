/* error.h — building ts_error values.
 *
 * ts_error_set formats a message into the caller's ts_error (which may be NULL) and returns the
 * status, so a failing path reads `return ts_error_set(err, TS_ERR_FORMAT, "…", …);`.
 * ts_error_prefix prepends context ("tokenizer.json: ") to a message set deeper down, so the
 * final text names the outermost place first. Messages are truncated, never overflow.
 * TS_TRY returns a failing status to the caller. The server and the CLI use these too, so a
 * ts_error is filled in one place only.
 */
#ifndef TS_BASE_ERROR_H
#define TS_BASE_ERROR_H

#include "tessera.h"

#if defined(__GNUC__)
#define TS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TS_PRINTF(a, b)
#endif

ts_status ts_error_set(ts_error *err, ts_status status, const char *fmt, ...) TS_PRINTF(3, 4);
/* Keeps err->status; returns it (TS_ERR_INTERNAL when err is NULL: callers that may pass NULL
 * keep their own status and return that). */
ts_status ts_error_prefix(ts_error *err, const char *fmt, ...) TS_PRINTF(2, 3);
void ts_error_clear(ts_error *err);

/* Propagates a failing status: `TS_TRY(read_field(...));` returns it from the enclosing function,
 * whose message the callee has already set. For functions that return ts_status. */
#define TS_TRY(x)                                                                                  \
    do {                                                                                           \
        ts_status ts_try_status_ = (x);                                                            \
        if (ts_try_status_ != TS_OK) return ts_try_status_;                                        \
    } while (0)

/* An invariant of our own code; never used for input checks. */
#define TS_ASSERT(x) ((x) ? (void)0 : ts_assert_fail(#x, __FILE__, __LINE__))
_Noreturn void ts_assert_fail(const char *expr, const char *file, int line);

#endif
