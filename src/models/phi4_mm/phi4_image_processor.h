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

#include "tessera.h"

typedef struct ts_phi4_hd_image {
    int crop, patch;          /* S (448) and P (14): a view is (S/P)² patches */
    int grid_w, grid_h;       /* crops across and down; canvas = S·grid_w × S·grid_h */
    int views;                /* 1 + grid_w·grid_h (the global view first) */
    float *pixels;            /* [views][3][S][S] */
    uint8_t *mask;            /* [views][S/P][S/P]; the global view's is all ones */
    int64_t tokens;           /* <|image|> tokens the image takes in the prompt */
} ts_phi4_hd_image;

/* The processor's settings: preprocessor_config.json, or the image_processor object of
 * processor_config.json (what transformers 5 saves), in model_dir; absent keys take the class
 * defaults (size 448, patch_size 14, dynamic_hd 36). Settings the arithmetic here does not
 * follow (a non-square size, mean/std other than 0.5, rescale other than 1/255, no
 * rescale/normalise) are TS_ERR_UNSUPPORTED naming the key; no file is TS_ERR_NOT_FOUND. */
typedef struct ts_phi4_hd_settings {
    int crop, patch, max_crops;
} ts_phi4_hd_settings;
ts_status ts_phi4_hd_settings_load(const char *model_dir, ts_phi4_hd_settings *s, ts_error *err);

ts_status ts_phi4_hd_preprocess(const uint8_t *rgb, int width, int height, int crop, int patch,
                                int max_crops, ts_phi4_hd_image *out, ts_error *err);
void ts_phi4_hd_free(ts_phi4_hd_image *im);

/* The rows of the sub-image grid the HD layout keeps: the downsampled mask (every second patch
 * row and column, as the tower's 2×2 pooling reads it) of the crops laid out as one
 * (grid_h·n) × (grid_w·n) grid, n = S/P/2, cut to its useful rows (first column's sum) and
 * columns (first row's sum). */
void ts_phi4_hd_useful(const ts_phi4_hd_image *im, int *rows, int *cols);

#endif
