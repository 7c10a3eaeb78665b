/* profile.c — the per-op time table kept in a profiling context. */
#include "base/context.h"
#include "graph/op.h"

#include <stdio.h>
#include <stdlib.h>

_Static_assert(TS_OP_COUNT <= 64, "context profile table too small for ts_op");

char *ts_context_profile(const ts_context *ctx)
{
    size_t cap = 4096, at = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    uint64_t total = 0;
    for (int op = 0; op < TS_OP_COUNT; op++) total += ctx->profile_ns[op];
    at += (size_t)snprintf(out + at, cap - at, "%-22s %10s %10s %6s\n", "op", "calls", "cpu ms", "%");
    for (int op = 0; op < TS_OP_COUNT && at < cap; op++) {
        if (!ctx->profile_calls[op]) continue;
        at += (size_t)snprintf(out + at, cap - at, "%-22s %10llu %10.1f %6.1f\n", ts_op_get_info((ts_op)op)->name,
                               (unsigned long long)ctx->profile_calls[op], ctx->profile_ns[op] / 1e6,
                               total ? 100.0 * (double)ctx->profile_ns[op] / (double)total : 0.0);
    }
    return out;
}
