/* textbuf.h — growable byte and id buffers used across the tokenizer.
 *
 * Both own their storage (free with ts_bytes_free / ts_ids_free); appends return false when out of
 * memory and leave the buffer as it was. Pointers into data die on the next append.
 */
#ifndef TS_TEXT_TEXTBUF_H
#define TS_TEXT_TEXTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct ts_bytes {
    char *data;
    size_t len, cap;
} ts_bytes;

typedef struct ts_ids {
    int32_t *data;
    size_t len, cap;
} ts_ids;

static inline bool ts_bytes_reserve(ts_bytes *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) return false;
    b->data = p;
    b->cap = cap;
    return true;
}

/* Keeps data NUL-terminated so it can be handed out as a C string. */
static inline bool ts_bytes_append(ts_bytes *b, const void *p, size_t n)
{
    if (!ts_bytes_reserve(b, n)) return false;
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return true;
}

static inline void ts_bytes_free(ts_bytes *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

static inline bool ts_ids_reserve(ts_ids *v, size_t extra)
{
    if (v->len + extra <= v->cap) return true;
    size_t cap = v->cap ? v->cap : 32;
    while (cap < v->len + extra)
        cap *= 2;
    int32_t *p = realloc(v->data, cap * sizeof(*p));
    if (!p) return false;
    v->data = p;
    v->cap = cap;
    return true;
}

static inline bool ts_ids_push(ts_ids *v, int32_t id)
{
    if (!ts_ids_reserve(v, 1)) return false;
    v->data[v->len++] = id;
    return true;
}

static inline bool ts_ids_append(ts_ids *v, const int32_t *ids, size_t n)
{
    if (!ts_ids_reserve(v, n)) return false;
    if (n) memcpy(v->data + v->len, ids, n * sizeof(*ids));
    v->len += n;
    return true;
}

static inline void ts_ids_free(ts_ids *v)
{
    free(v->data);
    v->data = NULL;
    v->len = v->cap = 0;
}

#endif
