/* spelling.c — the canonical StableHLO spellings shared by the printer and the reader
 * (stablehlo_internal.h): element and compare types, dense literals, reduction identities,
 * region bodies and float attributes. */
#include "export/stablehlo_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static bool is_float(ts_dtype d) { return d == TS_DTYPE_F32 || d == TS_DTYPE_F16 || d == TS_DTYPE_BF16; }

const char *ts_shlo_compare_type(ts_dtype dtype)
{
    if (is_float(dtype)) return "FLOAT";
    return dtype == TS_DTYPE_U8 || dtype == TS_DTYPE_BOOL ? "UNSIGNED" : "SIGNED";
}

void ts_shlo_print_type(ts_buf *b, const ts_type *t)
{
    char buf[160];
    ts_buf_puts(b, ts_type_format(t, buf, sizeof(buf)));
}

static void put_scalar_type(ts_buf *b, ts_dtype dtype)
{
    ts_type t = ts_type_make(dtype, 0, NULL);
    ts_shlo_print_type(b, &t);
}

static int64_t load_int(ts_dtype dtype, const void *data, int64_t i)
{
    const unsigned char *p = (const unsigned char *)data + (size_t)i * ts_dtype_size(dtype);
    switch (dtype) {
    case TS_DTYPE_I64: { int64_t v; memcpy(&v, p, 8); return v; }
    case TS_DTYPE_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case TS_DTYPE_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case TS_DTYPE_I8: return (int8_t)p[0];
    case TS_DTYPE_U8: return p[0];
    case TS_DTYPE_BOOL: return p[0] != 0;
    default: return 0;
    }
}

/* Integer and i1 tensors as nested decimal lists ([[1, 2], [3, 4]]). */
static void put_int_elements(ts_buf *b, const ts_type *t, const void *data, int64_t n)
{
    int64_t block[TS_MAX_DIMS];
    int64_t acc = 1;
    for (int d = t->rank - 1; d >= 0; d--) block[d] = acc *= t->dims[d];
    for (int64_t k = 0; k < n; k++) {
        if (k) ts_buf_puts(b, ", ");
        for (int d = 0; d < t->rank; d++)
            if (k % block[d] == 0) ts_buf_puts(b, "[");
        int64_t v = load_int(t->dtype, data, k);
        if (t->dtype == TS_DTYPE_BOOL) ts_buf_puts(b, v ? "true" : "false");
        else ts_buf_printf(b, "%lld", (long long)v);
        for (int d = t->rank - 1; d >= 0; d--)
            if ((k + 1) % block[d] == 0) ts_buf_puts(b, "]");
    }
}

void ts_shlo_print_dense(ts_buf *b, const ts_type *t, const void *data)
{
    int64_t n = ts_type_elements(t);
    ts_buf_puts(b, "dense<");
    if (n == 0) {
        ts_buf_puts(b, ">");
        return;
    }
    if (is_float(t->dtype)) {
        size_t size = ts_dtype_size(t->dtype);
        const unsigned char *p = data;
        if (t->rank == 0) {
            /* A scalar is its bit pattern as one hex number (most significant byte first). */
            ts_buf_puts(b, "0x");
            for (size_t i = size; i-- > 0;) ts_buf_printf(b, "%02X", p[i]);
        } else {
            /* Tensors: the raw little-endian bytes, MLIR's hex blob. */
            size_t bytes = (size_t)n * size;
            ts_buf_puts(b, "\"0x");
            static const char hex[] = "0123456789ABCDEF";
            char chunk[512];
            size_t at = 0;
            for (size_t i = 0; i < bytes; i++) {
                chunk[at++] = hex[p[i] >> 4];
                chunk[at++] = hex[p[i] & 15];
                if (at == sizeof(chunk)) {
                    ts_buf_append(b, chunk, at);
                    at = 0;
                }
            }
            ts_buf_append(b, chunk, at);
            ts_buf_puts(b, "\"");
        }
    } else {
        put_int_elements(b, t, data, n);
    }
    ts_buf_puts(b, ">");
}

void ts_shlo_identity(ts_op reduction, ts_dtype dtype, void *scalar)
{
    memset(scalar, 0, 8);
    if (reduction == TS_OP_REDUCE_SUM) return;
    unsigned char *p = scalar;
    switch (dtype) {
    case TS_DTYPE_F32: { uint32_t v = 0xFF800000u; memcpy(p, &v, 4); break; }
    case TS_DTYPE_F16: { uint16_t v = 0xFC00u; memcpy(p, &v, 2); break; }
    case TS_DTYPE_BF16: { uint16_t v = 0xFF80u; memcpy(p, &v, 2); break; }
    case TS_DTYPE_I64: { int64_t v = INT64_MIN; memcpy(p, &v, 8); break; }
    case TS_DTYPE_I32: { int32_t v = INT32_MIN; memcpy(p, &v, 4); break; }
    case TS_DTYPE_I16: { int16_t v = INT16_MIN; memcpy(p, &v, 2); break; }
    case TS_DTYPE_I8: { int8_t v = INT8_MIN; memcpy(p, &v, 1); break; }
    default: break; /* ui8 and i1: 0 */
    }
}

void ts_shlo_print_f64(ts_buf *b, double v)
{
    if (!isfinite(v)) {
        uint64_t bits;
        memcpy(&bits, &v, 8);
        ts_buf_printf(b, "0x%016llX", (unsigned long long)bits);
        return;
    }
    /* The shortest %g that reads back exactly; MLIR float literals need a '.' before any exponent. */
    char buf[64];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    char *e = strpbrk(buf, "eE");
    if (!strchr(buf, '.')) {
        char out[72];
        if (e) snprintf(out, sizeof(out), "%.*s.0%s", (int)(e - buf), buf, e);
        else snprintf(out, sizeof(out), "%s.0", buf);
        ts_buf_puts(b, out);
        return;
    }
    ts_buf_puts(b, buf);
}

const char *ts_shlo_activation_name(ts_activation act)
{
    static const char *const names[] = {"silu", "gelu", "gelu_tanh", "quick_gelu"};
    _Static_assert(sizeof(names) / sizeof(names[0]) == TS_ACT_COUNT, "activation names");
    return (unsigned)act < TS_ACT_COUNT ? names[act] : NULL;
}

static void region_compare(ts_buf *b, const char *indent, int v, const char *dir, const char *lhs,
                           const char *rhs, ts_dtype dtype)
{
    ts_buf_printf(b, "%s  %%%d = stablehlo.compare  %s, %s, %s,  %s : (", indent, v, dir, lhs, rhs,
                     ts_shlo_compare_type(dtype));
    put_scalar_type(b, dtype);
    ts_buf_puts(b, ", ");
    put_scalar_type(b, dtype);
    ts_buf_puts(b, ") -> tensor<i1>\n");
}

void ts_shlo_print_region(ts_buf *b, ts_shlo_region kind, ts_dtype dtype, const char *indent,
                          int *next_arg, int *next_value)
{
    const char *el = ts_type_element_name(dtype);
    ts_buf_puts(b, "({\n");
    if (kind != TS_SHLO_REGION_ARGMAX) {
        int a = (*next_arg)++, c = (*next_arg)++, v = (*next_value)++;
        ts_buf_printf(b, "%s^bb0(%%arg%d: tensor<%s>, %%arg%d: tensor<%s>):\n", indent, a, el, c, el);
        ts_buf_printf(b, "%s  %%%d = stablehlo.%s %%arg%d, %%arg%d : tensor<%s>\n", indent, v,
                         kind == TS_SHLO_REGION_ADD ? "add" : "maximum", a, c, el);
        ts_buf_printf(b, "%s  stablehlo.return %%%d : tensor<%s>\n", indent, v, el);
        ts_buf_printf(b, "%s})", indent);
        return;
    }
    /* Block arguments: accumulated (value, index), then incoming (value, index). The rule is
     * symmetric in the two pairs, so the result does not depend on the reduction order. */
    int av = *next_arg, ai = av + 1, bv = av + 2, bi = av + 3;
    *next_arg += 4;
    ts_buf_printf(b, "%s^bb0(%%arg%d: tensor<%s>, %%arg%d: tensor<i32>, %%arg%d: tensor<%s>, %%arg%d: tensor<i32>):\n",
                     indent, av, el, ai, bv, el, bi);
    char a[24], ai_[24], bb[24], bi_[24];
    snprintf(a, sizeof(a), "%%arg%d", av);
    snprintf(ai_, sizeof(ai_), "%%arg%d", ai);
    snprintf(bb, sizeof(bb), "%%arg%d", bv);
    snprintf(bi_, sizeof(bi_), "%%arg%d", bi);
    int v0 = *next_value;
    *next_value += 13;
    char r[13][24];
    for (int i = 0; i < 13; i++) snprintf(r[i], sizeof(r[i]), "%%%d", v0 + i);
    region_compare(b, indent, v0 + 0, "GT", a, bb, dtype);              /* a > b */
    region_compare(b, indent, v0 + 1, "NE", a, a, dtype);               /* a is NaN */
    region_compare(b, indent, v0 + 2, "NE", bb, bb, dtype);             /* b is NaN */
    region_compare(b, indent, v0 + 3, "GT", r[1], r[2], TS_DTYPE_BOOL); /* only a is NaN */
    ts_buf_printf(b, "%s  %s = stablehlo.or %s, %s : tensor<i1>\n", indent, r[4], r[0], r[3]);
    region_compare(b, indent, v0 + 5, "EQ", a, bb, dtype);
    ts_buf_printf(b, "%s  %s = stablehlo.and %s, %s : tensor<i1>\n", indent, r[6], r[1], r[2]);
    ts_buf_printf(b, "%s  %s = stablehlo.or %s, %s : tensor<i1>\n", indent, r[7], r[5], r[6]); /* tie */
    region_compare(b, indent, v0 + 8, "LT", ai_, bi_, TS_DTYPE_I32);
    ts_buf_printf(b, "%s  %s = stablehlo.and %s, %s : tensor<i1>\n", indent, r[9], r[7], r[8]);
    ts_buf_printf(b, "%s  %s = stablehlo.or %s, %s : tensor<i1>\n", indent, r[10], r[4], r[9]); /* a wins */
    ts_buf_printf(b, "%s  %s = stablehlo.select %s, %s, %s : tensor<i1>, tensor<%s>\n", indent, r[11], r[10], a, bb, el);
    ts_buf_printf(b, "%s  %s = stablehlo.select %s, %s, %s : tensor<i1>, tensor<i32>\n", indent, r[12], r[10], ai_, bi_);
    ts_buf_printf(b, "%s  stablehlo.return %s, %s : tensor<%s>, tensor<i32>\n", indent, r[11], r[12], el);
    ts_buf_printf(b, "%s})", indent);
}

