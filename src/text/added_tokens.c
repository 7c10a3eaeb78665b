/* added_tokens.c — added-token matching (see added_tokens.h).
 *
 * Each matcher is a byte trie whose children live in one open-addressing table keyed by
 * (node, byte); a node's `token` is the index of the token ending there. Leftmost-longest is a
 * walk from each start position keeping the last token seen, which with a few thousand tokens
 * (the largest vocabularies have over 6000) costs one or two probes per input byte since most bytes
 * start no token.
 */
#include "text/added_tokens.h"

#include "base/buf.h"
#include "base/error.h"
#include "base/utf8.h"

#include <utf8proc.h>

typedef struct edge {
    uint32_t key; /* node << 8 | byte, plus one so 0 marks an empty slot */
    uint32_t child;
} edge;

typedef struct trie {
    int32_t *token; /* per node: token index or -1 */
    size_t n_nodes, cap_nodes;
    edge *edges;
    size_t edge_mask, n_edges;
    bool first_byte[256];
} trie;

struct ts_added {
    ts_added_token *tokens;
    size_t n;
    char **match_forms; /* normalized content of normalized tokens */
    size_t *match_lens;
    trie tries[2]; /* [0] raw, [1] normalized */
};

static inline size_t edge_slot(const trie *t, uint32_t key)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ULL;
    return (size_t)(h >> 20) & t->edge_mask;
}

static int64_t trie_child(const trie *t, uint32_t node, uint8_t byte)
{
    if (!t->edges) return -1;
    uint32_t key = ((node << 8) | byte) + 1;
    for (size_t i = edge_slot(t, key);; i = (i + 1) & t->edge_mask) {
        if (t->edges[i].key == key) return t->edges[i].child;
        if (t->edges[i].key == 0) return -1;
    }
}

static bool trie_new_node(trie *t)
{
    if (t->n_nodes == t->cap_nodes) {
        size_t cap = t->cap_nodes ? t->cap_nodes * 2 : 64;
        int32_t *grown = realloc(t->token, cap * sizeof(*grown));
        if (!grown) return false;
        t->token = grown;
        t->cap_nodes = cap;
    }
    t->token[t->n_nodes++] = -1;
    return true;
}

static bool trie_grow_edges(trie *t)
{
    size_t old_n = t->edges ? t->edge_mask + 1 : 0, n = old_n ? old_n * 2 : 1024;
    edge *old = t->edges;
    t->edges = calloc(n, sizeof(*t->edges));
    if (!t->edges) {
        t->edges = old;
        return false;
    }
    t->edge_mask = n - 1;
    for (size_t i = 0; i < old_n; i++) {
        if (!old[i].key) continue;
        size_t j = edge_slot(t, old[i].key);
        while (t->edges[j].key)
            j = (j + 1) & t->edge_mask;
        t->edges[j] = old[i];
    }
    free(old);
    return true;
}

static bool trie_insert(trie *t, const char *s, size_t len, int32_t token)
{
    if (len == 0) return true;
    if (t->n_nodes == 0 && !trie_new_node(t)) return false;
    t->first_byte[(uint8_t)s[0]] = true;
    uint32_t node = 0;
    for (size_t i = 0; i < len; i++) {
        int64_t child = trie_child(t, node, (uint8_t)s[i]);
        if (child < 0) {
            if ((t->n_edges + 1) * 2 > (t->edges ? t->edge_mask + 1 : 0) && !trie_grow_edges(t))
                return false;
            if (!trie_new_node(t)) return false;
            uint32_t key = ((node << 8) | (uint8_t)s[i]) + 1;
            size_t j = edge_slot(t, key);
            while (t->edges[j].key)
                j = (j + 1) & t->edge_mask;
            t->edges[j] = (edge){key, (uint32_t)(t->n_nodes - 1)};
            t->n_edges++;
            child = (int64_t)t->n_nodes - 1;
        }
        node = (uint32_t)child;
    }
    /* Two tokens with one content: the later wins, as in the Rust map from content to id. */
    t->token[node] = token;
    return true;
}

static void trie_free(trie *t)
{
    free(t->token);
    free(t->edges);
}

void ts_added_destroy(ts_added *added)
{
    if (!added) return;
    for (size_t i = 0; i < added->n; i++) {
        free(added->tokens[i].content);
        if (added->match_forms) free(added->match_forms[i]);
    }
    free(added->tokens);
    free(added->match_forms);
    free(added->match_lens);
    trie_free(&added->tries[0]);
    trie_free(&added->tries[1]);
    free(added);
}

size_t ts_added_count(const ts_added *added)
{
    return added ? added->n : 0;
}
const ts_added_token *ts_added_at(const ts_added *added, size_t i)
{
    return &added->tokens[i];
}

static bool flag(const cJSON *obj, const char *name, bool fallback)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : fallback;
}

ts_status ts_added_parse(const cJSON *json, const ts_normalizer *norm, ts_added **out,
                         ts_error *err)
{
    *out = NULL;
    ts_added *added = calloc(1, sizeof(*added));
    if (!added) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "added_tokens: out of memory");
    *out = added;
    if (!json || cJSON_IsNull(json)) return TS_OK;
    if (!cJSON_IsArray(json))
        return ts_error_set(err, TS_ERR_FORMAT, "added_tokens must be an array");
    size_t n = (size_t)cJSON_GetArraySize(json);
    added->tokens = calloc(n ? n : 1, sizeof(*added->tokens));
    added->match_forms = calloc(n ? n : 1, sizeof(*added->match_forms));
    added->match_lens = calloc(n ? n : 1, sizeof(*added->match_lens));
    if (!added->tokens || !added->match_forms || !added->match_lens)
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "added_tokens: out of memory");
    const cJSON *item;
    size_t i = 0;
    cJSON_ArrayForEach(item, json)
    {
        const cJSON *content = cJSON_GetObjectItemCaseSensitive(item, "content");
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(item, "id");
        if (!cJSON_IsString(content) || !cJSON_IsNumber(id) || id->valuedouble < 0 ||
            id->valuedouble > INT32_MAX - 1)
            return ts_error_set(
                err, TS_ERR_FORMAT,
                "added_tokens[%zu]: needs a string \"content\" and an integer \"id\"", i);
        ts_added_token *t = &added->tokens[i];
        t->len = strlen(content->valuestring);
        t->content = strdup(content->valuestring);
        if (!t->content)
            return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "added_tokens: out of memory");
        added->n = i + 1;
        t->id = id->valueint;
        t->special = flag(item, "special", false);
        /* Rust's default: special tokens are not normalized, others are. */
        t->normalized = flag(item, "normalized", !t->special);
        t->lstrip = flag(item, "lstrip", false);
        t->rstrip = flag(item, "rstrip", false);
        t->single_word = flag(item, "single_word", false);
        if (ts_utf8_validate((const uint8_t *)t->content, t->len) != t->len)
            return ts_error_set(err, TS_ERR_FORMAT, "added_tokens[%zu]: content is not UTF-8", i);
        if (t->normalized) {
            ts_buf form = {0};
            ts_status st = ts_normalizer_apply(norm, t->content, t->len, &form, err);
            if (st) {
                ts_buf_fini(&form);
                return ts_error_prefix(err, "added_tokens[%zu]: ", i);
            }
            added->match_forms[i] = form.data ? form.data : strdup("");
            added->match_lens[i] = form.len;
            if (!trie_insert(&added->tries[1], added->match_forms[i], form.len, (int32_t)i))
                return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "added_tokens: out of memory");
        } else if (!trie_insert(&added->tries[0], t->content, t->len, (int32_t)i)) {
            return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "added_tokens: out of memory");
        }
        i++;
    }
    return TS_OK;
}

/* Rust's char::is_alphanumeric plus '_': the word characters single_word looks at. */
static bool is_word_char(uint32_t cp)
{
    if (cp == '_') return true;
    if (cp < 0x80) return (cp >= '0' && cp <= '9') || ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z');
    utf8proc_category_t c = utf8proc_category((utf8proc_int32_t)cp);
    return (c >= UTF8PROC_CATEGORY_LU && c <= UTF8PROC_CATEGORY_LO) ||
           (c >= UTF8PROC_CATEGORY_ND && c <= UTF8PROC_CATEGORY_NO);
}

/* The code point that ends just before byte offset `at`. */
static uint32_t char_before(const uint8_t *s, size_t at, size_t *start)
{
    size_t k = at - 1;
    while (k > 0 && (s[k] & 0xC0) == 0x80)
        k--;
    uint32_t cp;
    ts_utf8_decode(s + k, at - k, &cp);
    if (start) *start = k;
    return cp;
}

static bool push_split(ts_splits *out, size_t start, size_t end, int32_t id)
{
    if (out->n == out->cap) {
        ts_split *grown = ts_array_grow(out->items, &out->cap, sizeof(*grown), 16);
        if (!grown) return false;
        out->items = grown;
    }
    out->items[out->n++] = (ts_split){start, end, id};
    return true;
}

ts_status ts_added_split(const ts_added *added, bool normalized_set, const char *text, size_t len,
                         ts_splits *out, ts_error *err)
{
    out->n = 0;
    const trie *t = added ? &added->tries[normalized_set ? 1 : 0] : NULL;
    const uint8_t *s = (const uint8_t *)text;
    size_t covered = 0;
    if (t && t->n_nodes) {
        for (size_t i = 0; i < len;) {
            if (!t->first_byte[s[i]]) {
                i++;
                continue;
            }
            /* Longest token starting at i. */
            int32_t best = -1;
            size_t best_end = 0;
            uint32_t node = 0;
            for (size_t j = i; j < len; j++) {
                int64_t child = trie_child(t, node, s[j]);
                if (child < 0) break;
                node = (uint32_t)child;
                if (t->token[node] >= 0) best = t->token[node], best_end = j + 1;
            }
            if (best < 0) {
                i++;
                continue;
            }
            const ts_added_token *tok = &added->tokens[best];
            size_t start = i, stop = best_end;
            i = best_end; /* matches never overlap, even when the flags below reject this one */
            if (tok->single_word) {
                uint32_t cp;
                bool word_before = start > 0 && is_word_char(char_before(s, start, NULL));
                bool word_after =
                    stop < len && (ts_utf8_decode(s + stop, len - stop, &cp), is_word_char(cp));
                if (word_before || word_after) continue;
            }
            if (tok->lstrip) {
                size_t k = start;
                while (k > 0) {
                    size_t prev;
                    if (!ts_utf8_is_whitespace(char_before(s, k, &prev))) break;
                    k = prev;
                }
                start = k > covered ? k : covered;
            }
            if (tok->rstrip) {
                while (stop < len) {
                    uint32_t cp;
                    size_t k = ts_utf8_decode(s + stop, len - stop, &cp);
                    if (!ts_utf8_is_whitespace(cp)) break;
                    stop += k;
                }
            }
            if (covered < start && !push_split(out, covered, start, -1))
                return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
            if (!push_split(out, start, stop, tok->id))
                return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
            covered = stop;
            if (i < stop) i = stop;
        }
    }
    if (covered < len || out->n == 0) {
        if (!push_split(out, covered, len, -1))
            return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
    }
    return TS_OK;
}
