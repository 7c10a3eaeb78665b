/* metrics.c — the server's metrics behind one mutex, rendered as Prometheus text format 0.0.4.
 *
 * Updates take the mutex for a few adds; srv_metrics_render copies the state under the mutex and
 * formats the copy without it, so a slow scrape never stalls a decode step and every scrape is
 * one consistent instant (a histogram's _count always equals its +Inf bucket).
 *
 * Request series are keyed by (endpoint, status). Endpoint labels come from callers, so their
 * number is capped: the first SERIES_MAX distinct pairs get their own series, later new pairs
 * (and endpoints that are empty, NULL, too long or literally "other") count under
 * endpoint="other", kept per status. Statuses outside 100..599 count as status "0". Counters never
 * go down: negative token counts are ignored, negative cache totals show as 0; NaN latencies are
 * dropped and negative ones (a clock stepped back) count as 0.
 */
#include "server/metrics.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SERIES_MAX 64
#define ENDPOINT_MAX 32  /* bytes with the NUL; our endpoints are "chat", "completions", … */
#define STATUS_SLOTS 600 /* [0] for out-of-range statuses, then 100..599 by value */

typedef struct bucket {
    double le;
    const char *label; /* how the bound is printed: "0.005", never a float round trip */
} bucket;

static const bucket TTFT_BUCKETS[] = {
    {0.001, "0.001"}, {0.005, "0.005"}, {0.01, "0.01"}, {0.025, "0.025"}, {0.05, "0.05"},
    {0.1, "0.1"},     {0.25, "0.25"},   {0.5, "0.5"},   {1, "1"},         {2.5, "2.5"},
    {5, "5"},         {10, "10"},       {30, "30"},     {60, "60"},
};
static const bucket INTER_TOKEN_BUCKETS[] = {
    {0.001, "0.001"}, {0.0025, "0.0025"}, {0.005, "0.005"}, {0.01, "0.01"},
    {0.025, "0.025"}, {0.05, "0.05"},     {0.1, "0.1"},     {0.25, "0.25"},
    {0.5, "0.5"},     {1, "1"},           {2.5, "2.5"},
};
#define N_TTFT (sizeof(TTFT_BUCKETS) / sizeof(TTFT_BUCKETS[0]))
#define N_INTER_TOKEN (sizeof(INTER_TOKEN_BUCKETS) / sizeof(INTER_TOKEN_BUCKETS[0]))
#define BUCKETS_MAX 16
_Static_assert(N_TTFT < BUCKETS_MAX && N_INTER_TOKEN < BUCKETS_MAX, "room for the +Inf bucket");

/* Counts per bucket, not cumulative: an observation touches one slot; render adds them up. */
typedef struct histogram {
    uint64_t counts[BUCKETS_MAX]; /* [n_buckets] is the +Inf overflow */
    uint64_t count;
    double sum;
} histogram;

typedef struct series {
    char endpoint[ENDPOINT_MAX];
    int status;
    uint64_t count;
} series;

/* Everything render shows: plain data, so a snapshot is one struct copy. */
typedef struct state {
    series series[SERIES_MAX]; /* sorted by (endpoint, status): render needs no sort */
    int n_series;
    uint64_t other[STATUS_SLOTS]; /* endpoint="other" per status slot */
    uint64_t prompt_tokens, generation_tokens;
    uint64_t spec_steps, spec_drafted, spec_accepted; /* speculative decoding */
    histogram ttft, inter_token;
    int slots_busy, slots_total, queue_depth;
    int64_t cache_hits, cache_misses;
    srv_prefix_totals prefix;
    uint64_t steps, step_rows, step_prefills, step_decodes, shared_prefill_steps;
    int max_step_prefills;
} state;

struct srv_metrics {
    pthread_mutex_t mutex;
    state s;
};

srv_metrics *srv_metrics_create(void)
{
    srv_metrics *m = calloc(1, sizeof(*m));
    if (!m) return NULL;
    if (pthread_mutex_init(&m->mutex, NULL) != 0) {
        free(m);
        return NULL;
    }
    return m;
}

void srv_metrics_destroy(srv_metrics *m)
{
    if (!m) return;
    pthread_mutex_destroy(&m->mutex);
    free(m);
}

static int status_slot(int status)
{
    return status >= 100 && status < STATUS_SLOTS ? status : 0;
}

static int series_cmp(const char *endpoint, int status, const series *s)
{
    int c = strcmp(endpoint, s->endpoint);
    return c ? c : (status > s->status) - (status < s->status);
}

/* Caller holds the mutex. */
static void count_request(state *s, const char *endpoint, int status)
{
    if (!endpoint || !endpoint[0] || strlen(endpoint) >= ENDPOINT_MAX ||
        strcmp(endpoint, "other") == 0) {
        s->other[status] += 1;
        return;
    }
    int i = 0;
    while (i < s->n_series && series_cmp(endpoint, status, &s->series[i]) > 0)
        i++;
    if (i < s->n_series && series_cmp(endpoint, status, &s->series[i]) == 0) {
        s->series[i].count += 1;
        return;
    }
    if (s->n_series == SERIES_MAX) {
        s->other[status] += 1;
        return;
    }
    memmove(&s->series[i + 1], &s->series[i], (size_t)(s->n_series - i) * sizeof(series));
    series *n = &s->series[i];
    strcpy(n->endpoint, endpoint); /* length checked above */
    n->status = status;
    n->count = 1;
    s->n_series += 1;
}

void srv_metrics_request(srv_metrics *m, const char *endpoint, int status)
{
    status = status_slot(status);
    pthread_mutex_lock(&m->mutex);
    count_request(&m->s, endpoint, status);
    pthread_mutex_unlock(&m->mutex);
}

void srv_metrics_tokens(srv_metrics *m, int64_t prompt, int64_t generated)
{
    pthread_mutex_lock(&m->mutex);
    if (prompt > 0) m->s.prompt_tokens += (uint64_t)prompt;
    if (generated > 0) m->s.generation_tokens += (uint64_t)generated;
    pthread_mutex_unlock(&m->mutex);
}

void srv_metrics_speculative(srv_metrics *m, int64_t drafted, int64_t accepted)
{
    pthread_mutex_lock(&m->mutex);
    m->s.spec_steps++;
    if (drafted > 0) m->s.spec_drafted += (uint64_t)drafted;
    if (accepted > 0) m->s.spec_accepted += (uint64_t)accepted;
    pthread_mutex_unlock(&m->mutex);
}

/* Caller holds the mutex. */
static void observe(histogram *h, const bucket *buckets, size_t n, double seconds)
{
    if (isnan(seconds)) return;
    if (seconds < 0) seconds = 0;
    size_t i = 0;
    while (i < n && seconds > buckets[i].le)
        i++;
    h->counts[i] += 1; /* i == n: only +Inf holds it */
    h->count += 1;
    h->sum += seconds;
}

void srv_metrics_ttft(srv_metrics *m, double seconds)
{
    pthread_mutex_lock(&m->mutex);
    observe(&m->s.ttft, TTFT_BUCKETS, N_TTFT, seconds);
    pthread_mutex_unlock(&m->mutex);
}

void srv_metrics_inter_token(srv_metrics *m, double seconds)
{
    pthread_mutex_lock(&m->mutex);
    observe(&m->s.inter_token, INTER_TOKEN_BUCKETS, N_INTER_TOKEN, seconds);
    pthread_mutex_unlock(&m->mutex);
}

void srv_metrics_set_slots(srv_metrics *m, int busy, int total)
{
    pthread_mutex_lock(&m->mutex);
    m->s.slots_busy = busy;
    m->s.slots_total = total;
    pthread_mutex_unlock(&m->mutex);
}

void srv_metrics_set_queue(srv_metrics *m, int depth)
{
    pthread_mutex_lock(&m->mutex);
    m->s.queue_depth = depth;
    pthread_mutex_unlock(&m->mutex);
}

void srv_metrics_step(srv_metrics *m, int64_t rows, int prefill_seqs, int decode_seqs)
{
    pthread_mutex_lock(&m->mutex);
    m->s.steps += 1;
    m->s.step_rows += rows > 0 ? (uint64_t)rows : 0;
    m->s.step_prefills += prefill_seqs > 0 ? (uint64_t)prefill_seqs : 0;
    m->s.step_decodes += decode_seqs > 0 ? (uint64_t)decode_seqs : 0;
    m->s.shared_prefill_steps += prefill_seqs >= 2;
    if (prefill_seqs > m->s.max_step_prefills) m->s.max_step_prefills = prefill_seqs;
    pthread_mutex_unlock(&m->mutex);
}

void srv_metrics_encoder_cache(srv_metrics *m, int64_t hits, int64_t misses)
{
    pthread_mutex_lock(&m->mutex);
    m->s.cache_hits = hits;
    m->s.cache_misses = misses;
    pthread_mutex_unlock(&m->mutex);
}

void srv_metrics_prefix_cache(srv_metrics *m, const srv_prefix_totals *totals)
{
    pthread_mutex_lock(&m->mutex);
    m->s.prefix = *totals;
    pthread_mutex_unlock(&m->mutex);
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The shortest of %.15g / %.17g that reads back as the same double; Prometheus spells the
 * non-finite values +Inf, -Inf and NaN. */
static void put_double(FILE *f, double v)
{
    if (isnan(v)) {
        fputs("NaN", f);
        return;
    }
    if (isinf(v)) {
        fputs(v > 0 ? "+Inf" : "-Inf", f);
        return;
    }
    char text[32];
    snprintf(text, sizeof(text), "%.15g", v);
    if (strtod(text, NULL) != v) snprintf(text, sizeof(text), "%.17g", v);
    fputs(text, f);
}

/* Label values escape backslash, double quote and newline; nothing else is special. */
static void put_label_value(FILE *f, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\')
            fputs("\\\\", f);
        else if (*v == '"')
            fputs("\\\"", f);
        else if (*v == '\n')
            fputs("\\n", f);
        else
            fputc(*v, f);
    }
}

static void put_histogram(FILE *f, const char *name, const char *help, const histogram *h,
                          const bucket *buckets, size_t n)
{
    family(f, name, "histogram", help);
    uint64_t cumulative = 0;
    for (size_t i = 0; i < n; i++) {
        cumulative += h->counts[i];
        fprintf(f, "%s_bucket{le=\"%s\"} %llu\n", name, buckets[i].label,
                (unsigned long long)cumulative);
    }
    cumulative += h->counts[n];
    fprintf(f, "%s_bucket{le=\"+Inf\"} %llu\n", name, (unsigned long long)cumulative);
    fprintf(f, "%s_sum ", name);
    put_double(f, h->sum);
    fprintf(f, "\n%s_count %llu\n", name, (unsigned long long)h->count);
}

static void put_requests(FILE *f, const state *s)
{
    family(f, "tessera_requests_total", "counter",
           "Finished requests by endpoint and HTTP status.");
    for (int i = 0; i < s->n_series; i++) {
        fputs("tessera_requests_total{endpoint=\"", f);
        put_label_value(f, s->series[i].endpoint);
        fprintf(f, "\",status=\"%d\"} %llu\n", s->series[i].status,
                (unsigned long long)s->series[i].count);
    }
    for (int status = 0; status < STATUS_SLOTS; status++)
        if (s->other[status])
            fprintf(f, "tessera_requests_total{endpoint=\"other\",status=\"%d\"} %llu\n", status,
                    (unsigned long long)s->other[status]);
}

static void put_counter(FILE *f, const char *name, const char *help, unsigned long long v)
{
    family(f, name, "counter", help);
    fprintf(f, "%s %llu\n", name, v);
}

static void put_gauge(FILE *f, const char *name, const char *help, long long v)
{
    family(f, name, "gauge", help);
    fprintf(f, "%s %lld\n", name, v);
}

static unsigned long long count_of(int64_t v) { return (unsigned long long)(v > 0 ? v : 0); }

static void put_prefix_cache(FILE *f, const srv_prefix_totals *p)
{
    put_counter(f, "tessera_prefix_cache_lookups_total", "Requests that looked up the prefix cache.", count_of(p->lookups));
    put_counter(f, "tessera_prefix_cache_hits_total", "Requests that restored a cached prefix.", count_of(p->hits));
    put_counter(f, "tessera_prefix_cache_prompt_tokens_total", "Prompt tokens of the requests that looked up.",
                count_of(p->prompt_tokens));
    put_counter(f, "tessera_prefix_cache_cached_tokens_total", "Prompt tokens restored from the cache (not prefilled).",
                count_of(p->cached_tokens));
    family(f, "tessera_prefix_cache_hit_ratio", "gauge", "Prompt tokens restored over prompt tokens looked up.");
    fprintf(f, "tessera_prefix_cache_hit_ratio %.6f\n",
            p->prompt_tokens > 0 && p->cached_tokens > 0 ? (double)p->cached_tokens / (double)p->prompt_tokens : 0.0);
    put_counter(f, "tessera_prefix_cache_evictions_total", "Blocks evicted from the prefix cache.", count_of(p->evictions));
    put_gauge(f, "tessera_prefix_cache_blocks", "Blocks in the prefix cache.", p->blocks);
    put_gauge(f, "tessera_prefix_cache_bytes", "Bytes the prefix cache holds.", p->bytes);
    put_gauge(f, "tessera_prefix_cache_budget_bytes", "The prefix cache's budget (0: off).", p->budget);
}

char *srv_metrics_render(srv_metrics *m)
{
    state *s = malloc(sizeof(*s));
    if (!s) return NULL;
    pthread_mutex_lock(&m->mutex);
    *s = m->s;
    pthread_mutex_unlock(&m->mutex);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        free(s);
        return NULL;
    }
    put_requests(f, s);
    put_counter(f, "tessera_prompt_tokens_total", "Prompt tokens processed.",
                (unsigned long long)s->prompt_tokens);
    put_counter(f, "tessera_generation_tokens_total", "Tokens generated.",
                (unsigned long long)s->generation_tokens);
    put_counter(f, "tessera_speculative_steps_total",
                "Slot verify steps of speculative decoding (a slot's drafts checked in one step).",
                (unsigned long long)s->spec_steps);
    put_counter(f, "tessera_speculative_drafted_tokens_total", "Tokens drafted by n-gram lookup.",
                (unsigned long long)s->spec_drafted);
    put_counter(f, "tessera_speculative_accepted_tokens_total",
                "Drafted tokens the model confirmed (each saves a decode step).",
                (unsigned long long)s->spec_accepted);
    put_histogram(f, "tessera_time_to_first_token_seconds",
                  "Time from a request's arrival to its first generated token.", &s->ttft,
                  TTFT_BUCKETS, N_TTFT);
    put_histogram(f, "tessera_inter_token_latency_seconds",
                  "Time between consecutive generated tokens of one request.", &s->inter_token,
                  INTER_TOKEN_BUCKETS, N_INTER_TOKEN);
    put_gauge(f, "tessera_slots_busy", "Slots running a request.", s->slots_busy);
    put_gauge(f, "tessera_slots_total", "Slots the server has.", s->slots_total);
    put_gauge(f, "tessera_queue_depth", "Requests waiting for a slot.", s->queue_depth);
    put_counter(f, "tessera_model_steps_total", "Forward steps of the scheduler.",
                (unsigned long long)s->steps);
    put_counter(f, "tessera_step_rows_total", "Rows (prompt and decode) of those steps.",
                (unsigned long long)s->step_rows);
    put_counter(f, "tessera_step_prefill_chunks_total", "Prompt chunks run in those steps.",
                (unsigned long long)s->step_prefills);
    put_counter(f, "tessera_step_decode_rows_total", "Decode tokens run in those steps.",
                (unsigned long long)s->step_decodes);
    put_counter(f, "tessera_steps_shared_prefill_total",
                "Steps that prefilled chunks of two or more prompts together.",
                (unsigned long long)s->shared_prefill_steps);
    put_gauge(f, "tessera_step_prefill_chunks_max", "Most prompt chunks one step has held.",
              s->max_step_prefills);
    put_counter(f, "tessera_encoder_cache_hits_total", "Image encoder cache hits.",
                (unsigned long long)(s->cache_hits > 0 ? s->cache_hits : 0));
    put_counter(f, "tessera_encoder_cache_misses_total", "Image encoder cache misses.",
                (unsigned long long)(s->cache_misses > 0 ? s->cache_misses : 0));
    put_prefix_cache(f, &s->prefix);
    free(s);

    /* open_memstream reports a failed allocation through the stream's error flag. */
    int failed = ferror(f);
    if (fclose(f) != 0 || failed) {
        free(text);
        return NULL;
    }
    return text;
}
