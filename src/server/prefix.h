/* prefix.h — the server's use of the prefix cache (ts_prefix_cache_*, contract in
 * src/engine/prefix_cache.h): the scheduler calls these at two points of a slot's life, and they
 * keep the metrics and the job's usage up to date.
 *
 *   srv_prefix_create  once, over the engine's slot sequences: the cache of --prefix-cache-mb, or
 *                      NULL (off: 0, or refused — the reason on stderr)
 *   srv_prefix_begin   a slot starts a job: the cached rows of its prompt's prefix go into the
 *                      slot's empty sequence; returns how many (the prefill starts there), with
 *                      the job's keys in *keys (NULL when not cached) and job->cached_tokens set
 *   srv_prefix_store   the job finished: its prompt's full blocks into the cache
 *
 * Every call takes a NULL cache as "off". The scheduler frees *keys (ts_prefix_keys_free) when the
 * slot is released, whatever the outcome. Scheduler thread only.
 */
#ifndef TS_SERVER_PREFIX_H
#define TS_SERVER_PREFIX_H

#include "server/server.h"

ts_prefix_cache *srv_prefix_create(srv_server *s, const ts_sequence *like);
/* chunk: the prompt rows the scheduler prefills per call from wherever it starts. */
size_t srv_prefix_begin(srv_server *s, ts_prefix_cache *cache, srv_job *job, ts_sequence *seq, size_t chunk,
                        ts_prefix_keys **keys);
void srv_prefix_store(srv_server *s, ts_prefix_cache *cache, const ts_prefix_keys *keys, const ts_sequence *seq);

#endif
