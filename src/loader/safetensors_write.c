/* safetensors_write.c — see safetensors_write.h. */
#include "loader/safetensors_write.h"
#include "base/error.h"
#include "loader/dtype.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_name(const void *a, const void *b)
{
    const ts_tensor_info *x = *(const ts_tensor_info *const *)a, *y = *(const ts_tensor_info *const *)b;
    return strcmp(x->name, y->name);
}

/* Appends to a growing string; false when out of memory. */
typedef struct {
    char *data;
    size_t len, cap;
} text;

static bool append(text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (t->len + n + 1 > cap) cap *= 2;
        char *d = realloc(t->data, cap);
        if (!d) return false;
        t->data = d, t->cap = cap;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = 0;
    return true;
}

static bool append_s(text *t, const char *s) { return append(t, s, strlen(s)); }

static bool appendf(text *t, const char *fmt, long long a, long long b)
{
    char buf[64];
    int n = snprintf(buf, sizeof(buf), fmt, a, b);
    return append(t, buf, (size_t)n);
}

static ts_status header_of(const ts_tensor_info *const *sorted, size_t n, text *h, ts_error *err)
{
    bool ok = append_s(h, "{\"__metadata__\":{\"format\":\"pt\"}");
    size_t offset = 0;
    for (size_t i = 0; ok && i < n; i++) {
        const ts_tensor_info *t = sorted[i];
        if (strpbrk(t->name, "\"\\"))
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "tensor name %s needs escaping", t->name);
        size_t bytes = ts_dtype_size(t->dtype);
        for (int d = 0; d < t->n_dims; d++) bytes *= (size_t)t->shape[d];
        if (bytes != t->n_bytes)
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "tensor %s: %zu bytes for a %s tensor of %zu", t->name, t->n_bytes,
                                ts_dtype_name(t->dtype), bytes);
        ok = append_s(h, ",\"") && append_s(h, t->name) && append_s(h, "\":{\"dtype\":\"") && append_s(h, ts_dtype_name(t->dtype)) &&
             append_s(h, "\",\"shape\":[");
        for (int d = 0; ok && d < t->n_dims; d++) ok = appendf(h, d ? ",%lld" : "%lld", (long long)t->shape[d], 0);
        ok = ok && appendf(h, "],\"data_offsets\":[%lld,%lld]}", (long long)offset, (long long)(offset + t->n_bytes));
        offset += t->n_bytes;
    }
    ok = ok && append_s(h, "}");
    while (ok && h->len % 8) ok = append_s(h, " ");
    return ok ? TS_OK : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
}

static ts_status write_bytes(FILE *f, const char *path, const void *data, size_t n, ts_error *err)
{
    if (n && fwrite(data, 1, n, f) != n) return ts_error_set(err, TS_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    return TS_OK;
}

ts_status ts_safetensors_write(const char *path, const ts_tensor_info *const *tensors, size_t n, ts_error *err)
{
    const ts_tensor_info **sorted = malloc(sizeof(*sorted) * (n ? n : 1));
    text h = {0};
    if (!sorted) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    memcpy(sorted, tensors, sizeof(*sorted) * n);
    qsort(sorted, n, sizeof(*sorted), by_name);
    ts_status st = header_of(sorted, n, &h, err);
    FILE *f = st == TS_OK ? fopen(path, "wb") : NULL;
    if (st == TS_OK && !f) st = ts_error_set(err, TS_ERR_IO, "%s: %s", path, strerror(errno));
    uint8_t size[8];
    for (int i = 0; i < 8; i++) size[i] = (uint8_t)((uint64_t)h.len >> (8 * i)); /* little-endian u64 */
    if (st == TS_OK) st = write_bytes(f, path, size, 8, err);
    if (st == TS_OK) st = write_bytes(f, path, h.data, h.len, err);
    for (size_t i = 0; st == TS_OK && i < n; i++) st = write_bytes(f, path, sorted[i]->data, sorted[i]->n_bytes, err);
    if (f && fclose(f) != 0 && st == TS_OK) st = ts_error_set(err, TS_ERR_IO, "%s: %s", path, strerror(errno));
    free(sorted);
    free(h.data);
    return st;
}
