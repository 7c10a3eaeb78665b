/* reader.h — StableHLO MLIR text (as ts_stablehlo_print writes it) back into a ts_graph.
 *
 * Accepts the printer's spelling with any whitespace, `//` comments and any SSA value names:
 * @main's arguments become parameters in order (names and roles from tessera.name /
 * tessera.role), its results the outputs, `loc("…")` the stage labels; each
 * `stablehlo.composite "tessera.<op>"` becomes the fused op (its decomposition function must
 * exist, parse and match the composite's signature). Reduction inits and argmax's index iota are
 * folded back into reduce_sum / reduce_max / argmax after checking they are the canonical ones.
 * Anything else fails with TS_ERR_FORMAT (syntax, types) or TS_ERR_UNSUPPORTED (an op or form
 * Tessera does not implement), the message "ORIGIN: line L:C: …". Sizes are bounded (rank 8,
 * dims < 2^31, names 256 bytes), so hostile input fails cleanly.
 */
#ifndef TS_EXPORT_READER_H
#define TS_EXPORT_READER_H

#include "graph/graph.h"

/* `text` need not be NUL-terminated. *out: owned, free with ts_graph_destroy. */
ts_status ts_stablehlo_read(const char *text, size_t len, const char *origin, ts_graph **out, ts_error *err);

#endif
