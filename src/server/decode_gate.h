/* decode_gate.h — the order in which requests decode and preprocess their images.
 *
 * Each image request is decoded by its own worker thread once the gate lets it in. Its cost is
 * the pixel count its images' headers declare (read before any decoding). At most `heavy`
 * requests decode at once, the cheapest first (arrival order among equals), so one request of
 * huge images cannot hold up a queue of small ones; a request that declares at most
 * SRV_LIGHT_PIXELS in all has a lane of its own (`light` more at once) and never waits behind a
 * heavy one. A steady stream of cheaper requests can delay a costly one: by design, it is the
 * costly one that should wait.
 */
#ifndef TS_SERVER_DECODE_GATE_H
#define TS_SERVER_DECODE_GATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define SRV_LIGHT_PIXELS ((int64_t)1 << 20) /* about one 1024 x 1024 image */

typedef struct srv_gate_waiter srv_gate_waiter;

typedef struct srv_decode_gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int heavy, light;             /* at once, each lane */
    int running_heavy, running_light;
    srv_gate_waiter *waiting;     /* heavy waiters, in arrival order … */
    int n_waiting;                /* … and how many */
    uint64_t arrivals;
} srv_decode_gate;

void srv_decode_gate_init(srv_decode_gate *g, int heavy, int light);
void srv_decode_gate_fini(srv_decode_gate *g);
/* Blocks until the request may decode; returns its lane (true: light), which
 * srv_decode_gate_leave takes back afterwards. A light request whose lane is full waits in the
 * heavy one, where it is the cheapest. */
bool srv_decode_gate_enter(srv_decode_gate *g, int64_t cost);
void srv_decode_gate_leave(srv_decode_gate *g, bool light);

#endif
