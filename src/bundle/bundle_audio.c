/* bundle_audio.c — audio clips through a bundle's audio.main (one module per duration bucket).
 *
 * The model's audio path decodes the clip, resamples it and extracts its features (the host's
 * part, as for the engine); the features go to the smallest bucket whose frames hold them,
 * zero-padded, with the clip's frame count as the `frames` argument (the module masks the
 * padding) and the family's projector for the prompt's modalities as `projector`; the clip's ts_model_audio_tokens(frames) rows are appended to the prompt's audio rows
 * as ts_model_encode_audio appends them. A clip longer than the largest bucket is refused with
 * both numbers (never cut).
 */
#include "base/error.h"
#include "bundle/bundle.h"
#include "engine/model.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    ts_bundle *bundle;
    const ts_model *model;
    int32_t projector; /* audio.main's `projector`: the family's pick for the prompt's modalities */
} bundle_encoder;

static ts_status encode(void *self, const float *features, int64_t frames, int64_t width, ts_encoded_media *one, ts_error *err)
{
    bundle_encoder *e = self;
    const int64_t *buckets;
    int n = ts_bundle_audio_buckets(e->bundle, &buckets), bucket = 0;
    while (bucket < n && buckets[bucket] < frames) bucket++;
    if (bucket == n)
        return ts_error_set(err, TS_ERR_RANGE, "audio: a clip of %lld feature frames exceeds the bundle's largest audio bucket (%lld frames)",
                            (long long)frames, (long long)buckets[n - 1]);
    int64_t f = buckets[bucket], tokens = ts_model_audio_tokens(e->model, frames),
            hidden = ts_model_get_config(e->model)->text.hidden_size;
    float *padded = calloc((size_t)(f * width), sizeof(float));
    if (!padded) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "audio: out of memory");
    memcpy(padded, features, sizeof(float) * (size_t)(frames * width));
    int32_t count = (int32_t)frames;
    ts_tensor_arg args[3] = {{"audio_features", TS_DTYPE_F32, 2, {f, width}, padded, sizeof(float) * (size_t)(f * width)},
                             {"frames", TS_DTYPE_I32, 0, {0}, &count, sizeof(count)},
                             {"projector", TS_DTYPE_I32, 0, {0}, &e->projector, sizeof(e->projector)}};
    const void *outs[1];
    ts_status st = ts_bundle_run_audio(e->bundle, bucket, args, 3, outs, err);
    free(padded);
    size_t bytes = sizeof(float) * (size_t)(tokens * hidden);
    memset(one, 0, sizeof(*one));
    if (st == TS_OK && !(one->audio_rows = malloc(bytes ? bytes : 1)))
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "audio: out of memory for %lld rows", (long long)tokens);
    if (st == TS_OK) {
        memcpy(one->audio_rows, outs[0], bytes);
        one->n_audio_rows = tokens, one->hidden = hidden;
    }
    return st;
}

ts_status ts_bundle_encode_audio(ts_bundle *bundle, ts_model *model, const void *clip, size_t len, const ts_audio_limits *limits,
                                 unsigned modalities, ts_encoded_media *out, ts_error *err)
{
    if (ts_bundle_audio_buckets(bundle, NULL) == 0)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "bundle: it has no audio.main entries (export it with --audio-frames)");
    bundle_encoder e = {bundle, model, ts_model_audio_projector(model, modalities)};
    return ts_model_encode_audio_with(model, clip, len, limits, encode, &e, out, err);
}
