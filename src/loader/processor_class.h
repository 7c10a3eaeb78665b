/* processor_class.h — one transformers image processor class as preprocessor_config.json names
 * it: its defaults and how it reads its keys.
 *
 * Contract:
 *   - A class is immutable static data, defined by the processor that implements it (the
 *     fixed-size processors in src/media/fixed_size_classes.c, the patch-merge processor beside
 *     it in its family folder) and listed once in the registry (src/models/registry.c).
 *   - ts_preprocessor_config_load fills the class's defaults, reads the keys every class has,
 *     then calls `read` for the size keys; a class without `read` takes size and crop_size as
 *     edge lengths (transformers' get_size_dict reading), patch_size default 0.
 *   - Hooks report errors through r->err with the file and key in the message.
 */
#ifndef TS_LOADER_PROCESSOR_CLASS_H
#define TS_LOADER_PROCESSOR_CLASS_H

#include "loader/json_fields.h"
#include "tessera.h"

typedef struct ts_image_processor_class {
    const char *type; /* image_processor_type; its "…Fast" twin reads the same */
    /* The class's __init__ defaults, written over a config whose do_resize, do_rescale,
     * do_normalize, do_convert_rgb are true, rescale_factor 1/255 and resample 3 (bicubic). */
    void (*defaults)(ts_preprocessor_config *p);
    /* The size keys, when the class reads them otherwise than as edge lengths. */
    ts_status (*read)(const ts_json_reader *r, const cJSON *root, ts_preprocessor_config *p);
    /* The class crops large images into extra views when do_pan_and_scan asks (its
     * pan_and_scan_* keys are read; defaults from `defaults`); any other class refuses it. */
    bool pan_and_scan;
} ts_image_processor_class;

/* Whether an image_processor_type is `name` or its "…Fast" twin (the same processor with a
 * torch backend; the slow one is the contract). */
bool ts_image_processor_type_is(const char *type, const char *name);
/* The class of an image_processor_type (registry); NULL for one Tessera has no defaults for. */
const ts_image_processor_class *ts_image_processor_class_find(const char *type);

/* Reads root[key] as a size box: a bare integer (a square edge), {height, width}, or
 * {shortest_edge[, longest_edge]} (shortest/longest may be NULL: not accepted). Absent: left
 * as is. height/width together with shortest_edge is an error. */
ts_status ts_processor_read_box(const ts_json_reader *r, const cJSON *root, const char *key,
                                int64_t *height, int64_t *width, int64_t *shortest,
                                int64_t *longest);

/* SiglipImageProcessor's defaults: 224×224, bicubic, mean = std = 0.5 (classes that extend it
 * start from these). */
void ts_square_processor_defaults(ts_preprocessor_config *p);

/* The OpenAI CLIP normalisation constants and the [-1, 1] ones (mean = std = 0.5). */
extern const double ts_openai_clip_mean[3], ts_openai_clip_std[3], ts_half_mean_std[3];

#endif
