/* tessera.h — the public API of the Tessera engine.
 *
 * Contract: every fallible call returns a ts_status and takes a `ts_error *` last (may be NULL);
 * on failure the error holds a message that says what went wrong and where (file, key, tensor,
 * byte offset or line:column). Objects come in create/destroy pairs; every returned pointer is
 * documented as owned (free with the named call) or borrowed (valid until the named event).
 * Nothing here keeps hidden global state: a ts_context carries logging and threads.
 * src/cli and src/server include only this header.
 */
#ifndef TESSERA_H
#define TESSERA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TS_VERSION "0.1.0"

/* ---------------------------------------------------------------- status and errors */

typedef enum ts_status {
    TS_OK = 0,
    TS_ERR_INVALID_ARGUMENT, /* caller passed something malformed (request, flag, text) */
    TS_ERR_IO,               /* open/read/mmap failed */
    TS_ERR_FORMAT,           /* a file, config or bundle is malformed */
    TS_ERR_UNSUPPORTED,      /* well-formed but not something Tessera implements */
    TS_ERR_OUT_OF_MEMORY,
    TS_ERR_RANGE,            /* a value or size outside the allowed range */
    TS_ERR_NOT_FOUND,        /* a named file, tensor or key is missing */
    TS_ERR_INTERNAL,         /* a broken invariant of our own */
    TS_STATUS_COUNT
} ts_status;

#define TS_ERROR_MESSAGE_MAX 1024

typedef struct ts_error {
    ts_status status;
    char message[TS_ERROR_MESSAGE_MAX];
} ts_error;

const char *ts_status_name(ts_status status);

/* ---------------------------------------------------------------- context */

typedef enum ts_log_level {
    TS_LOG_ERROR = 0,
    TS_LOG_WARN,
    TS_LOG_INFO,
    TS_LOG_DEBUG
} ts_log_level;

typedef struct ts_context ts_context;

typedef struct ts_context_options {
    int n_threads;          /* 0 = number of online cores */
    ts_log_level log_level; /* messages above this level are dropped */
} ts_context_options;

/* Owned; free with ts_context_destroy. */
ts_status ts_context_create(const ts_context_options *options, ts_context **out, ts_error *err);
void ts_context_destroy(ts_context *ctx);
int ts_context_threads(const ts_context *ctx);

/* ---------------------------------------------------------------- CPU features */

enum {
    TS_CPU_AVX2 = 1u << 0,        /* AVX2 + FMA + F16C */
    TS_CPU_AVX512 = 1u << 1,      /* AVX-512 F/BW/DQ/VL, OS saves ZMM state */
    TS_CPU_AVX512_BF16 = 1u << 2, /* AVX512_BF16 */
    TS_CPU_AMX_BF16 = 1u << 3,    /* AMX-TILE + AMX-BF16 (tile permission requested separately) */
};

/* The features this CPU and OS support, detected once by CPUID/XGETBV. */
unsigned ts_cpu_features(void);
/* "x86-64 baseline avx2 avx512 avx512_bf16 amx_bf16" style list; borrowed, static storage. */
const char *ts_cpu_features_string(unsigned features);

/* ---------------------------------------------------------------- checkpoints */

typedef enum ts_dtype {
    TS_DTYPE_F32 = 0,
    TS_DTYPE_F16,
    TS_DTYPE_BF16,
    TS_DTYPE_I64,
    TS_DTYPE_I32,
    TS_DTYPE_I16,
    TS_DTYPE_I8,
    TS_DTYPE_U8,
    TS_DTYPE_BOOL,
    TS_DTYPE_COUNT
} ts_dtype;

const char *ts_dtype_name(ts_dtype dtype); /* safetensors spelling: "F32", "BF16", … */
size_t ts_dtype_size(ts_dtype dtype);

#define TS_MAX_DIMS 8

typedef struct ts_tensor_info {
    const char *name; /* borrowed from the checkpoint */
    ts_dtype dtype;
    int n_dims;
    int64_t shape[TS_MAX_DIMS];
    const void *data; /* points into the read-only mapping; valid until the checkpoint is closed */
    size_t n_bytes;
    const char *file; /* the shard that holds it */
} ts_tensor_info;

typedef struct ts_checkpoint ts_checkpoint;

/* Opens `model.safetensors`, or the shards named by `model.safetensors.index.json`, in `dir`
 * (or a single .safetensors file path). Validates every header before returning. Owned. */
ts_status ts_checkpoint_open(const char *path, ts_checkpoint **out, ts_error *err);
void ts_checkpoint_close(ts_checkpoint *ckpt);
size_t ts_checkpoint_tensor_count(const ts_checkpoint *ckpt);
/* Tensors in name order; index < ts_checkpoint_tensor_count. */
const ts_tensor_info *ts_checkpoint_tensor_at(const ts_checkpoint *ckpt, size_t index);
/* NULL if absent. */
const ts_tensor_info *ts_checkpoint_find(const ts_checkpoint *ckpt, const char *name);

/* ---------------------------------------------------------------- model folder */

typedef enum ts_family {
    TS_FAMILY_QWEN2 = 0,
    TS_FAMILY_QWEN3,
    TS_FAMILY_LLAMA,
    TS_FAMILY_QWEN2_VL,
    TS_FAMILY_QWEN2_5_VL,
    TS_FAMILY_QWEN3_VL,
    TS_FAMILY_QWEN3_VL_MOE,
    TS_FAMILY_LLAVA,
    TS_FAMILY_GEMMA3,
    TS_FAMILY_COUNT
} ts_family;

const char *ts_family_name(ts_family family); /* the Hugging Face model_type */

enum { TS_MODALITY_TEXT = 1u << 0, TS_MODALITY_IMAGE = 1u << 1, TS_MODALITY_AUDIO = 1u << 2 };

/* The language-model part of config.json, flat or under text_config. */
typedef struct ts_text_config {
    char model_type[32];
    int64_t vocab_size;
    int64_t hidden_size;
    int64_t intermediate_size;
    int64_t num_hidden_layers;
    int64_t num_attention_heads;
    int64_t num_key_value_heads;
    int64_t head_dim;
    int64_t max_position_embeddings;
    double rms_norm_eps;
    double rope_theta;
    char hidden_act[32];
    bool tie_word_embeddings;
    bool attention_bias;
    /* rope_scaling / rope_parameters */
    char rope_type[32]; /* "default", "llama3", "mrope", "linear", … */
    double rope_factor;
    double rope_low_freq_factor;
    double rope_high_freq_factor;
    int64_t rope_original_max_position;
    int mrope_section[3];
    bool mrope_interleaved;
    double partial_rotary_factor;
    /* MoE (0 experts = dense) */
    int64_t num_experts;
    int64_t num_experts_per_tok;
    int64_t moe_intermediate_size;
    bool norm_topk_prob;
    /* Gemma3 */
    int64_t sliding_window;
    int64_t sliding_window_pattern;
    double final_logit_softcapping;
    double attn_logit_softcapping;
    double query_pre_attn_scalar;
    double rope_local_base_freq;
} ts_text_config;

/* The vision part of config.json (vision_config). Present only for VLMs. */
typedef struct ts_vision_config {
    char model_type[32]; /* "qwen2_vl", "clip_vision_model", "siglip_vision_model", … */
    int64_t depth;
    int64_t hidden_size;
    int64_t intermediate_size;
    int64_t num_heads;
    int64_t out_hidden_size; /* LM width the merger projects to */
    int64_t patch_size;
    int64_t temporal_patch_size;
    int64_t spatial_merge_size;
    int64_t image_size;
    int64_t in_channels;
    int64_t window_size;
    int64_t num_position_embeddings;
    int64_t fullatt_block_indexes[16];
    int n_fullatt_block_indexes;
    int64_t deepstack_visual_indexes[16];
    int n_deepstack_visual_indexes;
    double layer_norm_eps;
    char hidden_act[32];
} ts_vision_config;

typedef struct ts_model_config {
    ts_family family;
    char model_type[32];     /* top-level model_type */
    char architecture[64];   /* architectures[0], may be empty */
    unsigned modalities;     /* TS_MODALITY_* declared by the config */
    ts_text_config text;
    bool has_vision;
    ts_vision_config vision;
    bool has_audio;
    int64_t image_token_id;  /* -1 if none */
    int64_t video_token_id;
    int64_t vision_start_token_id;
    int64_t vision_end_token_id;
    int64_t mm_tokens_per_image;
    int64_t vision_feature_layer;
    char vision_feature_select_strategy[16];
    char projector_hidden_act[32];
    int64_t bos_token_id;
    int64_t eos_token_ids[8];
    int n_eos_token_ids;
    int64_t pad_token_id;
} ts_model_config;

/* Parses `dir/config.json`. Unsupported model_type is an error listing the supported ones. */
ts_status ts_model_config_load(const char *dir, ts_model_config *out, ts_error *err);
/* Same, from JSON text; `origin` names the source in messages. */
ts_status ts_model_config_parse(const char *json, size_t len, const char *origin,
                                ts_model_config *out, ts_error *err);

typedef struct ts_generation_config {
    int64_t bos_token_id;
    int64_t eos_token_ids[8];
    int n_eos_token_ids;
    int64_t pad_token_id;
    bool do_sample;
    double temperature;
    double top_p;
    int64_t top_k;
    double repetition_penalty;
    int64_t max_new_tokens;
} ts_generation_config;

/* Reads `dir/generation_config.json`; absent file → defaults (no EOS, greedy). */
ts_status ts_generation_config_load(const char *dir, ts_generation_config *out, ts_error *err);

/* ---------------------------------------------------------------- tokenizer */

typedef struct ts_tokenizer ts_tokenizer;

/* Loads `dir/tokenizer.json` and, when present, `dir/tokenizer_config.json`. Owned. */
ts_status ts_tokenizer_load(const char *dir, ts_tokenizer **out, ts_error *err);
void ts_tokenizer_destroy(ts_tokenizer *tok);

/* Encodes UTF-8 text. `add_special_tokens` applies the post-processor (BOS/EOS as configured).
 * *ids is owned, free with free(). Invalid UTF-8 is an error naming the byte offset. */
ts_status ts_tokenizer_encode(const ts_tokenizer *tok, const char *text, size_t len,
                              bool add_special_tokens, int32_t **ids, size_t *n_ids, ts_error *err);
/* Decodes ids to UTF-8 as Hugging Face's decode does. *text owned (NUL-terminated), free(). Ids
 * outside the vocabulary decode to nothing. */
ts_status ts_tokenizer_decode(const ts_tokenizer *tok, const int32_t *ids, size_t n_ids,
                              bool skip_special_tokens, char **text, size_t *len, ts_error *err);
size_t ts_tokenizer_vocab_size(const ts_tokenizer *tok); /* highest id + 1, added tokens included */
int32_t ts_tokenizer_token_to_id(const ts_tokenizer *tok, const char *token); /* -1 if none */
const char *ts_tokenizer_id_to_token(const ts_tokenizer *tok, int32_t id); /* borrowed; NULL */
bool ts_tokenizer_is_special(const ts_tokenizer *tok, int32_t id);
/* Special token strings from tokenizer_config.json ("bos_token", "eos_token", "pad_token",
 * "unk_token"); NULL when unset. Borrowed, valid while tok lives. */
const char *ts_tokenizer_special_token(const ts_tokenizer *tok, const char *role);

/* Streaming detokenizer: feed ids one at a time, get only text that is complete UTF-8. */
typedef struct ts_detokenizer ts_detokenizer;
ts_status ts_detokenizer_create(const ts_tokenizer *tok, bool skip_special_tokens,
                                ts_detokenizer **out, ts_error *err);
void ts_detokenizer_destroy(ts_detokenizer *detok);
/* *piece is borrowed, valid until the next call on detok; may be empty. */
ts_status ts_detokenizer_push(ts_detokenizer *detok, int32_t id, const char **piece,
                              size_t *piece_len, ts_error *err);
/* Whatever is still held back (an incomplete UTF-8 tail is emitted as U+FFFD, as HF does). */
ts_status ts_detokenizer_finish(ts_detokenizer *detok, const char **piece, size_t *piece_len,
                                ts_error *err);

/* ---------------------------------------------------------------- chat templates */

typedef struct ts_chat_template ts_chat_template;

/* Compiles a Jinja chat template. `origin` names the source in line:column messages. Owned.
 * Unknown tags, filters and tests are compile errors. A compiled template is immutable: it may
 * be rendered many times, from several threads at once. Semantics are Python jinja2's as
 * transformers configures it (trim_blocks, lstrip_blocks, loopcontrols, raise_exception,
 * strftime_now, its tojson); using a member of an undefined value is an error, as in jinja2. */
ts_status ts_chat_template_compile(const char *source, size_t len, const char *origin,
                                   ts_chat_template **out, ts_error *err);
/* The model folder's template: tokenizer_config.json "chat_template" (string, or the entry
 * named `name` — "default" when NULL — of a list), else chat_template.jinja /
 * chat_template.json. TS_ERR_NOT_FOUND when the folder has none. Also captures the special
 * tokens of tokenizer_config.json (strings or {"content": …} objects), which render defines
 * as bos_token, eos_token, … unless the context sets them. */
ts_status ts_chat_template_load(const char *dir, const char *name, ts_chat_template **out,
                                ts_error *err);
void ts_chat_template_destroy(ts_chat_template *tmpl);

/* Renders with the variables of `context_json`, a JSON object such as
 * {"messages": [...], "add_generation_prompt": true, "bos_token": "<s>", "tools": [...]},
 * read as Python's json.loads reads it (1.0 stays a float). *out owned (NUL-terminated),
 * free(). Template errors (raise_exception, type errors, undefined members) are
 * TS_ERR_INVALID_ARGUMENT with origin:line:column and the message; output, memory, step and
 * nesting limits are TS_ERR_RANGE. */
ts_status ts_chat_template_render(const ts_chat_template *tmpl, const char *context_json,
                                  char **out, ts_error *err);
/* Same, with the variables merged from `n_layers` JSON texts, later layers winning: e.g.
 * {"add_generation_prompt": false}, then a messages document, then command-line overrides.
 * A layer that is a JSON array stands for {"messages": array}. Special tokens captured by
 * ts_chat_template_load (bos_token, eos_token, pad_token, unk_token, …) are set first, so any
 * layer may override them. Errors name the layer (1-based) and, for JSON, the byte offset. */
ts_status ts_chat_template_render_layers(const ts_chat_template *tmpl, const char *const *layers,
                                         size_t n_layers, char **out, ts_error *err);

#ifdef __cplusplus
}
#endif
#endif
