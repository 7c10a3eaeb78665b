/* vision_entry.h — vision.main, a family's tower as a bundle entry (the contracts are at the top
 * of vision_entry.c): patch-row towers in static patch-count buckets, fixed-size towers for their
 * one image size. The geometry is ts_vision_entry_geometry (models/tower.h).
 *
 * Each layout the manifest may name is one ts_vision_layout: its argument names, its result
 * count, and the host side that turns a request's pixel values into the entry's arguments for a
 * bucket, plus the value checks made on those arguments at the runtime boundary. The bundle runtime
 * (src/bundle/bundle_vision.c) finds the layout by name and knows nothing else about it; a new
 * layout is one entry in the table of vision_entry.c.
 */
#ifndef TS_MODELS_VISION_ENTRY_H
#define TS_MODELS_VISION_ENTRY_H

#include "models/decoder.h"
#include "models/tower.h"

ts_status ts_vision_entry_geometry_of(const ts_model_config *cfg,
                                      ts_vision_entry_geometry *geometry, ts_error *err);
ts_status ts_vision_entry_build(ts_graph *g, const ts_model_config *cfg,
                                const ts_weight_source *source, int64_t n_patches, ts_error *err);

#define TS_VISION_MAX_ARGS 8

/* One vision.main call's non-weight arguments, in the entry's order. The buffers are owned
 * (free with ts_vision_call_free); `tokens` says how many rows of each result are the images'
 * (the rows after them are the bucket's padding). */
typedef struct ts_vision_arg {
    const char *name;
    ts_type type;
    const void *data;
    size_t n_bytes;
} ts_vision_arg;

typedef struct ts_vision_call {
    int n_args;
    ts_vision_arg args[TS_VISION_MAX_ARGS];
    void *owned[TS_VISION_MAX_ARGS];
    int32_t count; /* patch-row layouts: the real rows (the count argument's value) */
    int64_t tokens;
} ts_vision_call;

void ts_vision_call_free(ts_vision_call *call);
/* Appends an argument with a zeroed buffer of its type's bytes (owned by the call); NULL when out
 * of memory or out of argument slots. */
void *ts_vision_call_add(ts_vision_call *call, const char *name, ts_dtype dtype, int rank,
                         const int64_t *dims);
/* Appends count i32[] = call->count (its data is call->count itself: do not copy the call). */
void ts_vision_call_add_count(ts_vision_call *call);

typedef struct ts_vision_layout {
    const char *name;
    int n_inputs;
    const char *const *inputs; /* argument names after the weights, in order */
    int n_results;             /* 1: image_embeds; 2: and deepstack f32[K, tokens, out_hidden] */
    /* The argument and result types of a bucket of n patches whose pixel_values rows are d
     * floats wide (the bundle checks its manifest against them at open); NULL for a layout of
     * one fixed-size picture per call, whose one bucket the bundle checks itself. */
    void (*types)(const ts_vision_entry_geometry *geo, int64_t n, int64_t d, ts_type *inputs,
                  ts_type *results);
    /* The images checked against `pixels` (the bucket's pixel_values type): how many calls they
     * take and the patch rows each call needs (admission takes the smallest bucket that holds
     * them). */
    ts_status (*plan)(const ts_vision_entry_geometry *geo, const ts_type *pixels,
                      const ts_pixel_values *images, int n_images, int *n_calls, int64_t *rows,
                      ts_error *err);
    /* Call `call` of the plan for a bucket of n patches. */
    ts_status (*prepare)(const ts_vision_entry_geometry *geo, const ts_type *pixels,
                         const ts_pixel_values *images, int n_images, int call, int64_t n,
                         ts_vision_call *out, ts_error *err);
    /* The values of the arguments (data in input order, shapes already checked against the
     * bucket's, `pixels` its pixel_values type) for a bucket of n patches; every call runs it at
     * the API and again at execution. */
    ts_status (*check)(const ts_vision_entry_geometry *geo, const ts_type *pixels, int64_t n,
                       const void *const *data, ts_error *err);
} ts_vision_layout;

/* The layout named `name`, NULL when there is none. */
const ts_vision_layout *ts_vision_layout_find(const char *name);
/* "a, b, c": the layout names, for messages. */
const char *ts_vision_layout_names(void);

/* The layouts of the table (defined beside the towers that export them). */
extern const ts_vision_layout ts_vision_layout_patch_rows, ts_vision_layout_patch_rows_windowed,
    ts_vision_layout_patch_rows_deepstack, ts_vision_layout_hd_views;

/* What the patch-row layouts share: count a multiple of merge² in merge²..n, positions in 0..n−1,
 * segments in −1..n−1, no NaN pixel (n · patch_dim of them). Messages name vision.main. */
ts_status ts_vision_check_patch_rows(const ts_vision_entry_geometry *geo, int64_t n,
                                     int64_t patch_dim, const float *pixels,
                                     const int32_t *positions, const int32_t *segments,
                                     int32_t count, ts_error *err);
/* No NaN among `values` pixel values, else TS_ERR_RANGE naming vision.main and the index. */
ts_status ts_vision_check_pixels(const float *pixels, int64_t values, ts_error *err);
/* Every value of data (n i32) within lo … hi, else TS_ERR_RANGE naming vision.main, name, index. */
ts_status ts_vision_check_range(const int32_t *data, int64_t n, int64_t lo, int64_t hi,
                                const char *name, ts_error *err);

#endif
