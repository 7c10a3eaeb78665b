/* image_format.c — magic-byte sniffing. */
#include "media/image_format.h"

#include <string.h>

static const char *const format_names[] = {
    [TS_IMAGE_FORMAT_UNKNOWN] = "unknown",
    [TS_IMAGE_FORMAT_JPEG] = "JPEG",
    [TS_IMAGE_FORMAT_PNG] = "PNG",
    [TS_IMAGE_FORMAT_WEBP] = "WebP",
    [TS_IMAGE_FORMAT_GIF] = "GIF",
    [TS_IMAGE_FORMAT_BMP] = "BMP",
    [TS_IMAGE_FORMAT_TIFF] = "TIFF",
    [TS_IMAGE_FORMAT_HEIF] = "HEIF/AVIF",
    [TS_IMAGE_FORMAT_JPEG_XL] = "JPEG XL",
    [TS_IMAGE_FORMAT_JPEG_2000] = "JPEG 2000",
    [TS_IMAGE_FORMAT_PSD] = "Photoshop (PSD)",
};
_Static_assert(sizeof(format_names) / sizeof(format_names[0]) == TS_IMAGE_FORMAT_COUNT,
               "format_names out of step with ts_image_format");

const char *ts_image_format_name(ts_image_format format)
{
    if ((unsigned)format >= TS_IMAGE_FORMAT_COUNT) return "unknown";
    return format_names[format];
}

static int starts_with(const uint8_t *data, size_t len, const void *magic, size_t n)
{
    return len >= n && memcmp(data, magic, n) == 0;
}

ts_image_format ts_image_format_sniff(const uint8_t *data, size_t len)
{
    /* SOI then the first marker's 0xFF: two bytes alone also match random data too often. */
    if (starts_with(data, len, "\xFF\xD8\xFF", 3)) return TS_IMAGE_FORMAT_JPEG;
    if (starts_with(data, len, "\x89PNG\r\n\x1A\n", 8)) return TS_IMAGE_FORMAT_PNG;
    if (len >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0)
        return TS_IMAGE_FORMAT_WEBP;
    if (starts_with(data, len, "GIF87a", 6) || starts_with(data, len, "GIF89a", 6))
        return TS_IMAGE_FORMAT_GIF;
    if (starts_with(data, len, "BM", 2) && len >= 14) return TS_IMAGE_FORMAT_BMP;
    if (starts_with(data, len, "II*\0", 4) || starts_with(data, len, "MM\0*", 4))
        return TS_IMAGE_FORMAT_TIFF;
    if (len >= 12 && memcmp(data + 4, "ftyp", 4) == 0) {
        static const char *const brands[] = {"heic", "heix", "hevc", "heim", "heis",
                                             "mif1", "msf1", "avif", "avis"};
        for (size_t i = 0; i < sizeof(brands) / sizeof(brands[0]); i++)
            if (memcmp(data + 8, brands[i], 4) == 0) return TS_IMAGE_FORMAT_HEIF;
    }
    if (starts_with(data, len, "\xFF\x0A", 2) ||
        starts_with(data, len, "\0\0\0\x0CJXL \r\n\x87\n", 12))
        return TS_IMAGE_FORMAT_JPEG_XL;
    if (starts_with(data, len, "\0\0\0\x0CjP  \r\n\x87\n", 12) ||
        starts_with(data, len, "\xFF\x4F\xFF\x51", 4))
        return TS_IMAGE_FORMAT_JPEG_2000;
    if (starts_with(data, len, "8BPS", 4)) return TS_IMAGE_FORMAT_PSD;
    return TS_IMAGE_FORMAT_UNKNOWN;
}
