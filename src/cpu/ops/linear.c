/* linear.c — y = x·wᵀ (+ b) with weights in [out, in] layout, read in place.
 *
 * Work is split over output features in blocks, so each thread streams its own slice of the
 * weights once per call whatever the number of rows: for decode (few rows) that is the whole
 * cost, and it makes the weight stream the only large memory traffic. Rows are processed four at
 * a time per weight row so a weight row loaded into cache serves several activations; past four
 * rows (several decoding sequences in one step) four weight rows at a time too, so a loaded
 * activation serves four weight rows. Every row's dots are bit-identical to its dots alone.
 * Under the bf16 policy (one pass) the activations are rounded to bf16 once per call, for the
 * tiled GEMM and the row dots alike, so a row's products do not depend on the path either.
 */
#include "cpu/ops.h"
#include "base/error.h"
#include "cpu/onednn.h"

#include <stdlib.h>

typedef struct {
    const ts_cpu *cpu;
    const float *x;
    int64_t m, k, n;
    const void *w;
    ts_dtype w_dtype;
    const void *bias;
    ts_dtype bias_dtype;
    float *y;
    int64_t block;
    const uint16_t *xb; /* x rounded to bf16 (the bf16 policy's decode dots), or NULL */
} linear_job;

float ts_cpu_bias_at(const void *bias, ts_dtype dtype, int64_t i)
{
    if (!bias) return 0.0f;
    switch (dtype) {
    case TS_DTYPE_BF16: {
        float f;
        uint32_t bits = (uint32_t)((const uint16_t *)bias)[i] << 16;
        __builtin_memcpy(&f, &bits, 4);
        return f;
    }
    case TS_DTYPE_F16: return ts_f16_to_f32_scalar(((const uint16_t *)bias)[i]);
    default: return ((const float *)bias)[i];
    }
}

const float *ts_cpu_bias_f32(const void *bias, ts_dtype dtype, int64_t n0, int64_t n, float *buf)
{
    if (!bias) return NULL;
    if (dtype != TS_DTYPE_BF16 && dtype != TS_DTYPE_F16) return (const float *)bias + n0;
    for (int64_t i = 0; i < n; i++) buf[i] = ts_cpu_bias_at(bias, dtype, n0 + i);
    return buf;
}

void ts_cpu_add_bias(float *y, int64_t ldy, int64_t m, int64_t n0, int64_t n1, const void *bias, ts_dtype dtype)
{
    float widened[256];
    for (int64_t c0 = n0; c0 < n1; c0 += 256) {
        int64_t len = n1 - c0 < 256 ? n1 - c0 : 256;
        const float *b = ts_cpu_bias_f32(bias, dtype, c0, len, widened);
        for (int64_t r = 0; r < m; r++) {
            float *row = y + r * ldy + c0;
            for (int64_t i = 0; i < len; i++) row[i] += b[i];
        }
    }
}

/* Decode rows from which the row dots take TS_DOT_TILE weight rows at a time (linear_task). */
#define DOT_TILE_ROWS 12

/* The bf16 policy's row dots: x already rounded to bf16 (once per call, linear_run), each weight
 * row's dots by VDPBF16PS (dot_bf16_bf16 gives every dot the same bits whatever the shape, so a
 * row's result does not depend on the sequences beside it). Above two rows, pairs of weight rows
 * a pass; one or two rows (bound by the weight stream), one weight row a pass. The kernel
 * prefetches the weight stream itself. CPU time of one decode step, synthetic 0.5B preset in
 * bf16, 1 thread, least of 3 interleaved runs on a loaded Zen 4: 2 sequences 50.5 ms one row a
 * pass (61 pairs); 4: 51 pairs (63 single rows); 8: 75.5 (99 single rows); 12: 99 (113 with
 * TS_DOT_TILE rows a pass); 16: 117 (132 tiles). Every group of x rows meets a weight row before
 * the next weight row is read, even where the groups outgrow L1 together (a down projection's
 * rows, eight sequences): spans of weight rows met by one group after another (the group kept
 * in L1, the span read again from L2) left the memory idle during the later groups, 8 sequences
 * 31 → 44 ms a step on 2 threads. */
static void bf16_rows_task(const linear_job *j, int64_t n0, int64_t n1)
{
    size_t k = (size_t)j->k;
    const uint16_t *w = j->w;
    int per = j->m > 2 ? 2 : 1;
    for (int64_t o = n0; o < n1; o += per) {
        if (o + per > n1) per = 1;
        for (int64_t r = 0; r < j->m; r += 4) {
            int rows = j->m - r < 4 ? (int)(j->m - r) : 4;
            float out[4 * TS_DOT_TILE];
            j->cpu->kernels->dot_bf16_bf16(w + (size_t)o * k, k, per, j->xb + (size_t)r * k, k, rows, k, out);
            for (int i = 0; i < rows; i++)
                for (int t = 0; t < per; t++)
                    j->y[(r + i) * j->n + o + t] = out[i * per + t] + ts_cpu_bias_at(j->bias, j->bias_dtype, o + t);
        }
    }
}

static void linear_task(void *arg, int64_t task, int worker)
{
    (void)worker;
    const linear_job *j = arg;
    const ts_kernels *kern = j->cpu->kernels;
    int64_t n0 = task * j->block, n1 = n0 + j->block < j->n ? n0 + j->block : j->n;
    if (j->xb) {
        bf16_rows_task(j, n0, n1);
        return;
    }
    size_t row_bytes = (size_t)j->k * ts_dtype_size(j->w_dtype);
    int64_t o = n0;
    /* More than four rows (several decoding sequences): several weight rows per pass, so each x
     * load serves them all, every dot bit-identical to the single one. Up to DOT_TILE_ROWS − 1
     * rows, pairs of weight rows in one pass each; from DOT_TILE_ROWS (the x rows outgrow L1),
     * TS_DOT_TILE weight rows with a pass per partial sum, fewer x loads again. CPU time of one
     * decode step of the synthetic 0.5B preset in bf16 on 1 thread (Zen 5, least of 7, loaded
     * machine): 8 sequences 94–96 → 87 ms with pairs (104–112 with tiles: the weight loads stall),
     * 16 sequences 337 → 168 ms with tiles (187 with pairs). */
    int per = 0;
    if (j->m > 4 && j->w_dtype == TS_DTYPE_BF16)
        per = j->m >= DOT_TILE_ROWS && kern->dot_tile_bf16_f32 ? TS_DOT_TILE : kern->dot_pair_bf16_f32 ? 2 : 0;
    else if (j->m > 4 && j->w_dtype == TS_DTYPE_F32)
        per = j->m >= DOT_TILE_ROWS && kern->dot_tile_f32 ? TS_DOT_TILE : kern->dot_pair_f32 ? 2 : 0;
    for (; per && o + per <= n1; o += per) {
        if (o + 8 + per <= n1)
            for (size_t at = 0; at < (size_t)per * row_bytes; at += 64)
                __builtin_prefetch((const char *)j->w + (size_t)(o + 8) * row_bytes + at, 0, 1);
        for (int64_t r = 0; r < j->m; r += 4) {
            int rows = j->m - r < 4 ? (int)(j->m - r) : 4;
            float out[4 * TS_DOT_TILE];
            const float *x = j->x + r * j->k;
            size_t k = (size_t)j->k;
            if (j->w_dtype == TS_DTYPE_BF16)
                (per == 2 ? kern->dot_pair_bf16_f32 : kern->dot_tile_bf16_f32)((const uint16_t *)j->w + o * j->k, k, x, k,
                                                                               rows, k, out);
            else
                (per == 2 ? kern->dot_pair_f32 : kern->dot_tile_f32)((const float *)j->w + o * j->k, k, x, k, rows, k,
                                                                     out);
            for (int i = 0; i < rows; i++)
                for (int t = 0; t < per; t++)
                    j->y[(r + i) * j->n + o + t] = out[i * per + t] + ts_cpu_bias_at(j->bias, j->bias_dtype, o + t);
        }
    }
    for (; o < n1; o++) {
        float b = ts_cpu_bias_at(j->bias, j->bias_dtype, o);
        int64_t r = 0;
        /* With several rows the dots take long enough that the weight stream stalls between rows
         * (the hardware prefetcher does not run ahead of arithmetic this dense): ask for the row
         * eight ahead now, so its fetch overlaps this row's sums. Measured on a 0.5B-parameter shape
         * 2 threads: a 4-sequence step 68 → 45 ms, 8 sequences 110 → 79 ms; one row gains nothing. */
        if (j->m > 1 && o + 8 < n1)
            for (size_t at = 0; at < row_bytes; at += 64) __builtin_prefetch((const char *)j->w + (size_t)(o + 8) * row_bytes + at, 0, 1);
        /* Several rows per pass over the weight row where a kernel for it exists. */
        if (j->w_dtype == TS_DTYPE_BF16 && kern->dot_rows_bf16_f32)
            for (float out[4]; r + 1 < j->m; r += 4) {
                int rows = j->m - r < 4 ? (int)(j->m - r) : 4;
                kern->dot_rows_bf16_f32((const uint16_t *)j->w + o * j->k, j->x + r * j->k, (size_t)j->k, rows, (size_t)j->k, out);
                for (int i = 0; i < rows; i++) j->y[(r + i) * j->n + o] = out[i] + b;
            }
        else if (j->w_dtype == TS_DTYPE_F32 && kern->dot_rows_f32)
            for (float out[4]; r + 1 < j->m; r += 4) {
                int rows = j->m - r < 4 ? (int)(j->m - r) : 4;
                kern->dot_rows_f32((const float *)j->w + o * j->k, j->x + r * j->k, (size_t)j->k, rows, (size_t)j->k, out);
                for (int i = 0; i < rows; i++) j->y[(r + i) * j->n + o] = out[i] + b;
            }
        for (; r < j->m; r++) {
            const float *xr = j->x + r * j->k;
            float dot;
            if (j->w_dtype == TS_DTYPE_BF16)
                dot = kern->dot_bf16_f32((const uint16_t *)j->w + o * j->k, xr, (size_t)j->k);
            else if (j->w_dtype == TS_DTYPE_F16)
                dot = kern->dot_f16_f32((const uint16_t *)j->w + o * j->k, xr, (size_t)j->k);
            else
                dot = kern->dot_f32((const float *)j->w + o * j->k, xr, (size_t)j->k);
            j->y[r * j->n + o] = dot + b;
        }
    }
}

/* Many rows: tiled GEMM over column blocks, then the bias. */
static void gemm_task(void *arg, int64_t task, int worker)
{
    (void)worker;
    const linear_job *j = arg;
    _Alignas(64) float panel[TS_GEMM_PANEL_FLOATS];
    int64_t n0 = task * j->block, n1 = n0 + j->block < j->n ? n0 + j->block : j->n;
    j->cpu->kernels->gemm_f32(j->x, j->m, j->k, j->w, j->w_dtype, j->k, n0, n1, j->y, j->n, panel);
    if (j->bias) ts_cpu_add_bias(j->y, j->n, j->m, n0, n1, j->bias, j->bias_dtype);
}

static float widen_bf16(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    __builtin_memcpy(&f, &bits, 4);
    return f;
}

typedef struct {
    const ts_cpu *cpu;
    const uint16_t *a;
    int64_t m, k;
    const uint16_t *w;
    int64_t n;
    float *c;
    int64_t block;
    const float *bias; /* one pass: in f32, added by the kernel as it stores the finished sums */
} bf16_job;

static void bf16_task(void *arg, int64_t task, int worker)
{
    (void)worker;
    const bf16_job *j = arg;
    _Alignas(64) float panel[TS_GEMM_PANEL_FLOATS];
    int64_t n0 = task * j->block, n1 = n0 + j->block < j->n ? n0 + j->block : j->n;
    j->cpu->kernels->gemm_bf16(j->a, j->m, j->k, j->w, n0, n1, j->bias, j->c, j->n, panel);
}

uint16_t *ts_cpu_act_reserve(const ts_cpu *cpu, size_t n)
{
    ts_cpu_act *a = cpu->act;
    if (!a) return NULL;
    a->key = -1;
    if (a->cap >= n) return a->buf;
    free(a->buf);
    size_t cap = (n + 4096) & ~(size_t)4095; /* a whole number of 64-byte lines */
    a->buf = aligned_alloc(64, cap * sizeof(uint16_t));
    a->cap = a->buf ? cap : 0;
    return a->buf;
}

typedef struct {
    const ts_kernels *kern;
    const float *x;
    uint16_t *xb;
    int64_t m, k, rows; /* rows per task */
    int passes;
} round_job;

/* Rows of x rounded to bf16 (two passes: lo = x − hi rounded again, m·k elements on). */
static void round_task(void *arg, int64_t task, int worker)
{
    (void)worker;
    const round_job *j = arg;
    int64_t r0 = task * j->rows, r1 = r0 + j->rows < j->m ? r0 + j->rows : j->m;
    size_t at = (size_t)(r0 * j->k), count = (size_t)((r1 - r0) * j->k);
    j->kern->f32_to_bf16(j->x + at, j->xb + at, count);
    if (j->passes == 2)
        for (size_t i = at; i < at + count; i++)
            j->xb[(size_t)(j->m * j->k) + i] = ts_f32_to_bf16_scalar(j->x[i] - widen_bf16(j->xb[i]));
}

/* Multiplies bf16 rows xb (passes·m of them: [hi; lo] for two passes) by w into y, + bias. */
static ts_status bf16_rows(const ts_cpu *cpu, const uint16_t *xb, int passes, int64_t m, int64_t k, const void *w,
                           int64_t n, const void *bias, ts_dtype bias_dtype, float *y, ts_error *err)
{
    float *lo = passes == 2 ? malloc(sizeof(float) * (size_t)(2 * m * n) + 1) : NULL;
    if (passes == 2 && !lo) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "linear: out of memory");
    float *dst = passes == 2 ? lo : y;
    ts_status st = TS_OK;
    bool bias_done = false;
    /* One pass: the bias in f32 for the kernel to add as it stores (a pass of its own over each
     * column block was 2% of a bf16 vision tower's encode). */
    float *widened = !cpu->onednn && bias && passes == 1 ? malloc(sizeof(float) * (size_t)n) : NULL;
    if (!cpu->onednn && bias && passes == 1 && !widened) {
        free(lo);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "linear: out of memory");
    }
    if (cpu->onednn) {
        st = ts_onednn_matmul_bf16(cpu->onednn, xb, passes * m, k, w, n, dst, err);
    } else {
        const float *b = widened ? ts_cpu_bias_f32(bias, bias_dtype, 0, n, widened) : NULL;
        bf16_job job = {cpu, xb, passes * m, k, w, n, dst, 0, b};
        int workers = ts_pool_size(cpu->pool);
        int64_t blocks = (n + TS_GEMM_COLUMNS - 1) / TS_GEMM_COLUMNS;
        /* ~8 tasks a worker: every task streams all of x once per 32 columns whatever its width, so
         * small tasks cost nothing, and they bound the wait at the end (a worker slowed by other
         * load, or the last wide task, left the other spinning for up to an eighth of the call). */
        job.block = (blocks / (workers * 8) > 1 ? blocks / (workers * 8) : 1) * TS_GEMM_COLUMNS;
        ts_pool_run(cpu->pool, bf16_task, &job, (n + job.block - 1) / job.block);
        bias_done = passes == 1;
    }
    if (st == TS_OK && passes == 2)
        for (int64_t i = 0; i < m * n; i++) y[i] = lo[i] + lo[m * n + i];
    free(lo);
    free(widened);
    if (st == TS_OK && bias && !bias_done) ts_cpu_add_bias(y, n, m, 0, n, bias, bias_dtype);
    return st;
}

ts_status ts_cpu_linear_bf16_rows(const ts_cpu *cpu, const uint16_t *xb, int64_t m, int64_t k, const void *w,
                                  int64_t n, float *y, ts_error *err)
{
    return bf16_rows(cpu, xb, 1, m, k, w, n, NULL, TS_DTYPE_F32, y, err);
}

const uint16_t *ts_cpu_act_bf16(const ts_cpu *cpu, const float *x, int64_t m, int64_t k, int passes)
{
    ts_cpu_act *a = cpu->act;
    if (a->want >= 0 && a->key == a->want && a->x == x && a->m == m && a->k == k && a->passes == passes) return a->buf;
    uint16_t *xb = ts_cpu_act_reserve(cpu, (size_t)(passes * m * k));
    if (!xb) return NULL;
    round_job rj = {cpu->kernels, x, xb, m, k, 16, passes};
    ts_pool_run(cpu->pool, round_task, &rj, (m + rj.rows - 1) / rj.rows);
    *a = (ts_cpu_act){a->buf, a->cap, a->want, a->want, x, m, k, passes};
    return xb;
}

/* One pass: x rounded to bf16. Two passes: rows [hi; lo] with lo = x − hi (exact in f32),
 * multiplied in one call and summed, so only lo's own rounding (2^-17 of x) is lost. The rounded
 * rows go to the program's buffer (ts_cpu_act), kept for the next linear of the same input. */
static ts_status linear_bf16(const ts_cpu *cpu, const float *x, int64_t m, int64_t k, const void *w, int64_t n,
                             const void *bias, ts_dtype bias_dtype, float *y, ts_error *err)
{
    int passes = cpu->bf16_passes;
    if (cpu->act) {
        const uint16_t *xb = ts_cpu_act_bf16(cpu, x, m, k, passes);
        if (!xb) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "linear: out of memory");
        return bf16_rows(cpu, xb, passes, m, k, w, n, bias, bias_dtype, y, err);
    }
    uint16_t *xb = malloc(sizeof(uint16_t) * (size_t)(passes * m * k) + 1);
    if (!xb) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "linear: out of memory");
    round_job rj = {cpu->kernels, x, xb, m, k, 16, passes};
    ts_pool_run(cpu->pool, round_task, &rj, (m + rj.rows - 1) / rj.rows);
    ts_status st = bf16_rows(cpu, xb, passes, m, k, w, n, bias, bias_dtype, y, err);
    free(xb);
    return st;
}

int ts_cpu_row_runs(const ts_cpu *cpu, int64_t m, int64_t *rows, bool *tiled)
{
    if (cpu->decode_rows) {
        rows[0] = m;
        tiled[0] = false;
        return 1;
    }
    if (!cpu->n_segments || m != cpu->segment_rows) {
        rows[0] = m;
        tiled[0] = m >= TS_CPU_TILED_ROWS && !cpu->n_segments;
        return 1;
    }
    int runs = 0;
    for (int s = 0; s < cpu->n_segments; s++) {
        bool t = cpu->segments[s] >= TS_CPU_TILED_ROWS;
        if (runs && tiled[runs - 1] == t) rows[runs - 1] += cpu->segments[s];
        else rows[runs] = cpu->segments[s], tiled[runs++] = t;
    }
    return runs;
}

/* m rows by the tiled kernels (bf16 products under that policy) or by the row dots. */
static ts_status linear_run(const ts_cpu *cpu, const float *x, int64_t m, int64_t k, const void *w,
                            ts_dtype w_dtype, int64_t n, const void *bias, ts_dtype bias_dtype,
                            float *y, bool tiled, ts_error *err)
{
    if (tiled && cpu->bf16_passes && w_dtype == TS_DTYPE_BF16 && k % 2 == 0)
        return linear_bf16(cpu, x, m, k, w, n, bias, bias_dtype, y, err);
    if (tiled && cpu->kernels->gemm_f32) {
        int workers = ts_pool_size(cpu->pool);
        int64_t blocks = (n + TS_GEMM_COLUMNS - 1) / TS_GEMM_COLUMNS;
        int64_t per = blocks / (workers * 4) > 1 ? blocks / (workers * 4) : 1;
        linear_job job = {cpu, x, m, k, n, w, w_dtype, bias, bias_dtype, y, per * TS_GEMM_COLUMNS, NULL};
        ts_pool_run(cpu->pool, gemm_task, &job, (n + job.block - 1) / job.block);
        return TS_OK;
    }
    int workers = ts_pool_size(cpu->pool);
    /* Enough blocks to balance, not so many that scheduling shows. */
    int64_t block = n / (workers * 8) > 16 ? n / (workers * 8) : 16;
    linear_job job = {cpu, x, m, k, n, w, w_dtype, bias, bias_dtype, y, block, NULL};
    /* The bf16 policy's decode rows: products of bf16 as the tiled path's (x rounded here, once
     * for all output features), on VDPBF16PS; the hi + lo policy keeps the f32-activation dots,
     * which are at least as exact as its two passes. */
    uint16_t *own = NULL;
    if (cpu->bf16_passes == 1 && w_dtype == TS_DTYPE_BF16 && cpu->kernels->dot_bf16_bf16) {
        /* In the program's buffer (ts_cpu_act), shared by the linears of one input (q, k, v; gate,
         * up), as the tiled path's. */
        if (cpu->act) {
            job.xb = ts_cpu_act_bf16(cpu, x, m, k, 1);
        } else if ((own = malloc(sizeof(uint16_t) * (size_t)(m * k) + 1))) {
            round_job rj = {cpu->kernels, x, own, m, k, 16, 1};
            ts_pool_run(cpu->pool, round_task, &rj, (m + rj.rows - 1) / rj.rows);
            job.xb = own;
        }
        if (!job.xb) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "linear: out of memory");
    }
    ts_pool_run(cpu->pool, linear_task, &job, (n + block - 1) / block);
    free(own);
    return TS_OK;
}

ts_status ts_cpu_linear(const ts_cpu *cpu, const float *x, int64_t m, int64_t k, const void *w,
                        ts_dtype w_dtype, int64_t n, const void *bias, ts_dtype bias_dtype, float *y,
                        ts_error *err)
{
    int64_t rows[64], r = 0;
    bool tiled[64];
    int runs = ts_cpu_row_runs(cpu, m, rows, tiled);
    ts_status st = TS_OK;
    for (int i = 0; st == TS_OK && i < runs; r += rows[i++])
        st = linear_run(cpu, x + r * k, rows[i], k, w, w_dtype, n, bias, bias_dtype,
                        y + r * n, tiled[i], err);
    return st;
}
