/* config_keys.h — config.json readers that more than one family uses, for the families' own
 * readers (src/models/<family>/) and the common reader (model_config.c).
 *
 * Contract: each reads one object through a ts_json_reader (messages name the file and the key),
 * fills only the fields it names, and leaves the rest of the config alone.
 */
#ifndef TS_LOADER_CONFIG_KEYS_H
#define TS_LOADER_CONFIG_KEYS_H

#include "base/error.h"
#include "loader/json_fields.h"


/* A positive integer; def TS_CONFIG_REQUIRED (-1) makes the key required. */
ts_status ts_config_dim(const ts_json_reader *r, const cJSON *obj, const char *key, int64_t def,
                        int64_t *out);
/* A CLIP or SigLIP vision_config (CLIPVisionConfig / SiglipVisionConfig defaults); allow_clip
 * false refuses clip_vision_model, naming the family. out_hidden_size is the LM width. */
ts_status ts_config_vit_vision(const ts_json_reader *r, const cJSON *v, const char *family,
                               bool allow_clip, int64_t lm_hidden, ts_vision_config *o);
/* M-RoPE is required: mrope_section present and summing to head_dim / 2. */
ts_status ts_config_require_mrope(const ts_json_reader *r, const ts_text_config *t);
/* Validates the tower dims every vision_config shares (heads divide the width, block index lists
 * inside the depth). */
ts_status ts_config_check_vision(const ts_json_reader *r, const ts_vision_config *o);

#endif
