/* elementwise.c — f32 elementwise ops, scalar fills and unit-stride slices, split in chunks
 * over the pool. These are the primitives that decompositions and model graphs use between
 * the fused kernels (activations spelled out, residual adds, q/k/v column splits); the reference
 * evaluator keeps the general cases.
 */
#include "cpu/ops.h"

#include <math.h>
#include <string.h>

#define CHUNK 4096

typedef struct {
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
    elementwise_job job = {op, a, b, y, n};
    ts_pool_run(cpu->pool, elementwise_task, &job, (n + CHUNK - 1) / CHUNK);
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
