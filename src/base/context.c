/* context.c — ts_context lifetime. */
#include "base/context.h"
#include "base/error.h"

#include <stdlib.h>

ts_status ts_context_create(const ts_context_options *options, ts_context **out, ts_error *err)
{
    *out = NULL;
    ts_context *ctx = calloc(1, sizeof(*ctx));
    if (!ctx) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "context: out of memory");
    ctx->log_level = options ? options->log_level : TS_LOG_WARN;
    int n = options ? options->n_threads : 0;
    if (n < 0) {
        free(ctx);
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "threads must be >= 0, got %d", n);
    }
    ts_status st = ts_pool_create(n, &ctx->pool, err);
    if (st != TS_OK) {
        free(ctx);
        return st;
    }
    *out = ctx;
    return TS_OK;
}

void ts_context_destroy(ts_context *ctx)
{
    if (!ctx) return;
    ts_pool_destroy(ctx->pool);
    free(ctx);
}

int ts_context_threads(const ts_context *ctx) { return ts_pool_size(ctx->pool); }
