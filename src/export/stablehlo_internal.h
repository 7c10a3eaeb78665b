/* stablehlo_internal.h — what the StableHLO printer and reader share (only src/export uses it).
 *
 * The pieces of text that have one canonical spelling — element types, compare types, reduction
 * identities and the bodies of reduce/scatter regions — are written by the functions here, so the
 * reader checks a region by comparing it with what the printer would write, not with a second
 * hand-kept copy of the same knowledge. Implemented in spelling.c.
 */
#ifndef TS_EXPORT_STABLEHLO_INTERNAL_H
#define TS_EXPORT_STABLEHLO_INTERNAL_H

#include "base/buf.h"
#include "graph/graph.h"

typedef enum ts_shlo_region {
    TS_SHLO_REGION_ADD = 0, /* reduce_sum, scatter_add: return a + b */
    TS_SHLO_REGION_MAX,     /* reduce_max: return maximum(a, b) */
    TS_SHLO_REGION_ARGMAX,  /* (value, index) pairs: larger value, NaN, then lower index wins */
} ts_shlo_region;

/* "tensor<2x3xf32>" */
void ts_shlo_print_type(ts_buf *b, const ts_type *type);
/* compare_type for operands of `dtype`: FLOAT, SIGNED or UNSIGNED (i1 and ui8). */
const char *ts_shlo_compare_type(ts_dtype dtype);
/* Writes `dense<…>` for a constant of `type` holding `data`. */
void ts_shlo_print_dense(ts_buf *b, const ts_type *type, const void *data);
/* The init value of a reduction (0 for sums; the lowest value for max and argmax). */
void ts_shlo_identity(ts_op reduction, ts_dtype dtype, void *scalar);
/* Writes a region, from "({" to "})", for scalars of `dtype` (ARGMAX adds i32 indices).
 * Block arguments are %arg<*next_arg>…, values %<*next_value>…; both counters advance. */
void ts_shlo_print_region(ts_buf *b, ts_shlo_region kind, ts_dtype dtype, const char *indent,
                          int *next_arg, int *next_value);
/* A double as an MLIR float literal that reads back to the same bits. */
void ts_shlo_print_f64(ts_buf *b, double v);
const char *ts_shlo_activation_name(ts_activation act);

/* A function's "(%arg0: T, …) -> R {…}\n" without argument names (graphs of primitives). */
ts_status ts_shlo_print_function(const ts_graph *g, ts_buf *out, ts_error *err);
/* The same for the decomposition of the composite node `composite` of `src` (printer.c). */
ts_status ts_shlo_print_decomposition(const ts_graph *src, ts_value composite, ts_buf *out, ts_error *err);

#endif
