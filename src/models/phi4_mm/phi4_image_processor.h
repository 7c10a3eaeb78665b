/* phi4_image_processor.h — Phi4MultimodalImageProcessor's dynamic-HD crops (transformers 5.23.0,
 * image_processing_phi4_multimodal.py, torchvision backend), byte for byte.
 *
 * Contract: one decoded RGB8 image → the global view and the crops of its HD canvas, as the
 * reference's image_pixel_values [1 + crops, 3, S, S] (f32, normalised), image_attention_mask
 * [1 + crops, S/P, S/P] (1 = a real patch) and image_sizes (canvas height, width), plus the
 * image-token count the prompt needs. Steps (docs/phi4-multimodal.md):
 *   grid: ceil(W/S) × ceil(H/S) crops, or past max_crops the closest aspect ratio among i·j ≤ max;
 *   resize keeping the aspect (torch's uint8 antialiased bilinear) so one side fills the canvas,
 *   pad right/bottom with white; normalise (x − 127.5) / 127.5; the global view = the normalised
 *   canvas resized to S×S (torch bicubic, antialias off, on floats); crops row-major.
 * The result owns its buffers (ts_phi4_hd_free). Errors: TS_ERR_INVALID_ARGUMENT for sizes the
 * reference rejects ("the aspect ratio is very extreme") or settings out of range, naming them;
 * TS_ERR_OUT_OF_MEMORY.
 */
#ifndef TS_MODELS_PHI4_IMAGE_PROCESSOR_H
#define TS_MODELS_PHI4_IMAGE_PROCESSOR_H

#include "loader/processor_class.h"
#include "tessera.h"

/* Phi4MultimodalImageProcessor as preprocessor_config.json (or processor_config.json's
 * image_processor object) names it: its defaults and keys (size, patch_size, dynamic_hd). */
extern const ts_image_processor_class ts_phi4_image_processor;

typedef struct ts_phi4_hd_image {
    int crop, patch;          /* S (448) and P (14): a view is (S/P)² patches */
    int grid_w, grid_h;       /* crops across and down; canvas = S·grid_w × S·grid_h */
    int views;                /* 1 + grid_w·grid_h (the global view first) */
    int resized_w, resized_h; /* the image inside the canvas (the rest is white padding) */
    float *pixels;            /* [views][3][S][S] */
    uint8_t *mask;            /* [views][S/P][S/P]; the global view's is all ones */
    int64_t tokens;           /* <|image|> tokens the image takes in the prompt */
} ts_phi4_hd_image;

/* The processor's settings from a ts_preprocessor_config of the class above (absent keys took
 * the class defaults: size 448, patch_size 14, dynamic_hd 36). Settings the arithmetic here does
 * not follow (a non-square size, mean/std other than 0.5, rescale other than 1/255, no
 * rescale/normalise) are TS_ERR_UNSUPPORTED naming the key. _load reads model_dir's file
 * (ts_preprocessor_config_load: preprocessor_config.json or processor_config.json's
 * image_processor; neither is TS_ERR_NOT_FOUND) and checks it. */
typedef struct ts_phi4_hd_settings {
    int crop, patch, max_crops;
} ts_phi4_hd_settings;
ts_status ts_phi4_hd_settings_from(const ts_preprocessor_config *cfg, ts_phi4_hd_settings *s, ts_error *err);
ts_status ts_phi4_hd_settings_load(const char *model_dir, ts_phi4_hd_settings *s, ts_error *err);

ts_status ts_phi4_hd_preprocess(const uint8_t *rgb, int width, int height, int crop, int patch,
                                int max_crops, ts_phi4_hd_image *out, ts_error *err);
void ts_phi4_hd_free(ts_phi4_hd_image *im);

/* The pixel values shared code carries (ts_pixel_values): data the views [views][3][S][S] (moved
 * out of im, which is left empty), grid_thw {1, grid_h, grid_w}, resized_width/height the image
 * inside the canvas, n_tokens the prompt's count. The patch masks are not stored: they are a
 * function of that header (the padding is the canvas past the resized image), which the digest
 * covers; ts_phi4_hd_view rebuilds them. */
void ts_phi4_hd_to_pixels(ts_phi4_hd_image *im, ts_pixel_values *pv);
/* The HD image pv describes, for patches of `patch` px: pixels borrowed from pv (im->pixels
 * points into pv->data: free only im->mask), the mask and token count rebuilt from the header.
 * TS_ERR_INVALID_ARGUMENT for a header that is not such an image, naming what disagrees. */
ts_status ts_phi4_hd_view(const ts_pixel_values *pv, int patch, ts_phi4_hd_image *im, ts_error *err);

/* The rows of the sub-image grid the HD layout keeps: the downsampled mask (every second patch
 * row and column, as the tower's 2×2 pooling reads it) of the crops laid out as one
 * (grid_h·n) × (grid_w·n) grid, n = S/P/2, cut to its useful rows (first column's sum) and
 * columns (first row's sum). */
void ts_phi4_hd_useful(const ts_phi4_hd_image *im, int *rows, int *cols);

#endif
