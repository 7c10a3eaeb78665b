/* image_encoder.c — a second instance of a model's vision tower on a context of its own, so images
 * are encoded on another thread while the model's context runs decode steps (the server's media
 * stage). The tower reads the model's weight source (the same mapping: nothing is copied), is
 * quantized as the model's is at creation (--quantize, a GPTQ/AWQ checkpoint's packed tower), and
 * has its own programs and encoder cache. What it shares with the model is only read: the weights,
 * and a quantized store whose tower matrices the model's tower quantized when it was quantized
 * (its smallest graph names them all; the chooser's plans are not rewritten with the same
 * answer), so the two never need a lock between them.
 */
#include "base/error.h"
#include "engine/model.h"
#include "engine/mm_inputs.h"
#include "engine/vision.h"

#include <stdlib.h>

struct ts_image_encoder {
    ts_vision *vision;
    int64_t hidden; /* the language model's: the width of every row the tower gives */
};

ts_status ts_image_encoder_create(ts_model *model, ts_context *ctx, size_t cache_bytes, ts_image_encoder **out, ts_error *err)
{
    *out = NULL;
    const ts_model_config *cfg = ts_model_get_config(model);
    if (!ts_model_vision(model))
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: images are not supported for this model", ts_family_name(cfg->family));
    ts_image_encoder *e = calloc(1, sizeof(*e));
    if (!e) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "image encoder: out of memory");
    e->hidden = cfg->text.hidden_size;
    ts_status st = ts_vision_create_twin(ts_model_vision(model), ctx, &e->vision, err);
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

ts_status ts_image_encoder_encode(ts_image_encoder *e, const ts_pixel_values *images, int n_images,
                                  ts_encoded_media *out, ts_error *err)
{
    return ts_mm_encode(e->vision, e->hidden, images, n_images, out, err);
}

void ts_image_encoder_cache_stats(const ts_image_encoder *e, int64_t *hits, int64_t *misses)
{
    ts_encoder_cache_stats s = ts_encoder_cache_get_stats(ts_vision_cache(e->vision));
    *hits = s.hits, *misses = s.misses;
}
