/* vision_entry.h — vision.main, a tower as a bundle entry with a static patch-count bucket (the
 * contract is at the top of vision_entry.c). Qwen2-VL towers today. */
#ifndef TS_MODELS_VISION_ENTRY_H
#define TS_MODELS_VISION_ENTRY_H

#include "models/qwen2_vl_vision.h"

ts_status ts_vision_entry_build(ts_graph *g, const ts_model_config *cfg,
                                const ts_weight_source *source, int64_t n_patches, ts_error *err);

#endif
