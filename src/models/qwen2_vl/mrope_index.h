/* mrope_index.h — the 3-axis rotary positions of a Qwen-VL prompt (get_rope_index at the pinned
 * transformers commit) and the rope delta its decode steps add.
 *
 * Text tokens count up on all three axes. Each run of image tokens takes the next grid (t, h, w)
 * in patches; its merged (h/m × w/m) tokens, in raster order, get T = the start position (Qwen2.5-VL:
 * start × tokens_per_second), H = start + row, W = start + column; the text after it resumes at
 * start + max(h, w)/m. delta = max over all positions and axes + 1 − n. A run whose length is not
 * t·h·w/m², or a count of runs other than the number of grids, is an error naming both numbers.
 */
#ifndef TS_MODELS_MROPE_INDEX_H
#define TS_MODELS_MROPE_INDEX_H

#include "models/vision_grid.h"
#include "tessera.h"

/* positions: [3][n] (t row, h row, w row). tokens_per_second: 0 = the image's T is its start
 * position (Qwen2-VL, Qwen3-VL); else T = start × tokens_per_second (Qwen2.5-VL). */
ts_status ts_mrope_index(const int32_t *ids, int64_t n, int32_t image_token_id, const ts_vision_grid *grids, int n_grids,
                         int64_t merge, int64_t tokens_per_second, int32_t *positions, int64_t *delta, ts_error *err);

#endif
