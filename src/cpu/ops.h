/* ops.h — the fused CPU kernels behind the composites, multi-threaded on the context's pool.
 *
 * Activations are f32 row-major; weights are f32, bf16 or f16 read in place (from the mmap).
 * Each function computes exactly what its decomposition (graph/decompose.c) defines, up to float
 * summation order; cpu/ops_test.c holds them to that. Scratch, where needed, is passed in by the
 * executor (sized by the *_scratch_bytes functions), so kernels never allocate.
 */
#ifndef TS_CPU_OPS_H
#define TS_CPU_OPS_H

#include "base/pool.h"
#include "cpu/kernels.h"
#include "graph/graph.h"

typedef struct ts_onednn ts_onednn;

/* The bf16 copy of a matmul's activation rows under the bf16 compute policies, owned by the
 * program (grown to the largest call, freed with the program, so no call allocates). `key` says
 * what it holds: the executor sets `want` to a stamp of the node's input value (the value and the
 * run) before each linear, so the q, k and v projections of one input (gate and up too) round it
 * once; -1 allows no reuse. A value's bytes never change while it lives, so (stamp, x, m, k,
 * passes) names the contents. */
typedef struct ts_cpu_act {
    uint16_t *buf;
    size_t cap; /* elements */
    int64_t want, key;
    const float *x;
    int64_t m, k;
    int passes;
} ts_cpu_act;

typedef struct ts_cpu {
    const ts_kernels *kernels;
    ts_pool *pool;
    ts_onednn *onednn; /* non-NULL under the bf16 compute policies */
    int bf16_passes;   /* 1: x rounded to bf16; 2: x = hi + lo, both multiplied */
    /* Many-row attention in bf16 (attention.c): the one-pass policy in a program whose matmuls
     * already lose that precision (bf16 or quantized weights); f32 weights keep f32 attention. */
    bool bf16_attention;
    ts_cpu_act *act;   /* NULL: each bf16 matmul allocates its own copy */
    bool
        int8_act; /* qlinear: W8A8 (activations rounded to int8 per 32) where the kernels have it */
    /* A multi-sequence step's rows (ts_program_set_row_segments), one run a sequence, in order;
     * n_segments 0: none. A matmul over all segment_rows rows gives each run the path its own row
     * count would take (tiled from TS_CPU_TILED_ROWS rows, else the row dots), so each row gets
     * the bits of its sequence's step alone (the row dots and the tiled kernels each compute a
     * row from that row alone); a matmul over any other count (each sequence's last row, for the
     * logits) takes the row dots. Sequences ordered small to large make two calls at most. */
    int n_segments;
    int64_t segment_rows;
    int64_t segments[64];
    /* A speculative verify step's rows: each one computed as the plain decode step of its token
     * computes it, so greedy output with drafts is the plain loop's exactly: every matmul takes
     * the row dots whatever the row count, attention one query at a time (its keys in the
     * decode step's order). */
    bool decode_rows;
} ts_cpu;

/* Rows from which the tiled matmuls beat one dot per output (measured: packing costs ~2 rows). */
#define TS_CPU_TILED_ROWS 16
/* The runs of an m-row matmul that take one path each (see ts_cpu.segments): rows[i] rows,
 * tiled[i]; returns how many (≥ 1, ≤ 64). */
int ts_cpu_row_runs(const ts_cpu *cpu, int64_t m, int64_t *rows, bool *tiled);

/* y[m, n] = x[m, :] · w[n, :] (+ bias[n]). Fails only on the bf16 (oneDNN) path. */
ts_status ts_cpu_linear(const ts_cpu *cpu, const float *x, int64_t m, int64_t k, const void *w,
                   ts_dtype w_dtype, int64_t n, const void *bias, ts_dtype bias_dtype, float *y,
                   ts_error *err);
/* bias[i] (or any f32/bf16/f16 vector's element i) widened to f32, 0 when bias is NULL. */
float ts_cpu_bias_at(const void *bias, ts_dtype dtype, int64_t i);
/* bias[n0 … n0 + n) as f32: the bias itself where it is f32, else widened into buf (n floats);
 * NULL when bias is NULL. What the GEMMs that add the bias as they store take. */
const float *ts_cpu_bias_f32(const void *bias, ts_dtype dtype, int64_t n0, int64_t n, float *buf);
/* y[r, n0:n1] += bias[n0:n1] for m rows (ldy floats apart), the bias f32, bf16 or f16: widened
 * once per block of columns, not once per element. */
void ts_cpu_add_bias(float *y, int64_t ldy, int64_t m, int64_t n0, int64_t n1, const void *bias, ts_dtype dtype);
/* The program's bf16 activation buffer with room for n elements (its key cleared: the caller
 * fills it), or NULL when cpu->act is NULL or memory runs out. */
uint16_t *ts_cpu_act_reserve(const ts_cpu *cpu, size_t n);
/* x [m, k] rounded to bf16 (passes·m rows: [hi; lo] for two) in the program's buffer (cpu->act,
 * not NULL), or the copy already there for this input value; NULL when memory runs out. */
const uint16_t *ts_cpu_act_bf16(const ts_cpu *cpu, const float *x, int64_t m, int64_t k, int passes);
/* y[m, n] = xb[m, :] · w[n, :] for activation rows already rounded to bf16 (one pass) and bf16
 * weights, by the tiled bf16 kernels (or oneDNN where the program uses it); k even. */
ts_status ts_cpu_linear_bf16_rows(const ts_cpu *cpu, const uint16_t *xb, int64_t m, int64_t k, const void *w,
                                  int64_t n, float *y, ts_error *err);

void ts_cpu_rms_norm(const ts_cpu *cpu, const float *x, int64_t rows, int64_t h, const void *w,
                     ts_dtype w_dtype, double eps, double weight_offset, float *y);
void ts_cpu_layer_norm(const ts_cpu *cpu, const float *x, int64_t rows, int64_t h, const void *w,
                       ts_dtype w_dtype, const void *b, ts_dtype b_dtype, double eps, float *y);
/* softmax(x + bias) over rows of n; bias may be NULL. */
void ts_cpu_softmax(const ts_cpu *cpu, const float *x, const float *bias, int64_t rows, int64_t n,
                    float *y);
/* Softmax of y[0..n) in place (scores already biased); all -inf gives NaN like 0/0. */
void ts_cpu_softmax_row(const ts_kernels *k, float *y, int64_t n);
void ts_cpu_rope(const ts_cpu *cpu, const float *x, int64_t l, int64_t heads, int64_t head_dim,
                 const float *cos, const float *sin, int rotary_dim, bool interleaved, float *y);

typedef struct ts_attention_shape {
    int64_t lq, lk, q_heads, kv_heads, head_dim, v_dim;
    ts_dtype kv_dtype; /* F32 or BF16 */
    int64_t q_start; /* < 0: not causal */
    double scale, softcap;
} ts_attention_shape;
size_t ts_cpu_attention_scratch_bytes(const ts_cpu *cpu, const ts_attention_shape *s);
void ts_cpu_attention(const ts_cpu *cpu, const ts_attention_shape *s, const float *q,
                      const void *k, const void *v, const float *bias, float *out, void *scratch);

size_t ts_cpu_gated_mlp_scratch_bytes(int64_t m, int64_t inter);
ts_status ts_cpu_gated_mlp(const ts_cpu *cpu, const float *x, int64_t m, int64_t h, const void *w_gate,
                      const void *w_up, const void *w_down, ts_dtype w_dtype, int64_t inter,
                      ts_activation act, float *y, void *scratch, ts_error *err);

/* The sparse MoE MLP (graph.h: ts_graph_moe_mlp) over m rows of x[m, h]: router [E, h] of
 * router_dtype, experts gate_up [E, h, 2·inter] and down [E, inter, h] of w_dtype. */
size_t ts_cpu_moe_mlp_scratch_bytes(int64_t m, int64_t h, int64_t experts, int64_t inter, int top_k,
                                    int n_workers);
ts_status ts_cpu_moe_mlp(const ts_cpu *cpu, const float *x, int64_t m, int64_t h,
                         const void *router, ts_dtype router_dtype, const void *gate_up,
                         const void *down, ts_dtype w_dtype, int64_t experts, int64_t inter,
                         int top_k, bool normalize, ts_activation act, float *y, void *scratch,
                         ts_error *err);

/* The quantized linear (graph.h: ts_graph_qlinear) over m rows of x[m, k] → y[m, n]: q (i8
 * [n, k] when bits = 8, u8 [n, k/2] when bits = 4), scale [n, k/block] of scale_dtype, zero
 * [n, k/block] or NULL (0 for 8-bit, 8 for 4-bit), bias [n] of bias_dtype or NULL. */
typedef struct ts_qlinear_shape {
    int64_t m, k, n, block;
    int bits;
    ts_dtype scale_dtype, bias_dtype;
} ts_qlinear_shape;
size_t ts_cpu_qlinear_scratch_bytes(const ts_qlinear_shape *s, int n_workers);
void ts_cpu_qlinear(const ts_cpu *cpu, const ts_qlinear_shape *s, const float *x, const void *q,
                    const void *scale, const int8_t *zero, const void *bias, float *y, void *scratch);

/* out[i, :] = table[clamp(ids[i])] widened to f32 (clamped like StableHLO gather). */
void ts_cpu_embedding(const ts_cpu *cpu, const void *table, ts_dtype dtype, int64_t vocab,
                      int64_t h, const int32_t *ids, int64_t n, float *out);

float ts_cpu_activation(ts_activation act, float x);

/* f32 elementwise: unary (b NULL) or binary op over n elements, chunked over the pool. */
bool ts_cpu_elementwise_supported(ts_op op);
void ts_cpu_elementwise(const ts_cpu *cpu, ts_op op, const float *a, const float *b, float *y, int64_t n);
/* y = (x · logistic(x · c)) · u (scale NULL: logistic(x), c = *scale otherwise; u NULL: no
 * · u) in one pass, bit for bit the multiply, logistic, multiply (and multiply) nodes of a
 * spelled-out SiLU or quick GELU (·up) run one after another. */
void ts_cpu_silu_mul(const ts_cpu *cpu, const float *x, const float *scale, const float *u, float *y, int64_t n);
void ts_cpu_fill(float *y, float value, int64_t n);
/* A unit-stride slice as runs of contiguous copies; false (nothing done) for other strides. */
bool ts_cpu_slice_contiguous(const ts_type *in, const ts_type *out, const int64_t *start, const int64_t *strides, const void *x,
                             void *y);
/* scatter_add of whole rows (f32 [R, H] operand, i32 [Nv] row indices, [Nv, H] updates: the
 * DeepStack add): y = x, then y[indices[j]] += updates[j]; false (nothing done) for other forms. */
bool ts_cpu_scatter_add_rows(const ts_graph *g, const ts_node *n, const void *x,
                             const void *indices, const void *updates, void *y);
/* gather of whole rows (any dtype: operand [N, ...], i32 [M] row indices clamped to 0…N−1 as
 * StableHLO clamps starts, result [M, ...]: a ring cache's rows); false for other forms. */
bool ts_cpu_gather_rows(const ts_graph *g, const ts_node *n, const void *x, const void *indices,
                        void *y);
/* gather on the last axis (x[..., indices] of a 4-byte dtype: operand [..., K], i32 [M] indices
 * clamped to 0…K−1, result [..., M]: GPTQ act order's channel permutation); false for other forms. */
bool ts_cpu_gather_columns(const ts_cpu *cpu, const ts_graph *g, const ts_node *n, const void *x,
                           const void *indices, void *y);
/* dynamic_update_slice of whole rows (the update spans every axis but the first: a KV cache
 * write) as one copy; y = x first unless in place. row_start is the first axis's start, before
 * clamping. False (nothing done) for other forms. */
bool ts_cpu_update_rows(const ts_graph *g, const ts_node *n, const void *x, const void *update,
                        int64_t row_start, void *y);

#endif
