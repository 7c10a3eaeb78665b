/* phi4_vision.h — Phi-4-multimodal's image embedding (Phi4MultimodalImageEmbedding, transformers
 * 5.23.0): the SigLIP tower over the HD views, 2×2 average pooling, the HD layout with its
 * separator rows, and the projector, in the order of modeling_phi4_multimodal.py:
 *
 *   per view (global first): patch Conv2d(3, D, P, stride P) + bias, + position_embedding at
 *     NaViT buckets (row i of nh valid rows → bucket(i/nh) over boundaries k/side, same for
 *     columns; padded patches position 0), then the first L + feature_layer + 1 encoder layers
 *     (pre-LayerNorm, attention with biases over the view's valid patches as keys, gelu_tanh MLP):
 *     hidden_states[feature_layer];
 *   AvgPool2d(2) over the side × side grid → (side/2)² rows;
 *   HD layout: the crops' pooled grid cut to its useful rows and columns, each row followed by
 *     sub_img_feature_extensor; global_img_feature_extensor; the global view's rows, each
 *     followed by sub_img_feature_extensor;
 *   projector: img_projection_down(gelu_erf(img_projection_up(x))).
 *
 * Contract: the runtime path is one graph per view count (ts_phi4_vision_build, phi4_vision_graph.c:
 * tower, pooling, HD layout and projector; the engine's tower ops and vision.main both build it).
 * The host code of phi4_vision.c (plain loops, f32 math over F32 or BF16 weights widened once per
 * call) is the tests' reference only, checked stage by stage against transformers
 * (phi4_vision_test.c); both read the HD layout from ts_phi4_image_inputs. Weights are read by their checkpoint names under
 * "model.embed_tokens_extend.image_embed."; a missing or misshapen one fails naming it. Outputs
 * are owned by the caller (free()).
 */
#ifndef TS_MODELS_PHI4_VISION_H
#define TS_MODELS_PHI4_VISION_H

#include "loader/json_fields.h"
#include "models/decoder.h"
#include "models/phi4_mm/phi4_image_processor.h"
#include "graph/graph.h"
#include "tessera.h"

typedef struct ts_phi4_vision_spec {
    int64_t width, inter, heads; /* tower: hidden, MLP, attention heads */
    int64_t layers;              /* encoder layers run: num_hidden_layers + feature_layer + 1 */
    int64_t patch, image_size;   /* P and the crop side S (image_size == crop_size) */
    int64_t text_width;          /* the language model's hidden size (projector output) */
    int64_t image_token_id;
    double eps;
} ts_phi4_vision_spec;

/* vision_config (a phi4_multimodal_vision object) and the text hidden size → spec; the checks
 * name the key. Only gelu_pytorch_tanh, a negative feature_layer and crop_size == image_size are
 * supported. */
ts_status ts_phi4_vision_spec_read(const ts_json_reader *r, const cJSON *vision, int64_t text_width,
                                   ts_phi4_vision_spec *spec);

/* The position-table row of patch p of a view with patch mask [side²] (0 for padding). */
int64_t ts_phi4_vision_position(const uint8_t *mask, int64_t side, int64_t p);

/* Views one image graph takes at most (dynamic_hd's crops + the global view). */
#define TS_PHI4_MAX_VIEWS 64

/* The rows of the image graph for `views` views: the most tokens an image of that many views
 * has (the image's own tokens come first, the rest are padding). */
int64_t ts_phi4_image_rows_max(const ts_phi4_vision_spec *spec, int64_t views);

/* The graph of a whole image of `views` views into the empty g (phi4_vision_graph.c): inputs
 * pixel_values f32[views, 3, S, S], positions i32[views, (S/P)²], key_bias f32[views, (S/P)²],
 * layout i32[rows_max]; output image_embeds f32[rows_max, text_width]. Every weight checked
 * first; errors name the tensor. */
ts_status ts_phi4_vision_build(ts_graph *g, const ts_phi4_vision_spec *spec, const ts_weight_source *weights,
                               int64_t views, ts_error *err);
/* One view's positions and key_bias for its patch mask. */
void ts_phi4_vision_view_inputs(const ts_phi4_vision_spec *spec, const uint8_t *mask, int32_t *positions,
                                float *key_bias);
/* The graph's non-pixel inputs for im in a graph of `views` ≥ im->views views: positions and
 * key_bias [views][(S/P)²] (padding views: positions 0, key_bias 0, never gathered) and layout
 * [rows_max]: row r of the HD layout as an index into the pooled table [views·(S/2P)² pooled
 * rows (view-major, row-major), sub_img_feature_extensor, global_img_feature_extensor], rows past
 * im->tokens 0. Fails when im does not fit (views, sizes, token count). */
ts_status ts_phi4_image_inputs(const ts_phi4_vision_spec *spec, const ts_phi4_hd_image *im, int64_t views,
                               int32_t *positions, float *key_bias, int32_t *layout, ts_error *err);

/* Host reference (phi4_vision.c, for the tests): the tower's features for every view of im,
 * *out [views][(S/P)²][width]. */
ts_status ts_phi4_vision_features(const ts_phi4_vision_spec *spec, const ts_weight_source *weights,
                                  const ts_phi4_hd_image *im, float **out, ts_error *err);

/* Host reference: the image's rows for the language model, one per <|image|> token: *rows
 * [im->tokens][text_width]. hd (optional) receives the HD layout the projector reads,
 * [im->tokens][width]. */
ts_status ts_phi4_image_rows(const ts_phi4_vision_spec *spec, const ts_weight_source *weights,
                             const ts_phi4_hd_image *im, float **rows, float **hd, ts_error *err);

#endif
