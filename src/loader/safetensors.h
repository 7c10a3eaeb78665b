/* safetensors.h — validating parser for one safetensors file held in memory.
 *
 * ts_safetensors_parse takes the whole file's bytes (8-byte LE header length, JSON header, data)
 * and checks header bounds, JSON, dtypes, shapes, offsets, byte counts, duplicate names and
 * overlaps without touching the data section, so the fuzz target can feed it any bytes. On
 * success the header owns its entries and strings (free with ts_safetensors_header_fini); on
 * failure nothing is left to free. Errors: TS_ERR_FORMAT, TS_ERR_RANGE (limits),
 * TS_ERR_UNSUPPORTED (dtype, dims), TS_ERR_OUT_OF_MEMORY; messages start with `origin`.
 */
#ifndef TS_LOADER_SAFETENSORS_H
#define TS_LOADER_SAFETENSORS_H

#include "base/arena.h"
#include "tessera.h"

/* The reference implementation's bound: larger headers are refused before any allocation. */
#define TS_SAFETENSORS_HEADER_MAX 100000000u

typedef struct ts_safetensors_entry {
    const char *name; /* owned by the header's arena */
    ts_dtype dtype;
    int n_dims;
    int64_t shape[TS_MAX_DIMS];
    uint64_t begin, end; /* byte range inside the data section */
} ts_safetensors_entry;

typedef struct ts_safetensors_header {
    ts_safetensors_entry *entries; /* in header order */
    size_t n_entries;
    const char **metadata_keys; /* __metadata__, in header order */
    const char **metadata_values;
    size_t n_metadata;
    size_t data_start; /* file offset of the data section: 8 + header length */
    size_t data_size;  /* bytes from data_start to the end of the file */
    ts_arena arena;
} ts_safetensors_header;

ts_status ts_safetensors_parse(const uint8_t *bytes, size_t size, const char *origin,
                               ts_safetensors_header *out, ts_error *err);
void ts_safetensors_header_fini(ts_safetensors_header *header);

#endif
