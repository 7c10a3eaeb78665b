/* synthetic.c — random-weight stores and the published configs they stand in for. */
#include "engine/synthetic.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    ts_tensor_info info;
    char *name;
    void *data;
} tensor;

struct ts_synthetic_weights {
    ts_dtype dtype;
    uint64_t seed;
    tensor *tensors;
    size_t n, cap, bytes;
};

ts_status ts_synthetic_weights_create(ts_dtype dtype, uint64_t seed, ts_synthetic_weights **out, ts_error *err)
{
    *out = NULL;
    if (dtype != TS_DTYPE_F32 && dtype != TS_DTYPE_BF16 && dtype != TS_DTYPE_F16)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "synthetic weights: dtype %s (F32, BF16, F16 allowed)", ts_dtype_name(dtype));
    ts_synthetic_weights *w = calloc(1, sizeof(*w));
    if (!w) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "synthetic weights: out of memory");
    w->dtype = dtype;
    w->seed = seed;
    *out = w;
    return TS_OK;
}

void ts_synthetic_weights_destroy(ts_synthetic_weights *w)
{
    if (!w) return;
    for (size_t i = 0; i < w->n; i++) free(w->tensors[i].data), free(w->tensors[i].name);
    free(w->tensors);
    free(w);
}

size_t ts_synthetic_weights_bytes(const ts_synthetic_weights *w) { return w->bytes; }

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t hash_name(const char *s, uint64_t seed)
{
    uint64_t h = 1469598103934665603ull ^ seed;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

static void fill(ts_dtype dtype, void *data, size_t n, uint64_t state, bool ones)
{
    for (size_t i = 0; i < n; i++) {
        float v = ones ? 1.0f : ((float)(splitmix(&state) >> 40) / 16777216.0f - 0.5f) * 0.1f;
        if (dtype == TS_DTYPE_F32) {
            ((float *)data)[i] = v;
        } else if (dtype == TS_DTYPE_BF16) {
            uint32_t bits;
            memcpy(&bits, &v, 4);
            ((uint16_t *)data)[i] = (uint16_t)(bits >> 16);
        } else { /* F16: |v| ≤ 0.05 is a normal half; build it from the float's fields */
            uint32_t bits;
            memcpy(&bits, &v, 4);
            int exp = (int)((bits >> 23) & 0xff) - 127 + 15;
            uint16_t h = (uint16_t)((bits >> 16) & 0x8000);
            if (exp > 0) h |= (uint16_t)((exp << 10) | ((bits >> 13) & 0x3ff));
            ((uint16_t *)data)[i] = h;
        }
    }
}

const ts_tensor_info *ts_synthetic_weights_find(void *self, const char *name, int rank, const int64_t *dims)
{
    ts_synthetic_weights *w = self;
    for (size_t i = 0; i < w->n; i++)
        if (strcmp(w->tensors[i].name, name) == 0) return &w->tensors[i].info;
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 64;
        tensor *t = realloc(w->tensors, sizeof(tensor) * cap);
        if (!t) return NULL;
        w->tensors = t;
        w->cap = cap;
    }
    /* Biases and norms stay f32-sized vectors in the weight dtype like the rest. */
    size_t count = 1;
    for (int i = 0; i < rank; i++) count *= (size_t)dims[i];
    size_t bytes = count * ts_dtype_size(w->dtype);
    tensor *t = &w->tensors[w->n];
    memset(t, 0, sizeof(*t));
    t->name = strdup(name);
    t->data = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    if (!t->name || !t->data) {
        free(t->name), free(t->data);
        return NULL;
    }
    bool ones = rank == 1 && strstr(name, "norm") != NULL;
    fill(w->dtype, t->data, count, hash_name(name, w->seed), ones);
    t->info.name = t->name;
    t->info.dtype = w->dtype;
    t->info.n_dims = rank;
    for (int i = 0; i < rank; i++) t->info.shape[i] = dims[i];
    t->info.data = t->data;
    t->info.n_bytes = bytes;
    t->info.file = "(synthetic)";
    w->bytes += bytes;
    w->n++;
    return &t->info;
}

size_t ts_synthetic_weights_count(const ts_synthetic_weights *w) { return w->n; }

const ts_tensor_info *ts_synthetic_weights_at(const ts_synthetic_weights *w, size_t i) { return i < w->n ? &w->tensors[i].info : NULL; }

/* The config.json text of the published checkpoint each preset stands for. */
const char *ts_synthetic_preset_json(const char *preset)
{
    static const char *const qwen25_05b =
        "{\"model_type\":\"qwen2\",\"architectures\":[\"Qwen2ForCausalLM\"],\"hidden_size\":896,"
        "\"intermediate_size\":4864,\"num_hidden_layers\":24,\"num_attention_heads\":14,"
        "\"num_key_value_heads\":2,\"vocab_size\":151936,\"max_position_embeddings\":32768,"
        "\"rms_norm_eps\":1e-06,\"rope_theta\":1000000.0,\"tie_word_embeddings\":true,"
        "\"hidden_act\":\"silu\",\"bos_token_id\":151643,\"eos_token_id\":151645}";
    static const char *const qwen2_15b =
        "{\"model_type\":\"qwen2\",\"architectures\":[\"Qwen2ForCausalLM\"],\"hidden_size\":1536,"
        "\"intermediate_size\":8960,\"num_hidden_layers\":28,\"num_attention_heads\":12,"
        "\"num_key_value_heads\":2,\"vocab_size\":151936,\"max_position_embeddings\":32768,"
        "\"rms_norm_eps\":1e-06,\"rope_theta\":1000000.0,\"tie_word_embeddings\":true,"
        "\"hidden_act\":\"silu\",\"bos_token_id\":151643,\"eos_token_id\":151645}";
    static const char *const llama32_1b =
        "{\"model_type\":\"llama\",\"architectures\":[\"LlamaForCausalLM\"],\"hidden_size\":2048,"
        "\"intermediate_size\":8192,\"num_hidden_layers\":16,\"num_attention_heads\":32,"
        "\"num_key_value_heads\":8,\"head_dim\":64,\"vocab_size\":128256,"
        "\"max_position_embeddings\":131072,\"rms_norm_eps\":1e-05,\"rope_theta\":500000.0,"
        "\"rope_scaling\":{\"factor\":32.0,\"high_freq_factor\":4.0,\"low_freq_factor\":1.0,"
        "\"original_max_position_embeddings\":8192,\"rope_type\":\"llama3\"},"
        "\"tie_word_embeddings\":true,\"hidden_act\":\"silu\",\"bos_token_id\":128000,"
        "\"eos_token_id\":[128001,128008,128009]}";
    /* Qwen/Qwen2-VL-2B-Instruct: the tower shape the vision benchmark measures. */
    static const char *const qwen2_vl_2b =
        "{\"model_type\":\"qwen2_vl\",\"architectures\":[\"Qwen2VLForConditionalGeneration\"],\"hidden_size\":1536,"
        "\"intermediate_size\":8960,\"num_hidden_layers\":28,\"num_attention_heads\":12,\"num_key_value_heads\":2,"
        "\"vocab_size\":151936,\"max_position_embeddings\":32768,\"rms_norm_eps\":1e-06,\"rope_theta\":1000000.0,"
        "\"rope_scaling\":{\"type\":\"mrope\",\"mrope_section\":[16,24,24]},\"tie_word_embeddings\":true,"
        "\"hidden_act\":\"silu\",\"bos_token_id\":151643,\"eos_token_id\":151645,\"image_token_id\":151655,"
        "\"video_token_id\":151656,\"vision_start_token_id\":151652,\"vision_end_token_id\":151653,"
        "\"vision_config\":{\"depth\":32,\"embed_dim\":1280,\"mlp_ratio\":4,\"num_heads\":16,\"in_chans\":3,"
        "\"hidden_size\":1536,\"patch_size\":14,\"spatial_merge_size\":2,\"temporal_patch_size\":2}}";
    static const struct {
        const char *name, *json;
    } presets[] = {{"qwen2.5-0.5b", qwen25_05b}, {"qwen2-1.5b", qwen2_15b}, {"llama-3.2-1b", llama32_1b}, {"qwen2-vl-2b", qwen2_vl_2b}};
    for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
        if (strcmp(preset, presets[i].name) == 0) return presets[i].json;
    return NULL;
}

ts_status ts_model_config_preset(const char *preset, ts_model_config *cfg, ts_error *err)
{
    const char *json = ts_synthetic_preset_json(preset);
    if (json) return ts_model_config_parse(json, strlen(json), preset, cfg, err);
    return ts_error_set(err, TS_ERR_NOT_FOUND, "unknown synthetic model '%s' (presets: qwen2.5-0.5b, qwen2-1.5b, llama-3.2-1b, qwen2-vl-2b)",
                        preset);
}
