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
    TS_ENTRY_DECODE_K,                     /* only for a bundle exported with a draft width */
    TS_ENTRY_COUNT
} ts_entry;

typedef struct ts_entry_shape {
    int64_t capacity;         /* C: KV rows per sequence */
    int64_t prefill_capacity; /* Lp */
    int64_t slots;            /* B (decode) */
    int64_t draft_width;      /* K: rows per slot of decode_k.main (2..TS_ENTRY_MAX_DRAFT_WIDTH); 0 = none */
} ts_entry_shape;

/* decode_k.main's widest verify: the pending token and up to 15 drafts per slot. */
#define TS_ENTRY_MAX_DRAFT_WIDTH 16

/* The ordinary entries (prefill, prefill_embeddings, decode) come first in every bucket; the
 * optional ones follow in enum order: prefill_embeddings_deepstack.main for a spec with DeepStack,
 * decode_k.main for a bundle exported with a draft width. */
#define TS_ENTRY_ORDINARY 3
/* The DeepStack entry's static maximum of image rows Nv_max for a bucket: its prefill capacity
 * Lp (every prompt row could be an image row, so any admitted prompt fits). */
int64_t ts_entry_visual_capacity(const ts_entry_shape *shape);

const char *ts_entry_name(ts_entry entry);
ts_status ts_decoder_build_entry(ts_graph *g, const ts_decoder_spec *spec, const ts_weight_source *source,
                                 ts_entry entry, const ts_entry_shape *shape, ts_error *err);

#endif
