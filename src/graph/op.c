/* op.c — the op table. */
#include "graph/op.h"

/* ORDER OP */
static const ts_op_info infos[] = {
    [TS_OP_PARAMETER] = {"parameter", "func.arg", 0, false},
    [TS_OP_CONSTANT] = {"constant", "stablehlo.constant", 0, false},
    [TS_OP_IOTA] = {"iota", "stablehlo.iota", 0, false},
    [TS_OP_CONVERT] = {"convert", "stablehlo.convert", 1, false},
    [TS_OP_ADD] = {"add", "stablehlo.add", 2, false},
    [TS_OP_SUBTRACT] = {"subtract", "stablehlo.subtract", 2, false},
    [TS_OP_MULTIPLY] = {"multiply", "stablehlo.multiply", 2, false},
    [TS_OP_DIVIDE] = {"divide", "stablehlo.divide", 2, false},
    [TS_OP_MAXIMUM] = {"maximum", "stablehlo.maximum", 2, false},
    [TS_OP_MINIMUM] = {"minimum", "stablehlo.minimum", 2, false},
    [TS_OP_POWER] = {"power", "stablehlo.power", 2, false},
    [TS_OP_NEGATE] = {"negate", "stablehlo.negate", 1, false},
    [TS_OP_ABS] = {"abs", "stablehlo.abs", 1, false},
    [TS_OP_EXPONENTIAL] = {"exponential", "stablehlo.exponential", 1, false},
    [TS_OP_LOG] = {"log", "stablehlo.log", 1, false},
    [TS_OP_SQRT] = {"sqrt", "stablehlo.sqrt", 1, false},
    [TS_OP_RSQRT] = {"rsqrt", "stablehlo.rsqrt", 1, false},
    [TS_OP_TANH] = {"tanh", "stablehlo.tanh", 1, false},
    [TS_OP_LOGISTIC] = {"logistic", "stablehlo.logistic", 1, false},
    [TS_OP_SINE] = {"sine", "stablehlo.sine", 1, false},
    [TS_OP_COSINE] = {"cosine", "stablehlo.cosine", 1, false},
    [TS_OP_ERF] = {"erf", "tessera.erf", 1, true},
    [TS_OP_COMPARE] = {"compare", "stablehlo.compare", 2, false},
    [TS_OP_SELECT] = {"select", "stablehlo.select", 3, false},
    [TS_OP_BROADCAST_IN_DIM] = {"broadcast_in_dim", "stablehlo.broadcast_in_dim", 1, false},
    [TS_OP_RESHAPE] = {"reshape", "stablehlo.reshape", 1, false},
    [TS_OP_TRANSPOSE] = {"transpose", "stablehlo.transpose", 1, false},
    [TS_OP_SLICE] = {"slice", "stablehlo.slice", 1, false},
    [TS_OP_DYNAMIC_SLICE] = {"dynamic_slice", "stablehlo.dynamic_slice", -1, false},
    [TS_OP_DYNAMIC_UPDATE_SLICE] = {"dynamic_update_slice", "stablehlo.dynamic_update_slice", -1, false},
    [TS_OP_CONCATENATE] = {"concatenate", "stablehlo.concatenate", -1, false},
    [TS_OP_PAD] = {"pad", "stablehlo.pad", 2, false},
    [TS_OP_GATHER] = {"gather", "stablehlo.gather", 2, false},
    [TS_OP_SCATTER_ADD] = {"scatter_add", "stablehlo.scatter", 3, false},
    [TS_OP_REDUCE_SUM] = {"reduce_sum", "stablehlo.reduce", 1, false},
    [TS_OP_REDUCE_MAX] = {"reduce_max", "stablehlo.reduce", 1, false},
    [TS_OP_DOT_GENERAL] = {"dot_general", "stablehlo.dot_general", 2, false},
    [TS_OP_ARGMAX] = {"argmax", "stablehlo.reduce", 1, false},
    [TS_OP_RMS_NORM] = {"rms_norm", "tessera.rms_norm", 2, true},
    [TS_OP_LAYER_NORM] = {"layer_norm", "tessera.layer_norm", 3, true},
    [TS_OP_SOFTMAX] = {"softmax", "tessera.softmax", -1, true},
    [TS_OP_ROPE] = {"rope", "tessera.rope", 3, true},
    [TS_OP_ATTENTION] = {"attention", "tessera.attention", -1, true},
    [TS_OP_GATED_MLP] = {"gated_mlp", "tessera.gated_mlp", 4, true},
    [TS_OP_MOE_MLP] = {"moe_mlp", "tessera.moe_mlp", 4, true},
    [TS_OP_LINEAR] = {"linear", "tessera.linear", -1, true},
    [TS_OP_EMBEDDING] = {"embedding", "tessera.embedding", 2, true},
    [TS_OP_QLINEAR] = {"qlinear", "tessera.qlinear", -1, true},
    [TS_OP_LORA_LINEAR] = {"lora_linear", "tessera.lora_linear", 6, true},
};
_Static_assert(sizeof(infos) / sizeof(infos[0]) == TS_OP_COUNT, "ORDER OP: infos out of step");

const ts_op_info *ts_op_get_info(ts_op op) { return (unsigned)op < TS_OP_COUNT ? &infos[op] : 0; }

bool ts_op_is_elementwise_unary(ts_op op)
{
    return op == TS_OP_CONVERT || (op >= TS_OP_NEGATE && op <= TS_OP_ERF);
}

bool ts_op_is_elementwise_binary(ts_op op) { return op >= TS_OP_ADD && op <= TS_OP_POWER; }

const char *ts_compare_name(ts_compare direction)
{
    static const char *const names[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    _Static_assert(sizeof(names) / sizeof(names[0]) == TS_COMPARE_COUNT, "compare names");
    return (unsigned)direction < TS_COMPARE_COUNT ? names[direction] : "?";
}
