/* pool.h — a fixed pthread pool that runs parallel-for jobs.
 *
 * ts_pool_run(pool, fn, arg, n_tasks) calls fn(arg, task, worker) for task = 0 … n_tasks-1 across
 * the pool's threads and the caller's, and returns when all are done. Tasks are claimed with an
 * atomic counter, so uneven tasks balance. One job at a time per pool (calls are serialised).
 * Size n includes the calling thread: a pool of 1, a NULL pool or a single task runs inline.
 */
#ifndef TS_BASE_POOL_H
#define TS_BASE_POOL_H

#include "tessera.h"

typedef struct ts_pool ts_pool;
typedef void (*ts_pool_task_fn)(void *arg, int64_t task, int worker);

/* n_threads <= 0 → online cores. Owned; free with ts_pool_destroy. */
ts_status ts_pool_create(int n_threads, ts_pool **out, ts_error *err);
void ts_pool_destroy(ts_pool *pool);
int ts_pool_size(const ts_pool *pool);
void ts_pool_run(ts_pool *pool, ts_pool_task_fn fn, void *arg, int64_t n_tasks);

#endif
