/* model.h — engine internals beside the public model API: the diagnostic step that tests use
 * to compare every stage with the reference (all logits, hidden states, KV contents), and the
 * engine calls the public image paths are built on. Never used by the CLI or the server.
 */
#ifndef TS_ENGINE_MODEL_H
#define TS_ENGINE_MODEL_H

#include "tessera.h"

typedef struct ts_diagnostic_prefill {
    float *logits;        /* [n, vocab], owned by the caller */
    float **hidden;       /* hidden[l] [n, hidden] for l = 0 … layers, caller-owned buffers */
    /* Optional: prefill these input embeddings [n, hidden] at these positions ([rows][n]) instead
     * of the tokens (then `tokens` may be NULL). */
    const float *embeddings;
    const int32_t *positions;
    /* Optional (MoE models): router_probs[l] [n, experts] for l = 0 … layers-1, the softmax of
     * layer l's router logits, written for the sparse layers only (a dense layer has no router;
     * its entry may be NULL); caller-owned. */
    float **router_probs;
    /* Optional, with embeddings: side inputs as ts_model_prefill_embeddings takes them (validated
     * the same way); with a DeepStack payload hidden[l] is the state after layer l−1's DeepStack
     * add, i.e. the input of layer l. */
    const ts_side_inputs *side;
} ts_diagnostic_prefill;

/* Prefill as ts_model_prefill, also returning every position's logits, the hidden states and
 * (MoE) the router probabilities. */
ts_status ts_model_prefill_diagnostic(ts_model *model, ts_sequence *seq, const int32_t *tokens,
                                      size_t n, const ts_diagnostic_prefill *out, ts_error *err);
/* The sequence's cache of layer l: [rows, kv_heads, head_dim] of the model's KV type
 * (borrowed), rows = ts_sequence_cache_rows: the capacity, or for a sliding-window layer the ring
 * (position p at row p mod rows). */
const void *ts_sequence_cache(const ts_sequence *seq, int layer, bool value);
int64_t ts_sequence_cache_rows(const ts_sequence *seq, int layer);
/* Layer l's key (or value) row of `position`: [kv_heads, head_dim], or NULL when the cache does
 * not hold it (not yet written, or a ring's row since overwritten). Borrowed. */
const void *ts_sequence_cache_row(const ts_sequence *seq, int layer, bool value, int64_t position);
/* Bytes of one position's rows over every layer, keys and values (the unit
 * ts_sequence_read_rows and ts_sequence_append_rows move). */
size_t ts_model_position_bytes(const ts_model *model);
/* Positions first … first + count − 1 of every layer into out, laid out [layers][k, v][count][row]
 * (row = kv_heads · head_dim of the KV type); false, out partly written, when the sequence does
 * not hold one of them (past its length, or a ring row since overwritten). */
bool ts_sequence_read_rows(const ts_sequence *seq, int64_t first, int64_t count, void *out);
/* Appends count positions' rows in ts_sequence_read_rows's layout after the sequence's last
 * position (a ring layer keeps those its ring holds), as if they had been prefilled; the rope
 * delta is untouched. TS_ERR_RANGE past the capacity, the sequence unchanged. */
ts_status ts_sequence_append_rows(ts_sequence *seq, const void *rows, int64_t count, ts_error *err);
/* ts_sequence_create with local_rows rows for every sliding-window layer (≥ the window, ≤
 * capacity), or 0: full-capacity caches with the window as a mask (the path the ring is checked
 * against). ts_sequence_create picks the window when the capacity exceeds it. */
ts_status ts_sequence_create_rows(ts_model *model, int64_t capacity, int64_t local_rows,
                                  ts_sequence **out, ts_error *err);
int64_t ts_model_kv_heads(const ts_model *model);
ts_dtype ts_model_kv_dtype(const ts_model *model);
/* Sets the M-RoPE delta the following decode steps add (normally kept by the prefill). */
void ts_sequence_set_rope_delta(ts_sequence *seq, int64_t delta);
/* The greedy choice with the given ids (EOS) excluded — how the fixtures decode — ties to the
 * lowest id; -1 when every id is excluded. */
int ts_argmax_masked(const float *logits, int64_t n, const int64_t *excluded, int n_excluded);
/* The model's image tower, or NULL (borrowed). */
typedef struct ts_vision ts_vision;
ts_vision *ts_model_vision(const ts_model *model);
int64_t ts_model_head_dim(const ts_model *model);
/* The sliding window of the model's local layers (tokens a query sees, itself included), 0 when
 * every layer is global. */
int64_t ts_model_sliding_window(const ts_model *model);
/* Rows of the model's rotary positions: 3 (t, h, w) under M-RoPE, else 1. */
int ts_model_position_rows(const ts_model *model);
/* Where the model's tensors come from (its checkpoint mapping, or a synthetic set). Borrowed. */
typedef struct ts_weight_source ts_weight_source;
const ts_weight_source *ts_model_weights(const ts_model *model);

/* Engine calls the library's public paths are built on (ts_generate_images, ts_mm_inputs_build,
 * the bundle's image generation); no library user needs them on their own. */
/* The capacity the sequence was created with. */
int64_t ts_sequence_capacity(const ts_sequence *seq);
/* The side inputs the model's image rows need: TS_SIDE_DEEPSTACK with its DeepStack layers
 * (*layers borrowed, *n_layers entries), TS_SIDE_ATTENTION_BIAS when the family's image tokens
 * attend bidirectionally within their image, or TS_SIDE_NONE; NULL and 0 for the layers unless
 * DeepStack. layers and n_layers may be NULL. */
ts_side_kind ts_model_side_inputs(const ts_model *model, const int32_t **layers, int *n_layers);
/* ts_model_encode_audio_for from a clip's features [frames][width] (the family's extractor's
 * output: compare feeds the reference's), on ctx (NULL: the model's). */
ts_status ts_model_encode_audio_features(ts_model *model, ts_context *ctx, const float *features,
                                         int64_t frames, int64_t width, unsigned modalities,
                                         ts_encoded_media *out, ts_error *err);
/* The prefill of an expanded prompt with encoded media (images' rows already encoded, audio
 * rows): ts_mm_inputs_build, then ts_model_prefill_embeddings. The one path of both
 * ts_model_prefill_images and the audio prefill. */
ts_status ts_model_prefill_media(ts_model *model, ts_sequence *seq, const int32_t *ids, size_t n,
                                 const ts_pixel_values *images, int n_images,
                                 const ts_encoded_media *media, float *logits, ts_error *err);
/* Prefill of a prompt with images (ts_generate_images's): ids are the expanded prompt (see
 * ts_prompt_expand_images), images the preprocessed pixel values in prompt order. Runs the vision
 * tower, then ts_mm_inputs_build (image rows at the image tokens; the family's positions and the
 * rope delta kept for decoding, or 1-D positions and no delta; the tower's side outputs as the
 * side inputs, or the image-block attention bias) and ts_model_prefill_embeddings. TS_ERR_UNSUPPORTED for models without an image
 * tower. */
ts_status ts_model_prefill_images(ts_model *model, ts_sequence *seq, const int32_t *ids, size_t n,
                                  const ts_pixel_values *images, int n_images, float *logits,
                                  ts_error *err);
/* LoRA (engine/lora.h): the adapter a sequence runs with, chosen by the caller before its first
 * row (name NULL or "none": no adapter) and back to none on ts_sequence_reset. Refused when the
 * model has no such adapter, or when the sequence already holds rows computed with another one.
 * Sequences with different adapters may share one ts_model_decode step. */
ts_status ts_sequence_set_adapter(ts_sequence *seq, const char *name, ts_error *err);
/* The sequence's adapter ("none" when none). */
const char *ts_sequence_adapter(const ts_sequence *seq);
/* The adapter the model's family runs a request of these inputs with (TS_INPUT_* bits of
 * models/family.h; 0 = text only), NULL for none or when the checkpoint does not ship it. */
const char *ts_model_adapter_for(const ts_model *model, unsigned inputs);
/* longrope (models whose rotary switches to its long factors past
 * original_max_position_embeddings; see model.c): whether the sequence's rows are long ones;
 * ts_sequence_begin_prompt tells an empty sequence that its next n rows are one prompt (one
 * forward of the reference), so a prompt past the threshold is long from its first chunk (else
 * its first chunks are computed again when a later one passes it); ts_sequence_record_tokens
 * records the token ids of rows restored by ts_sequence_append_rows (from the recorded ones on),
 * so the sequence can be computed again when it passes the threshold. No-ops for other models. */
bool ts_sequence_rope_long(const ts_sequence *seq);
void ts_sequence_begin_prompt(ts_sequence *seq, int64_t n);
void ts_sequence_record_tokens(ts_sequence *seq, const int32_t *tokens, int64_t n);
/* Audio: ts_model_encode_audio with the clip's features (decoded, resampled and extracted by
 * the model's audio path) turned into rows by `encode` instead of the model's encoder (a bundle's
 * audio.main): one must hold the clip's ts_model_audio_tokens(frames) rows, hidden wide (owned:
 * ts_encoded_media_free); they are appended to out as ts_model_encode_audio appends. */
typedef ts_status (*ts_audio_rows_fn)(void *self, const float *features, int64_t frames, int64_t width,
                                      ts_encoded_media *one, ts_error *err);
ts_status ts_model_encode_audio_with(ts_model *model, const void *clip, size_t len, const ts_audio_limits *limits,
                                     ts_audio_rows_fn encode, void *self, ts_encoded_media *out, ts_error *err);
/* The audio tokens a clip of `frames` feature frames takes (0 for a model without audio). */
int64_t ts_model_audio_tokens(const ts_model *model, int64_t frames);
/* The projector index (a bundle audio.main's `projector` input) the family's encoder takes for a
 * clip in a prompt of these TS_MODALITY_* bits (0 for a family with one, or without audio). */
int ts_model_audio_projector(const ts_model *model, unsigned modalities);
/* Token embeddings f32[n][hidden] (the model's embed_tokens rows, widened to f32). */
ts_status ts_model_embed_tokens(const ts_model *model, const int32_t *tokens, size_t n, float *out,
                                ts_error *err);

#endif
