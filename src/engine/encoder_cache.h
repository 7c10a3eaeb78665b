/* encoder_cache.h — vision tower outputs kept for reuse, least recently used first out, bounded
 * in bytes.
 *
 * The key is ts_pixel_values_digest (tessera.h), a SHA-256 over what the tower sees: the
 * preprocessed pixel values (shape, grid and every float), so the image content and every
 * processor setting that changes the pixels (resize budget, crop, normalisation) are part of it,
 * and two requests with the same image under different settings never share an entry. Entries are copied in and out: no caller holds a
 * pointer into the cache. An entry larger than the whole budget is not kept. Not thread-safe,
 * like the model that owns it.
 */
#ifndef TS_ENGINE_ENCODER_CACHE_H
#define TS_ENGINE_ENCODER_CACHE_H

#include "tessera.h"

typedef struct ts_encoder_cache ts_encoder_cache;

typedef struct ts_encoder_cache_stats {
    int64_t hits, misses, evictions, entries;
    size_t bytes, capacity;
} ts_encoder_cache_stats;

/* capacity 0: nothing is kept (every lookup misses). */
ts_status ts_encoder_cache_create(size_t capacity, ts_encoder_cache **out, ts_error *err);
void ts_encoder_cache_destroy(ts_encoder_cache *c);
/* Evicts until the cache fits the new capacity. */
void ts_encoder_cache_resize(ts_encoder_cache *c, size_t capacity);
/* Copies the entry's rows into out (which has room for `floats` values) and marks it most
 * recently used; false (a miss) when absent or of another size. */
bool ts_encoder_cache_get(ts_encoder_cache *c, const uint8_t key[32], float *out, size_t floats);
/* Stores a copy of rows (floats values), evicting the least recently used entries to fit. A
 * failed allocation only skips the store: the cache is an optimisation, never a failure. */
void ts_encoder_cache_put(ts_encoder_cache *c, const uint8_t key[32], const float *rows,
                          size_t floats);
ts_encoder_cache_stats ts_encoder_cache_get_stats(const ts_encoder_cache *c);

#endif
