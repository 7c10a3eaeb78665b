/* buf.c — the growable byte buffer (doubling, sticky failure). See buf.h. */
#include "base/buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ts_buf_init(ts_buf *b)
{
    memset(b, 0, sizeof(*b));
}

void ts_buf_fini(ts_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof(*b));
}

bool ts_buf_reserve(ts_buf *b, size_t extra)
{
    if (b->failed) return false;
    if (extra < b->cap && b->len + 1 <= b->cap - extra) return true;
    if (extra > SIZE_MAX - 1 - b->len) {
        b->failed = true;
        return false;
    }
    size_t need = b->len + extra + 1, cap = b->cap ? b->cap : 64;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    char *data = realloc(b->data, cap);
    if (!data) {
        b->failed = true;
        return false;
    }
    b->data = data;
    b->cap = cap;
    return true;
}

bool ts_buf_append(ts_buf *b, const void *p, size_t n)
{
    if (!ts_buf_reserve(b, n)) return false;
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return true;
}

bool ts_buf_puts(ts_buf *b, const char *s)
{
    return ts_buf_append(b, s, strlen(s));
}

bool ts_buf_putc(ts_buf *b, char c)
{
    return ts_buf_append(b, &c, 1);
}

bool ts_buf_printf(ts_buf *b, const char *fmt, ...)
{
    /* Most pieces are short: format once on the stack, and a second time only when longer. */
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return false;
    }
    if ((size_t)n < sizeof(small)) return ts_buf_append(b, small, (size_t)n);
    if (!ts_buf_reserve(b, (size_t)n)) return false;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return true;
}

char *ts_buf_take(ts_buf *b, size_t *len)
{
    if (!ts_buf_reserve(b, 0)) {
        ts_buf_fini(b); /* the caller gets nothing to free */
        return NULL;
    }
    char *data = b->data;
    data[b->len] = '\0'; /* also when only reserved */
    if (len) *len = b->len;
    memset(b, 0, sizeof(*b));
    return data;
}

void *ts_array_grow(void *items, size_t *cap, size_t elem, size_t first)
{
    size_t want = *cap ? *cap * 2 : first;
    if (want < *cap || (elem && want > SIZE_MAX / elem)) return NULL;
    void *grown = realloc(items, want * elem);
    if (grown) *cap = want;
    return grown;
}
