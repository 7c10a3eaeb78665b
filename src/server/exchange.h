/* exchange.h — one completion between its connection and its worker thread.
 *
 * libmicrohttpd's threads serve many connections each and must never wait, so a completion whose
 * body has arrived is handed to a worker thread of its own (at most --queue + slots of them exist:
 * the HTTP layer reserves a queue place first) and its connection is suspended:
 *
 *   connection: body complete → srv_exchange_start (suspends the connection, starts the worker)
 *   worker:     parse → prepare (at most prepare_threads at once) → decode the images (in the
 *               decode gate's order) → submit → wait for the job
 *               → the reply, or the first stream piece → resume the connection
 *   connection: srv_exchange_response: the reply, or a stream whose reader takes the worker's
 *               pieces and suspends the connection while there are none
 *   connection closed → srv_exchange_detach (the job is cancelled unless it has ended)
 *
 * A closed or reset socket cancels the job; a half-closed one (the client shut down its sending
 * side, as `nc -N` does) is still answered. The exchange is freed by whichever of its two sides
 * lets go last.
 */
#ifndef TS_SERVER_EXCHANGE_H
#define TS_SERVER_EXCHANGE_H

#include "server/server.h"

#include <microhttpd.h>

typedef struct srv_exchange srv_exchange;

/* Takes `body` (malloc'd, NUL-terminated). NULL when out of memory or no thread could start: the
 * connection was suspended and resumed again, so libmicrohttpd calls the handler once more, which
 * then answers 500. */
srv_exchange *srv_exchange_start(srv_server *s, struct MHD_Connection *c, srv_endpoint endpoint, char *body, size_t len);
/* Once the worker has resumed the connection: the response to queue with *status (owned by the
 * caller: MHD_destroy_response after queueing). NULL when out of memory. */
struct MHD_Response *srv_exchange_response(srv_exchange *ex, int *status);
/* The connection is gone (or never took the response): lets go of the exchange. */
void srv_exchange_detach(srv_exchange *ex);

#endif
