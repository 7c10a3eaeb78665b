/* packed_weights.h — GPTQ and AWQ checkpoints' packed linear layers, unpacked at load into
 * ts_graph_qlinear's layout and served as weights.
 *
 * For every "<P>.qweight" in the checkpoint (with "<P>.qzeros", "<P>.scales", and for GPTQ an
 * optional "<P>.g_idx") the store builds, once, at creation:
 *   "<P>.weight:qN"       i8 [out, in] (8-bit: value − 128) or u8 [out, in/2] (4-bit nibbles)
 *   "<P>.weight:qN.scale" f16 [out, in/group] (the checkpoint's scales, transposed)
 *   "<P>.weight:qN.zero"  i8 [out, in/group] (8-bit: zero − 128)
 *   "<P>.weight:qN.perm"  i32 [in], act order only (below)
 * so that (q − zero) · scale is exactly the published dequantization, and answers "<P>.weight"
 * with a data-less F16 [out, in] entry (shape and dtype for the model builder's checks; the
 * quantization rewrite, told by ts_packed_weights_choose, replaces every matmul that reads it).
 * Other names go to the checkpoint. Layouts followed (read from the public sources of AutoGPTQ's
 * qlinear_cuda_old dequantization, GPTQModel's torch QuantLinear and AutoAWQ/vLLM's AWQ GEMM
 * unpacking; nothing copied):
 *   GPTQ: qweight I32 [in/(32/bits), out], input channel k of output o in bits (k mod pack)·bits
 *         of word [k / pack][o]; qzeros I32 [groups, out/pack] packed along outputs the same way;
 *         checkpoint_format "gptq" stores zero − 1 (zero = (stored + 1) mod 2^bits);
 *         scales F16 [groups, out]; g_idx I32 [in] gives channel k's group: k / group, or
 *         (desc_act, act order) any assignment with `group` channels in each group; then perm
 *         lists the channels group by group (ascending within a group), column j of q holds
 *         channel perm[j], and the rewrite gathers x[..., perm] before the linear, so
 *         x · Wᵀ = x[..., perm] · W[:, perm]ᵀ with contiguous groups (GPTQ kernels' own reordering). A
 *         g_idx value outside 0 … groups − 1, or a group of the wrong size, is refused, naming
 *         the tensor and the channel.
 *   AWQ:  qweight I32 [in, out/8], output o of input k in nibble REV[o mod 8] of word [k][o / 8]
 *         with REV = 0 4 1 5 2 6 3 7 (the GEMM kernel's interleave); qzeros the same over groups;
 *         scales F16 [groups, out]; no zero offset.
 * Errors: a missing companion tensor, a wrong dtype or shape (named, with both shapes), a group
 * size not dividing the width: TS_ERR_FORMAT / TS_ERR_UNSUPPORTED from create.
 */
#ifndef TS_ENGINE_PACKED_WEIGHTS_H
#define TS_ENGINE_PACKED_WEIGHTS_H

#include "base/pool.h"
#include "graph/quantize.h"
#include "loader/quant_config.h"
#include "models/decoder.h"

typedef struct ts_packed_weights ts_packed_weights;

/* `ckpt` and `pool` (NULL: unpack on the calling thread) are borrowed and must outlive the store;
 * a matrix's output rows are unpacked over the pool (the same bytes whatever the threads). Owned;
 * ts_packed_weights_destroy. */
ts_status ts_packed_weights_create(const ts_checkpoint *ckpt, ts_pool *pool, const ts_quant_config *qc,
                                   ts_packed_weights **out, ts_error *err);
void ts_packed_weights_destroy(ts_packed_weights *p);
ts_weight_source ts_packed_weights_source(ts_packed_weights *p);
/* A ts_quant_chooser: the packed matrices, with their bits and group size, zero points. */
bool ts_packed_weights_choose(void *self, const char *name, int64_t out, int64_t in, ts_quant_choice *choice);
/* Matrices unpacked, those in act order (a permutation), and their bytes as served. */
int ts_packed_weights_count(const ts_packed_weights *p);
int ts_packed_weights_permuted(const ts_packed_weights *p);
int64_t ts_packed_weights_bytes(const ts_packed_weights *p);

#endif
