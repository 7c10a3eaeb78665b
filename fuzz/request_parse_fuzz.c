/* request_parse_fuzz.c — libFuzzer target: arbitrary bytes as an OpenAI request body.
 *
 * The first byte picks the endpoint (chat or completions), the rest is the body, fed to
 * srv_request_parse with file:// refused (no media root: the fuzzer never reads files). Any
 * outcome is fine; a crash, a sanitizer report or a leak is a bug. A refusal must come with a
 * status and a message that srv_error_json can print; an accepted request must hold what its
 * contract promises (limits kept, every image non-empty, every stop string non-empty).
 */
#include "server/request.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    srv_limits limits = {.media_root = NULL, .max_images = 4, .max_image_bytes = 1 << 16, .max_stop = 4, .vocab_size = 1000};
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
    for (int i = 0; i < req.n_stop; i++)
        if (!req.stop[i] || !req.stop[i][0]) abort();
    srv_request_free(&req);
    return 0;
}
