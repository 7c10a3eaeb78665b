/* fixture_compare.h — comparing our tensors with a fixture's reference.safetensors, shared by the
 * stage-by-stage tests: a reference tensor by name (saying so when it is missing), and the largest
 * |ours − ref| with the fixtures' tolerance scale max(1, max |ref|) (tolerance = 1e-4 · scale) or
 * relative to max |ref|, and a sequence's cached keys/values beside the reference's KV layout.
 */
#ifndef TS_TESTS_FIXTURE_COMPARE_H
#define TS_TESTS_FIXTURE_COMPARE_H

#include "engine/model.h"
#include "tessera.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static inline const ts_tensor_info *ref_tensor(const ts_checkpoint *ref, const char *name)
{
    const ts_tensor_info *t = ts_checkpoint_find(ref, name);
    if (!t) fprintf(stderr, "reference has no %s\n", name);
    return t;
}

/* max |ours − ref| over n floats (NaN counts as infinite); *scale = max(1, max |ref|). */
static inline double max_diff(const float *ours, const float *ref, size_t n, double *scale)
{
    double worst = 0, big = 1;
    for (size_t i = 0; i < n; i++) {
        big = fmax(big, fabs(ref[i]));
        double d = fabs((double)ours[i] - ref[i]);
        if (!(d <= worst)) worst = isnan(d) ? INFINITY : d;
    }
    *scale = big;
    return worst;
}

/* max |a − ref| relative to max |ref| (1e-30 when ref is all zero). */
static inline double rel_max_diff(const float *a, const float *ref, size_t n)
{
    double diff = 0, scale = 0;
    for (size_t i = 0; i < n; i++) {
        diff = fmax(diff, fabs((double)a[i] - ref[i]));
        scale = fmax(scale, fabs((double)ref[i]));
    }
    return diff / fmax(scale, 1e-30);
}

/* Layer `layer`'s cached keys (value false) or values (true) of the first n positions of seq, and
 * the reference's [kv_heads, n, head_dim] tensor ref, both written as [position][kv_head][head_dim]
 * into ours and theirs (each kv_heads·n·head_dim floats). Positions the cache no longer holds (a
 * sliding-window layer's ring) are skipped in both; returns how many were written. */
static inline int64_t fixture_kv_rows(const ts_sequence *seq, int layer, bool value, const float *ref, int64_t n,
                                      int64_t kv_heads, int64_t head_dim, float *ours, float *theirs)
{
    int64_t count = 0;
    size_t bytes = sizeof(float) * (size_t)head_dim;
    for (int64_t p = 0; p < n; p++) {
        const float *row = ts_sequence_cache_row(seq, layer, value, p);
        if (!row) continue;
        for (int64_t h = 0; h < kv_heads; h++) {
            memcpy(ours + (count * kv_heads + h) * head_dim, row + h * head_dim, bytes);
            memcpy(theirs + (count * kv_heads + h) * head_dim, ref + (h * n + p) * head_dim, bytes);
        }
        count++;
    }
    return count;
}

#endif
