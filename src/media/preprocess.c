/* preprocess.c — ts_preprocess_image: the family's image processor, for a config that names it.
 *
 * The config's image_processor_type names the algorithm (as AutoImageProcessor does); the family
 * lists the classes it accepts, so a model handed another family's processor config is an error,
 * not a guess.
 */
#include "base/error.h"
#include "loader/processor_class.h"
#include "models/family.h"

#include <stdlib.h>
#include <string.h>

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
    if (!family || !family->preprocess)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "preprocess image: family %s takes no images",
                            ts_family_name(family));
    for (const char *const *type = family->image_processors; type && *type; type++)
        if (ts_image_processor_type_is(cfg->image_processor_type, *type))
            return family->preprocess(cfg, rgb, width, height, budget, out, err);
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
