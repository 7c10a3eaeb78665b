/* pixel_normalize.h — uint8 RGB → rescaled, normalised float32 planes (transformers numpy path).
 *
 * rescale is `x.astype(float64) * rescale_factor` cast to float32; normalize is `(x - mean) / std`
 * with mean and std cast to float32 first, both steps in float32 (so each value matches numpy to
 * the bit). do_rescale/do_normalize from the config switch the steps. The caller owns both buffers;
 * `out` holds 3·width·height floats, channels first ([3, height, width]).
 */
#ifndef TS_MEDIA_PIXEL_NORMALIZE_H
#define TS_MEDIA_PIXEL_NORMALIZE_H

#include "tessera.h"

void ts_pixel_normalize_chw(const ts_preprocessor_config *cfg, const uint8_t *rgb, int width,
                            int height, float *out);

#endif
