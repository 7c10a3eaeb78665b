/* strmap.h — open-addressing hash map from byte strings to int32 values.
 *
 * Keys are copied into the map's own pool; lookups never allocate. Used for vocabularies (151k–262k
 * entries), so the table is sized once up front (ts_strmap_init with the expected count) and
 * doubles when 3/4 full. ts_strmap_put overwrites an existing key's value. Free with
 * ts_strmap_fini. Not thread-safe for writes; concurrent reads are fine.
 */
#ifndef TS_TEXT_STRMAP_H
#define TS_TEXT_STRMAP_H

#include "text/textbuf.h"

typedef struct ts_strmap_slot {
    uint32_t hash;
    uint32_t len;
    uint32_t offset; /* into pool */
    int32_t value;   /* -1 marks an empty slot */
} ts_strmap_slot;

typedef struct ts_strmap {
    ts_strmap_slot *slots;
    size_t mask, count;
    ts_buf pool;
} ts_strmap;

bool ts_strmap_init(ts_strmap *map, size_t expected);
void ts_strmap_fini(ts_strmap *map);
bool ts_strmap_put(ts_strmap *map, const char *key, size_t len, int32_t value);
/* -1 when absent. */
int32_t ts_strmap_get(const ts_strmap *map, const char *key, size_t len);

/* A fast non-cryptographic hash (64-bit multiply-mix over 8-byte words). */
uint64_t ts_hash_bytes(const void *data, size_t len);

#endif
