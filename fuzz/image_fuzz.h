/* image_fuzz.h — the body shared by the per-decoder fuzz targets (jpeg_, png_, webp_decode_fuzz).
 *
 * image_fuzz_run hands the input to one codec.h wrapper the way ts_image_decode would: only bytes
 * the sniffer places as that format (the wrappers' precondition; anything else returns at once),
 * resolved limits with a 1 MP pixel cap (so the fuzzer spends its time in parsers, not in
 * allocating huge canvases) and a zeroed image. Any status is fine; a crash, sanitizer report or
 * leak is a bug, and so is a broken contract, which aborts: a failure must leave no pixels and a
 * message naming the format, a success width*height*3 readable bytes within the limit and an
 * orientation in 0..8. The image is then oriented as ts_image_decode does, so ts_image_orient keeps
 * the coverage the combined target gave it.
 */
#ifndef TS_FUZZ_IMAGE_FUZZ_H
#define TS_FUZZ_IMAGE_FUZZ_H

#include "media/codec.h"
#include "media/image_format.h"
#include "media/orient.h"
#include "tessera.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef ts_status (*image_fuzz_decoder)(const uint8_t *data, size_t len,
                                        const ts_image_limits *limits, ts_image *out,
                                        int *orientation, ts_error *err);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline int image_fuzz_run(const uint8_t *data, size_t size, ts_image_format format,
                                 image_fuzz_decoder decode)
{
    ts_image_limits limits = {.max_bytes = TS_IMAGE_DEFAULT_MAX_BYTES, .max_pixels = 1000 * 1000};
    if (size > limits.max_bytes || ts_image_format_sniff(data, size) != format) return 0;
    ts_image img = {0};
    ts_error err = {0};
    int orientation = -1;
    if (decode(data, size, &limits, &img, &orientation, &err) != TS_OK) {
        /* The one message without the format is ts_image_alloc's out-of-memory one. */
        const char *name = ts_image_format_name(format);
        if (img.rgb || img.width || img.height || err.message[0] == '\0' ||
            (err.status != TS_ERR_OUT_OF_MEMORY && strncmp(err.message, name, strlen(name)) != 0))
            abort();
        return 0;
    }
    if (img.width <= 0 || img.height <= 0 || !img.rgb ||
        (int64_t)img.width * img.height > limits.max_pixels || orientation < 0 || orientation > 8)
        abort();
    int width = img.width, height = img.height;
    if (ts_image_orient(&img, orientation, &err) == TS_OK) {
        int swapped = orientation >= 5 && orientation <= 8;
        if (img.width != (swapped ? height : width) || img.height != (swapped ? width : height) ||
            !img.rgb)
            abort();
    }
    /* Reading every byte lets ASan catch a buffer shorter than the dims claim. */
    volatile uint8_t sink = 0;
    size_t n = (size_t)img.width * (size_t)img.height * 3;
    for (size_t i = 0; i < n; i++)
        sink ^= img.rgb[i];
    (void)sink;
    ts_image_free(&img);
    return 0;
}

#endif
