/* bench_bundle.c — `tessera bench --synthetic PRESET --bundle-capacity C`: the same preset through
 * an exported bundle (prefill.main, then decode.main over a C-row cache), in the same run as the
 * engine, so the two decode rates compare on one machine state.
 *
 * The preset is written as a checkpoint folder (ts_model_write_synthetic_checkpoint: the engine's
 * weights, bit for bit) and exported with one bucket of capacity C, prefill capacity = the prompt,
 * one slot; both are removed afterwards unless --bundle-dir names a folder. Two measurements:
 *  1. the bundle alone, the engine model freed: prefill, decode of the engine's token sequence
 *     (logits compared with the engine's), and the phase's peak RSS (the kernel's high-water mark
 *     reset before it): weights mapped from the file, the two caches, the programs' workspaces —
 *     a per-step copy of the caches would add their size again;
 *  2. the engine (loaded from the written checkpoint) and the bundle side by side, decode steps
 *     interleaved in blocks of 8, so a shared machine's load falls on both alike: the ratio.
 */
#include "cli.h"
#include "commands.h"

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A /proc/self/status figure ("VmHWM:" peak resident set, "VmRSS:" the current one) in MB; -1
 * when unreadable. */
static double status_mb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = -1;
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, key, strlen(key)) == 0) kb = strtod(line + strlen(key), NULL);
    if (f) fclose(f);
    return kb < 0 ? -1 : kb / 1024.0;
}

/* Resets the peak resident set to the current one (Linux clear_refs 5); false if refused. */
static bool reset_peak_rss(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return false;
    bool ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* The decode step of one sequence through either path, timed. */
typedef struct {
    ts_model *model;
    ts_sequence *seq;
    ts_bundle_slots *slots;
} stepper;

static ts_status step(stepper *x, int32_t tok, float *logits, double *elapsed, ts_error *err)
{
    bool active = true;
    double t = now();
    ts_status st = x->model ? ts_model_decode(x->model, &x->seq, &tok, 1, logits, err) : ts_bundle_slots_decode(x->slots, &tok, &active, logits, err);
    *elapsed += now() - t;
    return st;
}

static float max_diff(const float *a, const float *b, int64_t n)
{
    float worst = 0;
    for (int64_t j = 0; j < n; j++) worst = fmaxf(worst, fabsf(a[j] - b[j]));
    return worst;
}

int bench_bundle(ts_context *ctx, const bench_bundle_args *a)
{
    char root[512], model[600], bundle[600];
    float *logits = malloc(sizeof(float) * (size_t)a->vocab), *engine_logits = malloc(sizeof(float) * (size_t)a->vocab);
    if (!logits || !engine_logits) {
        free(logits), free(engine_logits);
        fprintf(stderr, "tessera bench: out of memory\n");
        return TS_EXIT_RUNTIME;
    }
    bool made = false;
    if (a->keep) {
        snprintf(root, sizeof(root), "%s", a->keep);
        made = mkdir(root, 0755) == 0 || errno == EEXIST;
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(root, sizeof(root), "%s/tessera-bench-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
        made = mkdtemp(root) != NULL;
    }
    if (!made) {
        fprintf(stderr, "tessera bench: %s: %s\n", root, strerror(errno));
        free(logits), free(engine_logits);
        return TS_EXIT_RUNTIME;
    }
    snprintf(model, sizeof(model), "%s/model", root);
    snprintf(bundle, sizeof(bundle), "%s/bundle", root);
    ts_error err;
    int rc = TS_EXIT_OK;
    ts_bundle *b = NULL;
    stepper bun = {0}, eng = {0};
    int64_t capacity = a->capacity;
    ts_bundle_options o = {.capacities = &capacity, .n_capacities = 1, .prefill_capacity = a->prompt, .slots = 1};
    double t0 = now();
    ts_status st = ts_model_write_synthetic_checkpoint(ctx, a->preset, a->dtype, model, &err);
    if (st == TS_OK) st = ts_bundle_export(model, bundle, &o, &err);
    double t_export = now() - t0;

    /* 1. The bundle alone (the engine model is gone): open, prefill, decode; its peak RSS. */
    bool peak_reset = reset_peak_rss();
    t0 = now();
    if (st == TS_OK) st = ts_bundle_open(ctx, bundle, model, &b, &err);
    if (st == TS_OK) st = ts_bundle_slots_create(b, 0, &bun.slots, &err);
    double t_open = now() - t0, t_warm = 0, t_decode = 0;
    /* Warm-up (pages the mapped weights in), then the measured prefill and decode. */
    if (st == TS_OK) st = ts_bundle_slots_prefill(bun.slots, 0, a->tokens, (size_t)a->prompt, logits, &err);
    if (st == TS_OK) st = step(&bun, a->tokens[0], logits, &t_warm, &err);
    if (st == TS_OK) ts_bundle_slots_reset(bun.slots, 0);
    t0 = now();
    if (st == TS_OK) st = ts_bundle_slots_prefill(bun.slots, 0, a->tokens, (size_t)a->prompt, logits, &err);
    double t_prefill = now() - t0;
    float worst = st == TS_OK ? max_diff(logits, a->engine_prefill_logits, a->vocab) : 0;
    /* The decode steps' own peak, above the resident set before them: what a step allocates or touches anew. */
    double peak_open = status_mb("VmHWM:"), before = status_mb("VmRSS:");
    bool step_reset = peak_reset && reset_peak_rss();
    for (long long i = 0; st == TS_OK && i < a->gen; i++) st = step(&bun, (int32_t)((i * 31 + 17) % a->vocab), logits, &t_decode, &err);
    if (st == TS_OK) worst = fmaxf(worst, max_diff(logits, a->engine_last_logits, a->vocab)); /* the same tokens as the engine's run */
    double peak_steps = status_mb("VmHWM:"), peak = peak_steps > peak_open ? peak_steps : peak_open;

    /* 2. Engine and bundle side by side over the written checkpoint (the same mapped weights),
     * decode steps interleaved in blocks of 8 so both meet the same machine load. */
    double t_eng = 0, t_bun = 0;
    float worst_side = 0;
    if (st == TS_OK) st = ts_model_load(ctx, model, NULL, &eng.model, &err);
    if (st == TS_OK) st = ts_sequence_create(eng.model, capacity, &eng.seq, &err);
    if (st == TS_OK) ts_bundle_slots_reset(bun.slots, 0);
    if (st == TS_OK) st = ts_model_prefill(eng.model, eng.seq, a->tokens, (size_t)a->prompt, engine_logits, &err);
    if (st == TS_OK) st = ts_bundle_slots_prefill(bun.slots, 0, a->tokens, (size_t)a->prompt, logits, &err);
    for (long long i = 0; st == TS_OK && i < a->gen; i += 8)
        for (int side = 0; side < 2 && st == TS_OK; side++)
            for (long long j = i; j < i + 8 && j < a->gen && st == TS_OK; j++)
                st = step(side ? &bun : &eng, (int32_t)((j * 31 + 17) % a->vocab), side ? logits : engine_logits, side ? &t_bun : &t_eng, &err);
    if (st == TS_OK) worst_side = max_diff(logits, engine_logits, a->vocab);

    if (st != TS_OK) rc = ts_cli_fail("bench", &err);
    else {
        double rate = (double)a->gen / t_decode, cache_mb = 2.0 * 4.0 * (double)a->kv_floats_per_row * (double)capacity / 1e6;
        double r_eng = (double)a->gen / t_eng, r_bun = (double)a->gen / t_bun;
        printf("bundle         capacity %lld, prefill capacity %lld, 1 slot (written and exported in %.1f s, opened in %.2f s)\n",
               (long long)capacity, a->prompt, t_export, t_open);
        printf("bundle prefill %lld tokens: %.1f tok/s (%.1f ms)\n", a->prompt, (double)a->prompt / t_prefill, t_prefill * 1e3);
        printf("bundle decode  %lld tokens: %.2f tok/s (%.2f ms/token) alone; max |logit diff| vs the engine above %.3g\n", a->gen, rate,
               1e3 / rate, (double)worst);
        if (peak_reset)
            printf("bundle RSS     peak %.1f MB over open, prefill and decode, the engine model freed (k and v caches %.1f MB, "
                   "weights mapped from the checkpoint)\n",
                   peak, cache_mb);
        else printf("bundle RSS     peak %.1f MB for the whole run (the kernel refused to reset the peak)\n", peak);
        if (step_reset)
            printf("decode steps   peak RSS %.1f MB over the %lld steps, %+.1f MB above the resident set before them (a copy of "
                   "the caches per step would need %.1f MB more)\n",
                   peak_steps, a->gen, peak_steps - before, cache_mb);
        printf("side by side   %lld decode steps each, interleaved by 8, over the written checkpoint: engine %.2f tok/s, bundle %.2f tok/s\n",
               a->gen, r_eng, r_bun);
        printf("bundle/engine  decode %.3f (%+.1f%%); max |logit diff| %.3g\n", r_bun / r_eng, 100.0 * (r_bun / r_eng - 1.0),
               (double)worst_side);
    }
    char *table = ts_context_profile(ctx);
    if (rc == TS_EXIT_OK && table && strchr(table, '\n') != strrchr(table, '\n'))
        printf("per-op time (engine and bundle phases together):\n%s", table);
    free(table);
    ts_sequence_destroy(eng.seq);
    ts_model_destroy(eng.model);
    ts_bundle_slots_destroy(bun.slots);
    ts_bundle_close(b);
    free(logits), free(engine_logits);
    if (!a->keep) nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return rc;
}
