/* qwen_vision_block.h — the pieces the Qwen-VL vision towers share (Qwen2-VL, Qwen2.5-VL in
 * qwen2_vl_vision.c; Qwen3-VL in qwen3_vl_vision.c), so each tower file writes only what is its
 * own:
 *
 *   weights   checked declaration of tower tensors under the tower's prefix (sticky status, as
 *             ts_weight_param: the first failure is kept, later calls do nothing)
 *   rotary    rot_pos_emb's 2-D tables from (h, w) patch coordinates: [h·inv_freq, w·inv_freq]
 *   mask      the cu_seqlens mask as an additive bias from per-row segment ids
 *   block     the ViT block: norm1 → qkv → 2-D rope → masked attention → proj, residual;
 *             norm2 → MLP (fc1 → act → fc2, or Qwen2.5-VL's gated one), residual
 *   merger    the patch merger's MLP: Linear → exact GELU → Linear
 *
 * Everything is built into the caller's graph; nothing here owns memory.
 */
#ifndef TS_MODELS_QWEN_VISION_BLOCK_H
#define TS_MODELS_QWEN_VISION_BLOCK_H

#include "graph/graph.h"
#include "models/decoder.h"

/* Declares weights named prefix + name; status is the first failure (TS_OK while none). */
typedef struct ts_qwen_vision_loader {
    ts_graph *g;
    const ts_weight_source *weights;
    const char *prefix; /* "visual.", "model.visual." */
    ts_status status;
    ts_error *err;
} ts_qwen_vision_loader;

/* A tensor checked against its published shape `dims` and declared as a parameter of shape
 * `as_dims` (same element count, same bytes: a Conv3d kernel [D, C, T, P, P] as the matmul
 * weight [D, C·T·P·P]). */
ts_value ts_qwen_vision_weight(ts_qwen_vision_loader *l, int rank, const int64_t *dims, int as_rank,
                               const int64_t *as_dims, const char *fmt, ...) TS_PRINTF(6, 7);
ts_value ts_qwen_vision_vec(ts_qwen_vision_loader *l, int64_t n, const char *fmt, ...)
    TS_PRINTF(3, 4);
ts_value ts_qwen_vision_mat(ts_qwen_vision_loader *l, int64_t out, int64_t in, const char *fmt, ...)
    TS_PRINTF(4, 5);

/* What a tower's blocks have in common. */
typedef struct ts_qwen_vision_dims {
    int64_t width, heads, head_dim, inter;
    double norm_eps;
    bool rms_norm;            /* Qwen2.5-VL: RMSNorm without bias; else LayerNorm with bias */
    ts_activation activation; /* the MLP's hidden_act */
} ts_qwen_vision_dims;

/* The MLP's tensor names after "blocks.i.": fc1 and fc2, plus up for a gated MLP (where fc1 is
 * the gate and fc2 the down projection); up NULL for fc1 → act → fc2. Every Linear has a bias. */
typedef struct ts_qwen_vision_mlp_names {
    const char *fc1, *up, *fc2;
} ts_qwen_vision_mlp_names;

typedef struct ts_qwen_vision_block {
    ts_value norm1_w, norm1_b, qkv_w, qkv_b, proj_w, proj_b, norm2_w,
        norm2_b;                                     /* norm biases: LayerNorm only */
    ts_value fc1_w, fc1_b, up_w, up_b, fc2_w, fc2_b; /* up: gated MLP only */
} ts_qwen_vision_block;

/* Declares block i's weights (prefix + "blocks.i.norm1.weight", …, attn.qkv, attn.proj, the MLP).
 */
void ts_qwen_vision_block_load(ts_qwen_vision_loader *l, const ts_qwen_vision_dims *d,
                               const ts_qwen_vision_mlp_names *mlp, int i, ts_qwen_vision_block *w);

/* VisionRotaryEmbedding(head_dim/2): inv_freq[i] = 1 / 10000^(2i / (head_dim/2)) for i <
 * head_dim/4, each step in f32 as the reference. */
void ts_qwen_vision_inv_freq(int64_t head_dim, float *inv_freq);
/* hidden_act → activation; an error names the setting. */
ts_status ts_qwen_vision_activation(const char *hidden_act, ts_activation *out, ts_error *err);
/* The checks both Qwen towers' spec_init make on their vision_config geometry: head_dim a multiple
 * of 4 within the rotary table (the 2-D rotary splits head_dim/2 pairs between h and w), and a
 * depth, merge, patch row, MLP and output width that describe a tower. */
ts_status ts_qwen_vision_check_geometry(int64_t head_dim, int64_t depth, int64_t merge, int64_t patch, int64_t patch_dim, int64_t inter,
                                        int64_t out_hidden, ts_error *err);

/* positions i32[N, 2] → cos, sin f32[N, head_dim/2]: the angles [h·inv_freq, w·inv_freq] as f32
 * products (torch.outer of f32 operands). With the half-split rope over the whole head this is
 * apply_rotary_pos_emb_vision's cat(angle, angle) with rotate_half. */
void ts_qwen_vision_rope_tables(ts_graph *g, int64_t head_dim, const float *inv_freq,
                                ts_value positions, ts_value *cos, ts_value *sin);
/* segments i32[N] → f32[N, N]: 0 where segments[i] == segments[j], −inf elsewhere. */
ts_value ts_qwen_vision_segment_bias(ts_graph *g, ts_value segments);
/* h + attn(norm1(h)) under `bias`, then h + mlp(norm2(h)). qkv splits as reshape(N, 3, heads,
 * head_dim): q, k, v are consecutive column blocks of width D. */
ts_value ts_qwen_vision_block_apply(ts_graph *g, const ts_qwen_vision_dims *d,
                                    const ts_qwen_vision_block *w, ts_value h, ts_value cos,
                                    ts_value sin, ts_value bias);
/* x[U, in] → fc2(GELU(fc1(x))) with nn.GELU() (exact erf), whatever the blocks' activation. */
ts_value ts_qwen_vision_merger_mlp(ts_graph *g, ts_value x, ts_value fc1_w, ts_value fc1_b,
                                   ts_value fc2_w, ts_value fc2_b);

#endif
