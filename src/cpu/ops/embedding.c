/* embedding.c — row lookup with widening to f32. */
#include "cpu/ops.h"

#include <string.h>

void ts_cpu_embedding(const ts_cpu *cpu, const void *table, ts_dtype dtype, int64_t vocab, int64_t h,
                      const int32_t *ids, int64_t n, float *out)
{
    for (int64_t i = 0; i < n; i++) {
        int64_t id = ids[i] < 0 ? 0 : ids[i] >= vocab ? vocab - 1 : ids[i];
        float *row = out + i * h;
        if (dtype == TS_DTYPE_BF16) cpu->kernels->bf16_to_f32((const uint16_t *)table + id * h, row, (size_t)h);
        else if (dtype == TS_DTYPE_F16) cpu->kernels->f16_to_f32((const uint16_t *)table + id * h, row, (size_t)h);
        else memcpy(row, (const float *)table + id * h, sizeof(float) * (size_t)h);
    }
}
