/* server.h — the OpenAI-compatible server: one model, a fixed set of slots, three stages.
 *
 *   HTTP (libmicrohttpd's thread pool on epoll, http.c): headers checked, bodies read into a
 *       bounded buffer; a completion gets a place in the queue, then a worker (exchange.c) that
 *       parses, renders and tokenizes it (prepare_threads at once), admits it and waits for events
 *   media stage: each request's worker decodes and preprocesses its images (cheapest first, see
 *       decode_gate.h); one thread with its own context encodes the images of every waiting
 *       request in one tower call, then builds each request's prompt embeddings
 *   scheduler (one thread, the model's context): moves ready jobs into free slots, prefills in
 *       chunks between batched decode steps over every decoding slot, drops cancelled jobs
 *
 * A completion counts against `queue` from the end of its body (reserved) until it takes a slot;
 * more than that is a 429, answered before its body is parsed. The life of the server (create,
 * wait, destroy) is public: ts_server_* in tessera.h.
 */
#ifndef TS_SERVER_SERVER_H
#define TS_SERVER_SERVER_H

#include "server/decode_gate.h"
#include "server/job.h"
#include "server/metrics.h"
#include "tessera.h"

typedef ts_server_options srv_options;

/* The scheduler keeps its per-step arrays (tokens, sequences, the jobs it takes) on the stack, one
 * entry a slot, and the media stage one token count an image: these bound --slots and
 * --max-images (the CLI's ranges say the same). */
#define SRV_MAX_SLOTS 64
#define SRV_MAX_IMAGES 64
#define SRV_MAX_AUDIO 64

/* ---- shared by the stages */

typedef ts_server srv_server;

typedef struct srv_queue {
    srv_job **items;
    int head, count, cap;
} srv_queue;

/* Callers hold the server's mutex. pop: NULL when empty; push: false when out of memory. */
srv_job *srv_queue_pop(srv_queue *q);
bool srv_queue_push(srv_queue *q, srv_job *job);

struct ts_server {
    srv_options opt;
    char model_name[128];
    ts_context *ctx, *media_ctx;
    ts_model *model;
    ts_tokenizer *tok;
    ts_chat_template *tmpl; /* NULL: the model has no chat template (chat requests get a 400) */
    ts_preprocessor_config pre;
    ts_image_encoder *encoder; /* the engine's image tower on media_ctx; NULL with a bundle */
    ts_bundle *bundle;         /* --bundle: the language model runs through its entries … */
    ts_bundle_slots *bundle_slots; /* … in its largest bucket's decode slots */
    ts_bundle *media_bundle;   /* the same bundle opened on media_ctx for vision.main; NULL without one */
    int64_t prefill_limit;     /* the most prompt tokens one prefill takes (0: no limit: chunks) */
    srv_metrics *metrics;
    int64_t capacity, vocab;
    size_t max_token_bytes;    /* the longest token's text: a prompt of B bytes holds ≥ B / (24 × this) tokens */
    int64_t eos_ids[8];
    int n_eos_ids;
    ts_sampling_params defaults;
    srv_limits limits;
    atomic_uint_fast64_t serial;

    pthread_mutex_t mu; /* guards the queues, `admitted`, `stopping` */
    pthread_cond_t media_cv, sched_cv, stop_cv;
    srv_queue media_q, ready_q;
    int admitted;
    bool stopping, stop_requested;
    pthread_t media_thread, sched_thread;
    bool media_started, sched_started;
    struct MHD_Daemon *httpd;
    int port;
    atomic_int in_flight; /* completions whose reply is not yet fully sent */
    int reserved;         /* (under mu) completions being parsed and prepared: they count against --queue */
    int preparing;        /* (under mu) of those, the ones parsing/templating/tokenizing now (≤ prepare_threads) */
    pthread_cond_t prepare_cv;
    atomic_int workers;   /* exchange worker threads alive */
    srv_decode_gate gate; /* who decodes images next */
    struct srv_conn_guard *guard; /* http.c: connection timeouts */
};

/* Whether the server admits images: the one predicate behind /v1/models and admission: the
 * model has an image path and this server has a tower to run it (the engine's, or a bundle's
 * vision.main). */
bool srv_accepts_images(const srv_server *s);
/* Whether the server admits audio: ts_model_supported_modalities says so (the family's whole
 * audio path exists: features, encoder; models/audio_path.h; Phi-4-multimodal) and the engine
 * runs the slots (a bundle has no audio entry). The media stage encodes the clips (media.c). */
bool srv_accepts_audio(const srv_server *s);
/* A place in the queue for a completion whose body has arrived, before any of it is parsed: 429
 * when admitted + reserved fill --queue, 503 when stopping. srv_unreserve once it was submitted
 * (or refused). */
int srv_reserve(srv_server *s, srv_error *err);
void srv_unreserve(srv_server *s);
/* Around parse + template + tokenize: at most prepare_threads run at once (the rest wait here). */
void srv_prepare_begin(srv_server *s);
void srv_prepare_end(srv_server *s);
/* Exchange worker threads, counted so the server's stop waits for them. */
void srv_worker_enter(srv_server *s);
void srv_worker_exit(srv_server *s);
/* Admission into the queue (429 when full, 503 when stopping); the job goes to the media stage
 * when it has images, else straight to the scheduler. Takes a reference on success. */
int srv_submit(srv_server *s, srv_job *job, srv_error *err);
/* The prompt of a parsed request: renders the chat template (or takes the completions prompt);
 * text-only prompts are tokenized and admitted by capacity here. */
int srv_prepare(srv_server *s, srv_job *job, srv_error *err);
/* Capacity check of an expanded prompt; fills job->max_tokens. */
int srv_admit_tokens(const srv_server *s, srv_job *job, srv_error *err);

/* An image request's cost, the pixels its images' headers declare (nothing decoded), held
 * against --max-request-pixels (400 naming the image that crosses it). */
int srv_media_cost(srv_server *s, const srv_job *job, int64_t *pixels, srv_error *err);
/* Decode, preprocess, expand, tokenize and admit by capacity: an image request before the tower. */
int srv_media_prepare(srv_server *s, srv_job *job, srv_error *err);

/* The tower rows of images (the engine's encoder, or the bundle's vision.main), with the DeepStack
 * rows of towers that have them. */
ts_status srv_encode_images(srv_server *s, const ts_pixel_values *images, int n,
                            ts_encoded_media *out, ts_error *err);
void *srv_media_main(void *server);
void *srv_scheduler_main(void *server);
ts_status srv_http_start(srv_server *s, ts_error *err);
/* Stop accepting connections (open ones keep being served). */
void srv_http_quiesce(srv_server *s);
/* After every job has ended: lets the replies in progress finish, then closes everything. */
void srv_http_stop(srv_server *s);

#endif
