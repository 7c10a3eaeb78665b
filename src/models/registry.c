/* registry.c — the families Tessera knows, in one table: the only place outside a family's own
 * folder that names one. Adding a family is one line here and its folder (docs/adding-a-family.md).
 */
#include "models/family.h"

#include <pthread.h>
#include <string.h>

extern const ts_family_desc ts_qwen2_family, ts_qwen3_family, ts_qwen3_moe_family, ts_llama_family,
    ts_qwen2_vl_family, ts_qwen2_5_vl_family, ts_qwen3_vl_family, ts_qwen3_vl_moe_family,
    ts_llava_family, ts_gemma3_family;

static const ts_family_desc *const families[] = {
    &ts_qwen2_family,    &ts_qwen3_family,      &ts_qwen3_moe_family, &ts_llama_family,
    &ts_qwen2_vl_family, &ts_qwen2_5_vl_family, &ts_qwen3_vl_family,  &ts_qwen3_vl_moe_family,
    &ts_llava_family,    &ts_gemma3_family,
};
enum { N_FAMILIES = sizeof(families) / sizeof(families[0]) };

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

static void list_model_types(void)
{
    size_t at = 0;
    for (int i = 0; i < N_FAMILIES; i++)
        for (const ts_config_layout *l = families[i]->layouts; l->model_type; l++) {
            size_t len = strlen(l->model_type);
            if (at + len + 3 >= sizeof(model_types)) return;
            if (at) memcpy(model_types + at, ", ", 2), at += 2;
            memcpy(model_types + at, l->model_type, len + 1), at += len;
        }
}

const char *ts_family_model_types(void)
{
    pthread_once(&model_types_once, list_model_types);
    return model_types;
}

bool ts_family_image_path(const ts_model_config *cfg)
{
    const ts_family_desc *f = cfg->family;
    /* Every image_attention rule has its prefill (bidirectional blocks: the attention-bias side
     * input ts_mm_inputs_build makes), so it no longer gates the path. */
    return f && cfg->has_vision && f->read_vision && f->decoder && f->preprocess && f->tower &&
           f->image_prompt != TS_IMAGE_PROMPT_NONE;
}
