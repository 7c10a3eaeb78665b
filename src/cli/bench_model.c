/* bench_model.c — `tessera bench --synthetic PRESET`: prefill and decode speed of a random-weight
 * model of a published shape, against the machine's streaming-read bandwidth in the same run. */
#include "cli.h"
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* MB of this process's memory mapped in 2 MB pages (file and anonymous: FilePmdMapped +
 * AnonHugePages), read before the bandwidth probe: what a decode step's weight stream walks;
 * −1 where /proc does not say. */
static double huge_mapped_mb(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (!f) return -1;
    char line[256];
    double kb = 0;
    bool seen = false;
    while (fgets(line, sizeof line, f)) {
        long long v;
        if (sscanf(line, "FilePmdMapped: %lld", &v) == 1 ||
            sscanf(line, "AnonHugePages: %lld", &v) == 1)
            kb += (double)v, seen = true;
    }
    fclose(f);
    return seen ? kb / 1024.0 : -1;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of every thread of the process: on a shared machine, what the work itself cost. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int usage(FILE *out)
{
    fprintf(
        out,
        "usage: tessera bench --synthetic PRESET [--dtype f32|bf16] [-p N] [-n N] [--threads N] "
        "[--cpu LEVEL]\n"
        "                       [--compute f32|bf16|bf16x2|int8|auto] [--quantize q8|q4] "
        "[--profile]\n"
        "       tessera bench -m DIR [-p N] [-n N] [--threads N] [--compute …] [--quantize q8|q4] [--batch N]\n"
        "  PRESET: a published model's shape, random weights built in memory (an unknown name "
        "lists them)\n"
        "  -m DIR  a checkpoint folder instead, loaded as run and serve load it (weights used in\n"
        "          place from the file's mapping)\n"
        "  -p N   prompt tokens to prefill (default 512)\n"
        "  -n N   tokens to decode after it (default 128)\n"
        "  --profile  print the time spent per op kind\n"
        "  --quantize q8|q4  quantize the language model's matrices after building them, and the\n"
        "                     vision tower's and projector's (those whose width 32 divides)\n"
        "  --compute f32|bf16|bf16x2|int8|auto  matmul precision (see ts_context_options; int8: "
        "W8A8\n"
        "                     for quantized weights)\n"
        "  --image-patches N  time the vision tower on one image of about N patches instead\n"
        "                     (presets whose config has a vision tower)\n"
        "  --write-checkpoint DIR  write the preset's weights and config.json as a checkpoint\n"
        "                     folder (DIR/config.json, DIR/model.safetensors) instead; "
        "deterministic\n"
        "  --bundle-capacity C  also run the preset through an exported bundle (one bucket of\n"
        "                     capacity C, prefill capacity -p) in the same run: bundle prefill "
        "and\n"
        "                     decode tok/s, the ratio to the engine, the bundle phase's peak RSS\n"
        "  --bundle-dir DIR   keep that checkpoint and bundle in DIR (default: a temp folder, "
        "removed)\n");
    return out == stdout ? TS_EXIT_OK : TS_EXIT_USAGE;
}

/* The vision tower on one square image of `patches` patches (a side of sqrt(patches) patches,
 * random pixel values): encode time, per patch. */
static int bench_vision(ts_context *ctx, ts_model *m, const char *preset, const char *dtype_name, long long patches)
{
    long long side = 1;
    while ((side + 1) * (side + 1) <= patches) side++;
    side -= side % 2; /* whole 2×2 merges */
    int64_t rows = side * side, width = 3 * 2 * 14 * 14;
    ts_pixel_values pv = {.n_dims = 2, .shape = {rows, width}, .grid_thw = {1, side, side}};
    pv.data = malloc(sizeof(float) * (size_t)(rows * width));
    if (!pv.data) return TS_EXIT_RUNTIME;
    for (int64_t i = 0; i < rows * width; i++) pv.data[i] = (float)((i * 7919) % 255) / 255.0f - 0.5f;
    ts_error err;
    ts_encoded_media media;
    double t0 = now();
    ts_status st = ts_model_encode_images(m, &pv, 1, &media, &err); /* builds the program */
    double t_first = now() - t0;
    ts_encoded_media_free(&media);
    /* Another image of the same shape: the program is reused, the encoder cache misses. */
    for (int64_t i = 0; i < rows * width; i += 97) pv.data[i] = -pv.data[i];
    t0 = now();
    double c0 = cpu_now();
    if (st == TS_OK) st = ts_model_encode_images(m, &pv, 1, &media, &err);
    double t = now() - t0, cpu = cpu_now() - c0;
    ts_encoded_media_free(&media);
    t0 = now();
    if (st == TS_OK)
        st = ts_model_encode_images(m, &pv, 1, &media, &err); /* the same image: a cache hit */
    double t_hit = now() - t0;
    int64_t out_rows = media.n_rows;
    ts_encoded_media_free(&media);
    free(pv.data);
    if (st != TS_OK) return ts_cli_fail("bench", &err);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("model          %s vision tower (%s, synthetic weights)\n", preset, dtype_name);
    const char *quantized = ts_model_quantization_summary(m);
    printf("tower weights  %s\n", quantized[0] ? strstr(quantized, "; vision tower ") ? strstr(quantized, "; vision tower ") + 15 : "not quantized" : "not quantized");
    char choice[256];
    printf("compute        %s\n", ts_context_compute_summary(ctx, choice, sizeof(choice)));
    printf("threads        %d (cpu: %s)\n", ts_context_threads(ctx), ts_cpu_features_string(ts_context_cpu_features(ctx)));
    printf("image          %lld×%lld patches (%lld), %lld tokens out\n", side, side, (long long)rows, (long long)out_rows);
    printf("vision encode  %.1f ms = %.3f ms per patch (first call, with graph build: %.1f ms)\n", t * 1e3, t * 1e3 / (double)rows,
           t_first * 1e3);
    int threads = ts_context_threads(ctx);
    printf("cpu time       %.1f ms over %d threads = %.3f ms per patch per thread (wall × threads when no other load)\n",
           cpu * 1e3, threads, cpu * 1e3 / threads / (double)rows);
    printf("cached repeat  %.2f ms (the same image again, from the encoder cache)\n", t_hit * 1e3);
    printf("peak RSS       %.1f MB\n", ru.ru_maxrss / 1024.0);
    char *table = ts_context_profile(ctx);
    if (table && table[0] && strchr(table, '\n') != strrchr(table, '\n')) printf("per-op time (every encode):\n%s", table);
    free(table);
    return TS_EXIT_OK;
}

int bench_model(int argc, char **argv)
{
    const char *preset = NULL, *dtype_name = "bf16", *cpu = NULL, *compute = NULL, *checkpoint = NULL, *quantize = NULL, *v;
    long long prompt = 512, gen = 128, threads = 0, patches = 0, batch = 1, bundle_capacity = 0;
    const char *bundle_dir = NULL, *dir = NULL;
    bool profile = false;
    for (int i = 1; i < argc; i++) {
        if (ts_cli_is_help(argv[i])) return usage(stdout);
        if (ts_cli_match(argc, argv, &i, "--synthetic", &v)) preset = v;
        else if (ts_cli_match(argc, argv, &i, "-m", &v) || ts_cli_match(argc, argv, &i, "--model", &v)) dir = v;
        else if (ts_cli_match(argc, argv, &i, "--dtype", &v)) dtype_name = v;
        else if (ts_cli_match(argc, argv, &i, "--cpu", &v)) cpu = v;
        else if (ts_cli_match(argc, argv, &i, "--compute", &v)) compute = v;
        else if (ts_cli_match(argc, argv, &i, "--quantize", &v)) quantize = v;
        else if (ts_cli_match(argc, argv, &i, "--profile", NULL)) profile = true;
        else if (ts_cli_match(argc, argv, &i, "--bundle-capacity", &v)) {
            if (!ts_cli_parse_int(v, 2, 1 << 20, &bundle_capacity)) return ts_cli_usage_error("bench", "--bundle-capacity needs a row count");
        } else if (ts_cli_match(argc, argv, &i, "--bundle-dir", &v)) {
            if (!v) return ts_cli_usage_error("bench", "--bundle-dir needs a folder");
            bundle_dir = v;
        } else if (ts_cli_match(argc, argv, &i, "--write-checkpoint", &v)) {
            if (!v) return ts_cli_usage_error("bench", "--write-checkpoint needs a folder");
            checkpoint = v;
        }
        else if (ts_cli_match(argc, argv, &i, "--image-patches", &v)) {
            if (!ts_cli_parse_int(v, 4, 1 << 20, &patches)) return ts_cli_usage_error("bench", "--image-patches needs a count");
        }
        else if (ts_cli_match(argc, argv, &i, "-p", &v)) {
            if (!ts_cli_parse_int(v, 1, 1 << 20, &prompt)) return ts_cli_usage_error("bench", "-p needs a token count");
        } else if (ts_cli_match(argc, argv, &i, "-n", &v)) {
            if (!ts_cli_parse_int(v, 1, 1 << 20, &gen)) return ts_cli_usage_error("bench", "-n needs a token count");
        } else if (ts_cli_match(argc, argv, &i, "--batch", &v)) {
            if (!ts_cli_parse_int(v, 1, 64, &batch)) return ts_cli_usage_error("bench", "--batch needs a count in 1..64");
        } else if (ts_cli_match(argc, argv, &i, "--threads", &v)) {
            if (!ts_cli_parse_int(v, 1, 1024, &threads)) return ts_cli_usage_error("bench", "--threads needs a number");
        } else return ts_cli_usage_error("bench", "unknown argument '%s'", argv[i]);
    }
    if (!preset == !dir) return usage(stderr);
    if (dir && (checkpoint || patches || bundle_capacity))
        return ts_cli_usage_error("bench", "-m DIR times a checkpoint's prefill and decode (not with --write-checkpoint, "
                                           "--image-patches or --bundle-capacity)");
    if (bundle_capacity && prompt + gen > bundle_capacity)
        return ts_cli_usage_error("bench", "-p %lld + -n %lld exceed --bundle-capacity %lld", prompt, gen, bundle_capacity);
    if (bundle_capacity && (patches || batch > 1))
        return ts_cli_usage_error("bench", "--bundle-capacity measures one sequence's decode (not with --image-patches or --batch)");
    ts_dtype dtype;
    if (strcmp(dtype_name, "bf16") == 0) dtype = TS_DTYPE_BF16;
    else if (strcmp(dtype_name, "f32") == 0) dtype = TS_DTYPE_F32;
    else if (strcmp(dtype_name, "f16") == 0) dtype = TS_DTYPE_F16;
    else return ts_cli_usage_error("bench", "--dtype must be f32, bf16 or f16");

    ts_error err;
    ts_context *ctx;
    if (!compute && !bundle_capacity) compute = "auto"; /* what run and serve do by default */
    ts_context_options copt = {.n_threads = (int)threads, .log_level = TS_LOG_WARN, .cpu_level = cpu, .profile = profile, .compute = compute};
    if (ts_context_create(&copt, &ctx, &err) != TS_OK) return ts_cli_fail("bench", &err);
    if (checkpoint) {
        ts_status st = ts_model_write_synthetic_checkpoint(ctx, preset, dtype, checkpoint, &err);
        ts_context_destroy(ctx);
        if (st != TS_OK) return ts_cli_fail("bench", &err);
        printf("wrote %s/config.json and %s/model.safetensors (%s, %s weights)\n", checkpoint, checkpoint, preset, dtype_name);
        return TS_EXIT_OK;
    }
    ts_model *m;
    double t0 = now();
    /* -m DIR: the checkpoint as run and serve load it (weights used in place from the file's
     * mapping), so the figures include what the page cache gives the weight stream. */
    if ((dir ? ts_model_load(ctx, dir, NULL, &m, &err) : ts_model_create_synthetic(ctx, preset, dtype, &m, &err)) != TS_OK) {
        ts_context_destroy(ctx);
        return ts_cli_fail("bench", &err);
    }
    if (quantize && ts_model_quantize(m, quantize, &err) != TS_OK) {
        ts_model_destroy(m);
        ts_context_destroy(ctx);
        return ts_cli_fail("bench", &err);
    }
    double t_build = now() - t0;
    if (patches) {
        int rc = bench_vision(ctx, m, preset, dtype_name, patches);
        ts_model_destroy(m);
        ts_context_destroy(ctx);
        return rc;
    }
    size_t weight_bytes = ts_model_weight_bytes(m);
    int64_t vocab = ts_model_vocab_size(m);
    int32_t *tokens = malloc(sizeof(int32_t) * (size_t)prompt);
    float *logits = malloc(sizeof(float) * (size_t)vocab);
    for (long long i = 0; i < prompt; i++) tokens[i] = (int32_t)((i * 7919) % vocab);
    ts_sequence *seq = NULL, *seqs[64] = {0};
    float *prefill_logits = NULL; /* --bundle-capacity: the engine's, for the bundle to compare */
    int rc = TS_EXIT_OK;
    if (ts_sequence_create(m, prompt + gen, &seq, &err) != TS_OK) {
        rc = ts_cli_fail("bench", &err);
        goto done;
    }
    /* Warm-up: page in the weights and build both programs. */
    if (ts_model_prefill(m, seq, tokens, (size_t)prompt, logits, &err) != TS_OK ||
        ts_model_decode(m, &seq, tokens, 1, logits, &err) != TS_OK) {
        rc = ts_cli_fail("bench", &err);
        goto done;
    }
    ts_sequence_reset(seq);
    t0 = now();
    double c0 = cpu_now();
    ts_model_prefill(m, seq, tokens, (size_t)prompt, logits, &err);
    double t_prefill = now() - t0, c_prefill = cpu_now() - c0;
    if (bundle_capacity) prefill_logits = malloc(sizeof(float) * (size_t)vocab);
    if (prefill_logits) memcpy(prefill_logits, logits, sizeof(float) * (size_t)vocab);
    t0 = now();
    double c_decode = cpu_now(), c_decode_min = 0;
    for (long long i = 0; i < gen; i++) {
        int32_t tok = (int32_t)((i * 31 + 17) % vocab);
        double c = cpu_now();
        if (ts_model_decode(m, &seq, &tok, 1, logits, &err) != TS_OK) {
            rc = ts_cli_fail("bench", &err);
            goto done;
        }
        c = cpu_now() - c;
        c_decode_min = i == 0 || c < c_decode_min ? c : c_decode_min;
    }
    double t_decode = now() - t0;
    c_decode = cpu_now() - c_decode;
    /* Continuous batching's step: `batch` sequences, each with the prompt, one token each per step. */
    double t_batch = 0, cpu_batch = 0, cpu_step_min = 0;
    if (batch > 1) {
        int32_t *step = calloc((size_t)batch, sizeof(int32_t));
        float *all = malloc(sizeof(float) * (size_t)vocab * (size_t)batch);
        for (long long b = 0; b < batch && rc == TS_EXIT_OK; b++)
            if (ts_sequence_create(m, prompt + gen, &seqs[b], &err) != TS_OK ||
                ts_model_prefill(m, seqs[b], tokens, (size_t)prompt, logits, &err) != TS_OK)
                rc = ts_cli_fail("bench", &err);
        if (rc == TS_EXIT_OK && ts_model_decode(m, seqs, step, (int)batch, all, &err) != TS_OK) rc = ts_cli_fail("bench", &err);
        t0 = now();
        double c_batch0 = cpu_now();
        for (long long i = 1; i < gen && rc == TS_EXIT_OK; i++) {
            for (long long b = 0; b < batch; b++) step[b] = (int32_t)((i * 31 + b * 7 + 17) % vocab);
            double c = cpu_now();
            if (ts_model_decode(m, seqs, step, (int)batch, all, &err) != TS_OK) rc = ts_cli_fail("bench", &err);
            c = cpu_now() - c;
            /* the least a step took: on a shared machine, the figure other load disturbs least */
            cpu_step_min = i == 1 || c < cpu_step_min ? c : cpu_step_min;
        }
        t_batch = now() - t0;
        cpu_batch = cpu_now() - c_batch0;
        free(step), free(all);
        if (rc != TS_EXIT_OK) goto done;
    }
    if (profile) {
        char *table = ts_context_profile(ctx);
        if (table) printf("per-op time (warm-up, prefill and decode together):\n%s", table);
        free(table);
    }
    /* Peak memory before the bandwidth probe, whose model-sized buffer would count in it. */
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double huge_mb = huge_mapped_mb();
    double bandwidth = ts_measure_read_bandwidth(ctx, weight_bytes);
    double decode_rate = (double)gen / t_decode;
    double achieved = (double)weight_bytes * decode_rate;
    if (dir) printf("model          %s (checkpoint, %.1f MB, loaded in %.2f s)\n", dir, weight_bytes / 1e6, t_build);
    else printf("model          %s (%s, synthetic weights, %.1f MB, built in %.2f s)\n", preset, dtype_name, weight_bytes / 1e6, t_build);
    if (quantize) printf("weights        %s (decode streams these)\n", ts_model_quantization_summary(m));
    char choice[256];
    printf("threads        %d (cpu: %s)\n", ts_context_threads(ctx),
           ts_cpu_features_string(ts_context_cpu_features(ctx)));
    printf("compute        %s\n", ts_context_compute_summary(ctx, choice, sizeof(choice)));
    printf("prefill        %lld tokens: %.1f tok/s (%.1f ms)\n", prompt, (double)prompt / t_prefill, t_prefill * 1e3);
    printf("prefill cpu    %.1f ms over %d threads = %.1f tok/s at full use of them (the figure a loaded machine\n"
           "               does not distort: threads' waits spin, so it counts those as well)\n",
           c_prefill * 1e3, ts_context_threads(ctx), (double)prompt * ts_context_threads(ctx) / c_prefill);
    printf("decode         %lld tokens: %.2f tok/s (%.2f ms/token)\n", gen, decode_rate, 1e3 / decode_rate);
    printf("decode cpu     %.2f ms/token over all threads, the least one %.2f (a loaded machine stretches the wall)\n",
           1e3 * c_decode / (double)gen, 1e3 * c_decode_min);
    if (batch > 1)
        printf("batched decode %lld sequences × %lld steps: %.2f tok/s aggregate (%.2f ms/step; cpu time "
               "%.2f ms/step over all threads, least %.2f)\n",
               batch, gen - 1, (double)batch * (double)(gen - 1) / t_batch, 1e3 * t_batch / (double)(gen - 1),
               1e3 * cpu_batch / (double)(gen - 1), 1e3 * cpu_step_min);
    printf("bandwidth      streaming read %.2f GB/s; decode moves %.2f GB/s of weights = %.0f%% of it\n", bandwidth / 1e9,
           achieved / 1e9, 100.0 * achieved / bandwidth);
    printf("peak RSS       %.1f MB (weights, KV cache, activations; before the bandwidth probe)\n", ru.ru_maxrss / 1024.0);
    if (huge_mb >= 0)
        printf("2 MB pages     %.1f MB of memory mapped in them (a page cache in 4 KB folios keeps "
               "a checkpoint's weights in 4 KB pages)\n",
               huge_mb);
    if (bundle_capacity) {
        const ts_model_config *cfg = ts_model_get_config(m);
        int64_t head_dim = cfg->text.head_dim ? cfg->text.head_dim : cfg->text.hidden_size / cfg->text.num_attention_heads;
        bench_bundle_args ba = {.preset = preset, .keep = bundle_dir, .dtype = dtype, .capacity = bundle_capacity, .vocab = vocab,
                                .kv_floats_per_row = cfg->text.num_hidden_layers * cfg->text.num_key_value_heads * head_dim,
                                .prompt = prompt, .gen = gen, .tokens = tokens, .engine_prefill_logits = prefill_logits,
                                .engine_last_logits = logits, .engine_decode_rate = decode_rate};
        /* The engine model is released first: the bundle phase's memory is its own. */
        ts_sequence_destroy(seq);
        seq = NULL;
        ts_model_destroy(m);
        m = NULL;
        rc = prefill_logits ? bench_bundle(ctx, &ba) : TS_EXIT_RUNTIME;
    }
done:
    free(prefill_logits);
    for (int b = 0; b < 64; b++) ts_sequence_destroy(seqs[b]);
    ts_sequence_destroy(seq);
    free(tokens);
    free(logits);
    ts_model_destroy(m);
    ts_context_destroy(ctx);
    return rc;
}
