/* printer.h — a ts_graph as StableHLO MLIR text (the jax.export spelling iree-compile reads).
 *
 * Output: `module @NAME { func.func public @main(...) -> (...) { ... } ... }`. Function arguments
 * are the graph's parameters in parameter-index order, each tagged
 * `{tessera.name = "...", tessera.role = "weight"|"input"|"state"}`; results are the graph's
 * outputs. Non-parameter nodes with a stage label end in `loc("label")`. Constants are exact:
 * float scalars as bit patterns (dense<0x3F800000>), float tensors as little-endian hex blobs
 * (dense<"0x...">), integers and i1 as decimal / true / false. Reductions, argmax and scatter
 * carry explicit regions (generic op form). Composites are printed as
 * `stablehlo.composite "tessera.<op>"` with their attributes and `decomposition = @tessera.<op>.N`,
 * a private function holding the primitive expansion of graph/decompose.c (identical expansions
 * share one function), so other compilers can inline them while ts_stablehlo_read maps each back
 * to the fused op. Errors: TS_ERR_OUT_OF_MEMORY, or the graph's own builder error.
 */
#ifndef TS_EXPORT_PRINTER_H
#define TS_EXPORT_PRINTER_H

#include "graph/graph.h"

/* *text: owned by the caller, free with free(); NUL-terminated, *len bytes without the NUL. */
ts_status ts_stablehlo_print(const ts_graph *g, const char *module_name, char **text, size_t *len,
                             ts_error *err);

#endif
