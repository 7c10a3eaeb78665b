/* arena.c — chained-block bump allocator. */
#include "base/arena.h"

#include <stdlib.h>
#include <string.h>

struct ts_arena_block {
    ts_arena_block *next;
    size_t size;
    size_t used;
    unsigned char data[];
};

void ts_arena_init(ts_arena *arena, size_t block_size)
{
    memset(arena, 0, sizeof(*arena));
    arena->block_size = block_size ? block_size : 64 * 1024;
}

void ts_arena_fini(ts_arena *arena)
{
    ts_arena_block *b = arena->head;
    while (b) {
        ts_arena_block *next = b->next;
        free(b);
        b = next;
    }
    arena->head = NULL;
    arena->bytes_used = 0;
}

void ts_arena_reset(ts_arena *arena)
{
    if (!arena->head) return;
    ts_arena_block *keep = arena->head;
    while (keep->next) {
        ts_arena_block *b = keep;
        keep = keep->next;
        free(b);
    }
    keep->used = 0;
    arena->head = keep;
    arena->bytes_used = 0;
}

/* Aligns by address, not offset: malloc only promises 16 bytes. */
static void *take(ts_arena_block *b, size_t size, size_t alignment)
{
    uintptr_t base = (uintptr_t)b->data;
    uintptr_t at = (base + b->used + alignment - 1) & ~(uintptr_t)(alignment - 1);
    size_t start = (size_t)(at - base);
    if (start > b->size || size > b->size - start) return NULL;
    b->used = start + size;
    memset(b->data + start, 0, size);
    return b->data + start;
}

void *ts_arena_alloc_aligned(ts_arena *arena, size_t size, size_t alignment)
{
    if (arena->fail_after > 0 && --arena->fail_after == 0) return NULL;
    if (size == 0) size = 1;
    void *p = arena->head ? take(arena->head, size, alignment) : NULL;
    if (!p) {
        if (size > SIZE_MAX / 2) return NULL;
        size_t want = size + alignment > arena->block_size ? size + alignment : arena->block_size;
        ts_arena_block *b = malloc(sizeof(ts_arena_block) + want);
        if (!b) return NULL;
        b->size = want;
        b->used = 0;
        /* An oversized block goes behind the head so the head's spare room is not abandoned. */
        if (arena->head && want > arena->block_size) {
            b->next = arena->head->next;
            arena->head->next = b;
        } else {
            b->next = arena->head;
            arena->head = b;
        }
        p = take(b, size, alignment);
    }
    arena->bytes_used += size;
    return p;
}

void *ts_arena_alloc(ts_arena *arena, size_t size) { return ts_arena_alloc_aligned(arena, size, 16); }

char *ts_arena_strndup(ts_arena *arena, const char *s, size_t len)
{
    char *p = ts_arena_alloc_aligned(arena, len + 1, 1);
    if (!p) return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}
