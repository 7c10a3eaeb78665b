/* codec.h — the per-format decoders behind ts_image_decode, and the checks they share.
 *
 * Each ts_<format>_decode takes bytes already sniffed as its format and limits already resolved
 * (no zero fields). It reads the header, calls ts_image_check_dims before allocating or decoding
 * any pixel, and on success fills *out with width*height*3 owned RGB bytes, un-oriented, and
 * *orientation with the EXIF orientation (2..8, or 0/1 when there is nothing to undo). On
 * failure *out is empty and err names the format: TS_ERR_FORMAT (corrupt, truncated),
 * TS_ERR_UNSUPPORTED, TS_ERR_RANGE, TS_ERR_OUT_OF_MEMORY. No decoder prints or exits on bad data.
 */
#ifndef TS_MEDIA_CODEC_H
#define TS_MEDIA_CODEC_H

#include "tessera.h"

/* Zero or negative dimensions are TS_ERR_FORMAT; width*height over limits->max_pixels is
 * TS_ERR_RANGE with both numbers. `format` leads the message ("PNG: …"). */
ts_status ts_image_check_dims(const char *format, int64_t width, int64_t height,
                              const ts_image_limits *limits, ts_error *err);
/* Sets img to width x height with fresh owned pixels (contents undefined). */
ts_status ts_image_alloc(ts_image *img, int width, int height, ts_error *err);

ts_status ts_jpeg_decode(const uint8_t *data, size_t len, const ts_image_limits *limits,
                         ts_image *out, int *orientation, ts_error *err);
ts_status ts_png_decode(const uint8_t *data, size_t len, const ts_image_limits *limits,
                        ts_image *out, int *orientation, ts_error *err);
ts_status ts_webp_decode(const uint8_t *data, size_t len, const ts_image_limits *limits,
                         ts_image *out, int *orientation, ts_error *err);

#endif
