/* vision_entry.c — the bundle's vision.main.
 *
 * Qwen2-VL ("patch_rows"), one module per static patch-count bucket N:
 *
 *   vision.main(weights…, pixel_values f32[N, C·T·P·P], positions i32[N, 2], segments i32[N],
 *               count i32[]) → image_embeds f32[N / merge², out_hidden]
 *
 * The images fill the first `count` rows; the rows after them are padding in their own segment
 * (−1), so the block-diagonal mask keeps them from every real row. Output rows past
 * count / merge² are zero. count must be a multiple of merge² in merge²…N (checked by the bundle
 * before and at execution).
 *
 * LLaVA ("fixed_image"), one module for the tower's image size S (its bucket is the (S/P)²
 * patches of that image):
 *
 *   vision.main(weights…, pixel_values f32[C, S, S]) → image_embeds f32[tokens, LM hidden]
 */
#include "models/vision_entry.h"
#include "base/error.h"
#include "models/clip_vision.h"
#include "models/qwen2_vl_vision.h"

ts_status ts_vision_entry_geometry_of(const ts_model_config *cfg, ts_vision_entry_geometry *out, ts_error *err)
{
    ts_status st;
    if (cfg->family == TS_FAMILY_LLAVA) {
        ts_clip_vision_spec s;
        if ((st = ts_clip_vision_spec_init(cfg, &s, err)) != TS_OK) return st;
        *out = (ts_vision_entry_geometry){"fixed_image", s.patch, 1, 1, s.width, s.depth, s.lm_hidden, s.grid * s.grid};
        return TS_OK;
    }
    if (cfg->family != TS_FAMILY_QWEN2_VL)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "vision.main: bundle entries exist for Qwen2-VL and LLaVA towers only (this is %s)",
                            ts_family_name(cfg->family));
    ts_qwen2_vl_vision_spec s;
    if ((st = ts_qwen2_vl_vision_spec_init(cfg, &s, err)) != TS_OK) return st;
    *out = (ts_vision_entry_geometry){"patch_rows", s.patch, s.temporal, s.merge, s.width, s.depth, s.out_hidden, 0};
    return TS_OK;
}

static ts_status build_llava(ts_graph *g, const ts_model_config *cfg, const ts_weight_source *source, int64_t n_patches,
                             ts_error *err)
{
    ts_clip_vision_spec spec;
    ts_status st = ts_clip_vision_spec_init(cfg, &spec, err);
    if (st == TS_OK && n_patches != spec.grid * spec.grid)
        st = ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                          "vision.main: LLaVA's tower takes one %lld×%lld image, %lld patches: that is its only bucket (not %lld)",
                          (long long)spec.image, (long long)spec.image, (long long)(spec.grid * spec.grid), (long long)n_patches);
    if (st == TS_OK) st = ts_clip_vision_build(g, &spec, source, false, err);
    return st;
}

ts_status ts_vision_entry_build(ts_graph *g, const ts_model_config *cfg, const ts_weight_source *source, int64_t n_patches,
                                ts_error *err)
{
    ts_vision_entry_geometry geometry;
    ts_status st = ts_vision_entry_geometry_of(cfg, &geometry, err);
    if (st != TS_OK) return st;
    if (cfg->family == TS_FAMILY_LLAVA) return build_llava(g, cfg, source, n_patches, err);
    ts_qwen2_vl_vision_spec spec;
    st = ts_qwen2_vl_vision_spec_init(cfg, &spec, err);
    if (st == TS_OK) st = ts_qwen2_vl_vision_build(g, &spec, source, n_patches, false, err);
    if (st != TS_OK) return st;
    ts_value embeds = g->outputs[0];
    ts_graph_set_stage(g, "count");
    ts_value count = ts_graph_parameter(g, "count", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 0, NULL));
    const ts_type t = *ts_graph_type(g, embeds);
    ts_value unit = ts_graph_constant_i32(g, (int32_t)(spec.merge * spec.merge));
    ts_value tokens = ts_graph_binary(g, TS_OP_DIVIDE, count, unit);
    ts_type rows_type = ts_type_make(TS_DTYPE_I32, 2, t.dims);
    ts_value row = ts_graph_iota(g, rows_type, 0);
    ts_value keep = ts_graph_compare(g, TS_COMPARE_LT, row, ts_graph_broadcast_in_dim(g, tokens, 2, t.dims, NULL));
    ts_value zero = ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, 0.0f), 2, t.dims, NULL);
    ts_value out = ts_graph_select(g, keep, embeds, zero);
    ts_graph_set_outputs(g, &out, 1);
    return ts_graph_status(g, err);
}
