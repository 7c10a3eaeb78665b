/* audio_path.h — what a family's descriptor says about its audio input: the hooks the media stage
 * calls to turn a decoded clip into the rows its prompt's audio tokens take.
 *
 * Contract:
 *   - The media stage owns everything model-neutral: the request's clip, probed from its header
 *     (limits on duration, channels, rate, size) and decoded to mono float32 by src/media/audio.h
 *     at `sample_rate` (libsoxr, as transformers' load_audio). A family gives only what follows:
 *     its feature extractor, the number of prompt tokens a clip takes, and its encoder.
 *   - A family whose descriptor leaves `audio` NULL (every family today) takes no audio:
 *     ts_family_audio_path is false, ts_model_supported_modalities says no audio, the server
 *     refuses input_audio parts with a 400 after validating them, and `tessera run --audio` fails.
 *     Setting it advertises audio everywhere at once, so the family that first sets it also brings
 *     the media stage's audio step (server/media.c) and its end-to-end tests.
 *   - Hooks are pure functions of their arguments; outputs are owned by the caller (free()).
 */
#ifndef TS_MODELS_AUDIO_PATH_H
#define TS_MODELS_AUDIO_PATH_H

#include "tessera.h"

#include <stdint.h>

/* The encoder's graph side (builder, weights, bundle layout), defined with the first family that
 * has one: as for images, the tower is a model-side ops table (see models/tower.h). */
struct ts_audio_encoder_ops;

typedef struct ts_audio_path {
    int sample_rate; /* Hz the feature extractor takes; clips are resampled to it */
    /* Features of mono samples at sample_rate: *features [*frames][*width], owned (free()). */
    ts_status (*features)(const ts_model_config *cfg, const float *samples, int64_t n,
                          float **features, int64_t *frames, int64_t *width, ts_error *err);
    /* The audio tokens a clip of `frames` feature frames stands for in the prompt. */
    int64_t (*tokens)(const ts_model_config *cfg, int64_t frames);
    const struct ts_audio_encoder_ops *encoder;
} ts_audio_path;

#endif
