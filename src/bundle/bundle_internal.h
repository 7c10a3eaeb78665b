/* bundle_internal.h — what the bundle runtime (bundle.c) shares with its image encoding
 * (bundle_vision.c): the loaded bundle itself, and the argument binding and range check both
 * layers of validation use. Not for callers outside src/bundle.
 */
#ifndef TS_BUNDLE_INTERNAL_H
#define TS_BUNDLE_INTERNAL_H

#include "bundle/bundle.h"
#include "bundle/manifest.h"
#include "cpu/executor.h"
#include "tessera.h"

/* A bundle opened against its model folder: manifest, mapped checkpoint, one program per module. */
struct ts_bundle {
    ts_context *ctx;
    ts_manifest man;
    ts_checkpoint *ckpt;
    ts_checkpoint *quant; /* the bundle's quantized tensors (bundle_quant.h), or NULL */
    ts_checkpoint *held;  /* the weights the bundle holds itself (bundle_tensors.h), or NULL */
    int64_t vocab;
    ts_graph *graphs[TS_BUNDLE_MAX_BUCKETS][TS_ENTRY_COUNT];
    ts_program *programs[TS_BUNDLE_MAX_BUCKETS][TS_ENTRY_COUNT];
    void **params[TS_BUNDLE_MAX_BUCKETS][TS_ENTRY_COUNT];
    /* vision.main, one per patch bucket (man.vision.n_buckets of them). */
    ts_graph *vision_graphs[TS_BUNDLE_MAX_BUCKETS];
    ts_program *vision_programs[TS_BUNDLE_MAX_BUCKETS];
    void **vision_params[TS_BUNDLE_MAX_BUCKETS];
    /* audio.main, one per duration bucket (man.audio.n_buckets of them). */
    ts_graph *audio_graphs[TS_BUNDLE_MAX_BUCKETS];
    ts_program *audio_programs[TS_BUNDLE_MAX_BUCKETS];
    void **audio_params[TS_BUNDLE_MAX_BUCKETS];
};

/* Every value of data (n i32) within lo … hi, else TS_ERR_RANGE naming entry, name, index. */
ts_status ts_bundle_range_i32(const void *data, int64_t n, int64_t lo, int64_t hi,
                              const char *entry, const char *name, ts_error *err);
/* Binds the non-weight arguments after checking them against the module graph's own parameters
 * (the second validation layer); data[a] gets argument a's bytes for the value checks. */
ts_status ts_bundle_bind_args(const ts_graph *g, int n_weights, void **params, const char *entry,
                              const ts_tensor_arg *args, int n_args, const void **data,
                              ts_error *err);
/* K of the bundle's vision.main deepstack result (0 when it has none). */
int ts_bundle_vision_levels(const ts_bundle *bundle);

#endif
