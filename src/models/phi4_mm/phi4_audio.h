/* phi4_audio.h — Phi-4-multimodal's Conformer audio encoder and its projector as a graph, and
 * the placeholder bookkeeping around it (transformers 5.23.0, modeling_phi4_multimodal.py:
 * Phi4MultimodalAudioModel, Phi4MultimodalAudioEmbedding; docs/phi4-multimodal.md).
 *
 * Contract: ts_phi4_audio_spec_load reads config.json's audio_config (plus the LM's hidden_size)
 * and refuses, naming the key, every setting the graph does not build (activations other than
 * swish/relu, a depthwise multiplier or channel counts that change the widths, downsampling,
 * streaming chunks). ts_phi4_audio_build declares every weight first (a missing or misshaped one
 * fails naming the tensor, before any input is declared), then one input "audio_features"
 * f32[n_frames, input_size] (the log-mel features of src/media/audio_fbank.h for one clip) and
 * builds the encoder for that frame count: its static shape. Outputs: [T, lm_hidden] projected
 * rows, T = ceil(n_frames / time_reduction) = the clip's audio tokens; with diagnostics also the
 * reference's captured stages (see ts_phi4_audio_output). One clip per graph. Past 500 rows the
 * reference zero-pads the subsampled rows to whole 500-row chunks, runs the blocks on each chunk
 * alone (the padding rows attended, unmasked, in the last chunk) and drops the padding; the graph
 * does the same. T beyond TS_PHI4_AUDIO_MAX_CLIP_TOKENS is TS_ERR_RANGE.
 *
 * The reference adds its streaming mask to the scores as 0/1 rather than 0/−inf; for one clip
 * with chunk_size ≤ 0 every frame is visible, so the mask is a constant +1 on every score, which
 * the graph adds too (softmax is unchanged by it up to rounding, mirrored anyway).
 *
 * Placeholders: ts_phi4_audio_expand_ids turns each <|audio|> of a prompt into its clip's token
 * count; ts_phi4_audio_merge writes the projected rows over the <|audio|> rows of token
 * embeddings, in order (Phi4MultimodalAudioEmbedding's index_put). Both check the counts agree.
 */
#ifndef TS_MODELS_PHI4_MM_PHI4_AUDIO_H
#define TS_MODELS_PHI4_MM_PHI4_AUDIO_H

#include "graph/graph.h"
#include "tessera.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ts_weight_source;

/* One encoder pass (Phi4MultimodalAudioModel.forward's max_seq_len): longer clips are encoded in
 * chunks of this many rows. */
#define TS_PHI4_AUDIO_CHUNK 500
/* The longest clip one graph takes: 16 chunks, 8000 audio tokens (10 min 40 s of 16 kHz audio);
 * the graph grows by a copy of the blocks per chunk. */
#define TS_PHI4_AUDIO_MAX_CLIP_TOKENS (16 * TS_PHI4_AUDIO_CHUNK)
#define TS_PHI4_AUDIO_MAX_BLOCKS 64
#define TS_PHI4_AUDIO_MAX_HEADS 64

typedef enum {
    TS_PHI4_AUDIO_SPEECH = 0,    /* up/down_proj_for_speech */
    TS_PHI4_AUDIO_VISION_SPEECH, /* …_for_vision_speech: an image is in the same request */
} ts_phi4_audio_projection;

typedef struct ts_phi4_audio_spec {
    int64_t width, inter, blocks, heads, head_dim, kernel, input_size;
    int64_t conv_channels, stages, final_freq; /* NeMo subsampling: log2(time_reduction) stages */
    int64_t time_reduction, max_distance;
    bool symmetric;
    int64_t lm_hidden;
    int64_t audio_token_id;
} ts_phi4_audio_spec;

/* The graph's outputs with diagnostics, in this order (index = enum value). */
typedef enum {
    TS_PHI4_AUDIO_OUT_EMBEDS = 0, /* [T, lm_hidden] (the only output without diagnostics) */
    TS_PHI4_AUDIO_OUT_UP,         /* [T, lm_hidden] the first projector linear, before GELU */
    TS_PHI4_AUDIO_OUT_SUBSAMPLED, /* [T, width] embed (conv subsampling + out) */
    TS_PHI4_AUDIO_OUT_BIAS,       /* [heads, C, C] the relative attention bias (without the +1), C = min(T, 500) */
    TS_PHI4_AUDIO_OUT_BLOCK0,     /* [T, width] each Conformer block's output (chunks joined, padding
                                   * dropped), then block 1, … */
} ts_phi4_audio_output;

/* config.json's text (messages name "config.json", never a path), or the file in `dir`. */
ts_status ts_phi4_audio_spec_parse(const char *json, size_t len, ts_phi4_audio_spec *spec, ts_error *err);
ts_status ts_phi4_audio_spec_load(const char *dir, ts_phi4_audio_spec *spec, ts_error *err);
/* Audio tokens of a clip of n_frames feature frames (audio_embed_sizes for downsample_rate 1). */
int64_t ts_phi4_audio_tokens(const ts_phi4_audio_spec *spec, int64_t n_frames);
ts_status ts_phi4_audio_build(ts_graph *g, const ts_phi4_audio_spec *spec,
                              const struct ts_weight_source *weights, int64_t n_frames,
                              ts_phi4_audio_projection projection, bool diagnostics, ts_error *err);

/* audio.main of a bundle (one bucket): one clip of 1 … max_frames feature frames padded to
 * max_frames. Weights as ts_phi4_audio_build but both projector pairs (speech, then
 * vision_speech), then inputs "audio_features" f32[max_frames, input_size], "frames" i32[] (the
 * clip's frames) and "projector" i32[] (a ts_phi4_audio_projection: 1 picks the vision_speech
 * pair, anything else speech; the bundle refuses values other than 0 and 1 before); output f32[tokens(max_frames), lm_hidden]
 * with the clip's tokens(frames) rows first and zero rows after. The padding is masked as the
 * reference's own zero padding is: the normalised features and every subsampling stage's rows
 * past the clip are zeroed, attention keys past its tokens are -inf (the causal depthwise
 * convolutions and the row-wise layers never carry a later row into an earlier one), so a clip
 * gives the rows ts_phi4_audio_build gives it alone (up to the summation order of the longer
 * attention). One encoder pass: tokens(max_frames) ≤ TS_PHI4_AUDIO_CHUNK, else TS_ERR_RANGE. */
ts_status ts_phi4_audio_build_padded(ts_graph *g, const ts_phi4_audio_spec *spec,
                                     const struct ts_weight_source *weights, int64_t max_frames, ts_error *err);

/* ids (n) with one <|audio|> per clip → *out (owned, free) with counts[i] copies of it for clip
 * i, *out_n ids. TS_ERR_INVALID_ARGUMENT when the placeholders and the clips differ in number. */
ts_status ts_phi4_audio_expand_ids(const int32_t *ids, size_t n, int32_t audio_token_id,
                                   const int64_t *counts, int n_clips, int32_t **out,
                                   size_t *out_n, ts_error *err);
/* embeds [n][hidden] (the token embeddings of the expanded ids): the rows at <|audio|> replaced,
 * in order, by rows [n_rows][hidden]. TS_ERR_INVALID_ARGUMENT when the prompt's <|audio|> count
 * is not n_rows (nothing written then). */
ts_status ts_phi4_audio_merge(const int32_t *ids, size_t n, int32_t audio_token_id,
                              float *embeds, int64_t hidden, const float *rows, int64_t n_rows,
                              ts_error *err);

#endif
