/* http.c — the HTTP face of the server on libmicrohttpd, one thread per connection (so a
 * handler may wait for its job).
 *
 * Each request: the body is gathered up to --max-request-bytes (413 beyond, said as soon as the
 * declared length shows it), /v1/ paths need the API key when one is set (401), then the route.
 * A completion is parsed, prepared and submitted; the connection thread then waits on its job,
 * polling its socket every WAIT_MS: a client that hangs up cancels the job, which the scheduler
 * drops at its next step. A stream starts (status 200) only once the first token exists, so every
 * error before it — a bad image, a prompt that does not fit — still gets its own status.
 */
#include "server/response.h"
#include "server/server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WAIT_MS 20

typedef struct conn {
    char *body;
    size_t len, cap;
    bool completion; /* counted in the server's in_flight until the reply is sent */
    bool too_large;  /* a body without a declared length passed the limit: the rest is discarded */
} conn;

typedef struct stream {
    srv_server *server;
    srv_job *job;
    srv_reply reply;
    int fd;
    int phase; /* 0 role, 1 tokens, 2 finish, 3 usage, 4 [DONE], 5 end */
    size_t sent;
    char *pending;
    size_t pending_len, pending_at;
} stream;

static const char *endpoint_label(const char *url)
{
    if (!strcmp(url, "/v1/chat/completions")) return "chat";
    if (!strcmp(url, "/v1/completions")) return "completions";
    if (!strcmp(url, "/v1/models")) return "models";
    if (!strcmp(url, "/health")) return "health";
    if (!strcmp(url, "/metrics")) return "metrics";
    return "other";
}

static enum MHD_Result send_body(srv_server *s, struct MHD_Connection *c, const char *url, int status, char *body, const char *type)
{
    static const char oom[] = "{\"error\":{\"message\":\"out of memory\",\"type\":\"server_error\",\"param\":null,\"code\":\"500\"}}";
    struct MHD_Response *r = body ? MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE)
                                  : MHD_create_response_from_buffer(sizeof(oom) - 1, (void *)oom, MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    if (!body) status = 500;
    MHD_add_response_header(r, "Content-Type", type);
    enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    srv_metrics_request(s->metrics, endpoint_label(url), status);
    return ok;
}

static enum MHD_Result send_error(srv_server *s, struct MHD_Connection *c, const char *url, const srv_error *err)
{
    return send_body(s, c, url, err->status, srv_error_json(err), "application/json");
}

/* 405 with the Allow header HTTP asks for. */
static enum MHD_Result send_not_allowed(srv_server *s, struct MHD_Connection *c, const char *url, const char *method, const char *allow)
{
    srv_error err = {.status = 405};
    snprintf(err.message, sizeof(err.message), "%.16s is not allowed on %.200s (allowed: %s)", method, url, allow);
    char *body = srv_error_json(&err);
    struct MHD_Response *r = body ? MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE) : NULL;
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "application/json");
    MHD_add_response_header(r, "Allow", allow);
    enum MHD_Result ok = MHD_queue_response(c, 405, r);
    MHD_destroy_response(r);
    srv_metrics_request(s->metrics, endpoint_label(url), 405);
    return ok;
}

static int connection_fd(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/* The client has closed its end (or the socket failed). */
static bool hung_up(int fd)
{
    if (fd < 0) return false;
    struct pollfd p = {.fd = fd, .events = POLLRDHUP};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

/* Waits (job mutex held) until ready() or the client leaves; false when it left (job cancelled). */
static bool wait_job(srv_job *job, int fd, bool (*ready)(const srv_job *, size_t), size_t arg)
{
    while (!ready(job, arg)) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += WAIT_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&job->cv, &job->mu, &until);
        if (!ready(job, arg) && hung_up(fd)) {
            atomic_store(&job->cancelled, true);
            return false;
        }
    }
    return true;
}

static bool ended(const srv_job *job, size_t unused) { return job->state == SRV_JOB_DONE || job->state == SRV_JOB_FAILED; }
static bool more_than(const srv_job *job, size_t sent) { return job->n_events > sent || ended(job, 0); }

/* ------------------------------------------------------------------ streams */

static bool printable(const srv_job *job, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (job->events[i].len || job->events[i].has_logprob) return true;
    return false;
}

/* The next piece of the stream into st->pending; false at the end, or when the client left. */
static bool next_piece(stream *st, bool *failed)
{
    srv_job *job = st->job;
    *failed = false;
    for (;;) {
        char *piece = NULL;
        switch (st->phase) {
        case 0:
            st->phase = 1;
            if (job->req.endpoint != SRV_CHAT) continue;
            piece = srv_reply_chunk_role(&st->reply);
            break;
        case 1: {
            pthread_mutex_lock(&job->mu);
            if (!wait_job(job, st->fd, more_than, st->sent)) {
                pthread_mutex_unlock(&job->mu);
                *failed = true;
                return false;
            }
            if (job->n_events > st->sent) {
                if (printable(job, st->sent, job->n_events)) piece = srv_reply_chunk_events(&st->reply, st->sent, job->n_events);
                else piece = strdup("");
                st->sent = job->n_events;
            } else if (job->state == SRV_JOB_FAILED) {
                /* The status is already sent: the error travels as an event, as OpenAI's servers do. */
                char *e = srv_error_json(&job->error);
                size_t n = e ? strlen(e) + 16 : 0;
                piece = e ? malloc(n) : NULL;
                if (piece) snprintf(piece, n, "data: %s\n\n", e);
                free(e);
                st->phase = 4;
            } else {
                st->phase = 2;
                piece = strdup("");
            }
            pthread_mutex_unlock(&job->mu);
            break;
        }
        case 2:
            st->phase = 3;
            piece = srv_reply_chunk_finish(&st->reply);
            break;
        case 3:
            st->phase = 4;
            if (!job->req.include_usage) continue;
            piece = srv_reply_chunk_usage(&st->reply);
            break;
        case 4:
            st->phase = 5;
            piece = strdup("data: [DONE]\n\n");
            break;
        default: return false;
        }
        if (!piece) {
            *failed = true;
            return false;
        }
        if (!*piece) {
            free(piece);
            continue;
        }
        free(st->pending);
        st->pending = piece, st->pending_len = strlen(piece), st->pending_at = 0;
        return true;
    }
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    stream *st = cls;
    (void)pos;
    if (st->pending_at == st->pending_len) {
        bool failed;
        if (!next_piece(st, &failed)) return failed ? MHD_CONTENT_READER_END_WITH_ERROR : MHD_CONTENT_READER_END_OF_STREAM;
    }
    size_t n = st->pending_len - st->pending_at;
    if (n > max) n = max;
    memcpy(buf, st->pending + st->pending_at, n);
    st->pending_at += n;
    return (ssize_t)n;
}

static void stream_free(void *cls)
{
    stream *st = cls;
    if (st->phase < 5) atomic_store(&st->job->cancelled, true); /* the connection ended early */
    srv_job_release(st->job);
    free(st->pending);
    free(st);
}

/* ------------------------------------------------------------------ completions */

static enum MHD_Result completion(srv_server *s, struct MHD_Connection *c, const char *url, srv_endpoint endpoint, const conn *cn)
{
    srv_error err = {0};
    srv_job *job = srv_job_create();
    if (!job) return send_error(s, c, url, &(srv_error){.status = 500, .message = "out of memory"});
    job->serial = atomic_fetch_add(&s->serial, 1);
    if (srv_request_parse(endpoint, cn->body ? cn->body : "", cn->len, &s->limits, &job->req, &err) || srv_prepare(s, job, &err) ||
        srv_submit(s, job, &err)) {
        srv_job_release(job);
        return send_error(s, c, url, &err);
    }
    int fd = connection_fd(c);
    pthread_mutex_lock(&job->mu);
    bool stay = job->req.stream ? wait_job(job, fd, more_than, 0) : wait_job(job, fd, ended, 0);
    if (!stay) { /* the client left: nobody to answer; counted as nginx counts it */
        pthread_mutex_unlock(&job->mu);
        srv_job_release(job);
        srv_metrics_request(s->metrics, endpoint_label(url), 499);
        return MHD_NO;
    }
    if (job->state == SRV_JOB_FAILED) {
        err = job->error;
        pthread_mutex_unlock(&job->mu);
        srv_job_release(job);
        return send_error(s, c, url, &err);
    }
    srv_reply reply;
    srv_reply_init(&reply, s, job);
    if (!job->req.stream) {
        char *body = srv_reply_complete(&reply);
        pthread_mutex_unlock(&job->mu);
        srv_job_release(job);
        return send_body(s, c, url, 200, body, "application/json");
    }
    pthread_mutex_unlock(&job->mu);
    stream *st = calloc(1, sizeof(*st));
    struct MHD_Response *r = st ? MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, stream_read, st, stream_free) : NULL;
    if (!r) {
        atomic_store(&job->cancelled, true);
        srv_job_release(job);
        free(st);
        return MHD_NO;
    }
    *st = (stream){.server = s, .job = job, .reply = reply, .fd = fd};
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "Cache-Control", "no-cache");
    enum MHD_Result ok = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    srv_metrics_request(s->metrics, endpoint_label(url), 200);
    return ok;
}

/* ------------------------------------------------------------------ routing */

static bool authorized(const srv_server *s, struct MHD_Connection *c)
{
    if (!s->opt.api_key) return true;
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    return h && !strncmp(h, "Bearer ", 7) && !strcmp(h + 7, s->opt.api_key);
}

static enum MHD_Result route(srv_server *s, struct MHD_Connection *c, const char *url, const char *method, conn *cn)
{
    /* HEAD is GET without the body; libmicrohttpd drops the body itself. */
    bool get = !strcmp(method, "GET") || !strcmp(method, "HEAD"), post = !strcmp(method, "POST");
    if (!strncmp(url, "/v1/", 4) && !authorized(s, c))
        return send_error(s, c, url, &(srv_error){.status = 401, .message = "a valid API key is required: Authorization: Bearer <key>"});
    if (!strcmp(url, "/health")) {
        if (!get) return send_not_allowed(s, c, url, method, "GET, HEAD");
        pthread_mutex_lock(&s->mu);
        bool stopping = s->stopping;
        pthread_mutex_unlock(&s->mu);
        return send_body(s, c, url, stopping ? 503 : 200, strdup(stopping ? "{\"status\":\"stopping\"}" : "{\"status\":\"ok\"}"),
                         "application/json");
    }
    if (!strcmp(url, "/metrics")) {
        if (!get) return send_not_allowed(s, c, url, method, "GET, HEAD");
        return send_body(s, c, url, 200, srv_metrics_render(s->metrics), "text/plain; version=0.0.4");
    }
    if (!strcmp(url, "/v1/models")) {
        if (!get) return send_not_allowed(s, c, url, method, "GET, HEAD");
        return send_body(s, c, url, 200, srv_models_json(s, false), "application/json");
    }
    if (!strncmp(url, "/v1/models/", 11)) {
        if (!get) return send_not_allowed(s, c, url, method, "GET, HEAD");
        if (!strcmp(url + 11, s->model_name)) return send_body(s, c, url, 200, srv_models_json(s, true), "application/json");
        srv_error err = {.status = 404};
        snprintf(err.param, sizeof(err.param), "model");
        snprintf(err.message, sizeof(err.message), "no model %.200s: this server serves %s", url + 11, s->model_name);
        return send_error(s, c, url, &err);
    }
    if (!strcmp(url, "/v1/chat/completions") || !strcmp(url, "/v1/completions")) {
        if (!post) return send_not_allowed(s, c, url, method, "POST");
        cn->completion = true;
        atomic_fetch_add(&s->in_flight, 1);
        return completion(s, c, url, !strcmp(url, "/v1/completions") ? SRV_COMPLETIONS : SRV_CHAT, cn);
    }
    srv_error err = {.status = 404};
    snprintf(err.message, sizeof(err.message), "no route %.16s %.200s", method, url);
    return send_error(s, c, url, &err);
}

static enum MHD_Result too_large(srv_server *s, struct MHD_Connection *c, const char *url)
{
    srv_error err = {.status = 413};
    snprintf(err.message, sizeof(err.message), "the request body is larger than this server's limit of %zu bytes (--max-request-bytes)",
             s->opt.max_request_bytes);
    return send_error(s, c, url, &err);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method, const char *version,
                              const char *upload, size_t *upload_size, void **con_cls)
{
    srv_server *s = cls;
    conn *cn = *con_cls;
    if (!cn) {
        if (!(cn = calloc(1, sizeof(*cn)))) return MHD_NO;
        *con_cls = cn;
        /* Answered before the body is read: libmicrohttpd then closes the connection unread. */
        const char *declared = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        if (declared && strtoull(declared, NULL, 10) > s->opt.max_request_bytes) return too_large(s, c, url);
        return MHD_YES;
    }
    if (*upload_size) { /* a chunked body declares no length: counted as it comes, answered at its end */
        if (cn->too_large || cn->len + *upload_size > s->opt.max_request_bytes) {
            cn->too_large = true;
            *upload_size = 0;
            return MHD_YES;
        }
        if (cn->len + *upload_size + 1 > cn->cap) {
            size_t cap = (cn->len + *upload_size + 1) * 2;
            if (cap > s->opt.max_request_bytes + 1) cap = s->opt.max_request_bytes + 1;
            char *grown = realloc(cn->body, cap);
            if (!grown) return MHD_NO;
            cn->body = grown, cn->cap = cap;
        }
        memcpy(cn->body + cn->len, upload, *upload_size);
        cn->len += *upload_size;
        *upload_size = 0;
        return MHD_YES;
    }
    if (cn->too_large) return too_large(s, c, url);
    return route(s, c, url, method, cn);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode code)
{
    srv_server *s = cls;
    conn *cn = *con_cls;
    if (!cn) return;
    if (cn->completion) atomic_fetch_sub(&s->in_flight, 1);
    free(cn->body);
    free(cn);
    *con_cls = NULL;
}

ts_status srv_http_start(srv_server *s, ts_error *err)
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s->opt.port)};
    const char *host = s->opt.host ? s->opt.host : "127.0.0.1";
    if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
        if (err) err->status = TS_ERR_INVALID_ARGUMENT, snprintf(err->message, sizeof(err->message), "--host %s: not an IPv4 address", host);
        return TS_ERR_INVALID_ARGUMENT;
    }
    s->httpd = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG, 0, NULL, NULL, handle,
                                s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_CONNECTION_LIMIT, (unsigned)512,
                                MHD_OPTION_NOTIFY_COMPLETED, completed, s, MHD_OPTION_END);
    if (!s->httpd) {
        if (err)
            err->status = TS_ERR_IO,
            snprintf(err->message, sizeof(err->message), "cannot listen on %s:%d (in use, or not allowed)", host, s->opt.port);
        return TS_ERR_IO;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->httpd, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : s->opt.port;
    return TS_OK;
}

void srv_http_quiesce(srv_server *s)
{
    if (s->httpd) MHD_quiesce_daemon(s->httpd);
}

/* Every completion still being answered gets to finish its reply (their jobs have all ended by
 * now: failed with 503 or done) before the connections close; a client that stopped reading
 * cannot hold the stop for more than STOP_GRACE_MS. */
#define STOP_GRACE_MS 5000

void srv_http_stop(srv_server *s)
{
    if (!s->httpd) return;
    for (int waited = 0; atomic_load(&s->in_flight) > 0 && waited < STOP_GRACE_MS; waited += WAIT_MS) {
        struct timespec pause = {0, WAIT_MS * 1000000L};
        nanosleep(&pause, NULL);
    }
    MHD_stop_daemon(s->httpd);
    s->httpd = NULL;
}
