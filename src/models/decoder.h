/* decoder.h — the decoder-only language model as a graph (every family's, the text half of every
 * VLM included; the family's descriptor sets the options of ts_decoder_spec), built once per step
 * shape.
 *
 * A step runs B sequences at once: sequence b feeds n_tokens[b] tokens starting at absolute
 * position start[b] of its own KV cache (capacity rows): a prefill chunk, a decode token, or any
 * mix of them (ts_model_step). Rows of all sequences are stacked for the matmuls; attention and
 * the cache write are per sequence. Weights are looked up by their
 * published names through a ts_weight_source and checked (present, shape, dtype) while the
 * graph is built, so a bad checkpoint fails before anything runs, naming the tensor.
 *
 * Parameters, in this order: weights (in the order built), then inputs `tokens` i32[N] (or
 * `embeddings` f32[N, H] for a step from embeddings),
 * `positions` i32[N] (i32[3, N] under M-RoPE), `starts` i32[B], then (only when DeepStack is
 * declared) `visual_positions` i32[Nv] and `layer_features` f32[K, Nv, H], then `bias`
 * f32[n_b, n_b] for each sequence b that declares an attention bias, in sequence order, then (only
 * with LoRA: spec->lora_adapters > 0) `adapters` i32[N], each row's adapter 0 … K−1 (0 = none),
 * then state
 * `k_cache.b.l`, `v_cache.b.l` [C, Hkv, D] (kv_dtype) for b in 0..B-1, l in 0..layers-1 (a local
 * layer's [local_rows, Hkv, D] when the shape sets local_rows: see ts_step_shape).
 * Outputs: logits (f32[N, V] with all_logits, else f32[B, V] for each sequence's last token),
 * then the updated caches in parameter order, then (diagnostic graphs only) hidden_state_0 …
 * hidden_state_layers as f32[N, H]. MoE models add, after those, each layer's router
 * probabilities (the router logits' softmax) as f32[N, experts].
 *
 * DeepStack (Qwen3VLTextModel): after decoder layer spec->deepstack_layers[i] (i < K) the rows
 * visual_positions of the residual stream get layer_features[i] added (a StableHLO scatter with
 * an add region), so every later layer's K/V sees the sum. A step declares it with n_visual ≥ 1
 * (from embeddings; the positions count the rows of all sequences together, so several image
 * prompts share one payload); otherwise the graph is exactly the plain one. The positions
 * must be sorted, unique and inside the step's rows: ts_decoder_check_deepstack says so before a
 * run (a scatter would skip out-of-range rows and add duplicates twice).
 *
 * Attention bias (image tokens that see their whole image; from embeddings): sequence b's `bias`
 * [n_b, n_b] is the additive mask of its rows over its own rows and replaces the causal mask
 * there; keys the cache held before the step (rows < start) stay visible, rows after the step's
 * are hidden, and local layers add their sliding window on top. ts_decoder_check_attention_bias
 * checks the values before a run.
 */
#ifndef TS_MODELS_DECODER_H
#define TS_MODELS_DECODER_H

#include "graph/graph.h"

#define TS_MAX_BATCH 64
#define TS_MAX_DEEPSTACK 16

/* Where weights come from. `find` gets the shape the config implies, so a source may create
 * the tensor (synthetic benchmark models); a checkpoint returns what it has and the builder
 * compares. NULL = absent. */
typedef struct ts_weight_source {
    const ts_tensor_info *(*find)(void *self, const char *name, int rank, const int64_t *dims);
    void *self;
} ts_weight_source;

/* What differs between decoder families; filled from the config by ts_decoder_spec_init. */
typedef struct ts_decoder_spec {
    const char *prefix;      /* "model." */
    const char *lm_head;     /* "lm_head.weight", or NULL when tied to the embeddings */
    int64_t vocab, hidden, layers, q_heads, kv_heads, head_dim, inter;
    int rotary_dim;
    double rms_eps;
    bool qkv_bias;           /* biases on the q/k/v projections */
    bool qk_norm;            /* RMSNorm over head_dim on q and k before rope */
    ts_activation activation;
    float inv_freq[512];     /* rotary_dim/2 entries, computed as the reference does (f32) */
    /* cos and sin × rope_scale (longrope's attention factor; 0 or 1: none), in f32 as the
     * rotary embedding module does. */
    float rope_scale;
    /* > 0: positions a sequence may hold (longrope: max_position_embeddings; ts_sequence_create
     * refuses more). */
    int64_t rope_positions;
    /* longrope (> 0): original_max_position_embeddings. A forward whose rows reach past it (its
     * max position + 1 > rope_long_after) rotates every row with long_inv_freq instead of
     * inv_freq (transformers' longrope_frequency_update); the step marks such sequences
     * (ts_step_shape.rope_long) and the engine recomputes a sequence that crosses it. */
    int64_t rope_long_after;
    float long_inv_freq[512];
    /* M-RoPE: positions are i32[3, N] (t, h, w) and each rotary column takes its angle from one
     * axis: in runs of mrope_section, or interleaved t,h,w,t,h,w… within 3·section
     * (mrope_interleaved). */
    bool mrope;
    int32_t rope_axis[512];
    /* Sparse MoE MLP in every layer when experts > 0: router mlp.gate [E, H],
     * experts mlp.experts.gate_up_proj [E, H, 2·moe_inter] and down_proj [E, moe_inter, H]. */
    int64_t experts, experts_per_token, moe_inter;
    bool norm_topk_prob;
    /* With experts: the layers whose MLP is dense (gate/up/down of inter) instead. */
    bool dense_mlp[256];
    /* Options of decoders with scaled embeddings, offset norms and local layers (all off at
     * 0/false):
     *   embed_scale     token embeddings × this (√hidden), before anything is merged in;
     *   norm_offset     every RMSNorm scales by (offset + weight);
     *   sandwich_norms  post_attention_layernorm on the attention output before the residual add,
     *                   pre_/post_feedforward_layernorm around the MLP;
     *   attn_scale      q·k scale (0: 1/√head_dim); attn_softcap, final_softcap: tanh(x/c)·c;
     *   local_layer[l]  layer l attends only to the sliding_window keys before and at each query,
     *                   with its own rotary table local_inv_freq. */
    double embed_scale, norm_offset, attn_scale, attn_softcap, final_softcap;
    bool sandwich_norms;
    int64_t sliding_window;
    bool local_layer[256];
    double local_rope_theta; /* > 0: local layers' default rotary base (sets local_rope) */
    bool local_rope;
    float local_inv_freq[512];
    /* DeepStack: the layers after which the tower's side features are added at the image rows,
     * ascending (0 … K−1, K = len(deepstack_visual_indexes), as Qwen3VLTextModel does).
     * n_deepstack 0: the model has none. */
    int n_deepstack;
    int32_t deepstack_layers[TS_MAX_DEEPSTACK];
    /* LoRA adapters served per row (engine/lora.h loads them): lora_adapters = K stacked adapters
     * (entry 0 = none), each dense layer's q/k/v/o/gate/up/down becomes tessera.lora_linear over
     * `….lora_A` [K, lora_rank, in] and `….lora_B` [K, out, lora_rank] beside the projection's
     * weight name (without ".weight") and `lora.scale` [K], and the step takes the input
     * `adapters` i32[N] (see ts_decoder_build). 0: no LoRA, the graph is exactly the plain one. */
    int lora_adapters;
    int64_t lora_rank;
} ts_decoder_spec;

/* Whether layer l runs the sparse MoE block; the count of such layers. */
bool ts_decoder_layer_sparse(const ts_decoder_spec *spec, int l);
int ts_decoder_sparse_layers(const ts_decoder_spec *spec);

typedef struct ts_step_shape {
    int n_seqs;
    int64_t n_tokens[TS_MAX_BATCH];
    int64_t capacity; /* rows of every KV cache (of a local layer's too unless local_rows) */
    /* Rows of a local (sliding-window) layer's cache, ≥ sliding_window: a ring that holds position
     * p at row p mod local_rows, masked by the position each row holds (ts_decoder_build).
     * 0: local layers have capacity rows like the global ones and the window is a mask. */
    int64_t local_rows;
    ts_dtype kv_dtype;       /* F32 or BF16 (keys and values rounded when written) */
    bool all_logits;         /* logits for every token, not only each sequence's last */
    bool hidden_states;      /* diagnostic outputs: the residual stream after every layer */
    bool from_embeddings;    /* input `embeddings` f32[N, H] (images merged in) instead of `tokens` */
    int64_t n_visual;        /* DeepStack rows Nv of all sequences (≥ 1 declares it; needs
                                from_embeddings, spec->n_deepstack ≥ 1); 0: not declared */
    bool attention_bias[TS_MAX_BATCH]; /* sequence b has input `bias` f32[n_b, n_b] (needs
                                          from_embeddings) */
    bool rope_long[TS_MAX_BATCH]; /* sequence b's rows rotate with spec->long_inv_freq */
    /* A speculative verify step: every row computed as a plain decode step computes it (the row
     * dots, attention one query at a time), whatever the rows per sequence (ts_cpu.decode_rows). */
    bool decode_rows;
} ts_step_shape;

#define TS_MAX_LAYERS 256

/* Whether layer l's cache is a ring of shape->local_rows rows (a local layer, local_rows > 0). */
bool ts_decoder_layer_ring(const ts_decoder_spec *spec, const ts_step_shape *shape, int l);

/* The projections LoRA may target, in the order of ts_decoder_lora_projection. */
enum { TS_LORA_Q, TS_LORA_K, TS_LORA_V, TS_LORA_O, TS_LORA_GATE, TS_LORA_UP, TS_LORA_DOWN, TS_LORA_PROJS };

/* Projection p of layer l (TS_LORA_*): its weight name (`model.layers.l.self_attn.q_proj.weight`)
 * into name and its [out, in]; false when p is out of range or the layer has no such dense
 * projection (a sparse MoE layer's MLP). */
bool ts_decoder_lora_projection(const ts_decoder_spec *spec, int l, int p, char *name, size_t cap,
                                int64_t *out, int64_t *in);

typedef struct ts_decoder_layer_weights {
    ts_value lora_a[TS_LORA_PROJS], lora_b[TS_LORA_PROJS]; /* TS_NO_VALUE without LoRA */
    ts_value in_norm, q, k, v, q_bias, k_bias, v_bias, q_norm, k_norm, o, post_norm, gate, up, down;
    ts_value pre_ff_norm, post_ff_norm; /* sandwich norms */
    ts_value router, experts_gate_up, experts_down; /* MoE layers (then gate, up, down are unset) */
} ts_decoder_layer_weights;

typedef struct ts_decoder_weights {
    ts_value embed, final_norm, lm_head;
    /* LoRA: the adapters' scales [K] (a weight) and the step's per-row adapter input i32[N] (set
     * by the step builder); TS_NO_VALUE without LoRA. */
    ts_value lora_scale, adapters;
    ts_decoder_layer_weights layers[TS_MAX_LAYERS];
} ts_decoder_weights;

/* How a layer's attention reaches its keys and values: given q [N, Hq, D] and the new k, v
 * [N, Hkv, D] (after rope), store what must be kept and return the attention output
 * [N, Hq, D]. Each entry (CPU step, bundle prefill, bundle decode) supplies its own. */
typedef struct ts_decoder_attend {
    ts_value (*fn)(void *self, ts_graph *g, int layer, ts_value q, ts_value k, ts_value v);
    void *self;
} ts_decoder_attend;

ts_status ts_decoder_spec_init(const ts_model_config *cfg, ts_decoder_spec *spec, ts_error *err);
/* Declares every weight parameter, checked against the config (errors name the tensor). */
ts_status ts_decoder_load_weights(ts_graph *g, const ts_decoder_spec *spec, const ts_weight_source *source,
                                  ts_decoder_weights *w, ts_error *err);
/* cos/sin [N, rotary/2] for positions i32[N] (or i32[3, N] under M-RoPE), in f32 as the rotary
 * embedding module does: [0] for every layer, [1] for local layers (TS_NO_VALUE without
 * spec->local_rope). */
void ts_decoder_rope_tables(ts_graph *g, const ts_decoder_spec *spec, ts_value positions, ts_value cos[2], ts_value sin[2]);
/* The token embeddings of ids (× spec->embed_scale when set). */
ts_value ts_decoder_embed(ts_graph *g, const ts_decoder_spec *spec, const ts_decoder_weights *w, ts_value ids);
/* Layer l's attention with the spec's scale and soft-cap, the causal mask from q_start (or
 * TS_NO_VALUE: bias alone masks), bias (or TS_NO_VALUE), and for a local layer the sliding window
 * measured from window_start, the absolute position of q's first row (TS_NO_VALUE: bias already
 * holds the window, as for a ring cache whose columns are not positions). */
ts_value ts_decoder_attention(ts_graph *g, const ts_decoder_spec *spec, int l, ts_value q, ts_value k, ts_value v, ts_value bias,
                              ts_value q_start, ts_value window_start);
/* The layer stack over the residual stream h [N, H]; hidden (optional, layers + 1 entries)
 * receives the input of every layer and the last layer's output. */
ts_value ts_decoder_layers(ts_graph *g, const ts_decoder_spec *spec, const ts_decoder_weights *w, ts_value h,
                           const ts_value cos[2], const ts_value sin[2], const ts_decoder_attend *attend, ts_value *hidden);

/* DeepStack inputs of a layer stack (see the top of this file). */
typedef struct ts_decoder_deepstack {
    ts_value positions; /* i32[Nv]: rows of h, sorted and unique (checked before a run) */
    ts_value features;  /* f32[K, Nv, H], K = spec->n_deepstack */
} ts_decoder_deepstack;

/* ts_decoder_layers with the DeepStack residual add after each of spec->deepstack_layers; hidden
 * then holds the states after the add (the next layer's input). */
ts_value ts_decoder_layers_deepstack(ts_graph *g, const ts_decoder_spec *spec,
                                     const ts_decoder_weights *w, ts_value h, const ts_value cos[2],
                                     const ts_value sin[2], const ts_decoder_attend *attend,
                                     const ts_decoder_deepstack *deepstack, ts_value *hidden);

/* The DeepStack inputs of one run, as bound to a program. */
typedef struct ts_decoder_deepstack_inputs {
    const int32_t *visual_positions; /* n_positions entries */
    int64_t n_positions;
    const float *layer_features; /* n_features values: [K, Nv, H] */
    int64_t n_features;
    const int32_t *layer_indices; /* n_layers entries: the target layers they belong to */
    int n_layers;
} ts_decoder_deepstack_inputs;

/* The check at the graph/runtime boundary, before any DeepStack program runs: counts match the
 * step shape (Nv positions, K·Nv·H features), the layers are spec->deepstack_layers, positions
 * are sorted, unique and in 0 … rows−1 of the step, every feature is finite.
 * TS_ERR_INVALID_ARGUMENT or TS_ERR_RANGE naming the field. */
ts_status ts_decoder_check_deepstack(const ts_decoder_spec *spec, const ts_step_shape *shape,
                                     const ts_decoder_deepstack_inputs *in, ts_error *err);
/* The check at the graph/runtime boundary of an attention bias for a step of n rows: shape
 * {1, 1, n, n}, no NaN or +inf, a finite diagonal (a row that sees nothing would make NaN).
 * TS_ERR_INVALID_ARGUMENT or TS_ERR_RANGE naming the element. */
ts_status ts_decoder_check_attention_bias(const float *bias, const int64_t shape[4], int64_t n,
                                          ts_error *err);
/* lm_head(norm(h)) */
ts_value ts_decoder_logits(ts_graph *g, const ts_decoder_spec *spec, const ts_decoder_weights *w, ts_value h);
/* Builds the step graph into g (which must be empty). Errors name the tensor or the setting. */
ts_status ts_decoder_build(ts_graph *g, const ts_decoder_spec *spec, const ts_weight_source *weights,
                           const ts_step_shape *shape, ts_error *err);

/* Parameter index of the first input (tokens); weights come before it. */
int32_t ts_decoder_first_input(const ts_graph *g);

#endif
