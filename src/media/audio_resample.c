/* audio_resample.c — libsoxr at the HQ recipe, fed as python-soxr feeds it (audio_resample.h).
 *
 * libsoxr's output does not depend on how the input is split in principle, but its block
 * boundaries decide when the internal FFT stages run; feeding the same blocks as python-soxr
 * (csoxr_split_ch in soxr_ext.cpp, python-soxr 1.1.0) keeps the two runs step for step alike.
 */
#include "media/audio_resample.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>

#include <soxr.h>

ts_status ts_audio_resample(const float *in, int64_t n, int in_rate, int out_rate, float **out,
                            int64_t *n_out, ts_error *err)
{
    *out = NULL;
    *n_out = 0;
    if (in_rate <= 0 || out_rate <= 0 || n < 0)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "resample: rates %d -> %d Hz and %lld samples must be positive",
                            in_rate, out_rate, (long long)n);
    /* load_audio's length: math.ceil(n * out / in), here in exact integers. */
    int64_t want = (n * (int64_t)out_rate + in_rate - 1) / in_rate;
    float *y = calloc((size_t)(want > 0 ? want : 1), sizeof(float));
    if (!y)
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "resample: out of memory for %lld samples",
                            (long long)want);
    if (n == 0) {
        *out = y;
        return TS_OK;
    }
    if (in_rate == out_rate) {
        memcpy(y, in, sizeof(float) * (size_t)n);
        *out = y;
        *n_out = n;
        return TS_OK;
    }
    /* python-soxr's buffer and block sizes, as it computes them (size_t from double). */
    size_t olen = (size_t)((double)n * out_rate / in_rate) + 1;
    double block = 48000.0 * in_rate / out_rate;
    size_t div_len = (size_t)(block > 1000.0 ? block : 1000.0);
    float *buf = calloc(olen, sizeof(float));
    if (!buf) {
        free(y);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "resample: out of memory for %zu samples",
                            olen);
    }
    soxr_error_t serr = NULL;
    soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_S, SOXR_FLOAT32_S);
    soxr_quality_spec_t quality = soxr_quality_spec(SOXR_HQ, 0);
    soxr_t soxr = soxr_create(in_rate, out_rate, 1, &serr, &io, &quality, NULL);
    size_t pos = 0, done = 0;
    for (size_t i = 0; !serr && i < (size_t)n; i += div_len) {
        const float *ip[1] = {in + i};
        float *op[1] = {buf + pos};
        size_t len = (size_t)n - i < div_len ? (size_t)n - i : div_len;
        serr = soxr_process(soxr, ip, len, NULL, op, olen - pos, &done);
        pos += done;
    }
    if (!serr) {
        float *op[1] = {buf + pos};
        serr = soxr_process(soxr, NULL, 0, NULL, op, olen - pos, &done);
        pos += done;
    }
    if (soxr) soxr_delete(soxr);
    if (serr) {
        free(buf);
        free(y);
        return ts_error_set(err, TS_ERR_INTERNAL, "resample %d -> %d Hz: libsoxr: %s", in_rate,
                            out_rate, serr);
    }
    memcpy(y, buf, sizeof(float) * (pos < (size_t)want ? pos : (size_t)want));
    free(buf);
    *out = y;
    *n_out = want;
    return TS_OK;
}
