/* strbuf.c — growable text buffer (doubling, sticky failure). */
#include "export/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ts_strbuf_init(ts_strbuf *b) { memset(b, 0, sizeof(*b)); }

void ts_strbuf_fini(ts_strbuf *b)
{
    free(b->data);
    memset(b, 0, sizeof(*b));
}

static bool reserve(ts_strbuf *b, size_t extra)
{
    if (b->failed) return false;
    if (b->len + extra + 1 <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + extra + 1) {
        if (cap > SIZE_MAX / 2) {
            b->failed = true;
            return false;
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

void ts_strbuf_putn(ts_strbuf *b, const char *s, size_t n)
{
    if (!reserve(b, n)) return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void ts_strbuf_put(ts_strbuf *b, const char *s) { ts_strbuf_putn(b, s, strlen(s)); }

void ts_strbuf_printf(ts_strbuf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if ((size_t)n < sizeof(small)) {
        ts_strbuf_putn(b, small, (size_t)n);
        return;
    }
    if (!reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *ts_strbuf_take(ts_strbuf *b, size_t *len)
{
    if (!reserve(b, 0)) return NULL;
    char *data = b->data;
    if (len) *len = b->len;
    memset(b, 0, sizeof(*b));
    return data;
}
