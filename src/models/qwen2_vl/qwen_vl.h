/* qwen_vl.h — what the Qwen-VL families share (Qwen2-VL, Qwen2.5-VL, Qwen3-VL and its MoE): the
 * config keys of the tower's patching and the multimodal token ids, the M-RoPE positions of a
 * prompt, and the host side of a patch-row tower (the images' rows packed, their layout, one
 * graph run for all of them).
 */
#ifndef TS_MODELS_QWEN_VL_H
#define TS_MODELS_QWEN_VL_H

#include "models/family.h"
#include "models/vision_entry.h"
#include "models/vision_grid.h"

/* patch_size (default `patch`), temporal_patch_size, spatial_merge_size, in_chans/in_channels. */
ts_status ts_qwen_vl_read_patching(const ts_json_reader *r, const cJSON *v, int64_t patch,
                                   ts_vision_config *o);
/* image_token_id, video_token_id, vision_start_token_id, vision_end_token_id. */
ts_status ts_qwen_vl_read_media_ids(const ts_json_reader *r, const cJSON *root, ts_model_config *c);
/* The M-RoPE positions [3][n] and delta of a prompt (ts_mrope_index over the images' grids);
 * tokens_per_second as ts_mrope_index takes it. */
ts_status ts_qwen_vl_positions(const ts_model_config *cfg, const int32_t *ids, size_t n,
                               const ts_pixel_values *images, int n_images,
                               int64_t tokens_per_second, int32_t *positions, int64_t *delta,
                               ts_error *err);

/* A patch-row tower as its family's ops see it. */
typedef struct ts_qwen_vl_tower {
    int64_t patch_dim, merge, out_hidden;
    int levels;     /* 1 + DeepStack levels */
    int64_t window; /* > 0: window attention (Qwen2.5-VL), windows and window_index inputs */
    /* Non-NULL: the position-table taps (pos_index i32[4, N], pos_weight f32[4, N]) are inputs. */
    void (*taps)(const void *spec, const ts_vision_grid *grids, int n_grids, int64_t rows,
                 int32_t *pos_index, float *pos_weight);
    const void *spec;
} ts_qwen_vl_tower;

/* The image tokens of pv (its n_tokens) and the rows its grid makes (0 when implausible). */
int64_t ts_qwen_vl_image_tokens(const ts_pixel_values *pv);
int64_t ts_qwen_vl_image_rows(int64_t merge, const ts_pixel_values *pv);
/* All images through one graph of N = Σ t·h·w rows: *out [levels][rows][out_hidden]. */
ts_status ts_qwen_vl_encode(const ts_qwen_vl_tower *tower, ts_tower_runner *runner,
                            const ts_pixel_values *images, int n_images, float **out, int64_t *rows,
                            ts_error *err);

/* The host side of the patch-row vision.main layouts (qwen_vl_entry.c). plan: the images' rows,
 * one call. rows: arguments pixel_values, positions, segments of a bucket of n rows (the images'
 * rows in the processor's order, positions in merge-block order, a segment per frame; padding
 * rows with zero pixels and positions, segment −1), out->count the real rows, out->tokens their
 * merge units; grids gets the images' (TS_MAX_IMAGES of room). */
/* types: pixel_values f32[n, d], positions i32[n, 2], segments i32[n] and result 0
 * f32[n / merge², out_hidden]; count i32[] is the layout's last argument. */
void ts_qwen_vl_entry_types(const ts_vision_entry_geometry *geo, int64_t n, int64_t d,
                            ts_type *inputs, ts_type *results);
ts_status ts_qwen_vl_entry_plan(const ts_vision_entry_geometry *geo, const ts_type *pixels,
                                const ts_pixel_values *images, int n_images, int *n_calls,
                                int64_t *rows, ts_error *err);
ts_status ts_qwen_vl_entry_rows(const ts_vision_entry_geometry *geo, const ts_type *pixels,
                                const ts_pixel_values *images, int n_images, int64_t n,
                                ts_vision_grid *grids, ts_vision_call *out, ts_error *err);

#endif
