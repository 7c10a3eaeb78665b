/* graph_internal.h — what the builder files share: appending a node and recording a failure.
 * Only the files of src/graph include this. */
#ifndef TS_GRAPH_INTERNAL_H
#define TS_GRAPH_INTERNAL_H

#include "graph/graph.h"

/* Appends a node (inputs copied); TS_NO_VALUE once the graph holds an error. */
ts_value ts_graph_append(ts_graph *g, ts_op op, ts_type type, const ts_value *inputs, int n_inputs,
                         const ts_attrs *attrs);
/* Records the first failure with the stage and op name; returns TS_NO_VALUE. */
ts_value ts_graph_fail(ts_graph *g, ts_op op, ts_status status, const char *fmt, ...) TS_PRINTF(4, 5);
/* True when every input is a defined value (else records an error). */
bool ts_graph_inputs_defined(ts_graph *g, ts_op op, const ts_value *inputs, int n);

#endif
