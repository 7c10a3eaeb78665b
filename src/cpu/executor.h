/* executor.h — runs a graph on the CPU: plans buffers once, then executes node by node.
 *
 * ts_program_create plans a graph (which must outlive the program): each value gets a place —
 * a caller pointer (parameters), the graph's constant data, an alias of another value (reshape,
 * a slice over a contiguous window, in-place update of a state parameter) or an offset in one workspace reused across values whose
 * lifetimes do not overlap. ts_program_run binds parameter pointers by parameter index, runs
 * every node (fused kernels for composites, fast paths for hot primitives, the reference kernel
 * for the rest) and returns borrowed pointers to the outputs, valid until the next run or
 * destroy. State parameters (TS_PARAM_STATE) are updated in place through dynamic_update_slice.
 * A program is not reentrant: one run at a time.
 */
#ifndef TS_CPU_EXECUTOR_H
#define TS_CPU_EXECUTOR_H

#include "graph/graph.h"

typedef struct ts_program ts_program;

ts_status ts_program_create(const ts_graph *g, ts_context *ctx, ts_program **out, ts_error *err);
void ts_program_destroy(ts_program *prog);
/* outputs: n_outputs entries (the graph's), each borrowed. */
ts_status ts_program_run(ts_program *prog, void *const *params, const void **outputs, ts_error *err);
/* Declares the rows of a multi-sequence step: n runs of rows[i] rows, one per sequence, in the
 * order the graph stacks them (at most 64, summing to the step's rows). Its matmuls then give
 * every row the bits of its sequence's step alone (see ts_cpu.segments in cpu/ops.h);
 * decode_rows (a speculative verify step): the bits a plain decode step gives each row
 * (ts_cpu.decode_rows). TS_ERR_RANGE beyond 64 runs or for a run under one row. */
ts_status ts_program_set_row_segments(ts_program *prog, const int64_t *rows, int n, bool decode_rows, ts_error *err);
size_t ts_program_workspace_bytes(const ts_program *prog);
/* True when the plan writes result `output` over parameter `parameter`'s buffer (the whole of it):
 * a run updates that argument in place and returns its pointer as the result. */
bool ts_program_output_in_place(const ts_program *prog, int output, int parameter);

#endif
