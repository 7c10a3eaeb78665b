/* cmd_bench.c — `tessera bench`: `--tokenizer DIR` measures tokenizer load time and encode
 * throughput here; `--synthetic PRESET` or `-m DIR` hands over to bench_model.c, `--speculative` to
 * bench_speculative.c.
 *
 * Load time is the median of three loads. Throughput encodes N MB of generated text split into
 * ~4 KB documents (so byte-level and SentencePiece-style tokenizers both see realistic pieces),
 * either on one thread or spread over --threads threads sharing the one tokenizer. The text is
 * deterministic (fixed-seed generator) so runs compare.
 */
#include "cli.h"
#include "commands.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static const char *const english_words[] = {"the",          "of",           "and",
                                            "to",           "in",           "a",
                                            "is",           "that",         "for",
                                            "it",           "as",           "was",
                                            "with",         "be",           "by",
                                            "on",           "not",          "he",
                                            "this",         "are",          "or",
                                            "his",          "from",         "at",
                                            "which",        "but",          "have",
                                            "an",           "had",          "they",
                                            "you",          "were",         "their",
                                            "one",          "all",          "we",
                                            "can",          "her",          "has",
                                            "there",        "been",         "if",
                                            "more",         "when",         "will",
                                            "would",        "who",          "so",
                                            "no",           "model",        "language",
                                            "tokenizer",    "inference",    "engine",
                                            "through",      "between",      "information",
                                            "government",   "development",  "understanding",
                                            "particularly", "considerable", "approximately",
                                            "river",        "mountain",     "morning",
                                            "evening",      "history",      "science",
                                            "children",     "question",     "answer",
                                            "however",      "therefore",    "because",
                                            "although",     "people",       "world",
                                            "country",      "system"};

static const char *const mixed_pieces[] = {"int main(void) {\n    return 0;\n}\n",
                                           "for (size_t i = 0; i < n; i++) x[i] += y[i];\n",
                                           "def f(x):\n\treturn x ** 2  # square\n",
                                           "今天天气很好，我们去公园散步吧。",
                                           "東京は日本の首都です。",
                                           "한국어 문장도 포함됩니다. ",
                                           "مرحبا بالعالم، كيف حالك اليوم؟ ",
                                           "שלום עולם ",
                                           "👨‍👩‍👧‍👦 family 👍🏽 ok 🎉🎉 ",
                                           "Ünïcödé naïve café résumé ",
                                           "1234567890 3.14159 ",
                                           "<div class=\"x\">&nbsp;</div>\n",
                                           "   spaces    and\ttabs\r\n"};

/* Appends roughly `bytes` of text to a fresh buffer; documents end with "\n\n". */
static char *generate(bool mixed, size_t bytes, size_t *len)
{
    char *buf = malloc(bytes + 256);
    if (!buf) return NULL;
    uint64_t state = mixed ? 0x9E3779B97F4A7C15ULL : 0xD1B54A32D192ED03ULL;
    size_t n = 0, sentence = 0;
    while (n < bytes) {
        const char *w;
        if (mixed) {
            w = mixed_pieces[next_random(&state) %
                             (sizeof(mixed_pieces) / sizeof(mixed_pieces[0]))];
        } else {
            w = english_words[next_random(&state) %
                              (sizeof(english_words) / sizeof(english_words[0]))];
        }
        size_t k = strlen(w);
        if (!mixed && sentence == 0) {
            buf[n++] = (char)(w[0] - 32 * (w[0] >= 'a' && w[0] <= 'z'));
            memcpy(buf + n, w + 1, k - 1);
            n += k - 1;
        } else {
            memcpy(buf + n, w, k);
            n += k;
        }
        if (!mixed) {
            sentence++;
            if (sentence > 8 + next_random(&state) % 12) {
                buf[n++] = next_random(&state) % 5 ? '.' : ',';
                sentence = buf[n - 1] == '.' ? 0 : sentence;
            }
            buf[n++] = next_random(&state) % 40 ? ' ' : '\n';
        }
    }
    *len = n;
    return buf;
}

typedef struct job {
    const ts_tokenizer *tok;
    const char *text;
    size_t len;
    size_t n_tokens;
    ts_status status;
    ts_error err;
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    const size_t doc = 4096;
    for (size_t at = 0; at < j->len;) {
        size_t end = at + doc < j->len ? at + doc : j->len;
        /* Cut on a character boundary so each document is valid UTF-8. */
        while (end < j->len && ((unsigned char)j->text[end] & 0xC0) == 0x80)
            end++;
        int32_t *ids;
        size_t n;
        j->status = ts_tokenizer_encode(j->tok, j->text + at, end - at, false, &ids, &n, &j->err);
        if (j->status) return NULL;
        j->n_tokens += n;
        free(ids);
        at = end;
    }
    return NULL;
}

static int measure(const ts_tokenizer *tok, const char *name, bool mixed, size_t bytes, int threads)
{
    size_t len;
    char *text = generate(mixed, bytes, &len);
    if (!text) return TS_EXIT_RUNTIME;
    job jobs[64];
    pthread_t tids[64];
    size_t per = len / (size_t)threads, at = 0;
    for (int t = 0; t < threads; t++) {
        size_t end = t == threads - 1 ? len : at + per;
        while (end < len && ((unsigned char)text[end] & 0xC0) == 0x80)
            end++;
        jobs[t] = (job){.tok = tok, .text = text + at, .len = end - at};
        at = end;
    }
    double t0 = now_s();
    for (int t = 0; t < threads; t++)
        pthread_create(&tids[t], NULL, run_job, &jobs[t]);
    size_t tokens = 0;
    int rc = TS_EXIT_OK;
    for (int t = 0; t < threads; t++) {
        pthread_join(tids[t], NULL);
        tokens += jobs[t].n_tokens;
        if (jobs[t].status) rc = ts_cli_fail("bench", &jobs[t].err);
    }
    double dt = now_s() - t0;
    if (rc == TS_EXIT_OK)
        printf("| encode %-7s | %7.2f MB | %9.1f MB/s | %6.2f M tokens/s | %5.2f bytes/token |\n",
               name, (double)len / 1e6, (double)len / 1e6 / dt, (double)tokens / 1e6 / dt,
               tokens ? (double)len / (double)tokens : 0.0);
    free(text);
    return rc;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int bench_tokenizer(int argc, char **argv)
{
    const char *dir = NULL;
    long long mb = 10, threads = 1;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (ts_cli_is_help(argv[i])) {
            printf("usage: tessera bench --tokenizer DIR [--mb N] [--threads N]\n"
                   "       tessera bench --synthetic PRESET … (see tessera bench --synthetic x --help)\n\n"
                   "Measures tokenizer.json load time (median of 3) and encode throughput on N MB\n"
                   "(default 10) of generated English prose and of mixed text (code, CJK, emoji,\n"
                   "Arabic, Hebrew), on --threads threads (default 1).\n");
            return TS_EXIT_OK;
        } else if (ts_cli_match(argc, argv, &i, "--tokenizer", &v)) {
            if (!v) return ts_cli_usage_error("bench", "--tokenizer needs a folder");
            dir = v;
        } else if (ts_cli_match(argc, argv, &i, "--mb", &v)) {
            if (!ts_cli_parse_int(v, 1, 4096, &mb))
                return ts_cli_usage_error("bench", "--mb needs a whole number in 1..4096");
        } else if (ts_cli_match(argc, argv, &i, "--threads", &v)) {
            if (!ts_cli_parse_int(v, 1, 64, &threads))
                return ts_cli_usage_error("bench", "--threads needs a whole number in 1..64");
        } else {
            return ts_cli_usage_error("bench", "unknown argument '%s'", argv[i]);
        }
    }
    if (!dir) return ts_cli_usage_error("bench", "--tokenizer DIR is required");
    double load_ms[3];
    ts_tokenizer *tok = NULL;
    for (int r = 0; r < 3; r++) {
        ts_error err = {0};
        if (tok) ts_tokenizer_destroy(tok);
        double t0 = now_s();
        if (ts_tokenizer_load(dir, &tok, &err)) return ts_cli_fail("bench", &err);
        load_ms[r] = (now_s() - t0) * 1e3;
    }
    qsort(load_ms, 3, sizeof(double), compare_double);
    printf("tokenizer: %s (vocab %zu), threads: %lld\n", dir, ts_tokenizer_vocab_size(tok),
           threads);
    printf("| load           | median of 3 | %8.1f ms | (min %.1f, max %.1f) |\n", load_ms[1],
           load_ms[0], load_ms[2]);
    size_t bytes = (size_t)mb * 1000 * 1000;
    int rc = measure(tok, "english", false, bytes, (int)threads);
    if (rc == TS_EXIT_OK) rc = measure(tok, "mixed", true, bytes, (int)threads);
    ts_tokenizer_destroy(tok);
    return rc;
}

/* `bench --synthetic …` measures a model; anything else the tokenizer. */
int cmd_bench(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--speculative") == 0) return bench_speculative(argc, argv);
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "--synthetic", 11) == 0 || strcmp(argv[i], "-m") == 0 || strcmp(argv[i], "--model") == 0)
            return bench_model(argc, argv);
    return bench_tokenizer(argc, argv);
}
