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
/* The tensors made so far, in creation order: i < count; borrowed, valid until destroy. */
size_t ts_synthetic_weights_count(const ts_synthetic_weights *w);
const ts_tensor_info *ts_synthetic_weights_at(const ts_synthetic_weights *w, size_t i);
/* The published config.json text a preset stands for (static), or NULL for an unknown name. */
const char *ts_synthetic_preset_json(const char *preset);
/* Fills cfg with a preset's published config.json values (ts_synthetic_preset_json parsed);
 * TS_ERR_NOT_FOUND listing the presets for an unknown name. */
ts_status ts_model_config_preset(const char *preset, ts_model_config *cfg, ts_error *err);
/* Writes DIR/config.json (config_json as given) and DIR/model.safetensors holding every tensor
 * of w, sorted by name, the header padded to 8 bytes: the same bytes for the same store. DIR is
 * created if missing. Errors: TS_ERR_IO naming the path, TS_ERR_OUT_OF_MEMORY. */
ts_status ts_synthetic_weights_write_checkpoint(const ts_synthetic_weights *w, const char *config_json, const char *dir,
                                                ts_error *err);

#endif
