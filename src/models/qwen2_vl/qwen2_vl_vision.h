/* qwen2_vl_vision.h — the Qwen2-VL vision tower (Qwen2VisionTransformerPretrainedModel) and its
 * Qwen2.5-VL derivative (Qwen2_5_VisionTransformerPretrainedModel: RMSNorm, gated MLP with
 * biases, window attention) as one graph, and the per-request layout it needs from the grids.
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
 * does not bake the grids in (per-segment slices would make the graph grid-specific). The mask
 * only hides keys: attention still does N² work, which Qwen2.5-VL's small windows would save
 * with a segment-aware kernel.
 *
 * Qwen2.5-VL runs its blocks on the rows permuted into window order (merge units of
 * window×window, see ts_qwen2_5_vl_vision_layout) and adds two inputs:
 *
 *   windows      i32[N]           the window segment of each row (blocks not in
 *                                 fullatt_block_indexes attend within a window)
 *   window_index i32[N/merge²]    get_window_index: the merge unit placed at each window-order slot
 *
 * and there positions, segments and windows are given in window order; pixel_values stay in
 * the processor's order (the graph gathers the patch embeddings and scatters the merger output
 * back, so image_embeds come in the processor's order in both towers).
 *
 * Parameters, in order: weights (as built, published names under spec->prefix), then the
 * inputs above in that order. Each weight parameter has its checkpoint tensor's bytes; only
 * patch_embed.proj.weight is declared in another shape, [D, C·T·P·P] for the published
 * [D, C, T, P, P] (same bytes), so bind weights by name, not by comparing shapes. Outputs: image_embeds f32[N/merge², out_hidden]; with
 * diagnostics, then patch_embed f32[N, D], blocks_input f32[N, D] (window order), the output of
 * every block f32[N, D] (depth of them), and the merger output before un-permuting
 * f32[N/merge², out_hidden] (Qwen2-VL: the same values as patch_embed and image_embeds).
 * The layout functions fill the inputs from the grids (the processor's image_grid_thw).
 */
#ifndef TS_MODELS_QWEN2_VL_VISION_H
#define TS_MODELS_QWEN2_VL_VISION_H

#include "models/decoder.h"
#include "models/vision_grid.h"

typedef struct ts_qwen2_vl_vision_spec {
    bool windowed;             /* Qwen2.5-VL: window attention, RMSNorm, gated MLP */
    const char *prefix;        /* "visual." */
    int64_t depth, width, heads, head_dim, inter, out_hidden;
    int64_t in_channels, temporal, patch, merge;
    int64_t patch_dim;         /* in_channels · temporal · patch² */
    double norm_eps;
    ts_activation activation;  /* VisionMlp's hidden_act */
    float inv_freq[256];       /* head_dim/4 entries, theta 10000, computed in f32 as the reference */
    /* Qwen2.5-VL: merge units per window side (window_size / merge / patch), and which blocks
     * attend over the whole frame instead of the window. */
    int64_t window;
    bool full_attention[TS_MAX_LAYERS];
} ts_qwen2_vl_vision_spec;


/* Fills spec from config.json's vision_config (qwen2_vl, qwen2_5_vl). Errors name the setting. */
ts_status ts_qwen2_vl_vision_spec_init(const ts_model_config *cfg, ts_qwen2_vl_vision_spec *spec, ts_error *err);

/* Checks the grids (each side ≥ 1, h and w multiples of merge) and counts their patch rows and
 * frames (= segments). */
ts_status ts_qwen2_vl_vision_count(const ts_vision_grid *grids, int n_grids, int64_t merge, int64_t *rows,
                                   int64_t *frames, ts_error *err);

/* Checks that each image is [t·h·w, patch_dim] patch rows with data (an error names the image),
 * then fills grids (n_images of them) and counts as ts_qwen2_vl_vision_count. */
ts_status ts_qwen2_vl_vision_grids(const ts_pixel_values *images, int n_images, int64_t patch_dim, int64_t merge,
                                   ts_vision_grid *grids, int64_t *rows, int64_t *frames, ts_error *err);
/* The images' patch rows one after another, in order, into pixels [rows][patch_dim]. */
void ts_qwen2_vl_vision_pack(const ts_pixel_values *images, int n_images, int64_t patch_dim, float *pixels);

/* The rows' (h, w) coordinates in merge-block order (rot_pos_emb: blocks of merge×merge patches
 * in raster order, raster inside a block, repeated for every frame), each row's frame index as
 * its segment, and cu_seqlens (frames + 1 entries: 0, then the cumulative rows per frame).
 * Arrays sized by ts_qwen2_vl_vision_count on grids it accepted; cu_seqlens may be NULL. */
void ts_qwen2_vl_vision_layout(const ts_vision_grid *grids, int n_grids, int64_t merge, int32_t *positions,
                               int32_t *segments, int64_t *cu_seqlens);

/* Qwen2.5-VL (get_window_index): per grid and frame, the merge units are tiled by windows of
 * window×window units from the top left (the last row and column of windows may be partial or,
 * as the reference pads by window − n mod window, empty), windows in raster order, units in
 * raster order inside a window. window_index[k] is the unit (counted over all grids in the
 * processor's order) at window-order slot k; each row's positions and segment (its frame) are
 * those of ts_qwen2_vl_vision_layout, moved with its unit; windows numbers the non-empty windows
 * over all frames. Arrays sized by ts_qwen2_vl_vision_count (window_index: rows / merge²). */
void ts_qwen2_5_vl_vision_layout(const ts_vision_grid *grids, int n_grids, int64_t merge, int64_t window,
                                 int32_t *positions, int32_t *segments, int32_t *windows, int32_t *window_index);

/* Builds the tower for n_patches rows into g (which must be empty). Every weight is checked
 * (present, shape, dtype) before any input is declared; errors name the tensor. */
ts_status ts_qwen2_vl_vision_build(ts_graph *g, const ts_qwen2_vl_vision_spec *spec, const ts_weight_source *weights,
                                   int64_t n_patches, bool diagnostics, ts_error *err);

#endif
