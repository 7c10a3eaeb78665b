/* lora.h — the CPU half of ts_graph_lora_linear: the per-row low-rank delta added onto a base
 * linear's output (the executor runs ts_cpu_linear for the base first, into the same y).
 *
 * Contract: y[i] += (b[k]·(a[k]·x[i])) · scale[k] with k = index[i], in f32, both products by
 * ts_cpu_linear over the rows that chose adapter k (a zero-padded rank adds exact zeros); rows
 * of an adapter with scale 0 (adapter 0, "none") are left exactly as the base wrote them. A row's
 * result depends only on its own x and on how many rows share its adapter in the step (through
 * ts_cpu_linear's kernel choice, as for any linear), never on the other adapters' rows.
 * scratch: ts_cpu_lora_scratch_bytes. TS_ERR_RANGE, y untouched, when an index lies outside
 * 0 … adapters−1; ts_cpu_linear's errors (bf16 compute policies only).
 */
#ifndef TS_CPU_LORA_H
#define TS_CPU_LORA_H

#include "cpu/ops.h"

typedef struct ts_lora_shape {
    int64_t m, in, out, adapters, rank;
    ts_dtype dtype; /* of a and b: F32, BF16 or F16 */
} ts_lora_shape;

size_t ts_cpu_lora_scratch_bytes(const ts_lora_shape *s);
ts_status ts_cpu_lora_delta(const ts_cpu *cpu, const ts_lora_shape *s, const float *x,
                            const void *a, const void *b, const float *scale,
                            const int32_t *index, float *y, void *scratch, ts_error *err);

#endif
