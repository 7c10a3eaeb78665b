/* weights.h — declaring checkpoint tensors as weight parameters, checked first.
 *
 * ts_weight_param looks `name` up in the weight source with the shape the config implies and
 * declares it, or records why not: missing (TS_ERR_NOT_FOUND), another shape (TS_ERR_FORMAT,
 * both shapes named), a non-float dtype (TS_ERR_UNSUPPORTED). The status is sticky: once set,
 * later calls do nothing, so a model builder checks it once after declaring all its weights.
 * `as_rank`/`as_dims` declare a view of the same bytes (a conv kernel as a matrix).
 * ts_weight_paramv takes the name as a format (a name too long for 255 bytes is an error).
 */
#ifndef TS_MODELS_WEIGHTS_H
#define TS_MODELS_WEIGHTS_H

#include "models/decoder.h"

#include <stdarg.h>

ts_value ts_weight_param(ts_graph *g, const ts_weight_source *source, ts_status *status, ts_error *err, const char *name,
                         int rank, const int64_t *dims, int as_rank, const int64_t *as_dims);
ts_value ts_weight_paramv(ts_graph *g, const ts_weight_source *source, ts_status *status, ts_error *err, int rank,
                          const int64_t *dims, int as_rank, const int64_t *as_dims, const char *fmt, va_list ap);

#endif
