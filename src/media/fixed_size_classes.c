/* fixed_size_classes.c — the image processor classes ts_clip_preprocess implements (resize to a
 * fixed size or shortest edge, optional center crop): their transformers __init__ defaults. They
 * read size and crop_size as edge lengths, the loader's default reading (processor_class.h).
 */
#include "loader/processor_class.h"

#include <string.h>

/* CLIPImageProcessor: shortest edge 224 keeping the aspect ratio, then a 224×224 crop. */
static void shortest_edge_crop_defaults(ts_preprocessor_config *p)
{
    memcpy(p->image_mean, ts_openai_clip_mean, sizeof(p->image_mean));
    memcpy(p->image_std, ts_openai_clip_std, sizeof(p->image_std));
    p->size_shortest_edge = 224;
    p->do_center_crop = true;
    p->crop_height = p->crop_width = 224;
}

/* SiglipImageProcessor: 224×224, bicubic, mean = std = 0.5. */
void ts_square_processor_defaults(ts_preprocessor_config *p)
{
    memcpy(p->image_mean, ts_half_mean_std, sizeof(p->image_mean));
    memcpy(p->image_std, ts_half_mean_std, sizeof(p->image_std));
    p->size_height = p->size_width = 224;
}


const ts_image_processor_class ts_clip_image_processor = {
    .type = "CLIPImageProcessor",
    .defaults = shortest_edge_crop_defaults,
};
const ts_image_processor_class ts_siglip_image_processor = {
    .type = "SiglipImageProcessor",
    .defaults = ts_square_processor_defaults,
};
