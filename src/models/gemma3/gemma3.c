/* gemma3.c — the Gemma3 family (Gemma3ForConditionalGeneration, and Gemma3ForCausalLM as
 * gemma3_text): config keys for sliding-window layers, logit soft-capping and the local rope,
 * a SigLIP vision_config, the Gemma3 image processor (pan-and-scan crops as extra views when
 * preprocessor_config asks), and its prompt rule (the start-of-image
 * placeholder becomes "\n\n", start, the image soft token × count, end, "\n\n"). The tower is
 * SigLIP with the average-pool projector (models/clip_vision.h); image tokens attend to each other
 * bidirectionally within their image during prefill (image_attention: the engine and the bundle
 * take it as the attention-bias side input ts_mm_inputs_build makes).
 */
#include "base/error.h"
#include "loader/config_keys.h"
#include "loader/processor_class.h"
#include "media/clip_processor.h"
#include "models/clip_vision.h"
#include "models/family.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Gemma3TextConfig: published Gemma3 configs omit most of these. */
static const ts_text_defaults gemma3_text = {
    "gemma3_text",       262208, 2304,  9216, 26, 8, 4, 256, 131072, 1e-6, 1000000.0,
    "gelu_pytorch_tanh", true,   false, false};

/* Newer files list layer_types instead of sliding_window_pattern; accept them when they
 * follow a period (every p-th layer full), which is all the architecture describes. */
static ts_status read_layer_types(const ts_json_reader *r, const cJSON *obj, ts_text_config *t)
{
    const cJSON *types = ts_json_member(obj, "layer_types");
    if (!types) return TS_OK;
    if (!cJSON_IsArray(types)) return ts_json_wrong_type(r, "layer_types", "a list of strings");
    int64_t pattern = 0, i = 0;
    for (const cJSON *v = types->child; v; v = v->next, i++) {
        if (!cJSON_IsString(v)) return ts_json_wrong_type(r, "layer_types", "a list of strings");
        if (strcmp(v->valuestring, "full_attention") == 0) {
            if (pattern == 0) pattern = i + 1;
        } else if (strcmp(v->valuestring, "sliding_attention") != 0) {
            return ts_error_set(r->err, TS_ERR_UNSUPPORTED,
                                "%s: %slayer_types[%lld]: \"%s\" is not supported", r->origin,
                                r->prefix, (long long)i, v->valuestring);
        }
    }
    if (pattern == 0) pattern = i + 1;
    i = 0;
    for (const cJSON *v = types->child; v; v = v->next, i++) {
        bool full = strcmp(v->valuestring, "full_attention") == 0;
        if (full != ((i + 1) % pattern == 0))
            return ts_error_set(r->err, TS_ERR_UNSUPPORTED,
                                "%s: %slayer_types: layers are not every %lld-th full attention",
                                r->origin, r->prefix, (long long)pattern);
    }
    t->sliding_window_pattern = pattern;
    return TS_OK;
}

static ts_status read_text(const ts_json_reader *r, const cJSON *obj, ts_text_config *t)
{
    TS_TRY(ts_json_int(r, obj, "sliding_window", 4096, &t->sliding_window));
    TS_TRY(ts_json_int(r, obj, "sliding_window_pattern", 6, &t->sliding_window_pattern));
    TS_TRY(read_layer_types(r, obj, t));
    bool bidirectional = false;
    TS_TRY(ts_json_bool(r, obj, "use_bidirectional_attention", false, &bidirectional));
    if (bidirectional)
        return ts_error_set(r->err, TS_ERR_UNSUPPORTED,
                            "%s: %suse_bidirectional_attention: true is not supported", r->origin,
                            r->prefix);
    TS_TRY(ts_json_double(r, obj, "query_pre_attn_scalar", 256, &t->query_pre_attn_scalar));
    TS_TRY(ts_json_double(r, obj, "final_logit_softcapping", 0, &t->final_logit_softcapping));
    TS_TRY(ts_json_double(r, obj, "attn_logit_softcapping", 0, &t->attn_logit_softcapping));
    /* rope_parameters.sliding_attention.rope_theta (read with the common rope keys) wins over
     * the older rope_local_base_freq. */
    if (t->rope_local_base_freq == 0)
        TS_TRY(ts_json_double(r, obj, "rope_local_base_freq", 10000.0, &t->rope_local_base_freq));
    return TS_OK;
}

static ts_status read_vision(const ts_json_reader *r, const cJSON *v, ts_model_config *c)
{
    return ts_config_vit_vision(r, v, "gemma3", false, c->text.hidden_size, &c->vision);
}

static ts_status read_media_ids(const ts_json_reader *r, const cJSON *root, ts_model_config *c)
{
    TS_TRY(ts_json_int(r, root, "image_token_index", 262144, &c->image_token_id));
    TS_TRY(ts_json_int(r, root, "image_token_id", c->image_token_id, &c->image_token_id));
    TS_TRY(ts_json_int(r, root, "boi_token_index", 255999, &c->vision_start_token_id));
    TS_TRY(ts_json_int(r, root, "eoi_token_index", 256000, &c->vision_end_token_id));
    TS_TRY(ts_config_dim(r, root, "mm_tokens_per_image", 256, &c->mm_tokens_per_image));
    return TS_OK;
}

/* Gemma3 layers: q/k norms, RMSNorm scaling by (1 + weight) everywhere, norms around both the
 * attention output and the MLP, token embeddings × √hidden, q·k scaled by
 * query_pre_attn_scalar^−½; every sliding_window_pattern-th layer is global (rope_theta and its
 * scaling), the others attend to the last sliding_window keys with rope_local_base_freq. */
static ts_status decoder(const ts_model_config *cfg, ts_decoder_spec *spec, ts_error *err)
{
    const ts_text_config *t = &cfg->text;
    if (cfg->has_vision) spec->prefix = "language_model.model.";
    spec->qk_norm = true;
    spec->embed_scale = (float)sqrt((double)t->hidden_size);
    spec->norm_offset = 1.0;
    spec->sandwich_norms = true;
    if (t->query_pre_attn_scalar <= 0)
        return ts_error_set(err, TS_ERR_RANGE, "config.json: query_pre_attn_scalar %g",
                            t->query_pre_attn_scalar);
    spec->attn_scale = pow(t->query_pre_attn_scalar, -0.5);
    spec->attn_softcap = t->attn_logit_softcapping > 0 ? t->attn_logit_softcapping : 0;
    spec->final_softcap = t->final_logit_softcapping > 0 ? t->final_logit_softcapping : 0;
    int64_t pattern = t->sliding_window_pattern;
    if (pattern < 1 || t->sliding_window < 1)
        return ts_error_set(
            err, TS_ERR_RANGE,
            "config.json: sliding_window %lld, sliding_window_pattern %lld (both ≥ 1)",
            (long long)t->sliding_window, (long long)pattern);
    spec->sliding_window = t->sliding_window;
    int max_layers = (int)(sizeof(spec->local_layer) / sizeof(spec->local_layer[0]));
    for (int64_t l = 0; l < t->num_hidden_layers && l < max_layers; l++)
        spec->local_layer[l] = (l + 1) % pattern != 0;
    spec->local_rope_theta = t->rope_local_base_freq;
    return TS_OK;
}

/* ---------------------------------------------------------------- tower */

static ts_status tower_init(const ts_model_config *cfg, void *spec, ts_error *err)
{
    return ts_clip_vision_pool_spec_init(cfg, spec, err);
}

/* SigLIP, then the average-pool projector: every image its mm_tokens_per_image rows; vision.main
 * runs one image at the tower's size per call (layout fixed_image). */
static const ts_tower_ops tower = {sizeof(ts_clip_vision_spec), tower_init,
                                   ts_clip_tower_build,         ts_clip_tower_smallest,
                                   ts_clip_tower_levels,        ts_clip_tower_width,
                                   ts_clip_tower_image_tokens,  ts_clip_tower_image_rows,
                                   ts_clip_tower_encode,        ts_clip_pool_entry_geometry,
                                   ts_clip_pool_entry_build};

/* ---------------------------------------------------------------- processor */

/* Gemma3ImageProcessor.pan_and_scan: how many crops along the long side (0: none), and their
 * size. As the reference computes it, in Python's floats: ratio below min_ratio_to_activate →
 * none; floor(ratio + 0.5) crops, no more than floor(long / min_crop_size), then clamped to
 * 2 … max_num_crops; each ceil(side / crops) wide; none when a crop would be under
 * min_crop_size. */
static int64_t pan_and_scan_crops(const ts_preprocessor_config *cfg, int width, int height,
                                  int64_t *crops_w, int64_t *crops_h, int64_t *crop_w,
                                  int64_t *crop_h)
{
    bool landscape = width >= height;
    double along = landscape ? width : height, across = landscape ? height : width;
    if (along / across < cfg->pan_and_scan_min_ratio_to_activate) return 0;
    int64_t n = (int64_t)floor(along / across + 0.5);
    int64_t fit = (int64_t)floor(along / (double)cfg->pan_and_scan_min_crop_size);
    if (fit < n) n = fit;
    if (n < 2) n = 2;
    if (n > cfg->pan_and_scan_max_num_crops) n = cfg->pan_and_scan_max_num_crops;
    *crops_w = landscape ? n : 1, *crops_h = landscape ? 1 : n;
    *crop_w = (int64_t)ceil((double)width / (double)*crops_w);
    *crop_h = (int64_t)ceil((double)height / (double)*crops_h);
    if ((*crop_w < *crop_h ? *crop_w : *crop_h) < cfg->pan_and_scan_min_crop_size) return 0;
    return n;
}

/* The Gemma3 image processor: the fixed-size processor, and with do_pan_and_scan the crops
 * after the original, each cut from the uint8 image (numpy slicing: the last crop is what is
 * left of the side) and processed as an image of its own. An image's views beyond
 * TS_MAX_IMAGES (one tower call each) are over the image budget: refused. */
static ts_status preprocess(const ts_preprocessor_config *cfg, const uint8_t *rgb, int width,
                            int height, const ts_image_budget *budget, ts_pixel_values *out,
                            ts_error *err)
{
    ts_status st = ts_clip_preprocess(cfg, rgb, width, height, budget, out, err);
    if (st != TS_OK || !cfg->do_pan_and_scan) return st;
    int64_t nw = 1, nh = 1, cw = 0, ch = 0;
    int64_t crops = pan_and_scan_crops(cfg, width, height, &nw, &nh, &cw, &ch);
    if (crops == 0) return TS_OK;
    if (1 + crops > TS_MAX_IMAGES) {
        ts_pixel_values_free(out);
        return ts_error_set(
            err, TS_ERR_RANGE,
            "%s: pan-and-scan cuts the %dx%d image into %lld crops: 1 + %lld views "
            "are over the image budget of %d views (pan_and_scan_max_num_crops %lld)",
            cfg->image_processor_type, width, height, (long long)crops, (long long)crops,
            TS_MAX_IMAGES, (long long)cfg->pan_and_scan_max_num_crops);
    }
    size_t view = (size_t)(out->shape[1] * out->shape[2] * out->shape[3]);
    float *all = malloc(sizeof(float) * view * (size_t)(1 + crops));
    uint8_t *cut = malloc((size_t)(cw * ch * 3));
    if (!all || !cut) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "pan-and-scan: out of memory");
    if (st == TS_OK) memcpy(all, out->data, sizeof(float) * view);
    /* Crops in row-major order of their grid (itertools.product(h positions, w positions)). */
    for (int64_t i = 0; st == TS_OK && i < crops; i++) {
        int64_t x0 = (i % nw) * cw, y0 = (i / nw) * ch;
        int64_t w = x0 + cw <= width ? cw : width - x0, h = y0 + ch <= height ? ch : height - y0;
        for (int64_t y = 0; y < h; y++)
            memcpy(cut + (size_t)(y * w * 3),
                   rgb + ((size_t)(y0 + y) * (size_t)width + (size_t)x0) * 3, (size_t)(w * 3));
        ts_pixel_values one;
        st = ts_clip_preprocess(cfg, cut, (int)w, (int)h, budget, &one, err);
        if (st == TS_OK) memcpy(all + view * (size_t)(1 + i), one.data, sizeof(float) * view);
        if (st == TS_OK) ts_pixel_values_free(&one);
    }
    free(cut);
    if (st != TS_OK) {
        free(all);
        ts_pixel_values_free(out);
        return st;
    }
    free(out->data);
    out->data = all, out->shape[0] = 1 + crops;
    return TS_OK;
}

/* Gemma3Processor's text for an image with crops (processing_gemma3.py). */
static const char *const crop_prompt[] = {"Here is the original image ",
                                          " and here are some crops to help you see better ", " "};

/* Gemma3ImageProcessor: SigLIP's square resize, bilinear, and pan-and-scan (off unless
 * preprocessor_config asks) with the reference's crop defaults. */
static void image_processor_defaults(ts_preprocessor_config *p)
{
    ts_square_processor_defaults(p);
    p->resample = 2;
    p->pan_and_scan_min_crop_size = 256, p->pan_and_scan_max_num_crops = 4;
    p->pan_and_scan_min_ratio_to_activate = 1.2;
}

const ts_image_processor_class ts_gemma3_image_processor = {
    .type = "Gemma3ImageProcessor",
    .defaults = image_processor_defaults,
    .pan_and_scan = true,
};

static const char *const processors[] = {"Gemma3ImageProcessor", "SiglipImageProcessor", NULL};

const ts_family_desc ts_gemma3_family = {
    .name = "gemma3",
    .layouts =
        (const ts_config_layout[]){{"gemma3", &gemma3_text, TS_LAYOUT_NESTED | TS_LAYOUT_VISION},
                                   {"gemma3_text", &gemma3_text, 0},
                                   {NULL, NULL, 0}},
    .read_text = read_text,
    .read_vision = read_vision,
    .read_media_ids = read_media_ids,
    .decoder = decoder,
    .image_processors = processors,
    .preprocess = preprocess,
    .tower = &tower,
    .image_prompt = TS_IMAGE_PROMPT_WRAPPED,
    .crop_prompt = crop_prompt,
    .image_attention = TS_IMAGE_ATTENTION_BIDIRECTIONAL,
    .position_rows = 1,
};
