/* qwen2_vl_vision.h — the Qwen2-VL vision tower (Qwen2VisionTransformerPretrainedModel) as one
 * graph, and the per-request layout it needs from the image grids.
 *
 * The graph is built for a patch count N (the sum of t·h·w over the grids); everything that
 * depends on the grids themselves comes in as small integer inputs, so one graph serves every
 * set of images with N patches and the exported module computes its own rotary tables and mask:
 *
 *   pixel_values f32[N, C·T·P·P]  rows as the processor emits them (merge-block order)
 *   positions    i32[N, 2]        (h, w) patch coordinates of each row, in the same order
 *   segments     i32[N]           rows attend to each other iff their segment ids are equal
 *                                 (Qwen2-VL: one segment per frame of each image, = cu_seqlens)
 *
 * The block-diagonal additive bias f32[N, N] (0 inside a segment, −inf across) is computed in
 * the graph from `segments` and shared by every block: O(N²) floats, traded for a graph that
 * does not bake the grids in (per-segment slices would make the graph grid-specific).
 *
 * Parameters, in order: weights (as built, published names under spec->prefix), then the three
 * inputs above. Outputs: image_embeds f32[N/merge², out_hidden]; with diagnostics, then
 * patch_embed f32[N, D] and the output of every block f32[N, D] (depth of them).
 * ts_qwen2_vl_vision_layout fills the inputs from the grids (the processor's image_grid_thw).
 */
#ifndef TS_MODELS_QWEN2_VL_VISION_H
#define TS_MODELS_QWEN2_VL_VISION_H

#include "models/decoder.h"

typedef struct ts_qwen2_vl_vision_spec {
    const char *prefix;        /* "visual." */
    int64_t depth, width, heads, head_dim, inter, out_hidden;
    int64_t in_channels, temporal, patch, merge;
    int64_t patch_dim;         /* in_channels · temporal · patch² */
    double norm_eps;
    ts_activation activation;  /* VisionMlp's hidden_act */
    float inv_freq[256];       /* head_dim/4 entries, theta 10000, computed in f32 as the reference */
} ts_qwen2_vl_vision_spec;

/* One image or video: temporal, height and width in patches (a row of image_grid_thw). */
typedef struct ts_vision_grid {
    int64_t t, h, w;
} ts_vision_grid;

/* Fills spec from config.json's vision_config (family qwen2_vl). Errors name the setting. */
ts_status ts_qwen2_vl_vision_spec_init(const ts_model_config *cfg, ts_qwen2_vl_vision_spec *spec, ts_error *err);

/* Checks the grids (each side ≥ 1, h and w multiples of merge) and counts their patch rows and
 * frames (= segments). */
ts_status ts_qwen2_vl_vision_count(const ts_vision_grid *grids, int n_grids, int64_t merge, int64_t *rows,
                                   int64_t *frames, ts_error *err);

/* The rows' (h, w) coordinates in merge-block order (rot_pos_emb: blocks of merge×merge patches
 * in raster order, raster inside a block, repeated for every frame), each row's frame index as
 * its segment, and cu_seqlens (frames + 1 entries: 0, then the cumulative rows per frame).
 * Arrays sized by ts_qwen2_vl_vision_count on grids it accepted; cu_seqlens may be NULL. */
void ts_qwen2_vl_vision_layout(const ts_vision_grid *grids, int n_grids, int64_t merge, int32_t *positions,
                               int32_t *segments, int64_t *cu_seqlens);

/* Builds the tower for n_patches rows into g (which must be empty). Every weight is checked
 * (present, shape, dtype) before any input is declared; errors name the tensor. */
ts_status ts_qwen2_vl_vision_build(ts_graph *g, const ts_qwen2_vl_vision_spec *spec, const ts_weight_source *weights,
                                   int64_t n_patches, bool diagnostics, ts_error *err);

#endif
