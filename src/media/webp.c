/* webp.c — WebP through libwebp: still images straight to RGB, animations via WebPAnimDecoder.
 *
 * Lossy and lossless decode with libwebp's default options (fancy upsampling), as PIL does, so
 * pixels match PIL's. Alpha is dropped, not composited; the colour under it is what the file
 * stores. An animated WebP gives its first frame, composed on the canvas the way PIL's
 * WebPAnimDecoder shows it (outside the frame: black). The orientation comes from the EXIF chunk
 * (through WebPDemux, where PIL's plugin also finds it). Truncated or corrupt data is
 * TS_ERR_FORMAT naming libwebp's status.
 */
#include "base/error.h"
#include "media/codec.h"
#include "media/exif.h"

#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/demux.h>

static const char *status_text(VP8StatusCode status)
{
    switch (status) {
    case VP8_STATUS_OK:
        return "ok";
    case VP8_STATUS_OUT_OF_MEMORY:
        return "out of memory";
    case VP8_STATUS_INVALID_PARAM:
        return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR:
        return "corrupt bitstream";
    case VP8_STATUS_UNSUPPORTED_FEATURE:
        return "unsupported feature";
    case VP8_STATUS_SUSPENDED:
        return "suspended";
    case VP8_STATUS_USER_ABORT:
        return "aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA:
        return "truncated data";
    }
    return "unknown error";
}

static ts_status status_error(VP8StatusCode status, ts_error *err)
{
    ts_status st = status == VP8_STATUS_OUT_OF_MEMORY         ? TS_ERR_OUT_OF_MEMORY
                   : status == VP8_STATUS_UNSUPPORTED_FEATURE ? TS_ERR_UNSUPPORTED
                                                              : TS_ERR_FORMAT;
    return ts_error_set(err, st, "WebP: %s", status_text(status));
}

static int find_orientation(const uint8_t *data, size_t len)
{
    WebPData whole = {data, len};
    WebPDemuxer *demux = WebPDemux(&whole);
    if (!demux) return 1;
    int orientation = 1;
    WebPChunkIterator chunk;
    if (WebPDemuxGetChunk(demux, "EXIF", 1, &chunk)) {
        orientation = ts_exif_orientation(chunk.chunk.bytes, chunk.chunk.size);
        WebPDemuxReleaseChunkIterator(&chunk);
    }
    WebPDemuxDelete(demux);
    return orientation;
}

static ts_status decode_still(const uint8_t *data, size_t len, ts_image *out, ts_error *err)
{
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config))
        return ts_error_set(err, TS_ERR_INTERNAL, "WebP: library version mismatch");
    config.output.colorspace = MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = out->rgb;
    config.output.u.RGBA.stride = out->width * 3;
    config.output.u.RGBA.size = (size_t)out->width * (size_t)out->height * 3;
    VP8StatusCode status = WebPDecode(data, len, &config);
    WebPFreeDecBuffer(&config.output);
    return status == VP8_STATUS_OK ? TS_OK : status_error(status, err);
}

static ts_status decode_first_frame(const uint8_t *data, size_t len, ts_image *out, ts_error *err)
{
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options))
        return ts_error_set(err, TS_ERR_INTERNAL, "WebP: library version mismatch");
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPData whole = {data, len};
    WebPAnimDecoder *anim = WebPAnimDecoderNew(&whole, &options);
    if (!anim) return ts_error_set(err, TS_ERR_FORMAT, "WebP: corrupt or truncated animation");
    WebPAnimInfo info;
    uint8_t *canvas = NULL;
    int timestamp;
    ts_status st = TS_OK;
    if (!WebPAnimDecoderGetInfo(anim, &info) || (int)info.canvas_width != out->width ||
        (int)info.canvas_height != out->height) {
        st = ts_error_set(err, TS_ERR_FORMAT, "WebP: animation canvas disagrees with the header");
    } else if (!WebPAnimDecoderGetNext(anim, &canvas, &timestamp)) {
        st = ts_error_set(err, TS_ERR_FORMAT, "WebP: corrupt or truncated first frame");
    } else {
        size_t n = (size_t)out->width * (size_t)out->height;
        for (size_t i = 0; i < n; i++)
            memcpy(out->rgb + 3 * i, canvas + 4 * i, 3);
    }
    WebPAnimDecoderDelete(anim);
    return st;
}

ts_status ts_webp_decode(const uint8_t *data, size_t len, const ts_image_limits *limits,
                         ts_image *out, int *orientation, ts_error *err)
{
    *orientation = 1;
    WebPBitstreamFeatures features;
    VP8StatusCode status = WebPGetFeatures(data, len, &features);
    if (status != VP8_STATUS_OK) return status_error(status, err);
    ts_status st = ts_image_check_dims("WebP", features.width, features.height, limits, err);
    if (st != TS_OK) return st;
    if ((st = ts_image_alloc(out, features.width, features.height, err)) != TS_OK) return st;
    st = features.has_animation ? decode_first_frame(data, len, out, err)
                                : decode_still(data, len, out, err);
    if (st != TS_OK) {
        ts_image_free(out);
        return st;
    }
    *orientation = find_orientation(data, len);
    return TS_OK;
}
