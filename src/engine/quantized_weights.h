/* quantized_weights.h — float checkpoint matrices quantized at load, served as weights.
 *
 * The store wraps a weight source (graph/quantize.h names the tensors): asked for
 * "<name>:q8" / "<name>:q8.scale" (or :q4), it quantizes <name> from the wrapped source once
 * and keeps both; every other name goes to the wrapped source. Formats (graph.h,
 * ts_graph_qlinear), blocks of TS_QUANT_BLOCK input channels (or what the chooser gave: the
 * tower's q8 one block a row), f16 scales, no zero points:
 *   q8: d = max|w| / 127 over the block, q = round(w / d) in −127…127 (llama.cpp's Q8_0 rule);
 *   q4: m = the block's weight of largest magnitude (first on ties), d = m / −8,
 *       q = clamp(round(w / d), −8, 7) + 8 (Q4_0's rule: m lands exactly on −8);
 * with d rounded to f16 first and the division by that f16 value, round() half away from
 * zero: the bytes depend only on the input bytes (deterministic across runs and threads).
 * Each matrix's relative error ‖W − dequant(W)‖ / ‖W‖ is kept for the report. A source tensor
 * of higher rank is taken as the [out, in] matrix of its row-major bytes when its first
 * dimension is `out` and the others multiply to `in` (a graph's matrix view of it).
 * With `release_source` the wrapped tensors' pages are handed back to the kernel once quantized
 * (madvise DONTNEED; only for file mappings, which fault back in if read again).
 * Errors: a source tensor that is absent or not F32/BF16/F16 makes find() return NULL; the
 * caller's weight checks name it.
 */
#ifndef TS_ENGINE_QUANTIZED_WEIGHTS_H
#define TS_ENGINE_QUANTIZED_WEIGHTS_H

#include "graph/quantize.h"
#include "models/decoder.h"

typedef struct ts_quantized_weights ts_quantized_weights;

/* `base` and `ctx` are borrowed and must outlive the store: a matrix's rows are quantized over
 * ctx's pool by its CPU's kernels (kernels.h: quantize_weights_q8/q4; ctx NULL: the portable
 * ones on the calling thread); the bytes and the error report are each row's alone, the same
 * whatever the threads and kernels. Owned; ts_quantized_weights_destroy. */
ts_status ts_quantized_weights_create(const ts_weight_source *base, const ts_context *ctx, int bits, bool release_source,
                                      ts_quantized_weights **out, ts_error *err);
void ts_quantized_weights_destroy(ts_quantized_weights *q);
/* The store as a weight source (self = the store). */
ts_weight_source ts_quantized_weights_source(ts_quantized_weights *q);
const ts_tensor_info *ts_quantized_weights_find(void *self, const char *name, int rank, const int64_t *dims);
/* A ts_quant_chooser (self = the store): every float matrix whose input width TS_QUANT_BLOCK
 * divides (the others stay in floats, and the model's summary counts and names them), the store's
 * bits, blocks of TS_QUANT_BLOCK, no zero points. */
bool ts_quantized_weights_choose(void *self, const char *name, int64_t out, int64_t in, ts_quant_choice *choice);
/* The vision tower's and projector's chooser (self = the store, which remembers the choice),
 * shared by the engine (engine/model.c) and a quantized bundle's vision.main
 * (bundle/bundle_export.c) so both hold the same matrices in the same bytes: as
 * ts_quantized_weights_choose (so a patch embedding over 3·2·14·14 = 1176 pixels, SigLIP's
 * 4304-wide MLP output stay in floats), but at 8 bits per channel (one scale a row): a tower is
 * all prefill, whose W8A8 GEMM then sums each row in integers (cpu/ops/qlinear.c), where decode's
 * Q8_0 blocks would rescale every 32 channels. */
bool ts_quantized_weights_choose_tower(void *self, const char *name, int64_t out, int64_t in, ts_quant_choice *choice);

typedef struct ts_quantization_report {
    int bits;
    int matrices;
    int64_t weights, bytes;  /* quantized weights and their bytes (values + scales) */
    double rel_error_max, rel_error_all; /* per matrix worst, and over all weights together */
    const char *worst;       /* the matrix with the largest error (borrowed from the store) */
} ts_quantization_report;
void ts_quantized_weights_report(const ts_quantized_weights *q, ts_quantization_report *out);
/* Matrices are kept in the order first asked for: the count now, and the report over matrices
 * first … end − 1 of that order (how a model reports its language model and its tower apart). */
int ts_quantized_weights_count(const ts_quantized_weights *q);
void ts_quantized_weights_report_range(const ts_quantized_weights *q, int first, int end, ts_quantization_report *out);


#endif
