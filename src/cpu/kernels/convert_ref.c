/* convert_ref.c — f32 rows rounded to bf16, portable (kernels.h: f32_to_bf16). */
#include "cpu/kernels.h"

#include <string.h>

uint16_t ts_f32_to_bf16_scalar(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, 4);
    if ((bits & 0x7fffffff) > 0x7f800000) return (uint16_t)((bits >> 16) | 0x40); /* NaN, kept quiet */
    return (uint16_t)((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);           /* nearest, ties to even */
}

void ts_f32_to_bf16_ref(const float *x, uint16_t *y, size_t n)
{
    for (size_t i = 0; i < n; i++) y[i] = ts_f32_to_bf16_scalar(x[i]);
}
