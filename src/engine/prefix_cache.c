/* prefix_cache.c — the prefix cache (contract: prefix_cache.h): blocks in a hash table keyed by
 * their chained SHA-256, on one LRU list, most recent at the head. Eviction walks the list from
 * the tail to the first block no cached block chains from; the budget keeps the list to
 * thousands of blocks, and a walk is nothing next to the prefill it saves. */
#include "engine/prefix_cache.h"
#include "base/error.h"
#include "base/sha256.h"
#include "engine/model.h"

#include <stdlib.h>
#include <string.h>

#define B TS_PREFIX_BLOCK

typedef struct block {
    uint8_t key[32];
    struct block *parent, *chain; /* chain: the next block in the same hash bucket */
    struct block *prev, *next;    /* LRU */
    int refs;                     /* cached children */
    uint8_t rows[];               /* B positions, ts_sequence_read_rows's layout */
} block;

struct ts_prefix_cache {
    ts_model *model;
    size_t position_bytes, block_bytes;
    block **buckets;
    size_t n_buckets; /* a power of two */
    block *head, *tail;
    ts_prefix_cache_stats stats;
};

struct ts_prefix_keys {
    int64_t n_blocks;
    uint8_t (*key)[32];
    bool *storable; /* every row of the block prefilled in a call of ≥ B rows, or restored */
    bool rope_long; /* the rows rotate with longrope's long factors */
};

/* How a row enters (part of its record). */
enum { ROW_TOKEN = 1, ROW_EMBEDDED_TOKEN, ROW_MEDIA };

ts_status ts_prefix_cache_create(ts_model *model, const ts_sequence *like, size_t budget,
                                 ts_prefix_cache **out, ts_error *err)
{
    *out = NULL;
    int64_t capacity = ts_sequence_capacity(like);
    const ts_model_config *cfg = ts_model_get_config(model);
    for (int l = 0; l < cfg->text.num_hidden_layers; l++)
        if (ts_sequence_cache_rows(like, l) < capacity)
            return ts_error_set(err, TS_ERR_UNSUPPORTED,
                                "prefix cache: layer %d keeps a ring of %lld rows for %lld "
                                "positions (a sliding window): a prefix's rows are overwritten "
                                "before the request ends, so they cannot be cached",
                                l, (long long)ts_sequence_cache_rows(like, l), (long long)capacity);
    ts_prefix_cache *c = calloc(1, sizeof(*c));
    if (!c) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "prefix cache: out of memory");
    c->model = model;
    c->position_bytes = ts_model_position_bytes(model);
    c->block_bytes = sizeof(block) + B * c->position_bytes;
    size_t most = budget / c->block_bytes;
    c->n_buckets = 64;
    while (c->n_buckets < most && c->n_buckets < ((size_t)1 << 20)) /* past that, chains grow */
        c->n_buckets *= 2;
    c->buckets = calloc(c->n_buckets, sizeof(*c->buckets));
    if (!c->buckets) {
        free(c);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "prefix cache: out of memory");
    }
    c->stats.budget = budget;
    *out = c;
    return TS_OK;
}

static size_t bucket_of(const ts_prefix_cache *c, const uint8_t key[32])
{
    uint64_t h;
    memcpy(&h, key, sizeof(h));
    return (size_t)h & (c->n_buckets - 1);
}

static block *find(const ts_prefix_cache *c, const uint8_t key[32])
{
    for (block *b = c->buckets[bucket_of(c, key)]; b; b = b->chain)
        if (memcmp(b->key, key, 32) == 0) return b;
    return NULL;
}

static void lru_unlink(ts_prefix_cache *c, block *b)
{
    if (b->prev) b->prev->next = b->next;
    else c->head = b->next;
    if (b->next) b->next->prev = b->prev;
    else c->tail = b->prev;
    b->prev = b->next = NULL;
}

static void lru_front(ts_prefix_cache *c, block *b)
{
    b->next = c->head;
    if (c->head) c->head->prev = b;
    c->head = b;
    if (!c->tail) c->tail = b;
}

static void touch(ts_prefix_cache *c, block *b)
{
    lru_unlink(c, b);
    lru_front(c, b);
}

static void remove_block(ts_prefix_cache *c, block *b)
{
    block **at = &c->buckets[bucket_of(c, b->key)];
    while (*at != b)
        at = &(*at)->chain;
    *at = b->chain;
    lru_unlink(c, b);
    if (b->parent) b->parent->refs--;
    c->stats.bytes -= c->block_bytes;
    c->stats.blocks--;
    free(b);
}

/* Evicts unreferenced blocks, least recently used first, until `need` more bytes fit; false
 * when they cannot. */
static bool make_room(ts_prefix_cache *c, size_t need)
{
    while (c->stats.bytes + need > c->stats.budget) {
        block *v = c->tail;
        while (v && v->refs > 0)
            v = v->prev;
        if (!v) return false;
        remove_block(c, v);
        c->stats.evictions++;
    }
    return true;
}

void ts_prefix_cache_destroy(ts_prefix_cache *c)
{
    if (!c) return;
    for (block *b = c->head, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(c->buckets);
    free(c);
}

void ts_prefix_keys_free(ts_prefix_keys *k)
{
    if (!k) return;
    free(k->key), free(k->storable), free(k);
}

ts_prefix_cache_stats ts_prefix_cache_get_stats(const ts_prefix_cache *c) { return c->stats; }

/* A prefill call: its first row and its rows. */
typedef struct call {
    int64_t first, rows;
} call;

/* The prefill call each row of [start, n) falls in, under the caller's chunk rule: `chunk` rows at
 * a time, an image prompt's edges moved by ts_mm_inputs_chunk as the caller's prefill moves them.
 * calls[i] for i ≥ start. */
static void plan_calls(const ts_prefix_prompt *p, size_t start, call *calls)
{
    for (size_t at = start; at < p->n;) {
        size_t take = p->n - at < (size_t)p->chunk ? p->n - at : (size_t)p->chunk;
        if (p->mm) take = ts_mm_inputs_chunk(p->mm, at, (size_t)p->chunk);
        if (take == 0) take = p->n - at; /* not reached: a chunk of ≥ 1 row always fits */
        for (size_t i = at; i < at + take; i++)
            calls[i] = (call){(int64_t)at, (int64_t)take};
        at += take;
    }
}

/* Whether a restore of P rows keeps every logit bit-identical (see the header): whole[] are the
 * calls of a prefill from row 0, from[] scratch. A row in a call of fewer than B rows either way
 * must be in the very same call both ways. */
static bool exact_at(const ts_prefix_prompt *p, size_t P, const call *whole, call *from)
{
    /* An image block of an attention bias is never split between calls. */
    if (p->mm && ts_mm_inputs_chunk(p->mm, 0, P) != P) return false;
    for (size_t i = 0; i < P; i++)
        if (whole[i].rows < B) return false;
    plan_calls(p, P, from);
    for (size_t i = P; i < p->n; i++)
        if ((from[i].rows < B || whole[i].rows < B) &&
            (from[i].first != whole[i].first || from[i].rows != whole[i].rows))
            return false;
    return true;
}

/* Row i's record into the running hash: how it enters, its ids or media key, its positions. */
static void hash_row(ts_sha256 *h, const ts_prefix_prompt *p, size_t i, int32_t media_token,
                     const int *image_of, const int64_t *offset_of)
{
    uint8_t kind = !p->mm ? ROW_TOKEN : p->ids[i] == media_token ? ROW_MEDIA : ROW_EMBEDDED_TOKEN;
    ts_sha256_update(h, &kind, 1);
    if (kind == ROW_MEDIA) {
        ts_sha256_update(h, p->media[image_of[i]].digest, 32);
        ts_sha256_update(h, &offset_of[i], sizeof(int64_t));
    } else {
        ts_sha256_update(h, &p->ids[i], sizeof(int32_t));
    }
    int rows = p->mm ? p->mm->position_rows : 1;
    for (int r = 0; r < rows; r++) {
        int32_t pos = p->mm ? p->mm->positions[(size_t)r * p->n + i] : (int32_t)i;
        ts_sha256_update(h, &pos, sizeof(pos));
    }
}

/* Each image row's image and offset within it, the media read in prompt order. */
static ts_status media_rows(const ts_prefix_prompt *p, int32_t media_token, int *image_of,
                            int64_t *offset_of, ts_error *err)
{
    int image = 0;
    int64_t offset = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (!p->mm || p->ids[i] != media_token) continue;
        while (image < p->n_media && offset == p->media[image].rows)
            image++, offset = 0;
        if (image == p->n_media)
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                                "prefix cache: image row %zu is past the %d images' rows", i,
                                p->n_media);
        image_of[i] = image, offset_of[i] = offset++;
    }
    return TS_OK;
}

static ts_status make_keys(const ts_prefix_cache *c, const ts_prefix_prompt *p, const char *adapter,
                           bool rope_long, ts_prefix_keys *k, ts_error *err)
{
    const ts_model_config *cfg = ts_model_get_config(c->model);
    int32_t media_token = p->mm ? (int32_t)cfg->image_token_id : -1;
    int *image_of = calloc(p->n, sizeof(int));
    int64_t *offset_of = calloc(p->n, sizeof(int64_t));
    ts_status st = image_of && offset_of ? media_rows(p, media_token, image_of, offset_of, err)
                                         : ts_error_set(err, TS_ERR_OUT_OF_MEMORY,
                                                        "prefix cache: out of memory");
    uint8_t parent[32] = {0};
    /* A LoRA adapter changes every row's K/V: its name seeds the chain (none: the zero seed). */
    if (strcmp(adapter, "none") != 0) {
        ts_sha256 h;
        ts_sha256_init(&h);
        ts_sha256_update(&h, (const uint8_t *)adapter, strlen(adapter));
        ts_sha256_final(&h, parent);
    }
    /* longrope's long factors rotate every row of a prompt past the pretraining length: such
     * rows chain from their own seed, never meeting a short prompt's. */
    if (rope_long) {
        ts_sha256 h;
        ts_sha256_init(&h);
        ts_sha256_update(&h, parent, 32);
        ts_sha256_update(&h, (const uint8_t *)"longrope:long", 13);
        ts_sha256_final(&h, parent);
    }
    for (int64_t b = 0; st == TS_OK && b < k->n_blocks; b++) {
        ts_sha256 h;
        ts_sha256_init(&h);
        ts_sha256_update(&h, parent, 32);
        for (size_t i = (size_t)b * B; i < (size_t)(b + 1) * B; i++)
            hash_row(&h, p, i, media_token, image_of, offset_of);
        ts_sha256_final(&h, k->key[b]);
        memcpy(parent, k->key[b], 32);
    }
    free(image_of), free(offset_of);
    return st;
}

ts_status ts_prefix_cache_begin(ts_prefix_cache *c, const ts_prefix_prompt *p, ts_sequence *seq,
                                ts_prefix_keys **keys, int64_t *restored, ts_error *err)
{
    *keys = NULL, *restored = 0;
    if (!p->ids || p->n == 0 || p->chunk < 1 || (p->mm && p->mm->n != p->n) ||
        ts_sequence_length(seq) != 0)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "prefix cache: a prompt of %zu rows, chunk %lld, into a sequence of "
                            "%lld rows (an empty one needed)",
                            p->n, (long long)p->chunk, (long long)ts_sequence_length(seq));
    ts_prefix_keys *k = calloc(1, sizeof(*k));
    call *whole = malloc(sizeof(call) * p->n), *from = malloc(sizeof(call) * p->n);
    ts_status st = TS_OK;
    if (k) {
        k->n_blocks = (int64_t)(p->n / B);
        k->key = malloc(32 * (size_t)(k->n_blocks + 1));
        k->storable = calloc((size_t)k->n_blocks + 1, sizeof(bool));
    }
    if (!k || !k->key || !k->storable || !whole || !from)
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "prefix cache: out of memory");
    /* The prompt is one forward of the reference: past longrope's threshold, long throughout. */
    ts_sequence_begin_prompt(seq, (int64_t)p->n);
    if (k) k->rope_long = ts_sequence_rope_long(seq);
    if (st == TS_OK) st = make_keys(c, p, ts_sequence_adapter(seq), k->rope_long, k, err);
    if (st != TS_OK) {
        ts_prefix_keys_free(k), free(whole), free(from);
        return st;
    }
    /* The longest cached chain, then the longest exact prefix of it that leaves a row. */
    int64_t matched = 0;
    while (matched < k->n_blocks && find(c, k->key[matched]))
        matched++;
    plan_calls(p, 0, whole);
    size_t P = (size_t)matched * B;
    if (P >= p->n) P = (p->n - 1) / B * B;
    while (P > 0 && !exact_at(p, P, whole, from))
        P -= B;
    for (int64_t b = 0; b < (int64_t)(P / B); b++) {
        block *blk = find(c, k->key[b]);
        touch(c, blk);
        ts_sequence_append_rows(seq, blk->rows, B, NULL); /* fits: P < n ≤ capacity */
    }
    /* A text prompt's restored rows are its first P tokens (longrope recomputes from them). */
    if (!p->mm) ts_sequence_record_tokens(seq, p->ids, (int64_t)P);
    /* What this request may store: restored rows, and rows its prefill runs in calls of ≥ B. */
    plan_calls(p, P, from);
    for (int64_t b = 0; b < k->n_blocks; b++) {
        bool ok = true;
        for (size_t i = (size_t)b * B; i < (size_t)(b + 1) * B; i++)
            ok &= i < P || from[i].rows >= B;
        k->storable[b] = ok;
    }
    c->stats.lookups++;
    c->stats.hits += P > 0;
    c->stats.prompt_tokens += (int64_t)p->n;
    c->stats.cached_tokens += (int64_t)P;
    free(whole), free(from);
    *keys = k, *restored = (int64_t)P;
    return TS_OK;
}

void ts_prefix_cache_store(ts_prefix_cache *c, const ts_prefix_keys *k, const ts_sequence *seq)
{
    block *parent = NULL;
    /* A sequence that passed longrope's threshold while generating holds long rows under short
     * keys: nothing of it is stored. */
    if (ts_sequence_rope_long(seq) != k->rope_long) return;
    for (int64_t b = 0; b < k->n_blocks; b++) {
        block *have = find(c, k->key[b]);
        if (have) {
            touch(c, have);
            parent = have;
            continue;
        }
        if (!k->storable[b] || c->block_bytes > c->stats.budget) return;
        block *blk = malloc(c->block_bytes);
        if (!blk) return;
        if (!ts_sequence_read_rows(seq, b * B, B, blk->rows)) {
            free(blk);
            return;
        }
        if (parent) parent->refs++; /* held while room is made: the chain stays whole */
        if (!make_room(c, c->block_bytes)) {
            if (parent) parent->refs--;
            free(blk);
            return;
        }
        memcpy(blk->key, k->key[b], 32);
        blk->parent = parent, blk->refs = 0, blk->prev = blk->next = NULL;
        size_t at = bucket_of(c, blk->key);
        blk->chain = c->buckets[at];
        c->buckets[at] = blk;
        lru_front(c, blk);
        c->stats.bytes += c->block_bytes;
        c->stats.blocks++;
        c->stats.insertions++;
        parent = blk;
    }
}
