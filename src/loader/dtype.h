/* dtype.h — the safetensors dtype spellings Tessera accepts.
 *
 * ts_dtype_name / ts_dtype_size (public, tessera.h) map a ts_dtype to its safetensors spelling and
 * item size; ts_dtype_parse maps a spelling back. Only the nine dtypes of ts_dtype are known:
 * anything else (F64, F8_E4M3, U16, …) is rejected by the caller as unsupported, never widened
 * or narrowed into a known one. Pure functions, no state.
 */
#ifndef TS_LOADER_DTYPE_H
#define TS_LOADER_DTYPE_H

#include "tessera.h"

/* Exact, case-sensitive match of `len` bytes ("F32", "BF16", …). False when unknown. */
bool ts_dtype_parse(const char *name, size_t len, ts_dtype *out);

#endif
