/* bundle_generate.c — generation through a bundle's entries (prefill.main, then decode.main).
 *
 * The request is admitted to the smallest bucket that holds prompt + max_tokens (never
 * truncated). The prompt is padded to the bucket's prefill capacity; prefill's caches become slot
 * 0 of the decode caches. Decode runs every slot of the bucket; the unused slots are fed token 0
 * at position 0 with an empty cache (valid, and their results ignored), so one request's state
 * never mixes with another's. Every call goes through ts_bundle_run, so it is validated twice.
 *
 * With images, the images run through vision.main, the model assembles the merged embeddings and
 * positions (its embedding table, image token, M-RoPE rules), and the prompt goes through
 * prefill_embeddings.main with a causal bias; decode adds the request's rope delta.
 */
#include "base/error.h"
#include "engine/generate.h"
#include "engine/model.h"
#include "engine/vision.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ts_bundle *bundle;
    int bucket;
    int64_t capacity, prefill_capacity, slots, vocab;
    int64_t layers, kv_heads, head_dim;
    int position_rows; /* 3 under M-RoPE: text tokens take the same position on t, h and w */
    int64_t length;
    /* Embeddings prefill (images): merged rows f32[n][hidden] and positions [rows][n]. */
    const float *embeddings;
    const int32_t *embedding_positions;
    int64_t hidden;
    float *k, *v; /* [slots, layers, capacity, kv_heads, head_dim] */
    int32_t *tokens, *positions, *delta, *cache_len;
} bundle_step;

static ts_tensor_arg arg_i32(const char *name, const int32_t *data, int rank, int64_t n)
{
    ts_tensor_arg a = {.name = name, .dtype = TS_DTYPE_I32, .rank = rank, .data = data};
    if (rank) a.dims[0] = n;
    a.n_bytes = sizeof(int32_t) * (size_t)(rank ? n : 1);
    return a;
}

static size_t slot_floats(const bundle_step *s) { return (size_t)(s->layers * s->capacity * s->kv_heads * s->head_dim); }

/* prefill_embeddings.main's arguments, padded to the prefill capacity Lp: rows, positions
 * (padding at 0) and a causal bias; freed by the caller through *block. */
static ts_status embeddings_args(const bundle_step *s, size_t n, int32_t *length, ts_tensor_arg args[4], void **block, ts_error *err)
{
    int64_t lp = s->prefill_capacity, rows = s->position_rows;
    size_t floats = (size_t)(lp * s->hidden + lp * lp);
    float *f = calloc(floats * sizeof(float) + sizeof(int32_t) * (size_t)(rows * lp), 1);
    if (!f) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "bundle: out of memory");
    float *emb = f, *bias = f + lp * s->hidden;
    int32_t *pos = (int32_t *)(f + floats);
    memcpy(emb, s->embeddings, sizeof(float) * n * (size_t)s->hidden);
    for (int64_t r = 0; r < rows; r++) memcpy(pos + r * lp, s->embedding_positions + r * (int64_t)n, sizeof(int32_t) * n);
    for (int64_t i = 0; i < lp; i++)
        for (int64_t j = i + 1; j < lp; j++) bias[i * lp + j] = -INFINITY;
    *length = (int32_t)n;
    args[0] = (ts_tensor_arg){"embeddings", TS_DTYPE_F32, 2, {lp, s->hidden}, emb, sizeof(float) * (size_t)(lp * s->hidden)};
    args[1] = rows == 3 ? (ts_tensor_arg){"positions", TS_DTYPE_I32, 2, {3, lp}, pos, sizeof(int32_t) * (size_t)(3 * lp)}
                        : arg_i32("positions", pos, 1, lp);
    args[2] = (ts_tensor_arg){"bias", TS_DTYPE_F32, 2, {lp, lp}, bias, sizeof(float) * (size_t)(lp * lp)};
    args[3] = arg_i32("length", length, 0, 0);
    *block = f;
    return TS_OK;
}

static ts_status bundle_prefill(void *self, const int32_t *prompt, size_t n, float *logits, ts_error *err)
{
    bundle_step *s = self;
    if ((int64_t)n > s->prefill_capacity)
        return ts_error_set(err, TS_ERR_RANGE, "bundle: %zu prompt tokens exceed the prefill capacity %lld", n, (long long)s->prefill_capacity);
    void *padded = NULL;
    int32_t length = (int32_t)n;
    ts_tensor_arg args[4];
    const void *outs[3];
    ts_status st;
    if (s->embeddings) {
        st = embeddings_args(s, n, &length, args, &padded, err);
        if (st == TS_OK) st = ts_bundle_run(s->bundle, s->bucket, "prefill_embeddings.main", args, 4, outs, err);
    } else {
        padded = calloc((size_t)s->prefill_capacity, sizeof(int32_t));
        if (!padded) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "bundle: out of memory");
        memcpy(padded, prompt, sizeof(int32_t) * n);
        args[0] = arg_i32("tokens", padded, 1, s->prefill_capacity), args[1] = arg_i32("length", &length, 0, 0);
        st = ts_bundle_run(s->bundle, s->bucket, "prefill.main", args, 2, outs, err);
    }
    if (st == TS_OK) {
        memcpy(logits, outs[0], sizeof(float) * (size_t)s->vocab);
        memcpy(s->k, outs[1], sizeof(float) * slot_floats(s));
        memcpy(s->v, outs[2], sizeof(float) * slot_floats(s));
        s->length = (int64_t)n;
    }
    free(padded);
    return st;
}

static ts_status bundle_decode(void *self, int32_t id, float *logits, ts_error *err)
{
    bundle_step *s = self;
    s->tokens[0] = id;
    for (int r = 0; r < s->position_rows; r++) s->positions[r * s->slots] = (int32_t)s->length;
    s->cache_len[0] = (int32_t)s->length;
    int64_t kd[5] = {s->slots, s->layers, s->capacity, s->kv_heads, s->head_dim};
    ts_tensor_arg positions = arg_i32("positions", s->positions, 1, s->slots);
    if (s->position_rows == 3) {
        positions.rank = 2, positions.dims[0] = 3, positions.dims[1] = s->slots;
        positions.n_bytes = sizeof(int32_t) * (size_t)(3 * s->slots);
    }
    ts_tensor_arg args[6] = {arg_i32("tokens", s->tokens, 1, s->slots), positions,
                             arg_i32("rope_delta", s->delta, 1, s->slots), arg_i32("cache_len", s->cache_len, 1, s->slots)};
    for (int i = 0; i < 2; i++) {
        ts_tensor_arg *a = &args[4 + i];
        *a = (ts_tensor_arg){.name = i ? "v" : "k", .dtype = TS_DTYPE_F32, .rank = 5, .data = i ? s->v : s->k};
        memcpy(a->dims, kd, sizeof(kd));
        a->n_bytes = sizeof(float) * slot_floats(s) * (size_t)s->slots;
    }
    const void *outs[3];
    ts_status st = ts_bundle_run(s->bundle, s->bucket, "decode.main", args, 6, outs, err);
    if (st != TS_OK) return st;
    memcpy(logits, outs[0], sizeof(float) * (size_t)s->vocab);
    memcpy(s->k, outs[1], sizeof(float) * slot_floats(s) * (size_t)s->slots);
    memcpy(s->v, outs[2], sizeof(float) * slot_floats(s) * (size_t)s->slots);
    s->length++;
    return TS_OK;
}

static bool bundle_full(void *self)
{
    bundle_step *s = self;
    return s->length >= s->capacity;
}

static ts_status generate(bundle_step *base, const int32_t *prompt, size_t n, const ts_generate_params *params, int32_t rope_delta,
                          ts_generation *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    bundle_step s = *base;
    ts_bundle *bundle = s.bundle;
    ts_status st = ts_bundle_admit(bundle, (int64_t)n, params->max_tokens, &s.bucket, err);
    if (st != TS_OK) return st;
    ts_bundle_bucket(bundle, s.bucket, &s.capacity, &s.prefill_capacity, &s.slots);
    st = ts_bundle_kv_shape(bundle, &s.vocab, &s.layers, &s.kv_heads, &s.head_dim, err);
    if (st != TS_OK) return st;
    size_t cache = slot_floats(&s) * (size_t)s.slots;
    s.k = calloc(cache, sizeof(float));
    s.v = calloc(cache, sizeof(float));
    s.tokens = calloc((size_t)s.slots, sizeof(int32_t));
    s.position_rows = ts_bundle_position_rows(bundle);
    s.positions = calloc((size_t)(3 * s.slots), sizeof(int32_t));
    s.delta = calloc((size_t)s.slots, sizeof(int32_t));
    s.cache_len = calloc((size_t)s.slots, sizeof(int32_t));
    if (!s.k || !s.v || !s.tokens || !s.positions || !s.delta || !s.cache_len)
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "bundle: cannot allocate the KV caches (%zu bytes)", 2 * cache * sizeof(float));
    if (st == TS_OK) s.delta[0] = rope_delta;
    ts_step_backend backend = {&s, s.vocab, bundle_prefill, bundle_decode, bundle_full};
    if (st == TS_OK) st = ts_generate_backend(&backend, prompt, n, params, out, err);
    free(s.k), free(s.v), free(s.tokens), free(s.positions), free(s.delta), free(s.cache_len);
    return st;
}

ts_status ts_bundle_generate(ts_bundle *bundle, const int32_t *prompt, size_t n, const ts_generate_params *params,
                             ts_generation *out, ts_error *err)
{
    bundle_step s = {.bundle = bundle};
    return generate(&s, prompt, n, params, 0, out, err);
}

ts_status ts_bundle_generate_images(ts_bundle *bundle, ts_model *model, const int32_t *prompt, size_t n, const ts_pixel_values *images,
                                    int n_images, const ts_generate_params *params, ts_generation *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    ts_vision *v = ts_model_vision(model);
    if (!v) return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: images are not supported for this model", ts_family_name(ts_model_get_config(model)->family));
    int64_t hidden = ts_model_get_config(model)->text.hidden_size, rows = 0, delta = 0;
    float *image = NULL, *inputs = malloc(sizeof(float) * (n ? n : 1) * (size_t)hidden);
    int32_t *positions = malloc(sizeof(int32_t) * 3 * (n ? n : 1));
    ts_status st = inputs && positions ? TS_OK : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "bundle: out of memory");
    if (st == TS_OK) st = ts_bundle_encode_images(bundle, images, n_images, &image, &rows, err);
    if (st == TS_OK) st = ts_vision_assemble(v, model, prompt, n, images, n_images, image, rows, inputs, positions, &delta, err);
    if (st == TS_OK && (ts_bundle_position_rows(bundle) == 3) != ts_vision_mrope(v))
        st = ts_error_set(err, TS_ERR_FORMAT, "bundle: its position mode does not match the model's");
    bundle_step s = {.bundle = bundle, .embeddings = inputs, .embedding_positions = positions, .hidden = hidden};
    if (st == TS_OK) st = generate(&s, prompt, n, params, (int32_t)delta, out, err);
    free(image), free(inputs), free(positions);
    return st;
}
