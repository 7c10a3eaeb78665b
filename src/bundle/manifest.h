/* manifest.h — a bundle's manifest.json: what the modules are, for which model, with which shapes.
 *
 * The manifest names the ABI version, family, a SHA-256 of config.json, the weight schema (name,
 * dtype, shape, argument index — weights are arguments, referenced by name, never copied), the
 * dtype policy, the capacity buckets, position mode, mask mode, KV layout, and for every entry
 * of every bucket its module file and argument/result descriptors; optionally the tower's
 * vision.main entries (patch, temporal and merge sizes, width, depth, output width, its own weight
 * schema, one module per patch bucket). A model whose config declares DeepStack layers adds a
 * `deepstack` object (its target layers, fixed: never a runtime argument), each bucket's static
 * maximum of image rows `visual_capacity` (Nv_max = Lp) and a fourth entry per bucket,
 * prefill_embeddings_deepstack.main; without DeepStack the manifest has none of these and is
 * byte-identical to what it was before they existed. A bundle exported with a draft width K
 * (speculative decoding) adds a versioned `decode_k` object (K, fixed at export) and per bucket the
 * entry decode_k.main (K rows per slot verified in one call; models/decoder_entries.c); without
 * one the manifest has neither. Optional entries are a list (ts_manifest_entries): each bucket
 * holds the ordinary three, then the optional ones the manifest declares, in ts_entry order;
 * module order follows that list. A bundle exported with --portable adds a
 * `portable` object (bundle/portable.h: the artifacts' target version, serializer and digests); a
 * quantized one a `quantization` object (versioned: per matrix its bits, block, scale dtype, zero
 * points, and the file in the bundle that holds the integer tensors; bundle/bundle_quant.h); one
 * whose schema names weights no checkpoint holds (a family's derived parts, LoRA stacks) a
 * `bundle_weights` object (their names and the bundle's file that holds them); one served with
 * LoRA adapters an `adapters` object (names by index: the `adapters` input's values); one with
 * an audio encoder exported an `audio` object (audio.main per duration bucket).
 * `identity` is a SHA-256 over
 * the manifest without that field and over every module text, in manifest order, so any drift
 * in shapes, config or module text is caught before execution. The manifest is built from the
 * entry graphs themselves, so descriptors cannot disagree with the modules they describe.
 */
#ifndef TS_BUNDLE_MANIFEST_H
#define TS_BUNDLE_MANIFEST_H

#include "graph/graph.h"
#include "models/decoder_entries.h"

#define TS_BUNDLE_ABI_VERSION 1
#define TS_BUNDLE_MAX_BUCKETS 16
/* Modules of a bundle at most: every bucket's entries, then the vision buckets, then the audio
 * buckets. */
#define TS_BUNDLE_MAX_MODULES (TS_BUNDLE_MAX_BUCKETS * (TS_ENTRY_COUNT + 2))

typedef struct ts_bucket {
    int64_t capacity, prefill_capacity, slots;
} ts_bucket;

/* An argument or result of an entry. */
typedef struct ts_descriptor {
    char name[128];
    char role[8]; /* "weight", "input", "state", "result" */
    ts_type type;
} ts_descriptor;

typedef struct ts_entry_descriptors {
    char file[64]; /* module path relative to the bundle */
    ts_descriptor *inputs; /* arguments after the weights */
    int n_inputs;
    ts_descriptor *results;
    int n_results;
} ts_entry_descriptors;

/* The image tower's entries (vision.main), one per patch-count bucket, with its own weights. */
typedef struct ts_vision_manifest {
    char layout[32]; /* a ts_vision_layout's name: "patch_rows", "patch_rows_windowed",
                        "patch_rows_deepstack", "fixed_image" or "hd_views" (models/vision_entry.c) */
    int n_buckets;
    int64_t patches[TS_BUNDLE_MAX_BUCKETS];
    ts_entry_descriptors entries[TS_BUNDLE_MAX_BUCKETS];
    ts_descriptor *weights;
    int n_weights;
    int64_t patch_size, temporal_patch_size, merge_size, width, depth, out_hidden;
    /* patch_rows_deepstack only (else 0): K, the DeepStack levels of the deepstack result, and the
     * rows of the learned position table (pos_index's range; its side is ⌊√rows⌋). */
    int deepstack_levels;
    int64_t position_embeddings;
    int64_t window; /* patch_rows_windowed only (else 0): merge units per window side */
    int64_t view_patches; /* hd_views only (else 0): the (S/P)² patches of one view; a bucket
                             holds patches / view_patches views */
} ts_vision_manifest;

/* The audio encoder's entries (audio.main, versioned `audio` object), one per duration bucket of
 * `frames` feature frames, with their own weight schema: audio_features f32[frames, mels],
 * frames i32[] (the clip's, 1 … frames; shorter clips zero-padded, masked in the module) and
 * projector i32[] (an index into `projectors`, the names of the projections the module holds;
 * version 2) → audio_embeds f32[tokens, hidden] (the clip's rows first, zero rows after; hidden
 * the language model's). n_buckets 0: no audio entries (no object). */
#define TS_BUNDLE_AUDIO_VERSION 2
#define TS_BUNDLE_MAX_PROJECTORS 4
typedef struct ts_audio_manifest {
    int n_projectors;
    char projectors[TS_BUNDLE_MAX_PROJECTORS][32];
    int n_buckets;
    int64_t frames[TS_BUNDLE_MAX_BUCKETS];
    ts_entry_descriptors entries[TS_BUNDLE_MAX_BUCKETS];
    ts_descriptor *weights;
    int n_weights;
} ts_audio_manifest;

/* `tessera export --portable` (bundle/portable.h): target "" = the bundle has no artifacts. */
typedef struct ts_portable_manifest {
    char target[16];                          /* the StableHLO version the artifacts are written for */
    char producer[64];                        /* the serializer: "StableHLO 1.17.0 (jaxlib 0.10.2)" */
    char sha256[TS_BUNDLE_MAX_MODULES][65];   /* per module, in module order */
} ts_portable_manifest;

/* A quantized matrix (`tessera export --quantize`, or a GPTQ/AWQ checkpoint): the float matrix
 * `weight` [out, in] is replaced in every module by the integer weights "<weight>:q<bits>", the
 * scales "<weight>:q<bits>.scale", with zero points "<weight>:q<bits>.zero" and, in act order
 * (a GPTQ desc_act checkpoint), the channel permutation "<weight>:q<bits>.perm" (i32 [in]: the
 * module gathers x[..., perm] before the linear; q's columns are in that order), each a weight
 * argument (graph/quantize.h's names and layouts, ts_graph_qlinear's math) whose bytes are in the
 * bundle's own file, not the checkpoint. */
typedef struct ts_quant_weight {
    char weight[128];
    int bits;            /* 8: i8 [out, in]; 4: ui8 [out, in/2], two 4-bit values (0…15) per byte */
    int64_t block;       /* input channels per scale (and zero point) */
    ts_dtype scale_dtype;
    bool zero_points;    /* false: 0 for 8-bit, 8 for 4-bit */
    bool act_order;      /* a "<weight>:q<bits>.perm" argument ("act_order": true, absent when false) */
    int64_t out, in;
} ts_quant_weight;

#define TS_BUNDLE_QUANT_VERSION 1
/* The math the quantization object states (printed in it, for readers of the file). */
#define TS_BUNDLE_QUANT_RULE                                                                                                     \
    "w[o, i] = (q[o, i] - zero[o, i / block]) * scale[o, i / block] in f32, then x . w^T; 8-bit: q i8 [out, in]; 4-bit: q ui8 "  \
    "[out, in / 2], input channel 2j in the low nibble and 2j + 1 in the high one, values 0..15; zero i8 [out, in / block], "    \
    "absent: 0 (8-bit) or 8 (4-bit); scale [out, in / block]; act_order: x[..., perm] takes x's place (perm i32 [in], q's "    \
    "columns in that order); every module dequantizes in the graph (tessera.qlinear's decomposition)"

/* `quantization` in the file; version 0 = the bundle has no quantized weights (then the manifest
 * has no such object and is byte-identical to what it was before it existed). */
typedef struct ts_quant_manifest {
    int version;
    char method[16]; /* "q8", "q4" (quantized at export), "gptq", "awq" (as the checkpoint packs them) */
    char file[64];   /* the quantized tensors, a safetensors file in the bundle */
    ts_quant_weight *weights;
    int n_weights;
} ts_quant_manifest;

/* `bundle_weights` (versioned): weights no checkpoint holds by name, whose bytes are in a
 * safetensors file of the bundle — the parts a family derives at load (Phi-4-multimodal's
 * q/k/v and gate/up rows of its fused projections, stacked MoE experts) and the stacked
 * LoRA adapters. version 0 = none (then the manifest has no such object and is byte-identical to
 * what it was before it existed). bundle/bundle_tensors.h writes and checks them. */
#define TS_BUNDLE_TENSORS_VERSION 1
#define TS_BUNDLE_TENSORS_FILE "weights.safetensors"
typedef struct ts_tensors_manifest {
    int version;
    char file[64];
    char (*names)[128]; /* schema weights (language model's or vision.main's), n of them */
    int n;
} ts_tensors_manifest;

/* `adapters` (versioned): the LoRA adapters every language entry serves per row, selected by
 * the input `adapters` (index into names; 0 = "none"), their stacks weights of the schema
 * (`….lora_A` [K, R, in], `….lora_B` [K, out, R], `lora.scale` [K]) held in bundle_weights'
 * file. n 0 = no adapters (no object, no `adapters` input). */
#define TS_BUNDLE_ADAPTERS_VERSION 1
#define TS_BUNDLE_MAX_ADAPTERS 16
typedef struct ts_adapter_manifest {
    int n;
    char names[TS_BUNDLE_MAX_ADAPTERS][32];
} ts_adapter_manifest;

typedef struct ts_manifest {
    int abi_version;
    char family[32];
    char config_digest[65];
    ts_descriptor *weights; /* argument order */
    int n_weights;
    char compute[8];  /* dtype policy: "f32" */
    char kv_dtype[8]; /* "f32" */
    ts_bucket buckets[TS_BUNDLE_MAX_BUCKETS];
    int n_buckets;
    char position_mode[24]; /* "1d", "mrope", "mrope_interleaved" */
    int mrope_section[3];
    ts_entry_descriptors entries[TS_BUNDLE_MAX_BUCKETS][TS_ENTRY_COUNT];
    /* decode_k.main's rows per slot K (`decode_k.k` in the file); 0 = the bundle has no such entry. */
    int64_t draft_width;
    /* DeepStack: n_deepstack 0 = none (then only the TS_ENTRY_ORDINARY entries exist). */
    int n_deepstack;
    int32_t deepstack_layers[TS_MAX_DEEPSTACK];           /* ascending */
    int64_t visual_capacity[TS_BUNDLE_MAX_BUCKETS];      /* Nv_max per bucket */
    /* prefill_embeddings.main's bias carries bidirectional image blocks (each image's tokens
     * see the whole image): mask.image_blocks in the file, and ts_bundle_side_inputs says
     * TS_SIDE_ATTENTION_BIAS. */
    bool image_blocks;
    /* The host's token rows for prefill_embeddings.main are embed_tokens × embed_scale (e.g.
     * √hidden, in f32); 0 = unscaled. embeddings.scale in the file, only when set. */
    double embed_scale;
    ts_vision_manifest vision; /* n_buckets 0: no image entries */
    ts_audio_manifest audio;   /* n_buckets 0: no audio entries */
    ts_portable_manifest portable;
    ts_quant_manifest quant;
    ts_tensors_manifest tensors;
    ts_adapter_manifest adapters;
    char identity[65];
} ts_manifest;

/* The version of the decode_k object this build writes and reads. */
#define TS_BUNDLE_DECODE_K_VERSION 1

/* Every bucket's entries, in module order: the TS_ENTRY_ORDINARY three, then the optional ones
 * the manifest declares (DeepStack's, decode_k.main). Returns how many (≤ TS_ENTRY_COUNT). */
int ts_manifest_entries(const ts_manifest *m, ts_entry out[TS_ENTRY_COUNT]);
int ts_manifest_entry_count(const ts_manifest *m);
/* Whether the bundle's buckets hold the entry. */
bool ts_manifest_has_entry(const ts_manifest *m, ts_entry e);
/* Module texts of a manifest: every bucket's entries, then the vision buckets, then the audio
 * buckets. */
int ts_manifest_module_count(const ts_manifest *m);
const char *ts_manifest_module_file(const ts_manifest *m, int i);

void ts_manifest_fini(ts_manifest *m);
/* Descriptors of one entry graph: its weights (first bucket only: all entries share them), inputs
 * and results. The weight schema of later entries must equal the first's. */
ts_status ts_manifest_add_entry(ts_manifest *m, int bucket, ts_entry entry, const ts_graph *g, const char *file,
                                ts_error *err);
/* Descriptors of one vision.main graph (its own weight schema, shared by its buckets). */
ts_status ts_manifest_add_vision_entry(ts_manifest *m, int bucket, const ts_graph *g, const char *file, ts_error *err);
/* Descriptors of one audio.main graph (its own weight schema, shared by its buckets). */
ts_status ts_manifest_add_audio_entry(ts_manifest *m, int bucket, const ts_graph *g, const char *file, ts_error *err);
/* Manifest JSON with its identity over the given module texts (ts_manifest_module_count of them,
 * in that order). Owned text (free). */
ts_status ts_manifest_write(ts_manifest *m, const char *const *module_texts, char **json, ts_error *err);
/* Parses manifest.json; the identity is read, not checked (ts_manifest_check_identity does). */
ts_status ts_manifest_read(const char *json, size_t len, const char *origin, ts_manifest *m, ts_error *err);
/* Recomputes the identity over m and the module texts; an error names both hashes. */
ts_status ts_manifest_check_identity(const ts_manifest *m, const char *const *module_texts, ts_error *err);
/* Descriptor equality with a graph's parameter/result; the error names the field. */
ts_status ts_descriptor_check(const ts_descriptor *d, const ts_type *actual, const char *what, ts_error *err);
const char *ts_type_string(const ts_type *t, char *buf, size_t cap);

#endif
