/* image_encoder.c — a second instance of a model's vision tower on a context of its own, so images
 * are encoded on another thread while the model's context runs decode steps (the server's media
 * stage). The tower reads the model's weight source (the same mapping: nothing is copied), and
 * has its own programs and encoder cache: no state is shared with the model's tower, so the two
 * never need a lock between them.
 */
#include "base/error.h"
#include "engine/model.h"
#include "engine/vision.h"

#include <stdlib.h>

struct ts_image_encoder {
    ts_vision *vision;
};

ts_status ts_image_encoder_create(ts_model *model, ts_context *ctx, size_t cache_bytes, ts_image_encoder **out, ts_error *err)
{
    *out = NULL;
    const ts_model_config *cfg = ts_model_get_config(model);
    if (!ts_model_vision(model))
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: images are not supported for this model", ts_family_name(cfg->family));
    ts_image_encoder *e = calloc(1, sizeof(*e));
    if (!e) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "image encoder: out of memory");
    ts_status st = ts_vision_create(ctx, cfg, ts_model_weights(model), &e->vision, err);
    if (st != TS_OK) {
        free(e);
        return st;
    }
    ts_encoder_cache_resize(ts_vision_cache(e->vision), cache_bytes);
    *out = e;
    return TS_OK;
}

void ts_image_encoder_destroy(ts_image_encoder *e)
{
    if (!e) return;
    ts_vision_destroy(e->vision);
    free(e);
}

ts_status ts_image_encoder_encode(ts_image_encoder *e, const ts_pixel_values *images, int n_images, float **embeds, int64_t *rows,
                                  ts_error *err)
{
    return ts_vision_encode(e->vision, images, n_images, embeds, rows, err);
}

ts_status ts_image_encoder_encode_deepstack(ts_image_encoder *e, const ts_pixel_values *images, int n_images, float **embeds,
                                            float **deepstack, int *levels, int64_t *rows, ts_error *err)
{
    return ts_vision_encode_deepstack(e->vision, images, n_images, embeds, deepstack, levels, rows, err);
}

void ts_image_encoder_cache_stats(const ts_image_encoder *e, int64_t *hits, int64_t *misses)
{
    ts_encoder_cache_stats s = ts_encoder_cache_get_stats(ts_vision_cache(e->vision));
    *hits = s.hits, *misses = s.misses;
}

ts_status ts_model_image_inputs(const ts_model *model, const int32_t *ids, size_t n, const ts_pixel_values *images, int n_images,
                                const float *image, int64_t image_rows, float **inputs, int32_t **positions, int *position_rows,
                                int64_t *rope_delta, ts_error *err)
{
    *inputs = NULL, *positions = NULL;
    const ts_vision *v = ts_model_vision(model);
    if (!v)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: images are not supported for this model",
                            ts_family_name(ts_model_get_config(model)->family));
    if (n == 0) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "prefill: no tokens");
    int rows = ts_vision_mrope(v) ? 3 : 1;
    float *in = malloc(sizeof(float) * n * (size_t)ts_model_get_config(model)->text.hidden_size);
    int32_t *pos = malloc(sizeof(int32_t) * 3 * n); /* assemble writes [3][n] for M-RoPE */
    ts_status st = in && pos ? TS_OK : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "prefill: out of memory");
    if (st == TS_OK) st = ts_vision_assemble_rows(v, model, ids, n, images, n_images, image, image_rows, in, pos, rope_delta, err);
    if (st != TS_OK) {
        free(in), free(pos);
        return st;
    }
    *inputs = in, *positions = pos, *position_rows = rows;
    return TS_OK;
}
