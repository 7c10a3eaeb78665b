/* textbuf.h — the growable buffers used across the tokenizer: bytes are base's ts_buf, token ids
 * a ts_ids vector.
 *
 * ts_ids owns its storage (free with ts_ids_free); appends return false when out of memory and
 * leave the vector as it was. Pointers into data die on the next append.
 */
#ifndef TS_TEXT_TEXTBUF_H
#define TS_TEXT_TEXTBUF_H

#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct ts_ids {
    int32_t *data;
    size_t len, cap;
} ts_ids;

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
