/* softmax.c — max-subtracted softmax over rows, with an optional additive bias. */
#include "cpu/ops.h"

#include <math.h>

typedef struct {
    const ts_kernels *k;
    const float *x, *bias;
    int64_t n;
    float *y;
} softmax_job;

/* In place on y[0..n): y already holds the biased scores. Shared with attention. */
void ts_cpu_softmax_row(const ts_kernels *k, float *y, int64_t n)
{
    k->softmax_f32(y, (size_t)n);
}

static void softmax_task(void *arg, int64_t row, int worker)
{
    (void)worker;
    const softmax_job *j = arg;
    float *y = j->y + row * j->n;
    const float *x = j->x + row * j->n;
    for (int64_t i = 0; i < j->n; i++) y[i] = x[i] + (j->bias ? j->bias[row * j->n + i] : 0.0f);
    ts_cpu_softmax_row(j->k, y, j->n);
}

void ts_cpu_softmax(const ts_cpu *cpu, const float *x, const float *bias, int64_t rows, int64_t n, float *y)
{
    softmax_job job = {cpu->kernels, x, bias, n, y};
    ts_pool_run(cpu->pool, softmax_task, &job, rows);
}
