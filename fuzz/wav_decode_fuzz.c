/* wav_decode_fuzz.c — libFuzzer target: arbitrary bytes into ts_audio_decode, kept to the ones
 * the sniffer places as WAV (libsndfile's WAV/RIFF reader behind our own header walk), then
 * resampled and turned into features; limits and contract checks are audio_fuzz.h's. Seeds:
 * fuzz/corpus/wav_decode (tools/make_audio_clips.sh).
 */
#include "audio_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return audio_fuzz_run(data, size, TS_AUDIO_FORMAT_WAV);
}
