/* log.h — levelled logging to stderr.
 *
 * The level lives in the ts_context, not in a global: ts_log(ctx, …) with ctx == NULL logs
 * errors and warnings only. Lines are written whole (one fprintf), so threads do not interleave
 * inside a line.
 */
#ifndef TS_BASE_LOG_H
#define TS_BASE_LOG_H

#include "base/error.h"

void ts_log(const ts_context *ctx, ts_log_level level, const char *fmt, ...) TS_PRINTF(3, 4);

#endif
