/* phi4_audio_bench.c — CPU time of Phi-4-multimodal's audio encoder + speech projector
 * (src/models/phi4_mm/phi4_audio.h) at the published shape (Phi4MultimodalAudioConfig's
 * defaults: 24 blocks of 1024, 16 heads, FF 1536, NeMo channels 1024; LM hidden 3072) on
 * synthetic weights (uniform ±0.02, norms 1, bf16 matrices as the published checkpoint stores
 * them), for clips of the given seconds (100 feature frames per second).
 *
 * Reports, per run, the process CPU time (every thread of the executor, CLOCK_PROCESS_CPUTIME_ID)
 * and the calling thread's own (CLOCK_THREAD_CPUTIME_ID), best of the runs, and divides by the
 * clip's seconds; wall time is printed but is not trustworthy on a loaded machine. Not built by
 * CMake; from a configured release build:
 *   cc -O2 -std=c11 -Iinclude -Isrc tools/phi4_audio_bench.c build/release/libtessera_core.a \
 *      -lcjson -lpcre2-8 -ljpeg -lpng16 -lz -lwebpdemux -lwebp -lsndfile -lsoxr -lutf8proc \
 *      -ldnnl -lgomp -lm -o /tmp/phi4_audio_bench && /tmp/phi4_audio_bench 2 1 10
 * (arguments: threads, then clip lengths in seconds).
 */
#define _POSIX_C_SOURCE 200809L
#include "cpu/executor.h"
#include "models/decoder.h"
#include "models/phi4_mm/phi4_audio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    char name[256];
    ts_tensor_info info;
} tensor;

typedef struct {
    tensor *t;
    int n, cap;
} store;

static uint32_t rng = 12345;

static float uniform(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (float)((double)(rng >> 8) / (1 << 24) * 2 - 1);
}

static uint16_t to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

/* Any tensor the builder asks for, of the shape it asks for: norms 1, matrices bf16. */
static const ts_tensor_info *find(void *self, const char *name, int rank, const int64_t *dims)
{
    store *s = self;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->t = realloc(s->t, sizeof(tensor) * (size_t)s->cap);
    }
    tensor *t = &s->t[s->n++];
    snprintf(t->name, sizeof(t->name), "%s", name);
    int64_t n = 1;
    for (int i = 0; i < rank; i++) n *= dims[i];
    bool norm = strstr(name, "norm") && strstr(name, ".weight");
    bool matrix = rank >= 2 && dims[rank - 1] * (rank > 2 ? dims[rank - 2] : 1) > 64 && !strstr(name, "bias_values");
    t->info = (ts_tensor_info){.name = t->name, .dtype = matrix ? TS_DTYPE_BF16 : TS_DTYPE_F32, .n_dims = rank};
    memcpy(t->info.shape, dims, sizeof(int64_t) * (size_t)rank);
    size_t bytes = (size_t)n * (matrix ? 2 : 4);
    void *data = malloc(bytes);
    for (int64_t i = 0; i < n; i++) {
        float v = norm || strstr(name, "invstd") ? 1.0f : 0.02f * uniform();
        if (matrix) ((uint16_t *)data)[i] = to_bf16(v);
        else ((float *)data)[i] = v;
    }
    t->info.data = data;
    t->info.n_bytes = bytes;
    return &t->info;
}

static double seconds(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    ts_phi4_audio_spec spec = {.width = 1024, .inter = 1536, .blocks = 24, .heads = 16, .head_dim = 64, .kernel = 3,
                               .input_size = 80, .conv_channels = 1024, .stages = 3, .final_freq = 10,
                               .time_reduction = 8, .max_distance = 1000, .symmetric = false, .lm_hidden = 3072,
                               .audio_token_id = 200011};
    ts_error err;
    ts_context *ctx;
    ts_context_options o = {.n_threads = threads, .log_level = TS_LOG_WARN, .profile = getenv("PROFILE") != NULL};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    store s = {0};
    ts_weight_source ws = {find, &s};
    for (int a = 2; a < argc || a == 2; a++) {
        double clip = argc > 2 ? atof(argv[a]) : 1.0;
        int64_t frames = (int64_t)(clip * 100);
        ts_graph *g;
        ts_program *prog;
        s.n = 0;
        if (ts_graph_create(&g, &err) != TS_OK ||
            ts_phi4_audio_build(g, &spec, &ws, frames, TS_PHI4_AUDIO_SPEECH, false, &err) != TS_OK ||
            ts_program_create(g, ctx, &prog, &err) != TS_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        void **params = calloc((size_t)g->n_parameters, sizeof(void *));
        float *features = malloc(sizeof(float) * (size_t)(frames * 80));
        for (int64_t i = 0; i < frames * 80; i++) features[i] = 4 * uniform();
        for (int32_t i = 0; i < g->n_nodes; i++) {
            const ts_node *n = &g->nodes[i];
            if (n->op != TS_OP_PARAMETER) continue;
            void *p = features;
            if (n->attrs.parameter.role == TS_PARAM_WEIGHT)
                for (int k = 0; k < s.n; k++)
                    if (strcmp(s.t[k].name, n->name) == 0) p = (void *)s.t[k].info.data;
            params[n->attrs.parameter.index] = p;
        }
        double best_proc = 1e30, best_thread = 1e30, best_wall = 1e30;
        for (int r = 0; r < 3; r++) {
            const void *outs[1];
            double p0 = seconds(CLOCK_PROCESS_CPUTIME_ID), t0 = seconds(CLOCK_THREAD_CPUTIME_ID), w0 = seconds(CLOCK_MONOTONIC);
            if (ts_program_run(prog, params, outs, &err) != TS_OK) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
            }
            double p = seconds(CLOCK_PROCESS_CPUTIME_ID) - p0, t = seconds(CLOCK_THREAD_CPUTIME_ID) - t0,
                   w = seconds(CLOCK_MONOTONIC) - w0;
            if (p < best_proc) best_proc = p, best_thread = t, best_wall = w;
        }
        printf("%.0f s clip (%lld frames, %lld tokens), %d threads: process CPU %.3f s (%.3f s per audio second), "
               "calling thread CPU %.3f s, wall %.3f s (loaded machine)\n",
               clip, (long long)frames, (long long)ts_phi4_audio_tokens(&spec, frames), threads, best_proc,
               best_proc / clip, best_thread, best_wall);
        fflush(stdout);
        ts_program_destroy(prog);
        ts_graph_destroy(g);
        for (int k = 0; k < s.n; k++) free((void *)s.t[k].info.data);
        free(params);
        free(features);
    }
    free(s.t);
    if (o.profile) {
        char *table = ts_context_profile(ctx);
        fputs(table ? table : "", stderr);
        free(table);
    }
    ts_context_destroy(ctx);
    return 0;
}
