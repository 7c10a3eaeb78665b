/* safetensors_header_fuzz.c — libFuzzer target: arbitrary bytes as a whole safetensors file.
 *
 * The input goes straight to ts_safetensors_parse (the header parser over a memory buffer, no
 * mapping). Any status is fine; a crash, sanitizer report, leak or a success whose entries break
 * the parser's promises (offsets inside the data section, byte counts matching shapes) is a bug.
 */
#include "base/error.h"
#include "loader/safetensors.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ts_safetensors_header header;
    ts_error err;
    if (ts_safetensors_parse(data, size, "fuzz", &header, &err) != TS_OK) return 0;
    for (size_t i = 0; i < header.n_entries; i++) {
        const ts_safetensors_entry *e = &header.entries[i];
        uint64_t bytes = ts_dtype_size(e->dtype);
        for (int d = 0; d < e->n_dims; d++) bytes *= (uint64_t)e->shape[d];
        if (e->begin > e->end || e->end > header.data_size || e->end - e->begin != bytes) abort();
    }
    ts_safetensors_header_fini(&header);
    return 0;
}
