/* preprocessor_config.c — preprocessor_config.json → ts_preprocessor_config.
 *
 * Which defaults apply depends on image_processor_type, as in transformers, so the class is looked
 * up first (ts_image_processor_class_find, src/loader/processor_class.h) and its defaults filled
 * before the file's keys are read over them. The keys every class has are read here; the size
 * keys are the class's `read` hook where it has one (the patch-merge processors read
 * size.shortest_edge / longest_edge as pixel counts), otherwise edge lengths. A class Tessera has
 * no defaults for must state image_mean and image_std. Without a preprocessor_config.json the
 * image_processor object of processor_config.json is read (transformers 5 saves a multimodal
 * processor's settings in that one file: Phi4MultimodalProcessor).
 */
#include "base/error.h"
#include "base/file.h"
#include "loader/json_fields.h"
#include "loader/processor_class.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const double ts_openai_clip_mean[3] = {0.48145466, 0.4578275, 0.40821073};
const double ts_openai_clip_std[3] = {0.26862954, 0.26130258, 0.27577711};
const double ts_half_mean_std[3] = {0.5, 0.5, 0.5};

bool ts_image_processor_type_is(const char *type, const char *name)
{
    size_t n = strlen(name);
    return strncmp(type, name, n) == 0 && (!type[n] || strcmp(type + n, "Fast") == 0);
}

static void set_defaults(const ts_image_processor_class *cls, ts_preprocessor_config *p)
{
    p->do_resize = p->do_rescale = p->do_normalize = p->do_convert_rgb = true;
    p->rescale_factor = 1.0 / 255.0;
    p->resample = 3;
    if (cls) cls->defaults(p);
}

static ts_status read_triple(const ts_json_reader *r, const cJSON *root, const char *key,
                             bool required, double out[3])
{
    if (ts_json_absent(root, key)) return required ? ts_json_missing(r, key) : TS_OK;
    double v[3];
    int n = 0;
    TS_TRY(ts_json_double_list(r, root, key, v, 3, &n));
    if (n != 3) return ts_json_wrong_type(r, key, "three numbers (one per RGB channel)");
    memcpy(out, v, sizeof(v));
    return TS_OK;
}

ts_status ts_processor_read_box(const ts_json_reader *parent, const cJSON *root, const char *key,
                                int64_t *height, int64_t *width, int64_t *shortest,
                                int64_t *longest)
{
    const cJSON *box = ts_json_member(root, key);
    if (!box) return TS_OK;
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "%s.", key);
    ts_json_reader r = {parent->origin, prefix, parent->err};
    /* A bare integer is the old spelling of a square size. */
    if (cJSON_IsNumber(box)) {
        int64_t edge;
        TS_TRY(ts_json_int(parent, root, key, 0, &edge));
        *height = *width = edge;
        return TS_OK;
    }
    if (!cJSON_IsObject(box)) return ts_json_wrong_type(parent, key, "an object");
    bool has_hw = !ts_json_absent(box, "height") || !ts_json_absent(box, "width");
    if (has_hw) {
        TS_TRY(ts_json_int_required(&r, box, "height", height));
        TS_TRY(ts_json_int_required(&r, box, "width", width));
    }
    if (shortest) TS_TRY(ts_json_int(&r, box, "shortest_edge", *shortest, shortest));
    if (longest) TS_TRY(ts_json_int(&r, box, "longest_edge", *longest, longest));
    if (has_hw && shortest && !ts_json_absent(box, "shortest_edge"))
        return ts_error_set(r.err, TS_ERR_FORMAT,
                            "%s: %s: give either height/width or shortest_edge, not both", r.origin,
                            key);
    return TS_OK;
}

static ts_status parse_root(const cJSON *root, const char *origin, const char *prefix,
                            ts_preprocessor_config *p, ts_error *err)
{
    ts_json_reader r = {origin, prefix, err};
    if (!cJSON_IsObject(root))
        return ts_error_set(err, TS_ERR_FORMAT, "%s: expected a JSON object at the top level",
                            origin);
    TS_TRY(ts_json_string(&r, root, "image_processor_type", "", p->image_processor_type,
                          sizeof(p->image_processor_type)));
    TS_TRY(ts_json_string(&r, root, "processor_class", "", p->processor_class,
                          sizeof(p->processor_class)));
    const ts_image_processor_class *cls = ts_image_processor_class_find(p->image_processor_type);
    set_defaults(cls, p);

    TS_TRY(read_triple(&r, root, "image_mean", !cls, p->image_mean));
    TS_TRY(read_triple(&r, root, "image_std", !cls, p->image_std));
    for (int c = 0; c < 3; c++)
        if (!(p->image_std[c] > 0))
            return ts_error_set(err, TS_ERR_RANGE, "%s: image_std[%d] is %g, expected > 0", origin,
                                c, p->image_std[c]);
    TS_TRY(ts_json_bool(&r, root, "do_resize", p->do_resize, &p->do_resize));
    TS_TRY(ts_json_bool(&r, root, "do_rescale", p->do_rescale, &p->do_rescale));
    TS_TRY(ts_json_double(&r, root, "rescale_factor", p->rescale_factor, &p->rescale_factor));
    TS_TRY(ts_json_bool(&r, root, "do_normalize", p->do_normalize, &p->do_normalize));
    TS_TRY(ts_json_bool(&r, root, "do_center_crop", p->do_center_crop, &p->do_center_crop));
    TS_TRY(ts_json_bool(&r, root, "do_convert_rgb", p->do_convert_rgb, &p->do_convert_rgb));
    int64_t resample;
    TS_TRY(ts_json_int(&r, root, "resample", p->resample, &resample));
    if (resample < 0 || resample > 5)
        return ts_error_set(err, TS_ERR_RANGE, "%s: resample %lld is not a PIL filter (0-5)",
                            origin, (long long)resample);
    p->resample = (int)resample;
    TS_TRY(ts_json_bool(&r, root, "do_pan_and_scan", false, &p->do_pan_and_scan));
    /* Only a class with pan-and-scan reads its keys; another class asking for it is refused. */
    if (p->do_pan_and_scan && !(cls && cls->pan_and_scan))
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "%s: do_pan_and_scan: true is not supported for %s (its processor "
                            "has no pan-and-scan)",
                            origin, p->image_processor_type);
    if (cls && cls->pan_and_scan) {
        TS_TRY(ts_json_int(&r, root, "pan_and_scan_min_crop_size", p->pan_and_scan_min_crop_size,
                           &p->pan_and_scan_min_crop_size));
        TS_TRY(ts_json_int(&r, root, "pan_and_scan_max_num_crops", p->pan_and_scan_max_num_crops,
                           &p->pan_and_scan_max_num_crops));
        TS_TRY(ts_json_double(&r, root, "pan_and_scan_min_ratio_to_activate",
                              p->pan_and_scan_min_ratio_to_activate,
                              &p->pan_and_scan_min_ratio_to_activate));
        if (p->do_pan_and_scan &&
            (p->pan_and_scan_min_crop_size < 1 || p->pan_and_scan_max_num_crops < 1 ||
             !(p->pan_and_scan_min_ratio_to_activate > 0) ||
             !isfinite(p->pan_and_scan_min_ratio_to_activate)))
            return ts_error_set(err, TS_ERR_RANGE,
                                "%s: pan-and-scan needs pan_and_scan_min_crop_size >= 1 (%lld), "
                                "pan_and_scan_max_num_crops >= 1 (%lld) and a positive "
                                "pan_and_scan_min_ratio_to_activate (%g)",
                                origin, (long long)p->pan_and_scan_min_crop_size,
                                (long long)p->pan_and_scan_max_num_crops,
                                p->pan_and_scan_min_ratio_to_activate);
    }

    if (cls && cls->read) return cls->read(&r, root, p);
    if (!ts_json_absent(root, "size")) {
        /* The file's size replaces the class default entirely, not key by key. */
        p->size_height = p->size_width = p->size_shortest_edge = 0;
    }
    TS_TRY(ts_processor_read_box(&r, root, "size", &p->size_height, &p->size_width,
                                 &p->size_shortest_edge, &p->size_longest_edge));
    if (!ts_json_absent(root, "crop_size")) p->crop_height = p->crop_width = 0;
    TS_TRY(
        ts_processor_read_box(&r, root, "crop_size", &p->crop_height, &p->crop_width, NULL, NULL));
    TS_TRY(ts_json_int(&r, root, "patch_size", 0, &p->patch_size));
    return TS_OK;
}

ts_status ts_preprocessor_config_load(const char *dir, ts_preprocessor_config *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    char path[4096];
    TS_TRY(ts_path_join(path, sizeof(path), dir, "preprocessor_config.json", err));
    /* transformers 5 saves a multimodal processor's settings as one processor_config.json, the
     * image processor's under "image_processor" (Phi4MultimodalProcessor's checkpoints). */
    bool nested = !ts_file_exists(path);
    if (nested) TS_TRY(ts_path_join(path, sizeof(path), dir, "processor_config.json", err));
    if (!ts_file_exists(path))
        return ts_error_set(err, TS_ERR_NOT_FOUND, "%s: no preprocessor_config.json or processor_config.json",
                            dir);
    cJSON *root = NULL;
    ts_status st = ts_json_read_file(path, &root, err);
    const cJSON *o = nested && !st ? ts_json_member(root, "image_processor") : root;
    if (!st && !o) st = ts_error_set(err, TS_ERR_NOT_FOUND, "%s: no image_processor object", path);
    if (!st) st = parse_root(o, path, nested ? "image_processor." : "", out, err);
    cJSON_Delete(root);
    return st;
}
