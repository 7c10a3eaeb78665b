/* strmap.c — linear-probing string map (see strmap.h). */
#include "text/strmap.h"

static inline uint64_t mix(uint64_t x)
{
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ULL;
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ULL;
    x ^= x >> 32;
    return x;
}

uint64_t ts_hash_bytes(const void *data, size_t len)
{
    const uint8_t *p = data;
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (len * 0xff51afd7ed558ccdULL);
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = mix(h ^ w) + 0x632BE59BD9B4E019ULL;
        p += 8;
        len -= 8;
    }
    if (len) {
        uint64_t w = 0;
        memcpy(&w, p, len);
        h = mix(h ^ w ^ ((uint64_t)len << 56));
    }
    return mix(h);
}

static bool alloc_slots(ts_strmap *map, size_t n_slots)
{
    map->slots = malloc(n_slots * sizeof(*map->slots));
    if (!map->slots) return false;
    for (size_t i = 0; i < n_slots; i++)
        map->slots[i].value = -1;
    map->mask = n_slots - 1;
    return true;
}

bool ts_strmap_init(ts_strmap *map, size_t expected)
{
    memset(map, 0, sizeof(*map));
    size_t n = 16;
    while (n < expected * 2)
        n *= 2;
    return alloc_slots(map, n);
}

void ts_strmap_fini(ts_strmap *map)
{
    free(map->slots);
    ts_buf_fini(&map->pool);
    memset(map, 0, sizeof(*map));
}

static ts_strmap_slot *find(const ts_strmap *map, const char *key, size_t len, uint32_t hash)
{
    size_t i = hash & map->mask;
    for (;;) {
        ts_strmap_slot *s = &map->slots[i];
        if (s->value < 0) return s;
        if (s->hash == hash && s->len == len && memcmp(map->pool.data + s->offset, key, len) == 0)
            return s;
        i = (i + 1) & map->mask;
    }
}

static bool grow(ts_strmap *map)
{
    ts_strmap_slot *old = map->slots;
    size_t old_n = map->mask + 1;
    if (!alloc_slots(map, old_n * 2)) {
        map->slots = old;
        return false;
    }
    for (size_t i = 0; i < old_n; i++) {
        if (old[i].value < 0) continue;
        size_t j = old[i].hash & map->mask;
        while (map->slots[j].value >= 0)
            j = (j + 1) & map->mask;
        map->slots[j] = old[i];
    }
    free(old);
    return true;
}

bool ts_strmap_put(ts_strmap *map, const char *key, size_t len, int32_t value)
{
    if ((map->count + 1) * 4 > (map->mask + 1) * 3 && !grow(map)) return false;
    uint32_t hash = (uint32_t)ts_hash_bytes(key, len);
    ts_strmap_slot *s = find(map, key, len, hash);
    if (s->value >= 0) {
        s->value = value;
        return true;
    }
    size_t offset = map->pool.len;
    if (!ts_buf_append(&map->pool, key, len)) return false;
    s->hash = hash;
    s->len = (uint32_t)len;
    s->offset = (uint32_t)offset;
    s->value = value;
    map->count++;
    return true;
}

int32_t ts_strmap_get(const ts_strmap *map, const char *key, size_t len)
{
    if (!map->slots) return -1;
    return find(map, key, len, (uint32_t)ts_hash_bytes(key, len))->value;
}
