/* bench_speculative.c — `tessera bench --speculative`: what speculative decoding costs and saves.
 *
 * Two parts, both on CPU time of the whole process (CLOCK_PROCESS_CPUTIME_ID, every worker
 * thread counted), which a loaded machine disturbs far less than wall time (printed beside it):
 *   cost    one verify step of r rows (r = 1 … k + 1) against one plain decode step, after a
 *           prompt of -p tokens: how much a step of drafts costs, whatever they are;
 *   gains   greedy generation of -n tokens, plain and with drafts of up to k, on a
 *           summarisation-style prompt (a passage, then the request to repeat it: the output
 *           quotes spans of the prompt) and on free generation: forward passes, verify steps,
 *           accepted tokens per verify step, CPU time per token and the speed-up. The two runs'
 *           tokens must be identical (else exit 1). A third run drafts from the plain run's
 *           output as well: every draft right, the ceiling of the gain at this draft length.
 * With -m DIR the prompts are text through the model's tokenizer (raw, no chat template); with
 * --synthetic PRESET (random weights, no tokenizer) they are id sequences of the same shape, and
 * the model's output does not quote anything, so its gains show the overhead side only.
 */
#include "cli.h"
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int usage(FILE *out)
{
    fprintf(out,
            "usage: tessera bench --speculative (-m DIR | --synthetic PRESET) [--draft K] [-p N] "
            "[-n N] [--threads N] [--compute MODE]\n"
            "  --draft K  drafted tokens per step (default 4)\n"
            "  --compute  matmul precision, as for run (default auto)\n"
            "  -p N       prompt tokens before the cost part's steps (default 256)\n"
            "  -n N       tokens generated per run in the gains part (default 64)\n");
    return out == stdout ? TS_EXIT_OK : TS_EXIT_USAGE;
}

/* A deterministic English-like passage of about `words` words. */
static void passage(char *out, size_t cap, int words)
{
    static const char *const w[] = {"the",   "river",   "runs",  "past", "an",    "old",    "mill",
                                    "where", "farmers", "bring", "corn", "every", "autumn", "and",
                                    "the",   "miller",  "keeps", "a",    "ledger", "of",    "sacks"};
    size_t at = 0;
    uint32_t x = 12345;
    for (int i = 0; i < words && at + 16 < cap; i++) {
        x = x * 1103515245u + 12345u;
        at += (size_t)snprintf(out + at, cap - at, "%s%s", i ? (i % 12 == 0 ? ". " : " ") : "",
                               w[(x >> 16) % (sizeof(w) / sizeof(w[0]))]);
    }
    snprintf(out + at, cap - at, ".");
}

typedef struct {
    ts_model *m;
    const ts_model_config *cfg;
    int k;
    long long gen;
} bench;

/* Greedy generation of the prompt, plain (k = 0) or speculative (drafts also looked up in
 * `context`, n_context tokens); CPU and wall seconds. */
static ts_status generate(const bench *b, const int32_t *ids, size_t n, int k, const int32_t *context,
                          size_t n_context, ts_generation *g, double *cpu, double *wall, ts_error *err)
{
    ts_sequence *seq;
    ts_status st = ts_sequence_create_draft(b->m, (int64_t)n + b->gen, k, &seq, err);
    if (st) return st;
    ts_generate_params p = {.max_tokens = b->gen, .ignore_eos = true, .draft_tokens = k,
                            .eos_ids = b->cfg->eos_token_ids, .n_eos_ids = b->cfg->n_eos_token_ids,
                            .draft_context = context, .n_draft_context = n_context};
    ts_sampling_params_default(&p.sampling);
    /* The prompt is prefilled untimed first (a warm program cache, pages in). */
    ts_generation warm;
    p.max_tokens = 2;
    st = ts_generate(b->m, seq, ids, n, &p, &warm, err);
    ts_generation_free(&warm);
    p.max_tokens = b->gen;
    ts_sequence_reset(seq);
    double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
    if (!st) st = ts_generate(b->m, seq, ids, n, &p, g, err);
    *cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0; /* with the prefill: gains() takes it off */
    *wall = clock_s(CLOCK_MONOTONIC) - w0;
    ts_sequence_destroy(seq);
    return st;
}

/* Plain, speculative, and speculative with drafts that are always right (looked up in the
 * plain run's output: the ceiling, what the verify steps give when every draft holds) on one
 * prompt: figures per generated token after the prefill. */
static int gains(const bench *b, const char *name, const int32_t *ids, size_t n)
{
    ts_error err;
    ts_generation g[3];
    double cpu[3], wall[3], prefill_cpu;
    int32_t *oracle = NULL;
    for (int s = 0; s < 3; s++) {
        if (s == 2 && (oracle = malloc(sizeof(int32_t) * (n + g[0].n_ids)))) {
            memcpy(oracle, ids, sizeof(int32_t) * n);
            memcpy(oracle + n, g[0].ids, sizeof(int32_t) * g[0].n_ids);
        }
        if (generate(b, ids, n, s ? b->k : 0, s == 2 ? oracle : NULL, s == 2 && oracle ? n + g[0].n_ids : 0, &g[s],
                     &cpu[s], &wall[s], &err) != TS_OK) {
            for (int t = 0; t < s; t++) ts_generation_free(&g[t]);
            free(oracle);
            return ts_cli_fail("bench", &err);
        }
    }
    free(oracle);
    /* The prefill's CPU time, measured alone, is taken off both runs. */
    ts_sequence *seq;
    float *logits = malloc(sizeof(float) * (size_t)ts_model_vocab_size(b->m));
    if (!logits || ts_sequence_create(b->m, (int64_t)n, &seq, &err) != TS_OK) {
        free(logits);
        return ts_cli_fail("bench", &err);
    }
    double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    ts_model_prefill(b->m, seq, ids, n, logits, &err);
    prefill_cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    ts_sequence_destroy(seq);
    free(logits);
    bool same = true;
    for (int s = 1; s < 3; s++)
        same &= g[0].n_ids == g[s].n_ids && memcmp(g[0].ids, g[s].ids, g[0].n_ids * sizeof(int32_t)) == 0;
    for (int s = 0; s < 3; s++) {
        const ts_generation *x = &g[s];
        double per = (cpu[s] - prefill_cpu) / (double)x->n_ids;
        printf("%-14s %-12s %3zu prompt, %3zu tokens, %3zu forwards (%.2f tokens each)", s ? "" : name,
               s == 2 ? "right drafts" : s ? "speculative" : "plain", n, x->n_ids, x->forwards,
               x->forwards ? (double)x->n_ids / (double)x->forwards : 0.0);
        if (s)
            printf(", %zu verify steps: %zu of %zu drafts accepted, %.2f accepted per step", x->verify_steps,
                   x->accepted, x->drafted, x->verify_steps ? (double)x->accepted / (double)x->verify_steps : 0.0);
        printf("; CPU %.2f ms/token, wall %.2f ms/token\n", per * 1e3, x->generation_ms / (double)x->n_ids);
    }
    printf("%-14s speed-up (CPU time per token against plain) %.2fx, with right drafts %.2fx (wall %.2fx, "
           "%.2fx); tokens %s\n",
           "", (cpu[0] - prefill_cpu) / (cpu[1] - prefill_cpu), (cpu[0] - prefill_cpu) / (cpu[2] - prefill_cpu),
           g[0].generation_ms / g[1].generation_ms, g[0].generation_ms / g[2].generation_ms,
           same ? "identical" : "DIFFER");
    for (int s = 0; s < 3; s++) ts_generation_free(&g[s]);
    return same ? TS_EXIT_OK : TS_EXIT_RUNTIME;
}

/* CPU time of a verify step of r rows against a plain decode step, after `prompt` tokens. */
static int cost(const bench *b, long long prompt)
{
    ts_error err;
    int64_t vocab = ts_model_vocab_size(b->m);
    int32_t *ids = malloc(sizeof(int32_t) * (size_t)(prompt + b->k + 1));
    float *rows = malloc(sizeof(float) * (size_t)vocab * (size_t)(b->k + 1));
    ts_sequence *seq = NULL;
    int rc = TS_EXIT_OK;
    for (long long i = 0; ids && i < prompt + b->k + 1; i++) ids[i] = (int32_t)((i * 7919 + 11) % vocab);
    if (!ids || !rows || ts_sequence_create_draft(b->m, prompt + b->k + 1, b->k, &seq, &err) != TS_OK ||
        ts_model_prefill(b->m, seq, ids, (size_t)prompt, rows, &err) != TS_OK) {
        rc = ts_cli_fail("bench", &err);
        goto done;
    }
    enum { REPS = 8 };
    double base = 0;
    for (int r = 0; r <= b->k + 1 && rc == TS_EXIT_OK; r++) {
        /* r = 0: ts_model_decode, the plain step; r ≥ 1: ts_model_verify of r rows. One untimed
         * call first builds the step's program. */
        double t = 0, w = 0;
        for (int rep = -1; rep < REPS; rep++) {
            int64_t rows_n = r;
            double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
            ts_status st = r == 0 ? ts_model_decode(b->m, &seq, ids + prompt, 1, rows, &err)
                                  : ts_model_verify(b->m, &seq, 1, ids + prompt, &rows_n, rows, &err);
            if (rep >= 0) t += clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0, w += clock_s(CLOCK_MONOTONIC) - w0;
            if (!st) st = ts_sequence_truncate(seq, prompt, &err);
            if (st) {
                rc = ts_cli_fail("bench", &err);
                break;
            }
        }
        t /= REPS, w /= REPS;
        if (r == 0) base = t;
        printf("%-14s %s %2d row%s: CPU %.2f ms (%.2fx a decode step), wall %.2f ms\n", r == 0 ? "cost" : "",
               r == 0 ? "decode" : "verify", r ? r : 1, r > 1 ? "s" : " ", t * 1e3, t / base, w * 1e3);
    }
done:
    ts_sequence_destroy(seq);
    free(ids), free(rows);
    return rc;
}

int bench_speculative(int argc, char **argv)
{
    const char *dir = NULL, *preset = NULL, *v;
    long long k = 4, prompt = 256, gen = 64, threads = 0;
    const char *compute = "auto";
    for (int i = 1; i < argc; i++) {
        if (ts_cli_is_help(argv[i])) return usage(stdout);
        if (ts_cli_match(argc, argv, &i, "--speculative", NULL)) continue;
        if (ts_cli_match(argc, argv, &i, "--synthetic", &v)) preset = v;
        else if (ts_cli_match(argc, argv, &i, "-m", &v) || ts_cli_match(argc, argv, &i, "--model", &v)) dir = v;
        else if (ts_cli_match(argc, argv, &i, "--draft", &v)) {
            if (!ts_cli_parse_int(v, 1, TS_MAX_DRAFT, &k)) return ts_cli_usage_error("bench", "--draft needs 1..%d", TS_MAX_DRAFT);
        } else if (ts_cli_match(argc, argv, &i, "-p", &v)) {
            if (!ts_cli_parse_int(v, 1, 1 << 16, &prompt)) return ts_cli_usage_error("bench", "-p needs a token count");
        } else if (ts_cli_match(argc, argv, &i, "-n", &v)) {
            if (!ts_cli_parse_int(v, 2, 1 << 16, &gen)) return ts_cli_usage_error("bench", "-n needs a token count ≥ 2");
        } else if (ts_cli_match(argc, argv, &i, "--threads", &v)) {
            if (!ts_cli_parse_int(v, 1, 1024, &threads)) return ts_cli_usage_error("bench", "--threads needs a number");
        } else if (ts_cli_match(argc, argv, &i, "--compute", &v)) {
            compute = v;
        } else return ts_cli_usage_error("bench", "unknown argument '%s'", argv[i]);
    }
    if (!dir == !preset) return usage(stderr);
    ts_error err;
    ts_context *ctx;
    ts_context_options copt = {.n_threads = (int)threads, .log_level = TS_LOG_WARN, .compute = compute};
    if (ts_context_create(&copt, &ctx, &err) != TS_OK) return ts_cli_fail("bench", &err);
    ts_model *m = NULL;
    ts_tokenizer *tok = NULL;
    ts_status st = preset ? ts_model_create_synthetic(ctx, preset, TS_DTYPE_BF16, &m, &err)
                          : ts_model_load(ctx, dir, NULL, &m, &err);
    if (!st && dir) st = ts_tokenizer_load(dir, &tok, &err);
    if (st) {
        ts_model_destroy(m);
        ts_context_destroy(ctx);
        return ts_cli_fail("bench", &err);
    }
    bench b = {m, ts_model_get_config(m), (int)k, gen};
    char choice[256];
    printf("model          %s (%s); drafts of up to %d tokens; threads %d; compute %s\n", preset ? preset : dir,
           preset ? "synthetic bf16 weights" : "checkpoint", b.k, ts_context_threads(ctx),
           ts_context_compute_summary(ctx, choice, sizeof(choice)));
    int rc = cost(&b, prompt);
    /* The two prompts: text through the tokenizer, or ids of the same shape. */
    static char text[8192];
    int64_t vocab = ts_model_vocab_size(m);
    for (int which = 0; which < 2 && rc == TS_EXIT_OK; which++) {
        int32_t *ids = NULL;
        size_t n = 0;
        if (tok) {
            if (which == 0) {
                passage(text, sizeof(text) - 200, 180);
                strcat(text, "\n\nRepeat the passage above word for word:\n\n");
            } else {
                snprintf(text, sizeof(text), "Write a short story about a lighthouse keeper who finds a message in a bottle.");
            }
            if (ts_tokenizer_encode(tok, text, strlen(text), true, &ids, &n, &err) != TS_OK) rc = ts_cli_fail("bench", &err);
        } else {
            /* A passage of 200 ids (spans of 20 repeat), then 16 ids of "instruction". */
            n = which == 0 ? 216 : 24;
            ids = malloc(sizeof(int32_t) * n);
            for (size_t i = 0; ids && i < n; i++)
                ids[i] = (int32_t)(which == 0 && i < 200 ? ((i % 60) * 7919 + 3) % vocab : (i * 104729 + 5) % vocab);
        }
        if (rc == TS_EXIT_OK) rc = gains(&b, which == 0 ? "summarise" : "free", ids, n);
        free(ids);
    }
    ts_tokenizer_destroy(tok);
    ts_model_destroy(m);
    ts_context_destroy(ctx);
    return rc;
}
