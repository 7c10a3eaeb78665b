/* audio_fft.h — the real-input DFT of a zero-padded frame, in double precision.
 *
 * ts_audio_fft_init prepares a power-of-two size n (2..65536) into caller storage: twiddles and
 * the bit-reversal permutation, owned, released by ts_audio_fft_fini. ts_audio_fft_real takes m
 * <= n real samples (the rest of the frame is zero) and writes bins 0..n/2 as (re, im) pairs to
 * out[2 * (n/2 + 1)], the convention of numpy.fft.rfft(x, n) and torch.fft.rfft: X_k = Σ x_j
 * e^{-2πi jk/n}. scratch holds 2n doubles. Radix-2, iterative; errors are those of double
 * arithmetic (about 1e-16 relative to the frame's energy).
 */
#ifndef TS_MEDIA_AUDIO_FFT_H
#define TS_MEDIA_AUDIO_FFT_H

#include "tessera.h"

typedef struct ts_audio_fft {
    int n;
    double *twiddle; /* owned: cos, sin of -2πk/n for k < n/2, interleaved */
    int *reverse;    /* owned: bit-reversed index of each position */
} ts_audio_fft;

ts_status ts_audio_fft_init(ts_audio_fft *fft, int n, ts_error *err);
void ts_audio_fft_fini(ts_audio_fft *fft);
void ts_audio_fft_real(const ts_audio_fft *fft, const double *x, int m, double *scratch,
                       double *out);

#endif
