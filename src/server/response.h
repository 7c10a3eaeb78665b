/* response.h — OpenAI response documents from a job's events: the whole completion, and the
 * server-sent-event chunks of a stream. Every function returns an owned string (free()), NULL
 * only when out of memory. Callers hold the job's mutex while its events are read.
 */
#ifndef TS_SERVER_RESPONSE_H
#define TS_SERVER_RESPONSE_H

#include "server/server.h"

typedef struct srv_reply {
    const srv_server *server;
    const srv_job *job;
    char id[48];   /* "chatcmpl-…" / "cmpl-…" */
    long created;  /* Unix seconds */
} srv_reply;

void srv_reply_init(srv_reply *r, const srv_server *s, const srv_job *job);
/* The non-streaming body: every event's text joined, logprobs when asked, usage. */
char *srv_reply_complete(const srv_reply *r);
/* One "data: {…}\n\n" chunk: the role opening (chat), the text and logprobs of events[from, to),
 * the finish reason, the usage; "data: [DONE]\n\n" last. */
char *srv_reply_chunk_role(const srv_reply *r);
char *srv_reply_chunk_events(const srv_reply *r, size_t from, size_t to);
char *srv_reply_chunk_finish(const srv_reply *r);
char *srv_reply_chunk_usage(const srv_reply *r);
/* The models list, or (one) the model object alone (GET /v1/models/{id}). */
char *srv_models_json(const srv_server *s, bool one);

#endif
