/* op.h — the op vocabulary of the graph IR, one line per op with its StableHLO spelling.
 *
 * Primitive ops have exactly the semantics of the StableHLO op of that name (the StableHLO
 * specification is the reference). Composite ops (rms_norm … qlinear) are what the CPU runtime
 * runs fused; each has a decomposition into primitives (graph/decompose.c) that the exporter
 * prints and that tests compare against the fused kernel. Keep ts_op_info (op.c) in step with
 * this enum: grep ORDER OP.
 */
#ifndef TS_GRAPH_OP_H
#define TS_GRAPH_OP_H

#include <stdbool.h>

/* ORDER OP */
typedef enum ts_op {
    TS_OP_PARAMETER = 0,       /* func.func argument (weights, inputs) */
    TS_OP_CONSTANT,            /* stablehlo.constant */
    TS_OP_IOTA,                /* stablehlo.iota */
    TS_OP_CONVERT,             /* stablehlo.convert */
    TS_OP_ADD,                 /* stablehlo.add */
    TS_OP_SUBTRACT,            /* stablehlo.subtract */
    TS_OP_MULTIPLY,            /* stablehlo.multiply */
    TS_OP_DIVIDE,              /* stablehlo.divide */
    TS_OP_MAXIMUM,             /* stablehlo.maximum */
    TS_OP_MINIMUM,             /* stablehlo.minimum */
    TS_OP_POWER,               /* stablehlo.power */
    TS_OP_NEGATE,              /* stablehlo.negate */
    TS_OP_ABS,                 /* stablehlo.abs */
    TS_OP_EXPONENTIAL,         /* stablehlo.exponential */
    TS_OP_LOG,                 /* stablehlo.log */
    TS_OP_SQRT,                /* stablehlo.sqrt */
    TS_OP_RSQRT,               /* stablehlo.rsqrt */
    TS_OP_TANH,                /* stablehlo.tanh */
    TS_OP_LOGISTIC,            /* stablehlo.logistic */
    TS_OP_SINE,                /* stablehlo.sine */
    TS_OP_COSINE,              /* stablehlo.cosine */
    TS_OP_ERF,                 /* composite "tessera.erf": StableHLO has no erf (CHLO does; see decompose.c) */
    TS_OP_COMPARE,             /* stablehlo.compare */
    TS_OP_SELECT,              /* stablehlo.select */
    TS_OP_BROADCAST_IN_DIM,    /* stablehlo.broadcast_in_dim */
    TS_OP_RESHAPE,             /* stablehlo.reshape */
    TS_OP_TRANSPOSE,           /* stablehlo.transpose */
    TS_OP_SLICE,               /* stablehlo.slice */
    TS_OP_DYNAMIC_SLICE,       /* stablehlo.dynamic_slice */
    TS_OP_DYNAMIC_UPDATE_SLICE, /* stablehlo.dynamic_update_slice */
    TS_OP_CONCATENATE,         /* stablehlo.concatenate */
    TS_OP_PAD,                 /* stablehlo.pad */
    TS_OP_GATHER,              /* stablehlo.gather */
    TS_OP_SCATTER_ADD,         /* stablehlo.scatter with an add region */
    TS_OP_REDUCE_SUM,          /* stablehlo.reduce with an add region */
    TS_OP_REDUCE_MAX,          /* stablehlo.reduce with a maximum region */
    TS_OP_DOT_GENERAL,         /* stablehlo.dot_general */
    TS_OP_ARGMAX,              /* stablehlo.reduce over (value, iota): first maximum, NaN wins */
    /* composites */
    TS_OP_RMS_NORM,
    TS_OP_LAYER_NORM,
    TS_OP_SOFTMAX,
    TS_OP_ROPE,
    TS_OP_ATTENTION,
    TS_OP_GATED_MLP,
    TS_OP_MOE_MLP,
    TS_OP_LINEAR,
    TS_OP_EMBEDDING,
    TS_OP_QLINEAR,             /* linear over integer weights: graph.h ts_graph_qlinear */
    TS_OP_LORA_LINEAR,         /* linear + per-row low-rank adapter delta: ts_graph_lora_linear */
    TS_OP_COUNT
} ts_op;

typedef struct ts_op_info {
    const char *name;     /* our name: "add", "rms_norm" */
    const char *stablehlo; /* "stablehlo.add"; composites: "tessera.rms_norm" */
    int n_inputs;         /* -1: variadic */
    bool composite;
} ts_op_info;

const ts_op_info *ts_op_get_info(ts_op op);
bool ts_op_is_elementwise_unary(ts_op op);
bool ts_op_is_elementwise_binary(ts_op op);

typedef enum ts_compare {
    TS_COMPARE_EQ = 0,
    TS_COMPARE_NE,
    TS_COMPARE_LT,
    TS_COMPARE_LE,
    TS_COMPARE_GT,
    TS_COMPARE_GE,
    TS_COMPARE_COUNT
} ts_compare;

const char *ts_compare_name(ts_compare direction); /* "EQ", … */

#endif
