/* softmax_ref.c — a softmax row in place (or scaled and rounded to bf16) and the logistic
 * function, portable (kernels.h: softmax_f32, softmax_bf16, logistic_f32): the exponential's
 * users. */
#include "cpu/kernels.h"

#include <math.h>

void ts_softmax_f32_ref(float *y, size_t n)
{
    float m = -INFINITY;
    for (size_t i = 0; i < n; i++) m = y[i] > m ? y[i] : m;
    if (m == -INFINITY) { /* every score masked: the decomposition gives NaN (0/0) too */
        for (size_t i = 0; i < n; i++) y[i] = NAN;
        return;
    }
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        y[i] = expf(y[i] - m);
        sum += y[i];
    }
    float inv = (float)(1.0 / sum);
    for (size_t i = 0; i < n; i++) y[i] *= inv;
}

void ts_softmax_bf16_ref(float *y, size_t n, float scale, const float *bias, uint16_t *out)
{
    for (size_t i = 0; i < n; i++) y[i] *= scale;
    for (size_t i = 0; bias && i < n; i++) y[i] += bias[i];
    ts_softmax_f32_ref(y, n);
    ts_f32_to_bf16_ref(y, out, n);
}

void ts_logistic_f32_ref(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) y[i] = 1.0f / (1.0f + expf(-x[i]));
}
