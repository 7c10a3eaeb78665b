/* job.h — one request on its way through the server, shared by its connection thread and the
 * engine threads (media stage, scheduler).
 *
 *   queued (media stage or ready queue) → running (a slot: prefill chunks, decode steps)
 *          → done | failed
 *
 * The connection thread owns the request's lifetime; the engine appends events (one per
 * generated token, with the text it released) and finally the outcome, under the job's mutex,
 * and signals. A disconnect sets `cancelled`; the scheduler drops the job at its next step and
 * frees its slot state. Both sides hold a reference; the last srv_job_release frees everything
 * the job owns: request, prompt ids, media inputs, events.
 */
#ifndef TS_SERVER_JOB_H
#define TS_SERVER_JOB_H

#include "server/request.h"
#include "tessera.h"

#include <pthread.h>
#include <stdatomic.h>

typedef enum srv_job_state { SRV_JOB_QUEUED = 0, SRV_JOB_RUNNING, SRV_JOB_DONE, SRV_JOB_FAILED } srv_job_state;

typedef struct srv_event {
    int32_t id;  /* the generated token, -1 for text released at the end */
    char *text;  /* owned; may be empty */
    size_t len;
    bool has_logprob;
    float logprob;
    int n_top;
    ts_token_logprob top[20];
} srv_event;

typedef struct srv_job {
    uint64_t serial;
    srv_request req;
    /* Filled before the job reaches a slot. */
    char *prompt_text;        /* rendered chat template (or the completions prompt), placeholders unexpanded */
    int32_t *ids;             /* the expanded prompt the model processes */
    size_t n_ids;
    ts_pixel_values *pixels;  /* media stage: preprocessed images, freed once encoded */
    int n_pixels;
    ts_mm_inputs mm;          /* image requests (mm.embeddings non-NULL): what the prefill takes, from
                                 ts_mm_inputs_build (embeddings, positions, rope delta, side inputs) */
    ts_prefix_media *media;   /* image requests: each image's digest and rows, for the prefix cache */
    int n_media;
    int64_t max_tokens;
    int64_t eos_ids[8];
    int n_eos_ids;
    double t_submit, t_first, t_last; /* seconds, monotonic */

    atomic_bool cancelled;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int refs;
    srv_job_state state;
    srv_error error;          /* SRV_JOB_FAILED */
    srv_event *events;
    size_t n_events, cap_events;
    ts_finish_reason finish_reason;
    size_t prompt_tokens, completion_tokens;
    size_t cached_tokens;     /* prompt tokens the prefix cache restored (set before the first event) */
} srv_job;

srv_job *srv_job_create(void); /* one reference; NULL when out of memory */
void srv_job_retain(srv_job *job);
void srv_job_release(srv_job *job);

/* Engine side, each under the job's mutex, each waking the connection thread. */
/* Appends a copy of *ev (its text copied too); false when out of memory. */
bool srv_job_push_event(srv_job *job, const srv_event *ev);
void srv_job_set_running(srv_job *job);
void srv_job_finish(srv_job *job, ts_finish_reason reason, size_t prompt_tokens, size_t completion_tokens);
/* param: the request field at fault, or "" */
void srv_job_fail(srv_job *job, int status, const char *param, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Frees what only the engine needed (media, embeddings) once they are consumed; _encoded only
 * what the tower made of the pixels (embeddings, positions, DeepStack rows), keeping the pixels. */
void srv_job_drop_inputs(srv_job *job);
void srv_job_drop_encoded(srv_job *job);

double srv_now(void);

#endif
