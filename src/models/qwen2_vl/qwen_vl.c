/* qwen_vl.c — the parts the Qwen-VL families share (see qwen_vl.h). */
#include "models/qwen2_vl/qwen_vl.h"
#include "base/error.h"
#include "loader/config_keys.h"
#include "models/qwen2_vl/mrope_index.h"
#include "models/qwen2_vl/qwen2_vl_vision.h"

#include <stdlib.h>
#include <string.h>

ts_status ts_qwen_vl_read_patching(const ts_json_reader *r, const cJSON *v, int64_t patch,
                                   ts_vision_config *o)
{
    TS_TRY(ts_config_dim(r, v, "patch_size", patch, &o->patch_size));
    TS_TRY(ts_config_dim(r, v, "temporal_patch_size", 2, &o->temporal_patch_size));
    TS_TRY(ts_config_dim(r, v, "spatial_merge_size", 2, &o->spatial_merge_size));
    int64_t in_chans;
    TS_TRY(ts_config_dim(r, v, "in_chans", 3, &in_chans)); /* the older spelling */
    TS_TRY(ts_config_dim(r, v, "in_channels", in_chans, &o->in_channels));
    return TS_OK;
}

ts_status ts_qwen_vl_read_media_ids(const ts_json_reader *r, const cJSON *root, ts_model_config *c)
{
    TS_TRY(ts_json_int(r, root, "image_token_id", 151655, &c->image_token_id));
    TS_TRY(ts_json_int(r, root, "video_token_id", 151656, &c->video_token_id));
    TS_TRY(ts_json_int(r, root, "vision_start_token_id", 151652, &c->vision_start_token_id));
    TS_TRY(ts_json_int(r, root, "vision_end_token_id", 151653, &c->vision_end_token_id));
    return TS_OK;
}

ts_status ts_qwen_vl_positions(const ts_model_config *cfg, const int32_t *ids, size_t n,
                               const ts_pixel_values *images, int n_images,
                               int64_t tokens_per_second, int32_t *positions, int64_t *delta,
                               ts_error *err)
{
    ts_vision_grid grids[TS_MAX_IMAGES];
    if (n_images > TS_MAX_IMAGES)
        return ts_error_set(err, TS_ERR_RANGE, "prefill: %d images (1..%d allowed)", n_images,
                            TS_MAX_IMAGES);
    for (int i = 0; i < n_images; i++)
        grids[i] =
            (ts_vision_grid){images[i].grid_thw[0], images[i].grid_thw[1], images[i].grid_thw[2]};
    return ts_mrope_index(ids, (int64_t)n, (int32_t)cfg->image_token_id, grids, n_images,
                          cfg->vision.spatial_merge_size, tokens_per_second, positions, delta, err);
}

int64_t ts_qwen_vl_image_tokens(const ts_pixel_values *pv)
{
    return pv->n_tokens;
}

int64_t ts_qwen_vl_image_rows(int64_t merge, const ts_pixel_values *p)
{
    int64_t unit = merge * merge, t = p->grid_thw[0], h = p->grid_thw[1], w = p->grid_thw[2];
    if (t < 1 || h < 1 || w < 1 || t > 1024 || h > 4096 || w > 4096) return 0;
    int64_t rows = t * h * w % unit == 0 ? t * h * w / unit : 0;
    return rows <= ((int64_t)1 << 22) ? rows : 0;
}

ts_status ts_qwen_vl_encode(const ts_qwen_vl_tower *tw, ts_tower_runner *runner,
                            const ts_pixel_values *images, int n_images, float **out,
                            int64_t *n_rows, ts_error *err)
{
    *out = NULL;
    if (n_images < 1 || n_images > TS_MAX_IMAGES)
        return ts_error_set(err, TS_ERR_RANGE, "vision: %d images (1..%d allowed)", n_images,
                            TS_MAX_IMAGES);
    ts_vision_grid grids[TS_MAX_IMAGES];
    int64_t patch_dim = tw->patch_dim, merge = tw->merge;
    int64_t rows, frames;
    ts_status st =
        ts_qwen2_vl_vision_grids(images, n_images, patch_dim, merge, grids, &rows, &frames, err);
    if (st != TS_OK) return st;
    bool windowed = tw->window > 0, taps = tw->taps != NULL;
    int64_t units = rows / (merge * merge);
    float *pixels = malloc(sizeof(float) * (size_t)(rows * patch_dim));
    int32_t *positions = malloc(sizeof(int32_t) * (size_t)(2 * rows)),
            *segments = malloc(sizeof(int32_t) * (size_t)rows);
    int32_t *windows = windowed ? malloc(sizeof(int32_t) * (size_t)rows) : NULL;
    int32_t *window_index = windowed ? malloc(sizeof(int32_t) * (size_t)units) : NULL;
    int32_t *pos_index = taps ? malloc(sizeof(int32_t) * (size_t)(4 * rows)) : NULL;
    float *pos_weight = taps ? malloc(sizeof(float) * (size_t)(4 * rows)) : NULL;
    if (!pixels || !positions || !segments || (windowed && (!windows || !window_index)) ||
        (taps && (!pos_index || !pos_weight)))
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory for %lld patches",
                          (long long)rows);
    if (st == TS_OK) {
        ts_qwen2_vl_vision_pack(images, n_images, patch_dim, pixels);
        if (windowed)
            ts_qwen2_5_vl_vision_layout(grids, n_images, merge, tw->window, positions, segments,
                                        windows, window_index);
        else
            ts_qwen2_vl_vision_layout(grids, n_images, merge, positions, segments, NULL);
        if (taps) tw->taps(tw->spec, grids, n_images, rows, pos_index, pos_weight);
    }
    if (st == TS_OK) {
        void *inputs[7] = {pixels, positions, segments};
        int n_inputs = 3;
        if (windowed) inputs[n_inputs++] = windows, inputs[n_inputs++] = window_index;
        if (taps) inputs[n_inputs++] = pos_index, inputs[n_inputs++] = pos_weight;
        const void *outs[2];
        st = ts_tower_run(runner, rows, inputs, n_inputs, outs, err);
        size_t level = (size_t)(units * tw->out_hidden);
        if (st == TS_OK) {
            *out = malloc(sizeof(float) * level * (size_t)tw->levels);
            if (!*out) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory");
        }
        if (st == TS_OK) {
            /* Main rows, then the DeepStack output [K][units][width]: the same layout, one after
             * the other. */
            memcpy(*out, outs[0], sizeof(float) * level);
            if (tw->levels > 1)
                memcpy(*out + level, outs[1], sizeof(float) * level * (size_t)(tw->levels - 1));
            *n_rows = units;
        }
    }
    free(pixels), free(positions), free(segments), free(windows), free(window_index),
        free(pos_index), free(pos_weight);
    return st;
}
