/* orient.c — EXIF orientation as a pixel gather: each output pixel names its source pixel. */
#include "media/orient.h"

#include "base/error.h"

#include <stdlib.h>
#include <string.h>

ts_status ts_image_orient(ts_image *img, int orientation, ts_error *err)
{
    if (orientation < 2 || orientation > 8) return TS_OK;
    const size_t w = (size_t)img->width, h = (size_t)img->height;
    const int swap = orientation >= 5;
    const size_t out_w = swap ? h : w, out_h = swap ? w : h;
    uint8_t *out = malloc(w * h * 3);
    if (!out)
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY,
                            "cannot allocate %zu bytes to orient the image", w * h * 3);
    const uint8_t *in = img->rgb;
    for (size_t y = 0; y < out_h; y++) {
        for (size_t x = 0; x < out_w; x++) {
            size_t sx, sy; /* source column and row */
            switch (orientation) {
            case 2:
                sx = w - 1 - x;
                sy = y;
                break;
            case 3:
                sx = w - 1 - x;
                sy = h - 1 - y;
                break;
            case 4:
                sx = x;
                sy = h - 1 - y;
                break;
            case 5:
                sx = y;
                sy = x;
                break;
            case 6:
                sx = y;
                sy = h - 1 - x;
                break;
            case 7:
                sx = w - 1 - y;
                sy = h - 1 - x;
                break;
            default:
                sx = w - 1 - y;
                sy = x;
                break; /* 8 */
            }
            memcpy(out + (y * out_w + x) * 3, in + (sy * w + sx) * 3, 3);
        }
    }
    free(img->rgb);
    img->rgb = out;
    img->width = (int)out_w;
    img->height = (int)out_h;
    return TS_OK;
}
