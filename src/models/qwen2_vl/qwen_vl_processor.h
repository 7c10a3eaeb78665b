/* qwen_vl_processor.h — Qwen2VLImageProcessor (slow path): Qwen2-VL, Qwen2.5-VL, Qwen3-VL.
 *
 * smart_resize picks a size that is a multiple of patch_size·merge_size within a pixel budget,
 * with the pinned transformers commit's rules (no small-side error, max branch clamped to one
 * factor). The image is resized with PIL bicubic, rescaled, normalised, repeated to
 * temporal_patch_size frames and cut into patch rows in merge-unit order. Output as
 * ts_pixel_values (owned by the caller). Errors as ts_preprocess_image documents.
 */
#ifndef TS_MEDIA_QWEN_VL_PROCESSOR_H
#define TS_MEDIA_QWEN_VL_PROCESSOR_H

#include "tessera.h"

/* The reference's smart_resize(height, width, factor, min_pixels, max_pixels). */
ts_status ts_qwen_smart_resize(int64_t height, int64_t width, int64_t factor, int64_t min_pixels,
                               int64_t max_pixels, int64_t *out_height, int64_t *out_width,
                               ts_error *err);

ts_status ts_qwen_vl_preprocess(const ts_preprocessor_config *cfg, const uint8_t *rgb, int width,
                                int height, const ts_image_budget *budget, ts_pixel_values *out,
                                ts_error *err);

#endif
