/* fixture_compare.h — comparing our tensors with a fixture's reference.safetensors, shared by the
 * stage-by-stage tests: a reference tensor by name (saying so when it is missing), and the largest
 * |ours − ref| with the fixtures' tolerance scale max(1, max |ref|) (tolerance = 1e-4 · scale).
 */
#ifndef TS_TESTS_FIXTURE_COMPARE_H
#define TS_TESTS_FIXTURE_COMPARE_H

#include "tessera.h"

#include <math.h>
#include <stdio.h>

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

#endif
