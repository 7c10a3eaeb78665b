/* encoder_cache.c — an LRU of tower outputs over a doubly linked list, most recent at the head.
 * Lookups scan the list: entries are tens of kilobytes or more, so a byte budget keeps them to
 * hundreds at most, and a scan is nothing next to the tower run it saves. */
#include "engine/encoder_cache.h"
#include "base/error.h"
#include "base/sha256.h"

#include <stdlib.h>
#include <string.h>

typedef struct entry {
    struct entry *prev, *next;
    uint8_t key[32];
    size_t floats;
    float rows[]; /* floats values */
} entry;

struct ts_encoder_cache {
    entry *head, *tail;
    ts_encoder_cache_stats stats;
};

static size_t entry_bytes(size_t floats)
{
    return sizeof(entry) + floats * sizeof(float);
}

static void unlink_entry(ts_encoder_cache *c, entry *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        c->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        c->tail = e->prev;
    e->prev = e->next = NULL;
}

static void push_front(ts_encoder_cache *c, entry *e)
{
    e->prev = NULL;
    e->next = c->head;
    if (c->head) c->head->prev = e;
    c->head = e;
    if (!c->tail) c->tail = e;
}

static void evict_to(ts_encoder_cache *c, size_t limit)
{
    while (c->tail && c->stats.bytes > limit) {
        entry *e = c->tail;
        unlink_entry(c, e);
        c->stats.bytes -= entry_bytes(e->floats);
        c->stats.entries--;
        c->stats.evictions++;
        free(e);
    }
}

ts_status ts_encoder_cache_create(size_t capacity, ts_encoder_cache **out, ts_error *err)
{
    *out = calloc(1, sizeof(**out));
    if (!*out) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "encoder cache: out of memory");
    (*out)->stats.capacity = capacity;
    return TS_OK;
}

void ts_encoder_cache_destroy(ts_encoder_cache *c)
{
    if (!c) return;
    evict_to(c, 0);
    free(c);
}

void ts_encoder_cache_resize(ts_encoder_cache *c, size_t capacity)
{
    c->stats.capacity = capacity;
    evict_to(c, capacity);
}

void ts_pixel_values_digest(const ts_pixel_values *pv, uint8_t key[32])
{
    ts_sha256 h;
    ts_sha256_init(&h);
    /* The resized size too: a tower may read its padding from it (Phi-4-multimodal's masks). */
    int64_t header[10] = {pv->n_dims,   pv->shape[0],    pv->shape[1],    pv->shape[2],
                          pv->shape[3], pv->grid_thw[0], pv->grid_thw[1], pv->grid_thw[2],
                          pv->resized_width, pv->resized_height};
    ts_sha256_update(&h, header, sizeof(header));
    size_t values = 1;
    for (int d = 0; d < pv->n_dims; d++)
        values *= (size_t)pv->shape[d];
    if (pv->data) ts_sha256_update(&h, pv->data, values * sizeof(float));
    ts_sha256_final(&h, key);
}

static entry *find(ts_encoder_cache *c, const uint8_t key[32])
{
    for (entry *e = c->head; e; e = e->next)
        if (memcmp(e->key, key, 32) == 0) return e;
    return NULL;
}

bool ts_encoder_cache_get(ts_encoder_cache *c, const uint8_t key[32], float *out, size_t floats)
{
    entry *e = find(c, key);
    if (!e || e->floats != floats) {
        c->stats.misses++;
        return false;
    }
    memcpy(out, e->rows, floats * sizeof(float));
    unlink_entry(c, e);
    push_front(c, e);
    c->stats.hits++;
    return true;
}

void ts_encoder_cache_put(ts_encoder_cache *c, const uint8_t key[32], const float *rows,
                          size_t floats)
{
    size_t bytes = entry_bytes(floats);
    if (bytes > c->stats.capacity) return;
    entry *old = find(c, key);
    if (old) {
        unlink_entry(c, old);
        c->stats.bytes -= entry_bytes(old->floats);
        c->stats.entries--;
        free(old);
    }
    evict_to(c, c->stats.capacity - bytes);
    entry *e = malloc(bytes);
    if (!e) return;
    memcpy(e->key, key, 32);
    e->floats = floats;
    memcpy(e->rows, rows, floats * sizeof(float));
    push_front(c, e);
    c->stats.bytes += bytes;
    c->stats.entries++;
}

ts_encoder_cache_stats ts_encoder_cache_get_stats(const ts_encoder_cache *c)
{
    return c->stats;
}
