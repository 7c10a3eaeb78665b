/* audio_fft.c — iterative radix-2 complex FFT used for real frames (audio_fft.h).
 *
 * The real frame is loaded as a complex one with zero imaginary parts and transformed whole:
 * n = 512 costs a few microseconds, and the plain form keeps the rounding close to pocketfft's
 * (numpy, torch CPU), which the features are compared with after a cast to complex64.
 */
#include "media/audio_fft.h"
#include "base/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

ts_status ts_audio_fft_init(ts_audio_fft *fft, int n, ts_error *err)
{
    memset(fft, 0, sizeof(*fft));
    if (n < 2 || n > 65536 || (n & (n - 1)))
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "FFT size %d is not a power of two in 2..65536", n);
    fft->twiddle = malloc(sizeof(double) * (size_t)n);
    fft->reverse = malloc(sizeof(int) * (size_t)n);
    if (!fft->twiddle || !fft->reverse) {
        ts_audio_fft_fini(fft);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "FFT: out of memory for size %d", n);
    }
    fft->n = n;
    for (int k = 0; k < n / 2; k++) {
        double angle = -2.0 * M_PI * (double)k / (double)n;
        fft->twiddle[2 * k] = cos(angle);
        fft->twiddle[2 * k + 1] = sin(angle);
    }
    int bits = 0;
    while ((1 << bits) < n)
        bits++;
    for (int i = 0; i < n; i++) {
        int r = 0;
        for (int b = 0; b < bits; b++)
            r |= ((i >> b) & 1) << (bits - 1 - b);
        fft->reverse[i] = r;
    }
    return TS_OK;
}

void ts_audio_fft_fini(ts_audio_fft *fft)
{
    free(fft->twiddle);
    free(fft->reverse);
    memset(fft, 0, sizeof(*fft));
}

void ts_audio_fft_real(const ts_audio_fft *fft, const double *x, int m, double *a, double *out)
{
    int n = fft->n;
    memset(a, 0, sizeof(double) * 2 * (size_t)n);
    for (int j = 0; j < m && j < n; j++)
        a[2 * fft->reverse[j]] = x[j];
    for (int len = 2; len <= n; len <<= 1) {
        int half = len / 2, step = n / len;
        for (int start = 0; start < n; start += len) {
            for (int k = 0; k < half; k++) {
                double wr = fft->twiddle[2 * k * step], wi = fft->twiddle[2 * k * step + 1];
                double *p = a + 2 * (start + k), *q = a + 2 * (start + k + half);
                double tr = q[0] * wr - q[1] * wi, ti = q[0] * wi + q[1] * wr;
                q[0] = p[0] - tr;
                q[1] = p[1] - ti;
                p[0] += tr;
                p[1] += ti;
            }
        }
    }
    memcpy(out, a, sizeof(double) * 2 * (size_t)(n / 2 + 1));
}
