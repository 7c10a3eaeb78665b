/* derived_weights.h — a checkpoint as a weight source, with the tensors its family derives.
 *
 * Contract: find returns the checkpoint's tensor when it has one; otherwise, for a family with a
 * derive_weight hook, the derived tensor, built once on first use and kept (owned here) until
 * destroy. Safe to call from several threads (a model's tower may be encoded on another).
 */
#ifndef TS_ENGINE_DERIVED_WEIGHTS_H
#define TS_ENGINE_DERIVED_WEIGHTS_H

#include "tessera.h"

typedef struct ts_derived_weights ts_derived_weights;

/* ckpt and cfg (whose family derives) must outlive it. Owned; ts_derived_weights_destroy. */
ts_status ts_derived_weights_create(const ts_checkpoint *ckpt, const ts_model_config *cfg,
                                    ts_derived_weights **out, ts_error *err);
void ts_derived_weights_destroy(ts_derived_weights *d);
/* A ts_weight_source find (self = the ts_derived_weights). */
const ts_tensor_info *ts_derived_weights_find(void *self, const char *name, int rank,
                                              const int64_t *dims);
/* Bytes the derived tensors hold (views into the checkpoint count nothing). */
size_t ts_derived_weights_bytes(const ts_derived_weights *d);

#endif
