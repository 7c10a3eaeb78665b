/* bundle.h — the bundle runtime beneath the public bundle API: entry calls, admission, and the
 * geometry the slots and the generation loop read.
 *
 * Internal: library users run a bundle through ts_bundle_generate(_images) or its
 * ts_bundle_slots (tessera.h); the entry-level calls here are how those are built
 * (bundle_slots.c, bundle_generate.c) and how the unit tests hold each entry to its manifest.
 * Every call validates its arguments against the manifest here and again inside the entry
 * (bundle.c), so a caller that bypasses one layer still meets the other.
 */
#ifndef TS_BUNDLE_BUNDLE_H
#define TS_BUNDLE_BUNDLE_H

#include "tessera.h"

/* Admission: the smallest bucket whose prefill capacity holds the (expanded) prompt and whose
 * capacity holds prompt + max_new_tokens; otherwise TS_ERR_RANGE with the numbers. Never
 * truncates. */
ts_status ts_bundle_admit(const ts_bundle *bundle, int64_t prompt_tokens, int64_t max_new_tokens, int *bucket,
                          ts_error *err);

/* One argument of an entry call: name and type must match the manifest's descriptor. */
typedef struct ts_tensor_arg {
    const char *name;
    ts_dtype dtype;
    int rank;
    int64_t dims[TS_MAX_DIMS];
    const void *data;
    size_t n_bytes;
} ts_tensor_arg;

/* Runs entry ("prefill.main", …) of a bucket with the non-weight arguments in manifest order.
 * Arguments are validated (name, dtype, shape, byte length, value ranges) here and again by the
 * entry before it computes. outputs[k]: borrowed, valid until the next call on this bundle.
 * decode.main's k and v are donated (tf.aliasing_output in the module): the call writes the new
 * caches into the buffers given as k and v (writable, sharing no byte with another argument),
 * and outputs[1], outputs[2] are those buffers. */
ts_status ts_bundle_run(ts_bundle *bundle, int bucket, const char *entry, const ts_tensor_arg *args, int n_args,
                        const void **outputs, ts_error *err);
/* Vocabulary and per-sequence KV cache geometry, from the manifest. */
ts_status ts_bundle_kv_shape(const ts_bundle *bundle, int64_t *vocab, int64_t *layers, int64_t *kv_heads,
                             int64_t *head_dim, ts_error *err);
/* One vision.main call on vision bucket `bucket` with the non-weight arguments in manifest order
 * (the layout's: e.g. pixel_values, positions, segments[, windows, window_index | pos_index,
 * pos_weight], count), validated against the manifest with their values (the layout's checks),
 * then against the module with the values again (see src/models/vision_entry.c for the layouts
 * and their padding). outputs borrowed. */
ts_status ts_bundle_run_vision(ts_bundle *bundle, int bucket, const ts_tensor_arg *args, int n_args, const void **outputs,
                               ts_error *err);

/* One audio.main call on audio bucket `bucket`: audio_features f32[frames_b, mels] (a shorter
 * clip zero-padded) and frames i32[] (the clip's, 1 … frames_b), validated against the manifest
 * with their values, then against the module; outputs[0] the rows f32[tokens_b, hidden], the
 * clip's first (borrowed, valid until the next call). ts_bundle_audio_buckets: how many buckets,
 * and their feature frames ascending. */
ts_status ts_bundle_run_audio(ts_bundle *bundle, int bucket, const ts_tensor_arg *args, int n_args, const void **outputs,
                              ts_error *err);
int ts_bundle_audio_buckets(const ts_bundle *bundle, const int64_t **frames);

/* A bucket's slots: how many, tokens per slot, and the longest prompt one prefill takes (the
 * bucket's numbers, as ts_bundle_bucket gives them). */
int ts_bundle_slots_count(const ts_bundle_slots *slots);
int64_t ts_bundle_slots_capacity(const ts_bundle_slots *slots);
int64_t ts_bundle_slots_prefill_capacity(const ts_bundle_slots *slots);

/* The bundle's geometry the slots and the generation loop read. */
/* Rows of the positions arguments: 1, or 3 (t, h, w) for M-RoPE models. */
int ts_bundle_position_rows(const ts_bundle *bundle);
/* decode_k.main's rows per slot K (the manifest's decode_k.k), 0 when the bundle has none. */
int64_t ts_bundle_draft_width(const ts_bundle *bundle);
/* LoRA (the manifest's adapters object): how many adapters the entries serve per row, "none"
 * at 0 included (0 when the bundle has none, then no entry takes `adapters`), and the index of
 * adapter `name` (NULL or "none": 0; -1 when the bundle has no such adapter). */
int ts_bundle_adapter_count(const ts_bundle *bundle);
int ts_bundle_adapter_index(const ts_bundle *bundle, const char *name);
/* The adapter slot `slot`'s rows use from its next prefill on (index from
 * ts_bundle_adapter_index; 0 = none, the default and what a reset returns to). Refused when the
 * bundle has no such adapter (naming it and how many it has) or the slot already holds a
 * sequence (its rows were computed with another). */
ts_status ts_bundle_slots_set_adapter(ts_bundle_slots *slots, int slot, int adapter, ts_error *err);

/* A bucket's static maximum of DeepStack image rows Nv_max: its prefill capacity when the bundle
 * has prefill_embeddings_deepstack.main, else 0. */
int64_t ts_bundle_visual_capacity(const ts_bundle *bundle, int bucket);

#endif
