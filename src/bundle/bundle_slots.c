/* bundle_slots.c — the decode slots of one bundle bucket: every slot's KV cache, length and rope
 * delta, and the entries that fill and advance them.
 *
 *   empty --prefill (prefill.main, prefill_embeddings.main or, with DeepStack side inputs,
 *         prefill_embeddings_deepstack.main)--> holds a sequence
 *         --decode (decode.main over every slot; inactive ones fed token 0 at position 0 on an
 *           empty cache: valid, results ignored)--> … --reset--> empty
 *         --verify (decode_k.main: K rows per slot, speculative decoding)--> length + rows
 *         --truncate (rollback to the accepted length: bookkeeping only)--> …
 *
 * With LoRA adapters (the manifest's adapters object) each slot has its adapter
 * (ts_bundle_slots_set_adapter before its prefill; reset returns it to none), passed as the
 * entries' `adapters` argument on the slot's rows: one decode.main call mixes adapters.
 *
 * A prefill writes only its slot's cache. decode.main's caches are donated: the step writes each
 * slot's new row into these buffers in place (no copy of the caches); an inactive slot's step
 * writes its row 0, which is saved before and put back after, so one request's state never
 * reaches another slot. Every call goes through ts_bundle_run: validated here and again by the
 * entry.
 */
#include "bundle/bundle.h"
#include "base/error.h"
#include "models/decoder.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ts_bundle_slots {
    ts_bundle *bundle;
    int bucket;
    int64_t capacity, prefill_capacity, slots, vocab, layers, kv_heads, head_dim;
    int position_rows; /* 3 under M-RoPE: text tokens take the same position on t, h and w */
    int64_t draft_width; /* decode_k.main's rows per slot K, or 0 when the bundle has none */
    float *k, *v;      /* [slots][layers][capacity][kv_heads][head_dim] */
    int32_t *tokens, *positions, *delta, *cache_len;
    int n_adapters;      /* the bundle's adapters ("none" included), 0 = the entries take none */
    int32_t *adapter;    /* [slots]: each slot's adapter index */
    int32_t *rows_adapter; /* [max(Lp, slots·width)]: the `adapters` argument of a call */
    int64_t *length;
    float *saved; /* [slots][2][layers][width][kv_heads][head_dim]: inactive slots' rows during a step */
};

static size_t slot_floats(const ts_bundle_slots *s) { return (size_t)(s->layers * s->capacity * s->kv_heads * s->head_dim); }

static ts_tensor_arg arg_i32(const char *name, const int32_t *data, int rank, int64_t n)
{
    ts_tensor_arg a = {.name = name, .dtype = TS_DTYPE_I32, .rank = rank, .data = data};
    if (rank) a.dims[0] = n;
    a.n_bytes = sizeof(int32_t) * (size_t)(rank ? n : 1);
    return a;
}

void ts_bundle_slots_destroy(ts_bundle_slots *s)
{
    if (!s) return;
    free(s->k), free(s->v), free(s->tokens), free(s->positions), free(s->delta), free(s->cache_len), free(s->length), free(s->saved);
    free(s->adapter), free(s->rows_adapter);
    free(s);
}

ts_status ts_bundle_slots_create(ts_bundle *bundle, int bucket, ts_bundle_slots **out, ts_error *err)
{
    *out = NULL;
    if (bucket < 0 || bucket >= ts_bundle_bucket_count(bundle))
        return ts_error_set(err, TS_ERR_RANGE, "bundle: bucket %d outside 0..%d", bucket, ts_bundle_bucket_count(bundle) - 1);
    ts_bundle_slots *s = calloc(1, sizeof(*s));
    if (!s) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "bundle: out of memory");
    s->bundle = bundle, s->bucket = bucket;
    ts_bundle_bucket(bundle, bucket, &s->capacity, &s->prefill_capacity, &s->slots);
    s->position_rows = ts_bundle_position_rows(bundle);
    s->draft_width = ts_bundle_draft_width(bundle);
    int64_t width = s->draft_width ? s->draft_width : 1;
    ts_status st = ts_bundle_kv_shape(bundle, &s->vocab, &s->layers, &s->kv_heads, &s->head_dim, err);
    size_t cache = st == TS_OK ? slot_floats(s) * (size_t)s->slots : 0;
    if (st == TS_OK) {
        s->k = calloc(cache, sizeof(float));
        s->v = calloc(cache, sizeof(float));
        s->tokens = calloc((size_t)(s->slots * width), sizeof(int32_t));
        s->positions = calloc((size_t)(3 * s->slots * width), sizeof(int32_t));
        s->delta = calloc((size_t)s->slots, sizeof(int32_t));
        s->cache_len = calloc((size_t)s->slots, sizeof(int32_t));
        s->length = calloc((size_t)s->slots, sizeof(int64_t));
        s->saved = malloc(sizeof(float) * (size_t)(s->slots * 2 * s->layers * width * s->kv_heads * s->head_dim));
        s->n_adapters = ts_bundle_adapter_count(bundle);
        s->adapter = calloc((size_t)s->slots, sizeof(int32_t));
        int64_t rows = s->prefill_capacity > s->slots * width ? s->prefill_capacity : s->slots * width;
        s->rows_adapter = calloc((size_t)rows, sizeof(int32_t));
        if (!s->k || !s->v || !s->tokens || !s->positions || !s->delta || !s->cache_len || !s->length || !s->saved || !s->adapter ||
            !s->rows_adapter)
            st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "bundle: cannot allocate the KV caches (%zu bytes)", 2 * cache * sizeof(float));
    }
    if (st != TS_OK) {
        ts_bundle_slots_destroy(s);
        return st;
    }
    *out = s;
    return TS_OK;
}

int ts_bundle_slots_count(const ts_bundle_slots *s) { return (int)s->slots; }
int64_t ts_bundle_slots_length(const ts_bundle_slots *s, int slot) { return s->length[slot]; }
int64_t ts_bundle_slots_capacity(const ts_bundle_slots *s) { return s->capacity; }
int64_t ts_bundle_slots_prefill_capacity(const ts_bundle_slots *s) { return s->prefill_capacity; }

void ts_bundle_slots_reset(ts_bundle_slots *s, int slot)
{
    size_t f = slot_floats(s);
    memset(s->k + (size_t)slot * f, 0, sizeof(float) * f);
    memset(s->v + (size_t)slot * f, 0, sizeof(float) * f);
    s->length[slot] = 0, s->delta[slot] = 0, s->adapter[slot] = 0;
}

ts_status ts_bundle_slots_set_adapter(ts_bundle_slots *s, int slot, int adapter, ts_error *err)
{
    if (slot < 0 || slot >= s->slots) return ts_error_set(err, TS_ERR_RANGE, "bundle: slot %d outside 0..%lld", slot, (long long)s->slots - 1);
    if (adapter < 0 || adapter >= (s->n_adapters ? s->n_adapters : 1))
        return ts_error_set(err, TS_ERR_RANGE, "bundle: adapter %d: the bundle serves %d adapters (\"none\" included)", adapter,
                            s->n_adapters ? s->n_adapters : 1);
    if (s->length[slot] && adapter != s->adapter[slot])
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "bundle: slot %d holds %lld rows computed with adapter %d; reset it first", slot,
                            (long long)s->length[slot], s->adapter[slot]);
    s->adapter[slot] = adapter;
    return TS_OK;
}

/* The `adapters` argument of a prefill into slot: its adapter on every row (padding included). */
static ts_tensor_arg prefill_adapters(ts_bundle_slots *s, int slot)
{
    for (int64_t i = 0; i < s->prefill_capacity; i++) s->rows_adapter[i] = s->adapter[slot];
    return arg_i32("adapters", s->rows_adapter, 1, s->prefill_capacity);
}

static ts_status check_slot(const ts_bundle_slots *s, int slot, size_t n, ts_error *err)
{
    if (slot < 0 || slot >= s->slots) return ts_error_set(err, TS_ERR_RANGE, "bundle: slot %d outside 0..%lld", slot, (long long)s->slots - 1);
    if (n == 0) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "bundle: an empty prompt");
    if ((int64_t)n > s->prefill_capacity)
        return ts_error_set(err, TS_ERR_RANGE, "bundle: %zu prompt tokens exceed the prefill capacity %lld", n, (long long)s->prefill_capacity);
    if (s->length[slot]) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "bundle: slot %d already holds a sequence; reset it first", slot);
    return TS_OK;
}

/* The caches a prefill entry returned become the slot's. */
static void take_prefill(ts_bundle_slots *s, int slot, const void *const outs[3], size_t n, int64_t delta, float *logits)
{
    size_t f = slot_floats(s);
    memcpy(logits, outs[0], sizeof(float) * (size_t)s->vocab);
    memcpy(s->k + (size_t)slot * f, outs[1], sizeof(float) * f);
    memcpy(s->v + (size_t)slot * f, outs[2], sizeof(float) * f);
    s->length[slot] = (int64_t)n, s->delta[slot] = (int32_t)delta;
}

ts_status ts_bundle_slots_prefill(ts_bundle_slots *s, int slot, const int32_t *ids, size_t n, float *logits, ts_error *err)
{
    ts_status st = check_slot(s, slot, n, err);
    if (st != TS_OK) return st;
    int32_t *padded = calloc((size_t)s->prefill_capacity, sizeof(int32_t)), length = (int32_t)n;
    if (!padded) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "bundle: out of memory");
    memcpy(padded, ids, sizeof(int32_t) * n);
    ts_tensor_arg args[3] = {arg_i32("tokens", padded, 1, s->prefill_capacity), arg_i32("length", &length, 0, 0), prefill_adapters(s, slot)};
    const void *outs[3];
    st = ts_bundle_run(s->bundle, s->bucket, "prefill.main", args, s->n_adapters ? 3 : 2, outs, err);
    if (st == TS_OK) take_prefill(s, slot, outs, n, 0, logits);
    free(padded);
    return st;
}

/* prefill_embeddings.main's arguments padded to the prefill capacity Lp: rows, positions (padding
 * at 0) and a causal bias, or (attention non-NULL, checked) the payload's [n, n] bias in its
 * top-left corner, the padding rows causal; with a DeepStack payload (ds non-NULL, checked),
 * prefill_embeddings_deepstack.main with the payload padded to the bucket's Nv_max by the filler
 * (position 0, zero features). */
static ts_status prefill_embeddings(ts_bundle_slots *s, int slot, const float *embeddings, size_t n,
                                    int64_t hidden, const int32_t *positions, int64_t rope_delta,
                                    const ts_deepstack *ds, const ts_attention_bias *attention,
                                    float *logits, ts_error *err)
{
    ts_status st = check_slot(s, slot, n, err);
    if (st != TS_OK) return st;
    int64_t lp = s->prefill_capacity, rows = s->position_rows;
    int64_t nv = ds ? ts_bundle_visual_capacity(s->bundle, s->bucket) : 0, k = ds ? ds->n_layers : 0;
    size_t floats = (size_t)(lp * hidden + lp * lp + k * nv * hidden);
    float *block = calloc(floats * sizeof(float) + sizeof(int32_t) * (size_t)(rows * lp + nv), 1);
    if (!block) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "bundle: out of memory");
    float *emb = block, *bias = block + lp * hidden, *features = bias + lp * lp;
    int32_t *pos = (int32_t *)(block + floats), *visual = pos + rows * lp, length = (int32_t)n, count = ds ? (int32_t)ds->n_visual : 0;
    memcpy(emb, embeddings, sizeof(float) * n * (size_t)hidden);
    for (int64_t r = 0; r < rows; r++) memcpy(pos + r * lp, positions + r * (int64_t)n, sizeof(int32_t) * n);
    for (int64_t i = 0; i < lp; i++)
        for (int64_t j = i + 1; j < lp; j++) bias[i * lp + j] = -INFINITY;
    for (size_t i = 0; attention && i < n; i++)
        memcpy(bias + i * (size_t)lp, attention->bias + i * n, sizeof(float) * n);
    if (count) memcpy(visual, ds->visual_positions, sizeof(int32_t) * (size_t)count);
    for (int64_t l = 0; l < k && count; l++)
        memcpy(features + l * nv * hidden, ds->layer_features + l * count * hidden, sizeof(float) * (size_t)(count * hidden));
    ts_tensor_arg args[8] = {
        {"embeddings", TS_DTYPE_F32, 2, {lp, hidden}, emb, sizeof(float) * (size_t)(lp * hidden)},
        rows == 3 ? (ts_tensor_arg){"positions", TS_DTYPE_I32, 2, {3, lp}, pos, sizeof(int32_t) * (size_t)(3 * lp)}
                  : arg_i32("positions", pos, 1, lp),
        {"bias", TS_DTYPE_F32, 2, {lp, lp}, bias, sizeof(float) * (size_t)(lp * lp)},
        arg_i32("length", &length, 0, 0)};
    /* `adapters` (LoRA) right after length, then the DeepStack payload (decoder_entries.c). */
    int n_args = 4;
    if (s->n_adapters) args[n_args++] = prefill_adapters(s, slot);
    if (ds) {
        args[n_args++] = arg_i32("visual_positions", visual, 1, nv);
        args[n_args++] = (ts_tensor_arg){"layer_features", TS_DTYPE_F32, 3, {k, nv, hidden}, features, sizeof(float) * (size_t)(k * nv * hidden)};
        args[n_args++] = arg_i32("visual_count", &count, 0, 0);
    }
    const void *outs[3];
    st = ts_bundle_run(s->bundle, s->bucket, ds ? "prefill_embeddings_deepstack.main" : "prefill_embeddings.main", args, n_args, outs, err);
    if (st == TS_OK) take_prefill(s, slot, outs, n, rope_delta, logits);
    free(block);
    return st;
}

/* A DeepStack payload against the bundle: its entry exists, the layers are its layers, the rows
 * fit the bucket's Nv_max; the entry checks the values. */
static ts_status check_deepstack(const ts_bundle_slots *s, const ts_deepstack *ds, ts_error *err)
{
    int n_layers = 0;
    const int32_t *layers = NULL;
    ts_bundle_side_inputs(s->bundle, &layers, &n_layers);
    int64_t nv = ts_bundle_visual_capacity(s->bundle, s->bucket);
    if (!n_layers)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "bundle: no prefill_embeddings_deepstack.main (the model declares no DeepStack layers)");
    if (!ds) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "bundle: deepstack: no payload");
    if (ds->n_layers != n_layers || !ds->layer_indices)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "bundle: deepstack: layer_indices has %d entries, the bundle's DeepStack layers %d",
                            ds->n_layers, n_layers);
    for (int i = 0; i < n_layers; i++)
        if (ds->layer_indices[i] != layers[i])
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "bundle: deepstack: layer_indices[%d] = %d, the bundle's layer is %d", i,
                                ds->layer_indices[i], layers[i]);
    if (ds->n_visual < 0 || ds->n_visual > nv)
        return ts_error_set(err, TS_ERR_RANGE, "bundle: deepstack: %lld image rows exceed the bucket's static maximum Nv_max = %lld",
                            (long long)ds->n_visual, (long long)nv);
    if (ds->n_visual && (!ds->visual_positions || !ds->layer_features))
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "bundle: deepstack: %s is NULL",
                            !ds->visual_positions ? "visual_positions" : "layer_features");
    return TS_OK;
}

ts_status ts_bundle_slots_prefill_embeddings(ts_bundle_slots *s, int slot, const float *embeddings,
                                             size_t n, int64_t hidden, const int32_t *positions,
                                             int64_t rope_delta, const ts_side_inputs *side,
                                             float *logits, ts_error *err)
{
    ts_side_kind kind = side ? side->kind : TS_SIDE_NONE;
    if (kind == TS_SIDE_NONE)
        return prefill_embeddings(s, slot, embeddings, n, hidden, positions, rope_delta, NULL, NULL,
                                  logits, err);
    if (kind == TS_SIDE_ATTENTION_BIAS) {
        /* prefill_embeddings.main takes a bias in every bundle; the payload is checked as the
         * engine checks it (shape against the prompt's rows, NaN, +inf, the diagonal). */
        const ts_attention_bias *a = side->attention;
        ts_status st = a ? ts_decoder_check_attention_bias(a->bias, a->shape, (int64_t)n, err)
                         : ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                                        "bundle: attention bias: no payload (NULL)");
        if (st != TS_OK) return st;
        return prefill_embeddings(s, slot, embeddings, n, hidden, positions, rope_delta, NULL, a,
                                  logits, err);
    }
    if (kind != TS_SIDE_DEEPSTACK)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "bundle: side inputs of unknown kind %d",
                            (int)kind);
    ts_status st = check_deepstack(s, side->deepstack, err);
    if (st != TS_OK) return st;
    return prefill_embeddings(s, slot, embeddings, n, hidden, positions, rope_delta,
                              side->deepstack, NULL, logits, err);
}

/* One decode.main (width 1) or decode_k.main (width K) call over every slot: slot i appends its
 * first n[i] of tokens[i][width] (0 = inactive), trailing rows padded with its last token. */
static ts_status step(ts_bundle_slots *s, const char *entry, int64_t width, const int32_t *tokens, const int *n, float *logits,
                      ts_error *err)
{
    int n_active = 0;
    int64_t slots = s->slots, rows = slots * width;
    for (int64_t i = 0; i < slots; i++) {
        n_active += n[i] > 0;
        if (n[i] < 0 || n[i] > width)
            return ts_error_set(err, TS_ERR_RANGE, "bundle: slot %lld: %d rows (0..%lld)", (long long)i, n[i], (long long)width);
        if (n[i] && (s->length[i] == 0 || s->length[i] + width > s->capacity))
            return ts_error_set(err, TS_ERR_RANGE, "bundle: slot %lld holds %lld of %lld tokens: nothing to decode or no room for %lld rows",
                                (long long)i, (long long)s->length[i], (long long)s->capacity, (long long)width);
        s->cache_len[i] = n[i] ? (int32_t)s->length[i] : 0;
        for (int64_t j = 0; j < width; j++) {
            s->tokens[i * width + j] = n[i] ? tokens[i * width + (j < n[i] ? j : n[i] - 1)] : 0;
            for (int r = 0; r < s->position_rows; r++) s->positions[r * rows + i * width + j] = s->cache_len[i] + (int32_t)j;
        }
    }
    if (!n_active) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "bundle: no active slot to decode");
    int64_t kd[5] = {s->slots, s->layers, s->capacity, s->kv_heads, s->head_dim};
    ts_tensor_arg tok = arg_i32("tokens", s->tokens, 1, slots), positions = arg_i32("positions", s->positions, 1, slots);
    if (width > 1) {
        tok.rank = 2, tok.dims[1] = width, tok.n_bytes *= (size_t)width;
        positions = tok, positions.name = "positions", positions.data = s->positions;
    }
    if (s->position_rows == 3) {
        positions.rank++;
        memmove(positions.dims + 1, positions.dims, sizeof(int64_t) * (size_t)(positions.rank - 1));
        positions.dims[0] = 3, positions.n_bytes *= 3;
    }
    int32_t *delta = calloc((size_t)s->slots, sizeof(int32_t));
    if (!delta) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "bundle: out of memory");
    for (int64_t i = 0; i < s->slots; i++) delta[i] = n[i] ? s->delta[i] : 0;
    ts_tensor_arg args[7] = {tok, positions, arg_i32("rope_delta", delta, 1, s->slots), arg_i32("cache_len", s->cache_len, 1, s->slots)};
    /* `adapters` (LoRA) in the tokens' shape: each slot's adapter on its rows (0 for inactive). */
    int n_args = 4;
    if (s->n_adapters) {
        for (int64_t i = 0; i < rows; i++) s->rows_adapter[i] = n[i / width] ? s->adapter[i / width] : 0;
        args[n_args] = tok, args[n_args].name = "adapters", args[n_args].data = s->rows_adapter;
        n_args++;
    }
    for (int i = 0; i < 2; i++) {
        ts_tensor_arg *a = &args[n_args + i];
        *a = (ts_tensor_arg){.name = i ? "v" : "k", .dtype = TS_DTYPE_F32, .rank = 5, .data = i ? s->v : s->k};
        memcpy(a->dims, kd, sizeof(kd));
        a->n_bytes = sizeof(float) * slot_floats(s) * (size_t)s->slots;
    }
    /* Inactive slots write rows 0 … width-1 of each layer (cache_len 0): keep what is there. An
     * active slot's rows past n[i] lie past its length: stale, never read, overwritten later. */
    size_t f = slot_floats(s), row = (size_t)(s->kv_heads * s->head_dim) * (size_t)width,
           per_layer = (size_t)(s->capacity * s->kv_heads * s->head_dim);
    for (int64_t i = 0; i < s->slots; i++)
        for (int64_t l = 0; !n[i] && l < s->layers; l++) {
            float *saved = s->saved + ((size_t)i * 2 * (size_t)s->layers + (size_t)l) * row;
            memcpy(saved, s->k + (size_t)i * f + (size_t)l * per_layer, sizeof(float) * row);
            memcpy(saved + (size_t)s->layers * row, s->v + (size_t)i * f + (size_t)l * per_layer, sizeof(float) * row);
        }
    const void *outs[3];
    ts_status st = ts_bundle_run(s->bundle, s->bucket, entry, args, n_args + 2, outs, err);
    free(delta);
    for (int64_t i = 0; i < s->slots; i++)
        for (int64_t l = 0; !n[i] && l < s->layers; l++) {
            const float *saved = s->saved + ((size_t)i * 2 * (size_t)s->layers + (size_t)l) * row;
            memcpy(s->k + (size_t)i * f + (size_t)l * per_layer, saved, sizeof(float) * row);
            memcpy(s->v + (size_t)i * f + (size_t)l * per_layer, saved + (size_t)s->layers * row, sizeof(float) * row);
        }
    if (st != TS_OK) return st;
    /* The caches were updated in place (the bundle refuses a module whose plan would not). */
    if (outs[1] != s->k || outs[2] != s->v) return ts_error_set(err, TS_ERR_INTERNAL, "bundle: %s did not update the caches in place", entry);
    for (int64_t i = 0; i < s->slots; i++) {
        size_t at = (size_t)(i * width) * (size_t)s->vocab;
        memcpy(logits + at, (const float *)outs[0] + at, sizeof(float) * (size_t)(n[i] * s->vocab));
        s->length[i] += n[i];
    }
    return TS_OK;
}

ts_status ts_bundle_slots_decode(ts_bundle_slots *s, const int32_t *tokens, const bool *active, float *logits, ts_error *err)
{
    int n[TS_MAX_BATCH];
    for (int64_t i = 0; i < s->slots; i++) n[i] = active[i] ? 1 : 0;
    return step(s, "decode.main", 1, tokens, n, logits, err);
}

int64_t ts_bundle_slots_draft_width(const ts_bundle_slots *s) { return s->draft_width; }

ts_status ts_bundle_slots_verify(ts_bundle_slots *s, const int32_t *tokens, const int *n_rows, float *logits, ts_error *err)
{
    if (!s->draft_width)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "bundle: no decode_k.main (export the bundle with a draft width)");
    return step(s, "decode_k.main", s->draft_width, tokens, n_rows, logits, err);
}

ts_status ts_bundle_slots_truncate(ts_bundle_slots *s, int slot, int64_t length, ts_error *err)
{
    if (slot < 0 || slot >= s->slots) return ts_error_set(err, TS_ERR_RANGE, "bundle: slot %d outside 0..%lld", slot, (long long)s->slots - 1);
    if (length < 0 || length > s->length[slot])
        return ts_error_set(err, TS_ERR_RANGE, "bundle: slot %d: truncate to %lld of its %lld tokens", slot, (long long)length,
                            (long long)s->length[slot]);
    /* Rows at or past the new length stay in the cache: no entry reads past a slot's length, and
     * the next calls overwrite them. */
    s->length[slot] = length;
    return TS_OK;
}
