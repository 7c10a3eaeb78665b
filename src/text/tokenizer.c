/* tokenizer.c — the ts_tokenizer_* API of tessera.h: loading and the encode/decode pipelines.
 *
 * ts_tokenizer_load reads dir/tokenizer.json (and dir/tokenizer_config.json when present) into
 * added tokens → normalizer → pre-tokenizer → BPE → post-processor, plus the decoder. A loaded
 * tokenizer is immutable apart from the BPE cache, which locks, so one instance serves many
 * threads. Encoding refuses invalid UTF-8 with TS_ERR_INVALID_ARGUMENT naming the byte offset:
 * Hugging Face only ever sees a valid str, so there is no behaviour to match there.
 */
#include "tessera.h"

#include "base/error.h"
#include "base/file.h"
#include "text/added_tokens.h"
#include "text/bpe.h"
#include "text/decoder.h"
#include "text/normalizer.h"
#include "text/postprocessor.h"
#include "text/pretokenizer.h"
#include "base/utf8.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>

enum { ROLE_BOS, ROLE_EOS, ROLE_PAD, ROLE_UNK, ROLE_COUNT };
static const char *const role_names[ROLE_COUNT] = {"bos_token", "eos_token", "pad_token",
                                                   "unk_token"};

struct ts_tokenizer {
    ts_normalizer *normalizer;
    ts_pretokenizer *pre;
    ts_bpe *bpe;
    ts_added *added;
    ts_decoder *decoder;
    ts_template template;
    bool has_normalized_added;
    ts_strmap added_ids; /* added token content → id; wins over the model vocab */
    /* id → token text (NUL-terminated in pool), -1 offset for holes */
    ts_buf pool;
    int64_t *token_offset;
    uint32_t *token_len;
    bool *special;
    size_t n_ids;
    char *roles[ROLE_COUNT];
};

void ts_tokenizer_destroy(ts_tokenizer *tok)
{
    if (!tok) return;
    ts_normalizer_destroy(tok->normalizer);
    ts_pretokenizer_destroy(tok->pre);
    ts_bpe_destroy(tok->bpe);
    ts_added_destroy(tok->added);
    ts_decoder_destroy(tok->decoder);
    ts_strmap_fini(&tok->added_ids);
    ts_buf_fini(&tok->pool);
    free(tok->token_offset);
    free(tok->token_len);
    free(tok->special);
    for (int i = 0; i < ROLE_COUNT; i++)
        free(tok->roles[i]);
    free(tok);
}

static ts_status set_token(ts_tokenizer *tok, int32_t id, const char *text, size_t len)
{
    tok->token_offset[id] = (int64_t)tok->pool.len;
    tok->token_len[id] = (uint32_t)len;
    if (!ts_buf_append(&tok->pool, text, len) || !ts_buf_append(&tok->pool, "", 1))
        return TS_ERR_OUT_OF_MEMORY;
    return TS_OK;
}

static ts_status build_id_table(ts_tokenizer *tok, ts_error *err)
{
    size_t n = ts_bpe_vocab_size(tok->bpe);
    for (size_t i = 0; i < ts_added_count(tok->added); i++) {
        size_t id = (size_t)ts_added_at(tok->added, i)->id;
        if (id + 1 > n) n = id + 1;
    }
    tok->n_ids = n;
    tok->token_offset = malloc((n ? n : 1) * sizeof(*tok->token_offset));
    tok->token_len = calloc(n ? n : 1, sizeof(*tok->token_len));
    tok->special = calloc(n ? n : 1, sizeof(*tok->special));
    if (!tok->token_offset || !tok->token_len || !tok->special)
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "tokenizer: out of memory");
    for (size_t i = 0; i < n; i++)
        tok->token_offset[i] = -1;
    const ts_strmap *vocab = ts_bpe_vocab(tok->bpe);
    for (size_t i = 0; i <= vocab->mask; i++) {
        const ts_strmap_slot *s = &vocab->slots[i];
        if (s->value < 0) continue;
        if (set_token(tok, s->value, vocab->pool.data + s->offset, s->len))
            return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "tokenizer: out of memory");
    }
    if (!ts_strmap_init(&tok->added_ids, ts_added_count(tok->added)))
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "tokenizer: out of memory");
    for (size_t i = 0; i < ts_added_count(tok->added); i++) {
        const ts_added_token *t = ts_added_at(tok->added, i);
        if (set_token(tok, t->id, t->content, t->len) ||
            !ts_strmap_put(&tok->added_ids, t->content, t->len, t->id))
            return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "tokenizer: out of memory");
        tok->special[t->id] = t->special;
        if (t->normalized) tok->has_normalized_added = true;
    }
    return TS_OK;
}

/* tokenizer_config.json values are either "text" or {"content": "text", ...}. */
static const char *config_token(const cJSON *config, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(config, key);
    if (cJSON_IsObject(v)) v = cJSON_GetObjectItemCaseSensitive(v, "content");
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* transformers rebuilds the post-processor as "[bos] $A [eos]" when tokenizer_config.json sets
 * add_bos_token or add_eos_token, whatever tokenizer.json says. */
static ts_status apply_config(ts_tokenizer *tok, const cJSON *config, ts_error *err)
{
    for (int i = 0; i < ROLE_COUNT; i++) {
        const char *v = config_token(config, role_names[i]);
        if (v && !(tok->roles[i] = strdup(v)))
            return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "tokenizer: out of memory");
    }
    const cJSON *add_bos = cJSON_GetObjectItemCaseSensitive(config, "add_bos_token");
    const cJSON *add_eos = cJSON_GetObjectItemCaseSensitive(config, "add_eos_token");
    if (!cJSON_IsBool(add_bos) && !cJSON_IsBool(add_eos)) return TS_OK;
    ts_template t = {0};
    if (cJSON_IsTrue(add_bos)) {
        int32_t id =
            tok->roles[ROLE_BOS] ? ts_tokenizer_token_to_id(tok, tok->roles[ROLE_BOS]) : -1;
        if (id < 0)
            return ts_error_set(err, TS_ERR_FORMAT, "add_bos_token is true but bos_token %s%s%s",
                                tok->roles[ROLE_BOS] ? "\"" : "is unset",
                                tok->roles[ROLE_BOS] ? tok->roles[ROLE_BOS] : "",
                                tok->roles[ROLE_BOS] ? "\" is not in the vocabulary" : "");
        t.prefix[t.n_prefix++] = id;
    }
    if (cJSON_IsTrue(add_eos)) {
        int32_t id =
            tok->roles[ROLE_EOS] ? ts_tokenizer_token_to_id(tok, tok->roles[ROLE_EOS]) : -1;
        if (id < 0)
            return ts_error_set(err, TS_ERR_FORMAT,
                                "add_eos_token is true but eos_token is "
                                "unset or not in the vocabulary");
        t.suffix[t.n_suffix++] = id;
    }
    tok->template = t;
    return TS_OK;
}

static ts_status load_json(const char *path, bool required, cJSON **out, ts_error *err)
{
    *out = NULL;
    if (!required && !ts_file_exists(path)) return TS_OK;
    char *data;
    size_t len;
    ts_status st = ts_file_read(path, &data, &len, err);
    if (st) return st;
    const char *end = NULL;
    *out = cJSON_ParseWithLengthOpts(data, len, &end, false);
    if (!*out) {
        size_t at = end ? (size_t)(end - data) : 0;
        size_t line = 1;
        for (size_t i = 0; i < at && i < len; i++)
            line += data[i] == '\n';
        free(data);
        return ts_error_set(err, TS_ERR_FORMAT, "%s: invalid JSON near byte %zu (line %zu)", path,
                            at, line);
    }
    free(data);
    return TS_OK;
}

static ts_status build(ts_tokenizer *tok, const cJSON *json, ts_error *err)
{
    if (!cJSON_IsObject(json))
        return ts_error_set(err, TS_ERR_FORMAT, "top level is not an object");
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(json, "model");
    if (!cJSON_IsObject(model)) return ts_error_set(err, TS_ERR_FORMAT, "no \"model\" object");
    ts_status st;
    if ((st = ts_normalizer_parse(cJSON_GetObjectItemCaseSensitive(json, "normalizer"),
                                  &tok->normalizer, err)))
        return ts_error_prefix(err, "normalizer: ");
    if ((st = ts_pretokenizer_parse(cJSON_GetObjectItemCaseSensitive(json, "pre_tokenizer"),
                                    &tok->pre, err)))
        return ts_error_prefix(err, "pre_tokenizer: ");
    if ((st = ts_bpe_parse(model, ts_pretokenizer_is_byte_level(tok->pre), &tok->bpe, err)))
        return ts_error_prefix(err, "model: ");
    if ((st = ts_added_parse(cJSON_GetObjectItemCaseSensitive(json, "added_tokens"),
                             tok->normalizer, &tok->added, err)))
        return ts_error_prefix(err, "added_tokens: ");
    if ((st = ts_decoder_parse(cJSON_GetObjectItemCaseSensitive(json, "decoder"), &tok->decoder,
                               err)))
        return ts_error_prefix(err, "decoder: ");
    if ((st = ts_template_parse(cJSON_GetObjectItemCaseSensitive(json, "post_processor"),
                                &tok->template, err)))
        return ts_error_prefix(err, "post_processor: ");
    return build_id_table(tok, err);
}

ts_status ts_tokenizer_load(const char *dir, ts_tokenizer **out, ts_error *err)
{
    *out = NULL;
    char path[4096], config_path[4096];
    ts_status st = ts_path_join(path, sizeof(path), dir, "tokenizer.json", err);
    if (!st) st = ts_path_join(config_path, sizeof(config_path), dir, "tokenizer_config.json", err);
    if (st) return st;
    if (!ts_file_exists(path))
        return ts_error_set(err, TS_ERR_NOT_FOUND,
                            "%s: no such file (a tokenizer folder needs "
                            "tokenizer.json)",
                            path);
    cJSON *json = NULL, *config = NULL;
    if ((st = load_json(path, true, &json, err))) return st;
    if ((st = load_json(config_path, false, &config, err))) {
        cJSON_Delete(json);
        return st;
    }
    ts_tokenizer *tok = calloc(1, sizeof(*tok));
    if (!tok) {
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "tokenizer: out of memory");
    } else if ((st = build(tok, json, err))) {
        ts_error_prefix(err, "%s: ", path);
    } else if (config && (st = apply_config(tok, config, err))) {
        ts_error_prefix(err, "%s: ", config_path);
    }
    if (st) {
        ts_tokenizer_destroy(tok);
        tok = NULL;
    }
    cJSON_Delete(json);
    cJSON_Delete(config);
    *out = tok;
    return st;
}

/* ------------------------------------------------------------------ encode */

typedef struct encode_state {
    ts_ids ids;
    ts_buf normalized;
    ts_splits raw_splits, norm_splits;
    ts_pieces pieces;
} encode_state;

static void encode_state_free(encode_state *s)
{
    ts_ids_free(&s->ids);
    ts_buf_fini(&s->normalized);
    free(s->raw_splits.items);
    free(s->norm_splits.items);
    ts_pieces_free(&s->pieces);
}

static ts_status encode_plain(const ts_tokenizer *tok, const char *text, size_t len, bool at_start,
                              encode_state *s, ts_error *err)
{
    ts_status st = ts_pretokenizer_run(tok->pre, text, len, at_start, &s->pieces, err);
    for (size_t i = 0; i < s->pieces.n && !st; i++) {
        const ts_piece *p = &s->pieces.items[i];
        st = ts_bpe_encode(tok->bpe, s->pieces.buf.data + p->offset, p->len, &s->ids, err);
    }
    return st;
}

static ts_status encode_segment(const ts_tokenizer *tok, const char *text, size_t len,
                                bool at_start, encode_state *s, ts_error *err)
{
    s->normalized.len = 0;
    ts_status st = ts_normalizer_apply(tok->normalizer, text, len, &s->normalized, err);
    if (st) return st;
    const char *norm = s->normalized.data ? s->normalized.data : "";
    if (!tok->has_normalized_added)
        return encode_plain(tok, norm, s->normalized.len, at_start, s, err);
    if ((st = ts_added_split(tok->added, true, norm, s->normalized.len, &s->norm_splits, err)))
        return st;
    /* encode_plain reuses s->pieces, not s->normalized, so norm stays valid through the loop. */
    for (size_t i = 0; i < s->norm_splits.n && !st; i++) {
        const ts_split *sp = &s->norm_splits.items[i];
        if (sp->id >= 0) {
            if (!ts_ids_push(&s->ids, sp->id))
                st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
            continue;
        }
        st = encode_plain(tok, norm + sp->start, sp->end - sp->start, at_start && sp->start == 0, s,
                          err);
    }
    return st;
}

ts_status ts_tokenizer_encode(const ts_tokenizer *tok, const char *text, size_t len,
                              bool add_special_tokens, int32_t **ids, size_t *n_ids, ts_error *err)
{
    *ids = NULL;
    *n_ids = 0;
    if (!text && len) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "encode: text is NULL");
    if (len > UINT32_MAX / 4)
        return ts_error_set(err, TS_ERR_RANGE, "encode: text of %zu bytes is too long", len);
    size_t bad = ts_utf8_validate((const uint8_t *)text, len);
    if (bad != len)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "encode: invalid UTF-8 at byte offset %zu (byte 0x%02X)", bad,
                            (unsigned)(uint8_t)text[bad]);
    encode_state s = {0};
    ts_status st = TS_OK;
    if (add_special_tokens && !ts_ids_append(&s.ids, tok->template.prefix, tok->template.n_prefix))
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
    if (!st) st = ts_added_split(tok->added, false, text ? text : "", len, &s.raw_splits, err);
    for (size_t i = 0; i < s.raw_splits.n && !st; i++) {
        const ts_split *sp = &s.raw_splits.items[i];
        if (sp->id >= 0) {
            if (!ts_ids_push(&s.ids, sp->id))
                st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
        } else if (sp->end > sp->start) {
            st =
                encode_segment(tok, text + sp->start, sp->end - sp->start, sp->start == 0, &s, err);
        }
    }
    if (!st && add_special_tokens &&
        !ts_ids_append(&s.ids, tok->template.suffix, tok->template.n_suffix))
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
    if (st) {
        encode_state_free(&s);
        return st;
    }
    *n_ids = s.ids.len;
    *ids = s.ids.data ? s.ids.data : malloc(sizeof(int32_t));
    s.ids.data = NULL;
    encode_state_free(&s);
    if (!*ids) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
    return TS_OK;
}

/* ------------------------------------------------------------------ decode and lookups */

ts_status ts_tokenizer_decode(const ts_tokenizer *tok, const int32_t *ids, size_t n_ids,
                              bool skip_special_tokens, char **text, size_t *len, ts_error *err)
{
    *text = NULL;
    if (len) *len = 0;
    ts_token_ref *refs = malloc((n_ids ? n_ids : 1) * sizeof(*refs));
    if (!refs) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "decode: out of memory");
    size_t n = 0;
    for (size_t i = 0; i < n_ids; i++) {
        int32_t id = ids[i];
        if (id < 0 || (size_t)id >= tok->n_ids || tok->token_offset[id] < 0) continue;
        if (skip_special_tokens && tok->special[id]) continue;
        refs[n++] = (ts_token_ref){tok->pool.data + tok->token_offset[id], tok->token_len[id]};
    }
    ts_buf out = {0};
    ts_status st = ts_decoder_run(tok->decoder, refs, n, &out, err);
    free(refs);
    if (!st && !out.data && !ts_buf_append(&out, "", 0))
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "decode: out of memory");
    if (st) {
        ts_buf_fini(&out);
        return st;
    }
    *text = out.data;
    if (len) *len = out.len;
    return TS_OK;
}

size_t ts_tokenizer_vocab_size(const ts_tokenizer *tok)
{
    return tok->n_ids;
}

int32_t ts_tokenizer_token_to_id(const ts_tokenizer *tok, const char *token)
{
    size_t len = strlen(token);
    /* Added tokens take precedence, as in Rust's token_to_id. */
    int32_t id = ts_strmap_get(&tok->added_ids, token, len);
    return id >= 0 ? id : ts_strmap_get(ts_bpe_vocab(tok->bpe), token, len);
}

const char *ts_tokenizer_id_to_token(const ts_tokenizer *tok, int32_t id)
{
    if (id < 0 || (size_t)id >= tok->n_ids || tok->token_offset[id] < 0) return NULL;
    return tok->pool.data + tok->token_offset[id];
}

bool ts_tokenizer_is_special(const ts_tokenizer *tok, int32_t id)
{
    return id >= 0 && (size_t)id < tok->n_ids && tok->special[id];
}

const char *ts_tokenizer_special_token(const ts_tokenizer *tok, const char *role)
{
    for (int i = 0; i < ROLE_COUNT; i++)
        if (strcmp(role, role_names[i]) == 0) return tok->roles[i];
    return NULL;
}

ts_status ts_tokenizer_encode_chat(const ts_tokenizer *tok, const char *text, size_t len, int32_t **ids, size_t *n_ids,
                                   ts_error *err)
{
    const char *bos = ts_tokenizer_special_token(tok, "bos_token");
    size_t bos_len = bos ? strlen(bos) : 0;
    bool has_bos = bos_len && len >= bos_len && memcmp(text, bos, bos_len) == 0;
    return ts_tokenizer_encode(tok, text, len, !has_bos, ids, n_ids, err);
}
