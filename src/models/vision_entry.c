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
#include "models/family.h"

#include <stdio.h>
#include <string.h>

static const ts_tower_ops *entry_ops(const ts_model_config *cfg, ts_error *err)
{
    const ts_tower_ops *ops =
        cfg->has_vision && cfg->family && cfg->family->tower ? cfg->family->tower : NULL;
    if (ops && ops->entry_geometry && ops->entry_build) return ops;
    char exported[256] = "";
    int count = 0;
    const ts_family_desc *const *all = ts_family_all(&count);
    for (int i = 0; i < count; i++)
        if (all[i]->tower && all[i]->tower->entry_build)
            snprintf(exported + strlen(exported), sizeof(exported) - strlen(exported), "%s%s",
                     exported[0] ? ", " : "", all[i]->name);
    ts_error_set(err, TS_ERR_UNSUPPORTED,
                 "vision.main: bundle entries exist for the towers of %s only (this is %s)",
                 exported, ts_family_name(cfg->family));
    return NULL;
}

ts_status ts_vision_entry_geometry_of(const ts_model_config *cfg, ts_vision_entry_geometry *out,
                                      ts_error *err)
{
    const ts_tower_ops *ops = entry_ops(cfg, err);
    return ops ? ops->entry_geometry(cfg, out, err) : TS_ERR_UNSUPPORTED;
}

ts_status ts_vision_entry_build(ts_graph *g, const ts_model_config *cfg,
                                const ts_weight_source *source, int64_t n_patches, ts_error *err)
{
    ts_vision_entry_geometry geometry;
    ts_status st = ts_vision_entry_geometry_of(cfg, &geometry, err);
    if (st == TS_OK) st = cfg->family->tower->entry_build(g, cfg, source, n_patches, err);
    /* A fixed-size image is the whole bucket: nothing to mask. */
    if (st != TS_OK || geometry.image_patches > 0) return st;
    int n_out = g->n_outputs;
    ts_value outs[2] = {g->outputs[0], n_out > 1 ? g->outputs[1] : TS_NO_VALUE};
    ts_graph_set_stage(g, "count");
    ts_value count =
        ts_graph_parameter(g, "count", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 0, NULL));
    ts_value unit = ts_graph_constant_i32(g, (int32_t)(geometry.merge * geometry.merge));
    ts_value tokens = ts_graph_binary(g, TS_OP_DIVIDE, count, unit);
    /* Rows past count / merge² are zero: image_embeds' dimension 0, deepstack's dimension 1. */
    for (int k = 0; k < n_out; k++) {
        const ts_type t = *ts_graph_type(g, outs[k]);
        ts_type rows_type = ts_type_make(TS_DTYPE_I32, t.rank, t.dims);
        ts_value row = ts_graph_iota(g, rows_type, t.rank - 2);
        ts_value keep = ts_graph_compare(
            g, TS_COMPARE_LT, row, ts_graph_broadcast_in_dim(g, tokens, t.rank, t.dims, NULL));
        ts_value zero =
            ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, 0.0f), t.rank, t.dims, NULL);
        outs[k] = ts_graph_select(g, keep, outs[k], zero);
    }
    ts_graph_set_outputs(g, outs, n_out);
    return ts_graph_status(g, err);
}
