/* elementwise.c — f32 elementwise ops (split in chunks over the pool), scalar fills, unit-stride
 * slices and row scatter-adds. These are the primitives that decompositions and model graphs use
 * between the fused kernels (activations spelled out, residual adds, q/k/v column splits, the
 * DeepStack add); the reference evaluator keeps the general cases.
 */
#include "cpu/ops.h"

#include <math.h>
#include <string.h>

#define CHUNK 4096

typedef struct {
    const ts_kernels *k;
    ts_op op;
    const float *a, *b;
    float *y;
    int64_t n;
} elementwise_job;

static float unary(ts_op op, float x)
{
    switch (op) {
    case TS_OP_NEGATE: return -x;
    case TS_OP_ABS: return fabsf(x);
    case TS_OP_EXPONENTIAL: return expf(x);
    case TS_OP_LOG: return logf(x);
    case TS_OP_SQRT: return sqrtf(x);
    case TS_OP_RSQRT: return 1.0f / sqrtf(x);
    case TS_OP_TANH: return tanhf(x);
    case TS_OP_LOGISTIC: return 1.0f / (1.0f + expf(-x));
    case TS_OP_SINE: return sinf(x);
    case TS_OP_COSINE: return cosf(x);
    case TS_OP_ERF: return erff(x);
    default: return NAN;
    }
}

static float binary(ts_op op, float a, float b)
{
    switch (op) {
    case TS_OP_ADD: return a + b;
    case TS_OP_SUBTRACT: return a - b;
    case TS_OP_MULTIPLY: return a * b;
    case TS_OP_DIVIDE: return a / b;
    case TS_OP_MAXIMUM: return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
    case TS_OP_MINIMUM: return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
    case TS_OP_POWER: return powf(a, b);
    default: return NAN;
    }
}

static void elementwise_task(void *arg, int64_t task, int worker)
{
    (void)worker;
    const elementwise_job *j = arg;
    int64_t i0 = task * CHUNK, i1 = i0 + CHUNK < j->n ? i0 + CHUNK : j->n;
    if (j->b) {
        /* The hot binary ops get their own loops so the compiler vectorises them. */
        if (j->op == TS_OP_ADD)
            for (int64_t i = i0; i < i1; i++) j->y[i] = j->a[i] + j->b[i];
        else if (j->op == TS_OP_MULTIPLY)
            for (int64_t i = i0; i < i1; i++) j->y[i] = j->a[i] * j->b[i];
        else
            for (int64_t i = i0; i < i1; i++) j->y[i] = binary(j->op, j->a[i], j->b[i]);
    } else if (j->op == TS_OP_LOGISTIC) {
        j->k->logistic_f32(j->a + i0, j->y + i0, (size_t)(i1 - i0));
    } else {
        for (int64_t i = i0; i < i1; i++) j->y[i] = unary(j->op, j->a[i]);
    }
}

bool ts_cpu_elementwise_supported(ts_op op)
{
    return ts_op_is_elementwise_binary(op) || (ts_op_is_elementwise_unary(op) && op != TS_OP_CONVERT);
}

void ts_cpu_elementwise(const ts_cpu *cpu, ts_op op, const float *a, const float *b, float *y, int64_t n)
{
    elementwise_job job = {cpu->kernels, op, a, b, y, n};
    ts_pool_run(cpu->pool, elementwise_task, &job, (n + CHUNK - 1) / CHUNK);
}

typedef struct {
    const ts_kernels *k;
    const float *x, *scale, *u;
    float *y;
    int64_t n;
} silu_job;

static void silu_task(void *arg, int64_t task, int worker)
{
    (void)worker;
    const silu_job *j = arg;
    int64_t i0 = task * CHUNK, len = j->n - i0 < CHUNK ? j->n - i0 : CHUNK;
    j->k->silu_f32(j->x + i0, j->scale, j->u ? j->u + i0 : NULL, j->y + i0, (size_t)len);
}

void ts_cpu_silu_mul(const ts_cpu *cpu, const float *x, const float *scale, const float *u, float *y, int64_t n)
{
    silu_job job = {cpu->kernels, x, scale, u, y, n};
    ts_pool_run(cpu->pool, silu_task, &job, (n + CHUNK - 1) / CHUNK);
}

void ts_cpu_fill(float *y, float value, int64_t n)
{
    for (int64_t i = 0; i < n; i++) y[i] = value;
}

bool ts_cpu_slice_contiguous(const ts_type *in, const ts_type *out, const int64_t *start, const int64_t *strides, const void *x,
                             void *y)
{
    int rank = in->rank;
    for (int d = 0; d < rank; d++)
        if (strides[d] != 1) return false;
    size_t es = ts_dtype_size(in->dtype);
    /* Copy runs of the innermost dimension; the outer index walks the output. */
    int64_t inner = rank ? out->dims[rank - 1] : 1, outer = inner ? ts_type_elements(out) / inner : 0;
    int64_t in_strides[TS_MAX_DIMS], s = 1;
    for (int d = rank - 1; d >= 0; d--) in_strides[d] = s, s *= in->dims[d];
    int64_t idx[TS_MAX_DIMS] = {0};
    for (int64_t o = 0; o < outer; o++) {
        int64_t src = 0;
        for (int d = 0; d < rank; d++) src += (start[d] + idx[d]) * in_strides[d];
        memcpy((char *)y + (size_t)(o * inner) * es, (const char *)x + (size_t)src * es, (size_t)inner * es);
        for (int d = rank - 2; d >= 0; d--) {
            if (++idx[d] < out->dims[d]) break;
            idx[d] = 0;
        }
    }
    return true;
}

bool ts_cpu_scatter_add_rows(const ts_graph *g, const ts_node *n, const void *x,
                             const void *indices, const void *updates, void *y)
{
    const ts_type *xt = ts_graph_type(g, n->inputs[0]), *it = ts_graph_type(g, n->inputs[1]),
                  *ut = ts_graph_type(g, n->inputs[2]);
    const ts_dims *window = &n->attrs.scatter.update_window_dims,
                  *inserted = &n->attrs.scatter.inserted_window_dims;
    const ts_dims *to_operand = &n->attrs.scatter.scatter_dims_to_operand_dims;
    /* Rows of a [R, H] f32 operand, one i32 row index per update row: updates [Nv, H]. */
    if (xt->dtype != TS_DTYPE_F32 || ut->dtype != TS_DTYPE_F32 || it->dtype != TS_DTYPE_I32 ||
        xt->rank != 2 || ut->rank != 2 || it->rank != 1 || n->attrs.scatter.index_vector_dim != 1 ||
        window->n != 1 || window->v[0] != 1 || inserted->n != 1 || inserted->v[0] != 0 ||
        to_operand->n != 1 || to_operand->v[0] != 0 || ut->dims[0] != it->dims[0] ||
        ut->dims[1] != xt->dims[1])
        return false;
    int64_t rows = xt->dims[0], h = xt->dims[1];
    const int32_t *at = indices;
    const float *u = updates;
    float *out = y;
    memcpy(out, x, ts_type_bytes(xt));
    /* In index order, so repeated rows accumulate as the reference does; rows outside the operand
     * are skipped (StableHLO leaves out-of-bounds windows out). */
    for (int64_t j = 0; j < it->dims[0]; j++) {
        if (at[j] < 0 || at[j] >= rows) continue;
        float *row = out + (int64_t)at[j] * h;
        for (int64_t k = 0; k < h; k++)
            row[k] += u[j * h + k];
    }
    return true;
}

/* The axis a gather takes along (x[..., indices, ...] with i32 [M] indices at axis a, every other
 * axis whole, the result's index axis where a was: jnp.take's form), or −1 for another form. */
static int take_axis(const ts_graph *g, const ts_node *n)
{
    const ts_type *xt = ts_graph_type(g, n->inputs[0]), *it = ts_graph_type(g, n->inputs[1]);
    const ts_dims *offset = &n->attrs.gather.offset_dims, *collapsed = &n->attrs.gather.collapsed_slice_dims;
    const ts_dims *map = &n->attrs.gather.start_index_map, *sizes = &n->attrs.gather.slice_sizes;
    if (it->dtype != TS_DTYPE_I32 || it->rank != 1 || n->attrs.gather.index_vector_dim != 1 || xt->rank < 1 ||
        collapsed->n != 1 || map->n != 1 || map->v[0] != collapsed->v[0] || offset->n != xt->rank - 1 ||
        sizes->n != xt->rank)
        return -1;
    int a = (int)collapsed->v[0];
    if (a < 0 || a >= xt->rank || xt->dims[a] < 1 || sizes->v[a] != 1) return -1;
    for (int d = 0, o = 0; d < xt->rank; d++) {
        if (d == a) continue;
        if (offset->v[o++] != d || sizes->v[d] != xt->dims[d]) return -1;
    }
    return a;
}

bool ts_cpu_gather_rows(const ts_graph *g, const ts_node *n, const void *x, const void *indices,
                        void *y)
{
    const ts_type *xt = ts_graph_type(g, n->inputs[0]), *it = ts_graph_type(g, n->inputs[1]);
    if (take_axis(g, n) != 0) return false;
    size_t row = ts_type_bytes(xt) / (size_t)xt->dims[0];
    const int32_t *at = indices;
    for (int64_t j = 0; j < it->dims[0]; j++) {
        int64_t r = at[j] < 0 ? 0 : at[j] >= xt->dims[0] ? xt->dims[0] - 1 : at[j];
        memcpy((char *)y + (size_t)j * row, (const char *)x + (size_t)r * row, row);
    }
    return true;
}

typedef struct {
    const int32_t *at;
    const uint32_t *src;
    uint32_t *dst;
    int64_t k, m, rows, per_task;
} columns_job;

static void columns_task(void *arg, int64_t task, int worker)
{
    (void)worker;
    const columns_job *j = arg;
    int64_t r1 = (task + 1) * j->per_task < j->rows ? (task + 1) * j->per_task : j->rows;
    for (int64_t r = task * j->per_task; r < r1; r++)
        for (int64_t c = 0; c < j->m; c++) {
            int64_t i = j->at[c] < 0 ? 0 : j->at[c] >= j->k ? j->k - 1 : j->at[c];
            j->dst[r * j->m + c] = j->src[r * j->k + i];
        }
}

bool ts_cpu_gather_columns(const ts_cpu *cpu, const ts_graph *g, const ts_node *n, const void *x, const void *indices,
                           void *y)
{
    const ts_type *xt = ts_graph_type(g, n->inputs[0]), *it = ts_graph_type(g, n->inputs[1]);
    int last = xt->rank - 1;
    if (ts_dtype_size(xt->dtype) != 4 || take_axis(g, n) != last) return false;
    int64_t k = xt->dims[last], rows = ts_type_elements(xt) / k;
    /* rows in tasks of ~64 K elements: a prefill's act-order gathers over every thread */
    int64_t per = 65536 / k; /* k ≥ 1: take_axis */
    columns_job j = {indices, x, y, k, it->dims[0], rows, per > 0 ? per : 1};
    ts_pool_run(cpu->pool, columns_task, &j, (rows + j.per_task - 1) / j.per_task);
    return true;
}

bool ts_cpu_update_rows(const ts_graph *g, const ts_node *n, const void *x, const void *update,
                        int64_t row_start, void *y)
{
    const ts_type *xt = ts_graph_type(g, n->inputs[0]), *ut = ts_graph_type(g, n->inputs[1]);
    if (xt->rank < 1 || ut->rank != xt->rank || xt->dims[0] < 1) return false;
    for (int d = 1; d < xt->rank; d++)
        if (ut->dims[d] != xt->dims[d]) return false;
    if (y != x) memcpy(y, x, ts_type_bytes(xt));
    int64_t r = row_start < 0                           ? 0
                : row_start > xt->dims[0] - ut->dims[0] ? xt->dims[0] - ut->dims[0]
                                                        : row_start;
    size_t row = ts_type_bytes(xt) / (size_t)xt->dims[0];
    memcpy((char *)y + (size_t)r * row, update, ts_type_bytes(ut));
    return true;
}
