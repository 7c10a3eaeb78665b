/* orient.h — applying an EXIF orientation to RGB pixels.
 *
 * ts_image_orient rewrites *img so it displays upright: orientation 1..8 map to the transposes
 * PIL.ImageOps.exif_transpose uses (2 mirror, 3 rotate 180, 4 flip, 5 transpose, 6 rotate 90
 * clockwise, 7 transverse, 8 rotate 90 counter-clockwise); 5..8 swap width and height. The old
 * pixel buffer is freed and replaced (the pointer changes). Only TS_ERR_OUT_OF_MEMORY can fail,
 * and then *img is unchanged. Orientation 1 or anything outside 1..8 is a no-op.
 */
#ifndef TS_MEDIA_ORIENT_H
#define TS_MEDIA_ORIENT_H

#include "tessera.h"

ts_status ts_image_orient(ts_image *img, int orientation, ts_error *err);

#endif
