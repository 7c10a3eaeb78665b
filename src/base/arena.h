/* arena.h — bump allocation in chained blocks, freed in one call.
 *
 * Per-request and per-build state lives in an arena and is released by ts_arena_reset (keep the
 * first block) or ts_arena_fini. Allocations are 16-byte aligned (64 with ts_arena_alloc_aligned)
 * and zeroed. `fail_after` makes the Nth allocation from now fail, so tests can drive every
 * out-of-memory path; 0 disables it.
 */
#ifndef TS_BASE_ARENA_H
#define TS_BASE_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef struct ts_arena_block ts_arena_block;

typedef struct ts_arena {
    ts_arena_block *head;
    size_t block_size;
    size_t bytes_used;
    int64_t fail_after;
} ts_arena;

void ts_arena_init(ts_arena *arena, size_t block_size);
void ts_arena_fini(ts_arena *arena);
void ts_arena_reset(ts_arena *arena);
/* NULL when out of memory. */
void *ts_arena_alloc(ts_arena *arena, size_t size);
void *ts_arena_alloc_aligned(ts_arena *arena, size_t size, size_t alignment);
char *ts_arena_strndup(ts_arena *arena, const char *s, size_t len);

#endif
