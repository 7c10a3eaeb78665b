/* clip_vision.c — a CLIP or SigLIP tower and its projector as a graph (see clip_vision.h), in the
 * order of LlavaModel.get_image_features (transformers, modeling_llava.py) over
 * CLIPVisionTransformer (modeling_clip.py) or SiglipVisionTransformer (modeling_siglip.py):
 *
 *   x = patch rows of pixel_values · patch_embedding (+ bias: SigLIP)
 *   x = [class_embedding; x] (CLIP) + position_embedding
 *   x = pre_layrnorm(x) (CLIP)                       = hidden_states[0]
 *   for each block:  x = x + attn(layer_norm1(x))    q/k/v/out with biases, scale head_dim^-0.5
 *                    x = x + mlp(layer_norm2(x))     fc1 → hidden_act → fc2
 *                                                    = hidden_states[k]
 *   f = hidden_states[vision_feature_layer], minus row 0 for strategy "default"
 *   image_embeds = linear_2(act(linear_1(f)))
 * or, pooling (Gemma3Model.get_image_features):
 *   f = post_layernorm(x after every block)
 *   image_embeds = rms_norm_1p(avg_pool(f)) · mm_input_projection_weight
 */
#include "models/clip_vision.h"
#include "base/error.h"
#include "models/family.h"
#include "models/weights.h"

#include "graph/decompose.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ts_graph *g;
    const ts_clip_vision_spec *spec;
    const ts_weight_source *weights;
    ts_error *err;
    ts_status status;
} builder;

typedef struct {
    ts_value ln1_w, ln1_b, q_w, q_b, k_w, k_b, v_w, v_b, out_w, out_b, ln2_w, ln2_b, fc1_w, fc1_b, fc2_w, fc2_b;
} block_weights;

static ts_value weight_as(builder *b, int rank, const int64_t *dims, int as_rank, const int64_t *as_dims, const char *fmt, ...)
    TS_PRINTF(6, 7);

static ts_value weight_as(builder *b, int rank, const int64_t *dims, int as_rank, const int64_t *as_dims, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ts_value v = ts_weight_paramv(b->g, b->weights, &b->status, b->err, rank, dims, as_rank, as_dims, fmt, ap);
    va_end(ap);
    return v;
}

/* A tower tensor (block < 0: outside the encoder layers). */
static ts_value tower(builder *b, int rank, const int64_t *dims, const char *what, int block)
{
    if (block < 0) return weight_as(b, rank, dims, rank, dims, "%s%s", b->spec->prefix, what);
    return weight_as(b, rank, dims, rank, dims, "%sencoder.layers.%d.%s", b->spec->prefix, block, what);
}

static ts_value vec(builder *b, int64_t n, const char *what, int block) { return tower(b, 1, &n, what, block); }

static ts_value mat(builder *b, int64_t out, int64_t in, const char *what, int block)
{
    int64_t d[2] = {out, in};
    return tower(b, 2, d, what, block);
}

/* Embedding-like tables are added, not multiplied, so a bf16 checkpoint needs them widened
 * (linear and layer_norm widen their own weights). */
static ts_value f32(ts_graph *g, ts_value x)
{
    const ts_type *t = ts_graph_type(g, x);
    return t && t->dtype != TS_DTYPE_F32 ? ts_graph_convert(g, x, TS_DTYPE_F32) : x;
}

static void load_block(builder *b, int i, block_weights *w)
{
    int64_t d = b->spec->width, inter = b->spec->inter;
    w->ln1_w = vec(b, d, "layer_norm1.weight", i);
    w->ln1_b = vec(b, d, "layer_norm1.bias", i);
    w->q_w = mat(b, d, d, "self_attn.q_proj.weight", i);
    w->q_b = vec(b, d, "self_attn.q_proj.bias", i);
    w->k_w = mat(b, d, d, "self_attn.k_proj.weight", i);
    w->k_b = vec(b, d, "self_attn.k_proj.bias", i);
    w->v_w = mat(b, d, d, "self_attn.v_proj.weight", i);
    w->v_b = vec(b, d, "self_attn.v_proj.bias", i);
    w->out_w = mat(b, d, d, "self_attn.out_proj.weight", i);
    w->out_b = vec(b, d, "self_attn.out_proj.bias", i);
    w->ln2_w = vec(b, d, "layer_norm2.weight", i);
    w->ln2_b = vec(b, d, "layer_norm2.bias", i);
    w->fc1_w = mat(b, inter, d, "mlp.fc1.weight", i);
    w->fc1_b = vec(b, inter, "mlp.fc1.bias", i);
    w->fc2_w = mat(b, d, inter, "mlp.fc2.weight", i);
    w->fc2_b = vec(b, d, "mlp.fc2.bias", i);
}

/* CLIPEncoderLayer / SiglipEncoderLayer: full (unmasked) attention over every position. */
static ts_value block(ts_graph *g, const ts_clip_vision_spec *s, const block_weights *w, ts_value h)
{
    int64_t n = ts_graph_type(g, h)->dims[0], d = s->width;
    int64_t split[3] = {n, s->heads, s->head_dim}, flat[2] = {n, d};
    ts_value x = ts_graph_layer_norm(g, h, w->ln1_w, w->ln1_b, s->norm_eps);
    ts_value q = ts_graph_reshape(g, ts_graph_linear(g, x, w->q_w, w->q_b), 3, split);
    ts_value k = ts_graph_reshape(g, ts_graph_linear(g, x, w->k_w, w->k_b), 3, split);
    ts_value v = ts_graph_reshape(g, ts_graph_linear(g, x, w->v_w, w->v_b), 3, split);
    ts_value a = ts_graph_attention(g, q, k, v, TS_NO_VALUE, TS_NO_VALUE, 1.0 / sqrt((double)s->head_dim), 0);
    h = ts_graph_binary(g, TS_OP_ADD, h, ts_graph_linear(g, ts_graph_reshape(g, a, 2, flat), w->out_w, w->out_b));
    x = ts_graph_layer_norm(g, h, w->ln2_w, w->ln2_b, s->norm_eps);
    x = ts_decompose_activation(g, ts_graph_linear(g, x, w->fc1_w, w->fc1_b), s->activation);
    return ts_graph_binary(g, TS_OP_ADD, h, ts_graph_linear(g, x, w->fc2_w, w->fc2_b));
}

/* [C, S, S] → [grid², C·P·P]: pixel (c, gy·P + py, gx·P + px) goes to row gy·grid + gx, column
 * (c·P + py)·P + px — Conv2d's flatten(2).transpose(1, 2) order and the kernel's byte order. */
static ts_value patch_rows(ts_graph *g, const ts_clip_vision_spec *s, ts_value pixels)
{
    int64_t split[5] = {s->in_channels, s->grid, s->patch, s->grid, s->patch};
    int64_t perm[5] = {1, 3, 0, 2, 4};
    int64_t rows[2] = {s->grid * s->grid, s->in_channels * s->patch * s->patch};
    return ts_graph_reshape(g, ts_graph_transpose(g, ts_graph_reshape(g, pixels, 5, split), perm), 2, rows);
}

/* [grid², D] patches → average pools of k×k (k = grid / side) in raster order → [side², D], then
 * RMSNorm with (1 + w) over D and · W [D, LM hidden] (a matmul, not nn.Linear's transposed one). */
static ts_value pool_project(ts_graph *g, const ts_clip_vision_spec *s, ts_value h, ts_value soft_w, ts_value proj_w)
{
    int64_t side = s->pool_side, k = s->grid / side, d = s->width;
    int64_t split[5] = {side, k, side, k, d}, flat[2] = {side * side, d};
    ts_dims over = {2, {1, 3}};
    ts_value sum = ts_graph_reduce(g, TS_OP_REDUCE_SUM, ts_graph_reshape(g, h, 5, split), &over);
    ts_value x = ts_graph_reshape(g, sum, 2, flat);
    ts_value mean = ts_graph_binary(g, TS_OP_DIVIDE, x, ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, (float)(k * k)), 2, flat, NULL));
    ts_value normed = ts_graph_rms_norm(g, mean, soft_w, s->norm_eps, 1.0);
    ts_dims none = {0, {0}}, lc = {1, {1}}, rc = {1, {0}};
    return ts_graph_dot_general(g, normed, f32(g, proj_w), &none, &none, &lc, &rc);
}

ts_status ts_clip_vision_build(ts_graph *g, const ts_clip_vision_spec *spec, const ts_weight_source *weights, bool diagnostics,
                               ts_error *err)
{
    if (spec->depth < 1 || spec->depth > TS_MAX_LAYERS || spec->feature_layer < 0 || spec->feature_layer > spec->depth)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "vision: depth %lld, feature layer %lld (1..%d blocks supported)",
                            (long long)spec->depth, (long long)spec->feature_layer, TS_MAX_LAYERS);
    builder bb = {g, spec, weights, err, TS_OK}, *b = &bb;
    bool clip = spec->kind == TS_VIT_CLIP;
    int64_t d = spec->width, patch_dim = spec->in_channels * spec->patch * spec->patch;
    /* Blocks past the feature layer change nothing the projector reads; diagnostics run them all so every
     * hidden state of the reference can be compared. */
    int n_blocks = (int)(diagnostics ? spec->depth : spec->feature_layer);

    /* Weights first, so every failure about the checkpoint comes before the input is declared. */
    ts_graph_set_stage(g, "vision.embeddings");
    int64_t conv[4] = {d, spec->in_channels, spec->patch, spec->patch}, as_mat[2] = {d, patch_dim};
    ts_value patch_w = weight_as(b, 4, conv, 2, as_mat, "%sembeddings.patch_embedding.weight", spec->prefix);
    ts_value patch_b = clip ? TS_NO_VALUE : vec(b, d, "embeddings.patch_embedding.bias", -1);
    ts_value class_emb = clip ? vec(b, d, "embeddings.class_embedding", -1) : TS_NO_VALUE;
    ts_value pos_emb = mat(b, spec->positions, d, "embeddings.position_embedding.weight", -1);
    ts_value pre_w = TS_NO_VALUE, pre_b = TS_NO_VALUE;
    if (clip) {
        pre_w = vec(b, d, "pre_layrnorm.weight", -1);
        pre_b = vec(b, d, "pre_layrnorm.bias", -1);
    }
    block_weights bw[TS_MAX_LAYERS];
    for (int i = 0; i < n_blocks && b->status == TS_OK; i++) {
        ts_graph_set_stage(g, "vision.block.%d", i);
        load_block(b, i, &bw[i]);
    }
    ts_graph_set_stage(g, "vision.projector");
    bool pool = spec->projector_kind == TS_VIT_PROJECT_POOL;
    int64_t l1[2] = {spec->lm_hidden, d}, l2[2] = {spec->lm_hidden, spec->lm_hidden}, proj[2] = {d, spec->lm_hidden};
    ts_value l1_w = TS_NO_VALUE, l1_b = TS_NO_VALUE, l2_w = TS_NO_VALUE, l2_b = TS_NO_VALUE;
    ts_value post_w = TS_NO_VALUE, post_b = TS_NO_VALUE, soft_w = TS_NO_VALUE, proj_w = TS_NO_VALUE;
    if (pool) {
        post_w = vec(b, d, "post_layernorm.weight", -1);
        post_b = vec(b, d, "post_layernorm.bias", -1);
        soft_w = weight_as(b, 1, &d, 1, &d, "%smm_soft_emb_norm.weight", spec->projector);
        proj_w = weight_as(b, 2, proj, 2, proj, "%smm_input_projection_weight", spec->projector);
    } else {
        l1_w = weight_as(b, 2, l1, 2, l1, "%slinear_1.weight", spec->projector);
        l1_b = weight_as(b, 1, &spec->lm_hidden, 1, &spec->lm_hidden, "%slinear_1.bias", spec->projector);
        l2_w = weight_as(b, 2, l2, 2, l2, "%slinear_2.weight", spec->projector);
        l2_b = weight_as(b, 1, &spec->lm_hidden, 1, &spec->lm_hidden, "%slinear_2.bias", spec->projector);
    }
    if (b->status != TS_OK) return b->status;

    ts_graph_set_stage(g, "vision.inputs");
    int64_t pv[3] = {spec->in_channels, spec->image, spec->image};
    ts_value pixels = ts_graph_parameter(g, "pixel_values", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_F32, 3, pv));

    /* outs: image_embeds, patch_embed, blocks_input, block 0 … depth−1. */
    ts_value outs[3 + TS_MAX_LAYERS];
    ts_graph_set_stage(g, "vision.embeddings");
    ts_value h = ts_graph_linear(g, patch_rows(g, spec, pixels), patch_w, patch_b);
    if (clip) {
        int64_t one_row[2] = {1, d};
        ts_value parts[2] = {ts_graph_reshape(g, f32(g, class_emb), 2, one_row), h};
        h = ts_graph_concatenate(g, parts, 2, 0);
    }
    h = ts_graph_binary(g, TS_OP_ADD, h, f32(g, pos_emb));
    outs[1] = h;
    if (clip) {
        ts_graph_set_stage(g, "vision.pre_layrnorm");
        h = ts_graph_layer_norm(g, h, pre_w, pre_b, spec->norm_eps);
    }
    outs[2] = h;
    ts_value feature = spec->feature_layer == 0 ? h : TS_NO_VALUE;
    for (int i = 0; i < n_blocks; i++) {
        ts_graph_set_stage(g, "vision.block.%d", i);
        h = block(g, spec, &bw[i], h);
        outs[3 + i] = h;
        if (i + 1 == spec->feature_layer) feature = h;
    }
    ts_graph_set_stage(g, "vision.projector");
    if (pool) {
        outs[0] = pool_project(g, spec, ts_graph_layer_norm(g, h, post_w, post_b, spec->norm_eps), soft_w, proj_w);
        ts_graph_set_outputs(g, outs, diagnostics ? (int)(3 + spec->depth) : 1);
        return ts_graph_status(g, err);
    }
    if (spec->drop_first) {
        int64_t start[2] = {1, 0}, limit[2] = {spec->positions, d};
        feature = ts_graph_slice(g, feature, start, limit, NULL);
    }
    ts_value x = ts_decompose_activation(g, ts_graph_linear(g, feature, l1_w, l1_b), spec->projector_activation);
    outs[0] = ts_graph_linear(g, x, l2_w, l2_b);
    ts_graph_set_outputs(g, outs, diagnostics ? (int)(3 + spec->depth) : 1);
    return ts_graph_status(g, err);
}

/* ---------------------------------------------------------------- config */

static ts_status activation(const char *name, const char *setting, ts_activation *out, ts_error *err)
{
    /* ACT2FN names: "gelu" is the exact erf form, "gelu_pytorch_tanh" the tanh approximation. */
    if (strcmp(name, "quick_gelu") == 0) *out = TS_ACT_QUICK_GELU;
    else if (strcmp(name, "gelu") == 0) *out = TS_ACT_GELU;
    else if (strcmp(name, "gelu_pytorch_tanh") == 0) *out = TS_ACT_GELU_TANH;
    else if (strcmp(name, "silu") == 0) *out = TS_ACT_SILU;
    else
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "config.json: %s \"%s\" (supported: quick_gelu, gelu, gelu_pytorch_tanh, silu)",
                            setting, name);
    return TS_OK;
}

static ts_status spec_init(const ts_model_config *cfg, ts_vit_projector projector, ts_clip_vision_spec *spec, ts_error *err)
{
    const ts_vision_config *v = &cfg->vision;
    memset(spec, 0, sizeof(*spec));
    spec->projector_kind = projector;
    if (!cfg->has_vision) return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: the config declares no vision tower", ts_family_name(cfg->family));
    if (strcmp(v->model_type, "clip_vision_model") == 0) spec->kind = TS_VIT_CLIP;
    else if (strcmp(v->model_type, "siglip_vision_model") == 0) spec->kind = TS_VIT_SIGLIP;
    else
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "config.json: vision_config.model_type \"%s\" (supported: clip_vision_model, siglip_vision_model)",
                            v->model_type);
    spec->prefix = "vision_tower.vision_model.";
    spec->projector = "multi_modal_projector.";
    spec->depth = v->depth;
    spec->width = v->hidden_size;
    spec->heads = v->num_heads;
    spec->head_dim = v->num_heads > 0 ? v->hidden_size / v->num_heads : 0;
    spec->inter = v->intermediate_size;
    spec->in_channels = v->in_channels;
    spec->image = v->image_size;
    spec->patch = v->patch_size;
    spec->grid = v->patch_size > 0 ? v->image_size / v->patch_size : 0;
    spec->positions = spec->grid * spec->grid + (spec->kind == TS_VIT_CLIP);
    spec->lm_hidden = cfg->text.hidden_size;
    spec->norm_eps = v->layer_norm_eps;
    if (spec->depth < 1 || spec->depth > TS_MAX_LAYERS || spec->head_dim < 1 || spec->grid < 1 || spec->in_channels < 1 ||
        spec->lm_hidden < 1)
        return ts_error_set(err, TS_ERR_FORMAT, "config.json: vision_config (depth %lld, image %lld, patch %lld) does not describe a tower",
                            (long long)spec->depth, (long long)spec->image, (long long)spec->patch);
    if (spec->projector_kind == TS_VIT_PROJECT_POOL) return activation(v->hidden_act, "vision_config.hidden_act", &spec->activation, err);
    /* hidden_states has depth + 1 entries; a negative layer counts from the end, as in Python. */
    int64_t layer = cfg->vision_feature_layer;
    spec->feature_layer = layer < 0 ? spec->depth + 1 + layer : layer;
    if (spec->feature_layer < 0 || spec->feature_layer > spec->depth)
        return ts_error_set(err, TS_ERR_RANGE, "config.json: vision_feature_layer %lld is outside the %lld-block tower", (long long)layer,
                            (long long)spec->depth);
    if (strcmp(cfg->vision_feature_select_strategy, "default") == 0) spec->drop_first = true;
    else if (strcmp(cfg->vision_feature_select_strategy, "full") != 0)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "config.json: vision_feature_select_strategy \"%s\" (supported: default, full)",
                            cfg->vision_feature_select_strategy);
    /* "default" drops row 0 whatever it is (the class token for CLIP, a patch for SigLIP), as
     * the reference's selected_image_feature[:, 1:] does. */
    spec->tokens = spec->positions - spec->drop_first;
    ts_status st = activation(v->hidden_act, "vision_config.hidden_act", &spec->activation, err);
    if (st == TS_OK) st = activation(cfg->projector_hidden_act, "projector_hidden_act", &spec->projector_activation, err);
    return st;
}

ts_status ts_clip_vision_spec_init(const ts_model_config *cfg, ts_clip_vision_spec *spec, ts_error *err)
{
    return spec_init(cfg, TS_VIT_PROJECT_MLP, spec, err);
}

ts_status ts_clip_vision_pool_spec_init(const ts_model_config *cfg, ts_clip_vision_spec *spec, ts_error *err)
{
    ts_status st = spec_init(cfg, TS_VIT_PROJECT_POOL, spec, err);
    if (st != TS_OK) return st;
    int64_t side = 0;
    while ((side + 1) * (side + 1) <= cfg->mm_tokens_per_image) side++;
    if (side < 1 || side * side != cfg->mm_tokens_per_image || spec->grid % side)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "config.json: mm_tokens_per_image %lld is not a square whose side divides the %lld×%lld patch grid",
                            (long long)cfg->mm_tokens_per_image, (long long)spec->grid, (long long)spec->grid);
    spec->pool_side = side;
    spec->tokens = side * side;
    spec->feature_layer = spec->depth;
    return TS_OK;
}

/* ---------------------------------------------------------------- as a family's tower */

/* One fixed-size image per graph, whatever n_patches says: the engine keys it as 1. */
ts_status ts_clip_tower_build(ts_graph *g, const void *spec, const ts_weight_source *weights, int64_t n_patches, ts_error *err)
{
    (void)n_patches;
    return ts_clip_vision_build(g, spec, weights, false, err);
}

int64_t ts_clip_tower_smallest(const void *spec) { return (void)spec, 1; }
int ts_clip_tower_levels(const void *spec) { return (void)spec, 1; }
int64_t ts_clip_tower_width(const void *spec) { return ((const ts_clip_vision_spec *)spec)->lm_hidden; }

int64_t ts_clip_tower_image_tokens(const void *spec, const ts_pixel_values *pv)
{
    const ts_clip_vision_spec *s = spec;
    return pv->n_dims == 4 ? pv->shape[0] * s->tokens : s->tokens;
}

int64_t ts_clip_tower_image_rows(const void *spec, const ts_pixel_values *p)
{
    const ts_clip_vision_spec *s = spec;
    return p->n_dims == 4 && p->shape[0] >= 1 && p->shape[0] <= TS_MAX_IMAGES ? p->shape[0] * s->tokens : 0;
}

/* Every image is [C, S, S] (a ts_pixel_values may hold several, [k, C, S, S]), run one at a time
 * through the fixed-size graph; its rows follow the previous image's. */
ts_status ts_clip_tower_encode(const void *spec, ts_tower_runner *runner, const ts_pixel_values *images, int n_images, float **embeds,
                              int64_t *n_rows, ts_error *err)
{
    const ts_clip_vision_spec *s = spec;
    *embeds = NULL;
    if (n_images < 1 || n_images > TS_MAX_IMAGES)
        return ts_error_set(err, TS_ERR_RANGE, "vision: %d images (1..%d allowed)", n_images, TS_MAX_IMAGES);
    int64_t count = 0, pixels = s->in_channels * s->image * s->image;
    for (int i = 0; i < n_images; i++) {
        const ts_pixel_values *p = &images[i];
        if (p->n_dims != 4 || p->shape[0] < 1 || p->shape[1] != s->in_channels || p->shape[2] != s->image || p->shape[3] != s->image)
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "vision: image %d is not [k, %lld, %lld, %lld] pixel values for this tower", i,
                                (long long)s->in_channels, (long long)s->image, (long long)s->image);
        count += p->shape[0];
    }
    if (count > TS_MAX_IMAGES)
        return ts_error_set(err, TS_ERR_RANGE, "vision: %lld images (1..%d allowed)", (long long)count, TS_MAX_IMAGES);
    size_t per_image = (size_t)(s->tokens * s->lm_hidden);
    float *out = malloc(sizeof(float) * per_image * (size_t)count);
    if (!out) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "vision: out of memory for %lld images", (long long)count);
    ts_status st = TS_OK;
    int64_t done = 0;
    for (int i = 0; st == TS_OK && i < n_images; i++)
        for (int64_t j = 0; st == TS_OK && j < images[i].shape[0]; j++, done++) {
            void *input = images[i].data + j * pixels;
            const void *outs[1];
            st = ts_tower_run(runner, 1, &input, 1, outs, err);
            if (st == TS_OK) memcpy(out + (size_t)done * per_image, outs[0], sizeof(float) * per_image);
        }
    if (st != TS_OK) {
        free(out);
        return st;
    }
    *embeds = out;
    *n_rows = count * s->tokens;
    return TS_OK;
}

typedef ts_status (*spec_init_fn)(const ts_model_config *cfg, ts_clip_vision_spec *spec,
                                  ts_error *err);

static ts_status entry_geometry(spec_init_fn init, const ts_model_config *cfg,
                                ts_vision_entry_geometry *out, ts_error *err)
{
    ts_clip_vision_spec s;
    TS_TRY(init(cfg, &s, err));
    *out = (ts_vision_entry_geometry){"fixed_image", s.patch,         1, 1, s.width, s.depth,
                                      s.lm_hidden,   s.grid * s.grid, 0, 0, 0};
    return TS_OK;
}

static ts_status entry_build(spec_init_fn init, ts_graph *g, const ts_model_config *cfg,
                             const ts_weight_source *weights, int64_t n_patches, ts_error *err)
{
    ts_clip_vision_spec s;
    TS_TRY(init(cfg, &s, err));
    if (n_patches != s.grid * s.grid)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "vision.main: the tower takes one %lld×%lld image, %lld patches: "
                            "that is its only bucket (not %lld)",
                            (long long)s.image, (long long)s.image, (long long)(s.grid * s.grid),
                            (long long)n_patches);
    return ts_clip_vision_build(g, &s, weights, false, err);
}

ts_status ts_clip_entry_geometry(const ts_model_config *cfg, ts_vision_entry_geometry *out,
                                 ts_error *err)
{
    return entry_geometry(ts_clip_vision_spec_init, cfg, out, err);
}

ts_status ts_clip_entry_build(ts_graph *g, const ts_model_config *cfg,
                              const ts_weight_source *weights, int64_t n_patches, ts_error *err)
{
    return entry_build(ts_clip_vision_spec_init, g, cfg, weights, n_patches, err);
}

ts_status ts_clip_pool_entry_geometry(const ts_model_config *cfg, ts_vision_entry_geometry *out,
                                      ts_error *err)
{
    return entry_geometry(ts_clip_vision_pool_spec_init, cfg, out, err);
}

ts_status ts_clip_pool_entry_build(ts_graph *g, const ts_model_config *cfg,
                                   const ts_weight_source *weights, int64_t n_patches,
                                   ts_error *err)
{
    return entry_build(ts_clip_vision_pool_spec_init, g, cfg, weights, n_patches, err);
}
