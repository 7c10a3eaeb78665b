/* error.c — ts_error formatting and the assertion handler. */
#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {
    [TS_OK] = "ok",
    [TS_ERR_INVALID_ARGUMENT] = "invalid argument",
    [TS_ERR_IO] = "i/o error",
    [TS_ERR_FORMAT] = "format error",
    [TS_ERR_UNSUPPORTED] = "unsupported",
    [TS_ERR_OUT_OF_MEMORY] = "out of memory",
    [TS_ERR_RANGE] = "out of range",
    [TS_ERR_NOT_FOUND] = "not found",
    [TS_ERR_INTERNAL] = "internal error",
};
_Static_assert(sizeof(status_names) / sizeof(status_names[0]) == TS_STATUS_COUNT,
               "status_names out of step with ts_status");

const char *ts_status_name(ts_status status)
{
    if ((unsigned)status >= TS_STATUS_COUNT) return "unknown status";
    return status_names[status];
}

ts_status ts_error_set(ts_error *err, ts_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof(err->message), fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

ts_status ts_error_prefix(ts_error *err, const char *fmt, ...)
{
    if (!err) return TS_ERR_INTERNAL;
    char prefix[TS_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    size_t n_prefix = strlen(prefix), n_old = strlen(err->message);
    if (n_prefix > sizeof(err->message) - 1) n_prefix = sizeof(err->message) - 1;
    if (n_old > sizeof(err->message) - 1 - n_prefix) n_old = sizeof(err->message) - 1 - n_prefix;
    memmove(err->message + n_prefix, err->message, n_old);
    memcpy(err->message, prefix, n_prefix);
    err->message[n_prefix + n_old] = '\0';
    return err->status;
}

void ts_error_clear(ts_error *err)
{
    if (!err) return;
    err->status = TS_OK;
    err->message[0] = '\0';
}

void ts_assert_fail(const char *expr, const char *file, int line)
{
    fprintf(stderr, "tessera: internal invariant broken: %s (%s:%d)\n", expr, file, line);
    abort();
}
