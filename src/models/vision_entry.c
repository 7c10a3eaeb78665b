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
 * Qwen3-VL ("patch_rows_deepstack"), one module per bucket N likewise, with the position-table
 * taps (ts_qwen3_vl_vision_pos_taps) as inputs and the DeepStack rows as a second result:
 *
 *   vision.main(weights…, pixel_values f32[N, C·T·P·P], positions i32[N, 2], segments i32[N],
 *               pos_index i32[4, N], pos_weight f32[4, N], count i32[])
 *     → image_embeds f32[N / merge², out_hidden], deepstack f32[K, N / merge², out_hidden]
 *
 * Padding rows as Qwen2-VL's (segment −1, pixels and positions 0), and their taps are the filler
 * pos_index 0, pos_weight 0 (checked by the bundle: a padding row reads no table row). Real rows
 * take table rows 0..position_embeddings − 1 with finite weights. Rows of both results past
 * count / merge² are zero. K and the table's rows are in the manifest's vision section.
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
#include "models/qwen3_vl_vision.h"

ts_status ts_vision_entry_geometry_of(const ts_model_config *cfg, ts_vision_entry_geometry *out, ts_error *err)
{
    ts_status st;
    if (cfg->family == TS_FAMILY_LLAVA) {
        ts_clip_vision_spec s;
        if ((st = ts_clip_vision_spec_init(cfg, &s, err)) != TS_OK) return st;
        *out = (ts_vision_entry_geometry){"fixed_image", s.patch, 1, 1, s.width, s.depth, s.lm_hidden, s.grid * s.grid, 0, 0};
        return TS_OK;
    }
    if (cfg->family == TS_FAMILY_QWEN3_VL || cfg->family == TS_FAMILY_QWEN3_VL_MOE) {
        ts_qwen3_vl_vision_spec s;
        if ((st = ts_qwen3_vl_vision_spec_init(cfg, &s, err)) != TS_OK) return st;
        *out = (ts_vision_entry_geometry){"patch_rows_deepstack", s.patch, s.temporal, s.merge, s.width, s.depth, s.out_hidden, 0,
                                          s.n_deepstack, s.n_positions};
        return TS_OK;
    }
    if (cfg->family != TS_FAMILY_QWEN2_VL)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "vision.main: bundle entries exist for Qwen2-VL, Qwen3-VL and LLaVA towers only (this is %s)",
                            ts_family_name(cfg->family));
    ts_qwen2_vl_vision_spec s;
    if ((st = ts_qwen2_vl_vision_spec_init(cfg, &s, err)) != TS_OK) return st;
    *out = (ts_vision_entry_geometry){"patch_rows", s.patch, s.temporal, s.merge, s.width, s.depth, s.out_hidden, 0, 0, 0};
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
    if (geometry.deepstack > 0 || cfg->family == TS_FAMILY_QWEN3_VL || cfg->family == TS_FAMILY_QWEN3_VL_MOE) {
        ts_qwen3_vl_vision_spec spec;
        st = ts_qwen3_vl_vision_spec_init(cfg, &spec, err);
        if (st == TS_OK && spec.n_deepstack < 1)
            st = ts_error_set(err, TS_ERR_UNSUPPORTED, "vision.main: this Qwen3-VL tower declares no deepstack_visual_indexes");
        if (st == TS_OK) st = ts_qwen3_vl_vision_build(g, &spec, source, n_patches, false, err);
    } else {
        ts_qwen2_vl_vision_spec spec;
        st = ts_qwen2_vl_vision_spec_init(cfg, &spec, err);
        if (st == TS_OK) st = ts_qwen2_vl_vision_build(g, &spec, source, n_patches, false, err);
    }
    if (st != TS_OK) return st;
    int n_out = g->n_outputs;
    ts_value outs[2] = {g->outputs[0], n_out > 1 ? g->outputs[1] : TS_NO_VALUE};
    ts_graph_set_stage(g, "count");
    ts_value count = ts_graph_parameter(g, "count", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 0, NULL));
    ts_value unit = ts_graph_constant_i32(g, (int32_t)(geometry.merge * geometry.merge));
    ts_value tokens = ts_graph_binary(g, TS_OP_DIVIDE, count, unit);
    /* Rows past count / merge² are zero: image_embeds' dimension 0, deepstack's dimension 1. */
    for (int k = 0; k < n_out; k++) {
        const ts_type t = *ts_graph_type(g, outs[k]);
        ts_type rows_type = ts_type_make(TS_DTYPE_I32, t.rank, t.dims);
        ts_value row = ts_graph_iota(g, rows_type, t.rank - 2);
        ts_value keep = ts_graph_compare(g, TS_COMPARE_LT, row, ts_graph_broadcast_in_dim(g, tokens, t.rank, t.dims, NULL));
        ts_value zero = ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, 0.0f), t.rank, t.dims, NULL);
        outs[k] = ts_graph_select(g, keep, outs[k], zero);
    }
    ts_graph_set_outputs(g, outs, n_out);
    return ts_graph_status(g, err);
}
