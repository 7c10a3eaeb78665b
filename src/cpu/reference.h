/* reference.h — the plain-C evaluator of primitive graphs (tests, oracles, non-x86 fallback).
 *
 * ts_reference_run evaluates every node of a graph holding only primitives, with parameters bound
 * by parameter index (params[i] holds ts_type_bytes bytes), and returns one owned buffer per
 * value (free all with ts_reference_free). Composite nodes are an error: their reference meaning
 * is their decomposition (graph/decompose.h).
 */
#ifndef TS_CPU_REFERENCE_H
#define TS_CPU_REFERENCE_H

#include "graph/graph.h"

ts_status ts_reference_run(const ts_graph *g, const void *const *params, void ***values, ts_error *err);
void ts_reference_free(const ts_graph *g, void **values);

/* Evaluates one primitive node into `out`; vals[v] holds value v's bytes for every input v. */
ts_status ts_reference_eval(const ts_graph *g, const ts_node *n, void *const *vals, void *out, ts_error *err);

/* Element i of a buffer of `dtype`, as double (bf16/f16 widened exactly). */
double ts_reference_get(ts_dtype dtype, const void *data, int64_t i);
/* Stores v converted to `dtype`: floats round to nearest even, integers truncate and saturate. */
void ts_reference_set(ts_dtype dtype, void *data, int64_t i, double v);

#endif
