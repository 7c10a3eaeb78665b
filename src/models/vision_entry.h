/* vision_entry.h — vision.main, a family's tower as a bundle entry (the contracts are at the top
 * of vision_entry.c): patch-row towers in static patch-count buckets, fixed-size towers for their
 * one image size. The geometry is ts_vision_entry_geometry (models/tower.h). */
#ifndef TS_MODELS_VISION_ENTRY_H
#define TS_MODELS_VISION_ENTRY_H

#include "models/decoder.h"
#include "models/tower.h"

ts_status ts_vision_entry_geometry_of(const ts_model_config *cfg, ts_vision_entry_geometry *geometry, ts_error *err);
ts_status ts_vision_entry_build(ts_graph *g, const ts_model_config *cfg, const ts_weight_source *source, int64_t n_patches,
                                ts_error *err);

#endif
