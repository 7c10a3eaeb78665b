/* phi4_vision.c — Phi-4-multimodal's image embedding as host code (see phi4_vision.h). */
#include "models/phi4_mm/phi4_vision.h"

#include "base/error.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX "model.embed_tokens_extend.image_embed."

ts_status ts_phi4_vision_spec_read(const ts_json_reader *r, const cJSON *v, int64_t text_width,
                                   ts_phi4_vision_spec *s)
{
    memset(s, 0, sizeof(*s));
    int64_t depth, feature, crop;
    char act[32];
    /* Defaults: Phi4MultimodalVisionConfig's. */
    TS_TRY(ts_json_int(r, v, "hidden_size", 1152, &s->width));
    TS_TRY(ts_json_int(r, v, "intermediate_size", 4304, &s->inter));
    TS_TRY(ts_json_int(r, v, "num_attention_heads", 16, &s->heads));
    TS_TRY(ts_json_int(r, v, "num_hidden_layers", 27, &depth));
    TS_TRY(ts_json_int(r, v, "feature_layer", -2, &feature));
    TS_TRY(ts_json_int(r, v, "patch_size", 14, &s->patch));
    TS_TRY(ts_json_int(r, v, "image_size", 448, &s->image_size));
    TS_TRY(ts_json_int(r, v, "crop_size", 448, &crop));
    TS_TRY(ts_json_int(r, v, "image_token_id", 200010, &s->image_token_id));
    TS_TRY(ts_json_double(r, v, "layer_norm_eps", 1e-6, &s->eps));
    TS_TRY(ts_json_string(r, v, "hidden_act", "gelu_pytorch_tanh", act, sizeof(act)));
    s->text_width = text_width;
    s->layers = depth + feature + 1;
    const char *bad = strcmp(act, "gelu_pytorch_tanh")                       ? "hidden_act"
                      : feature >= 0 || s->layers < 0                        ? "feature_layer"
                      : crop != s->image_size                                ? "crop_size"
                      : s->patch <= 0 || s->image_size % s->patch            ? "patch_size"
                      : s->width <= 0 || s->heads <= 0 || s->width % s->heads ? "num_attention_heads"
                      : s->inter <= 0 || text_width <= 0                     ? "intermediate_size"
                                                                             : NULL;
    if (bad)
        return ts_error_set(r->err, TS_ERR_UNSUPPORTED, "%s: %s%s: unsupported value for the "
                            "Phi-4-multimodal image tower", r->origin, r->prefix, bad);
    return TS_OK;
}

/* ---------------------------------------------------------------- weights */

typedef struct {
    const ts_weight_source *src;
    ts_error *err;
    ts_status st;
} loader;

/* The named tensor as owned floats, checked to hold n values; NULL (and ld->st set) otherwise. */
static float *load(loader *ld, int64_t n, const char *fmt, ...) TS_PRINTF(3, 4);
static float *load(loader *ld, int64_t n, const char *fmt, ...)
{
    if (ld->st) return NULL;
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof(name), fmt, ap);
    va_end(ap);
    const ts_tensor_info *t = ld->src->find(ld->src->self, name, 1, &n);
    int64_t have = 1;
    for (int i = 0; t && i < t->n_dims; i++)
        have *= t->shape[i];
    if (!t || have != n || (t->dtype != TS_DTYPE_F32 && t->dtype != TS_DTYPE_BF16)) {
        ld->st = ts_error_set(ld->err, TS_ERR_FORMAT,
                              "Phi-4-multimodal image tower: checkpoint tensor %s %s (want %lld "
                              "F32 or BF16 values)",
                              name, t ? "has another size or type" : "is missing", (long long)n);
        return NULL;
    }
    float *out = malloc(sizeof(float) * (size_t)n);
    if (!out) {
        ld->st = ts_error_set(ld->err, TS_ERR_OUT_OF_MEMORY, "no memory for %s", name);
        return NULL;
    }
    if (t->dtype == TS_DTYPE_F32) {
        memcpy(out, t->data, sizeof(float) * (size_t)n);
    } else {
        const uint16_t *b = t->data;
        for (int64_t i = 0; i < n; i++) {
            uint32_t u = (uint32_t)b[i] << 16;
            memcpy(&out[i], &u, 4);
        }
    }
    return out;
}

/* ---------------------------------------------------------------- math */

/* y[rows][out] = x[rows][in] · wᵀ + b, w [out][in]. */
static void linear(const float *x, int64_t rows, int64_t in, const float *w, const float *b, int64_t out,
                   float *y)
{
    for (int64_t r = 0; r < rows; r++)
        for (int64_t o = 0; o < out; o++) {
            const float *xr = x + r * in, *wo = w + o * in;
            float acc = 0.f;
            for (int64_t i = 0; i < in; i++)
                acc += xr[i] * wo[i];
            y[r * out + o] = acc + (b ? b[o] : 0.f);
        }
}

static void layer_norm(const float *x, int64_t rows, int64_t d, const float *g, const float *b, double eps,
                       float *y)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        double mean = 0, var = 0;
        for (int64_t i = 0; i < d; i++)
            mean += xr[i];
        mean /= (double)d;
        for (int64_t i = 0; i < d; i++)
            var += (xr[i] - mean) * (xr[i] - mean);
        var /= (double)d;
        double inv = 1.0 / sqrt(var + eps);
        for (int64_t i = 0; i < d; i++)
            y[r * d + i] = (float)((xr[i] - mean) * inv) * g[i] + b[i];
    }
}

static float gelu_tanh(float x)
{
    const float k = 0.7978845608028654f; /* sqrt(2/pi) */
    return 0.5f * x * (1.f + tanhf(k * (x + 0.044715f * x * x * x)));
}

static float gelu_erf(float x) { return 0.5f * x * (1.f + erff(x * 0.70710678118654752f)); }

/* The bucket of patch i of n valid ones: torch.bucketize(min(i·(1/n), 1 − 1e−6), k/side, right). */
static int64_t bucket(int64_t i, int64_t n, int64_t side)
{
    float frac = (float)i * (1.0f / (float)n);
    const float top = (float)(1.0 - 1e-6);
    if (frac > top) frac = top;
    int64_t k = 0;
    while (k + 1 < side && (float)(k + 1) * (1.0f / (float)side) <= frac)
        k++;
    return k;
}

int64_t ts_phi4_vision_position(const uint8_t *mask, int64_t side, int64_t p)
{
    if (!mask[p]) return 0;
    /* nh, nw: the valid rows (first column's sum) and columns (first row's sum). */
    int64_t nh = 0, nw = 0;
    for (int64_t i = 0; i < side; i++)
        nh += mask[i * side] != 0, nw += mask[i] != 0;
    return bucket(p / side, nh, side) * side + bucket(p % side, nw, side);
}

typedef struct {
    float *ln1_w, *ln1_b, *q_w, *q_b, *k_w, *k_b, *v_w, *v_b, *o_w, *o_b, *ln2_w, *ln2_b, *fc1_w, *fc1_b,
        *fc2_w, *fc2_b;
} block;

static void block_free(block *b)
{
    float **f = (float **)b;
    for (size_t i = 0; i < sizeof(*b) / sizeof(float *); i++)
        free(f[i]);
}

static void block_load(loader *ld, const ts_phi4_vision_spec *s, int64_t i, block *b)
{
    int64_t d = s->width, m = s->inter;
#define L(field, n, what) b->field = load(ld, n, PREFIX "img_processor.encoder.layers.%lld." what, (long long)i)
    L(ln1_w, d, "layer_norm1.weight");
    L(ln1_b, d, "layer_norm1.bias");
    L(q_w, d * d, "self_attn.q_proj.weight");
    L(q_b, d, "self_attn.q_proj.bias");
    L(k_w, d * d, "self_attn.k_proj.weight");
    L(k_b, d, "self_attn.k_proj.bias");
    L(v_w, d * d, "self_attn.v_proj.weight");
    L(v_b, d, "self_attn.v_proj.bias");
    L(o_w, d * d, "self_attn.out_proj.weight");
    L(o_b, d, "self_attn.out_proj.bias");
    L(ln2_w, d, "layer_norm2.weight");
    L(ln2_b, d, "layer_norm2.bias");
    L(fc1_w, m * d, "mlp.fc1.weight");
    L(fc1_b, m, "mlp.fc1.bias");
    L(fc2_w, d * m, "mlp.fc2.weight");
    L(fc2_b, d, "mlp.fc2.bias");
#undef L
}

/* One encoder layer over x [n][d] in place; keys with valid[j] == 0 are masked. scratch holds
 * 5·n·d + n·inter + n floats. */
static void encoder_layer(const ts_phi4_vision_spec *s, const block *b, float *x, int64_t n, const uint8_t *valid,
                          float *scratch)
{
    int64_t d = s->width, h = s->heads, hd = d / h;
    float *t = scratch, *q = t + n * d, *k = q + n * d, *v = k + n * d, *a = v + n * d, *m = a + n * d,
          *p = m + n * s->inter;
    layer_norm(x, n, d, b->ln1_w, b->ln1_b, s->eps, t);
    linear(t, n, d, b->q_w, b->q_b, d, q);
    linear(t, n, d, b->k_w, b->k_b, d, k);
    linear(t, n, d, b->v_w, b->v_b, d, v);
    const float scale = 1.0f / sqrtf((float)hd);
    for (int64_t head = 0; head < h; head++)
        for (int64_t i = 0; i < n; i++) {
            const float *qi = q + i * d + head * hd;
            float top = -INFINITY;
            for (int64_t j = 0; j < n; j++) {
                if (!valid[j]) continue;
                const float *kj = k + j * d + head * hd;
                float s_ = 0.f;
                for (int64_t c = 0; c < hd; c++)
                    s_ += qi[c] * kj[c];
                p[j] = s_ * scale;
                if (p[j] > top) top = p[j];
            }
            double sum = 0;
            for (int64_t j = 0; j < n; j++)
                if (valid[j]) sum += (p[j] = expf(p[j] - top));
            float *ai = a + i * d + head * hd;
            for (int64_t c = 0; c < hd; c++)
                ai[c] = 0.f;
            for (int64_t j = 0; j < n; j++) {
                if (!valid[j]) continue;
                float w = (float)(p[j] / sum);
                const float *vj = v + j * d + head * hd;
                for (int64_t c = 0; c < hd; c++)
                    ai[c] += w * vj[c];
            }
        }
    linear(a, n, d, b->o_w, b->o_b, d, t);
    for (int64_t i = 0; i < n * d; i++)
        x[i] += t[i];
    layer_norm(x, n, d, b->ln2_w, b->ln2_b, s->eps, t);
    linear(t, n, d, b->fc1_w, b->fc1_b, s->inter, m);
    for (int64_t i = 0; i < n * s->inter; i++)
        m[i] = gelu_tanh(m[i]);
    linear(m, n, s->inter, b->fc2_w, b->fc2_b, d, t);
    for (int64_t i = 0; i < n * d; i++)
        x[i] += t[i];
}

ts_status ts_phi4_vision_features(const ts_phi4_vision_spec *s, const ts_weight_source *weights,
                                  const ts_phi4_hd_image *im, float **out, ts_error *err)
{
    *out = NULL;
    int64_t side = s->image_size / s->patch, n = side * side, d = s->width, P = s->patch;
    if (im->crop != s->image_size || im->patch != P)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "Phi-4-multimodal image tower: views of %d px in %d-px patches, the tower "
                            "takes %lld in %lld",
                            im->crop, im->patch, (long long)s->image_size, (long long)P);
    loader ld = {weights, err, TS_OK};
    float *pw = load(&ld, d * 3 * P * P, PREFIX "img_processor.embeddings.patch_embedding.weight");
    float *pb = load(&ld, d, PREFIX "img_processor.embeddings.patch_embedding.bias");
    float *pos = load(&ld, n * d, PREFIX "img_processor.embeddings.position_embedding.weight");
    block *blocks = calloc((size_t)(s->layers ? s->layers : 1), sizeof(block));
    float *feat = malloc(sizeof(float) * (size_t)(im->views * n * d));
    float *scratch = malloc(sizeof(float) * (size_t)(5 * n * d + n * s->inter + n));
    if (!ld.st && (!blocks || !feat || !scratch))
        ld.st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "Phi-4-multimodal image tower: no memory");
    for (int64_t i = 0; !ld.st && i < s->layers; i++)
        block_load(&ld, s, i, &blocks[i]);
    size_t plane = (size_t)im->crop * im->crop;
    for (int v = 0; !ld.st && v < im->views; v++) {
        const float *px = im->pixels + (size_t)v * 3 * plane;
        const uint8_t *mask = im->mask + (size_t)v * n;
        float *x = feat + (size_t)v * n * d;
        for (int64_t py = 0; py < side; py++)
            for (int64_t pxi = 0; pxi < side; pxi++) {
                int64_t p = py * side + pxi;
                int64_t at = ts_phi4_vision_position(mask, side, p);
                for (int64_t o = 0; o < d; o++) {
                    const float *w = pw + o * 3 * P * P;
                    float acc = 0.f;
                    for (int64_t c = 0; c < 3; c++)
                        for (int64_t ky = 0; ky < P; ky++) {
                            const float *row = px + c * plane + (size_t)(py * P + ky) * im->crop + pxi * P;
                            for (int64_t kx = 0; kx < P; kx++)
                                acc += w[(c * P + ky) * P + kx] * row[kx];
                        }
                    x[p * d + o] = acc + pb[o] + pos[at * d + o];
                }
            }
        for (int64_t i = 0; i < s->layers; i++)
            encoder_layer(s, &blocks[i], x, n, mask, scratch);
    }
    for (int64_t i = 0; blocks && i < s->layers; i++)
        block_free(&blocks[i]);
    free(blocks);
    free(scratch);
    free(pw), free(pb), free(pos);
    if (ld.st) {
        free(feat);
        return ld.st;
    }
    *out = feat;
    return TS_OK;
}

/* AvgPool2d(2) of view v's side × side features at pooled (i, j) into dst [d]. */
static void pooled(const float *feat, int64_t side, int64_t d, int64_t i, int64_t j, float *dst)
{
    const float *a = feat + ((2 * i) * side + 2 * j) * d, *b = a + side * d;
    for (int64_t c = 0; c < d; c++)
        dst[c] = (a[c] + a[d + c] + b[c] + b[d + c]) / 4.f;
}

ts_status ts_phi4_image_rows(const ts_phi4_vision_spec *s, const ts_weight_source *weights,
                             const ts_phi4_hd_image *im, float **rows, float **hd_out, ts_error *err)
{
    *rows = NULL;
    if (hd_out) *hd_out = NULL;
    int64_t side = s->image_size / s->patch, half = side / 2, d = s->width, D = s->text_width, n = side * side;
    if (side % 2) {
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "Phi-4-multimodal image tower: an odd patch grid (%lld) needs the reflection "
                            "pad, not built",
                            (long long)side);
    }
    float *feat = NULL;
    TS_TRY(ts_phi4_vision_features(s, weights, im, &feat, err));
    loader ld = {weights, err, TS_OK};
    float *glob_ext = load(&ld, d, PREFIX "global_img_feature_extensor");
    float *sub_ext = load(&ld, d, PREFIX "sub_img_feature_extensor");
    float *up_w = load(&ld, D * d, PREFIX "img_projection_up.weight");
    float *up_b = load(&ld, D, PREFIX "img_projection_up.bias");
    float *down_w = load(&ld, D * D, PREFIX "img_projection_down.weight");
    float *down_b = load(&ld, D, PREFIX "img_projection_down.bias");
    int64_t T = im->tokens, V = im->views, pooled_rows = V * half * half, max = ts_phi4_image_rows_max(s, V);
    float *table = malloc(sizeof(float) * (size_t)((pooled_rows + 2) * d));
    int32_t *layout = malloc(sizeof(int32_t) * (size_t)max), *positions = malloc(sizeof(int32_t) * (size_t)(V * n));
    float *bias = malloc(sizeof(float) * (size_t)(V * n));
    float *hd = malloc(sizeof(float) * (size_t)(T * d));
    float *mid = malloc(sizeof(float) * (size_t)(T * D));
    float *out = malloc(sizeof(float) * (size_t)(T * D));
    if (!ld.st && (!table || !layout || !positions || !bias || !hd || !mid || !out))
        ld.st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "Phi-4-multimodal image rows: no memory");
    if (!ld.st) ld.st = ts_phi4_image_inputs(s, im, V, positions, bias, layout, err);
    if (!ld.st) {
        /* The pooled table the layout indexes, then the layout's rows. */
        for (int64_t v = 0; v < V; v++)
            for (int64_t i = 0; i < half; i++)
                for (int64_t j = 0; j < half; j++)
                    pooled(feat + v * n * d, side, d, i, j, table + ((v * half + i) * half + j) * d);
        memcpy(table + pooled_rows * d, sub_ext, sizeof(float) * (size_t)d);
        memcpy(table + (pooled_rows + 1) * d, glob_ext, sizeof(float) * (size_t)d);
        for (int64_t r = 0; r < T; r++)
            memcpy(hd + r * d, table + (int64_t)layout[r] * d, sizeof(float) * (size_t)d);
        linear(hd, T, d, up_w, up_b, D, mid);
        for (int64_t i = 0; i < T * D; i++)
            mid[i] = gelu_erf(mid[i]);
        linear(mid, T, D, down_w, down_b, D, out);
    }
    free(feat), free(mid), free(table), free(layout), free(positions), free(bias);
    free(glob_ext), free(sub_ext), free(up_w), free(up_b), free(down_w), free(down_b);
    if (ld.st || !hd_out) free(hd);
    if (ld.st) {
        free(out);
        return ld.st;
    }
    if (hd_out) *hd_out = hd;
    *rows = out;
    return TS_OK;
}
