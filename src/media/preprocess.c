/* preprocess.c — ts_preprocess_image: picks the image processor for a family and config.
 *
 * The config's image_processor_type names the algorithm (as AutoImageProcessor does); the family
 * only has to agree with it, so a Qwen-VL model handed a CLIP config is an error, not a guess.
 */
#include "base/error.h"
#include "media/clip_processor.h"
#include "media/qwen_vl_processor.h"

#include <stdlib.h>
#include <string.h>

static bool type_is(const ts_preprocessor_config *cfg, const char *name)
{
    size_t n = strlen(name);
    const char *t = cfg->image_processor_type;
    /* "…Fast" is the same processor with another backend; the slow one is the contract. */
    return strncmp(t, name, n) == 0 && (!t[n] || strcmp(t + n, "Fast") == 0);
}

ts_status ts_preprocess_image(const ts_preprocessor_config *cfg, ts_family family,
                              const uint8_t *rgb, int width, int height,
                              const ts_image_budget *budget, ts_pixel_values *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!cfg || !rgb)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "preprocess image: no config or pixels");
    if (width <= 0 || height <= 0)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "preprocess image: image is %dx%d; both sides must be at least 1",
                            width, height);
    if (budget && (budget->min_pixels < 0 || budget->max_pixels < 0))
        return ts_error_set(
            err, TS_ERR_INVALID_ARGUMENT,
            "preprocess image: pixel budget min %lld, max %lld must not be negative",
            (long long)budget->min_pixels, (long long)budget->max_pixels);
    bool ok;
    switch (family) {
    case TS_FAMILY_QWEN2_VL:
    case TS_FAMILY_QWEN2_5_VL:
    case TS_FAMILY_QWEN3_VL:
    case TS_FAMILY_QWEN3_VL_MOE:
        ok = type_is(cfg, "Qwen2VLImageProcessor");
        if (ok) return ts_qwen_vl_preprocess(cfg, rgb, width, height, budget, out, err);
        break;
    case TS_FAMILY_LLAVA:
        ok = type_is(cfg, "CLIPImageProcessor") || type_is(cfg, "SiglipImageProcessor");
        if (ok) return ts_clip_preprocess(cfg, rgb, width, height, out, err);
        break;
    case TS_FAMILY_GEMMA3:
        ok = type_is(cfg, "Gemma3ImageProcessor") || type_is(cfg, "SiglipImageProcessor");
        if (ok) return ts_clip_preprocess(cfg, rgb, width, height, out, err);
        break;
    default:
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "preprocess image: family %s takes no images",
                            ts_family_name(family));
    }
    return ts_error_set(err, TS_ERR_UNSUPPORTED,
                        "preprocess image: image_processor_type \"%s\" is not supported for %s",
                        cfg->image_processor_type, ts_family_name(family));
}

void ts_pixel_values_free(ts_pixel_values *pv)
{
    if (!pv) return;
    free(pv->data);
    memset(pv, 0, sizeof(*pv));
}
