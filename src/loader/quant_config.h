/* quant_config.h — config.json's `quantization_config`: which published packed format a
 * checkpoint's linear layers use.
 *
 * Supported (engine/packed_weights.c unpacks them): GPTQ (quant_method "gptq", bits 4 or 8, any
 * group_size or −1 for one group per row, sym either way, desc_act either way — act order's
 * g_idx runs as a channel permutation, packed_weights.h; checkpoint_format "gptq" — zero points stored minus one — or "gptq_v2")
 * and AWQ (quant_method "awq", bits 4, version "gemm", zero_point true). Anything else is
 * refused with TS_ERR_UNSUPPORTED naming the method and the field (no silent fallback to
 * unquantized weights). An absent quantization_config gives TS_QUANT_NONE.
 */
#ifndef TS_LOADER_QUANT_CONFIG_H
#define TS_LOADER_QUANT_CONFIG_H

#include "tessera.h"

typedef enum ts_quant_method { TS_QUANT_NONE = 0, TS_QUANT_GPTQ, TS_QUANT_AWQ } ts_quant_method;

typedef struct ts_quant_config {
    ts_quant_method method;
    int bits;
    int64_t group_size; /* −1: the whole input width */
    bool desc_act;
    bool zeros_minus_one; /* GPTQ v1 ("gptq"): stored zero = zero − 1 */
} ts_quant_config;

/* Reads DIR/config.json. */
ts_status ts_quant_config_load(const char *dir, ts_quant_config *out, ts_error *err);
const char *ts_quant_method_name(ts_quant_method m); /* "none", "gptq", "awq" */

#endif
