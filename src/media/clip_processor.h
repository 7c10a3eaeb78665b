/* clip_processor.h — the fixed-size image processors: CLIPImageProcessor,
 * SiglipImageProcessor and Gemma3ImageProcessor (one view; its pan-and-scan crops
 * are cut in src/models/gemma3/gemma3.c and each processed here).
 *
 * Resize (to size.shortest_edge keeping the aspect ratio, or to size.height×width) with the
 * config's PIL filter (2 bilinear, 3 bicubic), optional center crop to crop_size, rescale,
 * normalize → [1, 3, H, W] float32 in ts_pixel_values (owned by the caller). Errors:
 * TS_ERR_UNSUPPORTED for another filter, TS_ERR_INVALID_ARGUMENT for a config without a size.
 */
#ifndef TS_MEDIA_CLIP_PROCESSOR_H
#define TS_MEDIA_CLIP_PROCESSOR_H

#include "tessera.h"

/* CLIP's shortest-edge output size (transformers get_resize_output_image_size with
 * default_to_square=False): the short side becomes `shortest_edge`, the long side
 * int(shortest_edge · long / short). */
void ts_clip_shortest_edge_size(int width, int height, int shortest_edge, int64_t *out_width,
                                int64_t *out_height);

ts_status ts_clip_preprocess(const ts_preprocessor_config *cfg, const uint8_t *rgb, int width,
                             int height, const ts_image_budget *budget, ts_pixel_values *out,
                             ts_error *err);

#endif
