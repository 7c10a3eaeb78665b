/* metrics.h — the server's counters, gauges and histograms, rendered as Prometheus text.
 *
 * One srv_metrics per server, updated from any thread (a mutex inside; updates are a few adds).
 * srv_metrics_render returns the exposition text (owned, free()), metric names prefixed
 * "tessera_": requests by endpoint and HTTP status, prompt and generated tokens, time to first
 * token and inter-token latency histograms (seconds), busy slots, queue depth, encoder-cache
 * hits and misses, the prefix cache's totals (requests that looked up and hit, their prompt
 * tokens and those restored, the token hit ratio, blocks, bytes, budget, evictions),
 * speculative decoding's verify steps and drafted / accepted tokens, and the scheduler's forward
 * steps (rows, prompt chunks and decode tokens per step, steps that prefilled several prompts
 * together).
 */
#ifndef TS_SERVER_METRICS_H
#define TS_SERVER_METRICS_H

#include <stdint.h>

typedef struct srv_metrics srv_metrics;

srv_metrics *srv_metrics_create(void); /* NULL when out of memory */
void srv_metrics_destroy(srv_metrics *m);

void srv_metrics_request(srv_metrics *m, const char *endpoint, int status); /* one finished request */
void srv_metrics_tokens(srv_metrics *m, int64_t prompt, int64_t generated);
void srv_metrics_speculative(srv_metrics *m, int64_t drafted, int64_t accepted); /* one slot's verify step */
void srv_metrics_ttft(srv_metrics *m, double seconds);
void srv_metrics_inter_token(srv_metrics *m, double seconds);
void srv_metrics_set_slots(srv_metrics *m, int busy, int total);
void srv_metrics_set_queue(srv_metrics *m, int depth);
/* One forward step of the scheduler: its rows, and how many prompt chunks and decode tokens it
 * held. */
void srv_metrics_step(srv_metrics *m, int64_t rows, int prefill_seqs, int decode_seqs);
void srv_metrics_encoder_cache(srv_metrics *m, int64_t hits, int64_t misses); /* running totals */
/* The prefix cache's running totals and state (ts_prefix_cache_stats, as plain numbers). */
typedef struct srv_prefix_totals {
    int64_t lookups, hits, prompt_tokens, cached_tokens, blocks, evictions, bytes, budget;
} srv_prefix_totals;
void srv_metrics_prefix_cache(srv_metrics *m, const srv_prefix_totals *totals);

char *srv_metrics_render(srv_metrics *m);

#endif
