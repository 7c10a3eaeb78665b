/* vision.h — a model's vision tower (its family's, models/tower.h): pixel values in, the rows
 * the language model receives out (a tower with DeepStack levels gives them too). Owned by the
 * model (ts_model_load creates it when ts_vision_has_tower); borrows the model's weight source.
 * Not thread-safe, like the model. Its rows become a prompt's inputs through ts_mm_inputs_build
 * (engine/mm_inputs.c).
 */
#ifndef TS_ENGINE_VISION_H
#define TS_ENGINE_VISION_H

#include "models/decoder.h"
#include "tessera.h"

#include "engine/encoder_cache.h"
#include "graph/quantize.h"

typedef struct ts_vision ts_vision;

/* Tower outputs kept per model unless resized (ts_encoder_cache_resize on ts_vision_cache). */
#define TS_ENCODER_CACHE_DEFAULT_BYTES ((size_t)256 << 20)

/* Whether this build has a tower for the config's family (and the config declares one). */
bool ts_vision_has_tower(const ts_model_config *cfg);
/* Whether a prompt with images can be prefilled: a tower and everything after it (DeepStack: with
 * its DeepStack rows as side inputs). The capability predicate
 * (ts_model_supported_modalities) asks this. */
bool ts_vision_has_image_prefill(const ts_model_config *cfg);
/* How many image tokens the prompt needs for these pixel values (the tower's count: patch rows /
 * merge² as the processor says, or a fixed count per image). */
int64_t ts_vision_image_tokens(const ts_vision *v, const ts_pixel_values *pv);

/* Checks every tower weight (a one-merge-unit graph) before returning. `choose` (NULL: none) as
 * for ts_vision_quantize, from the start: a GPTQ/AWQ checkpoint's packed tower matrices (the
 * weight source serves them only quantized). `cfg` is borrowed and must outlive the tower. */
ts_status ts_vision_create(ts_context *ctx, const ts_model_config *cfg, const ts_weight_source *weights,
                           ts_quant_chooser choose, void *choose_user, ts_vision **out, ts_error *err);
/* A second instance of v on another context (the server's media stage): the same config, weights
 * and quantization, programs and encoder cache of its own (an empty cache of the default size). */
ts_status ts_vision_create_twin(const ts_vision *v, ts_context *ctx, ts_vision **out, ts_error *err);
void ts_vision_destroy(ts_vision *v);

/* From now on every tower graph is rewritten by ts_graph_quantize with `choose` (its weight source,
 * the model's, must then serve the quantized names: engine/quantized_weights.h). The program and
 * the encoder cache's rows are dropped, and the smallest graph is built at once, so every chosen
 * matrix is quantized (and any failure shows) here; *kept says which matmul weights stayed in
 * floats. On failure the tower stays unquantized. */
ts_status ts_vision_quantize(ts_vision *v, ts_quant_chooser choose, void *user, ts_float_matrices *kept,
                             ts_error *err);
ts_encoder_cache *ts_vision_cache(ts_vision *v);
/* image_embeds of the images, in order (each image from the encoder cache when it holds it): *embeds owned (free), [*n_rows][out_hidden]. */
ts_status ts_vision_encode(ts_vision *v, const ts_pixel_values *images, int n_images, float **embeds, int64_t *n_rows,
                           ts_error *err);
/* K: the DeepStack levels the tower gives (len(deepstack_visual_indexes); 0 without DeepStack). */
int ts_vision_deepstack_levels(const ts_vision *v);
/* As ts_vision_encode (the same *embeds, bit for bit), and the DeepStack rows: *deepstack owned
 * (free), f32[*k][*n_rows][out_hidden] with *k = ts_vision_deepstack_levels(v); level i (in the
 * order of the blocks they come from) is added at the image tokens, row r at the r-th image token
 * of the prompt, after language-model decoder layer i. *deepstack NULL and *k 0 for towers without
 * DeepStack. The encoder cache keeps each image's main and DeepStack rows together. */
ts_status ts_vision_encode_deepstack(ts_vision *v, const ts_pixel_values *images, int n_images, float **embeds, float **deepstack,
                                     int *k, int64_t *n_rows, ts_error *err);

#endif
