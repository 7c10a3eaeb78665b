/* printer.h — a ts_graph as StableHLO MLIR text (the jax.export spelling iree-compile reads).
 *
 * `module @NAME { func.func public @main(args) -> results {…} }`: arguments are the parameters in
 * index order, tagged {tessera.name = "…", tessera.role = "weight"|"input"|"state"}; results are
 * the outputs; stage labels print as loc("…"). Constants are exact (float bits in hex, integers in
 * decimal). Composites print as `stablehlo.composite "tessera.<op>"` calling a private
 * @tessera.<op>.N that holds graph/decompose.c's expansion (one per distinct expansion), so other
 * compilers inline it and ts_stablehlo_read restores the fused op.
 */
#ifndef TS_EXPORT_PRINTER_H
#define TS_EXPORT_PRINTER_H

#include "graph/graph.h"

/* *text: owned by the caller, free with free(); NUL-terminated, *len bytes without the NUL.
 * Errors: the graph's own builder error, TS_ERR_UNSUPPORTED (a dtype the text cannot carry),
 * TS_ERR_OUT_OF_MEMORY. */
ts_status ts_stablehlo_print(const ts_graph *g, const char *module_name, char **text, size_t *len,
                             ts_error *err);

#endif
