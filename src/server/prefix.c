/* prefix.c — the scheduler's prefix cache hooks (prefix.h): the calls into the engine's cache, the
 * log line, the metrics and the job's cached-token count. */
#include "server/prefix.h"

#include <stdio.h>

static void publish(srv_server *s, const ts_prefix_cache *cache)
{
    ts_prefix_cache_stats st = ts_prefix_cache_get_stats(cache);
    srv_prefix_totals t = {st.lookups, st.hits, st.prompt_tokens, st.cached_tokens, st.blocks, st.evictions,
                           (int64_t)st.bytes, (int64_t)st.budget};
    srv_metrics_prefix_cache(s->metrics, &t);
}

ts_prefix_cache *srv_prefix_create(srv_server *s, const ts_sequence *like)
{
    if (!s->opt.prefix_cache_bytes) return NULL;
    ts_prefix_cache *cache = NULL;
    ts_error e = {0};
    if (ts_prefix_cache_create(s->model, like, s->opt.prefix_cache_bytes, &cache, &e) != TS_OK) {
        fprintf(stderr, "tessera serve: prefix cache off: %s\n", e.message);
        return NULL;
    }
    fprintf(stderr, "tessera serve: prefix cache of %zu MiB (blocks of %d tokens)\n", s->opt.prefix_cache_bytes >> 20,
            TS_PREFIX_BLOCK);
    publish(s, cache);
    return cache;
}

size_t srv_prefix_begin(srv_server *s, ts_prefix_cache *cache, srv_job *job, ts_sequence *seq, size_t chunk,
                        ts_prefix_keys **keys)
{
    *keys = NULL;
    if (!cache) return 0;
    ts_prefix_prompt p = {job->ids, job->n_ids, job->mm.embeddings ? &job->mm : NULL, job->media, job->n_media,
                          (int64_t)chunk};
    int64_t restored = 0;
    ts_error e = {0};
    /* A prompt the cache cannot key (its image rows disagree with its media) is prefilled whole. */
    if (ts_prefix_cache_begin(cache, &p, seq, keys, &restored, &e) != TS_OK) return 0;
    job->cached_tokens = (size_t)restored;
    publish(s, cache);
    return (size_t)restored;
}

void srv_prefix_store(srv_server *s, ts_prefix_cache *cache, const ts_prefix_keys *keys, const ts_sequence *seq)
{
    if (!cache || !keys) return;
    ts_prefix_cache_store(cache, keys, seq);
    publish(s, cache);
}
