/* log.c — levelled logging to stderr. */
#include "base/log.h"
#include "base/context.h"

#include <stdarg.h>
#include <stdio.h>

void ts_log(const ts_context *ctx, ts_log_level level, const char *fmt, ...)
{
    ts_log_level limit = ctx ? ctx->log_level : TS_LOG_WARN;
    if (level > limit) return;
    static const char *const tags[] = {"error", "warn", "info", "debug"};
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "tessera %s: %s\n", tags[level], line);
}
