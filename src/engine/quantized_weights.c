/* quantized_weights.c — load-time quantization of float matrices (see quantized_weights.h). */
#include "engine/quantized_weights.h"
#include "base/context.h"
#include "base/error.h"
#include "base/pages.h"
#include "cpu/kernels.h"
#include "graph/quantize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
    char *base_name;
    ts_tensor_info q, scale;
    char *q_name, *scale_name;
    void *q_data, *scale_data;
    double err2, norm2; /* Σ (w − deq)², Σ w² */
} entry;

/* A matrix the chooser gave blocks other than TS_QUANT_BLOCK (the tower's per-channel q8). */
typedef struct {
    char *name;
    int64_t block;
} plan;

struct ts_quantized_weights {
    ts_weight_source base;
    ts_pool *pool; /* borrowed, may be NULL */
    const ts_kernels *kernels;
    int bits;
    bool release_source;
    entry *entries;
    int n, cap;
    plan *plans;
    int n_plans, cap_plans;
};

ts_status ts_quantized_weights_create(const ts_weight_source *base, const ts_context *ctx, int bits, bool release_source,
                                      ts_quantized_weights **out, ts_error *err)
{
    *out = NULL;
    if (bits != 8 && bits != 4) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "quantize: %d bits (8 or 4)", bits);
    ts_quantized_weights *q = calloc(1, sizeof(*q));
    if (!q) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "quantize: out of memory");
    q->base = *base;
    q->pool = ctx ? ctx->pool : NULL;
    q->kernels = ts_kernels_select(ctx ? ctx->cpu_features : 0);
    q->bits = bits;
    q->release_source = release_source;
    *out = q;
    return TS_OK;
}

void ts_quantized_weights_destroy(ts_quantized_weights *q)
{
    if (!q) return;
    for (int i = 0; i < q->n; i++) {
        entry *e = &q->entries[i];
        free(e->base_name), free(e->q_name), free(e->scale_name), free(e->q_data), free(e->scale_data);
    }
    free(q->entries);
    for (int i = 0; i < q->n_plans; i++) free(q->plans[i].name);
    free(q->plans);
    free(q);
}

bool ts_quantized_weights_choose(void *self, const char *name, int64_t out, int64_t in, ts_quant_choice *choice)
{
    (void)name, (void)out;
    if (in % TS_QUANT_BLOCK) return false;
    *choice = (ts_quant_choice){.bits = ((const ts_quantized_weights *)self)->bits, .block = TS_QUANT_BLOCK};
    return true;
}

/* The plan for the first `len` bytes of `name`, or NULL. */
static plan *plan_of(const ts_quantized_weights *q, const char *name, size_t len)
{
    for (int i = 0; i < q->n_plans; i++)
        if (strlen(q->plans[i].name) == len && strncmp(q->plans[i].name, name, len) == 0) return &q->plans[i];
    return NULL;
}

/* Remembers `name`'s block for find() (false: out of memory). */
static bool remember(ts_quantized_weights *q, const char *name, int64_t block)
{
    plan *known = plan_of(q, name, strlen(name));
    /* A second tower (the server's image encoder) asks again from its own thread: the same answer,
     * and nothing written while the model's thread reads the plans. */
    if (known && known->block == block) return true;
    if (known) return known->block = block, true;
    if (q->n_plans == q->cap_plans) {
        int cap = q->cap_plans ? q->cap_plans * 2 : 64;
        plan *p = realloc(q->plans, sizeof(plan) * (size_t)cap);
        if (!p) return false;
        q->plans = p, q->cap_plans = cap;
    }
    char *copy = strdup(name);
    if (!copy) return false;
    q->plans[q->n_plans++] = (plan){copy, block};
    return true;
}

bool ts_quantized_weights_choose_tower(void *self, const char *name, int64_t out, int64_t in, ts_quant_choice *choice)
{
    ts_quantized_weights *q = self;
    if (!ts_quantized_weights_choose(self, name, out, in, choice)) return false;
    if (q->bits != 8) return true;
    choice->block = in;
    return remember(q, name, in); /* out of memory: the matrix stays in floats */
}

ts_weight_source ts_quantized_weights_source(ts_quantized_weights *q)
{
    return (ts_weight_source){ts_quantized_weights_find, q};
}

/* Row o of t [out, in] widened to f32. */
static void source_row(const ts_kernels *kern, const ts_tensor_info *t, int64_t o, int64_t in, float *row)
{
    const void *src = (const char *)t->data + (size_t)(o * in) * ts_dtype_size(t->dtype);
    switch (t->dtype) {
    case TS_DTYPE_BF16: kern->bf16_to_f32(src, row, (size_t)in); break;
    case TS_DTYPE_F16: kern->f16_to_f32(src, row, (size_t)in); break;
    default: memcpy(row, src, sizeof(float) * (size_t)in); break;
    }
}

/* madvise(advice) over the source tensor's whole pages (file mappings only; see the header). */
static void advise_source(const ts_tensor_info *t, int advice)
{
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) return;
    uintptr_t start = ((uintptr_t)t->data + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    uintptr_t end = ((uintptr_t)t->data + t->n_bytes) & ~((uintptr_t)page - 1);
    if (end > start) madvise((void *)start, end - start, advice);
}

/* One matrix's rows over the pool: each worker widens a row into its own scratch, quantizes it,
 * dequantizes it by the kernels' rule ((q − zero) · scale, the decomposition's) and keeps the
 * row's Σ (w − deq)², Σ w² (err[2o], err[2o + 1]); the bytes are each row's alone. */
typedef struct {
    const ts_quantized_weights *qw;
    const ts_tensor_info *t;
    entry *e;
    int64_t in, out, block;
    float *scratch; /* per worker: the row, its dequantization, the scales and zero points in f32 */
    double *err;
} quant_job;

#define QUANT_TASK_ROWS 32

/* (scales and zero points per block: a block is at least TS_QUANT_BLOCK wide) */
static size_t worker_floats(int64_t in) { return 2 * (size_t)in + 2 * (size_t)(in / TS_QUANT_BLOCK); }

static void quantize_rows_task(void *arg, int64_t task, int worker)
{
    const quant_job *j = arg;
    const ts_kernels *kern = j->qw->kernels;
    int bits = j->qw->bits;
    int64_t in = j->in, nb = in / j->block, row_bytes = bits == 8 ? in : in / 2;
    float *row = j->scratch + (size_t)worker * worker_floats(in), *deq = row + in, *sc = deq + in, *zp = sc + nb;
    for (int64_t b = 0; b < nb; b++) zp[b] = bits == 8 ? 0.0f : 8.0f;
    int64_t o1 = (task + 1) * QUANT_TASK_ROWS < j->out ? (task + 1) * QUANT_TASK_ROWS : j->out;
    for (int64_t o = task * QUANT_TASK_ROWS; o < o1; o++) {
        source_row(kern, j->t, o, in, row);
        uint8_t *qr = (uint8_t *)j->e->q_data + o * row_bytes;
        uint16_t *sr = (uint16_t *)j->e->scale_data + o * nb;
        if (bits == 8) kern->quantize_weights_q8(row, (size_t)in, (size_t)j->block, (int8_t *)qr, sr);
        else kern->quantize_weights_q4(row, (size_t)in, qr, sr);
        kern->f16_to_f32(sr, sc, (size_t)nb);
        if (bits == 8) kern->dequant_i8_f32((const int8_t *)qr, (size_t)in, (size_t)j->block, sc, zp, deq);
        else kern->dequant_u4_f32(qr, (size_t)in, TS_QUANT_BLOCK, sc, zp, deq);
        double err2 = 0, norm2 = 0;
        for (int64_t i = 0; i < in; i++) {
            double diff = (double)row[i] - (double)deq[i];
            err2 += diff * diff;
            norm2 += (double)row[i] * row[i];
        }
        j->err[2 * o] = err2, j->err[2 * o + 1] = norm2;
    }
}

static entry *quantize(ts_quantized_weights *qw, const char *base_name, int64_t out_dim, int64_t in_dim,
                       int64_t block)
{
    int64_t dims[2] = {out_dim, in_dim};
    const ts_tensor_info *t = qw->base.find(qw->base.self, base_name, 2, dims);
    /* A graph may declare a weight as a matrix view of its stored shape (a patch embedding's
     * convolution kernel [out, c, t, h, w] as [out, c·t·h·w]): the same row-major bytes. */
    int64_t tail = 1;
    for (int d = 1; t && d < t->n_dims; d++) tail *= t->shape[d];
    if (!t || t->n_dims < 2 || t->shape[0] != out_dim || tail != in_dim || in_dim % block || block % TS_QUANT_BLOCK ||
        (t->dtype != TS_DTYPE_F32 && t->dtype != TS_DTYPE_BF16 && t->dtype != TS_DTYPE_F16))
        return NULL;
    if (qw->n == qw->cap) {
        int cap = qw->cap ? qw->cap * 2 : 64;
        entry *e = realloc(qw->entries, sizeof(entry) * (size_t)cap);
        if (!e) return NULL;
        qw->entries = e;
        qw->cap = cap;
    }
    entry *e = &qw->entries[qw->n];
    memset(e, 0, sizeof(*e));
    int64_t nb = in_dim / block, row_bytes = qw->bits == 8 ? in_dim : in_dim / 2;
    size_t name_len = strlen(base_name) + 16;
    e->base_name = strdup(base_name);
    e->q_name = malloc(name_len);
    e->scale_name = malloc(name_len);
    /* in 2 MB pages: q8 decode of the 0.5B preset, 2 threads, 5 alternating pairs, median
     * 71.6 → 75.9 tok/s (83–88 → 88–93% of the measured read bandwidth) */
    e->q_data = ts_pages_alloc((size_t)(out_dim * row_bytes));
    e->scale_data = malloc(sizeof(uint16_t) * (size_t)(out_dim * nb) + 1);
    int workers = ts_pool_size(qw->pool);
    quant_job job = {qw, t, e, in_dim, out_dim, block, malloc(sizeof(float) * worker_floats(in_dim) * (size_t)workers),
                     malloc(sizeof(double) * 2 * (size_t)out_dim)};
    if (!e->base_name || !e->q_name || !e->scale_name || !e->q_data || !e->scale_data || !job.scratch || !job.err) {
        free(e->base_name), free(e->q_name), free(e->scale_name), free(e->q_data), free(e->scale_data), free(job.scratch),
            free(job.err);
        return NULL;
    }
    snprintf(e->q_name, name_len, "%s:q%d", base_name, qw->bits);
    snprintf(e->scale_name, name_len, "%s:q%d.scale", base_name, qw->bits);
    int64_t tasks = (out_dim + QUANT_TASK_ROWS - 1) / QUANT_TASK_ROWS;
#ifdef MADV_NOHUGEPAGE
    /* A source read once and handed back is not streamed: read in 4 KB pages, not the 2 MB the
     * checkpoint's mapping is advised for (pages.h), since what reads it again (a tied
     * embedding's row lookups) maps whole page-cache folios: 2 MB ones brought a 0.5B model's
     * 272 MB table back into RSS within a 512-token prompt. */
    if (qw->release_source) advise_source(t, MADV_NOHUGEPAGE);
#endif
    ts_pool_run(qw->pool, quantize_rows_task, &job, tasks);
    /* summed in row order: the report does not depend on the threads */
    for (int64_t o = 0; o < out_dim; o++) e->err2 += job.err[2 * o], e->norm2 += job.err[2 * o + 1];
    free(job.scratch), free(job.err);
    if (qw->release_source) advise_source(t, MADV_DONTNEED); /* its pages handed back */
    e->q = (ts_tensor_info){.name = e->q_name, .dtype = qw->bits == 8 ? TS_DTYPE_I8 : TS_DTYPE_U8, .n_dims = 2,
                            .shape = {out_dim, row_bytes}, .data = e->q_data, .n_bytes = (size_t)(out_dim * row_bytes)};
    e->scale = (ts_tensor_info){.name = e->scale_name, .dtype = TS_DTYPE_F16, .n_dims = 2, .shape = {out_dim, nb},
                                .data = e->scale_data, .n_bytes = sizeof(uint16_t) * (size_t)(out_dim * nb)};
    qw->n++;
    return e;
}

const ts_tensor_info *ts_quantized_weights_find(void *self, const char *name, int rank, const int64_t *dims)
{
    ts_quantized_weights *qw = self;
    char tag[16];
    snprintf(tag, sizeof(tag), ":q%d", qw->bits);
    const char *at = strstr(name, tag);
    bool is_scale = at && strcmp(at + strlen(tag), ".scale") == 0;
    if (!at || (at[strlen(tag)] && !is_scale) || rank != 2) return qw->base.find(qw->base.self, name, rank, dims);
    size_t len = (size_t)(at - name);
    for (int i = 0; i < qw->n; i++)
        if (strlen(qw->entries[i].base_name) == len && strncmp(qw->entries[i].base_name, name, len) == 0) {
            /* made before with another block (two choosers asking for one matrix): no such tensor
             * here, so the caller's weight check names it rather than reading the wrong layout */
            const ts_tensor_info *t = is_scale ? &qw->entries[i].scale : &qw->entries[i].q;
            return t->shape[0] == dims[0] && t->shape[1] == dims[1] ? t : NULL;
        }
    char base[512];
    if (len >= sizeof(base)) return NULL;
    memcpy(base, name, len);
    base[len] = '\0';
    /* The source's shape from the one asked for (synthetic sources create it from this). */
    const plan *planned = plan_of(qw, name, len);
    int64_t block = planned ? planned->block : TS_QUANT_BLOCK;
    int64_t in_dim = is_scale ? dims[1] * block : qw->bits == 8 ? dims[1] : dims[1] * 2;
    entry *e = quantize(qw, base, dims[0], in_dim, block);
    return !e ? NULL : is_scale ? &e->scale : &e->q;
}

int ts_quantized_weights_count(const ts_quantized_weights *qw) { return qw->n; }

void ts_quantized_weights_report(const ts_quantized_weights *qw, ts_quantization_report *out)
{
    ts_quantized_weights_report_range(qw, 0, qw->n, out);
}

void ts_quantized_weights_report_range(const ts_quantized_weights *qw, int first, int end, ts_quantization_report *out)
{
    memset(out, 0, sizeof(*out));
    out->bits = qw->bits;
    double err2 = 0, norm2 = 0;
    for (int i = first < 0 ? 0 : first; i < end && i < qw->n; i++) {
        const entry *e = &qw->entries[i];
        out->matrices++;
        out->weights += e->q.shape[0] * (qw->bits == 8 ? e->q.shape[1] : e->q.shape[1] * 2);
        out->bytes += (int64_t)(e->q.n_bytes + e->scale.n_bytes);
        double rel = e->norm2 > 0 ? sqrt(e->err2 / e->norm2) : 0;
        if (rel >= out->rel_error_max) {
            out->rel_error_max = rel;
            out->worst = e->base_name;
        }
        err2 += e->err2;
        norm2 += e->norm2;
    }
    out->rel_error_all = norm2 > 0 ? sqrt(err2 / norm2) : 0;
}
