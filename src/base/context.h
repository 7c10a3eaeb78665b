/* context.h — what a ts_context holds: the log level and the thread pool.
 * Created by ts_context_create, which owns the pool; nothing here is global. */
#ifndef TS_BASE_CONTEXT_H
#define TS_BASE_CONTEXT_H

#include "base/pool.h"

struct ts_context {
    ts_log_level log_level;
    ts_pool *pool;
    unsigned cpu_features; /* detected, capped by ts_context_options.cpu_level */
    bool profile;
    int compute_bf16; /* 0: f32 products; 1: one bf16 pass; 2: hi + lo bf16 passes */
    bool compute_int8; /* quantized linears take int8 activations (W8A8) where a kernel has them */
    const char *compute_name; /* the policy asked for (static storage): f32, bf16, bf16x2, int8, auto */
    /* Per op kind (indexed by ts_op; sized generously so base does not depend on graph). */
    uint64_t profile_ns[64];
    uint64_t profile_calls[64];
};

#endif
