/* resample.h — PIL's convolution resize (Image.resize without reducing_gap) on packed RGB8.
 *
 * Output bytes equal Pillow's ImagingResample for 8-bit images exactly: same filter taps, same
 * 22-bit fixed-point coefficients, same rounding and clipping, same pass order and pass skipping.
 * Pixels are packed RGB, rows top to bottom, no padding. The caller owns both buffers; `dst`
 * holds out_width·out_height·3 bytes and must not overlap `src`. Errors: TS_ERR_INVALID_ARGUMENT
 * for a non-positive size or an unknown filter, TS_ERR_RANGE for sizes beyond int arithmetic,
 * TS_ERR_OUT_OF_MEMORY.
 */
#ifndef TS_MEDIA_RESAMPLE_H
#define TS_MEDIA_RESAMPLE_H

#include "tessera.h"

/* Values are PIL's filter numbers, as preprocessor_config.json's `resample` spells them. */
typedef enum ts_resample_filter {
    TS_RESAMPLE_BILINEAR = 2,
    TS_RESAMPLE_BICUBIC = 3,
} ts_resample_filter;

ts_status ts_resample_rgb8(const uint8_t *src, int width, int height, uint8_t *dst, int out_width,
                           int out_height, ts_resample_filter filter, ts_error *err);

/* torch's antialiased resize of a uint8 image (F.interpolate(..., antialias=True), what
 * torchvision's resize does to uint8 tensors): Pillow's taps and pass order, but int16 weights
 * with as many fraction bits as each pass's largest weight allows, so some bytes differ from
 * Pillow's by one. Same buffers and errors as ts_resample_rgb8. */
ts_status ts_resample_rgb8_torch(const uint8_t *src, int width, int height, uint8_t *dst,
                                 int out_width, int out_height, ts_resample_filter filter,
                                 ts_error *err);

#endif
