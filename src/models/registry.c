/* registry.c — the families Tessera knows, in one table: the only place outside a family's own
 * folder that names one. Adding a family is one line here and its folder (docs/adding-a-family.md).
 */
#include "loader/processor_class.h"
#include "models/family.h"

#include <pthread.h>
#include <string.h>

extern const ts_family_desc ts_qwen2_family, ts_qwen3_family, ts_qwen3_moe_family, ts_llama_family,
    ts_qwen2_vl_family, ts_qwen2_5_vl_family, ts_qwen3_vl_family, ts_qwen3_vl_moe_family,
    ts_llava_family, ts_gemma3_family, ts_phi4_mm_family;

static const ts_family_desc *const families[] = {
    &ts_qwen2_family,    &ts_qwen3_family,      &ts_qwen3_moe_family, &ts_llama_family,
    &ts_qwen2_vl_family, &ts_qwen2_5_vl_family, &ts_qwen3_vl_family,  &ts_qwen3_vl_moe_family,
    &ts_llava_family,    &ts_gemma3_family,     &ts_phi4_mm_family,
};
enum { N_FAMILIES = sizeof(families) / sizeof(families[0]) };

/* The image processor classes whose defaults Tessera knows (src/loader/processor_class.h). */
extern const ts_image_processor_class ts_qwen2_vl_image_processor, ts_clip_image_processor,
    ts_siglip_image_processor, ts_gemma3_image_processor, ts_phi4_image_processor;

static const ts_image_processor_class *const processor_classes[] = {
    &ts_qwen2_vl_image_processor,
    &ts_clip_image_processor,
    &ts_siglip_image_processor,
    &ts_gemma3_image_processor,
    &ts_phi4_image_processor,
};

const ts_family_desc *const *ts_family_all(int *count)
{
    *count = N_FAMILIES;
    return families;
}

const ts_family_desc *ts_family_layout(const char *model_type, const ts_config_layout **layout)
{
    for (int i = 0; model_type && i < N_FAMILIES; i++)
        for (const ts_config_layout *l = families[i]->layouts; l->model_type; l++)
            if (strcmp(l->model_type, model_type) == 0) {
                if (layout) *layout = l;
                return families[i];
            }
    return NULL;
}

ts_family ts_family_find(const char *model_type)
{
    return ts_family_layout(model_type, NULL);
}

const ts_image_processor_class *ts_image_processor_class_find(const char *type)
{
    for (size_t i = 0; type && i < sizeof(processor_classes) / sizeof(processor_classes[0]); i++)
        if (ts_image_processor_type_is(type, processor_classes[i]->type))
            return processor_classes[i];
    return NULL;
}

const char *ts_family_name(ts_family family)
{
    return family ? family->name : "unknown family";
}

bool ts_family_is(const ts_family_desc *family, const char *name)
{
    return family && strcmp(family->name, name) == 0;
}

static char model_types[512];
static pthread_once_t model_types_once = PTHREAD_ONCE_INIT;

/* Appends "name" (", name" after the first) to the list in buf; false once it is full. */
static bool list_append(char *buf, size_t size, size_t *at, const char *name)
{
    size_t len = strlen(name);
    if (*at + len + 3 >= size) return false;
    if (*at) memcpy(buf + *at, ", ", 2), *at += 2;
    memcpy(buf + *at, name, len + 1), *at += len;
    return true;
}

static void list_model_types(void)
{
    size_t at = 0;
    for (int i = 0; i < N_FAMILIES; i++)
        for (const ts_config_layout *l = families[i]->layouts; l->model_type; l++)
            if (!list_append(model_types, sizeof(model_types), &at, l->model_type)) return;
}

const char *ts_family_model_types(void)
{
    pthread_once(&model_types_once, list_model_types);
    return model_types;
}

const char *ts_family_preset_json(const char *id)
{
    for (int i = 0; id && i < N_FAMILIES; i++)
        for (const ts_synthetic_preset *p = families[i]->presets; p && p->id; p++)
            if (strcmp(p->id, id) == 0) return p->config_json;
    return NULL;
}

static char preset_ids[512];
static pthread_once_t preset_ids_once = PTHREAD_ONCE_INIT;

static void list_preset_ids(void)
{
    size_t at = 0;
    for (int i = 0; i < N_FAMILIES; i++)
        for (const ts_synthetic_preset *p = families[i]->presets; p && p->id; p++)
            if (!list_append(preset_ids, sizeof(preset_ids), &at, p->id)) return;
}

const char *ts_family_preset_ids(void)
{
    pthread_once(&preset_ids_once, list_preset_ids);
    return preset_ids;
}

bool ts_family_image_path(const ts_model_config *cfg)
{
    const ts_family_desc *f = cfg->family;
    /* Every image_attention rule has its prefill (bidirectional blocks: the attention-bias side
     * input ts_mm_inputs_build makes), so it no longer gates the path. */
    return f && cfg->has_vision && f->read_vision && f->decoder && f->preprocess && f->tower &&
           f->image_prompt != TS_IMAGE_PROMPT_NONE;
}

bool ts_family_audio_path(const ts_model_config *cfg)
{
    const ts_family_desc *f = cfg->family;
    const ts_audio_path *a = f ? f->audio : NULL;
    return a && cfg->has_audio && f->decoder && a->sample_rate > 0 &&
           a->features && a->tokens && a->encoder;
}
