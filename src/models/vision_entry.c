/* vision_entry.c — the bundle's vision.main: the Qwen2-VL tower for a static patch-count bucket.
 *
 *   vision.main(weights…, pixel_values f32[N, C·T·P·P], positions i32[N, 2], segments i32[N],
 *               count i32[]) → image_embeds f32[N / merge², out_hidden]
 *
 * The images fill the first `count` rows; the rows after them are padding in their own segment
 * (−1), so the block-diagonal mask keeps them from every real row. Output rows past
 * count / merge² are zero. count must be a multiple of merge² in merge²…N (checked by the bundle
 * before and at execution).
 */
#include "models/vision_entry.h"
#include "base/error.h"

ts_status ts_vision_entry_build(ts_graph *g, const ts_model_config *cfg,
                                const ts_weight_source *source, int64_t n_patches, ts_error *err)
{
    if (cfg->family != TS_FAMILY_QWEN2_VL)
        return ts_error_set(
            err, TS_ERR_UNSUPPORTED,
            "vision.main: bundle entries exist for Qwen2-VL towers only (this is %s)",
            ts_family_name(cfg->family));
    ts_qwen2_vl_vision_spec spec;
    ts_status st = ts_qwen2_vl_vision_spec_init(cfg, &spec, err);
    if (st == TS_OK) st = ts_qwen2_vl_vision_build(g, &spec, source, n_patches, false, err);
    if (st != TS_OK) return st;
    ts_value embeds = g->outputs[0];
    ts_graph_set_stage(g, "count");
    ts_value count =
        ts_graph_parameter(g, "count", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 0, NULL));
    const ts_type t = *ts_graph_type(g, embeds);
    ts_value unit = ts_graph_constant_i32(g, (int32_t)(spec.merge * spec.merge));
    ts_value tokens = ts_graph_binary(g, TS_OP_DIVIDE, count, unit);
    ts_type rows_type = ts_type_make(TS_DTYPE_I32, 2, t.dims);
    ts_value row = ts_graph_iota(g, rows_type, 0);
    ts_value keep = ts_graph_compare(g, TS_COMPARE_LT, row,
                                     ts_graph_broadcast_in_dim(g, tokens, 2, t.dims, NULL));
    ts_value zero = ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, 0.0f), 2, t.dims, NULL);
    ts_value out = ts_graph_select(g, keep, embeds, zero);
    ts_graph_set_outputs(g, &out, 1);
    return ts_graph_status(g, err);
}
