/* preprocessor_config.c — preprocessor_config.json → ts_preprocessor_config.
 *
 * Which defaults apply depends on image_processor_type, as in transformers, so the class is looked
 * up first and its defaults filled before the file's keys are read over them. Qwen2-VL-style
 * processors express the pixel budget either as min_pixels/max_pixels or as size.shortest_edge /
 * size.longest_edge (Qwen3-VL); both land in min_pixels/max_pixels. For CLIP-style processors
 * size.shortest_edge is an edge length and stays in size_shortest_edge only.
 */
#include "base/error.h"
#include "base/file.h"
#include "loader/json_fields.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double openai_clip_mean[3] = {0.48145466, 0.4578275, 0.40821073};
static const double openai_clip_std[3] = {0.26862954, 0.26130258, 0.27577711};
static const double half[3] = {0.5, 0.5, 0.5};

typedef enum processor_kind { KIND_OTHER, KIND_QWEN2_VL, KIND_CLIP, KIND_SIGLIP, KIND_GEMMA3 } processor_kind;

static processor_kind kind_of(const char *type)
{
    static const struct {
        const char *prefix;
        processor_kind kind;
    } kinds[] = {{"Qwen2VLImageProcessor", KIND_QWEN2_VL},
                 {"CLIPImageProcessor", KIND_CLIP},
                 {"SiglipImageProcessor", KIND_SIGLIP},
                 {"Gemma3ImageProcessor", KIND_GEMMA3}};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        size_t n = strlen(kinds[i].prefix);
        /* "…Fast" is the same processor with a torch backend; same defaults. */
        if (strncmp(type, kinds[i].prefix, n) == 0 && (!type[n] || strcmp(type + n, "Fast") == 0))
            return kinds[i].kind;
    }
    return KIND_OTHER;
}

static void set_defaults(processor_kind kind, ts_preprocessor_config *p)
{
    p->do_resize = p->do_rescale = p->do_normalize = p->do_convert_rgb = true;
    p->rescale_factor = 1.0 / 255.0;
    p->resample = 3;
    switch (kind) {
    case KIND_QWEN2_VL: /* Qwen2VLImageProcessor */
        memcpy(p->image_mean, openai_clip_mean, sizeof(p->image_mean));
        memcpy(p->image_std, openai_clip_std, sizeof(p->image_std));
        p->patch_size = 14;
        p->temporal_patch_size = 2;
        p->merge_size = 2;
        p->min_pixels = 56 * 56;
        p->max_pixels = 28 * 28 * 1280;
        break;
    case KIND_CLIP: /* CLIPImageProcessor */
        memcpy(p->image_mean, openai_clip_mean, sizeof(p->image_mean));
        memcpy(p->image_std, openai_clip_std, sizeof(p->image_std));
        p->size_shortest_edge = 224;
        p->do_center_crop = true;
        p->crop_height = p->crop_width = 224;
        break;
    case KIND_SIGLIP: /* SiglipImageProcessor */
        memcpy(p->image_mean, half, sizeof(p->image_mean));
        memcpy(p->image_std, half, sizeof(p->image_std));
        p->size_height = p->size_width = 224;
        break;
    case KIND_GEMMA3: /* Gemma3ImageProcessor */
        memcpy(p->image_mean, half, sizeof(p->image_mean));
        memcpy(p->image_std, half, sizeof(p->image_std));
        p->size_height = p->size_width = 224;
        p->resample = 2;
        p->pan_and_scan_min_crop_size = 256, p->pan_and_scan_max_num_crops = 4;
        p->pan_and_scan_min_ratio_to_activate = 1.2;
        break;
    case KIND_OTHER:
        break;
    }
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

static ts_status read_box(const ts_json_reader *parent, const cJSON *root, const char *key,
                          int64_t *height, int64_t *width, int64_t *shortest, int64_t *longest)
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

static ts_status parse_root(const cJSON *root, const char *origin, ts_preprocessor_config *p,
                            ts_error *err)
{
    ts_json_reader r = {origin, "", err};
    if (!cJSON_IsObject(root))
        return ts_error_set(err, TS_ERR_FORMAT, "%s: expected a JSON object at the top level", origin);
    TS_TRY(ts_json_string(&r, root, "image_processor_type", "", p->image_processor_type,
                          sizeof(p->image_processor_type)));
    TS_TRY(ts_json_string(&r, root, "processor_class", "", p->processor_class,
                          sizeof(p->processor_class)));
    processor_kind kind = kind_of(p->image_processor_type);
    set_defaults(kind, p);

    TS_TRY(read_triple(&r, root, "image_mean", kind == KIND_OTHER, p->image_mean));
    TS_TRY(read_triple(&r, root, "image_std", kind == KIND_OTHER, p->image_std));
    for (int c = 0; c < 3; c++)
        if (!(p->image_std[c] > 0))
            return ts_error_set(err, TS_ERR_RANGE, "%s: image_std[%d] is %g, expected > 0", origin, c,
                                p->image_std[c]);
    TS_TRY(ts_json_bool(&r, root, "do_resize", p->do_resize, &p->do_resize));
    TS_TRY(ts_json_bool(&r, root, "do_rescale", p->do_rescale, &p->do_rescale));
    TS_TRY(ts_json_double(&r, root, "rescale_factor", p->rescale_factor, &p->rescale_factor));
    TS_TRY(ts_json_bool(&r, root, "do_normalize", p->do_normalize, &p->do_normalize));
    TS_TRY(ts_json_bool(&r, root, "do_center_crop", p->do_center_crop, &p->do_center_crop));
    TS_TRY(ts_json_bool(&r, root, "do_convert_rgb", p->do_convert_rgb, &p->do_convert_rgb));
    int64_t resample;
    TS_TRY(ts_json_int(&r, root, "resample", p->resample, &resample));
    if (resample < 0 || resample > 5)
        return ts_error_set(err, TS_ERR_RANGE, "%s: resample %lld is not a PIL filter (0-5)", origin,
                            (long long)resample);
    p->resample = (int)resample;
    TS_TRY(ts_json_bool(&r, root, "do_pan_and_scan", false, &p->do_pan_and_scan));
    /* Only Gemma3ImageProcessor has pan-and-scan; another class asking for it is refused. */
    if (p->do_pan_and_scan && kind != KIND_GEMMA3)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "%s: do_pan_and_scan: true is not supported for %s (only "
                            "Gemma3ImageProcessor has it)",
                            origin, p->image_processor_type);
    if (kind == KIND_GEMMA3) {
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

    if (kind == KIND_QWEN2_VL) {
        /* size.{shortest,longest}_edge are pixel counts here; explicit min/max_pixels win. */
        TS_TRY(read_box(&r, root, "size", &p->size_height, &p->size_width, &p->min_pixels,
                        &p->max_pixels));
        TS_TRY(ts_json_int(&r, root, "min_pixels", p->min_pixels, &p->min_pixels));
        TS_TRY(ts_json_int(&r, root, "max_pixels", p->max_pixels, &p->max_pixels));
        TS_TRY(ts_json_int(&r, root, "patch_size", p->patch_size, &p->patch_size));
        TS_TRY(ts_json_int(&r, root, "temporal_patch_size", p->temporal_patch_size,
                           &p->temporal_patch_size));
        TS_TRY(ts_json_int(&r, root, "merge_size", p->merge_size, &p->merge_size));
        if (p->min_pixels <= 0 || p->max_pixels < p->min_pixels || p->patch_size <= 0 ||
            p->temporal_patch_size <= 0 || p->merge_size <= 0)
            return ts_error_set(err, TS_ERR_RANGE,
                                "%s: need 0 < min_pixels (%lld) <= max_pixels (%lld) and positive "
                                "patch_size, temporal_patch_size, merge_size",
                                origin, (long long)p->min_pixels, (long long)p->max_pixels);
    } else {
        if (!ts_json_absent(root, "size")) {
            /* The file's size replaces the class default entirely, not key by key. */
            p->size_height = p->size_width = p->size_shortest_edge = 0;
        }
        TS_TRY(read_box(&r, root, "size", &p->size_height, &p->size_width, &p->size_shortest_edge,
                        &p->size_longest_edge));
        if (!ts_json_absent(root, "crop_size")) p->crop_height = p->crop_width = 0;
        TS_TRY(read_box(&r, root, "crop_size", &p->crop_height, &p->crop_width, NULL, NULL));
        TS_TRY(ts_json_int(&r, root, "patch_size", 0, &p->patch_size));
    }
    return TS_OK;
}

ts_status ts_preprocessor_config_load(const char *dir, ts_preprocessor_config *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    char path[4096];
    TS_TRY(ts_path_join(path, sizeof(path), dir, "preprocessor_config.json", err));
    if (!ts_file_exists(path))
        return ts_error_set(err, TS_ERR_NOT_FOUND, "%s: no such file", path);
    char *text = NULL;
    size_t len = 0;
    TS_TRY(ts_file_read(path, &text, &len, err));
    cJSON *root = NULL;
    ts_status st = ts_json_parse_text(text, len, path, &root, err);
    if (!st) st = parse_root(root, path, out, err);
    cJSON_Delete(root);
    free(text);
    return st;
}
