/* image_decode_fuzz.c — libFuzzer target: arbitrary bytes as an encoded image.
 *
 * Feeds ts_image_decode with a 1 MP pixel limit (so the fuzzer spends its time in parsers, not
 * in allocating huge canvases); any status is fine, a crash, sanitizer report or leak is a bug.
 * A success must hand back width*height*3 readable bytes; a failure no pixels and a message.
 */
#include "tessera.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ts_image_limits limits = {.max_pixels = 1000 * 1000};
    ts_image img;
    ts_error err;
    if (ts_image_decode(data, size, &limits, &img, &err) != TS_OK) {
        if (img.rgb || img.width || img.height || err.message[0] == '\0') abort();
        return 0;
    }
    if (img.width <= 0 || img.height <= 0 || !img.rgb ||
        (int64_t)img.width * img.height > limits.max_pixels)
        abort();
    /* Reading every byte lets ASan catch a buffer shorter than the dims claim. */
    volatile uint8_t sink = 0;
    size_t n = (size_t)img.width * (size_t)img.height * 3;
    for (size_t i = 0; i < n; i++)
        sink ^= img.rgb[i];
    (void)sink;
    ts_image_free(&img);
    return 0;
}
