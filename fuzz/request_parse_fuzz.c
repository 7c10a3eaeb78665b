/* request_parse_fuzz.c — libFuzzer target: arbitrary bytes as an OpenAI request body.
 *
 * The first byte picks the endpoint (chat or completions), the rest is the body, fed to
 * srv_request_parse with file:// refused (no media root: the fuzzer never reads files). Any
 * outcome is fine; a crash, a sanitizer report or a leak is a bug. A refusal must come with a
 * status and a message that srv_error_json can print; an accepted request must hold what its
 * contract promises (limits kept, every image and audio clip non-empty, every clip's declared
 * seconds within the limits, every stop string non-empty). input_audio parts reach the audio
 * header probe (libsndfile, our WAV and Ogg header checks).
 */
#include "server/request.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    srv_limits limits = {.media_root = NULL, .max_images = 4, .max_image_bytes = 1 << 16, .max_stop = 4, .vocab_size = 1000,
                         .max_audio = 2, .audio = {.max_bytes = 1 << 16, .max_seconds = 60}, .max_request_audio_seconds = 90};
    ts_sampling_params_default(&limits.defaults);
    srv_endpoint endpoint = data[0] & 1 ? SRV_COMPLETIONS : SRV_CHAT;
    srv_request req;
    srv_error err = {0};
    if (srv_request_parse(endpoint, (const char *)data + 1, size - 1, &limits, &req, &err) != 0) {
        char *json = srv_error_json(&err);
        if (err.status < 400 || err.status > 599 || !err.message[0] || !json) abort();
        free(json);
        return 0;
    }
    if (req.n_images > limits.max_images || req.n_stop > limits.max_stop || req.top_logprobs < 0 || req.top_logprobs > 20) abort();
    if (endpoint == SRV_CHAT ? !req.messages_json : !req.prompt) abort();
    for (int i = 0; i < req.n_images; i++)
        if (!req.images[i].bytes || req.images[i].len == 0 || req.images[i].len > limits.max_image_bytes) abort();
    double seconds = 0;
    for (int i = 0; i < req.n_audio; i++) {
        const srv_audio_source *a = &req.audio[i];
        if (!a->bytes || a->len == 0 || a->len > limits.audio.max_bytes || a->info.rate <= 0 || a->info.channels <= 0 ||
            a->seconds > limits.audio.max_seconds)
            abort();
        seconds += a->seconds;
    }
    if (req.n_audio > limits.max_audio || seconds > limits.max_request_audio_seconds) abort();
    for (int i = 0; i < req.n_stop; i++)
        if (!req.stop[i] || !req.stop[i][0]) abort();
    srv_request_free(&req);
    return 0;
}
