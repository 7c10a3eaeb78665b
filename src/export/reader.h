/* reader.h — StableHLO text, as ts_stablehlo_print writes it, back into a ts_graph.
 *
 * Any whitespace, `//` comments and value names are accepted. @main's arguments become the
 * parameters (tessera.name / tessera.role), its results the outputs, loc("…") the stage labels,
 * each `stablehlo.composite "tessera.<op>"` the fused op (its decomposition must be, up to names
 * and layout, graph/decompose.c's expansion); reduce inits and argmax's index iota fold back into
 * the op. Anything else fails with TS_ERR_FORMAT / TS_ERR_UNSUPPORTED / TS_ERR_RANGE and a
 * message "ORIGIN: line L:C: …". Sizes are bounded, so hostile text fails cleanly.
 */
#ifndef TS_EXPORT_READER_H
#define TS_EXPORT_READER_H

#include "graph/graph.h"

/* `text` need not be NUL-terminated. *out: owned, free with ts_graph_destroy. */
ts_status ts_stablehlo_read(const char *text, size_t len, const char *origin, ts_graph **out, ts_error *err);

#endif
