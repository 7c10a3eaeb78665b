/* onednn.c — bf16 matmuls through oneDNN, which picks AMX tiles where the CPU has them and
 * AVX512_BF16 (or plain AVX-512) elsewhere.
 *
 * Used for the bf16 compute policy on many-row matmuls with bf16 weights: activations are
 * rounded to bf16 (nearest even), weights are read in place in their [out, in] layout, products
 * accumulate in f32. Primitives are cached by shape (m, k, n) for the life of the cache; oneDNN
 * runs on its own OpenMP threads, sized to the context's thread count.
 */
#include "cpu/onednn.h"
#include "base/error.h"

#include <oneapi/dnnl/dnnl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* From the OpenMP runtime oneDNN links; declared here so no OpenMP headers or flags are needed. */
void omp_set_num_threads(int n);

typedef struct {
    int64_t m, k, n;
    dnnl_primitive_t primitive;
    dnnl_memory_t src, weights, dst;
} entry;

struct ts_onednn {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    int threads;
    pthread_mutex_t lock;
    entry *entries;
    int n_entries, cap_entries;
};

ts_status ts_onednn_create(int threads, ts_onednn **out, ts_error *err)
{
    *out = NULL;
    ts_onednn *d = calloc(1, sizeof(*d));
    if (!d) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "oneDNN: out of memory");
    pthread_mutex_init(&d->lock, NULL);
    if (dnnl_engine_create(&d->engine, dnnl_cpu, 0) != dnnl_success ||
        dnnl_stream_create(&d->stream, d->engine, dnnl_stream_default_flags) != dnnl_success) {
        ts_onednn_destroy(d);
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "oneDNN: cannot create a CPU engine");
    }
    d->threads = threads;
    *out = d;
    return TS_OK;
}

void ts_onednn_destroy(ts_onednn *d)
{
    if (!d) return;
    for (int i = 0; i < d->n_entries; i++) {
        dnnl_primitive_destroy(d->entries[i].primitive);
        dnnl_memory_destroy(d->entries[i].src);
        dnnl_memory_destroy(d->entries[i].weights);
        dnnl_memory_destroy(d->entries[i].dst);
    }
    free(d->entries);
    if (d->stream) dnnl_stream_destroy(d->stream);
    if (d->engine) dnnl_engine_destroy(d->engine);
    pthread_mutex_destroy(&d->lock);
    free(d);
}

static ts_status make_entry(ts_onednn *d, int64_t m, int64_t k, int64_t n, entry *e, ts_error *err)
{
    memset(e, 0, sizeof(*e));
    e->m = m, e->k = k, e->n = n;
    dnnl_memory_desc_t src_md, wei_md, dst_md;
    dnnl_dims_t src_dims = {m, k}, wei_dims = {k, n}, dst_dims = {m, n};
    /* Weights W[n][k] row-major are the k×n matrix with strides (1, k). */
    dnnl_dims_t wei_strides = {1, k};
    if (dnnl_memory_desc_init_by_tag(&src_md, 2, src_dims, dnnl_bf16, dnnl_ab) != dnnl_success ||
        dnnl_memory_desc_init_by_strides(&wei_md, 2, wei_dims, dnnl_bf16, wei_strides) != dnnl_success ||
        dnnl_memory_desc_init_by_tag(&dst_md, 2, dst_dims, dnnl_f32, dnnl_ab) != dnnl_success)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "oneDNN: bad matmul shape %lldx%lldx%lld", (long long)m, (long long)k, (long long)n);
    dnnl_matmul_desc_t desc;
    dnnl_primitive_desc_t pd;
    if (dnnl_matmul_desc_init(&desc, &src_md, &wei_md, NULL, &dst_md) != dnnl_success ||
        dnnl_primitive_desc_create(&pd, &desc, NULL, d->engine, NULL) != dnnl_success)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "oneDNN: no bf16 matmul for %lldx%lldx%lld on this CPU", (long long)m, (long long)k, (long long)n);
    dnnl_status_t s = dnnl_primitive_create(&e->primitive, pd);
    dnnl_primitive_desc_destroy(pd);
    if (s != dnnl_success ||
        dnnl_memory_create(&e->src, &src_md, d->engine, DNNL_MEMORY_NONE) != dnnl_success ||
        dnnl_memory_create(&e->weights, &wei_md, d->engine, DNNL_MEMORY_NONE) != dnnl_success ||
        dnnl_memory_create(&e->dst, &dst_md, d->engine, DNNL_MEMORY_NONE) != dnnl_success)
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "oneDNN: cannot create the matmul");
    return TS_OK;
}

ts_status ts_onednn_matmul_bf16(ts_onednn *d, const uint16_t *a, int64_t m, int64_t k, const uint16_t *w,
                                int64_t n, float *c, ts_error *err)
{
    pthread_mutex_lock(&d->lock);
    entry *e = NULL;
    for (int i = 0; i < d->n_entries; i++)
        if (d->entries[i].m == m && d->entries[i].k == k && d->entries[i].n == n) e = &d->entries[i];
    ts_status st = TS_OK;
    if (!e) {
        if (d->n_entries == d->cap_entries) {
            int cap = d->cap_entries ? d->cap_entries * 2 : 16;
            entry *grown = realloc(d->entries, sizeof(entry) * (size_t)cap);
            if (!grown) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "oneDNN: out of memory");
            else d->entries = grown, d->cap_entries = cap;
        }
        if (st == TS_OK) st = make_entry(d, m, k, n, &d->entries[d->n_entries], err);
        if (st == TS_OK) e = &d->entries[d->n_entries++];
    }
    if (st == TS_OK) {
        omp_set_num_threads(d->threads);
        dnnl_memory_set_data_handle(e->src, (void *)a);
        dnnl_memory_set_data_handle(e->weights, (void *)w);
        dnnl_memory_set_data_handle(e->dst, c);
        dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, e->src}, {DNNL_ARG_WEIGHTS, e->weights}, {DNNL_ARG_DST, e->dst}};
        if (dnnl_primitive_execute(e->primitive, d->stream, 3, args) != dnnl_success || dnnl_stream_wait(d->stream) != dnnl_success)
            st = ts_error_set(err, TS_ERR_INTERNAL, "oneDNN: matmul %lldx%lldx%lld failed", (long long)m, (long long)k, (long long)n);
    }
    pthread_mutex_unlock(&d->lock);
    return st;
}
