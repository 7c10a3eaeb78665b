/* synthetic.c — random-weight stores and the published configs they stand in for. */
#include "engine/synthetic.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/pages.h"
#include "models/family.h"

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

ts_status ts_synthetic_weights_create(ts_dtype dtype, uint64_t seed, ts_synthetic_weights **out,
                                      ts_error *err)
{
    *out = NULL;
    if (dtype != TS_DTYPE_F32 && dtype != TS_DTYPE_BF16 && dtype != TS_DTYPE_F16)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "synthetic weights: dtype %s (F32, BF16, F16 allowed)",
                            ts_dtype_name(dtype));
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
    for (size_t i = 0; i < w->n; i++)
        free(w->tensors[i].data), free(w->tensors[i].name);
    free(w->tensors);
    free(w);
}

size_t ts_synthetic_weights_bytes(const ts_synthetic_weights *w)
{
    return w->bytes;
}

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
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
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

const ts_tensor_info *ts_synthetic_weights_find(void *self, const char *name, int rank,
                                                const int64_t *dims)
{
    ts_synthetic_weights *w = self;
    for (size_t i = 0; i < w->n; i++)
        if (strcmp(w->tensors[i].name, name) == 0) return &w->tensors[i].info;
    if (w->n == w->cap) {
        tensor *t = ts_array_grow(w->tensors, &w->cap, sizeof(tensor), 64);
        if (!t) return NULL;
        w->tensors = t;
    }
    /* Biases and norms stay f32-sized vectors in the weight dtype like the rest. */
    size_t count = 1;
    for (int i = 0; i < rank; i++)
        count *= (size_t)dims[i];
    size_t bytes = count * ts_dtype_size(w->dtype);
    tensor *t = &w->tensors[w->n];
    memset(t, 0, sizeof(*t));
    t->name = strdup(name);
    t->data = ts_pages_alloc(bytes); /* streamed by decode, like a checkpoint's mapping */
    if (!t->name || !t->data) {
        free(t->name), free(t->data);
        return NULL;
    }
    bool ones = rank == 1 && strstr(name, "norm") != NULL;
    fill(w->dtype, t->data, count, hash_name(name, w->seed), ones);
    t->info.name = t->name;
    t->info.dtype = w->dtype;
    t->info.n_dims = rank;
    for (int i = 0; i < rank; i++)
        t->info.shape[i] = dims[i];
    t->info.data = t->data;
    t->info.n_bytes = bytes;
    t->info.file = "(synthetic)";
    w->bytes += bytes;
    w->n++;
    return &t->info;
}

size_t ts_synthetic_weights_count(const ts_synthetic_weights *w)
{
    return w->n;
}

const ts_tensor_info *ts_synthetic_weights_at(const ts_synthetic_weights *w, size_t i)
{
    return i < w->n ? &w->tensors[i].info : NULL;
}

const char *ts_synthetic_preset_json(const char *preset)
{
    return ts_family_preset_json(preset);
}

ts_status ts_model_config_preset(const char *preset, ts_model_config *cfg, ts_error *err)
{
    const char *json = ts_synthetic_preset_json(preset);
    if (json) return ts_model_config_parse(json, strlen(json), preset, cfg, err);
    return ts_error_set(err, TS_ERR_NOT_FOUND, "unknown synthetic model '%s' (presets: %s)", preset,
                        ts_family_preset_ids());
}
