/* audio_mel.c — kaldi-scale triangular filters in mel space (audio_mel.h).
 *
 * The order of operations follows audio_utils._create_triangular_filter_bank: slopes are
 * (edge − bin), the down slope is its negation over the lower edge gap, the up slope the next
 * slope over the upper gap, so each weight rounds as numpy's float64 arithmetic does.
 */
#include "media/audio_mel.h"
#include "base/error.h"

#include <math.h>
#include <stdlib.h>

double ts_audio_mel_kaldi(double hz)
{
    return 1127.0 * log(1.0 + hz / 700.0);
}

ts_status ts_audio_mel_bank(int n_bins, int n_mels, double f_min, double f_max, int rate,
                            float *weights, ts_error *err)
{
    if (n_bins < 2 || n_mels < 1 || rate <= 0 || !(f_min >= 0) || !(f_min < f_max) ||
        f_max > rate / 2.0)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "mel bank: %d bins, %d mels, %g..%g Hz at %d Hz: need bins >= 2, mels "
                            ">= 1, 0 <= f_min < f_max <= rate/2",
                            n_bins, n_mels, f_min, f_max, rate);
    int n_edges = n_mels + 2;
    double *edge = malloc(sizeof(double) * (size_t)n_edges);
    if (!edge) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "mel bank: out of memory");
    double lo = ts_audio_mel_kaldi(f_min), hi = ts_audio_mel_kaldi(f_max);
    double step = (hi - lo) / (double)(n_edges - 1);
    for (int i = 0; i < n_edges; i++)
        edge[i] = (double)i * step + lo;
    edge[n_edges - 1] = hi;
    double bin_width = (double)rate / (double)((n_bins - 1) * 2);
    for (int k = 0; k < n_bins; k++) {
        double m = ts_audio_mel_kaldi(bin_width * (double)k);
        for (int i = 0; i < n_mels; i++) {
            double down = -(edge[i] - m) / (edge[i + 1] - edge[i]);
            double up = (edge[i + 2] - m) / (edge[i + 2] - edge[i + 1]);
            double w = down < up ? down : up;
            weights[(size_t)k * n_mels + i] = (float)(w > 0.0 ? w : 0.0);
        }
    }
    free(edge);
    return TS_OK;
}
