/* metrics_test.c — srv_metrics: exact rendered lines after known updates, the series cap,
 * label escaping, exact totals under concurrent updates, and every scrape checked against the
 * Prometheus 0.0.4 text grammar by a small checker (itself tested on lines it must refuse). */
#include "check.h"
#include "server/metrics.h"

#include <ctype.h>
#include <pthread.h>
#include <stdbool.h>

/* ---- the exposition checker ------------------------------------------------------------ */

typedef struct family_seen {
    char name[128];
    char type[16];
} family_seen;

typedef struct checker {
    family_seen families[64];
    int n_families;
    char *series[1024]; /* "name{labels}" of every sample so far: none may repeat */
    int n_series;
    char why[256];
} checker;

static bool name_start(char c)
{
    return isalpha((unsigned char)c) || c == '_' || c == ':';
}

static bool name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == ':';
}

/* [a-zA-Z_:][a-zA-Z0-9_:]*; label names the same without ':'. Returns the end, or NULL. */
static const char *scan_name(const char *p, bool colon)
{
    if (!name_start(*p) || (!colon && *p == ':')) return NULL;
    p++;
    while (name_char(*p) && (colon || *p != ':'))
        p++;
    return p;
}

/* A float as Go's ParseFloat reads it: decimal or exponent form, or +Inf, -Inf, NaN. */
static const char *scan_value(const char *p)
{
    for (const char *w = "+Inf\0-Inf\0NaN\0"; *w; w += strlen(w) + 1)
        if (strncmp(p, w, strlen(w)) == 0) return p + strlen(w);
    const char *q = p;
    if (*q == '+' || *q == '-') q++;
    if (!isdigit((unsigned char)*q) && !(*q == '.' && isdigit((unsigned char)q[1])))
        return NULL; /* strtod would also take "inf", "nan" and hex: not the grammar's */
    char *end;
    strtod(p, &end);
    return end;
}

static family_seen *find_family(checker *c, const char *name, size_t len)
{
    for (int i = 0; i < c->n_families; i++)
        if (strlen(c->families[i].name) == len && strncmp(c->families[i].name, name, len) == 0)
            return &c->families[i];
    return NULL;
}

/* The family a sample belongs to: its own name, or a histogram's name less _bucket/_sum/_count. */
static family_seen *sample_family(checker *c, const char *name, size_t len, bool *is_bucket)
{
    *is_bucket = false;
    family_seen *f = find_family(c, name, len);
    if (f) return f;
    static const char *suffixes[] = {"_bucket", "_sum", "_count"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(suffixes[i]);
        if (len > n && strncmp(name + len - n, suffixes[i], n) == 0) {
            f = find_family(c, name, len - n);
            if (f && strcmp(f->type, "histogram") == 0) {
                *is_bucket = i == 0;
                return f;
            }
        }
    }
    return NULL;
}

static bool check_comment(checker *c, const char *line)
{
    bool help = strncmp(line, "# HELP ", 7) == 0, type = strncmp(line, "# TYPE ", 7) == 0;
    if (!help && !type) return true; /* any other comment is free text */
    const char *name = line + 7, *end = scan_name(name, true);
    if (!end || *end != ' ' || end - name >= 128) {
        snprintf(c->why, sizeof(c->why), "bad metric name in a comment");
        return false;
    }
    if (help) return true;
    const char *kind = end + 1;
    if (strcmp(kind, "counter") && strcmp(kind, "gauge") && strcmp(kind, "histogram") &&
        strcmp(kind, "summary") && strcmp(kind, "untyped")) {
        snprintf(c->why, sizeof(c->why), "unknown type \"%s\"", kind);
        return false;
    }
    if (find_family(c, name, (size_t)(end - name)) || c->n_families == 64) {
        snprintf(c->why, sizeof(c->why), "second TYPE line for one name");
        return false;
    }
    family_seen *f = &c->families[c->n_families++];
    snprintf(f->name, sizeof(f->name), "%.*s", (int)(end - name), name);
    snprintf(f->type, sizeof(f->type), "%s", kind);
    return true;
}

/* name{label="value",...} value [timestamp] */
static bool check_sample(checker *c, const char *line)
{
    const char *p = scan_name(line, true);
    if (!p) {
        snprintf(c->why, sizeof(c->why), "bad metric name");
        return false;
    }
    size_t name_len = (size_t)(p - line);
    bool has_le = false;
    if (*p == '{') {
        p++;
        while (*p != '}') {
            const char *label = p;
            p = scan_name(p, false);
            if (!p || *p != '=' || p[1] != '"') {
                snprintf(c->why, sizeof(c->why), "bad label name or missing =\"");
                return false;
            }
            has_le |= p - label == 2 && strncmp(label, "le", 2) == 0;
            for (p += 2; *p != '"'; p++) {
                if (*p == '\0' || *p == '\n') {
                    snprintf(c->why, sizeof(c->why), "unterminated label value");
                    return false;
                }
                if (*p == '\\' && p[1] != '\\' && p[1] != '"' && p[1] != 'n') {
                    snprintf(c->why, sizeof(c->why), "bad escape in a label value");
                    return false;
                }
                if (*p == '\\') p++;
            }
            p++;
            if (*p == ',')
                p++;
            else if (*p != '}') {
                snprintf(c->why, sizeof(c->why), "expected , or } after a label");
                return false;
            }
        }
        p++;
    }
    size_t series_len = (size_t)(p - line);
    if (*p != ' ') {
        snprintf(c->why, sizeof(c->why), "expected a space before the value");
        return false;
    }
    while (*p == ' ')
        p++;
    p = scan_value(p);
    if (!p) {
        snprintf(c->why, sizeof(c->why), "bad value");
        return false;
    }
    if (*p == ' ') {
        const char *t = p + 1;
        if (*t == '-') t++;
        if (!isdigit((unsigned char)*t)) {
            snprintf(c->why, sizeof(c->why), "bad timestamp");
            return false;
        }
        while (isdigit((unsigned char)*t))
            t++;
        p = t;
    }
    if (*p) {
        snprintf(c->why, sizeof(c->why), "trailing text after the value");
        return false;
    }
    bool is_bucket;
    if (!sample_family(c, line, name_len, &is_bucket)) {
        snprintf(c->why, sizeof(c->why), "sample before (or without) its TYPE line");
        return false;
    }
    if (is_bucket && !has_le) {
        snprintf(c->why, sizeof(c->why), "histogram bucket without le");
        return false;
    }
    for (int i = 0; i < c->n_series; i++)
        if (strlen(c->series[i]) == series_len && strncmp(c->series[i], line, series_len) == 0) {
            snprintf(c->why, sizeof(c->why), "repeated series");
            return false;
        }
    if (c->n_series == 1024 || !(c->series[c->n_series] = strndup(line, series_len))) {
        snprintf(c->why, sizeof(c->why), "too many series for the checker");
        return false;
    }
    c->n_series++;
    return true;
}

/* 0 when every line of text is valid exposition, else the first bad line's number (from 1),
 * its reason in why. */
static int exposition_error(const char *text, char *why, size_t why_size)
{
    checker *c = calloc(1, sizeof(*c));
    int bad = 0, number = 0;
    size_t n = strlen(text);
    if (n == 0 || text[n - 1] != '\n') {
        snprintf(c->why, sizeof(c->why), "text does not end in a newline");
        bad = -1;
    }
    for (const char *line = text; !bad && *line;) {
        const char *nl = strchr(line, '\n');
        char *one = strndup(line, (size_t)(nl - line));
        number++;
        bool ok = one[0] == '#' ? check_comment(c, one) : check_sample(c, one);
        if (!ok) bad = number;
        free(one);
        line = nl + 1;
    }
    snprintf(why, why_size, "%s", c->why);
    for (int i = 0; i < c->n_series; i++)
        free(c->series[i]);
    free(c);
    return bad;
}

#define CHECK_EXPOSITION(text)                                                                     \
    do {                                                                                           \
        char why_[256];                                                                            \
        int bad_ = exposition_error((text), why_, sizeof(why_));                                   \
        if (bad_) fprintf(stderr, "  line %d: %s\n", bad_, why_);                                  \
        CHECK_INT_EQ(bad_, 0);                                                                     \
    } while (0)

/* The line is in the text, whole. */
#define CHECK_LINE(text, line)                                                                     \
    do {                                                                                           \
        char want_[256];                                                                           \
        snprintf(want_, sizeof(want_), "\n%s\n", (line));                                          \
        CHECK_CONTAINS((text), want_);                                                             \
    } while (0)

static int count_prefixed(const char *text, const char *prefix)
{
    int n = 0;
    for (const char *line = text; *line; line = strchr(line, '\n') + 1)
        n += strncmp(line, prefix, strlen(prefix)) == 0;
    return n;
}

/* ---- tests ------------------------------------------------------------------------------ */

static void test_checker_refuses(void)
{
    static const char *bad[] = {
        "1abc 1\n",                           /* name starts with a digit */
        "# TYPE x counter\nx{a=\"b} 1\n",     /* unterminated value */
        "# TYPE x counter\nx{a=b} 1\n",       /* unquoted value */
        "# TYPE x counter\nx{a:b=\"c\"} 1\n", /* ':' in a label name */
        "# TYPE x counter\nx{a=\"\\t\"} 1\n", /* escape the format lacks */
        "# TYPE x counter\nx 1x\n",           /* trailing text */
        "# TYPE x counter\nx inf\n",          /* Go spells it +Inf */
        "# TYPE x counter\nx\n",              /* no value */
        "y 1\n",                              /* no TYPE line */
        "# TYPE x counter\nx 1\nx 2\n",       /* repeated series */
        "# TYPE x counter\n# TYPE x gauge\n", /* two TYPE lines */
        "# TYPE x meter\n",                   /* unknown type */
        "# TYPE h histogram\nh_bucket 1\n",   /* bucket without le */
        "# TYPE x counter\nx 1",              /* no final newline */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char why[256];
        int line = exposition_error(bad[i], why, sizeof(why));
        if (!line) fprintf(stderr, "  accepted: %s", bad[i]);
        CHECK(line != 0);
    }
    char why[256];
    CHECK_INT_EQ(
        exposition_error("# HELP h a histogram\n# TYPE h histogram\n"
                         "h_bucket{le=\"0.5\",} 1 1700000000000\nh_sum -1.5e-3\n"
                         "h_count 1\n# free text\n# TYPE g gauge\ng{a=\"\\\"\\\\\\n\"} NaN\n",
                         why, sizeof(why)),
        0);
}

static void test_empty(void)
{
    srv_metrics *m = srv_metrics_create();
    char *text = srv_metrics_render(m);
    REQUIRE(text != NULL);
    CHECK_EXPOSITION(text);
    CHECK(strncmp(text, "# HELP tessera_requests_total ", 30) == 0);
    CHECK_LINE(text, "# TYPE tessera_requests_total counter");
    CHECK_INT_EQ(count_prefixed(text, "tessera_requests_total{"), 0);
    CHECK_LINE(text, "tessera_prompt_tokens_total 0");
    CHECK_LINE(text, "tessera_generation_tokens_total 0");
    CHECK_LINE(text, "# TYPE tessera_time_to_first_token_seconds histogram");
    CHECK_LINE(text, "tessera_time_to_first_token_seconds_bucket{le=\"+Inf\"} 0");
    CHECK_LINE(text, "tessera_time_to_first_token_seconds_sum 0");
    CHECK_LINE(text, "tessera_time_to_first_token_seconds_count 0");
    CHECK_LINE(text, "# TYPE tessera_inter_token_latency_seconds histogram");
    CHECK_LINE(text, "# TYPE tessera_slots_busy gauge");
    CHECK_LINE(text, "tessera_slots_busy 0");
    CHECK_LINE(text, "tessera_slots_total 0");
    CHECK_LINE(text, "tessera_queue_depth 0");
    CHECK_LINE(text, "# TYPE tessera_encoder_cache_hits_total counter");
    CHECK_LINE(text, "tessera_encoder_cache_hits_total 0");
    CHECK_LINE(text, "tessera_encoder_cache_misses_total 0");
    CHECK_LINE(text, "tessera_prefix_cache_hit_ratio 0.000000");
    CHECK_LINE(text, "tessera_prefix_cache_budget_bytes 0");
    CHECK_LINE(text, "tessera_speculative_steps_total 0");
    CHECK_LINE(text, "tessera_model_steps_total 0");
    CHECK_LINE(text, "tessera_steps_shared_prefill_total 0");
    CHECK_LINE(text, "tessera_step_prefill_chunks_max 0");
    /* 14 + 11 bounded buckets, +Inf, _sum and _count twice, 25 one-sample families; 28 families
     * with two comment lines each. */
    CHECK_INT_EQ(count_prefixed(text, "tessera_"), 14 + 11 + 2 * 3 + 25);
    CHECK_INT_EQ(count_prefixed(text, "# "), 56);
    free(text);
    srv_metrics_destroy(m);
}

static void test_requests(void)
{
    srv_metrics *m = srv_metrics_create();
    srv_metrics_request(m, "completions", 200);
    srv_metrics_request(m, "chat", 200);
    srv_metrics_request(m, "chat", 400);
    srv_metrics_request(m, "chat", 200);
    srv_metrics_request(m, "chat", 503);
    char *text = srv_metrics_render(m);
    CHECK_EXPOSITION(text);
    /* One series per (endpoint, status), sorted, consecutive. */
    CHECK_CONTAINS(text, "# TYPE tessera_requests_total counter\n"
                         "tessera_requests_total{endpoint=\"chat\",status=\"200\"} 2\n"
                         "tessera_requests_total{endpoint=\"chat\",status=\"400\"} 1\n"
                         "tessera_requests_total{endpoint=\"chat\",status=\"503\"} 1\n"
                         "tessera_requests_total{endpoint=\"completions\",status=\"200\"} 1\n"
                         "# HELP");
    free(text);
    srv_metrics_destroy(m);
}

static void test_series_cap(void)
{
    srv_metrics *m = srv_metrics_create();
    for (int i = 0; i < 70; i++) {
        char endpoint[8];
        snprintf(endpoint, sizeof(endpoint), "e%02d", i);
        srv_metrics_request(m, endpoint, 200);
    }
    srv_metrics_request(m, "e00", 200);   /* an existing series still counts as itself */
    srv_metrics_request(m, "e00", 404);   /* a new pair with the table full folds */
    srv_metrics_request(m, "other", 200); /* the literal name shares the fold's series */
    srv_metrics_request(m, NULL, 200);
    srv_metrics_request(m, "", 200);
    srv_metrics_request(m, "an-endpoint-name-longer-than-the-copy-keeps", 200);
    srv_metrics_request(m, "e01", 42);   /* not an HTTP status: counted as "0" */
    srv_metrics_request(m, "e01", 1000); /* likewise */
    char *text = srv_metrics_render(m);
    CHECK_EXPOSITION(text);
    CHECK_INT_EQ(count_prefixed(text, "tessera_requests_total{endpoint=\"e"), 64);
    CHECK_LINE(text, "tessera_requests_total{endpoint=\"e00\",status=\"200\"} 2");
    CHECK_LINE(text, "tessera_requests_total{endpoint=\"e63\",status=\"200\"} 1");
    CHECK(!strstr(text, "endpoint=\"e64\""));
    CHECK_LINE(text, "tessera_requests_total{endpoint=\"other\",status=\"200\"} 10");
    CHECK_LINE(text, "tessera_requests_total{endpoint=\"other\",status=\"404\"} 1");
    CHECK_LINE(text, "tessera_requests_total{endpoint=\"other\",status=\"0\"} 2");
    CHECK_INT_EQ(count_prefixed(text, "tessera_requests_total{endpoint=\"other\""), 3);
    free(text);
    srv_metrics_destroy(m);
}

static void test_label_escaping(void)
{
    srv_metrics *m = srv_metrics_create();
    srv_metrics_request(m, "a\"b\\c\nd", 200);
    char *text = srv_metrics_render(m);
    CHECK_EXPOSITION(text);
    CHECK_LINE(text, "tessera_requests_total{endpoint=\"a\\\"b\\\\c\\nd\",status=\"200\"} 1");
    free(text);
    srv_metrics_destroy(m);
}

static void test_tokens(void)
{
    srv_metrics *m = srv_metrics_create();
    srv_metrics_tokens(m, 10, 5);
    srv_metrics_tokens(m, 3, 0);
    srv_metrics_tokens(m, -7, -1); /* counters never go down */
    srv_metrics_tokens(m, 5000000000LL, 1);
    char *text = srv_metrics_render(m);
    CHECK_EXPOSITION(text);
    CHECK_LINE(text, "tessera_prompt_tokens_total 5000000013");
    CHECK_LINE(text, "tessera_generation_tokens_total 6");
    free(text);
    srv_metrics_speculative(m, 4, 3);
    srv_metrics_speculative(m, 2, 0);
    srv_metrics_speculative(m, -1, -1); /* a step, but counters never go down */
    text = srv_metrics_render(m);
    CHECK_EXPOSITION(text);
    CHECK_LINE(text, "tessera_speculative_steps_total 3");
    CHECK_LINE(text, "tessera_speculative_drafted_tokens_total 6");
    CHECK_LINE(text, "tessera_speculative_accepted_tokens_total 3");
    free(text);
    srv_metrics_destroy(m);
}

static void test_histograms(void)
{
    srv_metrics *m = srv_metrics_create();
    /* 2^-10 and 0.001 land in the first bucket (le is
     * inclusive), 2^-8 in 0.005, 0.125 in 0.25, 64 only in +Inf. */
    srv_metrics_ttft(m, 0.0009765625);
    srv_metrics_ttft(m, 0.001);
    srv_metrics_ttft(m, 0.00390625);
    srv_metrics_ttft(m, 0.125);
    srv_metrics_ttft(m, 64);
    srv_metrics_ttft(m, NAN); /* dropped */
    srv_metrics_ttft(m, -2);  /* a clock stepped back: counts as 0 */
    char *text = srv_metrics_render(m);
    CHECK_EXPOSITION(text);
    CHECK_CONTAINS(text, "# TYPE tessera_time_to_first_token_seconds histogram\n"
                         "tessera_time_to_first_token_seconds_bucket{le=\"0.001\"} 3\n"
                         "tessera_time_to_first_token_seconds_bucket{le=\"0.005\"} 4\n"
                         "tessera_time_to_first_token_seconds_bucket{le=\"0.01\"} 4\n"
                         "tessera_time_to_first_token_seconds_bucket{le=\"0.025\"} 4\n"
                         "tessera_time_to_first_token_seconds_bucket{le=\"0.05\"} 4\n"
                         "tessera_time_to_first_token_seconds_bucket{le=\"0.1\"} 4\n"
                         "tessera_time_to_first_token_seconds_bucket{le=\"0.25\"} 5\n"
                         "tessera_time_to_first_token_seconds_bucket{le=\"0.5\"} 5\n"
                         "tessera_time_to_first_token_seconds_bucket{le=\"1\"} 5\n"
                         "tessera_time_to_first_token_seconds_bucket{le=\"2.5\"} 5\n"
                         "tessera_time_to_first_token_seconds_bucket{le=\"5\"} 5\n"
                         "tessera_time_to_first_token_seconds_bucket{le=\"10\"} 5\n"
                         "tessera_time_to_first_token_seconds_bucket{le=\"30\"} 5\n"
                         "tessera_time_to_first_token_seconds_bucket{le=\"60\"} 5\n"
                         "tessera_time_to_first_token_seconds_bucket{le=\"+Inf\"} 6\n"
                         "tessera_time_to_first_token_seconds_sum 64.1308828125\n"
                         "tessera_time_to_first_token_seconds_count 6\n");
    /* The other histogram is untouched by TTFT observations. */
    CHECK_LINE(text, "tessera_inter_token_latency_seconds_count 0");
    free(text);

    srv_metrics_inter_token(m, 0.0025); /* on a bound: that bucket */
    srv_metrics_inter_token(m, 0.03);
    srv_metrics_inter_token(m, 3);
    text = srv_metrics_render(m);
    CHECK_EXPOSITION(text);
    CHECK_CONTAINS(text, "# TYPE tessera_inter_token_latency_seconds histogram\n"
                         "tessera_inter_token_latency_seconds_bucket{le=\"0.001\"} 0\n"
                         "tessera_inter_token_latency_seconds_bucket{le=\"0.0025\"} 1\n"
                         "tessera_inter_token_latency_seconds_bucket{le=\"0.005\"} 1\n"
                         "tessera_inter_token_latency_seconds_bucket{le=\"0.01\"} 1\n"
                         "tessera_inter_token_latency_seconds_bucket{le=\"0.025\"} 1\n"
                         "tessera_inter_token_latency_seconds_bucket{le=\"0.05\"} 2\n"
                         "tessera_inter_token_latency_seconds_bucket{le=\"0.1\"} 2\n"
                         "tessera_inter_token_latency_seconds_bucket{le=\"0.25\"} 2\n"
                         "tessera_inter_token_latency_seconds_bucket{le=\"0.5\"} 2\n"
                         "tessera_inter_token_latency_seconds_bucket{le=\"1\"} 2\n"
                         "tessera_inter_token_latency_seconds_bucket{le=\"2.5\"} 2\n"
                         "tessera_inter_token_latency_seconds_bucket{le=\"+Inf\"} 3\n"
                         "tessera_inter_token_latency_seconds_sum 3.0325\n"
                         "tessera_inter_token_latency_seconds_count 3\n");
    CHECK_LINE(text, "tessera_time_to_first_token_seconds_count 6");
    free(text);

    srv_metrics_inter_token(m, INFINITY); /* the sum follows the grammar's spelling */
    text = srv_metrics_render(m);
    CHECK_EXPOSITION(text);
    CHECK_LINE(text, "tessera_inter_token_latency_seconds_sum +Inf");
    CHECK_LINE(text, "tessera_inter_token_latency_seconds_bucket{le=\"+Inf\"} 4");
    free(text);
    srv_metrics_destroy(m);
}

static void test_gauges_and_cache(void)
{
    srv_metrics *m = srv_metrics_create();
    srv_metrics_set_slots(m, 3, 8);
    srv_metrics_set_queue(m, 5);
    srv_metrics_encoder_cache(m, 5, 7);
    srv_metrics_set_slots(m, 1, 4); /* gauges and running totals overwrite, never add */
    srv_metrics_set_queue(m, 0);
    srv_metrics_encoder_cache(m, 9, 8);
    char *text = srv_metrics_render(m);
    CHECK_EXPOSITION(text);
    CHECK_LINE(text, "tessera_slots_busy 1");
    CHECK_LINE(text, "tessera_slots_total 4");
    CHECK_LINE(text, "tessera_queue_depth 0");
    CHECK_LINE(text, "tessera_encoder_cache_hits_total 9");
    CHECK_LINE(text, "tessera_encoder_cache_misses_total 8");
    free(text);
    /* The prefix cache's totals overwrite too; the ratio is restored over looked-up tokens. */
    srv_prefix_totals p = {1, 1, 10, 5, 1, 0, 100, 1000};
    srv_metrics_prefix_cache(m, &p);
    p = (srv_prefix_totals){4, 3, 400, 96, 6, 2, 6000, 1 << 20};
    srv_metrics_prefix_cache(m, &p);
    text = srv_metrics_render(m);
    CHECK_EXPOSITION(text);
    CHECK_LINE(text, "# TYPE tessera_prefix_cache_lookups_total counter");
    CHECK_LINE(text, "tessera_prefix_cache_lookups_total 4");
    CHECK_LINE(text, "tessera_prefix_cache_hits_total 3");
    CHECK_LINE(text, "tessera_prefix_cache_prompt_tokens_total 400");
    CHECK_LINE(text, "tessera_prefix_cache_cached_tokens_total 96");
    CHECK_LINE(text, "# TYPE tessera_prefix_cache_hit_ratio gauge");
    CHECK_LINE(text, "tessera_prefix_cache_hit_ratio 0.240000");
    CHECK_LINE(text, "tessera_prefix_cache_evictions_total 2");
    CHECK_LINE(text, "tessera_prefix_cache_blocks 6");
    CHECK_LINE(text, "tessera_prefix_cache_bytes 6000");
    CHECK_LINE(text, "tessera_prefix_cache_budget_bytes 1048576");
    free(text);
    srv_metrics_destroy(m);
}

/* The scheduler's steps: rows, chunks and decode tokens add up; a step with two or more prompt
 * chunks counts as shared; the most chunks in one step is kept. */
static void test_steps(void)
{
    srv_metrics *m = srv_metrics_create();
    srv_metrics_step(m, 33, 1, 1);  /* one chunk of 32 and a decode token */
    srv_metrics_step(m, 90, 3, 2);  /* three chunks shared one step */
    srv_metrics_step(m, 4, 0, 4);   /* decode only */
    srv_metrics_step(m, 64, 2, 0);
    srv_metrics_step(m, -5, -1, -1); /* nonsense counts add nothing but the step */
    char *text = srv_metrics_render(m);
    CHECK_EXPOSITION(text);
    CHECK_LINE(text, "# TYPE tessera_model_steps_total counter");
    CHECK_LINE(text, "tessera_model_steps_total 5");
    CHECK_LINE(text, "tessera_step_rows_total 191");
    CHECK_LINE(text, "tessera_step_prefill_chunks_total 6");
    CHECK_LINE(text, "tessera_step_decode_rows_total 7");
    CHECK_LINE(text, "tessera_steps_shared_prefill_total 2");
    CHECK_LINE(text, "# TYPE tessera_step_prefill_chunks_max gauge");
    CHECK_LINE(text, "tessera_step_prefill_chunks_max 3");
    free(text);
    srv_metrics_destroy(m);
}

#define THREADS 4
#define UPDATES 10000

typedef struct worker {
    srv_metrics *m;
    int id;
} worker;

static void *update(void *arg)
{
    const worker *w = arg;
    char own[16];
    snprintf(own, sizeof(own), "t%d", w->id);
    for (int i = 0; i < UPDATES; i++) {
        srv_metrics_request(w->m, "chat", 200);
        srv_metrics_request(w->m, own, i % 2 ? 500 : 200);
        srv_metrics_tokens(w->m, 1, 2);
        srv_metrics_ttft(w->m, 0.25);
        srv_metrics_inter_token(w->m, 0.0078125);
        srv_metrics_set_slots(w->m, w->id, THREADS);
    }
    return NULL;
}

/* Scrapes while the workers run: each must parse, and each histogram must be one instant. */
static void *scrape(void *arg)
{
    srv_metrics *m = arg;
    int bad = 0;
    for (int i = 0; i < 200; i++) {
        char *text = srv_metrics_render(m), why[256];
        if (!text) {
            bad++;
            continue;
        }
        bad += exposition_error(text, why, sizeof(why)) != 0;
        const char *inf = strstr(text, "tessera_time_to_first_token_seconds_bucket{le=\"+Inf\"} ");
        const char *count = strstr(text, "tessera_time_to_first_token_seconds_count ");
        bad +=
            !inf || !count ||
            strtoull(strchr(inf, '}') + 2, NULL, 10) != strtoull(strchr(count, ' ') + 1, NULL, 10);
        free(text);
    }
    return (void *)(intptr_t)bad;
}

static void test_concurrent(void)
{
    srv_metrics *m = srv_metrics_create();
    pthread_t threads[THREADS], scraper;
    worker workers[THREADS];
    CHECK_INT_EQ(pthread_create(&scraper, NULL, scrape, m), 0);
    for (int i = 0; i < THREADS; i++) {
        workers[i] = (worker){m, i};
        CHECK_INT_EQ(pthread_create(&threads[i], NULL, update, &workers[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(threads[i], NULL);
    void *bad;
    pthread_join(scraper, &bad);
    CHECK_INT_EQ((intptr_t)bad, 0);

    char *text = srv_metrics_render(m);
    CHECK_EXPOSITION(text);
    CHECK_LINE(text, "tessera_requests_total{endpoint=\"chat\",status=\"200\"} 40000");
    for (int i = 0; i < THREADS; i++) {
        char line[128];
        snprintf(line, sizeof(line), "tessera_requests_total{endpoint=\"t%d\",status=\"200\"} %d",
                 i, UPDATES / 2);
        CHECK_LINE(text, line);
        snprintf(line, sizeof(line), "tessera_requests_total{endpoint=\"t%d\",status=\"500\"} %d",
                 i, UPDATES / 2);
        CHECK_LINE(text, line);
    }
    CHECK_LINE(text, "tessera_prompt_tokens_total 40000");
    CHECK_LINE(text, "tessera_generation_tokens_total 80000");
    CHECK_LINE(text, "tessera_time_to_first_token_seconds_bucket{le=\"0.1\"} 0");
    CHECK_LINE(text, "tessera_time_to_first_token_seconds_bucket{le=\"0.25\"} 40000");
    CHECK_LINE(text, "tessera_time_to_first_token_seconds_sum 10000");
    CHECK_LINE(text, "tessera_time_to_first_token_seconds_count 40000");
    CHECK_LINE(text, "tessera_inter_token_latency_seconds_bucket{le=\"0.005\"} 0");
    CHECK_LINE(text, "tessera_inter_token_latency_seconds_bucket{le=\"0.01\"} 40000");
    CHECK_LINE(text, "tessera_inter_token_latency_seconds_sum 312.5");
    CHECK_LINE(text, "tessera_inter_token_latency_seconds_count 40000");
    CHECK_LINE(text, "tessera_slots_total 4");
    free(text);
    srv_metrics_destroy(m);
}

int main(void)
{
    RUN(test_checker_refuses);
    RUN(test_empty);
    RUN(test_requests);
    RUN(test_series_cap);
    RUN(test_label_escaping);
    RUN(test_tokens);
    RUN(test_histograms);
    RUN(test_gauges_and_cache);
    RUN(test_steps);
    RUN(test_concurrent);
    return check_finish();
}
