/* lora.c — loading and stacking a checkpoint's peft LoRA adapters (engine/lora.h). */
#include "engine/lora.h"
#include "base/error.h"
#include "base/file.h"
#include "cpu/kernels.h"
#include "loader/json_fields.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ADAPTERS 8
#define PEFT_PREFIX "base_model.model."

typedef struct {
    char name[256]; /* "model.layers.l.self_attn.q_proj.lora_A" */
    ts_tensor_info info;
    void *data;
} stacked;

struct ts_lora_set {
    ts_weight_source base;
    int count; /* K, "none" included */
    int64_t rank;
    ts_dtype dtype; /* of the stacks: BF16 when every adapter tensor is, else F32 */
    const char *names[MAX_ADAPTERS];
    float scale[MAX_ADAPTERS];
    ts_tensor_info scale_info;
    stacked *tensors;
    int n_tensors;
};

typedef struct {
    const ts_lora_folder *folder;
    ts_checkpoint *ckpt;
    int64_t r;
    double alpha;
} adapter;

/* A key that must be absent, null, false, or an empty object/array/string. */
static bool plain(const cJSON *v)
{
    if (!v || cJSON_IsNull(v) || cJSON_IsFalse(v)) return true;
    if (cJSON_IsObject(v) || cJSON_IsArray(v)) return cJSON_GetArraySize(v) == 0;
    return false;
}

/* adapter_config.json: plain LoRA only; r and lora_alpha into a. */
static ts_status read_config(const char *dir, adapter *a, ts_error *err)
{
    char path[4096], origin[256];
    snprintf(origin, sizeof(origin), "%s/adapter_config.json", a->folder->folder);
    ts_status st = ts_path_join(path, sizeof(path), dir, origin, err);
    cJSON *root = NULL;
    if (st == TS_OK) st = ts_json_read_file(path, &root, err);
    if (st != TS_OK) return st;
    ts_json_reader r = {origin, "", err};
    char peft_type[32], bias[32];
    st = ts_json_string(&r, root, "peft_type", "LORA", peft_type, sizeof(peft_type));
    if (st == TS_OK && strcmp(peft_type, "LORA") != 0)
        st = ts_error_set(err, TS_ERR_UNSUPPORTED,
                          "%s: peft_type \"%s\" (only LORA is implemented)", origin, peft_type);
    if (st == TS_OK) st = ts_json_int_required(&r, root, "r", &a->r);
    if (st == TS_OK && a->r < 1)
        st = ts_error_set(err, TS_ERR_RANGE, "%s: r %lld (≥ 1 needed)", origin, (long long)a->r);
    if (st == TS_OK) st = ts_json_double(&r, root, "lora_alpha", 8.0, &a->alpha);
    if (st == TS_OK) st = ts_json_string(&r, root, "bias", "none", bias, sizeof(bias));
    if (st == TS_OK && strcmp(bias, "none") != 0)
        st = ts_error_set(err, TS_ERR_UNSUPPORTED,
                          "%s: bias \"%s\" (LoRA biases are not implemented; only \"none\")",
                          origin, bias);
    /* Options that change what the adapter computes, which Tessera does not implement. */
    static const char *const refused[] = {
        "use_dora",        "use_rslora",     "fan_in_fan_out",  "lora_bias",
        "use_qalora",      "use_bdlora",     "rank_pattern",    "alpha_pattern",
        "modules_to_save", "layer_replication", "trainable_token_indices",
        "alora_invocation_tokens", "target_parameters", "megatron_config"};
    for (size_t i = 0; st == TS_OK && i < sizeof(refused) / sizeof(refused[0]); i++)
        if (!plain(cJSON_GetObjectItemCaseSensitive(root, refused[i])))
            st = ts_error_set(err, TS_ERR_UNSUPPORTED,
                              "%s: %s is set, which Tessera's LoRA does not implement", origin,
                              refused[i]);
    cJSON_Delete(root);
    return st;
}

static float widen(const ts_tensor_info *t, size_t i)
{
    switch (t->dtype) {
    case TS_DTYPE_F32: return ((const float *)t->data)[i];
    case TS_DTYPE_BF16: {
        uint32_t bits = (uint32_t)((const uint16_t *)t->data)[i] << 16;
        float v;
        memcpy(&v, &bits, 4);
        return v;
    }
    default: return ts_f16_to_f32_scalar(((const uint16_t *)t->data)[i]);
    }
}

/* The tensor `base_model.model.<module>.lora_<AB>.weight` of adapter a, or NULL. */
static const ts_tensor_info *adapter_tensor(const adapter *a, const char *module, char ab)
{
    char name[512];
    int n = snprintf(name, sizeof(name), PEFT_PREFIX "%s.lora_%c.weight", module, ab);
    return n > 0 && (size_t)n < sizeof(name) ? ts_checkpoint_find(a->ckpt, name) : NULL;
}

/* Element i of t into element at of a stack of set->dtype (a bf16 value copied as it is). */
static void put(const ts_lora_set *set, void *stack, size_t at, const ts_tensor_info *t, size_t i)
{
    if (set->dtype == TS_DTYPE_BF16) ((uint16_t *)stack)[at] = ((const uint16_t *)t->data)[i];
    else ((float *)stack)[at] = widen(t, i);
}

static bool float_dtype(ts_dtype d)
{
    return d == TS_DTYPE_F32 || d == TS_DTYPE_BF16 || d == TS_DTYPE_F16;
}

/* The peft module and B rows of decoder weight `weight` ([out, in]). */
static bool module_of(const ts_model_config *cfg, const char *weight, int64_t out, char *module,
                      size_t cap, int64_t *row0, int64_t *rows, int64_t *total)
{
    const ts_family_desc *f = cfg->family;
    if (f->lora_module) return f->lora_module(cfg, weight, module, cap, row0, rows, total);
    size_t len = strlen(weight) - strlen(".weight");
    if (len + 1 > cap) return false;
    memcpy(module, weight, len);
    module[len] = '\0';
    *row0 = 0, *rows = *total = out;
    return true;
}

/* Stacks projection p of layer l: A into s[0], B into s[1]. */
static ts_status stack_projection(ts_lora_set *set, const ts_model_config *cfg,
                                  const ts_decoder_spec *spec, const adapter *ad, int n_ad, int l,
                                  int p, stacked *s, ts_error *err)
{
    char weight[256], module[256];
    int64_t out, in, row0, rows, total;
    if (!ts_decoder_lora_projection(spec, l, p, weight, sizeof(weight), &out, &in))
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "LoRA: layer %d has no dense projection %d (LoRA on MoE layers is not "
                            "implemented)",
                            l, p);
    if (!module_of(cfg, weight, out, module, sizeof(module), &row0, &rows, &total) || rows != out)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "LoRA: no adapter module for %s", weight);
    int64_t dims[2] = {out, in};
    const ts_tensor_info *base = set->base.find(set->base.self, weight, 2, dims);
    if (!base || base->n_dims != 2 || base->shape[0] != out || base->shape[1] != in)
        return ts_error_set(err, TS_ERR_FORMAT, "LoRA: base weight %s is not [%lld, %lld]", weight,
                            (long long)out, (long long)in);
    int64_t K = set->count, R = set->rank;
    size_t base_len = strlen(weight) - strlen(".weight");
    for (int ab = 0; ab < 2; ab++) {
        snprintf(s[ab].name, sizeof(s[ab].name), "%.*s.lora_%c", (int)base_len, weight,
                 ab ? 'B' : 'A');
        int64_t d1 = ab ? out : R, d2 = ab ? R : in;
        size_t size = ts_dtype_size(set->dtype);
        s[ab].data = calloc((size_t)(K * d1 * d2), size);
        if (!s[ab].data) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "LoRA: out of memory");
        s[ab].info = (ts_tensor_info){.name = s[ab].name,
                                      .dtype = set->dtype,
                                      .n_dims = 3,
                                      .shape = {K, d1, d2},
                                      .data = s[ab].data,
                                      .n_bytes = size * (size_t)(K * d1 * d2)};
    }
    for (int i = 0; i < n_ad; i++) {
        const adapter *a = &ad[i];
        const ts_tensor_info *A = adapter_tensor(a, module, 'A');
        const ts_tensor_info *B = adapter_tensor(a, module, 'B');
        if (!A && !B) continue; /* the adapter leaves this module alone */
        int64_t r = a->r;
        if (!A || !B)
            return ts_error_set(err, TS_ERR_FORMAT,
                                "%s/adapter_model.safetensors: " PEFT_PREFIX "%s has lora_%c but "
                                "no lora_%c",
                                a->folder->folder, module, A ? 'A' : 'B', A ? 'B' : 'A');
        if (A->n_dims != 2 || A->shape[0] != r || A->shape[1] != in || !float_dtype(A->dtype))
            return ts_error_set(err, TS_ERR_FORMAT,
                                "%s/adapter_model.safetensors: " PEFT_PREFIX "%s.lora_A.weight "
                                "must be float [%lld, %lld] (r, the base weight's inputs)",
                                a->folder->folder, module, (long long)r, (long long)in);
        if (B->n_dims != 2 || B->shape[0] != total || B->shape[1] != r || !float_dtype(B->dtype))
            return ts_error_set(err, TS_ERR_FORMAT,
                                "%s/adapter_model.safetensors: " PEFT_PREFIX "%s.lora_B.weight "
                                "must be float [%lld, %lld] (the base module's outputs, r)",
                                a->folder->folder, module, (long long)total, (long long)r);
        int64_t k = i + 1;
        for (int64_t j = 0; j < r; j++)
            for (int64_t c = 0; c < in; c++)
                put(set, s[0].data, (size_t)((k * R + j) * in + c), A, (size_t)(j * in + c));
        for (int64_t o = 0; o < out; o++)
            for (int64_t j = 0; j < r; j++)
                put(set, s[1].data, (size_t)((k * out + o) * R + j), B,
                    (size_t)((row0 + o) * r + j));
    }
    return TS_OK;
}

/* Every tensor of every adapter file adapts one of the stacked projections. */
static ts_status check_all_used(const ts_model_config *cfg, const ts_decoder_spec *spec,
                                const adapter *ad, int n_ad, ts_error *err)
{
    for (int i = 0; i < n_ad; i++)
        for (size_t t = 0; t < ts_checkpoint_tensor_count(ad[i].ckpt); t++) {
            const char *name = ts_checkpoint_tensor_at(ad[i].ckpt, t)->name;
            bool used = false;
            for (int l = 0; l < spec->layers && !used; l++)
                for (int p = 0; p < TS_LORA_PROJS && !used; p++) {
                    char weight[256], module[256], want[512];
                    int64_t out, in, row0, rows, total;
                    if (!ts_decoder_lora_projection(spec, l, p, weight, sizeof(weight), &out,
                                                    &in) ||
                        !module_of(cfg, weight, out, module, sizeof(module), &row0, &rows,
                                   &total))
                        continue;
                    for (char ab = 'A'; ab <= 'B' && !used; ab++) {
                        snprintf(want, sizeof(want), PEFT_PREFIX "%s.lora_%c.weight", module, ab);
                        used = strcmp(want, name) == 0;
                    }
                }
            if (!used)
                return ts_error_set(err, TS_ERR_UNSUPPORTED,
                                    "%s/adapter_model.safetensors: tensor %s adapts a module "
                                    "Tessera does not apply LoRA to (the decoder's q/k/v/o and "
                                    "gate/up/down projections)",
                                    ad[i].folder->folder, name);
        }
    return TS_OK;
}

static const ts_tensor_info *find(void *self, const char *name, int rank, const int64_t *dims)
{
    ts_lora_set *set = self;
    if (strcmp(name, "lora.scale") == 0) return &set->scale_info;
    for (int i = 0; i < set->n_tensors; i++)
        if (strcmp(set->tensors[i].name, name) == 0) return &set->tensors[i].info;
    return set->base.find(set->base.self, name, rank, dims);
}

ts_status ts_lora_set_load(const char *dir, const ts_model_config *cfg, const ts_decoder_spec *spec,
                           const ts_weight_source *base, ts_lora_set **out, ts_error *err)
{
    *out = NULL;
    const ts_lora_folder *folders = cfg->family ? cfg->family->lora_adapters : NULL;
    if (!folders) return TS_OK;
    adapter ad[MAX_ADAPTERS - 1];
    int n_ad = 0;
    ts_status st = TS_OK;
    for (const ts_lora_folder *f = folders; f->name && st == TS_OK; f++) {
        char cfg_path[4096], file[4096], rel[256];
        snprintf(rel, sizeof(rel), "%s/adapter_config.json", f->folder);
        if (ts_path_join(cfg_path, sizeof(cfg_path), dir, rel, err) != TS_OK)
            return err->status;
        if (!ts_file_exists(cfg_path)) continue; /* not shipped: not offered */
        if (n_ad == MAX_ADAPTERS - 1) {
            st = ts_error_set(err, TS_ERR_RANGE, "LoRA: more than %d adapters", MAX_ADAPTERS - 1);
            break;
        }
        adapter *a = &ad[n_ad];
        *a = (adapter){.folder = f};
        st = read_config(dir, a, err);
        snprintf(rel, sizeof(rel), "%s/adapter_model.safetensors", f->folder);
        if (st == TS_OK) st = ts_path_join(file, sizeof(file), dir, rel, err);
        if (st == TS_OK && (st = ts_checkpoint_open(file, &a->ckpt, err)) != TS_OK)
            ts_error_set(err, st, "%s: cannot be read (%s)", rel,
                         st == TS_ERR_NOT_FOUND ? "missing" : "not a safetensors file");
        if (st == TS_OK) n_ad++;
    }
    ts_lora_set *set = NULL;
    if (st == TS_OK && n_ad > 0 && !(set = calloc(1, sizeof(*set))))
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "LoRA: out of memory");
    if (st == TS_OK && set) {
        set->base = *base;
        set->count = n_ad + 1;
        set->names[0] = "none";
        for (int i = 0; i < n_ad; i++) {
            set->names[i + 1] = ad[i].folder->name;
            set->scale[i + 1] = (float)(ad[i].alpha / (double)ad[i].r);
            if (ad[i].r > set->rank) set->rank = ad[i].r;
        }
        /* bf16 adapters stay bf16 (half the memory, exact); anything else is widened to f32. */
        set->dtype = TS_DTYPE_BF16;
        for (int i = 0; i < n_ad; i++)
            for (size_t t = 0; t < ts_checkpoint_tensor_count(ad[i].ckpt); t++)
                if (ts_checkpoint_tensor_at(ad[i].ckpt, t)->dtype != TS_DTYPE_BF16)
                    set->dtype = TS_DTYPE_F32;
        int64_t K = set->count;
        set->scale_info = (ts_tensor_info){.name = "lora.scale",
                                           .dtype = TS_DTYPE_F32,
                                           .n_dims = 1,
                                           .shape = {K},
                                           .data = set->scale,
                                           .n_bytes = sizeof(float) * (size_t)K};
        set->tensors = calloc((size_t)(spec->layers * TS_LORA_PROJS * 2), sizeof(stacked));
        if (!set->tensors) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "LoRA: out of memory");
        for (int l = 0; st == TS_OK && l < spec->layers; l++)
            for (int p = 0; st == TS_OK && p < TS_LORA_PROJS; p++) {
                st = stack_projection(set, cfg, spec, ad, n_ad, l, p, set->tensors + set->n_tensors,
                                      err);
                set->n_tensors += 2;
            }
        if (st == TS_OK) st = check_all_used(cfg, spec, ad, n_ad, err);
    }
    for (int i = 0; i < n_ad; i++) ts_checkpoint_close(ad[i].ckpt);
    if (st != TS_OK) {
        ts_lora_set_destroy(set);
        return st;
    }
    *out = set;
    return TS_OK;
}

void ts_lora_set_destroy(ts_lora_set *set)
{
    if (!set) return;
    for (int i = 0; i < set->n_tensors; i++) free(set->tensors[i].data);
    free(set->tensors);
    free(set);
}

int ts_lora_set_count(const ts_lora_set *set) { return set ? set->count : 0; }
int64_t ts_lora_set_rank(const ts_lora_set *set) { return set ? set->rank : 0; }

int ts_lora_set_index(const ts_lora_set *set, const char *name)
{
    if (!name || strcmp(name, "none") == 0) return 0;
    for (int i = 1; set && i < set->count; i++)
        if (strcmp(set->names[i], name) == 0) return i;
    return -1;
}

const char *ts_lora_set_name(const ts_lora_set *set, int i)
{
    return set && i >= 0 && i < set->count ? set->names[i] : "none";
}

ts_weight_source ts_lora_set_source(ts_lora_set *set)
{
    return (ts_weight_source){find, set};
}
