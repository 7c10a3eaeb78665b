/* onednn.h — bf16 matmuls through oneDNN (AMX where present), cached by shape.
 *
 * c[m, n] = a[m, k] · w[n, k]ᵀ with a and w bf16, c f32. One ts_onednn per program; calls are
 * serialised by its lock. Errors (no primitive for the shape, execution failure) are returned,
 * never replaced by another path.
 */
#ifndef TS_CPU_ONEDNN_H
#define TS_CPU_ONEDNN_H

#include "tessera.h"

typedef struct ts_onednn ts_onednn;

ts_status ts_onednn_create(int threads, ts_onednn **out, ts_error *err);
void ts_onednn_destroy(ts_onednn *d);
ts_status ts_onednn_matmul_bf16(ts_onednn *d, const uint16_t *a, int64_t m, int64_t k, const uint16_t *w,
                                int64_t n, float *c, ts_error *err);

#endif
