/* decode_gate.c — cheapest-first admission to image decoding, with a lane for light requests.
 * See decode_gate.h. Waiters live on their threads' stacks, linked in arrival order. */
#include "server/decode_gate.h"

#include <stddef.h>

struct srv_gate_waiter {
    int64_t cost;
    uint64_t seq;
    srv_gate_waiter *next;
};

void srv_decode_gate_init(srv_decode_gate *g, int heavy, int light)
{
    *g = (srv_decode_gate){.heavy = heavy > 0 ? heavy : 1, .light = light > 0 ? light : 1};
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
}

void srv_decode_gate_fini(srv_decode_gate *g)
{
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->mu);
}

/* Mutex held: the waiter that goes next among the heavy ones (cheapest, then earliest). */
static const srv_gate_waiter *first(const srv_decode_gate *g)
{
    const srv_gate_waiter *best = NULL;
    for (const srv_gate_waiter *w = g->waiting; w; w = w->next)
        if (!best || w->cost < best->cost || (w->cost == best->cost && w->seq < best->seq)) best = w;
    return best;
}

bool srv_decode_gate_enter(srv_decode_gate *g, int64_t cost)
{
    pthread_mutex_lock(&g->mu);
    if (cost <= SRV_LIGHT_PIXELS && g->running_light < g->light) {
        g->running_light++;
        pthread_mutex_unlock(&g->mu);
        return true;
    }
    srv_gate_waiter me = {.cost = cost, .seq = g->arrivals++};
    srv_gate_waiter **tail = &g->waiting;
    while (*tail) tail = &(*tail)->next;
    *tail = &me;
    g->n_waiting++;
    while (g->running_heavy >= g->heavy || first(g) != &me) pthread_cond_wait(&g->cv, &g->mu);
    for (srv_gate_waiter **p = &g->waiting; *p; p = &(*p)->next)
        if (*p == &me) {
            *p = me.next;
            g->n_waiting--;
            break;
        }
    g->running_heavy++;
    pthread_cond_broadcast(&g->cv); /* the next in line may be admitted too */
    pthread_mutex_unlock(&g->mu);
    return false;
}

void srv_decode_gate_leave(srv_decode_gate *g, bool light)
{
    pthread_mutex_lock(&g->mu);
    if (light) g->running_light--;
    else g->running_heavy--;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}
