/* bandwidth.c — a streaming-read measurement: the yardstick for decode, which streams weights.
 *
 * Each worker sums its own contiguous slice with the widest dot kernel; the best of several
 * passes counts (the first pass also pays page faults). */
#include "base/context.h"
#include "base/pages.h"
#include "cpu/kernels.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    const float *data;
    size_t n;
    int64_t chunks;
    const ts_kernels *k;
    volatile float sink[1024];
} read_job;

static void read_task(void *arg, int64_t task, int worker)
{
    read_job *j = arg;
    size_t per = j->n / (size_t)j->chunks;
    const float *p = j->data + per * (size_t)task;
    j->sink[worker % 1024] += j->k->dot_f32(p, p, per);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double ts_measure_read_bandwidth(ts_context *ctx, size_t bytes)
{
    size_t n = bytes / sizeof(float);
    float *data = ts_pages_alloc(n * sizeof(float)); /* the weights' pages (pages.h) */
    if (!data) return 0;
    memset(data, 0, n * sizeof(float));
    read_job *job = calloc(1, sizeof(*job));
    if (!job) {
        free(data);
        return 0;
    }
    job->data = data;
    job->n = n;
    job->chunks = ts_pool_size(ctx->pool);
    job->k = ts_kernels_select(ctx->cpu_features);
    double best = 0;
    for (int pass = 0; pass < 4; pass++) {
        double t0 = now();
        ts_pool_run(ctx->pool, read_task, job, job->chunks);
        double rate = (double)(n * sizeof(float)) / (now() - t0);
        best = rate > best ? rate : best;
    }
    free(job);
    free(data);
    return best;
}
