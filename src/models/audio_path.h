/* audio_path.h — what a family's descriptor says about its audio input: the hooks the media stage
 * calls to turn a decoded clip into the rows its prompt's audio tokens take.
 *
 * Contract:
 *   - The media stage owns everything model-neutral: the request's clip, probed from its header
 *     (limits on duration, channels, rate, size) and decoded to mono float32 by src/media/audio.h
 *     at `sample_rate` (libsoxr, as transformers' load_audio). A family gives only what follows:
 *     its feature extractor, the number of prompt tokens a clip takes, and its encoder.
 *   - A family whose descriptor leaves `audio` NULL takes no audio:
 *     ts_family_audio_path is false, ts_model_supported_modalities says no audio, the server
 *     refuses input_audio parts with a 400 after validating them, and `tessera run --audio` fails.
 *     Setting it advertises audio everywhere at once (Phi-4-multimodal sets it:
 *     src/models/phi4_mm/phi4_mm_audio.c).
 *   - The encoder is an object the model creates at load (create: what it keeps is the model's
 *     for its life; the weight source and context are borrowed and outlive it) and asks for one
 *     clip's rows at a time (encode: rows [n_rows][hidden], the language model's width, owned
 *     by the caller; n_rows equals tokens(frames)) on the context given (a server's media
 *     context, off its decode loop); the state is read only, so calls on distinct contexts may
 *     overlap.
 *   - Hooks are pure functions of their arguments; outputs are owned by the caller (free()).
 */
#ifndef TS_MODELS_AUDIO_PATH_H
#define TS_MODELS_AUDIO_PATH_H

#include "tessera.h"

#include <stdint.h>

struct ts_weight_source;
struct ts_graph;

/* The encoder's model side. */
typedef struct ts_audio_encoder_ops {
    ts_status (*create)(ts_context *ctx, const char *model_dir, const ts_model_config *cfg,
                        const struct ts_weight_source *weights, void **state, ts_error *err);
    /* inputs: the prompt's TS_INPUT_* bits (models/family.h); a family whose projector depends
     * on the other media (Phi-4-multimodal's vision_speech pair beside an image) reads them. */
    ts_status (*encode)(void *state, ts_context *ctx, const float *features, int64_t frames,
                        int64_t width, unsigned inputs, float **rows, int64_t *n_rows, ts_error *err);
    void (*destroy)(void *state);
} ts_audio_encoder_ops;

typedef struct ts_audio_path {
    int sample_rate; /* Hz the feature extractor takes; clips are resampled to it */
    /* Features of mono samples at sample_rate: *features [*frames][*width], owned (free()). */
    ts_status (*features)(const ts_model_config *cfg, const float *samples, int64_t n,
                          float **features, int64_t *frames, int64_t *width, ts_error *err);
    /* The audio tokens a clip of `frames` feature frames stands for in the prompt. */
    int64_t (*tokens)(const ts_model_config *cfg, int64_t frames);
    const struct ts_audio_encoder_ops *encoder;
    /* A bundle's audio.main (bundle/manifest.h's audio object) into the empty graph g: the
     * encoder for clips of 1 … max_frames feature frames, the weights declared first (from
     * `weights`, errors naming the tensor), then the inputs audio_features f32[max_frames, width]
     * and frames i32[], then projector i32[] (an index into `projectors`); one output f32[tokens(max_frames), hidden] holding the clip's tokens(frames)
     * rows (those encode gives the clip alone), then zero rows. NULL: the family exports none. */
    ts_status (*entry)(struct ts_graph *g, const char *model_dir, const ts_model_config *cfg,
                       const struct ts_weight_source *weights, int64_t max_frames, ts_error *err);
    /* The entry's projectors by index (named in the bundle's audio object, 1 … 4 of them), and
     * the one a prompt with these TS_INPUT_* bits takes (the choice encode makes from `inputs`). */
    const char *const *projectors;
    int n_projectors;
    int (*projector)(unsigned inputs);
} ts_audio_path;

#endif
