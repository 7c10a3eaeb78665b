/* weights.h — declaring checkpoint tensors as weight parameters, checked first.
 *
 * ts_weight_param looks `name` up in the weight source with the shape the config implies and
 * declares it, or records why not: missing (TS_ERR_NOT_FOUND), another shape (TS_ERR_FORMAT,
 * both shapes named), a non-float dtype (TS_ERR_UNSUPPORTED). The status is sticky: once set,
 * later calls do nothing, so a model builder checks it once after declaring all its weights.
 * `as_rank`/`as_dims` declare a view of the same bytes (a conv kernel as a matrix).
 * ts_weight_paramv takes the name as a format (a name too long for 255 bytes is an error).
 *
 * ts_weights_bind points params[index] of every weight parameter of a built (and possibly
 * quantized) graph at its bytes, found by name and the graph's shape. A weight the source cannot
 * give (TS_ERR_NOT_FOUND: a quantized store out of memory) or has no bytes for
 * (TS_ERR_UNSUPPORTED) is refused, naming it: a GPTQ/AWQ source answers a packed matrix's float
 * name with a
 * data-less entry, so this is where a graph that reads such a matrix as floats (not through a
 * quantized matmul) is stopped, instead of running on a NULL pointer.
 */
#ifndef TS_MODELS_WEIGHTS_H
#define TS_MODELS_WEIGHTS_H

#include "models/decoder.h"

#include <stdarg.h>

ts_value ts_weight_param(ts_graph *g, const ts_weight_source *source, ts_status *status, ts_error *err, const char *name,
                         int rank, const int64_t *dims, int as_rank, const int64_t *as_dims);
ts_value ts_weight_paramv(ts_graph *g, const ts_weight_source *source, ts_status *status, ts_error *err, int rank,
                          const int64_t *dims, int as_rank, const int64_t *as_dims, const char *fmt, va_list ap);
ts_status ts_weights_bind(const ts_graph *g, const ts_weight_source *source, void **params, ts_error *err);

#endif
