/* conn_guard.c — header and body timeouts by a sweeper thread; rate-limited logging. See
 * conn_guard.h. The tracked connections form one list under the guard's mutex; libmicrohttpd
 * announces a connection's close before it closes the socket, so a tracked descriptor is never
 * one the process has reused. */
#include "server/conn_guard.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#define SWEEP_MS 250

typedef struct tracked {
    struct tracked *prev, *next;
    srv_conn_guard *guard;
    int fd;
    srv_conn_phase phase;
    double since; /* when the phase began, seconds (monotonic) */
    bool shut;
} tracked;

struct srv_conn_guard {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    tracked head; /* sentinel of a circular list */
    double header_s, body_s, kept_s;
    bool stop;
    int64_t late_headers, late_bodies;
    pthread_t sweeper;
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *sweep(void *arg)
{
    srv_conn_guard *g = arg;
    pthread_mutex_lock(&g->mu);
    while (!g->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += SWEEP_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&g->cv, &g->mu, &until);
        double t = now_s();
        int headers = 0, bodies = 0;
        for (tracked *c = g->head.next; c != &g->head; c = c->next) {
            if (c->shut || c->phase == SRV_CONN_SERVING) continue;
            double limit = c->phase == SRV_CONN_HEADERS ? g->header_s : c->phase == SRV_CONN_BODY ? g->body_s : g->kept_s;
            if (t - c->since <= limit) continue;
            shutdown(c->fd, SHUT_RDWR); /* libmicrohttpd reads the end, closes and frees it */
            c->shut = true;
            if (c->phase == SRV_CONN_BODY) bodies++;
            else headers++;
        }
        g->late_headers += headers, g->late_bodies += bodies;
        if (headers || bodies) srv_log_limited("closed %d connection(s) past the header timeout, %d past the body timeout", headers, bodies);
    }
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

srv_conn_guard *srv_conn_guard_create(int header_timeout_s, int body_timeout_s, int idle_timeout_s)
{
    srv_conn_guard *g = calloc(1, sizeof(*g));
    if (!g) return NULL;
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->head.next = g->head.prev = &g->head;
    g->header_s = header_timeout_s, g->body_s = body_timeout_s, g->kept_s = (double)idle_timeout_s + header_timeout_s;
    if (pthread_create(&g->sweeper, NULL, sweep, g)) {
        pthread_cond_destroy(&g->cv);
        pthread_mutex_destroy(&g->mu);
        free(g);
        return NULL;
    }
    return g;
}

void srv_conn_guard_destroy(srv_conn_guard *g)
{
    if (!g) return;
    pthread_mutex_lock(&g->mu);
    g->stop = true;
    pthread_cond_signal(&g->cv);
    pthread_mutex_unlock(&g->mu);
    pthread_join(g->sweeper, NULL);
    /* The daemon has stopped: every connection announced its close. */
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->mu);
    free(g);
}

void srv_conn_guard_notify(void *guard, struct MHD_Connection *c, void **socket_context, enum MHD_ConnectionNotificationCode code)
{
    srv_conn_guard *g = guard;
    tracked *t = *socket_context;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (!info || !(t = calloc(1, sizeof(*t)))) return; /* untracked: libmicrohttpd's idle timeout still applies */
        *t = (tracked){.guard = g, .fd = info->connect_fd, .phase = SRV_CONN_HEADERS, .since = now_s()};
        pthread_mutex_lock(&g->mu);
        t->next = g->head.next, t->prev = &g->head;
        g->head.next->prev = t, g->head.next = t;
        pthread_mutex_unlock(&g->mu);
        *socket_context = t;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED && t) {
        pthread_mutex_lock(&g->mu);
        t->prev->next = t->next, t->next->prev = t->prev;
        pthread_mutex_unlock(&g->mu);
        free(t);
        *socket_context = NULL;
    }
}

void srv_conn_guard_phase(struct MHD_Connection *c, srv_conn_phase phase)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    tracked *t = info ? info->socket_context : NULL;
    if (!t) return;
    pthread_mutex_lock(&t->guard->mu);
    t->phase = phase, t->since = now_s();
    pthread_mutex_unlock(&t->guard->mu);
}

void srv_conn_guard_counts(srv_conn_guard *g, int64_t *headers, int64_t *bodies)
{
    pthread_mutex_lock(&g->mu);
    *headers = g->late_headers, *bodies = g->late_bodies;
    pthread_mutex_unlock(&g->mu);
}

/* ------------------------------------------------------------------ logging */

#define LOG_WINDOW_S 10.0
#define LOG_PER_WINDOW 5

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static double log_window;
static int log_written;
static long log_held;

void srv_log_limited_v(const char *fmt, va_list ap)
{
    pthread_mutex_lock(&log_mu);
    double t = now_s();
    if (t - log_window > LOG_WINDOW_S) log_window = t, log_written = 0;
    if (log_written < LOG_PER_WINDOW) {
        log_written++;
        char line[512];
        vsnprintf(line, sizeof(line), fmt, ap);
        size_t n = 0;
        while (line[n]) n++;
        while (n && line[n - 1] == '\n') line[--n] = 0;
        if (log_held) fprintf(stderr, "tessera serve: %s (and %ld similar line(s) held back)\n", line, log_held);
        else fprintf(stderr, "tessera serve: %s\n", line);
        log_held = 0;
    } else {
        log_held++;
    }
    pthread_mutex_unlock(&log_mu);
}

void srv_log_limited(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    srv_log_limited_v(fmt, ap);
    va_end(ap);
}
