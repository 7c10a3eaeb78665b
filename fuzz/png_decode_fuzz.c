/* png_decode_fuzz.c — libFuzzer target: arbitrary bytes straight into ts_png_decode, the PNG
 * wrapper, past ts_image_decode's dispatch. Inputs the sniffer does not place as PNG are skipped;
 * limits and the contract checks are image_fuzz.h's. Seeds: fuzz/corpus/png_decode.
 */
#include "image_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return image_fuzz_run(data, size, TS_IMAGE_FORMAT_PNG, ts_png_decode);
}
