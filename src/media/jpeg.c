/* jpeg.c — JPEG through libjpeg-turbo: error manager, header checks, scanlines to RGB8.
 *
 * Settings are libjpeg's defaults (ISLOW DCT, fancy upsampling), the ones PIL decodes with, so
 * pixels match PIL bit for bit. libjpeg reports bad data by calling error_exit, which here
 * longjmps back with the message. Warnings are tolerated as PIL tolerates them, except "Premature
 * end of JPEG file": libjpeg would pad the missing rows with grey, where PIL raises "image file is
 * truncated", so a truncated JPEG is an error here too. CMYK/YCCK files are converted the way PIL
 * converts them (Adobe-inverted CMYK, then PIL's cmyk2rgb rounding); other colour spaces are
 * TS_ERR_UNSUPPORTED. A file with more than MAX_SCANS scans is TS_ERR_RANGE: each progressive
 * scan re-walks the whole coefficient buffer, so a small file of thousands of scans would tie a
 * request up for minutes (PIL has no such bound; real encoders write about ten).
 */
#include "base/error.h"
#include "media/codec.h"
#include "media/exif.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

enum { MAX_SCANS = 500 }; /* the bound libjpeg-turbo's own fuzzers use */

typedef struct decoder {
    struct jpeg_error_mgr pub; /* first: libjpeg hands back a pointer to it */
    struct jpeg_progress_mgr progress;
    int too_many_scans;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    struct jpeg_decompress_struct cinfo;
    uint8_t *row;   /* CMYK scanline scratch, owned */
    ts_image image; /* the output while it is being filled */
} decoder;

static void on_error(j_common_ptr cinfo)
{
    decoder *d = (decoder *)cinfo->err;
    cinfo->err->format_message(cinfo, d->message);
    longjmp(d->jump, 1);
}

static void on_message(j_common_ptr cinfo, int level)
{
    decoder *d = (decoder *)cinfo->err;
    if (level < 0) {
        if (cinfo->err->msg_code == JWRN_JPEG_EOF) {
            snprintf(d->message, sizeof(d->message), "truncated data (premature end of file)");
            longjmp(d->jump, 1);
        }
        cinfo->err->num_warnings++;
    }
}

static void on_progress(j_common_ptr cinfo)
{
    decoder *d = (decoder *)cinfo->err;
    j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
    if (dinfo->input_scan_number > MAX_SCANS) {
        d->too_many_scans = 1;
        snprintf(d->message, sizeof(d->message), "more than %d scans", MAX_SCANS);
        longjmp(d->jump, 1);
    }
}

/* PIL's MULDIV255: a*b/255 rounded, the way Convert.c's cmyk2rgb computes it. */
static uint8_t muldiv255(unsigned a, unsigned b)
{
    unsigned t = a * b + 128;
    return (uint8_t)(((t >> 8) + t) >> 8);
}

static void cmyk_to_rgb(const uint8_t *in, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++, in += 4, out += 3) {
        /* libjpeg returns Adobe's inverted CMYK; PIL reads it as "CMYK;I" and un-inverts. */
        unsigned c = 255u - in[0], m = 255u - in[1], y = 255u - in[2], k = 255u - in[3];
        unsigned nk = 255u - k;
        out[0] = (uint8_t)(nk - muldiv255(c, nk));
        out[1] = (uint8_t)(nk - muldiv255(m, nk));
        out[2] = (uint8_t)(nk - muldiv255(y, nk));
    }
}

/* The first APP1 that starts with "Exif\0\0", as PIL takes it. */
static int find_orientation(struct jpeg_decompress_struct *cinfo)
{
    for (jpeg_saved_marker_ptr m = cinfo->marker_list; m; m = m->next)
        if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 &&
            memcmp(m->data, "Exif\0\0", 6) == 0)
            return ts_exif_orientation(m->data, m->data_length);
    return 1;
}

/* Everything that changes after setjmp lives in *d, so nothing needs to be volatile. */
static ts_status run(decoder *d, const uint8_t *data, size_t len, const ts_image_limits *limits,
                     int *orientation, ts_error *err)
{
    struct jpeg_decompress_struct *cinfo = &d->cinfo;
    if (setjmp(d->jump))
        return ts_error_set(err, d->too_many_scans ? TS_ERR_RANGE : TS_ERR_FORMAT, "JPEG: %s",
                            d->message);
    jpeg_create_decompress(cinfo);
    cinfo->progress = &d->progress; /* after create, which clears all but err */
    jpeg_mem_src(cinfo, data, (unsigned long)len);
    jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(cinfo, TRUE);
    ts_status st =
        ts_image_check_dims("JPEG", cinfo->image_width, cinfo->image_height, limits, err);
    if (st != TS_OK) return st;
    *orientation = find_orientation(cinfo);
    int cmyk = 0;
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE: /* libjpeg replicates grey into RGB, as PIL's L -> RGB does */
    case JCS_YCbCr:
    case JCS_RGB:
        cinfo->out_color_space = JCS_RGB;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        cinfo->out_color_space = JCS_CMYK;
        cmyk = 1;
        break;
    default:
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "JPEG: unsupported colour space (%d components)",
                            cinfo->num_components);
    }
    jpeg_start_decompress(cinfo);
    if ((st = ts_image_alloc(&d->image, (int)cinfo->output_width, (int)cinfo->output_height,
                             err)) != TS_OK)
        return st;
    size_t width = cinfo->output_width;
    if (cmyk && !(d->row = malloc(width * 4)))
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "JPEG: cannot allocate a %zu-pixel row",
                            width);
    while (cinfo->output_scanline < cinfo->output_height) {
        uint8_t *dst = d->image.rgb + (size_t)cinfo->output_scanline * width * 3;
        JSAMPROW rows[1] = {cmyk ? d->row : dst};
        if (jpeg_read_scanlines(cinfo, rows, 1) != 1)
            return ts_error_set(err, TS_ERR_FORMAT, "JPEG: truncated data at row %u",
                                cinfo->output_scanline);
        if (cmyk) cmyk_to_rgb(d->row, dst, width);
    }
    jpeg_finish_decompress(cinfo);
    return TS_OK;
}

ts_status ts_jpeg_decode(const uint8_t *data, size_t len, const ts_image_limits *limits,
                         ts_image *out, int *orientation, ts_error *err)
{
    decoder *d = calloc(1, sizeof(*d));
    if (!d) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "JPEG: cannot allocate the decoder");
    d->cinfo.err = jpeg_std_error(&d->pub);
    d->pub.error_exit = on_error;
    d->pub.emit_message = on_message;
    d->progress.progress_monitor = on_progress;
    *orientation = 1;
    ts_status st = run(d, data, len, limits, orientation, err);
    jpeg_destroy_decompress(&d->cinfo);
    free(d->row);
    if (st == TS_OK)
        *out = d->image;
    else
        ts_image_free(&d->image);
    free(d);
    return st;
}
