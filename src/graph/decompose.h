/* decompose.h — composites in primitive ops (the single definition of what each composite means).
 *
 * ts_graph_decompose copies a graph, expanding every composite; parameters keep their indices and
 * names, outputs are mapped, and `map` (optional, src->n_nodes entries) receives each source
 * value's counterpart so intermediates can be compared. The ts_decompose_* builders append the
 * expansion of one composite to any graph; the exporter uses them too.
 */
#ifndef TS_GRAPH_DECOMPOSE_H
#define TS_GRAPH_DECOMPOSE_H

#include "graph/graph.h"

ts_status ts_graph_decompose(const ts_graph *src, ts_graph **out, ts_value *map, ts_error *err);

ts_value ts_decompose_rms_norm(ts_graph *g, ts_value x, ts_value weight, double eps, double weight_offset);
ts_value ts_decompose_layer_norm(ts_graph *g, ts_value x, ts_value weight, ts_value bias, double eps);
ts_value ts_decompose_softmax(ts_graph *g, ts_value x, ts_value bias);
ts_value ts_decompose_rope(ts_graph *g, ts_value x, ts_value cos, ts_value sin, int rotary_dim, bool interleaved);
ts_value ts_decompose_attention(ts_graph *g, ts_value q, ts_value k, ts_value v, ts_value bias,
                                ts_value q_start, double scale, double softcap);
ts_value ts_decompose_linear(ts_graph *g, ts_value x, ts_value w, ts_value bias);
ts_value ts_decompose_activation(ts_graph *g, ts_value x, ts_activation act);
ts_value ts_decompose_gated_mlp(ts_graph *g, ts_value x, ts_value w_gate, ts_value w_up, ts_value w_down, ts_activation act);
ts_value ts_decompose_moe_mlp(ts_graph *g, ts_value x, ts_value router, ts_value gate_up,
                              ts_value down, int top_k, bool normalize, ts_activation act);
ts_value ts_decompose_embedding(ts_graph *g, ts_value table, ts_value ids);
/* erf in StableHLO's primitives (which have none): within 2e-7 absolute, 5e-7 relative of erf. */
ts_value ts_decompose_erf(ts_graph *g, ts_value x);
/* zero, bias: TS_NO_VALUE for none. */
ts_value ts_decompose_qlinear(ts_graph *g, ts_value x, ts_value q, ts_value scale, ts_value zero,
                              ts_value bias, int64_t block);
ts_value ts_decompose_lora_linear(ts_graph *g, ts_value x, ts_value w, ts_value a, ts_value b,
                                  ts_value scale, ts_value index);
/* A node's operands in the order the builder takes them (zero, bias: TS_NO_VALUE if absent). */
ts_value ts_decompose_qlinear_node(ts_graph *g, const ts_node *n, const ts_value *in);

#endif
