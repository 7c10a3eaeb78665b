/* image_format.h — which image format a buffer holds, from its magic bytes alone.
 *
 * ts_image_format_sniff never reads past len and never fails: anything it cannot place is
 * TS_IMAGE_FORMAT_UNKNOWN. Formats Tessera does not decode (GIF, BMP, TIFF, …) are still named so
 * the caller's error can say what was found. ts_image_format_name returns static storage.
 */
#ifndef TS_MEDIA_IMAGE_FORMAT_H
#define TS_MEDIA_IMAGE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

typedef enum ts_image_format {
    TS_IMAGE_FORMAT_UNKNOWN = 0,
    TS_IMAGE_FORMAT_JPEG, /* decoded */
    TS_IMAGE_FORMAT_PNG,  /* decoded */
    TS_IMAGE_FORMAT_WEBP, /* decoded */
    TS_IMAGE_FORMAT_GIF,  /* recognised only, from here down */
    TS_IMAGE_FORMAT_BMP,
    TS_IMAGE_FORMAT_TIFF,
    TS_IMAGE_FORMAT_HEIF, /* HEIC and AVIF: ISO-BMFF "ftyp" with an image brand */
    TS_IMAGE_FORMAT_JPEG_XL,
    TS_IMAGE_FORMAT_JPEG_2000,
    TS_IMAGE_FORMAT_PSD,
    TS_IMAGE_FORMAT_COUNT
} ts_image_format;

ts_image_format ts_image_format_sniff(const uint8_t *data, size_t len);
const char *ts_image_format_name(ts_image_format format);

#endif
