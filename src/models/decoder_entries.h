/* decoder_entries.h — the versioned module entries of a decoder model, as graphs with static
 * shapes (context capacity C, prefill capacity Lp ≤ C, decode slots B). The contracts are
 * spelled out at the top of decoder_entries.c; the bundle writes them into its manifest.
 */
#ifndef TS_MODELS_DECODER_ENTRIES_H
#define TS_MODELS_DECODER_ENTRIES_H

#include "models/decoder.h"

typedef enum ts_entry {
    TS_ENTRY_PREFILL = 0,
    TS_ENTRY_PREFILL_EMBEDDINGS,
    TS_ENTRY_DECODE,
    TS_ENTRY_COUNT
} ts_entry;

typedef struct ts_entry_shape {
    int64_t capacity;         /* C: KV rows per sequence */
    int64_t prefill_capacity; /* Lp */
    int64_t slots;            /* B (decode) */
} ts_entry_shape;

const char *ts_entry_name(ts_entry entry);
ts_status ts_decoder_build_entry(ts_graph *g, const ts_decoder_spec *spec, const ts_weight_source *source,
                                 ts_entry entry, const ts_entry_shape *shape, ts_error *err);

#endif
