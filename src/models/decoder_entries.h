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
    TS_ENTRY_PREFILL_EMBEDDINGS_DEEPSTACK, /* only for a spec that declares DeepStack */
    TS_ENTRY_COUNT
} ts_entry;

typedef struct ts_entry_shape {
    int64_t capacity;         /* C: KV rows per sequence */
    int64_t prefill_capacity; /* Lp */
    int64_t slots;            /* B (decode) */
} ts_entry_shape;

/* The ordinary entries (prefill, prefill_embeddings, decode) come first in every bucket; a spec
 * with DeepStack adds prefill_embeddings_deepstack.main after them. */
#define TS_ENTRY_ORDINARY 3
/* Entries per bucket for this spec: TS_ENTRY_ORDINARY, or TS_ENTRY_COUNT with DeepStack. */
int ts_decoder_entry_count(const ts_decoder_spec *spec);
/* The DeepStack entry's static maximum of image rows Nv_max for a bucket: its prefill capacity
 * Lp (every prompt row could be an image row, so any admitted prompt fits). */
int64_t ts_entry_visual_capacity(const ts_entry_shape *shape);

const char *ts_entry_name(ts_entry entry);
ts_status ts_decoder_build_entry(ts_graph *g, const ts_decoder_spec *spec, const ts_weight_source *source,
                                 ts_entry entry, const ts_entry_shape *shape, ts_error *err);

#endif
