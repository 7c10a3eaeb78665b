/* tessera.h — the public API of the Tessera engine: what a program embedding it needs to load a
 * model (or a synthetic one), tokenize, render chat templates, decode and preprocess images,
 * prefill, decode and generate (one request, or many batched by the caller), export and run
 * StableHLO bundles, and serve the OpenAI-compatible HTTP API. The CLI (src/cli) and the server
 * (src/server) are built on this header alone (plus src/base's small helpers): CMakeLists.txt
 * gives them no other include path, and the api_boundary test checks it. Engine internals
 * (samplers, detokenizers, bundle entry calls, graphs, kernels) live in headers under src/.
 * docs/api.md says, group by group, why each function here is public.
 *
 * Contract: every fallible call returns a ts_status and takes a `ts_error *` last (may be NULL);
 * on failure the error holds a message that says what went wrong and where (file, key, tensor,
 * byte offset or line:column). Every returned pointer is documented as owned (released with the
 * named call) or borrowed (valid until the named event). Nothing here keeps hidden global state:
 * a ts_context carries logging and threads.
 *
 * Lifetimes, one rule per kind:
 *   - an opaque object is made by X_create, or by a verb naming its source (X_load from a folder,
 *     X_compile from text, ts_model_create_synthetic), and released by X_destroy;
 *   - an object that keeps files mapped (ts_checkpoint, ts_bundle) is made by X_open and
 *     released by X_close;
 *   - a result struct the caller holds by value (ts_image, ts_pixel_values, ts_generation) is
 *     emptied by X_free, which frees what it owns and zeroes it; structs that own nothing
 *     (configs, options, parameters) need no call, and X_default fills them with defaults;
 *   - owned plain buffers and strings (ids, text, embeddings) are released with free().
 * Every X_destroy, X_close and X_free accepts NULL.
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
    /* Highest kernel level to use: NULL or "auto" = the best this CPU supports (or the level in
     * $TESSERA_CPU when that is set); else one of "portable", "avx2", "avx512", "avx512_bf16",
     * "amx". Asking for more than the CPU has is an error, never a silent downgrade. */
    const char *cpu_level;
    bool profile; /* time every graph op by kind (a little overhead); see ts_context_profile */
    /* Matmul precision for many-row matmuls with bf16 weights (prefill, vision):
     * NULL or "f32" = f32 products (matches the reference to rounding);
     * "bf16" = activations rounded to bf16, run by oneDNN on AMX or AVX512_BF16, f32
     * accumulation: fastest, about 2^-9 relative error per activation; attention over 4 or
     * more query rows in a model with bf16 or quantized weights then also takes bf16 queries,
     * keys, values and softmax weights (f32 scores and softmax) where the kernels have
     * AVX512_BF16 (f32 weights keep f32 attention);
     * "bf16x2" = activations split into two bf16 parts (hi + lo) and both multiplied: the same
     * units, twice the work, error near f32 (bf16 weights are exact in either part);
     * "int8" = quantized linears (ts_model_quantize, GPTQ/AWQ) quantize their activations to
     * int8 per block of 32 (W8A8, VNNI dots; |error| per output ≤ Σ_b |scale_b|·Σ|q − zero|·d_b/2,
     * d_b = max|x_b|/127), other matmuls f32; "bf16" implies it too;
     * "auto" = "int8", plus "bf16" where the allowed kernels have bf16 units.
     * f32 keeps f32 activations for quantized weights as well (the exactness tests' setting). */
    const char *compute;
} ts_context_options;

/* Owned; free with ts_context_destroy. */
ts_status ts_context_create(const ts_context_options *options, ts_context **out, ts_error *err);
void ts_context_destroy(ts_context *ctx);
int ts_context_threads(const ts_context *ctx);
/* A table of CPU time (all threads of the process) per op kind since the context was made (empty
 * unless options.profile).
 * Owned, free(). */
char *ts_context_profile(const ts_context *ctx);
/* The TS_CPU_* features this context's kernels may use. */
unsigned ts_context_cpu_features(const ts_context *ctx);
/* What the context's compute policy resolved to on its kernels, for a startup line: e.g. "auto:
 * bf16 products for bf16 weights (matmuls and prefill attention), int8 (W8A8) activations for
 * quantized weights". Written into
 * buf (truncated to cap), returned. */
const char *ts_context_compute_summary(const ts_context *ctx, char *buf, size_t cap);

/* ---------------------------------------------------------------- CPU features */

enum {
    TS_CPU_AVX2 = 1u << 0,        /* AVX2 + FMA + F16C */
    TS_CPU_AVX512 = 1u << 1,      /* AVX-512 F/BW/DQ/VL, OS saves ZMM state */
    TS_CPU_AVX512_BF16 = 1u << 2, /* AVX512_BF16 */
    TS_CPU_AMX_BF16 = 1u << 3,    /* AMX-TILE + AMX-BF16 (tile permission requested separately) */
    TS_CPU_AVX512_VNNI = 1u << 4, /* AVX512_VNNI (int8 dots; allowed from the "avx512" level up) */
};

/* The features this CPU and OS support, detected once by CPUID/XGETBV. */
unsigned ts_cpu_features(void);
/* "x86-64 baseline avx2 avx512 avx512_bf16 amx_bf16" style list; borrowed, static storage. */
const char *ts_cpu_features_string(unsigned features);

/* Streaming-read bandwidth in bytes/s over a fresh buffer of `bytes`, on the context's threads
 * (the ceiling a memory-bound decode step can reach). */
double ts_measure_read_bandwidth(ts_context *ctx, size_t bytes);

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

/* A model family: everything Tessera knows about one kind of checkpoint (config keys, weights,
 * processor, tower, prompt rules, positions), described once in src/models/<family>/. Opaque;
 * families are static and never freed. */
typedef struct ts_family_desc ts_family_desc;
typedef const ts_family_desc *ts_family;

/* The Hugging Face model_type; "unknown family" for NULL. */
const char *ts_family_name(ts_family family);

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
    char rope_type[32]; /* "default", "linear", "llama3", "dynamic", "longrope"; Qwen2-VL's legacy
                           "mrope" reads as "default" (as transformers does): M-RoPE is
                           mrope_section[0] > 0 */
    double rope_factor; /* longrope: 0 when the file gives none (then max / original positions) */
    double rope_low_freq_factor;
    double rope_high_freq_factor;
    int64_t rope_original_max_position;
    int mrope_section[3];
    bool mrope_interleaved;
    /* longrope (Phi-3 / Phi-4): per-frequency divisors of the rotary frequencies, short_factor up to
     * original_max_position_embeddings positions, long_factor past it; attention_factor scales cos
     * and sin (0: derived from the factor as transformers does). */
    double rope_short_factor[256];
    double rope_long_factor[256];
    int n_rope_short_factor, n_rope_long_factor;
    double rope_attention_factor;
    double partial_rotary_factor;
    /* MoE (0 experts = dense) */
    int64_t num_experts;
    int64_t num_experts_per_tok;
    int64_t moe_intermediate_size;
    bool norm_topk_prob;
    /* Layers whose MLP is dense (intermediate_size) in an MoE model: those listed in
     * mlp_only_layers, and those with (layer + 1) % decoder_sparse_step != 0. */
    int64_t decoder_sparse_step;
    int64_t mlp_only_layers[256];
    int n_mlp_only_layers;
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
    int64_t tokens_per_second; /* Qwen2.5-VL: temporal M-RoPE ids per second; 0 elsewhere */
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
    int64_t audio_token_id;  /* the prompt's audio placeholder (one per audio row); -1 if none */
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

/* TS_MODALITY_* this build can serve for the model: the single predicate behind every modality
 * Tessera advertises (a config may declare more than is built). */
unsigned ts_model_supported_modalities(const ts_model_config *cfg);

/* The folder of a model: `model` itself when it is a folder, else a Hugging Face id ORG/NAME found
 * in the local cache ($HF_HUB_CACHE, $HF_HOME/hub or ~/.cache/huggingface/hub:
 * models--ORG--NAME/snapshots/<the commit refs/main names, else the newest>). Downloads nothing;
 * the error lists where it looked. */
ts_status ts_model_path_resolve(const char *model, char *out, size_t cap, ts_error *err);

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

/* preprocessor_config.json: how images are turned into pixel values. Keys a class leaves out take
 * that class's transformers default (Qwen2VLImageProcessor, CLIPImageProcessor,
 * SiglipImageProcessor, Gemma3ImageProcessor and their Fast twins); for other classes image_mean
 * and image_std must be present. 0 means "not given" for every size below. */
typedef struct ts_preprocessor_config {
    char image_processor_type[64];
    char processor_class[64];
    double image_mean[3];
    double image_std[3];
    bool do_resize;
    bool do_rescale;
    double rescale_factor;
    bool do_normalize;
    bool do_center_crop;
    bool do_convert_rgb;
    int resample; /* PIL filter number: 0 nearest, 2 bilinear, 3 bicubic */
    int64_t size_height, size_width;                  /* size: {height, width} */
    int64_t size_shortest_edge, size_longest_edge;    /* size: {shortest_edge[, longest_edge]} */
    int64_t crop_height, crop_width;                  /* crop_size */
    /* Qwen-VL patching; min/max_pixels also read from size.shortest_edge/longest_edge there */
    int64_t patch_size;
    int64_t temporal_patch_size;
    int64_t merge_size;
    int64_t min_pixels;
    int64_t max_pixels;
    /* Gemma3ImageProcessor's pan-and-scan (off by default, as in the reference): an image whose
     * aspect ratio reaches min_ratio_to_activate also gives 2 … max_num_crops crops along its long
     * side (each at least min_crop_size pixels), each processed as an image of its own after the
     * original ([1 + crops, 3, S, S]); the prompt gives every view its own image block. */
    bool do_pan_and_scan;
    int64_t pan_and_scan_min_crop_size, pan_and_scan_max_num_crops;
    double pan_and_scan_min_ratio_to_activate;
    /* Phi4MultimodalImageProcessor's dynamic_hd: the most HD crops an image is cut into. */
    int64_t max_crops;
} ts_preprocessor_config;

/* Reads `dir/preprocessor_config.json`, or without one the "image_processor" object of
 * `dir/processor_config.json` (transformers 5's multimodal processors); TS_ERR_NOT_FOUND when the
 * folder has neither. */
ts_status ts_preprocessor_config_load(const char *dir, ts_preprocessor_config *out, ts_error *err);

/* ---------------------------------------------------------------- media */

/* A decoded image: 8-bit RGB, rows top to bottom, no padding, EXIF orientation already applied
 * (what transformers' load_image gives: PIL ImageOps.exif_transpose, then convert("RGB")). */
typedef struct ts_image {
    int width, height;
    uint8_t *rgb; /* owned, width*height*3 bytes; free with ts_image_free */
} ts_image;

/* Checked before any pixel is decoded. A zero field takes its default. */
typedef struct ts_image_limits {
    size_t max_bytes;   /* encoded size; default TS_IMAGE_DEFAULT_MAX_BYTES */
    int64_t max_pixels; /* width*height as declared by the header; default TS_IMAGE_DEFAULT_MAX_PIXELS */
} ts_image_limits;

#define TS_IMAGE_DEFAULT_MAX_BYTES ((size_t)20 * 1000 * 1000) /* 20 MB */
#define TS_IMAGE_DEFAULT_MAX_PIXELS ((int64_t)40 * 1000 * 1000) /* 40 MP */

/* Decodes a JPEG, PNG or WebP held in memory (format sniffed from the magic bytes). limits: NULL
 * = defaults. Alpha is discarded, not composited (PIL convert("RGB")); an animated WebP gives its
 * first frame. Errors: TS_ERR_UNSUPPORTED for other formats (named when recognised) and for
 * unsupported variants; TS_ERR_RANGE for the limits; TS_ERR_FORMAT for corrupt or truncated data;
 * TS_ERR_OUT_OF_MEMORY. On failure *out is left empty ({0, 0, NULL}). */
ts_status ts_image_decode(const void *data, size_t len, const ts_image_limits *limits, ts_image *out,
                          ts_error *err);
/* The width and height the image's header declares, read without decoding any pixel (before
 * orientation); the errors of ts_image_decode for what is not a JPEG, PNG or WebP header. */
ts_status ts_image_probe(const void *data, size_t len, int64_t *width, int64_t *height, ts_error *err);
/* ts_image_decode on a file's bytes; the size limit is checked before reading. Messages start
 * with the path. */
ts_status ts_image_load(const char *path, const ts_image_limits *limits, ts_image *out, ts_error *err);
/* Frees the pixels and empties *img; NULL and empty images are fine. */
void ts_image_free(ts_image *img);

/* Audio containers, named from a clip's first bytes. WAV, FLAC, MP3 and Ogg are decoded; the
 * rest are recognised only, so that a refusal can say what was sent. */
typedef enum ts_audio_format {
    TS_AUDIO_FORMAT_UNKNOWN = 0,
    TS_AUDIO_FORMAT_WAV,  /* RIFF/WAVE, PCM 8/16/24/32-bit or IEEE float 32/64 */
    TS_AUDIO_FORMAT_FLAC,
    TS_AUDIO_FORMAT_MP3,  /* MPEG-1/2 layer I/II/III, bare or behind an ID3v2 tag */
    TS_AUDIO_FORMAT_OGG,  /* Ogg Vorbis (and Opus, as libsndfile reads it) */
    TS_AUDIO_FORMAT_AIFF, /* recognised only, from here down */
    TS_AUDIO_FORMAT_RF64,
    TS_AUDIO_FORMAT_CAF,
    TS_AUDIO_FORMAT_COUNT
} ts_audio_format;

/* Checked against what a clip's header declares, before any sample is decoded. A zero field
 * takes its default; sample rates outside [TS_AUDIO_MIN_RATE, TS_AUDIO_MAX_RATE] are refused
 * whatever the limits (below 4 kHz no speech band is left, above 768 kHz no real recording). */
typedef struct ts_audio_limits {
    size_t max_bytes;   /* encoded size; default TS_AUDIO_DEFAULT_MAX_BYTES */
    double max_seconds; /* declared duration (and decoded); default TS_AUDIO_DEFAULT_MAX_SECONDS */
    int max_channels;   /* default TS_AUDIO_DEFAULT_MAX_CHANNELS */
} ts_audio_limits;

#define TS_AUDIO_DEFAULT_MAX_BYTES ((size_t)64 * 1000 * 1000) /* 64 MB encoded */
#define TS_AUDIO_DEFAULT_MAX_SECONDS 1800.0                   /* 30 min */
#define TS_AUDIO_DEFAULT_MAX_CHANNELS 8
#define TS_AUDIO_MIN_RATE 4000
#define TS_AUDIO_MAX_RATE 768000

/* What a header declares. */
typedef struct ts_audio_info {
    int format; /* ts_audio_format */
    int channels;
    int rate;       /* Hz */
    int64_t frames; /* declared length in frames (libsndfile's count where the header has none) */
} ts_audio_info;

/* Reads a WAV, FLAC, MP3 or Ogg clip's header from memory and holds it to the limits (NULL =
 * defaults) without decoding any sample. Errors, each message led by the container's name
 * ("WAV: …"): TS_ERR_UNSUPPORTED (not a container decoded, or an encoding inside it that is not),
 * TS_ERR_RANGE (a limit: size, duration, channels, rate), TS_ERR_FORMAT (malformed, truncated,
 * empty, zero channels or rate), TS_ERR_OUT_OF_MEMORY. Even on failure info->format says which
 * container the first bytes are (TS_AUDIO_FORMAT_UNKNOWN when none), so a caller told the format
 * can report a mismatch before the header's own fault. */
ts_status ts_audio_probe(const void *data, size_t len, const ts_audio_limits *limits,
                         ts_audio_info *info, ts_error *err);

/* ---------------------------------------------------------------- image preprocessing */

/* Per-call pixel budget for Qwen-VL processors (the processor's min_pixels/max_pixels kwargs).
 * A field left 0 takes the config's value. Ignored by the fixed-size processors. */
typedef struct ts_image_budget {
    int64_t min_pixels;
    int64_t max_pixels;
} ts_image_budget;

/* One preprocessed image, as the reference's slow (PIL/numpy) image processor returns it.
 *  Qwen2-VL, Qwen2.5-VL, Qwen3-VL(-MoE): shape [grid_t·grid_h·grid_w, 3·T·P·P], rows in merge-unit
 *    order (four rows per merged token), columns (channel, temporal copy, row, column);
 *    grid_thw in patches; n_tokens = grid_t·grid_h·grid_w / merge_size².
 *  LLaVA (CLIP or SigLIP processor), Gemma3: shape [1, 3, H, W] (Gemma3 with pan-and-scan:
 *    [1 + crops, 3, H, W], the original then its crops, each view an image block of its own);
 *    grid_thw zero; n_tokens 0, because the count comes from the model config
 *    (image_seq_length / mm_tokens_per_image, per view).
 * Several images of one prompt are the concatenation of their rows, in prompt order. */
typedef struct ts_pixel_values {
    float *data; /* owned; free with ts_pixel_values_free */
    int n_dims;
    int64_t shape[4];
    int64_t grid_thw[3];
    int64_t n_tokens;
    int resized_width, resized_height; /* the image size the patches or pixels were taken from */
} ts_pixel_values;

/* Packed RGB8 (width·height·3 bytes, rows top to bottom) → pixel values for `family`, following
 * `cfg` (whose image_processor_type must suit the family). `budget` may be NULL. *out is
 * overwritten and owned by the caller. Errors: TS_ERR_INVALID_ARGUMENT for an empty image or a
 * budget with min > max or a non-positive bound, TS_ERR_RANGE for an aspect ratio above 200 (Qwen)
 * or a result too large, TS_ERR_UNSUPPORTED for a family or processor without an image path. */
ts_status ts_preprocess_image(const ts_preprocessor_config *cfg, ts_family family,
                              const uint8_t *rgb, int width, int height,
                              const ts_image_budget *budget, ts_pixel_values *out, ts_error *err);
/* Frees the data and zeroes *pv; NULL and zeroed values are fine. */
void ts_pixel_values_free(ts_pixel_values *pv);
/* SHA-256 of what an image tower sees: shape, grid, resized size and every pixel value (the encoder cache's key
 * and the prefix cache's media digest). */
void ts_pixel_values_digest(const ts_pixel_values *pv, uint8_t digest[32]);

/* ---------------------------------------------------------------- tokenizer */

typedef struct ts_tokenizer ts_tokenizer;

/* Loads `dir/tokenizer.json` and, when present, `dir/tokenizer_config.json`. Owned. Supports BPE
 * models (byte-level like Qwen/Llama 3, SentencePiece-style with byte fallback like Gemma/Llama 2);
 * other model types and components fail with TS_ERR_UNSUPPORTED naming them. When
 * tokenizer_config.json sets add_bos_token/add_eos_token, those decide the special tokens (as in
 * transformers). A loaded tokenizer may be used from many threads at once. */
ts_status ts_tokenizer_load(const char *dir, ts_tokenizer **out, ts_error *err);
void ts_tokenizer_destroy(ts_tokenizer *tok);

/* Encodes UTF-8 text. `add_special_tokens` applies the post-processor (BOS/EOS as configured).
 * *ids is owned, free with free(). Invalid UTF-8 is an error naming the byte offset. */
ts_status ts_tokenizer_encode(const ts_tokenizer *tok, const char *text, size_t len,
                              bool add_special_tokens, int32_t **ids, size_t *n_ids, ts_error *err);
/* A rendered chat prompt encoded as transformers' processors encode it: the post-processor's
 * special tokens are added unless the text already begins with the BOS token (a template that
 * writes {{ bos_token }} itself), so a prompt never starts with two. */
ts_status ts_tokenizer_encode_chat(const ts_tokenizer *tok, const char *text, size_t len, int32_t **ids, size_t *n_ids,
                                   ts_error *err);
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

/* ---------------------------------------------------------------- prompts with images */

/* Expands each image placeholder of a rendered prompt into the tokens its image becomes, as the
 * family's Hugging Face processor does (Qwen-VL and LLaVA repeat the image token; Gemma3 wraps
 * its soft tokens in start/end-of-image with blank lines). tokens_per_image[k] is image k's
 * count. A placeholder count other than n_images is an error with both numbers. *out owned
 * (free). */
ts_status ts_prompt_expand_images(const ts_model_config *cfg, const ts_tokenizer *tok, const char *prompt, size_t len,
                                  const int64_t *tokens_per_image, int n_images, char **out, size_t *out_len,
                                  ts_error *err);
/* The same for audio: each audio placeholder (the tokenizer's text of cfg->audio_token_id) of a
 * rendered prompt repeated tokens_per_clip[k] times for clip k (ts_model_encode_audio's
 * n_audio_rows). TS_ERR_UNSUPPORTED for a model without an audio path; a placeholder count other
 * than n_clips is TS_ERR_INVALID_ARGUMENT with both numbers. *out owned (free). */
ts_status ts_prompt_expand_audio(const ts_model_config *cfg, const ts_tokenizer *tok, const char *prompt, size_t len,
                                 const int64_t *tokens_per_clip, int n_clips, char **out, size_t *out_len, ts_error *err);

/* ---------------------------------------------------------------- models and sequences */

/* A loaded model: config, mapped weights, the compiled step programs and, for a VLM, its image
 * tower. Every family whose language model is built loads: the text ones (qwen2, qwen3, llama)
 * and the VLMs (Qwen2-VL, Qwen2.5-VL, Qwen3-VL(-MoE), LLaVA); ts_model_supported_modalities says
 * which inputs a config's model takes. Not thread-safe: one call at a time per model (a
 * ts_image_encoder runs the tower beside it). */
typedef struct ts_model ts_model;

typedef struct ts_model_options {
    const char *weights;  /* checkpoint file or folder; NULL = the model folder itself */
    const char *kv_cache; /* KV cache element type: NULL or "f32", or "bf16" (half the memory) */
    const char *quantize; /* NULL, or "q8"/"q4": ts_model_quantize once loaded */
} ts_model_options;

/* Owned; free with ts_model_destroy (after every sequence made from it). ctx must outlive it. */
ts_status ts_model_load(ts_context *ctx, const char *dir, const ts_model_options *options,
                        ts_model **out, ts_error *err);
void ts_model_destroy(ts_model *model);
/* A model of a published shape with random weights, made in memory (benchmarks; no download).
 * Presets: "qwen2.5-0.5b", "qwen2-1.5b", "llama-3.2-1b" and "qwen2-vl-2b" (with its image tower);
 * dtype F32, BF16 or F16. An unknown preset is TS_ERR_NOT_FOUND listing them. */
ts_status ts_model_create_synthetic(ts_context *ctx, const char *preset, ts_dtype dtype,
                                    ts_model **out, ts_error *err);
/* The synthetic preset's weights (those of ts_model_create_synthetic, bit for bit) written as a
 * checkpoint folder: DIR/config.json (the preset's published config) and DIR/model.safetensors,
 * so folder-reading paths (bundle export, other runtimes) run at that shape. Deterministic; DIR is
 * created if missing, files in it are replaced. */
ts_status ts_model_write_synthetic_checkpoint(ts_context *ctx, const char *preset, ts_dtype dtype, const char *dir,
                                              ts_error *err);
/* Bytes of weight data a model holds: a synthetic model's, a loaded checkpoint's tensors (mapped
 * from its files); after ts_model_quantize, the bytes of the language model's quantized matrices
 * (values and scales) and of those it kept in floats: what a decode step streams, near enough. */
size_t ts_model_weight_bytes(const ts_model *model);
/* Quantizes the language model's matrices (attention, MLP, LM head; not the embedding table or
 * norms) and a vision tower's and projector's, once, now: those whose input width 32 divides (the
 * others stay in floats: the summary counts and names them), "q8" (8-bit) or "q4" (4-bit), blocks
 * of 32 weights with f16 scales (src/engine/quantized_weights.h has the exact rule;
 * deterministic). Later steps read the quantized weights; an image encoder made before keeps the
 * float tower (make it after). Fails (model unchanged) on another format, a model already
 * quantized (a GPTQ/AWQ checkpoint is), or projections under LoRA adapters. */
ts_status ts_model_quantize(ts_model *model, const char *format, ts_error *err);
/* "q8: 22 matrices, 1.2 M weights, 1.3 MB; weight error ‖W − W_q‖/‖W‖ 0.31% overall, worst
 * 0.35% (name)" for the language model, then ", N matrices kept in floats (width not a multiple
 * of 32: name, ...)" when some are; for a model with a vision tower "; vision tower q8: …" in the
 * same form (or "; vision tower not quantized"); "" when not quantized. A GPTQ/AWQ checkpoint's:
 * "gptq 4-bit (groups of 128, zero points): N matrices, X MB unpacked". Borrowed, valid until the
 * next ts_model_quantize. */
const char *ts_model_quantization_summary(const ts_model *model);
const ts_model_config *ts_model_get_config(const ts_model *model);
int64_t ts_model_vocab_size(const ts_model *model);

/* KV cache bytes of one sequence of `context` tokens under cfg: sliding-window layers keep a ring
 * of ring_rows rows (the window; 0 when the context fits in it) instead of context rows.
 * Elements count keys and values of every layer; bytes = elements × 4 (f32 cache) or × 2 (bf16).
 * full_elements: the same with every layer holding the whole context. */
typedef struct ts_kv_size {
    int64_t context, ring_rows;
    int layers, local_layers;
    uint64_t elements, full_elements;
} ts_kv_size;
ts_status ts_model_config_kv_size(const ts_model_config *cfg, int64_t context, ts_kv_size *out,
                                  ts_error *err);

/* One request's state: its KV cache, whose capacity is fixed at creation, and its length.
 *   empty --prefill--> filled --decode--> filled ... --reset--> empty
 * Owned; free with ts_sequence_destroy. */
typedef struct ts_sequence ts_sequence;
/* Sliding-window layers (Gemma3's local ones) hold only their window, as a ring: see
 * ts_model_config_kv_size. */
ts_status ts_sequence_create(ts_model *model, int64_t capacity, ts_sequence **out, ts_error *err);
/* The most tokens speculative decoding drafts per step (ts_generate_params.draft_tokens). */
#define TS_MAX_DRAFT 16
/* ts_sequence_create whose sliding-window rings keep draft_tokens (0..TS_MAX_DRAFT) rows beyond
 * the window, so that a speculative step verifying that many drafted tokens can be rolled back
 * exactly; the same as ts_sequence_create for a model without sliding-window layers. On a plain
 * sequence ts_generate drafts no more tokens than its rings keep (none for a ring of exactly the
 * window). */
ts_status ts_sequence_create_draft(ts_model *model, int64_t capacity, int draft_tokens,
                                   ts_sequence **out, ts_error *err);
/* Speculative decoding's step (callers that run their own loop, like the server): appends n_tokens[s] tokens to each sequence (tokens packed in
 * sequence order) and writes the logits of every row, f32[Σ n_tokens][vocab], also packed. The
 * rows are the ones ts_model_decode would give one at a time (same positions, same masks); the
 * caller then rolls each sequence back (ts_sequence_truncate) to what it accepted. A sequence
 * with a sliding-window ring takes at most 1 + ts_sequence_draft_room rows (else
 * TS_ERR_UNSUPPORTED), so that the rollback is exact. */
ts_status ts_model_verify(ts_model *model, ts_sequence *const *seqs, int n_seqs,
                          const int32_t *tokens, const int64_t *n_tokens, float *logits,
                          ts_error *err);
/* Forgets the tokens after the first `length` (≤ the length; else TS_ERR_RANGE). Exact for full
 * caches; for a ring, when the tokens forgotten were appended by one step of at most
 * 1 + ts_sequence_draft_room rows (the ring still holds every row the window needs). */
ts_status ts_sequence_truncate(ts_sequence *seq, int64_t length, ts_error *err);
/* How many drafted tokens a verify step may add beyond the pending one without losing a row a
 * rollback needs: a ring's rows beyond the window, or INT64_MAX without rings. */
int64_t ts_sequence_draft_room(const ts_sequence *seq);

void ts_sequence_destroy(ts_sequence *seq);
int64_t ts_sequence_length(const ts_sequence *seq);
void ts_sequence_reset(ts_sequence *seq);

/* Appends n tokens (n ≥ 1) to seq and writes the logits of the last one to logits[vocab].
 * Tokens outside the vocabulary, or a prompt that does not fit the capacity, are errors and
 * leave the sequence unchanged. */
ts_status ts_model_prefill(ts_model *model, ts_sequence *seq, const int32_t *tokens, size_t n,
                           float *logits, ts_error *err);
/* DeepStack side features for one prefill call (Qwen3-VL; Qwen3VLTextModel adds them after
 * decoder layer layer_indices[i] at the image rows, so every later layer's K/V sees them).
 * Positions count rows of THIS call: a prompt prefilled in chunks passes each chunk the visual
 * positions that fall inside it, minus the chunk's first row, and the matching rows of every
 * level (ts_mm_inputs_slice does this). All borrowed, read only during the call: the engine keeps
 * nothing of it afterwards (decode steps add nothing; the payload may be freed as soon as the
 * call returns).
 *   visual_positions  i32[n_visual]: sorted, unique, each in 0 … n−1
 *   layer_features    f32[n_layers][n_visual][hidden]: finite, level i added after layer
 *                     layer_indices[i] (row j at visual_positions[j])
 *   layer_indices     i32[n_layers]: exactly the model's DeepStack layers (Qwen3-VL: 0 … K−1,
 *                     K = len(vision_config.deepstack_visual_indexes))
 * n_visual 0 is a valid, empty payload (the pointers may then be NULL; a chunk without image
 * rows). */
typedef struct ts_deepstack {
    const int32_t *visual_positions;
    int64_t n_visual;
    const float *layer_features;
    const int32_t *layer_indices;
    int n_layers;
} ts_deepstack;

/* An additive attention bias over one prefill call's own rows (Gemma3: every image's tokens see
 * the whole image, text stays causal; transformers' create_causal_mask with token_type_ids'
 * or_mask). The reference's 4-D form:
 *   bias   f32[1, 1, n, n] (shape = {1, 1, n, n}: batch, heads, query row, key row; row-major,
 *          bias[q * n + k]): 0 where row q sees row k, -INFINITY where it does not, the causal
 *          part included (the prefill adds no causal mask of its own to these rows)
 * Rows held before this call (earlier chunks) are visible to every row of it; sliding-window
 * layers add their window on top (an AND: equal to the reference's OR of the image block over
 * the window while no image block is longer than the window, which ts_mm_inputs_build checks).
 * Checked before anything runs: the shape, no NaN or +inf, a finite diagonal (every row sees
 * itself). A prompt prefilled in chunks passes each chunk its own [count, count] block
 * (ts_mm_inputs_slice, which refuses a cut through an image block). Borrowed, read during the
 * call only. */
typedef struct ts_attention_bias {
    const float *bias;
    int64_t shape[4];
} ts_attention_bias;

/* What a prefill from embeddings may take beside the rows: one optional, typed payload. A model
 * (or bundle) says which kind its image rows need (ts_bundle_side_inputs); whoever assembles an
 * image prompt for it must pass that payload (ts_mm_inputs_build does): the prefill cannot tell
 * image rows from text rows, and a text-only prompt legitimately has none. Later kinds add a
 * member each. */
typedef enum ts_side_kind {
    TS_SIDE_NONE = 0,
    TS_SIDE_DEEPSTACK,
    TS_SIDE_ATTENTION_BIAS
} ts_side_kind;
typedef struct ts_side_inputs {
    ts_side_kind kind;
    const ts_deepstack *deepstack;      /* TS_SIDE_DEEPSTACK: the payload (borrowed) */
    const ts_attention_bias *attention; /* TS_SIDE_ATTENTION_BIAS: the payload (borrowed) */
} ts_side_inputs;

/* Appends n rows of input embeddings (the token embeddings with image features in place, as
 * f32[n][hidden]) with their rotary positions (i32[3][n] for M-RoPE models, i32[n] otherwise;
 * NULL = length + i), and keeps rope_delta for the decode steps that follow (a token at cache
 * position p then uses p + rope_delta on every axis). Logits of the last row.
 * side: NULL (or kind TS_SIDE_NONE) = none. A DeepStack payload is validated before anything
 * runs (positions sorted, unique, inside the n rows; n_layers and layer_indices equal to the
 * model's DeepStack layers; every feature finite; no NULL where data is needed) and refused with
 * TS_ERR_INVALID_ARGUMENT or TS_ERR_RANGE naming the field, leaving the sequence unchanged. A
 * model without DeepStack accepts only an empty payload (n_visual 0, n_layers 0). With n_visual
 * 0 the result is bit-identical to no side inputs. TS_SIDE_ATTENTION_BIAS: the payload replaces
 * the causal mask over this call's rows (see ts_attention_bias; checked likewise, for any model:
 * a causal bias gives the plain prefill's result). An unknown kind is refused. */
ts_status ts_model_prefill_embeddings(ts_model *model, ts_sequence *seq, const float *embeddings,
                                      size_t n, const int32_t *positions, int64_t rope_delta,
                                      const ts_side_inputs *side, float *logits, ts_error *err);
/* Compares the model with a reference file in the fixtures' format (tests/fixtures/README.md),
 * stage by stage in pipeline order: image_embeds, position_ids, rope_deltas, lm_inputs_embeds,
 * hidden_state_l, kv_key_l/kv_value_l, prefill_logits, decode_logits, generated_ids — each that the
 * file holds. `report` (may be NULL) gets every stage: name, max |ours − ref|, tolerance
 * (1e-4 × max(1, max |ref|), at least 4 × the stage's f64_gap_<stage> where the file records
 * one; 0 for ids and positions), ok. *first_divergent: NULL when all
 * match, else the first failing stage's name (owned, free()). */
typedef void (*ts_compare_report)(void *user, const char *stage, double max_abs_diff, double tolerance, bool ok);
ts_status ts_model_compare(ts_model *model, const char *reference, ts_compare_report report, void *user,
                           char **first_divergent, ts_error *err);
/* The same with the prompt's images given (ts_preprocess_image of the fixture's image files), for
 * a reference that keeps the image file rather than its pixel values (Phi-4-multimodal's HD
 * crops); image_embeds is then the tower on these. n_images 0 is ts_model_compare. */
ts_status ts_model_compare_images(ts_model *model, const char *reference, const ts_pixel_values *images,
                                  int n_images, ts_compare_report report, void *user, char **first_divergent,
                                  ts_error *err);
/* What an image tower makes of some images, in order: the rows the language model receives at
 * the image tokens, f32[n_rows][hidden], and for a tower with DeepStack (Qwen3-VL) its levels,
 * f32[deepstack_levels][n_rows][hidden] — level i is added after the language model's DeepStack
 * layer i, row r at the r-th image token (NULL and 0 for towers without). Owned:
 * ts_encoded_media_free. */
typedef struct ts_encoded_media {
    float *rows;
    int64_t n_rows;
    int64_t hidden; /* row width: the language model's hidden size */
    float *deepstack;
    int deepstack_levels;
    /* An audio encoder's rows (ts_model_encode_audio), f32[n_audio_rows][hidden]: the rows the
     * language model receives at the audio tokens (cfg->audio_token_id), clips in prompt order. */
    float *audio_rows;
    int64_t n_audio_rows;
} ts_encoded_media;
void ts_encoded_media_free(ts_encoded_media *media);
/* Rows first … first + count − 1 of every level of `all` (one request's images out of a batched
 * encode), copied into *out (owned); audio rows are not sliced (clips are encoded per request).
 * TS_ERR_RANGE when they are not all inside. */
ts_status ts_encoded_media_slice(const ts_encoded_media *all, int64_t first, int64_t count,
                                 ts_encoded_media *out, ts_error *err);
/* The vision tower alone, into *out. The server encodes images with this off its decode loop. */
ts_status ts_model_encode_images(ts_model *model, const ts_pixel_values *images, int n_images,
                                 ts_encoded_media *out, ts_error *err);
/* Audio: one clip (the bytes of a WAV, FLAC, MP3 or Ogg file) decoded to mono, resampled to the
 * rate the model's extractor takes (ts_audio_probe's limits checked first; NULL = defaults),
 * through the features, encoder and projector, its rows appended to out->audio_rows (out zeroed
 * before the first clip; owned, ts_encoded_media_free): out->n_audio_rows grows by the clip's
 * audio tokens (the count its placeholder expands to: ts_prompt_expand_audio). Several clips:
 * one call each, in prompt order. On failure *out is as it was. The encoder runs on ctx (NULL: the model's), so a
 * server encodes on its media context while the model decodes. TS_ERR_UNSUPPORTED for a model without an audio
 * path; the decoder's errors for a malformed clip; TS_ERR_RANGE for a clip shorter than one
 * feature window or longer than the encoder takes. */
ts_status ts_model_encode_audio(ts_model *model, ts_context *ctx, const void *clip, size_t len,
                                const ts_audio_limits *limits, ts_encoded_media *out, ts_error *err);
/* The same for a prompt of these input modalities (TS_MODALITY_* bits): with TS_MODALITY_IMAGE
 * (the prompt has images too) Phi-4-multimodal projects the clip with its vision_speech pair, as
 * the reference does with an image in the batch. ts_model_encode_audio is TS_MODALITY_AUDIO. */
ts_status ts_model_encode_audio_for(ts_model *model, ts_context *ctx, const void *clip, size_t len,
                                    const ts_audio_limits *limits, unsigned modalities, ts_encoded_media *out,
                                    ts_error *err);
/* The sequence runs with the LoRA adapter its model's family chooses for a prompt of these
 * input modalities (TS_MODALITY_AUDIO / TS_MODALITY_IMAGE bits; 0 = text): Phi-4-multimodal's
 * speech adapter for audio, none for text and for every family without adapters. Set before the
 * sequence's first row (refused when it holds rows of another adapter); ts_sequence_reset
 * returns it to none. */
ts_status ts_sequence_set_modalities(ts_sequence *seq, unsigned modalities, ts_error *err);
/* An image encoder for `model` that runs on its own context (its own threads), so a server can
 * encode images on another thread while the model decodes. It reads the model's mapped tower
 * weights (no second copy, no second language model), quantized as the model's tower is when the
 * encoder is made (ts_model_quantize first), and keeps its own encoder cache of cache_bytes (LRU;
 * 0 = no cache). The model must outlive it. Owned; ts_image_encoder_destroy. */
typedef struct ts_image_encoder ts_image_encoder;
ts_status ts_image_encoder_create(ts_model *model, ts_context *ctx, size_t cache_bytes, ts_image_encoder **out,
                                  ts_error *err);
void ts_image_encoder_destroy(ts_image_encoder *encoder);
/* As ts_model_encode_images (main and DeepStack rows). Images of several requests may go in one
 * call: each image's rows depend on that image alone. */
ts_status ts_image_encoder_encode(ts_image_encoder *encoder, const ts_pixel_values *images,
                                  int n_images, ts_encoded_media *out, ts_error *err);
/* Running totals of the encoder cache: images served from it and images encoded. */
void ts_image_encoder_cache_stats(const ts_image_encoder *encoder, int64_t *hits, int64_t *misses);
/* What a prefill of an expanded prompt with images needs (src/engine/mm_inputs.c):
 *   embeddings     f32[n][hidden]: the token embeddings with the image tokens' rows replaced by
 *                  the encoded rows, in order
 *   positions      i32[position_rows][n]: M-RoPE (3 rows: t, h, w) for M-RoPE models, else the
 *                  arange (1 row); rope_delta for the decode steps (0 for 1-D positions)
 *   side_kind      the side inputs the model's image rows need; for TS_SIDE_DEEPSTACK
 *                  `deepstack` is the payload of the whole prompt: the image tokens' positions and
 *                  the encoded DeepStack rows (layer_indices borrowed from the model); for
 *                  TS_SIDE_ATTENTION_BIAS `attention` is the prompt's [1, 1, n, n] bias
 *                  (causal, and each run of image tokens — one image — visible to itself),
 *                  built only when the prompt has image tokens (else side_kind TS_SIDE_NONE: the
 *                  causal prefill is the same); n² floats, freed with the inputs
 * Owned (ts_mm_inputs_free); a model must outlive the inputs built for it. */
typedef struct ts_mm_inputs {
    size_t n;
    int64_t hidden;
    float *embeddings;
    int32_t *positions;
    int position_rows;
    int64_t rope_delta;
    ts_side_kind side_kind;
    ts_deepstack deepstack;
    ts_attention_bias attention;
} ts_mm_inputs;
/* The one assembly of a prompt with images or audio, for every caller (the engine's image and
 * audio prefills, the bundle's, the server's media stage, compare): the inputs of the expanded
 * prompt `ids` from its images' pixel values (their grids) and what a tower made of them
 * (`media`, from ts_model_encode_images, ts_image_encoder_encode or ts_bundle_encode_images; NULL
 * with no images, for a text prompt), or its clips' rows (media->audio_rows from
 * ts_model_encode_audio, at the audio tokens in order; 1-D positions). Refused besides: audio rows
 * other than the prompt's audio tokens (TS_ERR_INVALID_ARGUMENT), audio for a model without an
 * audio path (TS_ERR_UNSUPPORTED); images and audio together are one prompt (the clips encoded
 * for it: ts_model_encode_audio_for). Refused: a row count other than the prompt's image tokens
 * (TS_ERR_INVALID_ARGUMENT), DeepStack levels other than the model's DeepStack layers
 * (TS_ERR_UNSUPPORTED: main rows alone would make a wrong prefill), images for a model without an
 * image tower (TS_ERR_UNSUPPORTED), an image block longer than the model's sliding window
 * (TS_ERR_UNSUPPORTED: the window would cut the block the reference keeps whole). */
ts_status ts_mm_inputs_build(const ts_model *model, const int32_t *ids, size_t n,
                             const ts_pixel_values *images, int n_images,
                             const ts_encoded_media *media, ts_mm_inputs *out, ts_error *err);
/* Rows at … at + count − 1 of `in` as inputs of their own (owned), for a prefill in chunks: each
 * position row's slice, the rope delta, and the DeepStack rows that fall inside with their
 * positions made relative to the chunk; an attention bias's [count, count] block, refused
 * (TS_ERR_UNSUPPORTED) when the slice would drop a visible key after it or a hidden one before
 * it (a chunk boundary inside an image block). */
ts_status ts_mm_inputs_slice(const ts_mm_inputs *in, size_t at, size_t count, ts_mm_inputs *out,
                             ts_error *err);
/* How many rows, from row `at`, the next chunk of in should take: at most `max` (and the rows
 * left), fewer when that edge would cut an image block of an attention bias, more only when a
 * block starting at `at` is longer than max (a block is never split: its rows must see each
 * other in one call). 0 when at is past the rows or max is 0. */
size_t ts_mm_inputs_chunk(const ts_mm_inputs *in, size_t at, size_t max);
/* The side inputs to pass with in's rows to ts_model_prefill_embeddings or
 * ts_bundle_slots_prefill_embeddings (pointing into *in). */
ts_side_inputs ts_mm_inputs_side(const ts_mm_inputs *in);
void ts_mm_inputs_free(ts_mm_inputs *in);
/* The image tokens a prompt needs for these pixel values (the count ts_prompt_expand_images
 * takes); 0 for a model without an image path. */
int64_t ts_model_image_tokens(const ts_model *model, const ts_pixel_values *pixels);
/* One sequence's part of a step (ts_model_step): n ≥ 1 new rows — a prompt chunk or a decode
 * token — as tokens, or as embeddings with what ts_model_prefill_embeddings takes beside them
 * (positions [position rows][n] or NULL = length + i, the rope delta kept for later steps, side
 * inputs for these rows or NULL). All borrowed, read during the call only. */
typedef struct ts_step_rows {
    ts_sequence *seq;
    size_t n;
    const int32_t *tokens;     /* n tokens, or NULL when embeddings are given */
    const float *embeddings;   /* f32[n][hidden], or NULL */
    const int32_t *positions;  /* with embeddings */
    int64_t rope_delta;        /* with embeddings */
    const ts_side_inputs *side; /* with embeddings */
} ts_step_rows;
/* The rows of n_seqs distinct sequences (1 … 64, one capacity) in one step: every matmul runs
 * over all rows at once (one pass over the weights), attention per sequence over its own cache.
 * logits[n_seqs][vocab]: each sequence's last row, in the order given. Each sequence's result is
 * bit-identical to its own call with the same rows (ts_model_prefill,
 * ts_model_prefill_embeddings, ts_model_decode) wherever every matmul row depends on that row
 * alone: all of Tessera's CPU kernels (each sequence's rows take the path its own row count
 * takes); not promised under oneDNN's bf16 matmul (the bf16 compute policy on AMX CPUs).
 * Every entry is checked as its own call checks it before anything runs; an error (prefixed
 * "step: sequence i: ") leaves every sequence unchanged. ts_model_prefill,
 * ts_model_prefill_embeddings and ts_model_decode are this step with one sequence, or with one
 * token each. */
ts_status ts_model_step(ts_model *model, const ts_step_rows *rows, int n_seqs, float *logits,
                        ts_error *err);
/* One token for each of n_seqs distinct sequences at their own positions, in one batched step;
 * logits[n_seqs][vocab]. The primitive continuous batching is built on. */
ts_status ts_model_decode(ts_model *model, ts_sequence *const *seqs, const int32_t *tokens,
                          int n_seqs, float *logits, ts_error *err);

/* ---------------------------------------------------------------- prefix cache */

/* KV rows of prompt prefixes kept for later requests: a request whose prompt starts like an
 * earlier one copies those rows instead of prefilling them (src/engine/prefix_cache.h has the
 * whole contract: keys, exactness, eviction). For a caller that schedules prefills itself (the
 * server): per request ts_prefix_cache_begin before its prefill, ts_prefix_cache_store after.
 * Not thread-safe (one caller thread, like the sequences it fills). */
#define TS_PREFIX_BLOCK 16 /* positions per cached block */
typedef struct ts_prefix_cache ts_prefix_cache;
/* One image of a prompt, in prompt order: its content digest (ts_pixel_values_digest) and its
 * image-token rows (ts_model_image_tokens). */
typedef struct ts_prefix_media {
    uint8_t digest[32];
    int64_t rows;
} ts_prefix_media;
/* What a request prefills: its expanded prompt, and for an image prompt its inputs (then every
 * row goes in as an embedding) and its images; `chunk` the rows per prefill call the caller
 * takes from wherever the prefill starts (ts_mm_inputs_chunk's edges for an image prompt). */
typedef struct ts_prefix_prompt {
    const int32_t *ids;
    size_t n;
    const ts_mm_inputs *mm;
    const ts_prefix_media *media;
    int n_media;
    int64_t chunk;
} ts_prefix_prompt;
/* One request's block keys and what of its prompt may be stored (owned: ts_prefix_keys_free). */
typedef struct ts_prefix_keys ts_prefix_keys;
typedef struct ts_prefix_cache_stats {
    int64_t lookups, hits;               /* requests that asked, requests that restored rows */
    int64_t prompt_tokens, cached_tokens; /* their prompt tokens, the tokens restored */
    int64_t blocks, insertions, evictions;
    size_t bytes, budget;
} ts_prefix_cache_stats;
/* A cache of at most budget bytes for sequences shaped like `like` (the model's, every slot's
 * capacity). TS_ERR_UNSUPPORTED when a layer of `like` keeps fewer rows than its capacity (a
 * sliding-window ring: a prefix's rows cannot be read back from it), with the reason. */
ts_status ts_prefix_cache_create(ts_model *model, const ts_sequence *like, size_t budget,
                                 ts_prefix_cache **out, ts_error *err);
void ts_prefix_cache_destroy(ts_prefix_cache *cache);
/* Keys the prompt and copies the longest cached prefix that leaves the rest bit-identical to a
 * prefill of the whole prompt into seq (empty, shaped like the cache's), at most n − 1 rows;
 * *restored rows (0: a miss), *keys for ts_prefix_cache_store. Errors: a prompt whose image rows
 * disagree with its media (TS_ERR_INVALID_ARGUMENT), out of memory; seq is then untouched. */
ts_status ts_prefix_cache_begin(ts_prefix_cache *cache, const ts_prefix_prompt *prompt,
                                ts_sequence *seq, ts_prefix_keys **keys, int64_t *restored,
                                ts_error *err);
/* After the prompt is prefilled (seq holds it, perhaps more): stores its full blocks not yet
 * cached, evicting least recently used ones to fit. Never fails: what cannot be stored is not. */
void ts_prefix_cache_store(ts_prefix_cache *cache, const ts_prefix_keys *keys,
                           const ts_sequence *seq);
void ts_prefix_keys_free(ts_prefix_keys *keys);
ts_prefix_cache_stats ts_prefix_cache_get_stats(const ts_prefix_cache *cache);

/* ---------------------------------------------------------------- generation */

/* Sampling turns one step's logits into a token (inside ts_generate and ts_completion_next). The
 * logits are changed in place in this order, the order Hugging Face's logits processors and
 * vLLM's sampler use:
 *   1. repetition_penalty over every id seen in the prompt or generated so far (HF's
 *      RepetitionPenaltyLogitsProcessor: logit > 0 → logit / p, else logit · p);
 *   2. frequency_penalty · count + presence_penalty · (count > 0) subtracted, counting the
 *      generated tokens only (OpenAI and vLLM semantics: the prompt does not count);
 *   3. logit_bias added (-INFINITY bans a token);
 *   4. divided by temperature;
 *   5. top-k, 6. top-p (nucleus, over the top-k survivors renormalized), 7. min-p (relative to the
 *      most likely survivor): removed tokens become -INFINITY;
 * and then the softmax of the survivors is taken and one token drawn.
 * temperature 0 is greedy: steps 4–7 are skipped and the argmax is taken (ties → lowest id).
 * Filters never remove the most likely token, so a step always has a candidate unless every
 * logit is -INFINITY (an error). */
typedef struct ts_logit_bias {
    int32_t id;
    float bias;
} ts_logit_bias;

typedef struct ts_sampling_params {
    float temperature;        /* 0 = greedy */
    int32_t top_k;            /* 0 = off */
    float top_p;              /* 1 = off; in (0, 1] */
    float min_p;              /* 0 = off; in [0, 1] */
    float repetition_penalty; /* 1 = off; > 0 */
    float presence_penalty;   /* 0 = off; OpenAI range [-2, 2], not enforced */
    float frequency_penalty;  /* 0 = off */
    const ts_logit_bias *logit_bias; /* borrowed as params is; the sampler copies it */
    size_t n_logit_bias;
    uint64_t seed;            /* the sampler's PRNG starts here: same seed, same draws */
} ts_sampling_params;

/* Greedy, every filter and penalty off, seed 0. */
void ts_sampling_params_default(ts_sampling_params *params);

/* Generation of one sequence: prefill the prompt, then sample → decode until a stop condition.
 *   - EOS: a sampled id in eos_ids ends with "stop"; the id is kept in the result, its text is
 *     not. ignore_eos follows llama.cpp (and the fixtures' "EOS ignored" runs): EOS ids are
 *     banned (-INFINITY after the sampling params' logit bias) and never stop generation.
 *   - stop strings, matched on the detokenized text (needs a tokenizer): "stop"; the text ends
 *     before the stop string, the id that completed it is kept. Text that could still become the
 *     start of a stop string is held back from the callback until it cannot.
 *   - max_tokens generated, or the sequence's capacity reached: "length".
 * Without a tokenizer the text is empty and only ids are produced. */
typedef enum ts_finish_reason {
    TS_FINISH_STOP = 0,
    TS_FINISH_LENGTH,
} ts_finish_reason;

const char *ts_finish_reason_name(ts_finish_reason reason); /* "stop", "length" */

/* Called once per generated token with the text it releases (possibly empty, borrowed for the
 * call), and once more with id -1 for the text released at the end. Returning false stops
 * generation with "stop" after that token. */
typedef bool (*ts_token_callback)(void *user, int32_t id, const char *text, size_t len);

typedef struct ts_generate_params {
    ts_sampling_params sampling;     /* start from ts_sampling_params_default: zero top_p is invalid */
    int64_t max_tokens;              /* ≥ 1 */
    const int64_t *eos_ids;          /* borrowed; see ts_generation_eos_ids */
    int n_eos_ids;
    bool ignore_eos;
    const char *const *stop;         /* borrowed stop strings, each non-empty */
    int n_stop;
    const ts_tokenizer *tokenizer;   /* NULL: ids only, no stop strings */
    bool skip_special_tokens;        /* for the text, as HF decode(skip_special_tokens=…) */
    ts_token_callback on_token;      /* may be NULL */
    void *user;
    /* Speculative decoding: each step drafts up to draft_tokens (0..TS_MAX_DRAFT; 0: off) tokens
     * by n-gram lookup in the prompt and the output (the tokens that followed the latest earlier
     * occurrence of the longest suffix of draft_min_ngram … 4 tokens) and verifies them in one
     * forward pass. Greedy output is the same token for token; with sampling each drafted token
     * is accepted with its probability under the sampler's distribution and a rejection samples
     * the rest of that distribution, so the tokens keep the plain sampler's distribution (not its
     * exact draws for a seed). After two verify steps in a row that accepted nothing, drafting
 * pauses for 4, 8, … 32 tokens (a verify step costs more than the decode it replaces). Where the
 * engine's step loop runs (ts_generate, the server). */
    int draft_tokens;
    int draft_min_ngram;             /* 1..4; 0: 2 */
    /* Tokens the drafts are also looked up in, as if before the prompt (earlier turns the
     * sequence holds, a document being quoted); borrowed for the call. May be NULL. */
    const int32_t *draft_context;
    size_t n_draft_context;
} ts_generate_params;

/* The ids that end generation by default: generation_config.json's eos_token_id when it names
 * any, else config.json's (what transformers' generate uses). Returns the count (≤ 8). */
int ts_generation_eos_ids(const ts_generation_config *generation, const ts_model_config *config,
                          int64_t ids[8]);

typedef struct ts_generation {
    ts_finish_reason finish_reason;
    int32_t *ids;            /* owned by the struct: generated ids, the stopping one included */
    size_t n_ids;
    char *text;              /* owned by the struct, NUL-terminated; "" without a tokenizer */
    size_t text_len;
    size_t prompt_tokens;
    double prompt_ms;        /* prefill */
    double generation_ms;    /* every sampling step and decode after the prefill */
    /* Speculative decoding: the draft length used (draft_tokens after the sequence's limits; 0:
     * off), the verify steps run, the tokens drafted and accepted, and every forward pass after
     * the prefill (decode steps and verify steps). */
    int draft_tokens;
    size_t verify_steps, drafted, accepted, forwards;
} ts_generation;

/* Generates after `prompt` (n ≥ 1) in seq (which may already hold earlier turns). On success
 * *out is filled and owned by the caller: empty it with ts_generation_free. On error *out is
 * empty and seq holds whatever was prefilled/decoded. */
ts_status ts_generate(ts_model *model, ts_sequence *seq, const int32_t *prompt, size_t n,
                      const ts_generate_params *params, ts_generation *out, ts_error *err);
/* Frees the ids and text and zeroes *generation; NULL and empty results are fine. */
void ts_generation_free(ts_generation *generation);
/* ts_generate for a prompt with images: prompt is the expanded prompt (ts_prompt_expand_images),
 * images the preprocessed pixel values in prompt order. The prefill runs the vision tower, then
 * ts_mm_inputs_build and ts_model_prefill_embeddings. TS_ERR_UNSUPPORTED for a model without an
 * image tower. */
ts_status ts_generate_images(ts_model *model, ts_sequence *seq, const int32_t *prompt, size_t n,
                             const ts_pixel_values *images, int n_images, const ts_generate_params *params,
                             ts_generation *out, ts_error *err);
/* ts_generate for a prompt with audio: prompt is the expanded prompt (ts_prompt_expand_audio),
 * audio the clips' rows (ts_model_encode_audio, joined in prompt order) and, for a prompt with
 * images too, the images' rows (audio->rows: ts_model_encode_images; the clips then encoded with
 * ts_model_encode_audio_for(…, TS_MODALITY_AUDIO | TS_MODALITY_IMAGE, …); a family whose positions
 * depend on the images' grids is refused by ts_mm_inputs_build). The sequence takes the family's
 * adapter for these inputs before its first row (Phi-4-multimodal: speech, or vision with images), so
 * seq must hold no rows of another adapter; ts_sequence_reset drops it. The prefill goes through
 * ts_mm_inputs_build. */
ts_status ts_generate_audio(ts_model *model, ts_sequence *seq, const int32_t *prompt, size_t n,
                            const ts_encoded_media *audio, const ts_generate_params *params,
                            ts_generation *out, ts_error *err);

/* The generation loop's state for one request, stepped by a caller that runs the model itself
 * (the server batches many of these into one decode step). Same semantics as ts_generate: the
 * caller prefills, then repeats ts_completion_next on the latest logits and, unless done, decodes
 * the returned id; when done (or the sequence is full) ts_completion_finish releases the held-back
 * text and hands over the result. params and everything it points to are borrowed for the
 * completion's life. Owned; ts_completion_destroy (also after finish). */
typedef struct ts_completion ts_completion;
ts_status ts_completion_create(int64_t vocab_size, const int32_t *prompt, size_t n, const ts_generate_params *params,
                               ts_completion **out, ts_error *err);
void ts_completion_destroy(ts_completion *completion);
/* Samples from logits (changed in place), records the id, emits its text through on_token.
 * *done: generation ends with this id (EOS, stop string, max_tokens, callback said stop). */
ts_status ts_completion_next(ts_completion *completion, float *logits, int32_t *id, bool *done, ts_error *err);
/* Flushes (final on_token with id -1) and moves the result into *out (ts_generation_free). The
 * times are left zero: the caller ran the model. */
ts_status ts_completion_finish(ts_completion *completion, ts_generation *out, ts_error *err);
/* Speculative decoding on a completion (params.draft_tokens > 0), for callers that run the model
 * themselves: after ts_completion_next returned `pending` (not done), ts_completion_draft drafts
 * up to k tokens (≤ draft_tokens, ≤ what max_tokens leaves) from the prompt, draft_context and
 * the output; the caller runs pending + the n drafts through ts_model_verify; then
 * ts_completion_verify samples rows[(n + 1) × vocab] (row i against draft[i], greedy: accepted
 * iff the argmax; sampling: rejection sampling, the plain distribution kept; row n only when all
 * were accepted) until a draft is rejected or generation ends, emitting each token as
 * ts_completion_next does. *accepted drafts were kept: the caller truncates the sequence to
 * its length before the step + 1 + *accepted; *next is the next pending token unless *done.
 * on_row (may be NULL) sees each row's logits before they are sampled. draft_tokens 0: n is 0. */
int ts_completion_draft(const ts_completion *completion, int k, int32_t *out);
ts_status ts_completion_verify(ts_completion *completion, float *rows, const int32_t *draft, int n,
                               void (*on_row)(void *user, const float *logits), void *user,
                               int *accepted, int32_t *next, bool *done, ts_error *err);

/* Log-probabilities of the model's distribution (log-softmax of the raw logits, before any
 * sampling parameter): *chosen gets id's, top[0..k) the k most likely ids, best first (ties →
 * lowest id). k ≤ 20. */
typedef struct ts_token_logprob {
    int32_t id;
    float logprob;
} ts_token_logprob;
ts_status ts_logprobs(const float *logits, int64_t vocab_size, int32_t id, int k, float *chosen, ts_token_logprob *top,
                      ts_error *err);

/* ---------------------------------------------------------------- StableHLO bundles */

/* A bundle is a folder: one StableHLO module per entry (prefill.main, prefill_embeddings.main,
 * decode.main; prefill_embeddings_deepstack.main for models with DeepStack) per capacity bucket, and manifest.json (see src/bundle/manifest.h). Weights stay
 * in the checkpoint and are function arguments. */
typedef struct ts_bundle_options {
    const int64_t *capacities; /* context capacity buckets, ascending; NULL = {4096} */
    int n_capacities;
    int64_t prefill_capacity;  /* Lp for every bucket (clamped to it); 0 = the bucket's capacity */
    int64_t slots;             /* decode batch B; 0 = 1 */
    const int64_t *vision_patches; /* vision.main buckets (patch counts, ascending); NULL = none */
    int n_vision_patches;
    /* audio.main buckets (feature frames per clip, ascending: 100 per second of 16 kHz audio for
     * Phi-4-multimodal) for a model with an audio encoder; NULL = none. */
    const int64_t *audio_frames;
    int n_audio_frames;
    /* Non-NULL: also write each module as a StableHLO portable artifact (X.mlirbc beside X.mlir,
     * target version in the manifest), serialized by this Python, which must import jaxlib (the
     * official StableHLO bindings; scripts/install-deps makes .venv/bin/python). */
    const char *portable_python;
    /* "q8" or "q4": the language model's matrices quantized as ts_model_options.quantize does;
     * NULL = as the checkpoint stores them (a GPTQ/AWQ checkpoint's packed matrices are exported
     * quantized either way). A quantized bundle keeps its integer weights, scales and zero points
     * in its own file (quantized.safetensors), described in the manifest. */
    const char *quantize;
    /* 2..16: also write decode_k.main per bucket, verifying this many rows per slot in one call
     * (the pending token and draft_width - 1 drafted ones: speculative decoding through the
     * bundle); 0 = no such entry (the manifest is then as before it existed). */
    int64_t draft_width;
} ts_bundle_options;

ts_status ts_bundle_export(const char *model_dir, const char *bundle_dir, const ts_bundle_options *options,
                           ts_error *err);
/* The bundle of a synthetic preset (see ts_model_create_synthetic) with weights of `dtype`:
 * modules and manifest only, for measuring export; its config digest names the preset. */
ts_status ts_bundle_export_synthetic(const char *preset, ts_dtype dtype, const char *bundle_dir,
                                     const ts_bundle_options *options, ts_error *err);

typedef struct ts_bundle ts_bundle;

/* Loads a bundle against a model folder: checks the manifest's identity, the config digest, the
 * weight schema against the checkpoint and every module against its descriptors before anything
 * runs; the error names the field that differs. Owned; ts_bundle_close. */
ts_status ts_bundle_open(ts_context *ctx, const char *bundle_dir, const char *model_dir, ts_bundle **out,
                         ts_error *err);
void ts_bundle_close(ts_bundle *bundle);
int ts_bundle_bucket_count(const ts_bundle *bundle);
/* capacity, prefill capacity, slots of a bucket */
void ts_bundle_bucket(const ts_bundle *bundle, int bucket, int64_t *capacity, int64_t *prefill_capacity,
                      int64_t *slots);

/* The side inputs the bundle's embedding prefill takes: TS_SIDE_DEEPSTACK with its DeepStack
 * layers when it has prefill_embeddings_deepstack.main, TS_SIDE_ATTENTION_BIAS when its manifest
 * says the bias carries image blocks (any bundle's prefill_embeddings.main accepts that payload),
 * else TS_SIDE_NONE; NULL and 0 layers unless DeepStack. layers and n_layers may be NULL. A
 * bucket's static maximum of image rows Nv_max for DeepStack is its prefill capacity. */
ts_side_kind ts_bundle_side_inputs(const ts_bundle *bundle, const int32_t **layers, int *n_layers);
/* The vision.main patch buckets (ascending; *patches borrowed), 0 when the bundle has none. */
int ts_bundle_vision_buckets(const ts_bundle *bundle, const int64_t **patches);
/* ts_model_encode_images through the bundle's vision.main (src/bundle/bundle_vision.c): patch-row
 * layouts (plain, windowed, with DeepStack) are admitted to the smallest patch bucket that holds
 * them (TS_ERR_RANGE listing the buckets when none does) and padded with rows hidden from every
 * image row; fixed-size images (each view of a pan-and-scan image) run one at a time. A
 * vision.main of layout patch_rows_deepstack also gives the DeepStack levels
 * (prefill_embeddings_deepstack.main's layer_features). TS_ERR_UNSUPPORTED for a bundle without
 * vision entries. */
ts_status ts_bundle_encode_images(ts_bundle *bundle, const ts_pixel_values *images, int n_images,
                                  ts_encoded_media *out, ts_error *err);
/* ts_generate_images through the bundle: the images through vision.main, the inputs from
 * ts_mm_inputs_build with `model` (its embedding table and image-token rules), then
 * prefill_embeddings.main and decode.main with the request's rope delta. A model with DeepStack
 * (Qwen3-VL) takes prefill_embeddings_deepstack.main instead, its images (main and DeepStack rows)
 * encoded by the bundle's vision.main when it has one, else by the model's own tower;
 * TS_ERR_UNSUPPORTED for a bundle without that entry. */
ts_status ts_bundle_generate_images(ts_bundle *bundle, ts_model *model, const int32_t *prompt, size_t n,
                                    const ts_pixel_values *images, int n_images, const ts_generate_params *params,
                                    ts_generation *out, ts_error *err);
/* ts_model_encode_audio_for through the bundle's audio.main: the clip decoded and its features
 * extracted by the model's audio path, encoded by the smallest duration bucket that holds it
 * (zero-padded, masked in the module) with the projector the family picks for the prompt's
 * modalities (TS_MODALITY_* bits; Phi-4-multimodal: vision_speech when TS_MODALITY_IMAGE), its rows
 * appended to out. TS_ERR_UNSUPPORTED for a bundle without audio entries, TS_ERR_RANGE for a clip
 * longer than its largest bucket. */
ts_status ts_bundle_encode_audio(ts_bundle *bundle, ts_model *model, const void *clip, size_t len,
                                 const ts_audio_limits *limits, unsigned modalities, ts_encoded_media *out,
                                 ts_error *err);
/* ts_generate_audio through the bundle: audio holds the clips' rows (ts_model_encode_audio or
 * ts_bundle_encode_audio) and, for a prompt with images too, the images' rows (audio->rows:
 * ts_bundle_encode_images, the clips encoded for TS_MODALITY_AUDIO | TS_MODALITY_IMAGE), merged by
 * ts_mm_inputs_build with `model`, then prefill_embeddings.main and decode.main with the family's
 * adapter for these inputs (Phi-4-multimodal: speech, or vision with images) as the entries'
 * `adapters` argument; TS_ERR_UNSUPPORTED when the bundle lacks it. */
ts_status ts_bundle_generate_audio(ts_bundle *bundle, ts_model *model, const int32_t *prompt, size_t n,
                                   const ts_encoded_media *audio, const ts_generate_params *params, ts_generation *out,
                                   ts_error *err);
/* The decode slots of one bucket, for a caller that batches requests itself (the server): each
 * slot holds one sequence's KV cache, length and rope delta.
 *   empty --prefill / prefill_embeddings--> holds a sequence --decode--> … --reset--> empty
 * Prefill takes the whole prompt (≤ the bucket's prefill capacity) into an empty slot; decode
 * runs decode.main once for every slot, appending tokens[i] to each slot with active[i] and
 * writing its logits to logits[i][vocab] (other rows untouched). Owned; ts_bundle_slots_destroy
 * before the bundle is closed. */
typedef struct ts_bundle_slots ts_bundle_slots;
ts_status ts_bundle_slots_create(ts_bundle *bundle, int bucket, ts_bundle_slots **out, ts_error *err);
void ts_bundle_slots_destroy(ts_bundle_slots *slots);
int64_t ts_bundle_slots_length(const ts_bundle_slots *slots, int slot);
void ts_bundle_slots_reset(ts_bundle_slots *slots, int slot);
ts_status ts_bundle_slots_prefill(ts_bundle_slots *slots, int slot, const int32_t *ids, size_t n, float *logits, ts_error *err);
/* embeddings f32[n][hidden], positions [position rows][n] (as ts_mm_inputs_build lays them out:
 * 3 rows for M-RoPE models, else 1); side NULL or TS_SIDE_NONE: prefill_embeddings.main with a
 * causal bias; TS_SIDE_ATTENTION_BIAS: with the payload's [1, 1, n, n] bias (checked as the engine
 * checks it) in the top-left of its [Lp, Lp]. TS_SIDE_DEEPSTACK: prefill_embeddings_deepstack.main,
 * the payload (positions rows of this prompt) padded to the bucket's Nv_max with the filler
 * (position 0, zero features). Refused before anything runs: a bundle without that entry
 * (TS_ERR_UNSUPPORTED), n_layers / layer_indices other than the bundle's DeepStack layers,
 * n_visual over Nv_max, NULL data, an unknown kind; the entry checks the rest. */
ts_status ts_bundle_slots_prefill_embeddings(ts_bundle_slots *slots, int slot,
                                             const float *embeddings, size_t n, int64_t hidden,
                                             const int32_t *positions, int64_t rope_delta,
                                             const ts_side_inputs *side, float *logits,
                                             ts_error *err);
ts_status ts_bundle_slots_decode(ts_bundle_slots *slots, const int32_t *tokens, const bool *active, float *logits, ts_error *err);
/* Speculative decoding through decode_k.main (a bundle exported with a draft width K; 0 = none):
 * one call over every slot appends the first n_rows[i] (0 = inactive, at most K) of tokens[i][K]
 * to slot i (the pending token, then its drafts) and writes row j's logits to
 * logits[i][j][vocab] (rows past n_rows[i] untouched); a slot must have room for K rows. The
 * caller then truncates each slot to what it accepted (ts_bundle_slots_truncate: bookkeeping, the
 * rows past the length are overwritten later). TS_ERR_UNSUPPORTED without the entry. */
int64_t ts_bundle_slots_draft_width(const ts_bundle_slots *slots);
ts_status ts_bundle_slots_verify(ts_bundle_slots *slots, const int32_t *tokens, const int *n_rows, float *logits, ts_error *err);
ts_status ts_bundle_slots_truncate(ts_bundle_slots *slots, int slot, int64_t length, ts_error *err);
/* ts_generate through the bundle's entries: admitted to a bucket by prompt + max_tokens. */
ts_status ts_bundle_generate(ts_bundle *bundle, const int32_t *prompt, size_t n, const ts_generate_params *params,
                             ts_generation *out, ts_error *err);

/* ---------------------------------------------------------------- server */

/* The OpenAI-compatible HTTP server (POST /v1/chat/completions, /v1/completions; GET /v1/models,
 * /health, /metrics) over one model with a fixed number of slots and continuous batching. */
typedef struct ts_server_options {
    const char *model_dir;        /* or, for benchmarks, … */
    const char *synthetic;        /* … a ts_model_create_synthetic preset (bf16 weights), with */
    const char *tokenizer_dir;    /* a folder holding tokenizer.json (and a chat template) */
    const char *bundle_dir;       /* run the language model (and vision.main) through this bundle of model_dir:
                                     its largest bucket sets capacity and slots */
    const char *model_name;       /* NULL: the folder's name */
    const char *host;             /* IPv4 address; NULL: 127.0.0.1 */
    int port;                     /* 0: any free port (ts_server_port tells) */
    int slots;                    /* concurrent sequences, 1..64; 0: 4, or the bundle's */
    int64_t capacity;             /* tokens per slot (prompt + generated); 0: min(max_position_embeddings, 4096) */
    const char *api_key;          /* NULL: no authentication */
    const char *allowed_origins;  /* comma-separated Origin values admitted on /v1/; "*": any. NULL: with no
                                     api_key on a loopback host, browsers' cross-origin requests and non-local
                                     Host headers are refused (DNS rebinding); otherwise unchecked */
    int max_connections;          /* open connections at most (default 1024) */
    int max_connections_per_ip;   /* per client address (default 128; 0: no limit) */
    int header_timeout_s;         /* the request line and headers must arrive within this (default 10) */
    int body_timeout_s;           /* the body must arrive within this of the headers (default 60) */
    int idle_timeout_s;           /* a connection silent this long is closed (default 30) */
    int prepare_threads;          /* requests parsed, templated and tokenized at once, and requests decoding
                                     images at once, in each of two lanes (small images, the rest) (default 2) */
    int64_t max_request_pixels;   /* the pixels a request's images may declare in all (default 80 M) */
    const char *media_root;       /* file:// images allowed under it; NULL: refused */
    size_t max_request_bytes;     /* request body */
    int max_images;               /* per request */
    int max_audio;                /* input_audio clips per request (default 8) */
    double max_audio_seconds;     /* the duration a clip's header may declare (default 1800) */
    double max_request_audio_seconds; /* … a request's clips in all (default 3600) */
    int64_t image_max_tokens;     /* per image; 0: the processor's own budget */
    int queue;                    /* requests admitted but not yet in a slot; more get 429 */
    int threads;                  /* the model's context; 0: every core */
    int media_threads;            /* the image stage's context; 0: as threads */
    int64_t prefill_chunk;        /* prompt rows one slot prefills per step at most (default 256) */
    int64_t batch_tokens;         /* rows of one step: every decoding slot's token, then prompt
                                     chunks of as many slots as fit (default 512; the first chunk
                                     always runs); the policy: src/server/scheduler.c */
    int draft_tokens;             /* speculative decoding: drafts of up to N (0..TS_MAX_DRAFT) tokens a slot,
                                     verified in the decode step while few slots decode; 0: off. Not with
                                     bundle_dir. A request's "speculative_decoding": false opts out */
    size_t encoder_cache_bytes;   /* the image encoder's cache */
    size_t prefix_cache_bytes;    /* KV rows of prompt prefixes kept for later requests (0: none) */
    const char *kv_cache;         /* NULL/"f32" or "bf16" */
    const char *quantize;         /* NULL, or "q8"/"q4": as ts_model_options (not with bundle_dir) */
    const char *cpu_level;        /* as ts_context_options */
    const char *compute;
    ts_log_level log_level;
} ts_server_options;

/* Every field at its default: 127.0.0.1:8080, 4 slots (a bundle's own count), queue 64, 32 MiB bodies, 8 images,
 * 256-token prefill chunks in steps of 512 rows, a 256 MiB encoder cache, a 1 GiB prefix cache, 1024 connections
 * (128 per address), timeouts of 10 s (headers), 60 s (body) and 30 s (idle), 2 requests prepared at once, 80 M
 * image pixels per request, 8 audio clips of at most 30 min and 60 min of audio per request (headers'
 * declarations), speculative drafts of 3 tokens. */
void ts_server_options_default(ts_server_options *options);

typedef struct ts_server ts_server;
/* Loads the model and starts listening; returns once requests can be served. Owned;
 * ts_server_destroy (ts_server_request_stop and ts_server_wait are how a caller waits for a
 * signal first). */
ts_status ts_server_create(const ts_server_options *options, ts_server **out, ts_error *err);
int ts_server_port(const ts_server *server);
int ts_server_slots(const ts_server *server);
/* Blocks until ts_server_request_stop (from any thread). */
void ts_server_wait(ts_server *server);
void ts_server_request_stop(ts_server *server);
/* Stops serving (whether or not a stop was requested): fails what is still waiting with 503,
 * joins every thread, frees everything. */
void ts_server_destroy(ts_server *server);

#ifdef __cplusplus
}
#endif
#endif
