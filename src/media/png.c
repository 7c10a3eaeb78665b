/* png.c — PNG through libpng: memory reader, error hooks, every colour type to RGB8.
 *
 * Conversions follow PIL's open + convert("RGB"): palette through the palette, grey replicated,
 * 1/2/4-bit grey scaled to 0..255, alpha and tRNS dropped (not composited), 16-bit colour and
 * grey+alpha keep the high byte. 16-bit grey without alpha is clipped to 255, not scaled: PIL
 * opens it as mode "I" and its I -> RGB conversion clips, so most such images come out nearly
 * white; we match the reference, not the intent. Interlaced images are decoded whole into a
 * scratch buffer; others row by row. Gamma, sBIT and colour profiles are ignored, as PIL
 * ignores them. The orientation comes from the metadata chunks as PIL reads them (png_meta.h).
 * libpng errors (bad CRC in a critical chunk, bad zlib data, truncation) become TS_ERR_FORMAT;
 * its warnings are ignored.
 */
#include "base/error.h"
#include "media/codec.h"
#include "media/png_meta.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

typedef struct decoder {
    const uint8_t *data;
    size_t len, at;
    char message[256];
    png_structp png;
    png_infop info;
    uint8_t *scratch; /* interlaced image or one row, owned */
    ts_image image;
} decoder;

static void on_error(png_structp png, png_const_charp msg)
{
    decoder *d = png_get_error_ptr(png);
    snprintf(d->message, sizeof(d->message), "%s", msg);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg) {}

static void on_read(png_structp png, png_bytep dst, size_t n)
{
    decoder *d = png_get_io_ptr(png);
    if (n > d->len - d->at) png_error(png, "truncated data");
    memcpy(dst, d->data + d->at, n);
    d->at += n;
}

/* One decoded row, in the layout set up by run(), to RGB8. */
static void row_to_rgb(const uint8_t *in, uint8_t *out, size_t width, int channels, int depth)
{
    for (size_t x = 0; x < width; x++, out += 3) {
        if (depth == 16) { /* only grey without alpha stays 16-bit */
            unsigned v = (unsigned)in[2 * x] << 8 | in[2 * x + 1];
            out[0] = out[1] = out[2] = (uint8_t)(v > 255 ? 255 : v);
        } else if (channels <= 2) {
            out[0] = out[1] = out[2] = in[x * (size_t)channels];
        } else {
            memcpy(out, in + x * (size_t)channels, 3);
        }
    }
}

/* Every chunk up to the first IDAT must fit in the file. PIL reads each such chunk whole and
 * fails on a short one; libpng would first allocate whatever length a chunk declares (up to 2 GB
 * for a 300-byte file: only a warning once past its own cap). */
static ts_status check_chunk_lengths(const uint8_t *data, size_t len, ts_error *err)
{
    for (size_t at = 8; at < len;) {
        if (len - at < 8) return ts_error_set(err, TS_ERR_FORMAT, "PNG: truncated data: a chunk header cut at byte %zu", at);
        size_t n = (size_t)data[at] << 24 | (size_t)data[at + 1] << 16 | (size_t)data[at + 2] << 8 | data[at + 3];
        if (n > len - at - 8 || len - at - 8 - n < 4)
            return ts_error_set(err, TS_ERR_FORMAT, "PNG: truncated data: the %.4s chunk at byte %zu declares %zu bytes, the file has %zu left", data + at + 4,
                                at, n, len - at - 8);
        if (!memcmp(data + at + 4, "IDAT", 4)) return TS_OK;
        at += 12 + n;
    }
    return TS_OK;
}

static ts_status run(decoder *d, const ts_image_limits *limits, ts_error *err)
{
    ts_status st = check_chunk_lengths(d->data, d->len, err);
    if (st != TS_OK) return st;
    if (setjmp(png_jmpbuf(d->png))) return ts_error_set(err, TS_ERR_FORMAT, "PNG: %s", d->message);
    png_set_read_fn(d->png, d, on_read);
    /* Our pixel limit is the one that applies; libpng's caps would add a vaguer error. */
    png_set_user_limits(d->png, 0x7fffffff, 0x7fffffff);
    /* PIL checks every chunk's CRC before the image data and fails on a bad one; libpng would
     * only warn for ancillary chunks and drop them (an eXIf, say, and with it the rotation). */
    png_set_crc_action(d->png, PNG_CRC_DEFAULT, PNG_CRC_ERROR_QUIT);
    png_read_info(d->png, d->info);
    png_uint_32 width, height;
    int depth, color, interlace;
    png_get_IHDR(d->png, d->info, &width, &height, &depth, &color, &interlace, NULL, NULL);
    st = ts_image_check_dims("PNG", width, height, limits, err);
    if (st != TS_OK) return st;
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(d->png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(d->png);
    if (depth == 16 && color != PNG_COLOR_TYPE_GRAY) png_set_strip_16(d->png);
    int passes = png_set_interlace_handling(d->png);
    png_read_update_info(d->png, d->info);
    int channels = png_get_channels(d->png, d->info);
    int out_depth = png_get_bit_depth(d->png, d->info);
    size_t rowbytes = png_get_rowbytes(d->png, d->info);
    if ((st = ts_image_alloc(&d->image, (int)width, (int)height, err)) != TS_OK) return st;
    if (passes > 1) {
        if (rowbytes > SIZE_MAX / height || !(d->scratch = malloc(rowbytes * height)))
            return ts_error_set(err, TS_ERR_OUT_OF_MEMORY,
                                "PNG: cannot allocate %u rows of %zu bytes", (unsigned)height,
                                rowbytes);
        for (int pass = 0; pass < passes; pass++)
            for (png_uint_32 y = 0; y < height; y++)
                png_read_row(d->png, d->scratch + y * rowbytes, NULL);
        for (png_uint_32 y = 0; y < height; y++)
            row_to_rgb(d->scratch + y * rowbytes, d->image.rgb + (size_t)y * width * 3, width,
                       channels, out_depth);
    } else {
        if (!(d->scratch = malloc(rowbytes)))
            return ts_error_set(err, TS_ERR_OUT_OF_MEMORY,
                                "PNG: cannot allocate a row of %zu bytes", rowbytes);
        for (png_uint_32 y = 0; y < height; y++) {
            png_read_row(d->png, d->scratch, NULL);
            row_to_rgb(d->scratch, d->image.rgb + (size_t)y * width * 3, width, channels,
                       out_depth);
        }
    }
    /* Not png_read_end: PIL stops after the image data too, so trailing damage is no error. */
    return TS_OK;
}

ts_status ts_png_decode(const uint8_t *data, size_t len, const ts_image_limits *limits,
                        ts_image *out, int *orientation, ts_error *err)
{
    decoder *d = calloc(1, sizeof(*d));
    if (!d) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "PNG: cannot allocate the decoder");
    d->data = data;
    d->len = len;
    *orientation = 1;
    ts_status st;
    d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, d, on_error, on_warning);
    if (!d->png || !(d->info = png_create_info_struct(d->png))) {
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "PNG: cannot allocate the decoder");
    } else {
        st = run(d, limits, err);
    }
    png_destroy_read_struct(d->png ? &d->png : NULL, d->info ? &d->info : NULL, NULL);
    free(d->scratch);
    if (st == TS_OK) {
        *out = d->image;
        *orientation = ts_png_orientation(data, len);
    } else {
        ts_image_free(&d->image);
    }
    free(d);
    return st;
}
