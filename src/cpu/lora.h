/* lora.h — the CPU half of ts_graph_lora_linear: the per-row low-rank delta added onto a base
 * linear's output (the executor runs ts_cpu_linear for the base first, into the same y).
 *
 * Contract: y[i] += (b[k]·(a[k]·x[i])) · scale[k] with k = index[i], in f32, the A product
 * summed over `in` in order, the B product over r in order (so a zero-padded rank adds exact
 * zeros and an all-zero adapter leaves y bit-identical). Rows are independent: a row's result
 * does not depend on the other rows of the batch or their adapters. scratch holds m·r floats
 * (the executor sizes it). TS_ERR_RANGE, y untouched, when an index lies outside 0 … adapters−1.
 */
#ifndef TS_CPU_LORA_H
#define TS_CPU_LORA_H

#include "cpu/ops.h"

typedef struct ts_lora_shape {
    int64_t m, in, out, adapters, rank;
} ts_lora_shape;

ts_status ts_cpu_lora_delta(const ts_cpu *cpu, const ts_lora_shape *s, const float *x,
                            const float *a, const float *b, const float *scale,
                            const int32_t *index, float *y, void *scratch, ts_error *err);

#endif
