/* request.h — an OpenAI request body, parsed and validated into plain C before anything runs.
 *
 * srv_request_parse reads a /v1/chat/completions or /v1/completions body (at most len bytes,
 * not NUL-terminated), checks every known field's type and range, loads each image's bytes
 * (data: URIs base64-decoded; file:// read only when it resolves under limits->media_root,
 * symlinks included; http(s) refused: no remote fetching), checks each input_audio part's format,
 * base64 and header against limits (input_audio.h: nothing decoded), and returns 0. On any problem it
 * returns -1 with *err = {400, the field, a message saying what and where}; nothing is left
 * allocated. Unknown fields are ignored. Decoding the images and clips is the media stage's job
 * (whether the model takes them at all is the server's question, asked after this parse).
 * (The image URLs are resolved by image_url.c; the error object is error.h's.)
 * Everything a srv_request points to is owned by it: srv_request_free.
 */
#ifndef TS_SERVER_REQUEST_H
#define TS_SERVER_REQUEST_H

#include "server/error.h"
#include "tessera.h"

typedef enum srv_endpoint { SRV_CHAT = 0, SRV_COMPLETIONS } srv_endpoint;

typedef struct srv_limits {
    const char *media_root;           /* file:// URLs must resolve under it; NULL refuses file:// */
    int max_images;                   /* images per request */
    size_t max_image_bytes;           /* encoded bytes per image */
    int max_audio;                    /* input_audio clips per request */
    ts_audio_limits audio;            /* per clip: encoded bytes, declared seconds, channels */
    double max_request_audio_seconds; /* the clips' declared seconds in all */
    int max_stop;                     /* stop strings per request */
    int64_t vocab_size;               /* logit_bias ids must be in [0, vocab_size) */
    ts_sampling_params defaults;      /* what an absent sampling field takes */
} srv_limits;

typedef struct srv_image_source {
    uint8_t *bytes; /* owned: the encoded file (JPEG, PNG, WebP, … — unchecked here) */
    size_t len;
    char where[64]; /* "messages[0].content[1]": for messages about this image later */
} srv_image_source;

typedef struct srv_audio_source {
    uint8_t *bytes;     /* owned: the encoded clip, its container the format the part named */
    size_t len;
    ts_audio_info info; /* what its header declares (probed against limits->audio) */
    double seconds;     /* declared: info.frames / info.rate (0 where MP3 or Ogg state no length) */
    char where[64];     /* "messages[0].content[1]" */
} srv_audio_source;

typedef struct srv_request {
    srv_endpoint endpoint;
    char *model;         /* the "model" field or NULL */
    /* chat: the messages as a JSON array for the chat template: roles system/user/assistant
     * ("developer" becomes "system"), content a string or parts where text parts stay
     * {"type":"text","text":…}, image parts become {"type":"image"} and input_audio parts
     * {"type":"audio"} in place */
    char *messages_json;
    char *prompt;        /* completions: the prompt text */
    srv_image_source *images; /* in prompt order */
    int n_images;
    srv_audio_source *audio;  /* input_audio clips, in prompt order, headers probed */
    int n_audio;
    bool stream;
    bool include_usage;  /* stream_options.include_usage */
    ts_sampling_params sampling; /* limits->defaults with the request's fields applied;
                                    logit_bias points into this struct's own copy */
    bool seed_given;
    int64_t max_tokens;  /* max_completion_tokens, else max_tokens; 0 when absent */
    char **stop;         /* owned strings, each non-empty */
    int n_stop;
    bool logprobs;       /* chat: logprobs true; completions: logprobs given (an integer) */
    int top_logprobs;    /* 0..20 */
    ts_image_budget budget; /* mm_processor_kwargs.{min,max}_pixels; 0 = not given */
    bool ignore_eos;     /* vLLM's extension */
    bool no_draft;       /* "speculative_decoding": false (our extension): plain decoding */
} srv_request;

int srv_request_parse(srv_endpoint endpoint, const char *body, size_t len, const srv_limits *limits, srv_request *out,
                      srv_error *err);
void srv_request_free(srv_request *req);

#endif
