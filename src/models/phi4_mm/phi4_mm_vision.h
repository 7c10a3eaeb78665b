/* phi4_mm_vision.h — Phi-4-multimodal's image path as its descriptor states it (the family's own
 * header: only phi4_mm.c includes it): vision_config read into the model config, the HD image
 * processor (phi4_image_processor.h) behind the descriptor's preprocess hook, and the tower ops
 * (models/tower.h): the image graph of phi4_vision.h (tower, pooling, HD layout, projector) per
 * view count, one run per image. */
#ifndef TS_MODELS_PHI4_MM_VISION_H
#define TS_MODELS_PHI4_MM_VISION_H

#include "models/family.h"

/* vision_config (phi4_multimodal_vision) → cfg->vision, image_token_id and the feature layer;
 * cfg->vision.depth is num_hidden_layers. */
ts_status ts_phi4_mm_read_vision(const ts_json_reader *r, const cJSON *vision, ts_model_config *c);
ts_status ts_phi4_mm_preprocess(const ts_preprocessor_config *cfg, const uint8_t *rgb, int width, int height,
                                const ts_image_budget *budget, ts_pixel_values *out, ts_error *err);
extern const ts_tower_ops ts_phi4_mm_tower;
extern const char *const ts_phi4_mm_image_processors[];

#endif
