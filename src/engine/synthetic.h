/* synthetic.h — in-memory random weights for benchmark models of published shapes.
 *
 * A tensor is created the first time the graph builder asks for it, with the shape the config
 * implies, filled deterministically from its name (so build order does not matter): matrices
 * and embeddings small uniform values, norm weights 1. Owned by the store; freed with it.
 */
#ifndef TS_ENGINE_SYNTHETIC_H
#define TS_ENGINE_SYNTHETIC_H

#include "tessera.h"

typedef struct ts_synthetic_weights ts_synthetic_weights;

ts_status ts_synthetic_weights_create(ts_dtype dtype, uint64_t seed, ts_synthetic_weights **out, ts_error *err);
void ts_synthetic_weights_destroy(ts_synthetic_weights *w);
/* A ts_weight_source find function; NULL when out of memory. */
const ts_tensor_info *ts_synthetic_weights_find(void *self, const char *name, int rank, const int64_t *dims);
size_t ts_synthetic_weights_bytes(const ts_synthetic_weights *w);

#endif
