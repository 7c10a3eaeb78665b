/* vision_entry.h — vision.main, a tower as a bundle entry (the contracts are at the top of
 * vision_entry.c): Qwen2-VL and Qwen3-VL towers in static patch-count buckets, LLaVA's CLIP or SigLIP tower
 * for its one fixed image size. */
#ifndef TS_MODELS_VISION_ENTRY_H
#define TS_MODELS_VISION_ENTRY_H

#include "models/decoder.h"

/* What the manifest records about a tower. layout: "patch_rows" (Qwen2-VL: pixel_values,
 * positions, segments, count), "patch_rows_deepstack" (Qwen3-VL: pixel_values, positions,
 * segments, pos_index, pos_weight, count; results image_embeds and deepstack) or "fixed_image"
 * (LLaVA: one pixel_values f32[C, S, S] per run). */
typedef struct ts_vision_entry_geometry {
    const char *layout;
    int64_t patch, temporal, merge, width, depth, out_hidden;
    int64_t image_patches; /* fixed_image: the only bucket (S/P)²; 0 for patch_rows */
    int deepstack;               /* patch_rows_deepstack: K, the DeepStack levels; else 0 */
    int64_t position_embeddings; /* patch_rows_deepstack: rows of the learned position table; else 0 */
} ts_vision_entry_geometry;

ts_status ts_vision_entry_geometry_of(const ts_model_config *cfg, ts_vision_entry_geometry *geometry, ts_error *err);
ts_status ts_vision_entry_build(ts_graph *g, const ts_model_config *cfg, const ts_weight_source *source, int64_t n_patches,
                                ts_error *err);

#endif
