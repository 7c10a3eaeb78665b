/* http.c — the HTTP face of the server on libmicrohttpd: a small pool of threads on epoll, so an
 * idle or slow socket costs a descriptor and a few KiB, never a thread.
 *
 * Each request, on its headers alone (nothing of the body is kept yet): the framing must be
 * unambiguous (guard.c: 400), /v1/ paths need the API key when one is set (401) and, on a keyless
 * loopback server, a local Host and an allowed Origin (403); a declared length beyond
 * --max-request-bytes is a 413. A refused request's body is read and thrown away, up to
 * LINGER_BYTES, before the error is sent, so a client still sending (Node's fetch does) receives
 * it instead of a broken pipe; with `Expect: 100-continue` it is sent at once instead.
 * An accepted body is gathered into a buffer bounded by --max-request-bytes. A completion then
 * takes a place in the queue (429 before anything is parsed) and is handed to its worker
 * (exchange.c) while its connection is suspended.
 *
 * Limits: --max-connections in all, --max-connections-per-ip each, libmicrohttpd's idle timeout,
 * and the header and body timeouts of conn_guard.c.
 */
#include "base/error.h"
#include "server/conn_guard.h"
#include "server/exchange.h"
#include "server/guard.h"
#include "server/response.h"
#include "server/server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define WAIT_MS 20
/* The most of a refused body read and discarded so that its client receives the error; beyond
 * it the error is sent at once and the connection closed. */
#define LINGER_BYTES ((size_t)256 << 20)
/* libmicrohttpd's threads; they only move bytes and route, so a few serve thousands of sockets. */
#define HTTP_THREADS 4
/* Descriptors the process keeps for itself beside the connections (model files, pipes, logs). */
#define FD_RESERVE 64

typedef struct conn {
    char *body; /* NUL-terminated */
    size_t len, cap;
    bool completion;     /* counted in the server's in_flight until the reply is sent */
    srv_error refused;   /* status != 0: answered once the body has been read and discarded */
    size_t discarded;
    srv_exchange *ex;    /* a completion handed to its worker */
} conn;

static const char *endpoint_label(const char *url)
{
    if (!strcmp(url, "/v1/chat/completions")) return "chat";
    if (!strcmp(url, "/v1/completions")) return "completions";
    if (!strcmp(url, "/v1/models")) return "models";
    if (!strcmp(url, "/health")) return "health";
    if (!strcmp(url, "/metrics")) return "metrics";
    return "other";
}

/* Queues r with status, the headers every reply of that status carries, and counts it. */
static enum MHD_Result queue(srv_server *s, struct MHD_Connection *c, const char *url, int status, struct MHD_Response *r, bool close)
{
    /* A client told to retry is told when: the queue drains in about a request's time. */
    if (status == 429) MHD_add_response_header(r, "Retry-After", "1");
    if (status == 503) MHD_add_response_header(r, "Retry-After", "5");
    if (close) MHD_add_response_header(r, "Connection", "close");
    enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    srv_metrics_request(s->metrics, endpoint_label(url), status);
    return ok;
}

static enum MHD_Result send_body_ex(srv_server *s, struct MHD_Connection *c, const char *url, int status, char *body, const char *type,
                                    const char *allow, bool close)
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
    if (allow) MHD_add_response_header(r, "Allow", allow);
    return queue(s, c, url, status, r, close);
}

static enum MHD_Result send_body(srv_server *s, struct MHD_Connection *c, const char *url, int status, char *body, const char *type)
{
    return send_body_ex(s, c, url, status, body, type, NULL, false);
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
    return send_body_ex(s, c, url, 405, srv_error_json(&err), "application/json", allow, false);
}

/* ------------------------------------------------------------------ routing */

static enum MHD_Result start_completion(srv_server *s, struct MHD_Connection *c, const char *url, srv_endpoint endpoint, conn *cn)
{
    srv_error err = {0};
    if (srv_reserve(s, &err)) return send_error(s, c, url, &err);
    char *body = cn->body ? cn->body : strdup("");
    cn->body = NULL;
    if (!body) {
        srv_unreserve(s);
        return send_error(s, c, url, &(srv_error){.status = 500, .message = "out of memory"});
    }
    cn->completion = true;
    atomic_fetch_add(&s->in_flight, 1);
    srv_conn_guard_phase(c, SRV_CONN_SERVING);
    if (!(cn->ex = srv_exchange_start(s, c, endpoint, body, cn->len))) {
        /* The connection was suspended and resumed again: the error goes out on the next call. */
        srv_unreserve(s);
        srv_fail(&cn->refused, 500, "", "cannot start the request's worker thread");
    }
    return MHD_YES;
}

static enum MHD_Result route(srv_server *s, struct MHD_Connection *c, const char *url, const char *method, conn *cn)
{
    /* HEAD is GET without the body; libmicrohttpd drops the body itself. */
    bool get = !strcmp(method, "GET") || !strcmp(method, "HEAD"), post = !strcmp(method, "POST");
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
        return start_completion(s, c, url, !strcmp(url, "/v1/completions") ? SRV_COMPLETIONS : SRV_CHAT, cn);
    }
    srv_error err = {.status = 404};
    snprintf(err.message, sizeof(err.message), "no route %.16s %.200s", method, url);
    return send_error(s, c, url, &err);
}

/* ------------------------------------------------------------------ headers */

typedef struct framing {
    const char *content_length[4], *transfer_encoding[4];
    int n_content_length, n_transfer_encoding;
} framing;

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    framing *f = cls;
    (void)kind;
    if (!value) value = "";
    if (!strcasecmp(key, "Content-Length") && f->n_content_length < 4) f->content_length[f->n_content_length++] = value;
    if (!strcasecmp(key, "Transfer-Encoding") && f->n_transfer_encoding < 4) f->transfer_encoding[f->n_transfer_encoding++] = value;
    return MHD_YES;
}

/* The checks on the headers alone; 0, or *err filled (with *at_once: answer before the body). */
static int check_headers(srv_server *s, struct MHD_Connection *c, const char *url, srv_error *err, bool *at_once)
{
    framing f = {0};
    MHD_get_connection_values(c, MHD_HEADER_KIND, collect, &f);
    *at_once = true; /* an ambiguous body cannot be read to its end: close after the error */
    if (srv_guard_framing(f.content_length, f.n_content_length, f.transfer_encoding, f.n_transfer_encoding, err)) return -1;
    unsigned long long declared = f.n_content_length ? strtoull(f.content_length[0], NULL, 10) : 0;
    const char *expect = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Expect");
    *at_once = (!f.n_transfer_encoding && !declared) || declared > LINGER_BYTES || (expect && !strcasecmp(expect, "100-continue"));
    if (!strncmp(url, "/v1/", 4)) {
        if (s->opt.api_key && !srv_guard_key_matches(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization"), s->opt.api_key))
            return srv_fail(err, 401, "", "a valid API key is required: Authorization: Bearer <key>");
        if (!s->opt.api_key && (s->opt.allowed_origins || srv_guard_is_loopback(s->opt.host)) &&
            srv_guard_origin(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host"),
                             MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin"), s->opt.allowed_origins, err))
            return -1;
    }
    if (declared > s->opt.max_request_bytes)
        return srv_fail(err, 413, "", "the request body (%llu bytes) is larger than this server's limit of %zu bytes (--max-request-bytes)",
                        declared, s->opt.max_request_bytes);
    return 0;
}

static enum MHD_Result send_refused(srv_server *s, struct MHD_Connection *c, const char *url, const srv_error *err, bool close)
{
    return send_body_ex(s, c, url, err->status, srv_error_json(err), "application/json", NULL, close);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method, const char *version,
                              const char *upload, size_t *upload_size, void **con_cls)
{
    srv_server *s = cls;
    conn *cn = *con_cls;
    (void)version;
    if (!cn) { /* the headers are in; nothing of the body is read yet */
        if (!(cn = calloc(1, sizeof(*cn)))) return MHD_NO;
        *con_cls = cn;
        srv_conn_guard_phase(c, SRV_CONN_BODY);
        bool at_once;
        if (check_headers(s, c, url, &cn->refused, &at_once)) {
            if (at_once) return send_refused(s, c, url, &cn->refused, true);
        }
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (!cn->refused.status && cn->len + n > s->opt.max_request_bytes) { /* chunked: no length was declared */
            srv_fail(&cn->refused, 413, "", "the request body is larger than this server's limit of %zu bytes (--max-request-bytes)",
                     s->opt.max_request_bytes);
            free(cn->body);
            cn->body = NULL, cn->len = cn->cap = 0;
        }
        if (cn->refused.status) { /* thrown away, up to a bound, so that the error reaches the client */
            cn->discarded += n;
            return cn->discarded > LINGER_BYTES ? send_refused(s, c, url, &cn->refused, true) : MHD_YES;
        }
        if (cn->len + n + 1 > cn->cap) {
            size_t cap = (cn->len + n + 1) * 2;
            if (cap > s->opt.max_request_bytes + 1) cap = s->opt.max_request_bytes + 1;
            char *grown = realloc(cn->body, cap);
            if (!grown) return MHD_NO;
            cn->body = grown, cn->cap = cap;
        }
        memcpy(cn->body + cn->len, upload, n);
        cn->len += n;
        cn->body[cn->len] = 0;
        return MHD_YES;
    }
    if (cn->refused.status) return send_refused(s, c, url, &cn->refused, cn->refused.status >= 400 && cn->discarded > 0);
    if (cn->ex) { /* the worker has its answer and resumed the connection */
        int status;
        struct MHD_Response *r = srv_exchange_response(cn->ex, &status);
        if (!r) return MHD_NO; /* the client left, or out of memory: close */
        return queue(s, c, url, status, r, false);
    }
    return route(s, c, url, method, cn);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode code)
{
    srv_server *s = cls;
    conn *cn = *con_cls;
    if (code != MHD_REQUEST_TERMINATED_COMPLETED_OK) srv_conn_guard_phase(c, SRV_CONN_SERVING); /* closing: not timed */
    else srv_conn_guard_phase(c, SRV_CONN_KEPT);
    if (!cn) return;
    if (cn->ex) srv_exchange_detach(cn->ex);
    if (cn->completion) atomic_fetch_sub(&s->in_flight, 1);
    free(cn->body);
    free(cn);
    *con_cls = NULL;
}

/* libmicrohttpd's own messages are about connections clients broke: rate-limited. The one it
 * writes when the handler closes a connection on purpose (the client left, or its answer was
 * written directly: exchange.c) is not news. */
static void log_mhd(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    if (!strncmp(fmt, "Application reported internal error", 35)) return;
    srv_log_limited_v(fmt, ap);
}

ts_status srv_http_start(srv_server *s, ts_error *err)
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s->opt.port)};
    const char *host = s->opt.host ? s->opt.host : "127.0.0.1";
    if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "--host %s: not an IPv4 address", host);
    }
    const srv_options *o = &s->opt;
    if (o->max_connections < 1 || o->max_connections_per_ip < 0 || o->header_timeout_s < 1 || o->body_timeout_s < 1 || o->idle_timeout_s < 1) {
        return ts_error_set(err, TS_ERR_RANGE,
                            "--max-connections and the timeouts must be at least 1 (--max-connections-per-ip: 0 or more)");
    }
    struct rlimit fds;
    if (!getrlimit(RLIMIT_NOFILE, &fds) && fds.rlim_cur != RLIM_INFINITY && (rlim_t)o->max_connections + FD_RESERVE > fds.rlim_cur) {
        return ts_error_set(err, TS_ERR_RANGE,
                            "--max-connections %d needs %d file descriptors, and this process may open %llu (raise ulimit -n, or lower it)",
                            o->max_connections, o->max_connections + FD_RESERVE, (unsigned long long)fds.rlim_cur);
    }
    if (!(s->guard = srv_conn_guard_create(o->header_timeout_s, o->body_timeout_s, o->idle_timeout_s))) {
        return ts_error_set(err, TS_ERR_INTERNAL, "cannot start the connection timer");
    }
    unsigned threads = HTTP_THREADS;
    s->httpd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, 0, NULL,
                                NULL, handle, s, MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_THREAD_POOL_SIZE, threads,
                                MHD_OPTION_CONNECTION_LIMIT, (unsigned)o->max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                                (unsigned)o->max_connections_per_ip, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)o->idle_timeout_s,
                                MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)1024, MHD_OPTION_NOTIFY_COMPLETED, completed, s,
                                MHD_OPTION_NOTIFY_CONNECTION, srv_conn_guard_notify, s->guard, MHD_OPTION_END);
    if (!s->httpd) {
        srv_conn_guard_destroy(s->guard);
        s->guard = NULL;
        return ts_error_set(err, TS_ERR_IO, "cannot listen on %s:%d (in use, or not allowed)", host, s->opt.port);
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
 * cannot hold the stop for more than STOP_GRACE_MS. The workers end on their own once their jobs
 * have: none may touch a connection after the daemon is gone. */
#define STOP_GRACE_MS 5000

void srv_http_stop(srv_server *s)
{
    if (!s->httpd) return;
    for (int waited = 0; atomic_load(&s->in_flight) > 0 && waited < STOP_GRACE_MS; waited += WAIT_MS) {
        struct timespec pause = {0, WAIT_MS * 1000000L};
        nanosleep(&pause, NULL);
    }
    while (atomic_load(&s->workers) > 0) {
        struct timespec pause = {0, WAIT_MS * 1000000L};
        nanosleep(&pause, NULL);
    }
    MHD_stop_daemon(s->httpd);
    s->httpd = NULL;
    srv_conn_guard_destroy(s->guard);
    s->guard = NULL;
}
