/* jpeg_decode_fuzz.c — libFuzzer target: arbitrary bytes straight into ts_jpeg_decode, the JPEG
 * wrapper, past ts_image_decode's dispatch. Inputs the sniffer does not place as JPEG are skipped;
 * limits and the contract checks are image_fuzz.h's. Seeds: fuzz/corpus/jpeg_decode.
 */
#include "image_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return image_fuzz_run(data, size, TS_IMAGE_FORMAT_JPEG, ts_jpeg_decode);
}
