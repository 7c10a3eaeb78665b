/* exchange.c — a completion's worker thread and its connection's side. See exchange.h.
 *
 * Lock order: a job's mutex, then the exchange's. The connection side takes only the exchange's.
 */
#include "server/exchange.h"
#include "base/buf.h"
#include "server/response.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WAIT_MS 20

struct srv_exchange {
    srv_server *s;
    struct MHD_Connection *c;
    int fd;
    srv_endpoint endpoint;
    char *body;
    size_t len;

    pthread_mutex_t mu; /* guards what follows */
    int refs;           /* the worker, the connection, and a stream's response */
    bool suspended;     /* the connection waits for the worker (its socket is ours to poll) */
    bool closed;        /* the connection is gone */
    bool ready;         /* the first answer is here: */
    int status;         /* 0: the client left before it, nothing to send */
    char *reply;        /* a whole body (owned until taken), or … */
    bool stream;        /* … a stream of pieces: */
    ts_buf out;         /* pieces not yet read by the connection, from out_at on */
    size_t out_at;
    bool ended, failed; /* every piece is in `out`; the stream broke off */
    bool direct;        /* the client half-closed before its answer: the worker writes it itself */
    bool probed;        /* its input ended and a 102 went out to see whether it still reads */
};

/* A piece that failed to build (out of memory) stands as an empty one: put() then refuses nothing. */
static char *or_empty(char *piece) { return piece ? piece : strdup(""); }

static void release(srv_exchange *ex)
{
    pthread_mutex_lock(&ex->mu);
    bool last = --ex->refs == 0;
    pthread_mutex_unlock(&ex->mu);
    if (!last) return;
    pthread_mutex_destroy(&ex->mu);
    free(ex->body);
    free(ex->reply);
    ts_buf_fini(&ex->out);
    free(ex);
}

/* Exchange mutex held: lets the connection run again, unless it is gone or already running. */
static void wake_locked(srv_exchange *ex)
{
    if (ex->suspended && !ex->closed) {
        ex->suspended = false;
        MHD_resume_connection(ex->c);
    }
}

/* The client shut down its sending side (and only that) while the connection is suspended. */
static bool half_closed(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN | POLLRDHUP};
    return fd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & POLLRDHUP) && !(p.revents & (POLLHUP | POLLERR | POLLNVAL));
}

/* Writes all of buf to the suspended connection's socket (non-blocking: waits for room up to the
 * idle timeout); false when the client is gone. */
static bool write_all(srv_exchange *ex, const char *buf, size_t n)
{
    while (n) {
        ssize_t k = send(ex->fd, buf, n, MSG_NOSIGNAL);
        if (k > 0) {
            buf += k, n -= (size_t)k;
            continue;
        }
        if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
        struct pollfd p = {.fd = ex->fd, .events = POLLOUT};
        if (poll(&p, 1, ex->s->opt.idle_timeout_s * 1000) <= 0 || (p.revents & (POLLHUP | POLLERR | POLLNVAL))) return false;
    }
    return true;
}

/* libmicrohttpd 0.9.75 reads a resumed connection before it answers, and a read of the end of a
 * half-closed client's input closes it unanswered. So the answer to a client that half-closed
 * (`nc -N`, shutdown(SHUT_WR)) is written here, by the worker, while the connection is still
 * suspended: the status line and headers (Connection: close, the body delimited by the close),
 * then the body, or the stream's pieces as they come (put()); the connection is resumed only
 * when everything is written, to be closed. */
static bool write_head(srv_exchange *ex, int status, const char *type, const char *body)
{
    char head[512];
    const char *retry = status == 429 ? "Retry-After: 1\r\n" : status == 503 ? "Retry-After: 5\r\n" : "";
    const char *reason = MHD_get_reason_phrase_for((unsigned)status);
    int n = body ? snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%sConnection: close\r\n\r\n",
                            status, reason, type, strlen(body), retry)
                 : snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nCache-Control: no-cache\r\n%sConnection: close\r\n\r\n",
                            status, reason, type, retry);
    srv_metrics_request(ex->s->metrics, ex->endpoint == SRV_CHAT ? "chat" : "completions", status);
    return write_all(ex, head, (size_t)n) && (!body || write_all(ex, body, strlen(body)));
}

static void answer(srv_exchange *ex, int status, char *reply, bool stream)
{
    pthread_mutex_lock(&ex->mu);
    if (status && ex->suspended && !ex->closed && half_closed(ex->fd)) {
        ex->direct = true;
        bool ok = write_head(ex, status, stream ? "text/event-stream" : "application/json", stream ? NULL : reply ? reply : "");
        free(reply);
        if (stream && ok) { /* the pieces follow through put(); resumed at the stream's end */
            pthread_mutex_unlock(&ex->mu);
            return;
        }
        status = 0, reply = NULL, stream = false; /* nothing left for libmicrohttpd to send */
    }
    ex->ready = true, ex->status = status, ex->reply = reply, ex->stream = stream;
    if (stream) ex->refs++; /* the stream's response holds one */
    wake_locked(ex);
    pthread_mutex_unlock(&ex->mu);
}

/* The socket failed or was closed in both directions (a reset, or our own shutdown). A client
 * that only shut down its sending side (POLLRDHUP alone) still reads: it is answered. */
static bool socket_gone(int fd)
{
    if (fd < 0) return false;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL));
}

/* A client whose input has ended either half-closed (it still reads) or closed its socket (it
 * does not), and only a write tells which: once, an interim `102 Processing` (HTTP/1.1 clients
 * skip 1xx responses) goes out before the answer; a closed socket answers it with a reset, which
 * the next poll sees. */
static bool client_gone(srv_exchange *ex)
{
    pthread_mutex_lock(&ex->mu);
    /* The socket is ours to poll only while the connection is suspended: it cannot close then. */
    bool gone = ex->closed || (ex->suspended && socket_gone(ex->fd));
    if (!gone && ex->suspended && !ex->probed && !ex->direct && half_closed(ex->fd)) {
        static const char interim[] = "HTTP/1.1 102 Processing\r\n\r\n";
        ex->probed = true;
        gone = !write_all(ex, interim, sizeof(interim) - 1);
    }
    pthread_mutex_unlock(&ex->mu);
    return gone;
}

/* Waits (job mutex held) until ready() or the client leaves; false when it left (job cancelled). */
static bool wait_job(srv_exchange *ex, srv_job *job, bool (*ready)(const srv_job *, size_t), size_t arg)
{
    while (!ready(job, arg)) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += WAIT_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&job->cv, &job->mu, &until);
        if (!ready(job, arg) && client_gone(ex)) {
            atomic_store(&job->cancelled, true);
            return false;
        }
    }
    return true;
}

static bool ended(const srv_job *job, size_t unused)
{
    (void)unused;
    return job->state == SRV_JOB_DONE || job->state == SRV_JOB_FAILED;
}
static bool more_than(const srv_job *job, size_t sent) { return job->n_events > sent || ended(job, 0); }

static bool printable(const srv_job *job, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (job->events[i].len || job->events[i].has_logprob) return true;
    return false;
}

/* Appends a piece (taken) for the connection; false when it is gone or memory ran out. */
static bool put(srv_exchange *ex, char *piece)
{
    size_t n = strlen(piece);
    pthread_mutex_lock(&ex->mu);
    bool ok = !ex->closed;
    if (ok && ex->direct) {
        ok = write_all(ex, piece, n);
        pthread_mutex_unlock(&ex->mu);
        free(piece);
        return ok;
    }
    if (ok) ok = ts_buf_append(&ex->out, piece, n);
    if (ok) wake_locked(ex);
    pthread_mutex_unlock(&ex->mu);
    free(piece);
    return ok;
}

/* The stream after its status: role, tokens as they come, finish, usage, [DONE]. */
static void stream_pieces(srv_exchange *ex, srv_job *job, const srv_reply *reply)
{
    bool ok = job->req.endpoint != SRV_CHAT || put(ex, or_empty(srv_reply_chunk_role(reply)));
    size_t sent = 0;
    bool failed_job = false;
    while (ok) {
        char *piece = NULL;
        pthread_mutex_lock(&job->mu);
        if (!wait_job(ex, job, more_than, sent)) {
            pthread_mutex_unlock(&job->mu);
            ok = false;
            break;
        }
        bool last = false;
        if (job->n_events > sent) {
            piece = printable(job, sent, job->n_events) ? srv_reply_chunk_events(reply, sent, job->n_events) : strdup("");
            sent = job->n_events;
        } else if (job->state == SRV_JOB_FAILED) {
            /* The status is already sent: the error travels as an event, as OpenAI's servers do. */
            char *e = srv_error_json(&job->error);
            size_t n = e ? strlen(e) + 16 : 0;
            if ((piece = e ? malloc(n) : NULL)) snprintf(piece, n, "data: %s\n\n", e);
            free(e);
            failed_job = last = true;
        } else {
            last = true;
        }
        pthread_mutex_unlock(&job->mu);
        if (piece) ok = put(ex, piece);
        else if (!last) ok = false;
        if (last) break;
    }
    if (ok && !failed_job) ok = put(ex, or_empty(srv_reply_chunk_finish(reply)));
    if (ok && !failed_job && job->req.include_usage) ok = put(ex, or_empty(srv_reply_chunk_usage(reply)));
    if (ok) ok = put(ex, strdup("data: [DONE]\n\n"));
    if (!ok) atomic_store(&job->cancelled, true);
    pthread_mutex_lock(&ex->mu);
    ex->ended = true, ex->failed = !ok;
    if (ex->direct) ex->ready = true, ex->status = 0; /* all written: libmicrohttpd closes it */
    wake_locked(ex);
    pthread_mutex_unlock(&ex->mu);
}

static void answer_error(srv_exchange *ex, const srv_error *err) { answer(ex, err->status, srv_error_json(err), false); }

static void *work(void *arg)
{
    srv_exchange *ex = arg;
    srv_server *s = ex->s;
    srv_error err = {0};
    srv_job *job = srv_job_create();
    if (!job) {
        srv_unreserve(s);
        answer_error(ex, &(srv_error){.status = 500, .message = "out of memory"});
        goto out;
    }
    job->serial = atomic_fetch_add(&s->serial, 1);
    srv_prepare_begin(s);
    int rc = srv_request_parse(ex->endpoint, ex->body, ex->len, &s->limits, &job->req, &err);
    free(ex->body);
    ex->body = NULL;
    if (!rc) rc = srv_prepare(s, job, &err);
    srv_prepare_end(s);
    int64_t cost;
    if (!rc && job->req.n_images && !(rc = srv_media_cost(s, job, &cost, &err))) {
        bool light = srv_decode_gate_enter(&s->gate, cost);
        rc = srv_media_prepare(s, job, &err);
        srv_decode_gate_leave(&s->gate, light);
    }
    if (!rc) rc = srv_submit(s, job, &err);
    srv_unreserve(s);
    if (rc) {
        answer_error(ex, &err);
        goto out;
    }
    pthread_mutex_lock(&job->mu);
    bool stay = job->req.stream ? wait_job(ex, job, more_than, 0) : wait_job(ex, job, ended, 0);
    if (!stay) { /* the client left: nobody to answer; counted as nginx counts it */
        pthread_mutex_unlock(&job->mu);
        srv_metrics_request(s->metrics, ex->endpoint == SRV_CHAT ? "chat" : "completions", 499);
        answer(ex, 0, NULL, false);
        goto out;
    }
    if (job->state == SRV_JOB_FAILED) {
        err = job->error;
        pthread_mutex_unlock(&job->mu);
        answer_error(ex, &err);
        goto out;
    }
    srv_reply reply;
    srv_reply_init(&reply, s, job);
    if (!job->req.stream) {
        char *body = srv_reply_complete(&reply);
        pthread_mutex_unlock(&job->mu);
        if (body) answer(ex, 200, body, false);
        else answer_error(ex, &(srv_error){.status = 500, .message = "out of memory"});
        goto out;
    }
    pthread_mutex_unlock(&job->mu);
    answer(ex, 200, NULL, true);
    stream_pieces(ex, job, &reply);
out:
    srv_job_release(job);
    release(ex);
    srv_worker_exit(s);
    return NULL;
}

srv_exchange *srv_exchange_start(srv_server *s, struct MHD_Connection *c, srv_endpoint endpoint, char *body, size_t len)
{
    srv_exchange *ex = calloc(1, sizeof(*ex));
    if (!ex) { /* the same contract as a failed thread: suspended and resumed, answered next call */
        free(body);
        MHD_suspend_connection(c);
        MHD_resume_connection(c);
        return NULL;
    }
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    *ex = (srv_exchange){.s = s, .c = c, .fd = info ? info->connect_fd : -1, .endpoint = endpoint, .body = body, .len = len,
                         .refs = 2, .suspended = true};
    pthread_mutex_init(&ex->mu, NULL);
    /* Suspended before the worker can resume it; the worker may answer before this returns. */
    MHD_suspend_connection(c);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, (size_t)1 << 20);
    srv_worker_enter(s);
    pthread_t t;
    bool started = pthread_create(&t, &attr, work, ex) == 0;
    pthread_attr_destroy(&attr);
    if (!started) {
        srv_worker_exit(s);
        MHD_resume_connection(c);
        ex->refs = 1;
        release(ex);
        return NULL;
    }
    return ex;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    srv_exchange *ex = cls;
    (void)pos;
    pthread_mutex_lock(&ex->mu);
    ssize_t n;
    if (ex->out_at < ex->out.len) {
        size_t k = ex->out.len - ex->out_at < max ? ex->out.len - ex->out_at : max;
        memcpy(buf, ex->out.data + ex->out_at, k);
        ex->out_at += k;
        if (ex->out_at == ex->out.len) ex->out_at = ex->out.len = 0;
        n = (ssize_t)k;
    } else if (ex->ended) {
        n = ex->failed ? MHD_CONTENT_READER_END_WITH_ERROR : MHD_CONTENT_READER_END_OF_STREAM;
    } else { /* nothing yet: the worker resumes the connection with the next piece */
        ex->suspended = true;
        MHD_suspend_connection(ex->c);
        n = 0;
    }
    pthread_mutex_unlock(&ex->mu);
    return n;
}

static void stream_free(void *cls) { release(cls); }

struct MHD_Response *srv_exchange_response(srv_exchange *ex, int *status)
{
    pthread_mutex_lock(&ex->mu);
    *status = ex->status;
    char *reply = ex->reply;
    bool stream = ex->stream;
    ex->reply = NULL;
    pthread_mutex_unlock(&ex->mu);
    if (!*status) return NULL;
    if (stream) {
        struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, stream_read, ex, stream_free);
        if (!r) stream_free(ex);
        else MHD_add_response_header(r, "Content-Type", "text/event-stream"), MHD_add_response_header(r, "Cache-Control", "no-cache");
        return r;
    }
    if (!reply) return NULL;
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(reply), reply, MHD_RESPMEM_MUST_FREE);
    if (!r) free(reply);
    else MHD_add_response_header(r, "Content-Type", "application/json");
    return r;
}

void srv_exchange_detach(srv_exchange *ex)
{
    pthread_mutex_lock(&ex->mu);
    ex->closed = true;
    pthread_mutex_unlock(&ex->mu);
    release(ex);
}
