/* context.c — ts_context lifetime. */
#include "base/context.h"
#include "base/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Levels nest: each name allows its own feature and every one before it. */
static ts_status parse_cpu_level(const char *level, unsigned *allowed, ts_error *err)
{
    static const struct {
        const char *name;
        unsigned features;
    } levels[] = {
        {"portable", 0},
        {"avx2", TS_CPU_AVX2},
        {"avx512", TS_CPU_AVX2 | TS_CPU_AVX512 | TS_CPU_AVX512_VNNI},
        {"avx512_bf16", TS_CPU_AVX2 | TS_CPU_AVX512 | TS_CPU_AVX512_VNNI | TS_CPU_AVX512_BF16},
        {"amx",
         TS_CPU_AVX2 | TS_CPU_AVX512 | TS_CPU_AVX512_VNNI | TS_CPU_AVX512_BF16 | TS_CPU_AMX_BF16},
    };
    unsigned detected = ts_cpu_features();
    if (!level || strcmp(level, "auto") == 0) {
        *allowed = detected;
        return TS_OK;
    }
    for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
        if (strcmp(level, levels[i].name) != 0) continue;
        unsigned top = levels[i].features & ~(i ? levels[i - 1].features : 0u);
        if (top && !(detected & top))
            return ts_error_set(err, TS_ERR_UNSUPPORTED, "cpu level '%s' is not available here (cpu: %s)",
                                level, ts_cpu_features_string(detected));
        *allowed = detected & levels[i].features;
        return TS_OK;
    }
    return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                        "unknown cpu level '%s' (expected auto, portable, avx2, avx512, avx512_bf16 or amx)",
                        level);
}

ts_status ts_context_create(const ts_context_options *options, ts_context **out, ts_error *err)
{
    *out = NULL;
    ts_context *ctx = calloc(1, sizeof(*ctx));
    if (!ctx) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "context: out of memory");
    ctx->log_level = options ? options->log_level : TS_LOG_WARN;
    ctx->profile = options && options->profile;
    const char *compute = options ? options->compute : NULL;
    bool compute_auto = compute && strcmp(compute, "auto") == 0;
    static const char *const names[] = {"f32", "bf16", "bf16x2", "int8", "auto"};
    ctx->compute_name = names[0];
    for (size_t i = 0; compute && i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(compute, names[i]) == 0) ctx->compute_name = names[i];
    if (compute && strcmp(compute, "bf16") == 0)
        ctx->compute_bf16 = 1, ctx->compute_int8 = true;
    else if (compute && strcmp(compute, "bf16x2") == 0) ctx->compute_bf16 = 2;
    else if ((compute && strcmp(compute, "int8") == 0) || compute_auto)
        ctx->compute_int8 = true;
    else if (compute && strcmp(compute, "f32") != 0) {
        free(ctx);
        return ts_error_set(
            err, TS_ERR_INVALID_ARGUMENT,
            "unknown compute precision '%s' (expected f32, bf16, bf16x2, int8 or auto)", compute);
    }
    int n = options ? options->n_threads : 0;
    if (n < 0) {
        free(ctx);
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "threads must be >= 0, got %d", n);
    }
    /* $TESSERA_CPU stands in for "auto": a whole process (a test suite, a server) can be held to
     * a level, e.g. portable, as a CPU without these instructions would run it. */
    const char *level = options ? options->cpu_level : NULL;
    if ((!level || strcmp(level, "auto") == 0) && getenv("TESSERA_CPU") && *getenv("TESSERA_CPU")) level = getenv("TESSERA_CPU");
    ts_status st = parse_cpu_level(level, &ctx->cpu_features, err);
    /* bf16 products run on the CPU's bf16 units (oneDNN on AMX, or VDPBF16PS): without them the
     * first many-row matmul would fail, so say it now. */
    /* auto: the fastest products the allowed kernels have (bf16 where the CPU has bf16 units). */
    if (st == TS_OK && compute_auto && (ctx->cpu_features & (TS_CPU_AVX512_BF16 | TS_CPU_AMX_BF16)))
        ctx->compute_bf16 = 1;
    if (st == TS_OK && ctx->compute_bf16 && !(ts_cpu_features() & (TS_CPU_AVX512_BF16 | TS_CPU_AMX_BF16)))
        st = ts_error_set(err, TS_ERR_UNSUPPORTED, "compute '%s' needs AVX512_BF16 or AMX, which this CPU lacks (cpu: %s)", compute,
                          ts_cpu_features_string(ts_cpu_features()));
    if (st != TS_OK) {
        free(ctx);
        return st;
    }
    st = ts_pool_create(n, &ctx->pool, err);
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

const char *ts_context_compute_summary(const ts_context *ctx, char *buf, size_t cap)
{
    bool is_auto = strcmp(ctx->compute_name, "auto") == 0;
    snprintf(buf, cap, "%s: %s products for bf16 weights%s%s, %s activations for quantized weights",
             ctx->compute_name,
             ctx->compute_bf16 == 2   ? "bf16 hi+lo"
             : ctx->compute_bf16 == 1 ? "bf16"
                                      : "f32",
             ctx->compute_bf16 == 1 ? " (matmuls and prefill attention)" : "",
             is_auto && !ctx->compute_bf16 ? " (no bf16 units)" : "",
             ctx->compute_int8 ? "int8 (W8A8)" : "f32");
    return buf;
}

unsigned ts_context_cpu_features(const ts_context *ctx) { return ctx->cpu_features; }
