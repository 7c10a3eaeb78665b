/* mm_inputs.h — the one multimodal input path, engine side: what a tower encodes goes into a
 * ts_encoded_media, and ts_mm_inputs_build (declared in tessera.h, defined in mm_inputs.c) turns
 * the expanded prompt and that media into what a prefill needs. Every caller assembles an image
 * prompt through it: the engine's image prefill, the bundle's, the server's media stage and
 * compare. This header adds the encode step the engine's two towers share (the model's own and a
 * ts_image_encoder's).
 */
#ifndef TS_ENGINE_MM_INPUTS_H
#define TS_ENGINE_MM_INPUTS_H

#include "engine/vision.h"
#include "tessera.h"

/* The tower's rows for the images into *out (main rows, and its DeepStack levels when it has
 * any), each row `hidden` wide. *out is zeroed first and owned by the caller on success. */
ts_status ts_mm_encode(ts_vision *v, int64_t hidden, const ts_pixel_values *images, int n_images,
                       ts_encoded_media *out, ts_error *err);

#endif
