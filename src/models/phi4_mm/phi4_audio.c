/* phi4_audio.c — Phi-4-multimodal's audio encoder and projector (see phi4_audio.h), in the order
 * of Phi4MultimodalAudioEmbedding.forward over Phi4MultimodalAudioModel:
 *
 *   x = (features − global_mean) · global_invstd                  [F0 frames, 80 mels]
 *   NeMo subsampling, time on the first axis, frequency on the second, channels last:
 *     Conv2d(1, C, 3, s2, p1) + ReLU, then per further stage depthwise Conv2d(C, C, 3, s2, p1),
 *     pointwise Conv2d(C, C, 1), ReLU; rows (channel, frequency) flattened → out linear
 *                                                               = audio_subsampled [T, D]
 *   bias[h, i, j] = table[clip(j − i, −M, M − 1) + M][h]        = audio_relative_bias
 *   mask = 1 (every frame visible, added as a number) + bias
 *   past 500 rows: zero-padded to whole 500-row chunks, each chunk through the blocks alone
 *   per block: r = x + ½·FF_in(x); x = r + Attn(LN_att(r), mask); x += Conv(x);
 *              x += ½·FF_out(x); x = LN(x)                       = audio_block_i
 *   rows = down(gelu(up(x))), the padding rows dropped            = audio_embeds_{mode}
 *
 * Attention runs as one fused attention op per head, each with its head's [T, T] mask: the fused
 * op takes one bias for all heads, and a generic dot_general is far slower on the CPU.
 * Convolutions are built from StableHLO slices (strided for stride 2), products and sums, one
 * kernel tap at a time; a pointwise convolution is a linear over the channel axis.
 */
#include "models/phi4_mm/phi4_audio.h"
#include "base/error.h"
#include "base/file.h"
#include "graph/decompose.h"
#include "loader/config_keys.h"
#include "models/weights.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX "model.embed_tokens_extend.audio_embed."
#define NORM_EPS 1e-5 /* nn.LayerNorm's default: the audio config has no eps */

/* ---------------------------------------------------------------- config */

static ts_status want_string(const ts_json_reader *r, const cJSON *a, const char *key,
                             const char *def, const char *ok1, const char *ok2)
{
    char v[64];
    TS_TRY(ts_json_string(r, a, key, def, v, sizeof(v)));
    if (strcmp(v, ok1) == 0 || (ok2 && strcmp(v, ok2) == 0)) return TS_OK;
    return ts_error_set(r->err, TS_ERR_UNSUPPORTED, "%s: %s%s \"%s\" (supported: %s%s%s)",
                        r->origin, r->prefix, key, v, ok1, ok2 ? ", " : "", ok2 ? ok2 : "");
}

static ts_status want_int(const ts_json_reader *r, const cJSON *a, const char *key, int64_t def,
                          int64_t must, const char *why)
{
    int64_t v;
    TS_TRY(ts_json_int(r, a, key, def, &v));
    if (v == must) return TS_OK;
    return ts_error_set(r->err, TS_ERR_UNSUPPORTED, "%s: %s%s %lld (only %lld is built: %s)",
                        r->origin, r->prefix, key, (long long)v, (long long)must, why);
}

/* Phi4MultimodalAudioConfig's defaults (the published model's values). */
static ts_status read_audio(const ts_json_reader *r, const cJSON *a, ts_phi4_audio_spec *s)
{
    TS_TRY(ts_config_dim(r, a, "hidden_size", 1024, &s->width));
    TS_TRY(ts_config_dim(r, a, "intermediate_size", 1536, &s->inter));
    TS_TRY(ts_config_dim(r, a, "num_blocks", 24, &s->blocks));
    TS_TRY(ts_config_dim(r, a, "num_attention_heads", 16, &s->heads));
    TS_TRY(ts_config_dim(r, a, "kernel_size", 3, &s->kernel));
    TS_TRY(ts_config_dim(r, a, "input_size", 80, &s->input_size));
    TS_TRY(ts_config_dim(r, a, "nemo_conv_channels", 1024, &s->conv_channels));
    TS_TRY(ts_config_dim(r, a, "time_reduction", 8, &s->time_reduction));
    TS_TRY(ts_config_dim(r, a, "bias_max_distance", 1000, &s->max_distance));
    TS_TRY(ts_json_bool(r, a, "bias_symmetric", false, &s->symmetric));
    TS_TRY(ts_json_int(r, a, "audio_token_id", 200011, &s->audio_token_id));
    TS_TRY(want_string(r, a, "activation", "swish", "swish", "silu"));
    TS_TRY(want_string(r, a, "conv_activation", "swish", "swish", "silu"));
    TS_TRY(want_string(r, a, "conv_glu_type", "swish", "swish", "silu"));
    TS_TRY(want_string(r, a, "nemo_activation", "relu", "relu", NULL));
    TS_TRY(want_int(r, a, "depthwise_multiplier", 1, 1, "the depthwise convolution keeps the width"));
    TS_TRY(want_int(r, a, "downsample_rate", 1, 1, "no frame stacking before the projector"));
    TS_TRY(want_int(r, a, "chunk_size", -1, -1, "every frame sees every frame"));
    TS_TRY(want_int(r, a, "ext_pw_out_channel", s->width, s->width,
                    "the convolution module keeps the width"));
    TS_TRY(want_int(r, a, "depthwise_separable_out_channel", s->width, s->width,
                    "the convolution module keeps the width"));
    if (s->width < 1 || s->inter < 1 || s->heads < 1 || s->width % s->heads ||
        s->heads > TS_PHI4_AUDIO_MAX_HEADS || s->blocks < 1 || s->blocks > TS_PHI4_AUDIO_MAX_BLOCKS || s->kernel < 1 ||
        s->input_size < 1 || s->conv_channels < 1 || s->max_distance < 1)
        return ts_error_set(r->err, TS_ERR_FORMAT,
                            "%s: audio_config (hidden_size %lld, %lld heads, %lld blocks, kernel "
                            "%lld) does not describe an encoder (1..%d blocks, 1..%d heads)",
                            r->origin, (long long)s->width, (long long)s->heads,
                            (long long)s->blocks, (long long)s->kernel, TS_PHI4_AUDIO_MAX_BLOCKS,
                            TS_PHI4_AUDIO_MAX_HEADS);
    s->stages = 0;
    for (int64_t t = s->time_reduction; t > 1 && t % 2 == 0; t /= 2) s->stages++;
    if (s->stages < 1 || (INT64_C(1) << s->stages) != s->time_reduction)
        return ts_error_set(r->err, TS_ERR_UNSUPPORTED,
                            "%s: %stime_reduction %lld (a power of two from 2 is built)", r->origin,
                            r->prefix, (long long)s->time_reduction);
    s->head_dim = s->width / s->heads;
    /* Phi4MultimodalAudioConfig.nemo_final_size: each stride-2 stage halves, rounding up. */
    s->final_freq = s->input_size;
    for (int64_t i = 0; i < s->stages; i++) s->final_freq = (s->final_freq - 1) / 2 + 1;
    return TS_OK;
}

ts_status ts_phi4_audio_spec_parse(const char *json, size_t len, ts_phi4_audio_spec *spec, ts_error *err)
{
    memset(spec, 0, sizeof(*spec));
    cJSON *root = NULL;
    TS_TRY(ts_json_parse_text(json, len, "config.json", &root, err));
    ts_json_reader top = {"config.json", "", err}, ar = {"config.json", "audio_config.", err};
    const cJSON *a = ts_json_member(root, "audio_config");
    ts_status st = TS_OK;
    if (!a || !cJSON_IsObject(a))
        st = ts_error_set(err, TS_ERR_UNSUPPORTED, "config.json: no audio_config: the model has no audio encoder");
    if (st == TS_OK) st = ts_json_int_required(&top, root, "hidden_size", &spec->lm_hidden);
    if (st == TS_OK) st = read_audio(&ar, a, spec);
    cJSON_Delete(root);
    return st;
}

ts_status ts_phi4_audio_spec_load(const char *dir, ts_phi4_audio_spec *spec, ts_error *err)
{
    memset(spec, 0, sizeof(*spec));
    char path[4096], *text = NULL;
    size_t len = 0;
    if (snprintf(path, sizeof(path), "%s/config.json", dir) >= (int)sizeof(path))
        return ts_error_set(err, TS_ERR_RANGE, "model directory name too long");
    TS_TRY(ts_file_read(path, &text, &len, err));
    ts_status st = ts_phi4_audio_spec_parse(text, len, spec, err);
    free(text);
    return st;
}

int64_t ts_phi4_audio_tokens(const ts_phi4_audio_spec *spec, int64_t n_frames)
{
    return n_frames > 0 ? (n_frames + spec->time_reduction - 1) / spec->time_reduction : 0;
}

/* ---------------------------------------------------------------- weights */

typedef struct {
    ts_graph *g;
    const ts_phi4_audio_spec *s;
    const struct ts_weight_source *weights;
    ts_error *err;
    ts_status status;
} builder;

static ts_value weight(builder *b, int rank, const int64_t *dims, int as_rank,
                       const int64_t *as_dims, const char *fmt, ...) TS_PRINTF(6, 7);

static ts_value weight(builder *b, int rank, const int64_t *dims, int as_rank,
                       const int64_t *as_dims, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ts_value v = ts_weight_paramv(b->g, b->weights, &b->status, b->err, rank, dims, as_rank,
                                  as_dims, fmt, ap);
    va_end(ap);
    return v;
}

/* Linear weights stay as stored (ts_graph_linear widens them); what is added or multiplied
 * elementwise (biases, norms, depthwise taps) is widened to f32 here. */
static ts_value wide(builder *b, ts_value v)
{
    const ts_type *t = v != TS_NO_VALUE ? ts_graph_type(b->g, v) : NULL;
    return t && t->dtype != TS_DTYPE_F32 ? ts_graph_convert(b->g, v, TS_DTYPE_F32) : v;
}

#define VEC(b, n, ...) wide(b, weight(b, 1, (int64_t[]){n}, 1, (int64_t[]){n}, __VA_ARGS__))
#define MAT(b, o, i, ...) weight(b, 2, (int64_t[]){o, i}, 2, (int64_t[]){o, i}, __VA_ARGS__)

typedef struct {
    ts_value ln_w, ln_b, gu_w, gu_b, down_w, down_b;
} ff_weights;

typedef struct {
    ff_weights ff_in, ff_out;
    ts_value att_ln_w, att_ln_b, q_w, q_b, k_w, k_b, v_w, v_b, o_w, o_b;
    ts_value conv_ln_w, conv_ln_b, glu_w, glu_b, b1, b2, dw_w, dw_b, pw_w, pw_b, ext_w, ext_b;
    ts_value ln_w, ln_b;
} block_weights;

typedef struct {
    ts_value w, b;       /* stage 0: [C, 9] full conv; later: depthwise [C, 9] */
    ts_value pw_w, pw_b; /* later stages: pointwise [C, C] */
} stage_weights;

static void load_ff(builder *b, int i, const char *which, ff_weights *w)
{
    int64_t d = b->s->width, in = b->s->inter;
    w->ln_w = VEC(b, d, PREFIX "encoder.encoders.%d.%s.layer_norm.weight", i, which);
    w->ln_b = VEC(b, d, PREFIX "encoder.encoders.%d.%s.layer_norm.bias", i, which);
    w->gu_w = MAT(b, 2 * in, d, PREFIX "encoder.encoders.%d.%s.gate_up_proj.weight", i, which);
    w->gu_b = VEC(b, 2 * in, PREFIX "encoder.encoders.%d.%s.gate_up_proj.bias", i, which);
    w->down_w = MAT(b, d, in, PREFIX "encoder.encoders.%d.%s.down_proj.weight", i, which);
    w->down_b = VEC(b, d, PREFIX "encoder.encoders.%d.%s.down_proj.bias", i, which);
}

#define BLK PREFIX "encoder.encoders.%d."

static void load_block(builder *b, int i, block_weights *w)
{
    int64_t d = b->s->width, k = b->s->kernel;
    load_ff(b, i, "feed_forward_in", &w->ff_in);
    w->att_ln_w = VEC(b, d, BLK "layer_norm_att.weight", i);
    w->att_ln_b = VEC(b, d, BLK "layer_norm_att.bias", i);
    w->q_w = MAT(b, d, d, BLK "self_attn.q_proj.weight", i);
    w->q_b = VEC(b, d, BLK "self_attn.q_proj.bias", i);
    w->k_w = MAT(b, d, d, BLK "self_attn.k_proj.weight", i);
    w->k_b = VEC(b, d, BLK "self_attn.k_proj.bias", i);
    w->v_w = MAT(b, d, d, BLK "self_attn.v_proj.weight", i);
    w->v_b = VEC(b, d, BLK "self_attn.v_proj.bias", i);
    w->o_w = MAT(b, d, d, BLK "self_attn.o_proj.weight", i);
    w->o_b = VEC(b, d, BLK "self_attn.o_proj.bias", i);
    w->conv_ln_w = VEC(b, d, BLK "conv.layer_norm.weight", i);
    w->conv_ln_b = VEC(b, d, BLK "conv.layer_norm.bias", i);
    /* Conv1d kernels of size 1 are linears: [out, in, 1] read as [out, in]. */
    w->glu_w = weight(b, 3, (int64_t[]){2 * d, d, 1}, 2, (int64_t[]){2 * d, d},
                      BLK "conv.glu.ext_pw_conv_1d.weight", i);
    w->glu_b = VEC(b, 2 * d, BLK "conv.glu.ext_pw_conv_1d.bias", i);
    w->b1 = wide(b, weight(b, 3, (int64_t[]){1, d, 1}, 1, &d, BLK "conv.glu.b1", i));
    w->b2 = wide(b, weight(b, 3, (int64_t[]){1, d, 1}, 1, &d, BLK "conv.glu.b2", i));
    w->dw_w = wide(b, weight(b, 3, (int64_t[]){d, 1, k}, 2, (int64_t[]){d, k},
                     BLK "conv.dw_sep_conv_1d.dw_conv.weight", i));
    w->dw_b = VEC(b, d, BLK "conv.dw_sep_conv_1d.dw_conv.bias", i);
    w->pw_w = weight(b, 3, (int64_t[]){d, d, 1}, 2, (int64_t[]){d, d},
                     BLK "conv.dw_sep_conv_1d.pw_conv.weight", i);
    w->pw_b = VEC(b, d, BLK "conv.dw_sep_conv_1d.pw_conv.bias", i);
    w->ext_w = weight(b, 3, (int64_t[]){d, d, 1}, 2, (int64_t[]){d, d},
                      BLK "conv.ext_pw_conv_1d.weight", i);
    w->ext_b = VEC(b, d, BLK "conv.ext_pw_conv_1d.bias", i);
    load_ff(b, i, "feed_forward_out", &w->ff_out);
    w->ln_w = VEC(b, d, BLK "layer_norm.weight", i);
    w->ln_b = VEC(b, d, BLK "layer_norm.bias", i);
}

/* ---------------------------------------------------------------- pieces */

/* A value's type; after a builder failure (TS_NO_VALUE) an empty one, so the remaining builder
 * calls go on failing quietly and ts_graph_status reports the first error. */
static const ts_type *type_of(ts_graph *g, ts_value v)
{
    static const ts_type none;
    const ts_type *t = ts_graph_type(g, v);
    return t ? t : &none;
}

/* ts_decompose_activation reads its operand's type: not called on a failed value. */
static ts_value act(ts_graph *g, ts_value x, ts_activation a)
{
    return x == TS_NO_VALUE ? x : ts_decompose_activation(g, x, a);
}

static ts_value splat(ts_graph *g, float v, ts_value like)
{
    const ts_type *t = type_of(g, like);
    return ts_graph_broadcast_in_dim(g, ts_graph_constant_f32(g, v), t->rank, t->dims, NULL);
}

static ts_value scale(ts_graph *g, ts_value x, float v)
{
    return ts_graph_binary(g, TS_OP_MULTIPLY, x, splat(g, v, x));
}

static ts_value relu(ts_graph *g, ts_value x)
{
    return ts_graph_binary(g, TS_OP_MAXIMUM, x, splat(g, 0.0f, x));
}

/* [N] along axis `axis` of x's shape. */
static ts_value along(ts_graph *g, ts_value v, ts_value like, int64_t axis)
{
    const ts_type *t = type_of(g, like);
    return ts_graph_broadcast_in_dim(g, v, t->rank, t->dims, &axis);
}

/* Column `k` of a [C, K] kernel as [C]. */
static ts_value tap(ts_graph *g, ts_value w, int64_t k)
{
    const ts_type *t = type_of(g, w);
    int64_t c = t->dims[0];
    ts_value col = ts_graph_slice(g, w, (int64_t[]){0, k}, (int64_t[]){c, k + 1}, NULL);
    return ts_graph_reshape(g, col, 1, &c);
}

/* x [H, W, …] zero-padded by 1 before each of the first two axes and enough after for a 3×3,
 * stride-2 window to give ceil(H/2) × ceil(W/2) outputs; tap (i, j) is the strided slice. */
static ts_value pad_s2(ts_graph *g, ts_value x, int64_t *oh, int64_t *ow)
{
    const ts_type *t = type_of(g, x);
    int64_t low[3] = {1, 1, 0}, high[3] = {0, 0, 0}, inner[3] = {0, 0, 0};
    *oh = (t->dims[0] - 1) / 2 + 1;
    *ow = (t->dims[1] - 1) / 2 + 1;
    high[0] = 2 * *oh - t->dims[0];
    high[1] = 2 * *ow - t->dims[1];
    return ts_graph_pad(g, x, ts_graph_constant_f32(g, 0.0f), low, high, inner);
}

static ts_value window(ts_graph *g, ts_value padded, int64_t i, int64_t j, int64_t oh, int64_t ow)
{
    const ts_type *t = type_of(g, padded);
    int64_t start[3] = {i, j, 0}, limit[3] = {i + 2 * (oh - 1) + 1, j + 2 * (ow - 1) + 1, 0},
            stride[3] = {2, 2, 1};
    if (t->rank == 3) limit[2] = t->dims[2];
    return ts_graph_slice(g, padded, start, limit, stride);
}

/* A padded clip (frames: i32[], TS_NO_VALUE for none): rows r of x with r · factor ≥ frames set
 * to zero — after `stage` stride-2 stages row r holds input frames from 2^stage · r, and the
 * reference's zero padding starts at row ceil(frames / 2^stage). */
static ts_value keep_rows(ts_graph *g, ts_value x, ts_value frames, int64_t factor)
{
    if (frames == TS_NO_VALUE) return x;
    const ts_type *t = type_of(g, x);
    ts_type it = ts_type_make(TS_DTYPE_I32, t->rank, t->dims);
    ts_value row = ts_graph_binary(g, TS_OP_MULTIPLY, ts_graph_iota(g, it, 0),
                                   ts_graph_broadcast_in_dim(g, ts_graph_constant_i32(g, (int32_t)factor), t->rank, t->dims, NULL));
    ts_value keep = ts_graph_compare(g, TS_COMPARE_LT, row, ts_graph_broadcast_in_dim(g, frames, t->rank, t->dims, NULL));
    return ts_graph_select(g, keep, x, splat(g, 0.0f, x));
}

/* Phi4MultimodalAudioNemoConvSubsampling on x [F0, mels] → [T, width]; with frames (a padded
 * clip) each stage's rows past the clip are zeroed, as the reference's padding is. */
static ts_value subsample(ts_graph *g, const ts_phi4_audio_spec *s, const stage_weights *st,
                          ts_value out_w, ts_value out_b, ts_value x, ts_value frames)
{
    int64_t c = s->conv_channels, oh, ow;
    /* Stage 0, one input channel: the nine taps side by side, then one linear [9] → [C]. */
    ts_value p = pad_s2(g, ts_graph_reshape(g, x, 3, (int64_t[]){type_of(g, x)->dims[0],
                                                               s->input_size, 1}),
                        &oh, &ow);
    ts_value cols[9];
    for (int k = 0; k < 9; k++) cols[k] = window(g, p, k / 3, k % 3, oh, ow);
    ts_value h = keep_rows(g, relu(g, ts_graph_linear(g, ts_graph_concatenate(g, cols, 9, 2), st[0].w, st[0].b)), frames, 2);
    for (int64_t i = 1; i < s->stages; i++) {
        p = pad_s2(g, h, &oh, &ow);
        ts_value acc = TS_NO_VALUE;
        for (int k = 0; k < 9; k++) {
            ts_value win = window(g, p, k / 3, k % 3, oh, ow);
            ts_value term = ts_graph_binary(g, TS_OP_MULTIPLY, win, along(g, tap(g, st[i].w, k), win, 2));
            acc = k ? ts_graph_binary(g, TS_OP_ADD, acc, term) : term;
        }
        acc = ts_graph_binary(g, TS_OP_ADD, acc, along(g, st[i].b, acc, 2));
        h = keep_rows(g, relu(g, ts_graph_linear(g, acc, st[i].pw_w, st[i].pw_b)), frames, INT64_C(2) << i);
    }
    /* [T, F, C] → [T, C·F]: the reference flattens (channel, frequency) per frame. */
    ts_value tcf = ts_graph_transpose(g, h, (int64_t[]){0, 2, 1});
    ts_value rows = ts_graph_reshape(g, tcf, 2, (int64_t[]){oh, c * ow});
    return ts_graph_linear(g, rows, out_w, out_b);
}

/* Phi4MultimodalAudioRelativeAttentionBias for T frames → [heads, T, T]. */
static ts_value relative_bias(ts_graph *g, const ts_phi4_audio_spec *s, ts_value table, int64_t t)
{
    int64_t d[2] = {t, t};
    ts_type it = ts_type_make(TS_DTYPE_I32, 2, d);
    ts_value rel = ts_graph_binary(g, TS_OP_SUBTRACT, ts_graph_iota(g, it, 1), ts_graph_iota(g, it, 0));
    ts_value lo = ts_graph_broadcast_in_dim(g, ts_graph_constant_i32(g, (int32_t)-s->max_distance), 2, d, NULL);
    ts_value hi = ts_graph_broadcast_in_dim(g, ts_graph_constant_i32(g, (int32_t)(s->max_distance - 1)), 2, d, NULL);
    rel = ts_graph_binary(g, TS_OP_MINIMUM, ts_graph_binary(g, TS_OP_MAXIMUM, rel, lo), hi);
    if (s->symmetric) rel = ts_graph_unary(g, TS_OP_ABS, rel);
    else
        rel = ts_graph_binary(g, TS_OP_ADD, rel,
                              ts_graph_broadcast_in_dim(g, ts_graph_constant_i32(g, (int32_t)s->max_distance), 2, d, NULL));
    return ts_graph_transpose(g, ts_graph_embedding(g, table, rel), (int64_t[]){2, 0, 1});
}

/* Phi4MultimodalAudioMLP: LN → gate_up (first half up, second gate) → up·swish(gate) → down. */
static ts_value feed_forward(ts_graph *g, const ts_phi4_audio_spec *s, const ff_weights *w, ts_value x)
{
    int64_t t = type_of(g, x)->dims[0], in = s->inter;
    ts_value h = ts_graph_linear(g, ts_graph_layer_norm(g, x, w->ln_w, w->ln_b, NORM_EPS), w->gu_w, w->gu_b);
    ts_value up = ts_graph_slice(g, h, (int64_t[]){0, 0}, (int64_t[]){t, in}, NULL);
    ts_value gate = ts_graph_slice(g, h, (int64_t[]){0, in}, (int64_t[]){t, 2 * in}, NULL);
    ts_value a = ts_graph_binary(g, TS_OP_MULTIPLY, up, act(g, gate, TS_ACT_SILU));
    return ts_graph_linear(g, a, w->down_w, w->down_b);
}

/* Scores q·kᵀ·scale + mask, softmax, · v, where the mask differs per head ([H, T, T]): one
 * fused attention per head with its own [T, T] bias (the fused op shares one bias over heads). */
static ts_value attention(ts_graph *g, const ts_phi4_audio_spec *s, const block_weights *w, ts_value x,
                          ts_value mask)
{
    int64_t t = type_of(g, x)->dims[0], hd = s->head_dim, split[3] = {t, s->heads, hd}, flat[2] = {t, s->width};
    ts_value q = ts_graph_reshape(g, ts_graph_linear(g, x, w->q_w, w->q_b), 3, split);
    ts_value k = ts_graph_reshape(g, ts_graph_linear(g, x, w->k_w, w->k_b), 3, split);
    ts_value v = ts_graph_reshape(g, ts_graph_linear(g, x, w->v_w, w->v_b), 3, split);
    ts_value heads[TS_PHI4_AUDIO_MAX_HEADS];
    for (int64_t h = 0; h < s->heads; h++) {
        int64_t start[3] = {0, h, 0}, limit[3] = {t, h + 1, hd};
        ts_value bias = ts_graph_slice(g, mask, (int64_t[]){h, 0, 0}, (int64_t[]){h + 1, t, t}, NULL);
        heads[h] = ts_graph_attention(g, ts_graph_slice(g, q, start, limit, NULL), ts_graph_slice(g, k, start, limit, NULL),
                                      ts_graph_slice(g, v, start, limit, NULL),
                                      ts_graph_reshape(g, bias, 2, (int64_t[]){t, t}), TS_NO_VALUE,
                                      1.0 / sqrt((double)hd), 0);
    }
    ts_value o = ts_graph_reshape(g, ts_graph_concatenate(g, heads, (int)s->heads, 1), 2, flat);
    return ts_graph_linear(g, o, w->o_w, w->o_b);
}

/* Phi4MultimodalAudioConvModule: LN → GLU → causal depthwise conv (left padding kernel − 1, the
 * reference's both-sides padding with the last kernel − 1 outputs dropped) → pointwise → swish →
 * ext pointwise. */
static ts_value conv_module(ts_graph *g, const ts_phi4_audio_spec *s, const block_weights *w, ts_value x)
{
    int64_t t = type_of(g, x)->dims[0], d = s->width, kk = s->kernel;
    ts_value h = ts_graph_linear(g, ts_graph_layer_norm(g, x, w->conv_ln_w, w->conv_ln_b, NORM_EPS), w->glu_w, w->glu_b);
    ts_value a = ts_graph_slice(g, h, (int64_t[]){0, 0}, (int64_t[]){t, d}, NULL);
    ts_value gate = ts_graph_slice(g, h, (int64_t[]){0, d}, (int64_t[]){t, 2 * d}, NULL);
    a = ts_graph_binary(g, TS_OP_ADD, a, along(g, w->b1, a, 1));
    gate = ts_graph_binary(g, TS_OP_ADD, gate, along(g, w->b2, gate, 1));
    h = ts_graph_binary(g, TS_OP_MULTIPLY, a, act(g, gate, TS_ACT_SILU));
    ts_value p = ts_graph_pad(g, h, ts_graph_constant_f32(g, 0.0f), (int64_t[]){kk - 1, 0}, (int64_t[]){0, 0},
                              (int64_t[]){0, 0});
    ts_value acc = TS_NO_VALUE;
    for (int64_t k = 0; k < kk; k++) {
        ts_value win = ts_graph_slice(g, p, (int64_t[]){k, 0}, (int64_t[]){k + t, d}, NULL);
        ts_value term = ts_graph_binary(g, TS_OP_MULTIPLY, win, along(g, tap(g, w->dw_w, k), win, 1));
        acc = k ? ts_graph_binary(g, TS_OP_ADD, acc, term) : term;
    }
    acc = ts_graph_binary(g, TS_OP_ADD, acc, along(g, w->dw_b, acc, 1));
    h = act(g, ts_graph_linear(g, acc, w->pw_w, w->pw_b), TS_ACT_SILU);
    return ts_graph_linear(g, h, w->ext_w, w->ext_b);
}

/* Phi4MultimodalAudioConformerEncoderLayer. */
static ts_value conformer(ts_graph *g, const ts_phi4_audio_spec *s, const block_weights *w, ts_value x,
                          ts_value mask)
{
    ts_value r = ts_graph_binary(g, TS_OP_ADD, x, scale(g, feed_forward(g, s, &w->ff_in, x), 0.5f));
    ts_value a = attention(g, s, w, ts_graph_layer_norm(g, r, w->att_ln_w, w->att_ln_b, NORM_EPS), mask);
    ts_value h = ts_graph_binary(g, TS_OP_ADD, r, a);
    h = ts_graph_binary(g, TS_OP_ADD, h, conv_module(g, s, w, h));
    h = ts_graph_binary(g, TS_OP_ADD, h, scale(g, feed_forward(g, s, &w->ff_out, h), 0.5f));
    return ts_graph_layer_norm(g, h, w->ln_w, w->ln_b, NORM_EPS);
}

/* ---------------------------------------------------------------- the graph */

/* The encoder for n_frames feature frames; padded: the bundle entry (inputs audio_features and
 * frames, padding rows masked: see ts_phi4_audio_build_padded). */
static ts_status build(ts_graph *g, const ts_phi4_audio_spec *spec, const struct ts_weight_source *weights, int64_t n_frames,
                       ts_phi4_audio_projection projection, bool diagnostics, bool padded, ts_error *err)
{
    int64_t t = ts_phi4_audio_tokens(spec, n_frames);
    if (padded && (t < 1 || t > TS_PHI4_AUDIO_CHUNK))
        return ts_error_set(err, TS_ERR_RANGE, "audio.main: %lld feature frames make %lld audio tokens (1..%d: one encoder pass)",
                            (long long)n_frames, (long long)t, TS_PHI4_AUDIO_CHUNK);
    if (t < 1 || t > TS_PHI4_AUDIO_MAX_CLIP_TOKENS)
        return ts_error_set(err, TS_ERR_RANGE, "audio: %lld feature frames make %lld audio tokens (1..%d per clip)",
                            (long long)n_frames, (long long)t, TS_PHI4_AUDIO_MAX_CLIP_TOKENS);
    if (spec->heads < 1 || spec->heads > TS_PHI4_AUDIO_MAX_HEADS || spec->blocks < 1 || spec->blocks > TS_PHI4_AUDIO_MAX_BLOCKS ||
        spec->stages < 1 || spec->stages > 16)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "audio: a spec of %lld heads, %lld blocks, %lld stages",
                            (long long)spec->heads, (long long)spec->blocks, (long long)spec->stages);
    if (projection != TS_PHI4_AUDIO_SPEECH && projection != TS_PHI4_AUDIO_VISION_SPEECH)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "audio: projection mode %d", (int)projection);
    builder bb = {g, spec, weights, err, TS_OK}, *b = &bb;
    const ts_phi4_audio_spec *s = spec;
    int64_t d = s->width, c = s->conv_channels, h = s->lm_hidden, mels = s->input_size;

    /* Weights first: every failure about the checkpoint comes before the input is declared. */
    ts_graph_set_stage(g, "audio.embed");
    ts_value mean = VEC(b, mels, PREFIX "encoder.encoder_embedding.global_mean");
    ts_value invstd = VEC(b, mels, PREFIX "encoder.encoder_embedding.global_invstd");
    stage_weights st[16];
    /* nn.Sequential indices: conv 0, ReLU 1, then (depthwise, pointwise, ReLU) per stage. */
    st[0].w = weight(b, 4, (int64_t[]){c, 1, 3, 3}, 2, (int64_t[]){c, 9}, PREFIX "encoder.embed.conv.0.weight");
    st[0].b = VEC(b, c, PREFIX "encoder.embed.conv.0.bias");
    for (int64_t i = 1; i < s->stages; i++) {
        int dw = (int)(2 + 3 * (i - 1)), pw = dw + 1;
        st[i].w = wide(b, weight(b, 4, (int64_t[]){c, 1, 3, 3}, 2, (int64_t[]){c, 9}, PREFIX "encoder.embed.conv.%d.weight", dw));
        st[i].b = VEC(b, c, PREFIX "encoder.embed.conv.%d.bias", dw);
        st[i].pw_w = weight(b, 4, (int64_t[]){c, c, 1, 1}, 2, (int64_t[]){c, c}, PREFIX "encoder.embed.conv.%d.weight", pw);
        st[i].pw_b = VEC(b, c, PREFIX "encoder.embed.conv.%d.bias", pw);
    }
    ts_value out_w = MAT(b, d, c * s->final_freq, PREFIX "encoder.embed.out.weight");
    ts_value out_b = VEC(b, d, PREFIX "encoder.embed.out.bias");
    int64_t buckets = s->symmetric ? s->max_distance : 2 * s->max_distance;
    ts_value table = MAT(b, buckets, s->heads, PREFIX "encoder.relative_attention_bias_layer.bias_values.weight");
    block_weights *bw = calloc((size_t)s->blocks, sizeof(*bw));
    if (!bw) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "audio: out of memory");
    for (int i = 0; i < s->blocks && b->status == TS_OK; i++) {
        ts_graph_set_stage(g, "audio.block.%d", i);
        load_block(b, i, &bw[i]);
    }
    ts_graph_set_stage(g, "audio.projector");
    /* The padded entry holds both pairs (index = ts_phi4_audio_projection) and picks one by its
     * `projector` input; the per-clip graph only the prompt's. */
    ts_value proj[2][4] = {{TS_NO_VALUE, TS_NO_VALUE, TS_NO_VALUE, TS_NO_VALUE}, {TS_NO_VALUE, TS_NO_VALUE, TS_NO_VALUE, TS_NO_VALUE}};
    for (int p = 0; p < 2; p++) {
        if (!padded && p != (int)projection) continue;
        const char *mode = p == TS_PHI4_AUDIO_SPEECH ? "speech" : "vision_speech";
        proj[p][0] = MAT(b, h, d, PREFIX "up_proj_for_%s.weight", mode);
        proj[p][1] = VEC(b, h, PREFIX "up_proj_for_%s.bias", mode);
        proj[p][2] = MAT(b, h, h, PREFIX "down_proj_for_%s.weight", mode);
        proj[p][3] = VEC(b, h, PREFIX "down_proj_for_%s.bias", mode);
    }
    if (b->status != TS_OK) {
        free(bw);
        return b->status;
    }

    ts_graph_set_stage(g, "audio.inputs");
    ts_value x = ts_graph_parameter(g, "audio_features", TS_PARAM_INPUT,
                                    ts_type_make(TS_DTYPE_F32, 2, (int64_t[]){n_frames, mels}));
    ts_value frames = padded ? ts_graph_parameter(g, "frames", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 0, NULL)) : TS_NO_VALUE;
    ts_value up_w = proj[projection][0], up_b = proj[projection][1], down_w = proj[projection][2], down_b = proj[projection][3];
    if (padded) {
        /* projector i32[] (0 speech, 1 vision_speech; the host validates the range): each weight
         * selected whole, so one graph serves both prompts without a second module. */
        ts_value p = ts_graph_parameter(g, "projector", TS_PARAM_INPUT, ts_type_make(TS_DTYPE_I32, 0, NULL));
        ts_value vs = ts_graph_compare(g, TS_COMPARE_EQ, p, ts_graph_constant_i32(g, TS_PHI4_AUDIO_VISION_SPEECH));
        ts_value *w[4] = {&up_w, &up_b, &down_w, &down_b};
        for (int i = 0; i < 4; i++) {
            ts_type wt = *type_of(g, proj[TS_PHI4_AUDIO_SPEECH][i]); /* a copy: nodes grow below */
            *w[i] = ts_graph_select(g, ts_graph_broadcast_in_dim(g, vs, wt.rank, wt.dims, NULL),
                                    proj[TS_PHI4_AUDIO_VISION_SPEECH][i], proj[TS_PHI4_AUDIO_SPEECH][i]);
        }
    }
    ts_value outs[TS_PHI4_AUDIO_OUT_BLOCK0 + TS_PHI4_AUDIO_MAX_BLOCKS];
    ts_graph_set_stage(g, "audio.embed");
    x = ts_graph_binary(g, TS_OP_MULTIPLY, ts_graph_binary(g, TS_OP_SUBTRACT, x, along(g, mean, x, 1)),
                        along(g, invstd, x, 1));
    x = subsample(g, s, st, out_w, out_b, keep_rows(g, x, frames, 1), frames);
    outs[TS_PHI4_AUDIO_OUT_SUBSAMPLED] = x;
    /* Past one pass the reference zero-pads the subsampled rows to whole 500-row chunks and
     * encodes each chunk alone (the padding unmasked: the mask is all ones there too), then drops
     * the padding rows. */
    int64_t chunk = t > TS_PHI4_AUDIO_CHUNK ? TS_PHI4_AUDIO_CHUNK : t;
    int64_t n_chunks = (t + chunk - 1) / chunk;
    ts_graph_set_stage(g, "audio.relative_bias");
    ts_value bias = relative_bias(g, s, table, chunk);
    outs[TS_PHI4_AUDIO_OUT_BIAS] = bias;
    /* hs_mask (all true for one clip with chunk_size -1) added as 1.0, as the reference adds its bool. */
    ts_value mask = ts_graph_binary(g, TS_OP_ADD, bias, splat(g, 1.0f, bias));
    if (padded) {
        /* Keys past the clip's tokens are padding: -inf, so the clip's rows see only its own. */
        const ts_type *mt = type_of(g, mask);
        ts_type it = ts_type_make(TS_DTYPE_I32, 3, mt->dims);
        ts_value key = ts_graph_binary(g, TS_OP_MULTIPLY, ts_graph_iota(g, it, 2),
                                       ts_graph_broadcast_in_dim(g, ts_graph_constant_i32(g, (int32_t)s->time_reduction), 3, mt->dims, NULL));
        ts_value real = ts_graph_compare(g, TS_COMPARE_LT, key, ts_graph_broadcast_in_dim(g, frames, 3, mt->dims, NULL));
        mask = ts_graph_select(g, real, mask, splat(g, -INFINITY, mask));
    }
    if (n_chunks > 1)
        x = ts_graph_pad(g, x, ts_graph_constant_f32(g, 0.0f), (int64_t[]){0, 0}, (int64_t[]){n_chunks * chunk - t, 0},
                         (int64_t[]){0, 0});
    ts_value *parts = calloc((size_t)(n_chunks * (s->blocks + 1)), sizeof(ts_value));
    if (!parts) {
        free(bw);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "audio: out of memory");
    }
    for (int64_t c = 0; c < n_chunks; c++) {
        ts_value h = n_chunks > 1 ? ts_graph_slice(g, x, (int64_t[]){c * chunk, 0}, (int64_t[]){(c + 1) * chunk, d}, NULL) : x;
        for (int i = 0; i < s->blocks; i++) {
            ts_graph_set_stage(g, "audio.block.%d", i);
            h = conformer(g, s, &bw[i], h, mask);
            parts[(size_t)(i * n_chunks + c)] = h;
        }
    }
    /* Each block's rows over the chunks, the padding dropped: [T, width]. */
    for (int i = 0; i < s->blocks; i++) {
        ts_value rows = parts[(size_t)(i * n_chunks)];
        if (n_chunks > 1)
            rows = ts_graph_slice(g, ts_graph_concatenate(g, parts + (size_t)(i * n_chunks), (int)n_chunks, 0),
                                  (int64_t[]){0, 0}, (int64_t[]){t, d}, NULL);
        outs[TS_PHI4_AUDIO_OUT_BLOCK0 + i] = rows;
    }
    free(parts);
    x = outs[TS_PHI4_AUDIO_OUT_BLOCK0 + s->blocks - 1];
    free(bw);
    ts_graph_set_stage(g, "audio.projector");
    ts_value up = ts_graph_linear(g, x, up_w, up_b);
    outs[TS_PHI4_AUDIO_OUT_UP] = up;
    outs[TS_PHI4_AUDIO_OUT_EMBEDS] =
        keep_rows(g, ts_graph_linear(g, act(g, up, TS_ACT_GELU), down_w, down_b), frames, s->time_reduction);
    ts_graph_set_outputs(g, outs, diagnostics ? (int)(TS_PHI4_AUDIO_OUT_BLOCK0 + s->blocks) : 1);
    return ts_graph_status(g, err);
}

ts_status ts_phi4_audio_build(ts_graph *g, const ts_phi4_audio_spec *spec, const struct ts_weight_source *weights,
                              int64_t n_frames, ts_phi4_audio_projection projection, bool diagnostics, ts_error *err)
{
    return build(g, spec, weights, n_frames, projection, diagnostics, false, err);
}

ts_status ts_phi4_audio_build_padded(ts_graph *g, const ts_phi4_audio_spec *spec, const struct ts_weight_source *weights,
                                     int64_t max_frames, ts_error *err)
{
    return build(g, spec, weights, max_frames, TS_PHI4_AUDIO_SPEECH, false, true, err);
}

/* ---------------------------------------------------------------- placeholders */

static int64_t count_id(const int32_t *ids, size_t n, int32_t id)
{
    int64_t k = 0;
    for (size_t i = 0; i < n; i++) k += ids[i] == id;
    return k;
}

ts_status ts_phi4_audio_expand_ids(const int32_t *ids, size_t n, int32_t audio_token_id, const int64_t *counts, int n_clips,
                                   int32_t **out, size_t *out_n, ts_error *err)
{
    *out = NULL;
    *out_n = 0;
    int64_t found = count_id(ids, n, audio_token_id);
    if (found != n_clips)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "audio: the prompt has %lld <|audio|> placeholders for %d clips",
                            (long long)found, n_clips);
    size_t total = n - (size_t)n_clips;
    for (int i = 0; i < n_clips; i++) {
        if (counts[i] < 1 || counts[i] > TS_PHI4_AUDIO_MAX_CLIP_TOKENS)
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "audio: clip %d takes %lld tokens (1..%d)", i,
                                (long long)counts[i], TS_PHI4_AUDIO_MAX_CLIP_TOKENS);
        total += (size_t)counts[i];
    }
    int32_t *o = malloc(sizeof(int32_t) * (total ? total : 1));
    if (!o) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "audio: out of memory expanding the prompt");
    size_t j = 0;
    int clip = 0;
    for (size_t i = 0; i < n; i++) {
        if (ids[i] != audio_token_id) {
            o[j++] = ids[i];
            continue;
        }
        for (int64_t k = 0; k < counts[clip]; k++) o[j++] = audio_token_id;
        clip++;
    }
    *out = o;
    *out_n = j;
    return TS_OK;
}

ts_status ts_phi4_audio_merge(const int32_t *ids, size_t n, int32_t audio_token_id, float *embeds, int64_t hidden,
                              const float *rows, int64_t n_rows, ts_error *err)
{
    int64_t found = count_id(ids, n, audio_token_id);
    if (found != n_rows)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "audio: the prompt has %lld <|audio|> tokens for %lld audio rows",
                            (long long)found, (long long)n_rows);
    int64_t r = 0;
    for (size_t i = 0; i < n; i++)
        if (ids[i] == audio_token_id)
            memcpy(embeds + i * (size_t)hidden, rows + (size_t)(r++) * (size_t)hidden, sizeof(float) * (size_t)hidden);
    return TS_OK;
}
