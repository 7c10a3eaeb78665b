/* pixel_normalize.c — the rescale and normalize steps of the slow image processors.
 *
 * A uint8 has only 256 values, so each channel's mapping is a 256-entry table computed with the
 * reference's exact operation order; the image is then a table lookup.
 */
#include "media/pixel_normalize.h"

void ts_pixel_normalize_chw(const ts_preprocessor_config *cfg, const uint8_t *rgb, int width,
                            int height, float *out)
{
    float table[3][256];
    for (int c = 0; c < 3; c++) {
        /* numpy builds np.array(mean, dtype=float32): one double→float rounding each. */
        float mean = (float)cfg->image_mean[c], std = (float)cfg->image_std[c];
        for (int v = 0; v < 256; v++) {
            float x = cfg->do_rescale ? (float)((double)v * cfg->rescale_factor) : (float)v;
            if (cfg->do_normalize) {
                /* Two rounded float32 operations (x86-64 evaluates float in float, and C11 mode
                 * keeps contraction off); a reciprocal multiply would differ in the last bit. */
                x = (x - mean) / std;
            }
            table[c][v] = x;
        }
    }
    size_t plane = (size_t)width * height;
    for (size_t i = 0; i < plane; i++)
        for (int c = 0; c < 3; c++)
            out[c * plane + i] = table[c][rgb[3 * i + c]];
}
