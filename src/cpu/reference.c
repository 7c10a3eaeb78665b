/* reference.c — the plain-C evaluator of primitive ops: StableHLO semantics, no speed.
 *
 * Every node gets its own buffer and all stay alive until the end: simple, and tests can read any
 * intermediate. Float math accumulates in double, so this is the yardstick the fused kernels and
 * the decompositions are measured against. Composite nodes are refused: run
 * ts_graph_decompose first (the reference meaning of a composite is its decomposition).
 */
#include "cpu/reference.h"
#include "base/error.h"
#include "cpu/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static float bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}


static uint16_t float_to_f16(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, 4);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000);
    uint32_t a = bits & 0x7fffffff;
    if (a > 0x7f800000) return sign | 0x7e00;
    if (a >= 0x477ff000) return sign | 0x7c00; /* rounds to inf */
    if (a < 0x38800000) {                      /* subnormal or zero */
        float af;
        memcpy(&af, &a, 4);
        return sign | (uint16_t)nearbyintf(af * 16777216.0f); /* 2^24 */
    }
    uint32_t rounded = a + 0xfff + ((a >> 13) & 1);
    return sign | (uint16_t)((rounded - (112u << 23)) >> 13);
}

double ts_reference_get(ts_dtype dtype, const void *data, int64_t i)
{
    switch (dtype) {
    case TS_DTYPE_F32: return ((const float *)data)[i];
    case TS_DTYPE_BF16: return bf16_to_float(((const uint16_t *)data)[i]);
    case TS_DTYPE_F16: return ts_f16_to_f32_scalar(((const uint16_t *)data)[i]);
    case TS_DTYPE_I64: return (double)((const int64_t *)data)[i];
    case TS_DTYPE_I32: return ((const int32_t *)data)[i];
    case TS_DTYPE_I16: return ((const int16_t *)data)[i];
    case TS_DTYPE_I8: return ((const int8_t *)data)[i];
    case TS_DTYPE_U8: return ((const uint8_t *)data)[i];
    case TS_DTYPE_BOOL: return ((const uint8_t *)data)[i] != 0;
    default: return 0;
    }
}

/* Float → integer truncates toward zero and saturates, as XLA's convert does on CPU. */
static int64_t saturate(double v, double lo, double hi)
{
    if (isnan(v)) return 0;
    if (v <= lo) return (int64_t)lo;
    if (v >= hi) return (int64_t)hi;
    return (int64_t)v;
}

void ts_reference_set(ts_dtype dtype, void *data, int64_t i, double v)
{
    switch (dtype) {
    case TS_DTYPE_F32: ((float *)data)[i] = (float)v; break;
    case TS_DTYPE_BF16: ((uint16_t *)data)[i] = ts_f32_to_bf16_scalar((float)v); break;
    case TS_DTYPE_F16: ((uint16_t *)data)[i] = float_to_f16((float)v); break;
    case TS_DTYPE_I64: ((int64_t *)data)[i] = saturate(v, -9223372036854775808.0, 9223372036854774784.0); break;
    case TS_DTYPE_I32: ((int32_t *)data)[i] = (int32_t)saturate(v, -2147483648.0, 2147483647.0); break;
    case TS_DTYPE_I16: ((int16_t *)data)[i] = (int16_t)saturate(v, -32768.0, 32767.0); break;
    case TS_DTYPE_I8: ((int8_t *)data)[i] = (int8_t)saturate(v, -128.0, 127.0); break;
    case TS_DTYPE_U8: ((uint8_t *)data)[i] = (uint8_t)saturate(v, 0.0, 255.0); break;
    case TS_DTYPE_BOOL: ((uint8_t *)data)[i] = v != 0; break;
    default: break;
    }
}

static bool is_float_dtype(ts_dtype d) { return d == TS_DTYPE_F32 || d == TS_DTYPE_BF16 || d == TS_DTYPE_F16; }

/* Row-major strides in elements. */
static void strides_of(const ts_type *t, int64_t *strides)
{
    int64_t s = 1;
    for (int i = t->rank - 1; i >= 0; i--) {
        strides[i] = s;
        s *= t->dims[i];
    }
}

/* Advances a multi-index; false after the last one. */
static bool next_index(int64_t *idx, const ts_type *t)
{
    for (int i = t->rank - 1; i >= 0; i--) {
        if (++idx[i] < t->dims[i]) return true;
        idx[i] = 0;
    }
    return false;
}

static int64_t offset_of(const int64_t *idx, const int64_t *strides, int rank)
{
    int64_t o = 0;
    for (int i = 0; i < rank; i++) o += idx[i] * strides[i];
    return o;
}

static double unary(ts_op op, double x)
{
    switch (op) {
    case TS_OP_NEGATE: return -x;
    case TS_OP_ABS: return fabs(x);
    case TS_OP_EXPONENTIAL: return exp(x);
    case TS_OP_LOG: return log(x);
    case TS_OP_SQRT: return sqrt(x);
    case TS_OP_RSQRT: return 1.0 / sqrt(x);
    case TS_OP_TANH: return tanh(x);
    case TS_OP_LOGISTIC: return 1.0 / (1.0 + exp(-x));
    case TS_OP_SINE: return sin(x);
    case TS_OP_COSINE: return cos(x);
    case TS_OP_ERF: return erf(x);
    default: return NAN;
    }
}

static double binary(ts_op op, double a, double b, bool integer)
{
    switch (op) {
    case TS_OP_ADD: return a + b;
    case TS_OP_SUBTRACT: return a - b;
    case TS_OP_MULTIPLY: return a * b;
    case TS_OP_DIVIDE:
        if (integer) return b == 0 ? -1 : trunc(a / b); /* StableHLO: x/0 = -1 for integers */
        return a / b;
    case TS_OP_MAXIMUM: return (isnan(a) || isnan(b)) ? NAN : (a > b ? a : b);
    case TS_OP_MINIMUM: return (isnan(a) || isnan(b)) ? NAN : (a < b ? a : b);
    case TS_OP_POWER: return pow(a, b);
    default: return NAN;
    }
}

static bool compare(ts_compare d, double a, double b)
{
    switch (d) {
    case TS_COMPARE_EQ: return a == b;
    case TS_COMPARE_NE: return a != b;
    case TS_COMPARE_LT: return a < b;
    case TS_COMPARE_LE: return a <= b;
    case TS_COMPARE_GT: return a > b;
    case TS_COMPARE_GE: return a >= b;
    default: return false;
    }
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static bool dims_has(const ts_dims *d, int64_t x)
{
    for (int i = 0; i < d->n; i++)
        if (d->v[i] == x) return true;
    return false;
}

static ts_status eval_gather(const ts_graph *g, const ts_node *n, void *const *vals, void *out)
{
    const ts_type *ot = ts_graph_type(g, n->inputs[0]), *it = ts_graph_type(g, n->inputs[1]);
    const void *operand = vals[n->inputs[0]], *indices = vals[n->inputs[1]];
    size_t es = ts_dtype_size(n->type.dtype);
    int64_t os[TS_MAX_DIMS], is[TS_MAX_DIMS];
    strides_of(ot, os);
    strides_of(it, is);
    const ts_dims *offset_dims = &n->attrs.gather.offset_dims;
    const ts_dims *collapsed = &n->attrs.gather.collapsed_slice_dims;
    const ts_dims *start_map = &n->attrs.gather.start_index_map;
    const ts_dims *sizes = &n->attrs.gather.slice_sizes;
    int ivd = n->attrs.gather.index_vector_dim;
    int64_t idx[TS_MAX_DIMS] = {0};
    if (ts_type_elements(&n->type) == 0) return TS_OK;
    int64_t flat = 0;
    do {
        /* Split the result index into batch and offset parts. */
        int64_t batch[TS_MAX_DIMS], offs[TS_MAX_DIMS];
        int nb = 0, no = 0;
        for (int i = 0; i < n->type.rank; i++) {
            if (dims_has(offset_dims, i)) offs[no++] = idx[i];
            else batch[nb++] = idx[i];
        }
        /* Start index vector. */
        int64_t start[TS_MAX_DIMS] = {0};
        for (int k = 0; k < start_map->n; k++) {
            int64_t iidx[TS_MAX_DIMS];
            int b = 0;
            for (int d = 0; d < it->rank; d++) iidx[d] = d == ivd ? k : batch[b++];
            int64_t v = (int64_t)ts_reference_get(it->dtype, indices, offset_of(iidx, is, it->rank));
            int64_t axis = start_map->v[k];
            start[axis] = clamp64(v, 0, ot->dims[axis] - sizes->v[axis]);
        }
        int64_t src[TS_MAX_DIMS];
        int o = 0;
        for (int d = 0; d < ot->rank; d++) src[d] = start[d] + (dims_has(collapsed, d) ? 0 : offs[o++]);
        memcpy((char *)out + (size_t)flat * es, (const char *)operand + (size_t)offset_of(src, os, ot->rank) * es, es);
        flat++;
    } while (next_index(idx, &n->type));
    return TS_OK;
}

static ts_status eval_scatter_add(const ts_graph *g, const ts_node *n, void *const *vals, void *out,
                                  ts_error *err)
{
    const ts_type *ot = &n->type, *it = ts_graph_type(g, n->inputs[1]), *ut = ts_graph_type(g, n->inputs[2]);
    const void *indices = vals[n->inputs[1]], *updates = vals[n->inputs[2]];
    memcpy(out, vals[n->inputs[0]], ts_type_bytes(ot));
    int64_t os[TS_MAX_DIMS], is[TS_MAX_DIMS];
    strides_of(ot, os);
    strides_of(it, is);
    const ts_dims *window = &n->attrs.scatter.update_window_dims;
    const ts_dims *inserted = &n->attrs.scatter.inserted_window_dims;
    const ts_dims *to_operand = &n->attrs.scatter.scatter_dims_to_operand_dims;
    int ivd = n->attrs.scatter.index_vector_dim;
    if (ts_type_elements(ut) == 0) return TS_OK;
    int64_t idx[TS_MAX_DIMS] = {0};
    int64_t flat = 0;
    do {
        int64_t scatter[TS_MAX_DIMS], win[TS_MAX_DIMS];
        int ns = 0, nw = 0;
        for (int i = 0; i < ut->rank; i++) {
            if (dims_has(window, i)) win[nw++] = idx[i];
            else scatter[ns++] = idx[i];
        }
        int64_t start[TS_MAX_DIMS] = {0};
        for (int k = 0; k < to_operand->n; k++) {
            int64_t iidx[TS_MAX_DIMS];
            int b = 0;
            for (int d = 0; d < it->rank; d++) iidx[d] = d == ivd ? k : scatter[b++];
            start[to_operand->v[k]] = (int64_t)ts_reference_get(it->dtype, indices, offset_of(iidx, is, it->rank));
        }
        int64_t dst[TS_MAX_DIMS];
        int w = 0;
        bool inside = true;
        for (int d = 0; d < ot->rank; d++) {
            dst[d] = start[d] + (dims_has(inserted, d) ? 0 : win[w++]);
            if (dst[d] < 0 || dst[d] >= ot->dims[d]) inside = false;
        }
        /* StableHLO: out-of-bounds update windows are skipped (implementation-defined; XLA skips). */
        if (inside) {
            int64_t o = offset_of(dst, os, ot->rank);
            ts_reference_set(ot->dtype, out, o, ts_reference_get(ot->dtype, out, o) + ts_reference_get(ut->dtype, updates, flat));
        }
        flat++;
    } while (next_index(idx, ut));
    (void)err;
    return TS_OK;
}

static void eval_dot(const ts_graph *g, const ts_node *n, void *const *vals, void *out)
{
    const ts_type *lt = ts_graph_type(g, n->inputs[0]), *rt = ts_graph_type(g, n->inputs[1]);
    const void *lhs = vals[n->inputs[0]], *rhs = vals[n->inputs[1]];
    int64_t ls[TS_MAX_DIMS], rs[TS_MAX_DIMS];
    strides_of(lt, ls);
    strides_of(rt, rs);
    const ts_dims *lb = &n->attrs.dot.lhs_batch, *rb = &n->attrs.dot.rhs_batch;
    const ts_dims *lc = &n->attrs.dot.lhs_contract, *rc = &n->attrs.dot.rhs_contract;
    /* Free dims of each side in order. */
    int lf[TS_MAX_DIMS], rf[TS_MAX_DIMS], nlf = 0, nrf = 0;
    for (int i = 0; i < lt->rank; i++)
        if (!dims_has(lb, i) && !dims_has(lc, i)) lf[nlf++] = i;
    for (int i = 0; i < rt->rank; i++)
        if (!dims_has(rb, i) && !dims_has(rc, i)) rf[nrf++] = i;
    ts_type ct = {.dtype = TS_DTYPE_F32, .rank = lc->n};
    for (int i = 0; i < lc->n; i++) ct.dims[i] = lt->dims[lc->v[i]];
    int64_t n_contract = ts_type_elements(&ct);
    if (ts_type_elements(&n->type) == 0) return;
    int64_t idx[TS_MAX_DIMS] = {0};
    int64_t flat = 0;
    do {
        int64_t li[TS_MAX_DIMS] = {0}, ri[TS_MAX_DIMS] = {0};
        int at = 0;
        for (int i = 0; i < lb->n; i++, at++) {
            li[lb->v[i]] = idx[at];
            ri[rb->v[i]] = idx[at];
        }
        for (int i = 0; i < nlf; i++, at++) li[lf[i]] = idx[at];
        for (int i = 0; i < nrf; i++, at++) ri[rf[i]] = idx[at];
        double sum = 0;
        int64_t cidx[TS_MAX_DIMS] = {0};
        for (int64_t c = 0; c < n_contract; c++) {
            for (int i = 0; i < lc->n; i++) {
                li[lc->v[i]] = cidx[i];
                ri[rc->v[i]] = cidx[i];
            }
            sum += ts_reference_get(lt->dtype, lhs, offset_of(li, ls, lt->rank)) *
                   ts_reference_get(rt->dtype, rhs, offset_of(ri, rs, rt->rank));
            if (lc->n) next_index(cidx, &ct);
        }
        ts_reference_set(n->type.dtype, out, flat++, sum);
    } while (next_index(idx, &n->type));
}

ts_status ts_reference_eval(const ts_graph *g, const ts_node *n, void *const *vals, void *out, ts_error *err)
{
    const ts_type *t = &n->type;
    int64_t count = ts_type_elements(t);
    size_t es = ts_dtype_size(t->dtype);
    const ts_type *in0 = n->n_inputs ? ts_graph_type(g, n->inputs[0]) : NULL;
    const void *a = n->n_inputs ? vals[n->inputs[0]] : NULL;
    int64_t idx[TS_MAX_DIMS] = {0};
    int64_t s_in[TS_MAX_DIMS], s_out[TS_MAX_DIMS];
    switch (n->op) {
    case TS_OP_CONSTANT: memcpy(out, n->attrs.constant.data, ts_type_bytes(t)); return TS_OK;
    case TS_OP_IOTA:
        if (count == 0) return TS_OK;
        for (int64_t i = 0; i < count; i++) {
            ts_reference_set(t->dtype, out, i, (double)idx[n->attrs.iota.dimension]);
            next_index(idx, t);
        }
        return TS_OK;
    case TS_OP_CONVERT:
        for (int64_t i = 0; i < count; i++) ts_reference_set(t->dtype, out, i, ts_reference_get(in0->dtype, a, i));
        return TS_OK;
    case TS_OP_NEGATE: case TS_OP_ABS: case TS_OP_EXPONENTIAL: case TS_OP_LOG: case TS_OP_SQRT:
    case TS_OP_RSQRT: case TS_OP_TANH: case TS_OP_LOGISTIC: case TS_OP_SINE: case TS_OP_COSINE:
    case TS_OP_ERF:
        for (int64_t i = 0; i < count; i++) ts_reference_set(t->dtype, out, i, unary(n->op, ts_reference_get(t->dtype, a, i)));
        return TS_OK;
    case TS_OP_ADD: case TS_OP_SUBTRACT: case TS_OP_MULTIPLY: case TS_OP_DIVIDE: case TS_OP_MAXIMUM:
    case TS_OP_MINIMUM: case TS_OP_POWER: {
        const void *b = vals[n->inputs[1]];
        bool integer = !is_float_dtype(t->dtype);
        for (int64_t i = 0; i < count; i++)
            ts_reference_set(t->dtype, out, i, binary(n->op, ts_reference_get(t->dtype, a, i), ts_reference_get(t->dtype, b, i), integer));
        return TS_OK;
    }
    case TS_OP_COMPARE: {
        const void *b = vals[n->inputs[1]];
        for (int64_t i = 0; i < count; i++)
            ((uint8_t *)out)[i] = compare(n->attrs.compare.direction, ts_reference_get(in0->dtype, a, i), ts_reference_get(in0->dtype, b, i));
        return TS_OK;
    }
    case TS_OP_SELECT: {
        const uint8_t *p = a;
        bool scalar = in0->rank == 0;
        const char *x = vals[n->inputs[1]], *y = vals[n->inputs[2]];
        for (int64_t i = 0; i < count; i++)
            memcpy((char *)out + i * es, (p[scalar ? 0 : i] ? x : y) + i * es, es);
        return TS_OK;
    }
    case TS_OP_BROADCAST_IN_DIM:
        strides_of(in0, s_in);
        if (count == 0) return TS_OK;
        for (int64_t i = 0; i < count; i++) {
            int64_t src = 0;
            for (int d = 0; d < in0->rank; d++)
                if (in0->dims[d] != 1) src += idx[n->attrs.broadcast.dims.v[d]] * s_in[d];
            memcpy((char *)out + i * es, (const char *)a + src * es, es);
            next_index(idx, t);
        }
        return TS_OK;
    case TS_OP_RESHAPE: memcpy(out, a, ts_type_bytes(t)); return TS_OK;
    case TS_OP_TRANSPOSE:
        strides_of(in0, s_in);
        if (count == 0) return TS_OK;
        for (int64_t i = 0; i < count; i++) {
            int64_t src = 0;
            for (int d = 0; d < t->rank; d++) src += idx[d] * s_in[n->attrs.transpose.permutation.v[d]];
            memcpy((char *)out + i * es, (const char *)a + src * es, es);
            next_index(idx, t);
        }
        return TS_OK;
    case TS_OP_SLICE:
        strides_of(in0, s_in);
        if (count == 0) return TS_OK;
        for (int64_t i = 0; i < count; i++) {
            int64_t src = 0;
            for (int d = 0; d < t->rank; d++)
                src += (n->attrs.slice.start.v[d] + idx[d] * n->attrs.slice.strides.v[d]) * s_in[d];
            memcpy((char *)out + i * es, (const char *)a + src * es, es);
            next_index(idx, t);
        }
        return TS_OK;
    case TS_OP_DYNAMIC_SLICE: {
        strides_of(in0, s_in);
        int64_t start[TS_MAX_DIMS];
        for (int d = 0; d < t->rank; d++) {
            const ts_type *st = ts_graph_type(g, n->inputs[1 + d]);
            int64_t v = (int64_t)ts_reference_get(st->dtype, vals[n->inputs[1 + d]], 0);
            start[d] = clamp64(v, 0, in0->dims[d] - t->dims[d]); /* StableHLO clamps starts */
        }
        if (count == 0) return TS_OK;
        for (int64_t i = 0; i < count; i++) {
            int64_t src = 0;
            for (int d = 0; d < t->rank; d++) src += (start[d] + idx[d]) * s_in[d];
            memcpy((char *)out + i * es, (const char *)a + src * es, es);
            next_index(idx, t);
        }
        return TS_OK;
    }
    case TS_OP_DYNAMIC_UPDATE_SLICE: {
        if (out != a) memcpy(out, a, ts_type_bytes(t));
        const ts_type *ut = ts_graph_type(g, n->inputs[1]);
        const void *u = vals[n->inputs[1]];
        strides_of(t, s_out);
        int64_t start[TS_MAX_DIMS];
        for (int d = 0; d < t->rank; d++) {
            const ts_type *st = ts_graph_type(g, n->inputs[2 + d]);
            int64_t v = (int64_t)ts_reference_get(st->dtype, vals[n->inputs[2 + d]], 0);
            start[d] = clamp64(v, 0, t->dims[d] - ut->dims[d]);
        }
        int64_t un = ts_type_elements(ut);
        for (int64_t i = 0; i < un; i++) {
            int64_t dst = 0;
            for (int d = 0; d < t->rank; d++) dst += (start[d] + idx[d]) * s_out[d];
            memcpy((char *)out + dst * es, (const char *)u + i * es, es);
            next_index(idx, ut);
        }
        return TS_OK;
    }
    case TS_OP_CONCATENATE: {
        int dim = n->attrs.concatenate.dimension;
        int64_t outer = 1, inner = 1;
        for (int d = 0; d < dim; d++) outer *= t->dims[d];
        for (int d = dim + 1; d < t->rank; d++) inner *= t->dims[d];
        char *dst = out;
        for (int64_t o = 0; o < outer; o++)
            for (int k = 0; k < n->n_inputs; k++) {
                const ts_type *kt = ts_graph_type(g, n->inputs[k]);
                size_t chunk = (size_t)(kt->dims[dim] * inner) * es;
                memcpy(dst, (const char *)vals[n->inputs[k]] + o * chunk, chunk);
                dst += chunk;
            }
        return TS_OK;
    }
    case TS_OP_PAD: {
        const void *pv = vals[n->inputs[1]];
        for (int64_t i = 0; i < count; i++) memcpy((char *)out + i * es, pv, es);
        strides_of(t, s_out);
        int64_t in_count = ts_type_elements(in0);
        for (int64_t i = 0; i < in_count; i++) {
            int64_t dst = 0;
            bool inside = true;
            for (int d = 0; d < t->rank; d++) {
                int64_t p = n->attrs.pad.low.v[d] + idx[d] * (n->attrs.pad.interior.v[d] + 1);
                if (p < 0 || p >= t->dims[d]) inside = false;
                dst += p * s_out[d];
            }
            if (inside) memcpy((char *)out + dst * es, (const char *)a + i * es, es);
            next_index(idx, in0);
        }
        return TS_OK;
    }
    case TS_OP_GATHER: return eval_gather(g, n, vals, out);
    case TS_OP_SCATTER_ADD: return eval_scatter_add(g, n, vals, out, err);
    case TS_OP_REDUCE_SUM:
    case TS_OP_REDUCE_MAX: {
        bool is_max = n->op == TS_OP_REDUCE_MAX;
        double init = is_max ? -INFINITY : 0.0;
        if (is_max && !is_float_dtype(t->dtype)) init = t->dtype == TS_DTYPE_I32 ? -2147483648.0 : -9.2e18;
        double *acc = malloc(sizeof(double) * (size_t)(count ? count : 1));
        if (!acc) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "reference: out of memory");
        for (int64_t i = 0; i < count; i++) acc[i] = init;
        strides_of(t, s_out);
        int64_t in_count = ts_type_elements(in0);
        for (int64_t i = 0; i < in_count; i++) {
            int64_t dst = 0;
            int r = 0;
            for (int d = 0; d < in0->rank; d++)
                if (!dims_has(&n->attrs.reduce.dimensions, d)) dst += idx[d] * s_out[r++];
            double v = ts_reference_get(in0->dtype, a, i);
            if (is_max) acc[dst] = (isnan(v) || isnan(acc[dst])) ? NAN : (v > acc[dst] ? v : acc[dst]);
            else acc[dst] += v;
            next_index(idx, in0);
        }
        for (int64_t i = 0; i < count; i++) ts_reference_set(t->dtype, out, i, acc[i]);
        free(acc);
        return TS_OK;
    }
    case TS_OP_ARGMAX: {
        int dim = n->attrs.argmax.dimension;
        int64_t outer = 1, inner = 1, len = in0->dims[dim];
        for (int d = 0; d < dim; d++) outer *= in0->dims[d];
        for (int d = dim + 1; d < in0->rank; d++) inner *= in0->dims[d];
        for (int64_t o = 0; o < outer; o++)
            for (int64_t k = 0; k < inner; k++) {
                int32_t best = 0;
                double bv = len ? ts_reference_get(in0->dtype, a, o * len * inner + k) : 0;
                for (int64_t j = 1; j < len && !isnan(bv); j++) {
                    double v = ts_reference_get(in0->dtype, a, (o * len + j) * inner + k);
                    if (isnan(v) || v > bv) {
                        bv = v;
                        best = (int32_t)j;
                    }
                }
                ((int32_t *)out)[o * inner + k] = best;
            }
        return TS_OK;
    }
    case TS_OP_DOT_GENERAL: eval_dot(g, n, vals, out); return TS_OK;
    default:
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "reference: op %s is not a primitive (decompose the graph first)",
                            ts_op_get_info(n->op)->name);
    }
}

ts_status ts_reference_run(const ts_graph *g, const void *const *params, void ***values_out, ts_error *err)
{
    *values_out = NULL;
    if (ts_graph_status(g, err) != TS_OK) return g->error.status;
    void **vals = calloc((size_t)(g->n_nodes ? g->n_nodes : 1), sizeof(void *));
    if (!vals) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "reference: out of memory");
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const ts_node *n = &g->nodes[i];
        size_t bytes = ts_type_bytes(&n->type);
        vals[i] = calloc(1, bytes ? bytes : 1);
        if (!vals[i]) {
            ts_reference_free(g, vals);
            return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "reference: out of memory");
        }
        ts_status st = TS_OK;
        if (n->op == TS_OP_PARAMETER) memcpy(vals[i], params[n->attrs.parameter.index], bytes);
        else st = ts_reference_eval(g, n, vals, vals[i], err);
        if (st != TS_OK) {
            ts_reference_free(g, vals);
            return st;
        }
    }
    *values_out = vals;
    return TS_OK;
}

void ts_reference_free(const ts_graph *g, void **values)
{
    if (!values) return;
    for (int32_t i = 0; i < g->n_nodes; i++) free(values[i]);
    free(values);
}
