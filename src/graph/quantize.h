/* quantize.h — a graph's matmuls over checkpoint weights rewritten to the quantized linear.
 *
 * ts_graph_quantize copies `src`, replacing every linear (and every gated MLP, expanded into its
 * three linears, the activation and the product, as its decomposition writes it) whose weight is
 * a float weight parameter [out, in] by ts_graph_qlinear over two new weight parameters named
 * after it: "<name>:q8" (i8 [out, in]) or "<name>:q4" (u8 [out, in/2]), and "<name>:q8.scale" /
 * "<name>:q4.scale" (f16 [out, in/TS_QUANT_BLOCK]). Every original parameter keeps its index
 * (a weight no longer used stays declared, so bindings by index do not move); the new ones come
 * after all of them, in the order first used. Outputs map to their copies.
 * What the names stand for is the caller's: engine/quantized_weights.c fills them.
 * Errors: an input width not a multiple of TS_QUANT_BLOCK (TS_ERR_UNSUPPORTED, naming the
 * tensor), the source graph's own error, out of memory. *out: owned, ts_graph_destroy.
 */
#ifndef TS_GRAPH_QUANTIZE_H
#define TS_GRAPH_QUANTIZE_H

#include "graph/graph.h"

/* Weights per scale in the load-time formats (llama.cpp's Q8_0/Q4_0 use the same 32). */
#define TS_QUANT_BLOCK 32

ts_status ts_graph_quantize(const ts_graph *src, int bits, ts_graph **out, ts_error *err);

#endif
