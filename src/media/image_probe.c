/* image_probe.c — ts_image_probe: the size an image's header declares, without decoding a pixel:
 * PNG's IHDR, the first JPEG frame header (SOFn), WebP through libwebp's WebPGetInfo. What the
 * decoder would later check against its limits, available earlier (a server orders and budgets
 * requests by it before any of them is decoded). */
#include "base/error.h"
#include "media/image_format.h"

#include <webp/decode.h>

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

static ts_status jpeg_size(const uint8_t *d, size_t len, int64_t *w, int64_t *h, ts_error *err)
{
    size_t at = 2; /* after SOI */
    while (at + 4 <= len) {
        if (d[at] != 0xFF) return ts_error_set(err, TS_ERR_FORMAT, "JPEG: no marker at byte %zu", at);
        while (at < len && d[at] == 0xFF) at++; /* fill bytes */
        if (at + 3 > len) break;
        uint8_t m = d[at++];
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD8)) continue; /* markers without a length */
        uint32_t n = be16(d + at);
        if (n < 2) return ts_error_set(err, TS_ERR_FORMAT, "JPEG: segment length %u at byte %zu", n, at);
        bool sof = m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
        if (sof) {
            if (at + 7 > len) break;
            *h = be16(d + at + 3), *w = be16(d + at + 5);
            return TS_OK;
        }
        if (m == 0xD9 || m == 0xDA) break; /* end of image, or scan data before any frame header */
        at += n;
    }
    return ts_error_set(err, TS_ERR_FORMAT, "JPEG: no frame header (SOF) in %zu bytes", len);
}

ts_status ts_image_probe(const void *data, size_t len, int64_t *width, int64_t *height, ts_error *err)
{
    const uint8_t *d = data;
    *width = *height = 0;
    ts_image_format f = d ? ts_image_format_sniff(d, len) : TS_IMAGE_FORMAT_UNKNOWN;
    switch (f) {
    case TS_IMAGE_FORMAT_PNG:
        if (len < 24 || be32(d + 12) != 0x49484452u /* "IHDR" */)
            return ts_error_set(err, TS_ERR_FORMAT, "PNG: no IHDR header in %zu bytes", len);
        *width = be32(d + 16), *height = be32(d + 20);
        return TS_OK;
    case TS_IMAGE_FORMAT_JPEG: return jpeg_size(d, len, width, height, err);
    case TS_IMAGE_FORMAT_WEBP: {
        int w, h;
        if (!WebPGetInfo(d, len, &w, &h)) return ts_error_set(err, TS_ERR_FORMAT, "WebP: the header cannot be read");
        *width = w, *height = h;
        return TS_OK;
    }
    case TS_IMAGE_FORMAT_UNKNOWN: return ts_error_set(err, TS_ERR_UNSUPPORTED, "not an image format Tessera knows");
    default: return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s images are not supported (JPEG, PNG, WebP)", ts_image_format_name(f));
    }
}
