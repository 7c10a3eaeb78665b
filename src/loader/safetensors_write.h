/* safetensors_write.h — tensors written as one .safetensors file.
 *
 * ts_safetensors_write sorts the tensors by name (the caller's array is not touched) and writes
 * an 8-byte little-endian header length, the JSON header
 * {"__metadata__":{"format":"pt"},"NAME":{"dtype":…,"shape":[…],"data_offsets":[b,e]},…} padded
 * with spaces to a multiple of 8 bytes, then the tensors' bytes in that order: the same tensors
 * always give the same file, which ts_checkpoint_open reads back. Each tensor's n_bytes must be
 * its dtype × shape (checked), names need no JSON escaping (checked: no quote or backslash).
 * Errors: TS_ERR_INVALID_ARGUMENT naming the tensor, TS_ERR_IO naming the path, out of memory.
 */
#ifndef TS_LOADER_SAFETENSORS_WRITE_H
#define TS_LOADER_SAFETENSORS_WRITE_H

#include "tessera.h"

ts_status ts_safetensors_write(const char *path, const ts_tensor_info *const *tensors, size_t n, ts_error *err);

#endif
