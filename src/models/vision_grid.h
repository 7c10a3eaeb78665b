/* vision_grid.h — one image or video as the patch-merge processors describe it: temporal, height
 * and width in patches (a row of image_grid_thw). Shared by the towers and the M-RoPE index. */
#ifndef TS_MODELS_VISION_GRID_H
#define TS_MODELS_VISION_GRID_H

#include <stdint.h>

typedef struct ts_vision_grid {
    int64_t t, h, w;
} ts_vision_grid;

#endif
