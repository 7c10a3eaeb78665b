/* qwen3_vl_vision.h — the Qwen3-VL vision tower (Qwen3VLVisionModel, also Qwen3-VL-MoE's) as one
 * graph: patch embedding with bias, the learned position table interpolated to each grid, LayerNorm
 * ViT blocks with per-frame attention, the main patch merger, and the DeepStack mergers that
 * project the outputs of the blocks in deepstack_visual_indexes for the language model.
 *
 * Built for a patch count N (the sum of t·h·w over the grids) like the Qwen2-VL tower: everything
 * that depends on the grids comes in as small inputs computed on the host from the grids alone,
 * so one graph serves every set of images with N patches:
 *
 *   pixel_values f32[N, C·T·P·P]  rows as the processor emits them (merge-block order)
 *   positions    i32[N, 2]        (h, w) of each row (ts_qwen2_vl_vision_layout)
 *   segments     i32[N]           rows attend to each other iff equal: one per frame of each image
 *   pos_index    i32[4, N]        fast_pos_embed_interpolate's four pos_embed rows per patch row
 *   pos_weight   f32[4, N]        and their bilinear weights (ts_qwen3_vl_vision_pos_taps)
 *
 * Parameters, in order: weights (published names under spec->prefix; patch_embed.proj.weight is
 * declared as [D, C·T·P·P] for the published [D, C, T, P, P], same bytes: bind by name), then the
 * inputs above. Outputs, in order:
 *
 *   image_embeds f32[N/merge², out_hidden]      the main merger's rows (what replaces image tokens)
 *   deepstack    f32[K, N/merge², out_hidden]   only when K = n_deepstack > 0: deepstack[k] is the
 *                                               k-th DeepStack feature in block order (the
 *                                               reference's deepstack_feature_lists), which the
 *                                               language model adds at the image tokens after its
 *                                               decoder layer k
 *
 * and with diagnostics then patch_embed f32[N, D] (with bias), pos_embed f32[N, D] (the
 * interpolated table), blocks_input f32[N, D] (their sum) and the output of every block f32[N, D]
 * (depth of them). Stages are labelled vision.patch_embed, vision.pos_embed, vision.rope,
 * vision.mask, vision.block.i, vision.deepstack.k, vision.merger.
 */
#ifndef TS_MODELS_QWEN3_VL_VISION_H
#define TS_MODELS_QWEN3_VL_VISION_H

#include "models/decoder.h"
#include "models/vision_grid.h"

/* How torch.linspace rounds its f32 values (fast_pos_embed_interpolate's h_idxs, w_idxs). Both
 * compute step = end / (n − 1) and, below n/2, step·i, else end − step·(n − 1 − i); they differ in
 * which elements take which formula:
 *   TS_LINSPACE_TORCH       every element alone (torch ≥ 2.1, which removed the vector path)
 *   TS_LINSPACE_TORCH_VEC8  torch < 2.1 with 8-float vectors (AVX2): the first 16·⌊n/16⌋
 *                           elements go 8 at a time, each vector from its first element by that
 *                           rule plus k·step — the fixtures' torch 1.13 (for w = 18, index 13 is
 *                           one f32 ulp away from the scalar rule's). */
typedef enum ts_linspace_rule { TS_LINSPACE_TORCH = 0, TS_LINSPACE_TORCH_VEC8 } ts_linspace_rule;

#define TS_QWEN3_VL_MAX_DEEPSTACK 16

typedef struct ts_qwen3_vl_vision_spec {
    const char *prefix; /* "model.visual." */
    int64_t depth, width, heads, head_dim, inter, out_hidden;
    int64_t in_channels, temporal, patch, merge;
    int64_t patch_dim;   /* in_channels · temporal · patch² */
    int64_t n_positions; /* rows of pos_embed (num_position_embeddings) */
    int64_t grid_side;   /* num_grid_per_side = int(sqrt(n_positions)) */
    double norm_eps;
    ts_activation activation; /* the blocks' hidden_act; the mergers use exact GELU */
    /* deepstack_visual_indexes as configured: merger j (deepstack_merger_list.j) runs on the
     * output of block deepstack_block[j]. */
    int n_deepstack;
    int64_t deepstack_block[TS_QWEN3_VL_MAX_DEEPSTACK];
    float inv_freq[256];       /* head_dim/4 entries, theta 10000, f32 as the reference */
    ts_linspace_rule linspace; /* TS_LINSPACE_TORCH from spec_init */
} ts_qwen3_vl_vision_spec;

/* Fills spec from config.json's vision_config (qwen3_vl, qwen3_vl_moe). Errors name the setting. */
ts_status ts_qwen3_vl_vision_spec_init(const ts_model_config *cfg, ts_qwen3_vl_vision_spec *spec,
                                       ts_error *err);

/* torch.linspace(0, end, n, dtype=float32)[i] under `rule` (n = 1: 0). */
float ts_qwen3_vl_linspace(float end, int64_t n, int64_t i, ts_linspace_rule rule);

/* fast_pos_embed_interpolate's taps for grids accepted by ts_qwen2_vl_vision_count (rows patch
 * rows in all), in the order of the pixel rows (merge-block order, every frame repeating its
 * image's taps): for tap k of row r, index[k·rows + r] is the pos_embed row and weight[k·rows + r]
 * its weight. Taps k = 0..3 are (⌊h⌋, ⌊w⌋), (⌊h⌋, ⌈w⌉), (⌈h⌉, ⌊w⌋), (⌈h⌉, ⌈w⌉) with ⌈·⌉ = ⌊·⌋ + 1
 * clipped to the table's last row/column, and weights (1−dh)(1−dw), (1−dh)dw, dh(1−dw), dh·dw,
 * every step in f32 as the reference. The reference casts the weights to the table's dtype: our
 * towers compute in f32 whatever the checkpoint stores (as transformers with dtype float32), so
 * they stay f32. */
void ts_qwen3_vl_vision_pos_taps(const ts_qwen3_vl_vision_spec *spec, const ts_vision_grid *grids,
                                 int n_grids, int64_t rows, int32_t *index, float *weight);

/* Builds the tower for n_patches rows into g (which must be empty). Every weight is checked
 * (present, shape, dtype) before any input is declared; errors name the tensor. */
ts_status ts_qwen3_vl_vision_build(ts_graph *g, const ts_qwen3_vl_vision_spec *spec,
                                   const ts_weight_source *weights, int64_t n_patches,
                                   bool diagnostics, ts_error *err);

#endif
