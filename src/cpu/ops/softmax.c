/* softmax.c — max-subtracted softmax over rows, with an optional additive bias. */
#include "cpu/ops.h"

#include <math.h>

typedef struct {
    const float *x, *bias;
    int64_t n;
    float *y;
} softmax_job;

/* In place on y[0..n): y already holds the biased scores. Shared with attention. */
void ts_cpu_softmax_row(float *y, int64_t n)
{
    float m = -INFINITY;
    for (int64_t i = 0; i < n; i++) m = y[i] > m ? y[i] : m;
    if (m == -INFINITY) { /* every score masked: the decomposition gives NaN (0/0) too */
        for (int64_t i = 0; i < n; i++) y[i] = NAN;
        return;
    }
    double sum = 0;
    for (int64_t i = 0; i < n; i++) {
        y[i] = expf(y[i] - m);
        sum += y[i];
    }
    float inv = (float)(1.0 / sum);
    for (int64_t i = 0; i < n; i++) y[i] *= inv;
}

static void softmax_task(void *arg, int64_t row, int worker)
{
    (void)worker;
    const softmax_job *j = arg;
    float *y = j->y + row * j->n;
    const float *x = j->x + row * j->n;
    for (int64_t i = 0; i < j->n; i++) y[i] = x[i] + (j->bias ? j->bias[row * j->n + i] : 0.0f);
    ts_cpu_softmax_row(y, j->n);
}

void ts_cpu_softmax(const ts_cpu *cpu, const float *x, const float *bias, int64_t rows, int64_t n, float *y)
{
    softmax_job job = {x, bias, n, y};
    ts_pool_run(cpu->pool, softmax_task, &job, rows);
}
