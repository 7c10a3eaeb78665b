/* graph.h — the graph IR: typed values, ops with StableHLO semantics, and the builder.
 *
 * A ts_graph is an append-only list of nodes; node i defines value i (one result each), so a value
 * is used only after it is defined and the list is already in topological order. Types are static
 * (dtype + shape). Builders check operand types and infer the result type; the first failure is
 * kept in the graph (sticky, with the op and stage name) and every later builder returns
 * TS_NO_VALUE, so a model is written as straight-line code and checked once with
 * ts_graph_status. Defining computes nothing: src/cpu runs a graph, src/export prints it.
 * All memory (nodes, constants, names) lives in the graph's arena: ts_graph_destroy frees it.
 */
#ifndef TS_GRAPH_GRAPH_H
#define TS_GRAPH_GRAPH_H

#include "base/arena.h"
#include "base/error.h"
#include "graph/op.h"
#include "tessera.h"

typedef int32_t ts_value;
#define TS_NO_VALUE ((ts_value)-1)

typedef struct ts_dims {
    int n;
    int64_t v[TS_MAX_DIMS];
} ts_dims;

typedef struct ts_type {
    ts_dtype dtype;
    int rank;
    int64_t dims[TS_MAX_DIMS];
} ts_type;

int64_t ts_type_elements(const ts_type *type);
size_t ts_type_bytes(const ts_type *type);
bool ts_type_equal(const ts_type *a, const ts_type *b);
/* The StableHLO element type ("f32", "bf16", "i1", "ui8", …); NULL for none. */
const char *ts_type_element_name(ts_dtype dtype);
/* "tensor<2x3xf32>" into buf (StableHLO spelling). */
const char *ts_type_format(const ts_type *type, char *buf, size_t cap);
ts_type ts_type_make(ts_dtype dtype, int rank, const int64_t *dims);

typedef enum ts_param_role {
    TS_PARAM_WEIGHT = 0, /* bound to a checkpoint tensor by name */
    TS_PARAM_INPUT,      /* supplied per call (tokens, positions, lengths) */
    TS_PARAM_STATE,      /* carried between calls and updated in place (KV cache) */
} ts_param_role;

typedef enum ts_activation {
    TS_ACT_SILU = 0,
    TS_ACT_GELU,      /* exact erf GELU */
    TS_ACT_GELU_TANH, /* tanh approximation ("gelu_pytorch_tanh") */
    TS_ACT_QUICK_GELU,
    TS_ACT_COUNT
} ts_activation;

typedef union ts_attrs {
    /* output_alias: 1 + the index of the result this argument's buffer is donated to (the result
     * may be written over it: tf.aliasing_output in the text); 0: none. */
    struct { int index; ts_param_role role; int output_alias; } parameter;
    struct { const void *data; } constant; /* ts_type_bytes(type) bytes, little-endian */
    struct { int dimension; } iota;
    struct { ts_compare direction; } compare;
    struct { ts_dims dims; } broadcast; /* broadcast_dimensions */
    struct { ts_dims permutation; } transpose;
    struct { ts_dims start, limit, strides; } slice;
    struct { ts_dims sizes; } dynamic_slice;
    struct { int dimension; } concatenate;
    struct { ts_dims low, high, interior; } pad;
    struct {
        ts_dims offset_dims, collapsed_slice_dims, start_index_map, slice_sizes;
        int index_vector_dim;
    } gather;
    struct {
        ts_dims update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims;
        int index_vector_dim;
    } scatter;
    struct { ts_dims dimensions; } reduce;
    struct { int dimension; } argmax;
    struct { ts_dims lhs_batch, rhs_batch, lhs_contract, rhs_contract; } dot;
    /* rms_norm / layer_norm over the last axis: y = x̂ · (weight + offset) [+ bias] */
    struct { double eps; double weight_offset; } norm;
    /* rope(x[..., heads, head_dim], cos[..., rotary_dim/2], sin): rotates the first rotary_dim
     * channels of each head; half-split pairs (i, i+half) or interleaved pairs (2i, 2i+1). */
    struct { int rotary_dim; bool interleaved; } rope;
    /* attention(q[Lq,Hq,D], k[Lk,Hkv,D], v[Lk,Hkv,Dv] [, bias[Lq,Lk]] [, q_start i32[]])
     * → [Lq,Hq,Dv]. causal: query i sees keys j ≤ q_start + i (q_start = the absolute position
     * of the first query, so a KV cache of any capacity works). softcap 0 = off. */
    struct { double scale; double softcap; bool causal; bool has_bias; } attention;
    struct { ts_activation activation; } mlp;
    /* moe_mlp: each token's top_k experts by router softmax (ties: lowest expert first), their
     * probabilities renormalised to sum 1 when `normalize`. */
    struct { int top_k; bool normalize; ts_activation activation; } moe;
    /* qlinear: bits 8 or 4 (from the weight dtype), `block` input channels per scale */
    struct { int bits; int64_t block; bool has_zero; bool has_bias; } qlinear;
} ts_attrs;

typedef struct ts_node {
    ts_op op;
    ts_type type;
    int n_inputs;
    const ts_value *inputs;
    ts_attrs attrs;
    const char *name; /* parameter: the argument name; others: a stage label or NULL */
} ts_node;

typedef struct ts_graph {
    ts_arena arena;
    ts_node *nodes;
    int32_t n_nodes;
    int32_t cap_nodes;
    ts_value *outputs;
    int32_t n_outputs;
    int32_t n_parameters;
    const char *stage; /* label given to nodes built from now on */
    ts_error error;    /* first builder failure; status TS_OK while none */
} ts_graph;

ts_status ts_graph_create(ts_graph **out, ts_error *err);
void ts_graph_destroy(ts_graph *g);
/* The first builder failure, or TS_OK. */
ts_status ts_graph_status(const ts_graph *g, ts_error *err);
const ts_node *ts_graph_node(const ts_graph *g, ts_value v);
const ts_type *ts_graph_type(const ts_graph *g, ts_value v);
/* Labels later nodes ("layer.3.attn"); the string is copied. */
void ts_graph_set_stage(ts_graph *g, const char *fmt, ...) TS_PRINTF(2, 3);
void ts_graph_set_outputs(ts_graph *g, const ts_value *values, int n);
/* Declares that result `output` (of the outputs already set) may take the buffer of `parameter`,
 * a state parameter of the same type: the caller donates it and reads the result from it. A
 * builder error otherwise (not a state parameter, no such result, another type, declared twice). */
void ts_graph_alias_output(ts_graph *g, ts_value parameter, int output);
/* The result that parameter node `parameter` is donated to, or -1. */
int ts_graph_parameter_alias(const ts_graph *g, ts_value parameter);

/* ---- builders: each returns TS_NO_VALUE after recording an error ---- */
ts_value ts_graph_parameter(ts_graph *g, const char *name, ts_param_role role, ts_type type);
/* Copies `data` (ts_type_bytes(type) bytes). */
ts_value ts_graph_constant(ts_graph *g, ts_type type, const void *data);
ts_value ts_graph_constant_f32(ts_graph *g, float value); /* scalar */
ts_value ts_graph_constant_i32(ts_graph *g, int32_t value);
ts_value ts_graph_iota(ts_graph *g, ts_type type, int dimension);
ts_value ts_graph_convert(ts_graph *g, ts_value x, ts_dtype dtype);
ts_value ts_graph_unary(ts_graph *g, ts_op op, ts_value x);
ts_value ts_graph_binary(ts_graph *g, ts_op op, ts_value a, ts_value b);
ts_value ts_graph_compare(ts_graph *g, ts_compare direction, ts_value a, ts_value b);
ts_value ts_graph_select(ts_graph *g, ts_value pred, ts_value on_true, ts_value on_false);
ts_value ts_graph_broadcast_in_dim(ts_graph *g, ts_value x, int rank, const int64_t *dims,
                                   const int64_t *broadcast_dimensions);
ts_value ts_graph_reshape(ts_graph *g, ts_value x, int rank, const int64_t *dims);
ts_value ts_graph_transpose(ts_graph *g, ts_value x, const int64_t *permutation);
ts_value ts_graph_slice(ts_graph *g, ts_value x, const int64_t *start, const int64_t *limit,
                        const int64_t *strides);
/* starts: one scalar i32 value per operand axis */
ts_value ts_graph_dynamic_slice(ts_graph *g, ts_value x, const ts_value *starts,
                                const int64_t *sizes);
ts_value ts_graph_dynamic_update_slice(ts_graph *g, ts_value x, ts_value update,
                                       const ts_value *starts);
ts_value ts_graph_concatenate(ts_graph *g, const ts_value *xs, int n, int dimension);
ts_value ts_graph_pad(ts_graph *g, ts_value x, ts_value pad_value, const int64_t *low,
                      const int64_t *high, const int64_t *interior);
ts_value ts_graph_gather(ts_graph *g, ts_value operand, ts_value indices, const ts_dims *offset_dims,
                         const ts_dims *collapsed_slice_dims, const ts_dims *start_index_map,
                         int index_vector_dim, const ts_dims *slice_sizes);
ts_value ts_graph_scatter_add(ts_graph *g, ts_value operand, ts_value indices, ts_value updates,
                              const ts_dims *update_window_dims,
                              const ts_dims *inserted_window_dims,
                              const ts_dims *scatter_dims_to_operand_dims, int index_vector_dim);
ts_value ts_graph_reduce(ts_graph *g, ts_op op, ts_value x, const ts_dims *dimensions);
ts_value ts_graph_argmax(ts_graph *g, ts_value x, int dimension);
ts_value ts_graph_dot_general(ts_graph *g, ts_value lhs, ts_value rhs, const ts_dims *lhs_batch,
                              const ts_dims *rhs_batch, const ts_dims *lhs_contract,
                              const ts_dims *rhs_contract);

/* ---- composites (fused on the CPU; graph/decompose.c gives their primitive form) ---- */
ts_value ts_graph_rms_norm(ts_graph *g, ts_value x, ts_value weight, double eps,
                           double weight_offset);
ts_value ts_graph_layer_norm(ts_graph *g, ts_value x, ts_value weight, ts_value bias, double eps);
/* Softmax over the last axis of x + bias (bias TS_NO_VALUE = none; else x's shape). */
ts_value ts_graph_softmax(ts_graph *g, ts_value x, ts_value bias);
ts_value ts_graph_rope(ts_graph *g, ts_value x, ts_value cos, ts_value sin, int rotary_dim,
                       bool interleaved);
/* bias: TS_NO_VALUE for none. q_start: TS_NO_VALUE for non-causal attention; else a scalar i32
 * and the attention is causal. */
ts_value ts_graph_attention(ts_graph *g, ts_value q, ts_value k, ts_value v, ts_value bias,
                            ts_value q_start, double scale, double softcap);
/* down(act(x·gateᵀ) ⊙ x·upᵀ); weights in Hugging Face [out, in] layout. */
ts_value ts_graph_gated_mlp(ts_graph *g, ts_value x, ts_value w_gate, ts_value w_up,
                            ts_value w_down, ts_activation activation);
/* Sparse mixture of experts (a decoder's routed MLP) over x[..., H]: router [E, H]
 * (logits = x·routerᵀ, softmax in f32, top_k experts per token), experts in the published fused
 * layout gate_up [E, H, 2I] (gate = columns 0…I-1, up = I…2I-1, used as x·W) and down [E, I, H];
 * y = Σ over the chosen experts, in expert order, of weight · down(act(gate) ⊙ up). gate_up and
 * down share one of f32/bf16/f16; router may differ. */
ts_value ts_graph_moe_mlp(ts_graph *g, ts_value x, ts_value router, ts_value gate_up, ts_value down,
                          int top_k, bool normalize, ts_activation activation);
/* x[..., in] · w[out, in]ᵀ (+ b[out]); w may be bf16/f16 with f32 x (converted, in place on CPU). */
ts_value ts_graph_linear(ts_graph *g, ts_value x, ts_value w, ts_value bias);
/* Linear over quantized weights: x[..., in] · dequant(q)ᵀ (+ b[out]), where
 *   dequant(q)[o, i] = (q[o, i] − zero[o, i / block]) · scale[o, i / block]   (in f32)
 * Weight layouts (the input channels of each output row are contiguous, as in nn.Linear):
 *   8-bit: q i8 [out, in];
 *   4-bit: q u8 [out, in/2], two unsigned 4-bit values per byte, channel 2j in the low nibble and
 *          2j+1 in the high one (StableHLO's/IREE's i4 order in memory); values 0…15.
 * scale [out, in/block] f16/bf16/f32; `block` divides `in` (per channel: block = in; block-wise
 * formats use 32, GPTQ/AWQ their group size, 4-bit needs it even). zero [out, in/block] i8, or
 * TS_NO_VALUE for the symmetric formats: 0 for 8-bit, 8 for 4-bit. bias as for ts_graph_linear. */
ts_value ts_graph_qlinear(ts_graph *g, ts_value x, ts_value q, ts_value scale, ts_value zero,
                          ts_value bias, int64_t block);
/* LoRA over a batch of rows, each with its own adapter (peft's lora.Linear, mixed batch):
 *   y[i] = x[i]·wᵀ + (b[k]·(a[k]·x[i])) · scale[k],   k = index[i]
 * x f32 [N, in], w [out, in] as for ts_graph_linear, a [K, r, in] and b [K, out, r] of one of
 * f32/bf16/f16 (adapters stacked, a smaller rank zero-padded to r), scale f32 [K] (alpha/r of each adapter), index i32
 * [N] in 0 … K−1 (the caller keeps adapter 0 all-zero for "no adapter"; an index outside 0 … K−1
 * is a runtime error on CPU). The selection is an input: one program serves every mix. */
ts_value ts_graph_lora_linear(ts_graph *g, ts_value x, ts_value w, ts_value a, ts_value b,
                              ts_value scale, ts_value index);
/* table[ids] → [ids..., hidden]; table may be bf16/f16 (converted to f32). */
ts_value ts_graph_embedding(ts_graph *g, ts_value table, ts_value ids);

#endif
