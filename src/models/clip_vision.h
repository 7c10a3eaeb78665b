/* clip_vision.h — a CLIP or SigLIP image path as one graph, shared by the families that use these
 * towers: the tower (CLIPVisionTransformer, SiglipVisionTransformer), then one of two projectors:
 *   TS_VIT_PROJECT_MLP   hidden_states[feature layer], the feature select strategy, then
 *                        linear_1 → act → linear_2 (LlavaMultiModalProjector);
 *   TS_VIT_PROJECT_POOL  last_hidden_state (every block, then post_layernorm), average-pooled
 *                        from grid² patches to tokens, RMSNorm (1 + w), then · W [D, LM hidden]
 *                        (Gemma3MultiModalProjector).
 *
 * The graph takes one image as the processor emits it, pixel_values f32[C, S, S] (the
 * [1, C, S, S] of ts_preprocess_image without its batch axis). The conv patch embedding (kernel =
 * stride = P) is a matmul: the graph rearranges the pixels into [patches, C·P·P] rows with a
 * reshape and a transpose (patches in raster order, columns (channel, row, column), the order of
 * the kernel's [D, C, P, P] bytes), so the exported module takes the processor's tensor as is.
 *
 * CLIP and SigLIP differ only in the embeddings: CLIP prepends class_embedding, has no conv
 * bias and applies pre_layrnorm (sic: the published name) before the blocks; SigLIP has a conv
 * bias and no class token or pre-norm. Blocks are the same (LayerNorm, attention with biased
 * q/k/v/out projections, fc1 → hidden_act → fc2). post_layernorm is declared only by the pooling
 * projector (hidden_states are taken before it).
 *
 * Parameters, in order: weights (published names, checked before any input is declared; only
 * the patch embedding is declared in another shape, [D, C·P·P] for [D, C, P, P], so bind by
 * name), then pixel_values. Outputs: image_embeds f32[tokens, LM hidden]; with diagnostics,
 * then patch_embed (the embeddings' output) f32[positions, D], blocks_input f32[positions, D]
 * (CLIP: after pre_layrnorm; SigLIP: the embeddings) and the output of every block (depth of
 * them, even those past the feature layer), positions = patches (+ 1 with a class token).
 */
#ifndef TS_MODELS_CLIP_VISION_H
#define TS_MODELS_CLIP_VISION_H

#include "models/decoder.h"
#include "models/tower.h"

typedef enum ts_vit_kind {
    TS_VIT_CLIP = 0, /* class token, pre_layrnorm, conv without bias */
    TS_VIT_SIGLIP,   /* conv with bias, nothing else */
} ts_vit_kind;

typedef enum ts_vit_projector { TS_VIT_PROJECT_MLP = 0, TS_VIT_PROJECT_POOL } ts_vit_projector;

typedef struct ts_clip_vision_spec {
    ts_vit_kind kind;
    const char *prefix;    /* "vision_tower.vision_model." */
    const char *projector; /* "multi_modal_projector." */
    int64_t depth, width, heads, head_dim, inter;
    int64_t in_channels, image, patch, grid; /* grid = image / patch patches per side */
    int64_t positions;                       /* grid² (+ 1 for the class token) */
    int64_t lm_hidden;                       /* the projector's output width */
    double norm_eps;
    ts_activation activation, projector_activation;
    /* hidden_states[feature_layer] (0 = blocks input, k = output of block k − 1), so the graph
     * runs feature_layer blocks; drop_first: strategy "default" drops the class token row. */
    int64_t feature_layer;
    bool drop_first;
    int64_t tokens; /* image rows per image: positions − drop_first, or the pooled tokens */
    ts_vit_projector projector_kind;
    int64_t pool_side; /* POOL: tokens per side (the pooling kernel is grid / pool_side) */
} ts_clip_vision_spec;

/* Fills spec for the MLP projector from config.json (vision_config, vision_feature_layer,
 * strategy, projector_hidden_act). Errors name the setting. */
ts_status ts_clip_vision_spec_init(const ts_model_config *cfg, ts_clip_vision_spec *spec, ts_error *err);
/* Fills spec for the pooling projector: mm_tokens_per_image tokens, a square number whose side
 * divides the patch grid. */
ts_status ts_clip_vision_pool_spec_init(const ts_model_config *cfg, ts_clip_vision_spec *spec, ts_error *err);

/* Builds the image path for one image into g (which must be empty). Every weight is checked
 * (present, shape, dtype) before the input is declared; errors name the tensor. */
ts_status ts_clip_vision_build(ts_graph *g, const ts_clip_vision_spec *spec, const ts_weight_source *weights,
                               bool diagnostics, ts_error *err);

/* A fixed-size tower as ts_tower_ops (models/tower.h) over a ts_clip_vision_spec: one image
 * [C, S, S] per run (a ts_pixel_values may hold several, [k, C, S, S]), `tokens` rows each. A
 * family supplies its own create (which spec_init) and bundle entry. */
ts_status ts_clip_tower_build(ts_graph *g, const void *spec, const ts_weight_source *weights, int64_t n_patches, ts_error *err);
int64_t ts_clip_tower_smallest(const void *spec);
int ts_clip_tower_levels(const void *spec);
int64_t ts_clip_tower_width(const void *spec);
int64_t ts_clip_tower_image_tokens(const void *spec, const ts_pixel_values *pv);
int64_t ts_clip_tower_image_rows(const void *spec, const ts_pixel_values *pv);
ts_status ts_clip_tower_encode(const void *spec, ts_tower_runner *runner, const ts_pixel_values *images, int n_images, float **embeds,
                               int64_t *n_rows, ts_error *err);

/* vision.main of a fixed-size tower (layout "fixed_image", src/models/vision_entry.c), as
 * ts_tower_ops' entry_geometry and entry_build: the geometry the manifest records, and the
 * entry's graph, whose only bucket is the (S/P)² patches of one image (any other n_patches is
 * refused naming the image size). The MLP projector's (ts_clip_vision_spec_init) and the pooling
 * projector's (ts_clip_vision_pool_spec_init). */
ts_status ts_clip_entry_geometry(const ts_model_config *cfg, ts_vision_entry_geometry *out,
                                 ts_error *err);
ts_status ts_clip_entry_build(ts_graph *g, const ts_model_config *cfg,
                              const ts_weight_source *weights, int64_t n_patches, ts_error *err);
ts_status ts_clip_pool_entry_geometry(const ts_model_config *cfg, ts_vision_entry_geometry *out,
                                      ts_error *err);
ts_status ts_clip_pool_entry_build(ts_graph *g, const ts_model_config *cfg,
                                   const ts_weight_source *weights, int64_t n_patches,
                                   ts_error *err);

#endif
