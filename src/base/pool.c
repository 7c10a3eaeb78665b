/* pool.c — pthread parallel-for pool.
 *
 * A decode step runs hundreds of short parallel ops, so waking sleeping threads (tens of µs each)
 * would dominate. Workers therefore spin briefly on the job counter `generation` before sleeping
 * on a condition variable, and the caller spins briefly before sleeping on `done`. The spin is
 * bounded, so an idle pool costs nothing.
 *
 * Publication: the caller writes fn/arg/n_tasks, then bumps `generation` (seq_cst); a worker that
 * sees the new generation reads them. The caller waits until every worker has counted out of
 * `n_active`, so fn/arg never outlive the call. Sleeping uses the Dekker pattern on
 * `n_sleeping` / `generation` (both seq_cst) so no wake-up is lost.
 */
#include "base/pool.h"
#include "base/error.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#else
#define cpu_relax() ((void)0)
#endif

/* Long enough to bridge back-to-back ops (a few µs apart), short enough that an oversubscribed
 * machine (a worker descheduled) wastes little: roughly 20–80 µs on current x86. */
#define SPIN_LIMIT 4000

struct ts_pool {
    int n_threads;
    pthread_t *threads;
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    pthread_cond_t done;
    pthread_mutex_t run_lock; /* serialises ts_pool_run callers */
    atomic_uint_fast64_t generation;
    atomic_int n_active;
    atomic_int n_sleeping;
    atomic_bool stopping;
    ts_pool_task_fn fn;
    void *arg;
    int64_t n_tasks;
    atomic_int_fast64_t next_task;
};

typedef struct {
    ts_pool *pool;
    int worker;
} worker_start;

static void drain(ts_pool *pool, int worker)
{
    for (;;) {
        int64_t task = atomic_fetch_add(&pool->next_task, 1);
        if (task >= pool->n_tasks) break;
        pool->fn(pool->arg, task, worker);
    }
}

/* Returns the new generation, or `seen` when stopping. */
static uint64_t wait_for_job(ts_pool *pool, uint64_t seen)
{
    for (int spins = 0; spins < SPIN_LIMIT; spins++) {
        uint64_t g = atomic_load(&pool->generation);
        if (g != seen || atomic_load(&pool->stopping)) return g;
        cpu_relax();
    }
    pthread_mutex_lock(&pool->mutex);
    atomic_fetch_add(&pool->n_sleeping, 1);
    uint64_t g;
    while ((g = atomic_load(&pool->generation)) == seen && !atomic_load(&pool->stopping))
        pthread_cond_wait(&pool->wake, &pool->mutex);
    atomic_fetch_sub(&pool->n_sleeping, 1);
    pthread_mutex_unlock(&pool->mutex);
    return g;
}

static void *worker_main(void *p)
{
    worker_start start = *(worker_start *)p;
    free(p);
    ts_pool *pool = start.pool;
    uint64_t seen = 0;
    for (;;) {
        uint64_t g = wait_for_job(pool, seen);
        if (atomic_load(&pool->stopping)) break;
        seen = g;
        drain(pool, start.worker);
        if (atomic_fetch_sub(&pool->n_active, 1) == 1) {
            pthread_mutex_lock(&pool->mutex);
            pthread_cond_signal(&pool->done);
            pthread_mutex_unlock(&pool->mutex);
        }
    }
    return NULL;
}

ts_status ts_pool_create(int n_threads, ts_pool **out, ts_error *err)
{
    *out = NULL;
    if (n_threads <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        n_threads = cores > 0 ? (int)cores : 1;
    }
    if (n_threads > 1024)
        return ts_error_set(err, TS_ERR_RANGE, "threads: %d is more than 1024", n_threads);
    ts_pool *pool = calloc(1, sizeof(*pool));
    if (!pool) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "thread pool: out of memory");
    pool->n_threads = n_threads;
    pthread_mutex_init(&pool->mutex, NULL);
    pthread_mutex_init(&pool->run_lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    pool->threads = calloc((size_t)n_threads, sizeof(pthread_t));
    if (!pool->threads) {
        ts_pool_destroy(pool);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "thread pool: out of memory");
    }
    for (int i = 1; i < n_threads; i++) {
        worker_start *start = malloc(sizeof(*start));
        if (start) *start = (worker_start){pool, i};
        if (!start || pthread_create(&pool->threads[i], NULL, worker_main, start) != 0) {
            free(start);
            pool->n_threads = i;
            ts_pool_destroy(pool);
            return ts_error_set(err, TS_ERR_INTERNAL, "thread pool: cannot start thread %d", i);
        }
    }
    *out = pool;
    return TS_OK;
}

void ts_pool_destroy(ts_pool *pool)
{
    if (!pool) return;
    pthread_mutex_lock(&pool->mutex);
    atomic_store(&pool->stopping, true);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);
    for (int i = 1; i < pool->n_threads && pool->threads; i++) pthread_join(pool->threads[i], NULL);
    free(pool->threads);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done);
    pthread_mutex_destroy(&pool->mutex);
    pthread_mutex_destroy(&pool->run_lock);
    free(pool);
}

int ts_pool_size(const ts_pool *pool) { return pool ? pool->n_threads : 1; }

void ts_pool_run(ts_pool *pool, ts_pool_task_fn fn, void *arg, int64_t n_tasks)
{
    if (n_tasks <= 0) return;
    if (!pool || pool->n_threads == 1 || n_tasks == 1) {
        for (int64_t t = 0; t < n_tasks; t++) fn(arg, t, 0);
        return;
    }
    pthread_mutex_lock(&pool->run_lock);
    pool->fn = fn;
    pool->arg = arg;
    pool->n_tasks = n_tasks;
    atomic_store(&pool->next_task, 0);
    atomic_store(&pool->n_active, pool->n_threads - 1);
    atomic_fetch_add(&pool->generation, 1);
    if (atomic_load(&pool->n_sleeping) > 0) {
        pthread_mutex_lock(&pool->mutex);
        pthread_cond_broadcast(&pool->wake);
        pthread_mutex_unlock(&pool->mutex);
    }
    drain(pool, 0);
    for (int spins = 0; atomic_load(&pool->n_active) > 0 && spins < SPIN_LIMIT; spins++) cpu_relax();
    if (atomic_load(&pool->n_active) > 0) {
        pthread_mutex_lock(&pool->mutex);
        while (atomic_load(&pool->n_active) > 0) pthread_cond_wait(&pool->done, &pool->mutex);
        pthread_mutex_unlock(&pool->mutex);
    }
    pthread_mutex_unlock(&pool->run_lock);
}
