/* family.h — a model family's descriptor: everything Tessera knows about one kind of Hugging
 * Face checkpoint, in one struct, so that shared code asks the family instead of naming it.
 *
 * Contract:
 *   - One descriptor per family, defined in the family's own folder (src/models/<family>/) and
 *     listed once in the registry (src/models/registry.c). Nothing outside those two places names
 *     a family; code that needs a family's behaviour calls through cfg->family.
 *   - A hook left NULL means the family has no such stage: no vision_config reader → no tower
 *     keys; no decoder → the text decoder is not built (loading fails naming the family); no
 *     processor/tower → no image path. ts_model_supported_modalities derives the advertised
 *     modalities from which hooks exist (ts_family_image_path), never from a list of names.
 *   - Hooks are pure functions of their arguments; descriptors are immutable static data.
 *
 * What each part is for, in pipeline order:
 *   config.json   layouts (which model_type spellings, flat or nested text keys, the text
 *                 defaults of the transformers config class), read_text / read_vision /
 *                 read_media_ids for the keys only this family has;
 *   decoder       decoder: the language model's options (biases, q/k norms, weight prefix,
 *                 lm_head, MoE, DeepStack layers) on top of what every decoder reads;
 *   processor     image_processors (the accepted image_processor_type classes) and preprocess;
 *                 each class's config reading is a ts_image_processor_class (processor_class.h);
 *   tower         tower: the image encoder as graph builder, host-side input layout, and its
 *                 vision.main bundle layout (src/models/tower.h);
 *   prompt        image_prompt: how an image placeholder expands into its tokens;
 *   positions     positions: the rotary positions and rope delta of a prompt with images
 *                 (NULL: 1-D positions 0 … n−1, no delta);
 *   audio         audio: feature extractor, token count and encoder of audio input
 *                 (models/audio_path.h; Phi-4-multimodal's, NULL elsewhere);
 *   side inputs   the decoder's DeepStack layers (the tower gives the rows); image_attention
 *                 BIDIRECTIONAL makes the model take an attention bias (ts_model_side_inputs);
 *   benchmarks    presets: published shapes `tessera bench --synthetic` builds with random
 *                 weights.
 */
#ifndef TS_MODELS_FAMILY_H
#define TS_MODELS_FAMILY_H

#include "loader/json_fields.h"
#include "models/audio_path.h"
#include "models/decoder.h"
#include "models/tower.h"
#include "tessera.h"

/* Defaults of one transformers text config class. TS_CONFIG_REQUIRED marks a key the file must
 * state. */
#define TS_CONFIG_REQUIRED (-1)
typedef struct ts_text_defaults {
    const char *model_type;
    int64_t vocab_size, hidden_size, intermediate_size, num_hidden_layers, num_attention_heads;
    int64_t num_key_value_heads; /* TS_CONFIG_REQUIRED here means "= num_attention_heads" */
    int64_t head_dim;            /* 0 = hidden_size / num_attention_heads */
    int64_t max_position_embeddings;
    double rms_norm_eps, rope_theta;
    const char *hidden_act;
    bool tie_word_embeddings;
    bool attention_bias;       /* some models always have q/k/v biases */
    bool attention_bias_fixed; /* true: not a config key, the modeling code hard-codes it */
} ts_text_defaults;

enum {
    TS_LAYOUT_NESTED = 1u << 0,        /* the language model's keys are under text_config */
    TS_LAYOUT_TEXT_REQUIRED = 1u << 1, /* nested, and text_config has no usable defaults */
    TS_LAYOUT_MAY_NEST = 1u << 2,      /* flat as published; newer transformers may nest it */
    TS_LAYOUT_VISION = 1u << 3,        /* vision_config is required and read */
};

/* One model_type spelling of a family. */
typedef struct ts_config_layout {
    const char *model_type;
    const ts_text_defaults *text;
    unsigned flags; /* TS_LAYOUT_* */
} ts_config_layout;

/* How an image placeholder of a rendered prompt becomes its tokens. */
typedef enum ts_image_prompt {
    TS_IMAGE_PROMPT_NONE = 0,
    TS_IMAGE_PROMPT_REPEAT,  /* the image token, repeated once per image token */
    TS_IMAGE_PROMPT_WRAPPED, /* the start-of-image token is the placeholder; it becomes "\n\n"
                                start, the image token × count, end, "\n\n" */
} ts_image_prompt;

/* How a prompt's image tokens attend to each other in prefill. */
typedef enum ts_image_attention {
    TS_IMAGE_ATTENTION_CAUSAL = 0,    /* like text */
    TS_IMAGE_ATTENTION_BIDIRECTIONAL, /* every token of an image sees the whole image (the run of
                                         image tokens it belongs to), text stays causal */
} ts_image_attention;

/* A benchmark model of a published shape: random weights built in memory from its config. */
typedef struct ts_synthetic_preset {
    const char *id;          /* what `tessera bench --synthetic` takes */
    const char *config_json; /* the published checkpoint's config.json */
} ts_synthetic_preset;

/* A LoRA adapter shipped in a subfolder of the checkpoint (a peft adapter: adapter_config.json
 * and adapter_model.safetensors), offered under `name`. */
typedef struct ts_lora_folder {
    const char *name, *folder;
} ts_lora_folder;

/* Input modes, for choosing an adapter (ts_family_desc.lora_for_input). */
enum { TS_INPUT_AUDIO = 1u << 0, TS_INPUT_IMAGE = 1u << 1 };

struct ts_family_desc {
    const char *name;                /* the Hugging Face model_type the family is known by */
    const ts_config_layout *layouts; /* terminated by a NULL model_type */

    /* config.json: the family's own keys, read after the common ones (r's prefix is the text
     * object's); text is the language model's object (NULL when a nested family omits it). */
    ts_status (*read_text)(const ts_json_reader *r, const cJSON *text, ts_text_config *t);
    ts_status (*read_vision)(const ts_json_reader *r, const cJSON *vision, ts_model_config *c);
    ts_status (*read_media_ids)(const ts_json_reader *r, const cJSON *root, ts_model_config *c);

    /* A tensor the shared graphs name that this family's checkpoints store another way (one
     * matrix per expert for a stacked [E, …] tensor, rows of a fused projection): fills *info and
     * *data (malloc'd, the caller frees; NULL when info->data is a view into ckpt's mapping;
     * info->name is left for the caller) from ckpt and the model's config. false when `name` is
     * not such a tensor or its parts are missing or disagree (the graph builder then reports it
     * missing). */
    bool (*derive_weight)(const ts_checkpoint *ckpt, const ts_model_config *cfg, const char *name,
                          ts_tensor_info *info, void **data);

    /* The decoder's family options; spec is zeroed with prefix "model." and lm_head
     * "lm_head.weight" (NULL when tied) before the call. */
    ts_status (*decoder)(const ts_model_config *cfg, ts_decoder_spec *spec, ts_error *err);

    /* Image processing: accepted image_processor_type classes (NULL-terminated; the "…Fast"
     * twin of each is accepted too) and the processor they all map to. */
    const char *const *image_processors;
    ts_status (*preprocess)(const ts_preprocessor_config *cfg, const uint8_t *rgb, int width,
                            int height, const ts_image_budget *budget, ts_pixel_values *out,
                            ts_error *err);

    const ts_tower_ops *tower;
    ts_image_prompt image_prompt;
    /* WRAPPED, an image of several views (pan-and-scan: the original, then its crops; its token
     * count views × mm_tokens_per_image): crop_prompt[0], the original's block, crop_prompt[1],
     * then the crops' blocks joined by crop_prompt[2] — the processor's own text. NULL: an image
     * is one view. */
    const char *const *crop_prompt;
    ts_image_attention image_attention;

    /* audio: the feature extractor, token count and encoder of the family's audio input
     * (audio_path.h); NULL: the family takes no audio. */
    const ts_audio_path *audio;

    /* positions [position_rows][n] and the rope delta of a prompt whose image tokens stand for
     * `images` (NULL: 1-D positions, position_rows 1). */
    int position_rows;
    ts_status (*positions)(const ts_model_config *cfg, const int32_t *ids, size_t n,
                           const ts_pixel_values *images, int n_images, int32_t *positions,
                           int64_t *delta, ts_error *err);

    const ts_synthetic_preset *presets; /* benchmark shapes, terminated by a NULL id; may be NULL */

    /* LoRA (engine/lora.h). lora_adapters: the adapters the checkpoint may ship, terminated by a
     * NULL name (NULL: none). lora_for_input: the adapter a request of these inputs
     * (TS_INPUT_* bits; 0 = text) runs with, a name of lora_adapters or NULL for none.
     * lora_module: where the decoder weight `weight` (…layers.l.self_attn.q_proj.weight) sits in
     * the adapter file — the peft module name (…layers.l.self_attn.qkv_proj) into module, and the
     * rows [*row0, *row0 + *rows) of its *total_rows that lora_B gives this projection; false when
     * the family has no such module. NULL: module = weight without ".weight", all rows. */
    const ts_lora_folder *lora_adapters;
    const char *(*lora_for_input)(unsigned inputs);
    bool (*lora_module)(const ts_model_config *cfg, const char *weight, char *module, size_t cap,
                        int64_t *row0, int64_t *rows, int64_t *total_rows);
};

/* The registry (src/models/registry.c). */
const ts_family_desc *const *ts_family_all(int *count);
/* The family that reads config.json's model_type `model_type`; NULL when Tessera has none. */
ts_family ts_family_find(const char *model_type);
/* The family and layout of a model_type; NULL when none reads it. */
const ts_family_desc *ts_family_layout(const char *model_type, const ts_config_layout **layout);
/* "m1, m2, …": the model_types Tessera reads (static storage). */
const char *ts_family_model_types(void);
/* The config.json of the benchmark preset `id` (static), NULL when no family has it. */
const char *ts_family_preset_json(const char *id);
/* "id1, id2, …": every family's benchmark presets, in registry order (static storage). */
const char *ts_family_preset_ids(void);
/* Whether family is the one named (for a family's own files, which may name themselves). */
bool ts_family_is(const ts_family_desc *family, const char *name);
/* Whether every stage of the image path exists for a config: vision keys read, a decoder, a
 * processor, a tower and a prompt rule. */
bool ts_family_image_path(const ts_model_config *cfg);
/* Whether every stage of the audio path exists for a config: a decoder and the descriptor's
 * audio hooks (a rate, features, a token count, an encoder), for a config that declares audio
 * (cfg->has_audio, set by the family's config reader). */
bool ts_family_audio_path(const ts_model_config *cfg);

#endif
