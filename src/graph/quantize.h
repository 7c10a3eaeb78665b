/* quantize.h — a graph's matmuls over checkpoint weights rewritten to the quantized linear.
 *
 * ts_graph_quantize copies `src`, replacing every linear (and every gated MLP, expanded into its
 * three linears, the activation and the product, as its decomposition writes it) whose weight is
 * a float weight parameter [out, in] that `choose` accepts by ts_graph_qlinear over new weight
 * parameters named after it: "<name>:q8" (i8 [out, in]) or "<name>:q4" (u8 [out, in/2]),
 * "<name>:qN.scale" (f16 [out, in/block]), with zero points "<name>:qN.zero" (i8 [out,
 * in/block]) and, with a permutation (GPTQ's act order), "<name>:qN.perm" (i32 [in]): the
 * linear's input channels are gathered by it first (x[..., perm], a stablehlo.gather on the last
 * axis), the integer weights' columns being stored in that order so that each block of them is
 * contiguous. A weight parameter that only fed replaced matmuls is dropped; the other weights
 * keep their relative order, the new ones follow them in the order first used, and the inputs and
 * state come after all of them, in their order (a bundle's modules take every weight before the
 * first input). Outputs map to their copies, donated arguments stay donated to them.
 * What the names stand for is the caller's (engine/quantized_weights.c, engine/packed_weights.c).
 * Errors: the chooser's block not dividing the width (TS_ERR_UNSUPPORTED, naming the tensor),
 * the source graph's own error, out of memory. *out: owned, ts_graph_destroy.
 */
#ifndef TS_GRAPH_QUANTIZE_H
#define TS_GRAPH_QUANTIZE_H

#include "graph/graph.h"

/* Weights per scale in the load-time formats (llama.cpp's Q8_0/Q4_0 use the same 32). */
#define TS_QUANT_BLOCK 32

typedef struct ts_quant_choice {
    int bits;       /* 8 or 4 */
    int64_t block;  /* input channels per scale */
    bool has_zero;  /* a "<name>:qN.zero" parameter */
    bool has_perm;  /* a "<name>:qN.perm" parameter: input channels gathered by it first */
} ts_quant_choice;

/* Whether weight `name` [out, in] is quantized, and how (fills *choice). */
typedef bool (*ts_quant_chooser)(void *user, const char *name, int64_t out, int64_t in, ts_quant_choice *choice);

ts_status ts_graph_quantize(const ts_graph *src, ts_quant_chooser choose, void *user, ts_graph **out, ts_error *err);

/* Whether weight `name`, which only replaced matmuls read, stays a parameter (unread) all the same. */
typedef bool (*ts_weight_keeper)(void *user, const char *name);
/* ts_graph_quantize, keeping the weights `keep` accepts: a bundle's entries share one weight schema
 * (a tied embedding table that prefill_embeddings.main reads only as its quantized lm_head is still
 * its argument, as it is prefill.main's). */
ts_status ts_graph_quantize_keeping(const ts_graph *src, ts_quant_chooser choose, void *user, ts_weight_keeper keep, void *keep_user,
                                    ts_graph **out, ts_error *err);

/* The matmul weights a graph still reads in floats (after ts_graph_quantize: those the chooser
 * left): rank-2 float weight parameters feeding a linear or a gated MLP, each counted once, their
 * bytes, and one's name: the first whose input width `block` does not divide (a gated MLP is kept
 * whole for one such matrix), else the first. Counts nothing when out of memory. */
typedef struct ts_float_matrices {
    int count;
    int64_t bytes;
    char example[160];
} ts_float_matrices;
void ts_graph_float_matrices(const ts_graph *g, int64_t block, ts_float_matrices *out);

#endif
