/* conn_guard.h — the connection timeouts libmicrohttpd lacks, and rate-limited connection logs.
 *
 * libmicrohttpd closes a connection that is silent for idle_timeout, but a client that sends one
 * byte now and then (slowloris) is never silent. The guard follows every connection from its
 * opening (libmicrohttpd's connection notifications): its request line and headers must arrive
 * within header_timeout (a kept-alive connection's next request: within idle + header timeout
 * of the previous one's end), its body within body_timeout of the headers. Past that, a sweeper
 * thread shuts the socket down and libmicrohttpd, seeing it closed, frees the connection.
 * A connection being answered (its completion running, its reply sent) is not timed here.
 *
 * The guard is created before the daemon and destroyed after it (it owns its sweeper thread).
 */
#ifndef TS_SERVER_CONN_GUARD_H
#define TS_SERVER_CONN_GUARD_H

#include <microhttpd.h>
#include <stdarg.h>
#include <stdint.h>

typedef struct srv_conn_guard srv_conn_guard;
typedef enum srv_conn_phase { SRV_CONN_HEADERS = 0, SRV_CONN_BODY, SRV_CONN_SERVING, SRV_CONN_KEPT } srv_conn_phase;

/* NULL when out of memory or no thread could start. */
srv_conn_guard *srv_conn_guard_create(int header_timeout_s, int body_timeout_s, int idle_timeout_s);
void srv_conn_guard_destroy(srv_conn_guard *g);
/* MHD_OPTION_NOTIFY_CONNECTION's callback, with the guard as its closure. */
void srv_conn_guard_notify(void *guard, struct MHD_Connection *c, void **socket_context, enum MHD_ConnectionNotificationCode code);
void srv_conn_guard_phase(struct MHD_Connection *c, srv_conn_phase phase);
/* Connections closed so far for a late header block, and for a late body. */
void srv_conn_guard_counts(srv_conn_guard *g, int64_t *headers, int64_t *bodies);

/* A line on stderr, "tessera serve: …", at most 5 per 10 s across the process; the lines held
 * back are counted in the next one that is written. For what clients can cause (connection
 * errors, timeouts), so an attacker cannot flood the log. */
void srv_log_limited(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void srv_log_limited_v(const char *fmt, va_list ap);

#endif
