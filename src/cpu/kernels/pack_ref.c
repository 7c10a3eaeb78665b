/* pack_ref.c — 32 rows of 32-bit units transposed into the tiled GEMMs' panel layout, portable
 * (kernels.h: pack_u32_panel). */
#include "cpu/kernels.h"

#include <string.h>

void ts_pack_u32_panel_ref(const void *src, size_t ld, int rows, size_t count, uint32_t flip, uint32_t *dst)
{
    for (size_t j = 0; j < count; j++)
        for (int i = 0; i < 32; i++) {
            uint32_t v = 0;
            if (i < rows) {
                memcpy(&v, (const char *)src + (size_t)i * ld + j * 4, 4);
                v ^= flip;
            }
            dst[j * 32 + (size_t)i] = v;
        }
}
