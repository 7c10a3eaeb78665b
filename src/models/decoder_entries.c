/* decoder_entries.c — the bundle entries of a decoder model (versioned contracts, static shapes):
 *
 *   prefill.main(weights…, tokens i32[Lp], length i32[])
 *       → (last_logits f32[V], k f32[layers, C, Hkv, D], v f32[layers, C, Hkv, D])
 *   prefill_embeddings.main(weights…, embeddings f32[Lp, H], positions i32[Lp] (i32[3, Lp] under
 *                           M-RoPE), bias f32[Lp, Lp], length i32[]) → the same three results
 *   decode.main(weights…, tokens i32[B], positions i32[B] (i32[3, B] under M-RoPE),
 *               rope_delta i32[B], cache_len i32[B],
 *               k f32[B, layers, C, Hkv, D], v f32[B, layers, C, Hkv, D])
 *       → (logits f32[B, V], k, v)
 *   prefill_embeddings_deepstack.main(weights…, embeddings, positions, bias, length (as
 *                           prefill_embeddings.main), visual_positions i32[Nv_max],
 *                           layer_features f32[K, Nv_max, H], visual_count i32[])
 *       → the same three results (only for a spec that declares DeepStack)
 *   decode_k.main(weights…, tokens i32[B, K], positions i32[B, K] (i32[3, B, K] under M-RoPE),
 *               rope_delta i32[B], cache_len i32[B], k, v (as decode.main))
 *       → (logits f32[B, K, V], k, v)  (only for a bundle exported with a draft width K)
 *
 * LoRA (a model served with adapters: spec->lora_adapters = K > 0, the manifest's `adapters`
 * object): every entry also takes `adapters` i32, one adapter index 0 … K−1 per row in the
 * tokens' shape ([Lp] for the prefill entries, [B] for decode.main, [B, K] for decode_k.main),
 * right after `length` (prefill entries) or `cache_len` (decode entries); each dense projection
 * is a tessera.lora_linear over the stacked `….lora_A`, `….lora_B` and `lora.scale` weights
 * (index 0 = none: exactly the base projection's values). Selecting an adapter is an argument,
 * never another module.
 *
 * prefill_embeddings.main's bias is one slot's 4-D additive mask [1, 1, Lp, Lp] (transformers'
 * [batch, heads, q, k]) with the batch and head dims dropped: a batch of slots is one call per
 * slot, each with its own prompt's bias (a per-slot [B, 1, Lp, Lp] stack is never formed). With
 * image blocks it is causal OR each image's tokens seeing the whole image (manifest mask.image_blocks);
 * local layers add their sliding window to it in the graph. A prompt goes in one call (the
 * bucket's prefill capacity), so the bias is never sliced here.
 *
 * Prefill attends causally (prefill) or through the additive bias only (prefill_embeddings) over
 * its own Lp keys; rows at or past `length` are padding: they are zero in the returned caches and
 * never reach last_logits (the row length − 1). Decode writes slot b's new key and value at row
 * cache_len[b] of its cache and attends causally over rows 0 … cache_len[b]; its rotary position
 * is positions[b] + rope_delta[b]. decode.main's k and v arguments are donated to its k and v
 * results (tf.aliasing_output = 1 and 2): a runtime may update the caches in place, one row per
 * slot and layer per step, and the caller reads the new caches from the buffers it passed. The
 * layer stack is the one the CPU step uses (ts_decoder_layers): only how attention reaches its keys
 * differs.
 *
 * decode_k.main is decode.main over K rows per slot (speculative verification: the pending token
 * and K-1 drafts): slot b's rows go to cache rows cache_len[b] … cache_len[b]+K-1 (so
 * cache_len[b] ≤ C-K, checked by the runtime: the row update never clamps), and row j attends
 * causally over rows 0 … cache_len[b]+j, so it never reads a row past its own, whatever an earlier
 * call left there. A slot with fewer drafts fills its trailing rows with any tokens: they are
 * written past the accepted length, read by no valid row, and overwritten by later calls; their
 * logits are ignored. Rolling back is the runtime's bookkeeping (the slot's length), never a
 * module's. With K = 1 the graph is decode.main's, op for op.
 *
 * DeepStack (tower rows added after chosen layers): after decoder layer spec->deepstack_layers[i] (i < K, the layers fixed by
 * the config and written in the manifest, never an argument) layer_features[i][j] is added to row
 * visual_positions[j] for j < visual_count. Nv_max = Lp (ts_entry_visual_capacity), a static
 * bound per bucket. Entries j ≥ visual_count are padding: the documented filler is position 0 with
 * all-zero features, the runtime refuses anything else, and the graph masks those feature rows to
 * zero as well, so padding adds exactly 0 to row 0 (never an out-of-range scatter).
 */
#include "models/decoder_entries.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ts_value scalar_of(ts_graph *g, ts_value v, int64_t i)
{
    int64_t s = i, l = i + 1;
    return ts_graph_reshape(g, ts_graph_slice(g, v, &s, &l, NULL), 0, NULL);
}

static ts_value zeros(ts_graph *g, const ts_type *t)
{
    return ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, 0.0f), t->rank, t->dims, NULL);
}

/* LoRA (spec->lora_adapters > 0): the input `adapters`, one adapter index per row in the
 * tokens' shape (prefill: [Lp], decode: [B], decode_k: [B, K]), flattened to the rows the layer
 * stack runs (each projection's tessera.lora_linear takes it). The weights' decoder reads it from
 * w->adapters; without LoRA nothing is declared and the entries are exactly the plain ones. */
static void adapters_input(ts_graph *g, const ts_decoder_spec *spec, ts_decoder_weights *w, int rank, const int64_t *dims)
{
    if (spec->lora_adapters < 1) return;
    ts_value a = ts_graph_parameter(g, "adapters", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, rank, dims));
    int64_t n = 1;
    for (int i = 0; i < rank; i++) n *= dims[i];
    w->adapters = rank == 1 ? a : ts_graph_reshape(g, a, 1, &n);
}

/* ---------------------------------------------------------------- prefill */

typedef struct {
    const ts_decoder_spec *spec;
    ts_value bias;   /* TS_NO_VALUE: causal */
    ts_value length; /* i32[] */
    int64_t lp, capacity;
    ts_value *k_layers, *v_layers; /* [layers] of [C, Hkv, D] */
} prefill_attend;

/* Zero rows ≥ length, then pad Lp → C rows. */
static ts_value cache_rows(ts_graph *g, ts_value x, ts_value length, int64_t lp, int64_t capacity)
{
    const ts_type t = *ts_graph_type(g, x);
    ts_type it = ts_type_make(TS_DTYPE_I32, 3, t.dims);
    ts_value row = ts_graph_iota(g, it, 0);
    ts_value len = ts_graph_broadcast_in_dim(g, length, 3, t.dims, NULL);
    ts_value keep = ts_graph_compare(g, TS_COMPARE_LT, row, len);
    x = ts_graph_select(g, keep, x, zeros(g, &t));
    if (capacity == lp) return x;
    int64_t low[3] = {0, 0, 0}, high[3] = {capacity - lp, 0, 0};
    return ts_graph_pad(g, x, ts_graph_constant_f32(g, 0.0f), low, high, NULL);
}

static ts_value prefill_attention(void *self, ts_graph *g, int l, ts_value q, ts_value k, ts_value v)
{
    prefill_attend *a = self;
    a->k_layers[l] = cache_rows(g, k, a->length, a->lp, a->capacity);
    a->v_layers[l] = cache_rows(g, v, a->length, a->lp, a->capacity);
    ts_value start = a->bias == TS_NO_VALUE ? ts_graph_constant_i32(g, 0) : TS_NO_VALUE;
    ts_value window_start = a->spec->local_layer[l] ? ts_graph_constant_i32(g, 0) : TS_NO_VALUE;
    return ts_decoder_attention(g, a->spec, l, q, k, v, a->bias, start, window_start);
}

/* [C, Hkv, D] × layers → [layers, C, Hkv, D] */
static ts_value stack_layers(ts_graph *g, const ts_value *layers, int64_t n, int64_t c, int64_t h, int64_t d)
{
    ts_value *parts = malloc(sizeof(ts_value) * (size_t)n);
    if (!parts) return TS_NO_VALUE;
    int64_t one[4] = {1, c, h, d};
    for (int64_t l = 0; l < n; l++) parts[l] = ts_graph_reshape(g, layers[l], 4, one);
    ts_value out = ts_graph_concatenate(g, parts, (int)n, 0);
    free(parts);
    return out;
}

/* visual_positions, layer_features and visual_count of the DeepStack entry; feature rows at or
 * past visual_count are zeroed (see the top of this file). */
static ts_decoder_deepstack deepstack_inputs(ts_graph *g, const ts_decoder_spec *spec, int64_t nv)
{
    int64_t fd[3] = {spec->n_deepstack, nv, spec->hidden};
    ts_type ft = ts_type_make(TS_DTYPE_F32, 3, fd);
    ts_value positions = ts_graph_parameter(g, "visual_positions", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 1, &nv));
    ts_value features = ts_graph_parameter(g, "layer_features", TS_PARAM_INPUT, ft);
    ts_value count = ts_graph_parameter(g, "visual_count", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 0, NULL));
    ts_value row = ts_graph_iota(g, ts_type_make(TS_DTYPE_I32, 3, fd), 1);
    ts_value keep = ts_graph_compare(g, TS_COMPARE_LT, row, ts_graph_broadcast_in_dim(g, count, 3, fd, NULL));
    return (ts_decoder_deepstack){positions, ts_graph_select(g, keep, features, zeros(g, &ft))};
}

static ts_status build_prefill(ts_graph *g, const ts_decoder_spec *spec, ts_decoder_weights *w,
                               const ts_entry_shape *shape, bool from_embeddings, bool deepstack, ts_error *err)
{
    int64_t lp = shape->prefill_capacity, c = shape->capacity;
    ts_graph_set_stage(g, "inputs");
    ts_value h, positions, bias = TS_NO_VALUE;
    int64_t pd[2] = {3, lp};
    ts_type pos_type = spec->mrope ? ts_type_make(TS_DTYPE_I32, 2, pd) : ts_type_make(TS_DTYPE_I32, 1, &lp);
    if (from_embeddings) {
        int64_t ed[2] = {lp, spec->hidden}, bd[2] = {lp, lp};
        h = ts_graph_parameter(g, "embeddings", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_F32, 2, ed));
        positions = ts_graph_parameter(g, "positions", TS_PARAM_INPUT, pos_type);
        bias = ts_graph_parameter(g, "bias", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_F32, 2, bd));
    } else {
        ts_value tokens = ts_graph_parameter(g, "tokens", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 1, &lp));
        /* Token prefill is text: 0 … Lp-1, on all three M-RoPE axes. */
        positions = ts_graph_iota(g, pos_type, pos_type.rank - 1);
        ts_graph_set_stage(g, "embed_tokens");
        h = ts_decoder_embed(g, spec, w, tokens);
    }
    ts_value length = ts_graph_parameter(g, "length", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 0, NULL));
    adapters_input(g, spec, w, 1, &lp);
    ts_decoder_deepstack ds = {TS_NO_VALUE, TS_NO_VALUE};
    if (deepstack) ds = deepstack_inputs(g, spec, ts_entry_visual_capacity(shape));
    ts_graph_set_stage(g, "rope");
    ts_value cos[2], sin[2];
    ts_decoder_rope_tables(g, spec, positions, cos, sin);
    ts_value *kv = malloc(sizeof(ts_value) * (size_t)(2 * spec->layers));
    if (!kv) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "decoder: out of memory");
    prefill_attend pa = {spec, bias, length, lp, c, kv, kv + spec->layers};
    ts_decoder_attend attend = {prefill_attention, &pa};
    h = deepstack ? ts_decoder_layers_deepstack(g, spec, w, h, cos, sin, &attend, &ds, NULL)
                  : ts_decoder_layers(g, spec, w, h, cos, sin, &attend, NULL);
    ts_graph_set_stage(g, "last_token");
    ts_value last_row = ts_graph_binary(g, TS_OP_SUBTRACT, length, ts_graph_constant_i32(g, 1));
    int64_t size[2] = {1, spec->hidden};
    ts_value last = ts_graph_dynamic_slice(g, h, (ts_value[]){last_row, ts_graph_constant_i32(g, 0)}, size);
    ts_value logits = ts_graph_reshape(g, ts_decoder_logits(g, spec, w, last), 1, &spec->vocab);
    ts_graph_set_stage(g, "kv");
    ts_value outs[3] = {logits, stack_layers(g, pa.k_layers, spec->layers, c, spec->kv_heads, spec->head_dim),
                        stack_layers(g, pa.v_layers, spec->layers, c, spec->kv_heads, spec->head_dim)};
    ts_graph_set_outputs(g, outs, 3);
    free(kv);
    return ts_graph_status(g, err);
}

/* ---------------------------------------------------------------- decode */

typedef struct {
    const ts_decoder_spec *spec;
    int64_t slots, capacity, rows; /* rows: K per slot (1 for decode.main) */
    ts_value k_all, v_all; /* [B, layers, C, Hkv, D], threaded through the updates */
    ts_value cache_len;    /* i32[B] */
} decode_attend;

static ts_value slot_layer(ts_graph *g, ts_value all, int64_t b, int64_t l, int64_t c, int64_t h, int64_t d)
{
    int64_t start[5] = {b, l, 0, 0, 0}, limit[5] = {b + 1, l + 1, c, h, d}, shape[3] = {c, h, d};
    return ts_graph_reshape(g, ts_graph_slice(g, all, start, limit, NULL), 3, shape);
}

static ts_value decode_attention(void *self, ts_graph *g, int l, ts_value q, ts_value k, ts_value v)
{
    decode_attend *a = self;
    int64_t c = a->capacity, h = a->spec->kv_heads, d = a->spec->head_dim;
    ts_value *outs = malloc(sizeof(ts_value) * (size_t)a->slots);
    if (!outs) return TS_NO_VALUE;
    ts_value zero = ts_graph_constant_i32(g, 0);
    int64_t n = a->rows, row[5] = {1, 1, n, h, d};
    for (int64_t b = 0; b < a->slots; b++) {
        /* The new key and value go straight into row cache_len[b] of the whole cache (one row per
         * step, so a runtime honouring the k/v donation writes only that row); attention reads
         * the slot's layer of the updated cache up to that row. */
        ts_value len = scalar_of(g, a->cache_len, b);
        int64_t s0[3] = {b * n, 0, 0}, s1[3] = {(b + 1) * n, h, d}, q1[3] = {(b + 1) * n, a->spec->q_heads, d};
        ts_value at[5] = {ts_graph_constant_i32(g, (int32_t)b), ts_graph_constant_i32(g, l), len, zero, zero};
        a->k_all = ts_graph_dynamic_update_slice(g, a->k_all, ts_graph_reshape(g, ts_graph_slice(g, k, s0, s1, NULL), 5, row), at);
        a->v_all = ts_graph_dynamic_update_slice(g, a->v_all, ts_graph_reshape(g, ts_graph_slice(g, v, s0, s1, NULL), 5, row), at);
        ts_value kc = slot_layer(g, a->k_all, b, l, c, h, d), vc = slot_layer(g, a->v_all, b, l, c, h, d);
        outs[b] = ts_decoder_attention(g, a->spec, l, ts_graph_slice(g, q, s0, q1, NULL), kc, vc, TS_NO_VALUE, len, len);
    }
    ts_value out = a->slots == 1 ? outs[0] : ts_graph_concatenate(g, outs, (int)a->slots, 0);
    free(outs);
    return out;
}

/* decode.main (rows 1) or decode_k.main (rows K): see the top of this file. */
static ts_status build_decode(ts_graph *g, const ts_decoder_spec *spec, ts_decoder_weights *w,
                              const ts_entry_shape *shape, int64_t rows, ts_error *err)
{
    int64_t b = shape->slots, c = shape->capacity, n = b * rows;
    ts_graph_set_stage(g, "inputs");
    ts_type vec = ts_type_make(TS_DTYPE_I32, 1, &b);
    int64_t pd[2] = {3, n}, td[2] = {b, rows}, pdk[3] = {3, b, rows};
    ts_type tok_type = rows == 1 ? vec : ts_type_make(TS_DTYPE_I32, 2, td);
    ts_type pos_type = !spec->mrope ? tok_type : rows == 1 ? ts_type_make(TS_DTYPE_I32, 2, pd) : ts_type_make(TS_DTYPE_I32, 3, pdk);
    ts_value tokens = ts_graph_parameter(g, "tokens", TS_PARAM_INPUT, tok_type);
    ts_value positions = ts_graph_parameter(g, "positions", TS_PARAM_INPUT, pos_type);
    ts_value delta = ts_graph_parameter(g, "rope_delta", TS_PARAM_INPUT, vec);
    ts_value cache_len = ts_graph_parameter(g, "cache_len", TS_PARAM_INPUT, vec);
    adapters_input(g, spec, w, tok_type.rank, tok_type.dims);
    int64_t kd[5] = {b, spec->layers, c, spec->kv_heads, spec->head_dim};
    ts_type kt = ts_type_make(TS_DTYPE_F32, 5, kd);
    ts_value k_all = ts_graph_parameter(g, "k", TS_PARAM_STATE, kt);
    ts_value v_all = ts_graph_parameter(g, "v", TS_PARAM_STATE, kt);
    ts_graph_set_stage(g, "rope");
    ts_value cos[2], sin[2];
    /* The rotary position is positions + rope_delta, on every M-RoPE axis (and every row of a
     * slot); K rows per slot are flattened slot-major to B·K rows. */
    int64_t slot_dim = spec->mrope ? 1 : 0;
    ts_value delta_b = spec->mrope || rows > 1 ? ts_graph_broadcast_in_dim(g, delta, pos_type.rank, pos_type.dims, &slot_dim) : delta;
    ts_value rotary = ts_graph_binary(g, TS_OP_ADD, positions, delta_b);
    if (rows > 1) {
        tokens = ts_graph_reshape(g, tokens, 1, &n);
        rotary = spec->mrope ? ts_graph_reshape(g, rotary, 2, pd) : ts_graph_reshape(g, rotary, 1, &n);
    }
    ts_decoder_rope_tables(g, spec, rotary, cos, sin);
    ts_graph_set_stage(g, "embed_tokens");
    ts_value h = ts_decoder_embed(g, spec, w, tokens);
    decode_attend da = {spec, b, c, rows, k_all, v_all, cache_len};
    ts_decoder_attend attend = {decode_attention, &da};
    h = ts_decoder_layers(g, spec, w, h, cos, sin, &attend, NULL);
    ts_value logits = ts_decoder_logits(g, spec, w, h);
    int64_t ld[3] = {b, rows, spec->vocab};
    if (rows > 1) logits = ts_graph_reshape(g, logits, 3, ld);
    ts_value outs[3] = {logits, da.k_all, da.v_all};
    ts_graph_set_outputs(g, outs, 3);
    /* The caches are donated: results k and v take the buffers of arguments k and v. */
    ts_graph_alias_output(g, k_all, 1);
    ts_graph_alias_output(g, v_all, 2);
    return ts_graph_status(g, err);
}

const char *ts_entry_name(ts_entry entry)
{
    switch (entry) {
    case TS_ENTRY_PREFILL: return "prefill.main";
    case TS_ENTRY_PREFILL_EMBEDDINGS: return "prefill_embeddings.main";
    case TS_ENTRY_DECODE: return "decode.main";
    case TS_ENTRY_PREFILL_EMBEDDINGS_DEEPSTACK: return "prefill_embeddings_deepstack.main";
    case TS_ENTRY_DECODE_K: return "decode_k.main";
    default: return "?";
    }
}

int64_t ts_entry_visual_capacity(const ts_entry_shape *shape) { return shape->prefill_capacity; }

ts_status ts_decoder_build_entry(ts_graph *g, const ts_decoder_spec *spec, const ts_weight_source *source,
                                 ts_entry entry, const ts_entry_shape *shape, ts_error *err)
{
    /* Entries rotate with the short factors only: exact while no slot passes the pretraining
     * length, which a capacity up to it guarantees. Longer bundles would need the long table and
     * the engine's recompute at the switch (not built for bundles). */
    if (spec->rope_long_after > 0 && shape->capacity > spec->rope_long_after)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "%s: capacity %lld passes original_max_position_embeddings %lld "
                            "(longrope's long factors are not built for bundles; export with a "
                            "context of at most %lld)",
                            ts_entry_name(entry), (long long)shape->capacity,
                            (long long)spec->rope_long_after, (long long)spec->rope_long_after);
    if (shape->capacity < 1 || shape->prefill_capacity < 1 || shape->prefill_capacity > shape->capacity)
        return ts_error_set(err, TS_ERR_RANGE, "%s: prefill capacity %lld must be in 1..capacity (%lld)", ts_entry_name(entry),
                            (long long)shape->prefill_capacity, (long long)shape->capacity);
    if ((entry == TS_ENTRY_DECODE || entry == TS_ENTRY_DECODE_K) && (shape->slots < 1 || shape->slots > TS_MAX_BATCH))
        return ts_error_set(err, TS_ERR_RANGE, "%s: %lld slots (1..%d allowed)", ts_entry_name(entry), (long long)shape->slots, TS_MAX_BATCH);
    if (entry == TS_ENTRY_DECODE_K &&
        (shape->draft_width < 2 || shape->draft_width > TS_ENTRY_MAX_DRAFT_WIDTH || shape->draft_width > shape->capacity))
        return ts_error_set(err, TS_ERR_RANGE, "decode_k.main: draft width %lld (2..%d rows per slot, at most the capacity %lld)",
                            (long long)shape->draft_width, TS_ENTRY_MAX_DRAFT_WIDTH, (long long)shape->capacity);
    if (entry == TS_ENTRY_PREFILL_EMBEDDINGS_DEEPSTACK && (spec->n_deepstack < 1 || spec->n_deepstack > TS_MAX_DEEPSTACK))
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: the model declares no DeepStack layers", ts_entry_name(entry));
    ts_decoder_weights *w = malloc(sizeof(*w));
    if (!w) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "decoder: out of memory");
    ts_status st = ts_decoder_load_weights(g, spec, source, w, err);
    if (st == TS_OK) {
        switch (entry) {
        case TS_ENTRY_PREFILL: st = build_prefill(g, spec, w, shape, false, false, err); break;
        case TS_ENTRY_PREFILL_EMBEDDINGS: st = build_prefill(g, spec, w, shape, true, false, err); break;
        case TS_ENTRY_PREFILL_EMBEDDINGS_DEEPSTACK: st = build_prefill(g, spec, w, shape, true, true, err); break;
        case TS_ENTRY_DECODE: st = build_decode(g, spec, w, shape, 1, err); break;
        case TS_ENTRY_DECODE_K: st = build_decode(g, spec, w, shape, shape->draft_width, err); break;
        default: st = ts_error_set(err, TS_ERR_UNSUPPORTED, "unknown entry %d", (int)entry);
        }
    }
    free(w);
    return st;
}
