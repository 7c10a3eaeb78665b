/* rope.c — rotary embedding on [L, heads, head_dim] with per-position cos/sin [L, rotary/2]. */
#include "cpu/ops.h"

#include <string.h>

typedef struct {
    const float *x, *cos, *sin;
    int64_t heads, head_dim;
    int rotary;
    bool interleaved;
    float *y;
} rope_job;

static void rope_task(void *arg, int64_t l, int worker)
{
    (void)worker;
    const rope_job *j = arg;
    int half = j->rotary / 2;
    const float *c = j->cos + l * half, *s = j->sin + l * half;
    for (int64_t h = 0; h < j->heads; h++) {
        const float *x = j->x + (l * j->heads + h) * j->head_dim;
        float *y = j->y + (l * j->heads + h) * j->head_dim;
        if (y != x) memcpy(y + j->rotary, x + j->rotary, sizeof(float) * (size_t)(j->head_dim - j->rotary));
        for (int i = 0; i < half; i++) {
            int a = j->interleaved ? 2 * i : i, b = j->interleaved ? 2 * i + 1 : i + half;
            float xa = x[a], xb = x[b];
            y[a] = xa * c[i] - xb * s[i];
            y[b] = xb * c[i] + xa * s[i];
        }
    }
}

void ts_cpu_rope(const ts_cpu *cpu, const float *x, int64_t l, int64_t heads, int64_t head_dim,
                 const float *cos, const float *sin, int rotary_dim, bool interleaved, float *y)
{
    rope_job job = {x, cos, sin, heads, head_dim, rotary_dim, interleaved, y};
    ts_pool_run(cpu->pool, rope_task, &job, l);
}
