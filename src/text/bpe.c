/* bpe.c — BPE model: load, merge loop, cache (see bpe.h).
 *
 * Merge loop: words up to SCAN_MAX symbols use a quadratic scan over a flat array (fewer cache
 * misses than a heap for the usual 2–10 symbol words); longer words (SentencePiece-style whole
 * lines, long whitespace runs) use a binary heap of candidate pairs with lazy deletion, O(n log n).
 * Both pick the lowest rank and, on ties, the leftmost pair, so they agree by construction.
 */
#include "text/bpe.h"

#include "base/error.h"
#include "base/utf8.h"

#include <pthread.h>
#include <stdio.h>

#define SCAN_MAX 16
#define CACHE_SLOTS 16384
#define CACHE_STRIPES 64
#define CACHE_KEY_MAX 54
#define CACHE_IDS_MAX 16

typedef struct merge_slot {
    uint64_t key; /* left << 32 | right; EMPTY_KEY when free */
    int32_t rank, merged;
} merge_slot;

#define EMPTY_KEY UINT64_MAX

typedef struct cache_entry {
    uint64_t hash;
    uint8_t key_len, n_ids;
    char key[CACHE_KEY_MAX];
    int32_t ids[CACHE_IDS_MAX];
} cache_entry;

struct ts_bpe {
    ts_strmap vocab;
    size_t vocab_size;
    merge_slot *merges;
    size_t merge_mask;
    int32_t unk_id;
    bool fuse_unk, byte_fallback, ignore_merges, byte_level;
    /* SentencePiece-style words (a whole line can be one pre-token) split before "▁" when
     * no merge can cross that boundary; see find_meta_boundaries. */
    bool meta_split, meta_unsafe_non_ascii;
    bool meta_unsafe_ascii[128];
    int32_t byte_ids[256];     /* byte-level: id of the alphabet char for each byte */
    int32_t fallback_ids[256]; /* "<0xXX>" ids */
    char byte_chars[256][3];   /* byte-level: UTF-8 of the alphabet char */
    uint8_t byte_char_len[256];
    /* Mutable behind a const model: guarded by the stripe locks. */
    cache_entry *cache;
    pthread_mutex_t locks[CACHE_STRIPES];
};

/* ------------------------------------------------------------------ GPT-2 byte alphabet */

/* Printable Latin-1 bytes stand for themselves; the rest map, in byte order, to U+0100 onwards. */
static bool byte_is_printable(int b)
{
    return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

uint32_t ts_byte_level_char(uint8_t b)
{
    if (byte_is_printable(b)) return b;
    uint32_t n = 0;
    for (int i = 0; i < b; i++)
        if (!byte_is_printable(i)) n++;
    return 256 + n;
}

int ts_byte_level_byte(uint32_t cp)
{
    if (cp < 256) return byte_is_printable((int)cp) ? (int)cp : -1;
    if (cp >= 256 + 68) return -1;
    uint32_t n = cp - 256;
    for (int b = 0; b < 256; b++) {
        if (byte_is_printable(b)) continue;
        if (n-- == 0) return b;
    }
    return -1;
}

/* ------------------------------------------------------------------ merge table */

static inline uint64_t pair_hash(uint64_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return key;
}

static inline const merge_slot *merge_find(const ts_bpe *bpe, int32_t left, int32_t right)
{
    uint64_t key = ((uint64_t)(uint32_t)left << 32) | (uint32_t)right;
    size_t i = pair_hash(key) & bpe->merge_mask;
    for (;;) {
        const merge_slot *s = &bpe->merges[i];
        if (s->key == key) return s;
        if (s->key == EMPTY_KEY) return NULL;
        i = (i + 1) & bpe->merge_mask;
    }
}

static void merge_put(ts_bpe *bpe, int32_t left, int32_t right, int32_t rank, int32_t merged)
{
    uint64_t key = ((uint64_t)(uint32_t)left << 32) | (uint32_t)right;
    size_t i = pair_hash(key) & bpe->merge_mask;
    while (bpe->merges[i].key != EMPTY_KEY && bpe->merges[i].key != key)
        i = (i + 1) & bpe->merge_mask;
    /* A repeated pair keeps the later rank, as the Rust HashMap built from the list does. */
    bpe->merges[i] = (merge_slot){key, rank, merged};
}

/* ------------------------------------------------------------------ load */

#define META "\xE2\x96\x81" /* U+2581, SentencePiece's space */

/* A merge can join "…c" and "▁…" only if its result contains "c▁". Record every such c, so
 * encode can cut a long word before any "▁" whose preceding character is not one of them: BPE on
 * the pieces then equals BPE on the whole, since no merge spans a cut. */
static void note_meta_pairs(ts_bpe *bpe, const char *merged, size_t len)
{
    for (const char *p = merged + 1; p + 3 <= merged + len; p++) {
        p = memmem(p, (size_t)(merged + len - p), META, 3);
        if (!p) break;
        const uint8_t *q = (const uint8_t *)p - 1;
        while (q > (const uint8_t *)merged && (*q & 0xC0) == 0x80)
            q--;
        if ((const char *)q + 3 == p && memcmp(q, META, 3) == 0) continue;
        if (*q < 0x80)
            bpe->meta_unsafe_ascii[*q] = true;
        else
            bpe->meta_unsafe_non_ascii = true;
    }
}

void ts_bpe_destroy(ts_bpe *bpe)
{
    if (!bpe) return;
    ts_strmap_fini(&bpe->vocab);
    free(bpe->merges);
    free(bpe->cache);
    for (int i = 0; i < CACHE_STRIPES; i++)
        pthread_mutex_destroy(&bpe->locks[i]);
    free(bpe);
}

static bool nonempty_string(const cJSON *item)
{
    return cJSON_IsString(item) && item->valuestring[0] != '\0';
}

static ts_status load_merges(ts_bpe *bpe, const cJSON *merges, ts_error *err)
{
    int n = cJSON_GetArraySize(merges);
    size_t cap = 16;
    while (cap < (size_t)n * 2)
        cap *= 2;
    bpe->merges = malloc(cap * sizeof(*bpe->merges));
    if (!bpe->merges) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "merges: out of memory");
    for (size_t i = 0; i < cap; i++)
        bpe->merges[i].key = EMPTY_KEY;
    bpe->merge_mask = cap - 1;
    ts_buf joined = {0};
    ts_status st = TS_OK;
    int rank = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, merges)
    {
        const char *a, *b;
        size_t a_len, b_len;
        if (cJSON_IsString(m)) {
            /* "a b": tokens never contain a space in this form, so exactly one is required. */
            const char *s = m->valuestring, *sp = strchr(s, ' ');
            if (!sp || strchr(sp + 1, ' ') || sp == s || sp[1] == '\0') {
                st = ts_error_set(
                    err, TS_ERR_FORMAT,
                    "model.merges[%d]: \"%s\" is not two tokens separated by one space", rank, s);
                break;
            }
            a = s, a_len = (size_t)(sp - s), b = sp + 1, b_len = strlen(sp + 1);
        } else if (cJSON_IsArray(m) && cJSON_GetArraySize(m) == 2 &&
                   nonempty_string(cJSON_GetArrayItem(m, 0)) &&
                   nonempty_string(cJSON_GetArrayItem(m, 1))) {
            a = cJSON_GetArrayItem(m, 0)->valuestring, a_len = strlen(a);
            b = cJSON_GetArrayItem(m, 1)->valuestring, b_len = strlen(b);
        } else {
            st = ts_error_set(err, TS_ERR_FORMAT,
                              "model.merges[%d]: expected \"a b\" or [\"a\", \"b\"]", rank);
            break;
        }
        int32_t ida = ts_strmap_get(&bpe->vocab, a, a_len);
        int32_t idb = ts_strmap_get(&bpe->vocab, b, b_len);
        joined.len = 0;
        if (!ts_buf_append(&joined, a, a_len) || !ts_buf_append(&joined, b, b_len)) {
            st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "merges: out of memory");
            break;
        }
        int32_t idm = ts_strmap_get(&bpe->vocab, joined.data, joined.len);
        if (ida < 0 || idb < 0 || idm < 0) {
            const char *missing = ida < 0 ? a : idb < 0 ? b : joined.data;
            int missing_len = (int)(ida < 0 ? a_len : idb < 0 ? b_len : joined.len);
            st = ts_error_set(err, TS_ERR_FORMAT,
                              "model.merges[%d]: token \"%.*s\" is not in the vocab", rank,
                              missing_len, missing);
            break;
        }
        merge_put(bpe, ida, idb, rank, idm);
        note_meta_pairs(bpe, joined.data, joined.len);
        rank++;
    }
    ts_buf_fini(&joined);
    return st;
}

static ts_status load_vocab(ts_bpe *bpe, const cJSON *vocab, ts_error *err)
{
    if (!cJSON_IsObject(vocab))
        return ts_error_set(err, TS_ERR_FORMAT, "model.vocab must be an object of token → id");
    if (!ts_strmap_init(&bpe->vocab, (size_t)cJSON_GetArraySize(vocab)))
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vocab: out of memory");
    const cJSON *entry;
    cJSON_ArrayForEach(entry, vocab)
    {
        if (!cJSON_IsNumber(entry) || entry->valuedouble < 0 ||
            entry->valuedouble > INT32_MAX - 1 || entry->valuedouble != (double)entry->valueint)
            return ts_error_set(err, TS_ERR_FORMAT,
                                "model.vocab[\"%s\"]: id must be a non-negative integer",
                                entry->string);
        if (!ts_strmap_put(&bpe->vocab, entry->string, strlen(entry->string), entry->valueint))
            return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vocab: out of memory");
        if ((size_t)entry->valueint + 1 > bpe->vocab_size)
            bpe->vocab_size = (size_t)entry->valueint + 1;
    }
    return TS_OK;
}

static ts_status check_options(const cJSON *model, ts_error *err)
{
    const cJSON *dropout = cJSON_GetObjectItemCaseSensitive(model, "dropout");
    if (cJSON_IsNumber(dropout) && dropout->valuedouble > 0)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "BPE dropout %g is not supported",
                            dropout->valuedouble);
    static const char *const affixes[] = {"continuing_subword_prefix", "end_of_word_suffix"};
    for (int i = 0; i < 2; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(model, affixes[i]);
        if (nonempty_string(v))
            return ts_error_set(err, TS_ERR_UNSUPPORTED, "BPE %s \"%s\" is not supported",
                                affixes[i], v->valuestring);
    }
    return TS_OK;
}

ts_status ts_bpe_parse(const cJSON *model, bool byte_level, ts_bpe **out, ts_error *err)
{
    *out = NULL;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(model, "type");
    if (cJSON_IsString(type) && strcmp(type->valuestring, "BPE") != 0)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "model type \"%s\" is not supported (only BPE is)", type->valuestring);
    if (!cJSON_IsString(type) && !cJSON_GetObjectItemCaseSensitive(model, "merges"))
        return ts_error_set(err, TS_ERR_FORMAT, "model has no \"type\"");
    ts_status st = check_options(model, err);
    if (st) return st;
    ts_bpe *bpe = calloc(1, sizeof(*bpe));
    if (!bpe) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "model: out of memory");
    for (int i = 0; i < CACHE_STRIPES; i++)
        pthread_mutex_init(&bpe->locks[i], NULL);
    bpe->byte_level = byte_level;
    bpe->fuse_unk = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(model, "fuse_unk"));
    bpe->byte_fallback = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(model, "byte_fallback"));
    bpe->ignore_merges = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(model, "ignore_merges"));
    st = load_vocab(bpe, cJSON_GetObjectItemCaseSensitive(model, "vocab"), err);
    const cJSON *merges = cJSON_GetObjectItemCaseSensitive(model, "merges");
    if (!st && merges && !cJSON_IsArray(merges))
        st = ts_error_set(err, TS_ERR_FORMAT, "model.merges must be an array");
    if (!st) st = load_merges(bpe, merges, err);
    if (st) {
        ts_bpe_destroy(bpe);
        return st;
    }
    const cJSON *unk = cJSON_GetObjectItemCaseSensitive(model, "unk_token");
    bpe->unk_id = cJSON_IsString(unk)
                      ? ts_strmap_get(&bpe->vocab, unk->valuestring, strlen(unk->valuestring))
                      : -1;
    /* Hugging Face fails when it meets an unknown character and its unk_token is not in the
     * vocabulary; dropping the character instead would be a silent difference, so a tokenizer
     * that names a missing unk_token is refused up front. */
    if (cJSON_IsString(unk) && bpe->unk_id < 0) {
        ts_status bad = ts_error_set(err, TS_ERR_FORMAT, "model.unk_token \"%s\" is not in the vocabulary", unk->valuestring);
        ts_bpe_destroy(bpe);
        return bad;
    }
    for (int b = 0; b < 256; b++) {
        char name[8];
        snprintf(name, sizeof(name), "<0x%02X>", b);
        bpe->fallback_ids[b] = ts_strmap_get(&bpe->vocab, name, 6);
        bpe->byte_char_len[b] =
            (uint8_t)ts_utf8_encode(ts_byte_level_char((uint8_t)b), bpe->byte_chars[b]);
        bpe->byte_ids[b] = ts_strmap_get(&bpe->vocab, bpe->byte_chars[b], bpe->byte_char_len[b]);
    }
    bpe->meta_split =
        !byte_level && !bpe->ignore_merges && ts_strmap_get(&bpe->vocab, META, 3) >= 0;
    bpe->cache = calloc(CACHE_SLOTS, sizeof(*bpe->cache));
    if (!bpe->cache) {
        ts_bpe_destroy(bpe);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "model: out of memory");
    }
    *out = bpe;
    return TS_OK;
}

const ts_strmap *ts_bpe_vocab(const ts_bpe *bpe)
{
    return &bpe->vocab;
}
size_t ts_bpe_vocab_size(const ts_bpe *bpe)
{
    return bpe->vocab_size;
}

/* ------------------------------------------------------------------ encode */

/* Initial symbols: one per byte (byte-level) or per character; unknown characters become byte
 * fallback pieces, else the unk id (fused runs when fuse_unk), else are dropped as in Rust. */
static bool initial_symbols(const ts_bpe *bpe, const uint8_t *w, size_t len, ts_ids *sym)
{
    bool pending_unk = false;
    for (size_t i = 0; i < len;) {
        int32_t id;
        size_t k;
        if (bpe->byte_level) {
            k = 1;
            id = bpe->byte_ids[w[i]];
        } else {
            uint32_t cp;
            k = ts_utf8_decode(w + i, len - i, &cp);
            id = ts_strmap_get(&bpe->vocab, (const char *)w + i, k);
        }
        if (id >= 0) {
            if (pending_unk && !ts_ids_push(sym, bpe->unk_id)) return false;
            pending_unk = false;
            if (!ts_ids_push(sym, id)) return false;
            i += k;
            continue;
        }
        if (bpe->byte_fallback) {
            bool all = true;
            for (size_t j = 0; j < k; j++)
                all = all && bpe->fallback_ids[w[i + j]] >= 0;
            if (all) {
                if (pending_unk && !ts_ids_push(sym, bpe->unk_id)) return false;
                pending_unk = false;
                for (size_t j = 0; j < k; j++)
                    if (!ts_ids_push(sym, bpe->fallback_ids[w[i + j]])) return false;
                i += k;
                continue;
            }
        }
        if (bpe->unk_id >= 0) {
            if (pending_unk && !bpe->fuse_unk && !ts_ids_push(sym, bpe->unk_id)) return false;
            pending_unk = true;
        }
        i += k;
    }
    if (pending_unk && !ts_ids_push(sym, bpe->unk_id)) return false;
    return true;
}

static void merge_scan(const ts_bpe *bpe, int32_t *s, size_t *n_io)
{
    size_t n = *n_io;
    while (n > 1) {
        int32_t best_rank = INT32_MAX, best_id = -1;
        size_t best = 0;
        for (size_t i = 0; i + 1 < n; i++) {
            const merge_slot *m = merge_find(bpe, s[i], s[i + 1]);
            if (m && m->rank < best_rank) best_rank = m->rank, best_id = m->merged, best = i;
        }
        if (best_id < 0) break;
        s[best] = best_id;
        memmove(s + best + 1, s + best + 2, (n - best - 2) * sizeof(*s));
        n--;
    }
    *n_io = n;
}

typedef struct heap_item {
    int32_t rank;
    int32_t left;  /* symbol index */
    int32_t right; /* symbol index at push time */
} heap_item;

static inline bool heap_less(heap_item a, heap_item b)
{
    return a.rank < b.rank || (a.rank == b.rank && a.left < b.left);
}

static void heap_push(heap_item *h, size_t *n, heap_item it)
{
    size_t i = (*n)++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!heap_less(it, h[p])) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = it;
}

static heap_item heap_pop(heap_item *h, size_t *n)
{
    heap_item top = h[0], last = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && heap_less(h[c + 1], h[c])) c++;
        if (!heap_less(h[c], last)) break;
        h[i] = h[c];
        i = c;
    }
    if (*n) h[i] = last;
    return top;
}

static bool merge_heap(const ts_bpe *bpe, int32_t *s, size_t *n_io)
{
    size_t n = *n_io;
    int32_t *next = malloc(n * sizeof(*next)), *prev = malloc(n * sizeof(*prev));
    /* Each merge pushes at most two pairs, so n initial + 2n pushes bound the heap. */
    heap_item *heap = malloc(3 * n * sizeof(*heap));
    if (!next || !prev || !heap) {
        free(next), free(prev), free(heap);
        return false;
    }
    size_t hn = 0;
    for (size_t i = 0; i < n; i++) {
        next[i] = i + 1 < n ? (int32_t)(i + 1) : -1;
        prev[i] = (int32_t)i - 1;
        if (i + 1 < n) {
            const merge_slot *m = merge_find(bpe, s[i], s[i + 1]);
            if (m) heap_push(heap, &hn, (heap_item){m->rank, (int32_t)i, (int32_t)(i + 1)});
        }
    }
    while (hn) {
        heap_item it = heap_pop(heap, &hn);
        int32_t l = it.left, r = it.right;
        /* Stale when either side was merged away or the left symbol changed since the push. */
        if (s[l] < 0 || next[l] != r || s[r] < 0) continue;
        const merge_slot *m = merge_find(bpe, s[l], s[r]);
        if (!m || m->rank != it.rank) continue;
        s[l] = m->merged;
        s[r] = -1;
        next[l] = next[r];
        if (next[r] >= 0) prev[next[r]] = l;
        if (prev[l] >= 0) {
            const merge_slot *pm = merge_find(bpe, s[prev[l]], s[l]);
            if (pm) heap_push(heap, &hn, (heap_item){pm->rank, prev[l], l});
        }
        if (next[l] >= 0) {
            const merge_slot *nm = merge_find(bpe, s[l], s[next[l]]);
            if (nm) heap_push(heap, &hn, (heap_item){nm->rank, l, next[l]});
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] >= 0) s[k++] = s[i];
    *n_io = k;
    free(next), free(prev), free(heap);
    return true;
}

static bool cache_get(const ts_bpe *bpe, uint64_t hash, const char *w, size_t len, ts_ids *out)
{
    ts_bpe *mut = (ts_bpe *)bpe;
    size_t slot = hash & (CACHE_SLOTS - 1);
    pthread_mutex_t *lock = &mut->locks[slot % CACHE_STRIPES];
    pthread_mutex_lock(lock);
    const cache_entry *e = &bpe->cache[slot];
    bool hit = e->hash == hash && e->key_len == len && e->n_ids && memcmp(e->key, w, len) == 0;
    int32_t ids[CACHE_IDS_MAX];
    size_t n = e->n_ids;
    if (hit) memcpy(ids, e->ids, n * sizeof(*ids));
    pthread_mutex_unlock(lock);
    return hit && ts_ids_append(out, ids, n);
}

static void cache_put(const ts_bpe *bpe, uint64_t hash, const char *w, size_t len,
                      const int32_t *ids, size_t n)
{
    ts_bpe *mut = (ts_bpe *)bpe;
    size_t slot = hash & (CACHE_SLOTS - 1);
    pthread_mutex_t *lock = &mut->locks[slot % CACHE_STRIPES];
    pthread_mutex_lock(lock);
    cache_entry *e = &mut->cache[slot];
    e->hash = hash;
    e->key_len = (uint8_t)len;
    e->n_ids = (uint8_t)n;
    memcpy(e->key, w, len);
    memcpy(e->ids, ids, n * sizeof(*ids));
    pthread_mutex_unlock(lock);
}

static ts_status encode_word(const ts_bpe *bpe, const char *word, size_t len, ts_ids *out,
                             ts_error *err)
{
    if (len == 0) return TS_OK;
    bool cacheable = len <= CACHE_KEY_MAX;
    uint64_t hash = 0;
    if (cacheable) {
        hash = ts_hash_bytes(word, len);
        if (cache_get(bpe, hash, word, len, out)) return TS_OK;
    }
    size_t start = out->len;
    if (bpe->ignore_merges) {
        int32_t id;
        if (bpe->byte_level) {
            char buf[256];
            size_t n = 0;
            for (size_t i = 0; i < len && n + 2 <= sizeof(buf); i++) {
                uint8_t b = (uint8_t)word[i];
                memcpy(buf + n, bpe->byte_chars[b], bpe->byte_char_len[b]);
                n += bpe->byte_char_len[b];
            }
            id = len * 2 <= sizeof(buf) ? ts_strmap_get(&bpe->vocab, buf, n) : -1;
        } else {
            id = ts_strmap_get(&bpe->vocab, word, len);
        }
        if (id >= 0) {
            if (!ts_ids_push(out, id))
                return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
            if (cacheable) cache_put(bpe, hash, word, len, &id, 1);
            return TS_OK;
        }
    }
    if (!initial_symbols(bpe, (const uint8_t *)word, len, out))
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
    size_t n = out->len - start;
    if (n > SCAN_MAX) {
        if (!merge_heap(bpe, out->data + start, &n))
            return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
    } else {
        merge_scan(bpe, out->data + start, &n);
    }
    out->len = start + n;
    if (cacheable && n <= CACHE_IDS_MAX) cache_put(bpe, hash, word, len, out->data + start, n);
    return TS_OK;
}

/* True when a cut may go before the "▁" at word[at] (at > 0). */
static bool meta_cut(const ts_bpe *bpe, const uint8_t *w, size_t at)
{
    size_t k = at - 1;
    while (k > 0 && (w[k] & 0xC0) == 0x80)
        k--;
    if (w[k] < 0x80) return !bpe->meta_unsafe_ascii[w[k]];
    if (at - k == 3 && memcmp(w + k, META, 3) == 0) return false; /* runs of ▁ stay together */
    return !bpe->meta_unsafe_non_ascii;
}

ts_status ts_bpe_encode(const ts_bpe *bpe, const char *word, size_t len, ts_ids *out, ts_error *err)
{
    if (!bpe->meta_split || len <= CACHE_KEY_MAX) return encode_word(bpe, word, len, out, err);
    const uint8_t *w = (const uint8_t *)word;
    size_t start = 0;
    for (size_t i = 1; i + 3 <= len; i++) {
        if (w[i] != 0xE2 || memcmp(w + i, META, 3) != 0 || !meta_cut(bpe, w, i)) continue;
        ts_status st = encode_word(bpe, word + start, i - start, out, err);
        if (st) return st;
        start = i;
        i += 2;
    }
    return encode_word(bpe, word + start, len - start, out, err);
}
