/* decode_gate_test.c — the decode gate's order: with the heavy lane full, waiters go cheapest
 * first (not in arrival order), and a light request passes at once through its own lane. */
#include "server/decode_gate.h"
#include "check.h"

#include <time.h>

static srv_decode_gate gate;
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static int64_t order[8];
static int n_order;

static void *request(void *arg)
{
    int64_t cost = *(const int64_t *)arg;
    bool light = srv_decode_gate_enter(&gate, cost);
    pthread_mutex_lock(&log_mu);
    order[n_order++] = cost;
    pthread_mutex_unlock(&log_mu);
    srv_decode_gate_leave(&gate, light);
    return NULL;
}

static int waiting(void)
{
    pthread_mutex_lock(&gate.mu);
    int n = gate.n_waiting;
    pthread_mutex_unlock(&gate.mu);
    return n;
}

static void sleep_ms(int ms)
{
    struct timespec t = {0, ms * 1000000L};
    nanosleep(&t, NULL);
}

static void test_order(void)
{
    srv_decode_gate_init(&gate, 1, 1);
    bool held_light = srv_decode_gate_enter(&gate, 100000000); /* the one heavy place, held here */
    CHECK(!held_light);
    static int64_t costs[3] = {50000000, 20000000, 30000000};
    pthread_t t[3];
    for (int i = 0; i < 3; i++) {
        pthread_create(&t[i], NULL, request, &costs[i]);
        for (int k = 0; k < 2000 && waiting() < i + 1; k++) sleep_ms(1); /* arrival order: 50 M, 20 M, 30 M */
    }
    CHECK_INT_EQ(waiting(), 3);
    /* A one-pixel request does not wait for any of them. */
    static int64_t one = 1;
    pthread_t tl;
    pthread_create(&tl, NULL, request, &one);
    pthread_join(tl, NULL);
    CHECK_INT_EQ(n_order, 1);
    CHECK_INT_EQ(order[0], 1);
    srv_decode_gate_leave(&gate, held_light);
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
    CHECK_INT_EQ(n_order, 4);
    CHECK_INT_EQ(order[1], 20000000);
    CHECK_INT_EQ(order[2], 30000000);
    CHECK_INT_EQ(order[3], 50000000);
    CHECK_INT_EQ(gate.running_heavy, 0);
    CHECK_INT_EQ(gate.running_light, 0);
    srv_decode_gate_fini(&gate);
}

int main(void)
{
    RUN(test_order);
    return check_finish();
}
