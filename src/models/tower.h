/* tower.h — a family's image tower, as the engine runs it and the bundle exporter writes it.
 *
 * Contract: a tower is a graph built for a patch count (its only static shape) over the model's
 * mapped weights, plus the host-side work that turns pixel values into that graph's inputs. The
 * engine owns graphs and programs (ts_tower_runner: one program kept per patch count); the tower
 * only says what to build and which inputs to bind. Rows are what the language model receives:
 * one per image token, `width` floats each, in prompt order; a tower with side outputs (DeepStack)
 * gives `levels` blocks of rows, [levels][rows][width], the main rows first. Every image's rows
 * depend on that image alone, which is what lets the engine cache them per image.
 */
#ifndef TS_MODELS_TOWER_H
#define TS_MODELS_TOWER_H

#include "graph/graph.h"
#include "tessera.h"

struct ts_weight_source;

/* Images one call may carry (a request, or one batch of the server's media stage). */
#define TS_MAX_IMAGES 64

/* What the manifest records about vision.main. layout: "patch_rows" (pixel_values, positions,
 * segments, count), "patch_rows_windowed" (pixel_values, positions, segments, windows,
 * window_index, count), "patch_rows_deepstack" (pixel_values, positions, segments, pos_index,
 * pos_weight, count; results image_embeds and deepstack), "fixed_image" (one pixel_values
 * f32[C, S, S] per run) or "hd_views" (an HD image's views in a bucket of V views: pixel_values,
 * positions, key_bias, layout); see models/vision_entry.c. */
typedef struct ts_vision_entry_geometry {
    const char *layout;
    int64_t patch, temporal, merge, width, depth, out_hidden;
    int64_t image_patches; /* fixed_image: the only bucket (S/P)²; hd_views: one view's (S/P)²;
                              0 for patch_rows */
    int deepstack;         /* patch_rows_deepstack: K, the DeepStack levels; else 0 */
    int64_t
        position_embeddings; /* patch_rows_deepstack: rows of the learned position table; else 0 */
    int64_t window;          /* patch_rows_windowed: merge units per window side; else 0 */
} ts_vision_entry_geometry;

/* The engine's side: runs the graph the tower builds for n_patches (built on first use, kept
 * for the next call of the same size) with the non-weight inputs in parameter order. outputs
 * are borrowed until the next run. */
typedef struct ts_tower_runner ts_tower_runner;
ts_status ts_tower_run(ts_tower_runner *runner, int64_t n_patches, void *const *inputs,
                       int n_inputs, const void **outputs, ts_error *err);
/* The weights the runner's graphs read, for a tower's host-side stages (borrowed). */
const struct ts_weight_source *ts_tower_weights(const ts_tower_runner *runner);

typedef struct ts_tower_ops {
    /* The tower's settings from the config, checked, into spec (spec_size bytes, the engine's). */
    size_t spec_size;
    ts_status (*init)(const ts_model_config *cfg, void *spec, ts_error *err);
    /* The graph for n_patches into the empty g; every weight checked, errors name the tensor. */
    ts_status (*build)(ts_graph *g, const void *spec, const struct ts_weight_source *weights,
                       int64_t n_patches, ts_error *err);
    /* The smallest patch count a graph can have (built at load to check every weight). */
    int64_t (*smallest)(const void *spec);
    int (*levels)(const void *spec);    /* 1, or 1 + the DeepStack levels */
    int64_t (*width)(const void *spec); /* the language model's hidden size */
    /* The image tokens a prompt needs for pv (what ts_prompt_expand_images takes). */
    int64_t (*image_tokens)(const void *spec, const ts_pixel_values *pv);
    /* The rows pv makes, from its header alone; 0 when the header is not plausible. */
    int64_t (*image_rows)(const void *spec, const ts_pixel_values *pv);
    /* Every level of the images' rows, *out [levels][*rows][width] (owned). */
    ts_status (*encode)(const void *spec, ts_tower_runner *runner, const ts_pixel_values *images,
                        int n_images, float **out, int64_t *rows, ts_error *err);
    /* vision.main: the manifest's geometry and the entry's graph for a bucket (NULL: none). */
    ts_status (*entry_geometry)(const ts_model_config *cfg, ts_vision_entry_geometry *geometry,
                                ts_error *err);
    ts_status (*entry_build)(ts_graph *g, const ts_model_config *cfg,
                             const struct ts_weight_source *weights, int64_t n_patches,
                             ts_error *err);
} ts_tower_ops;

#endif
