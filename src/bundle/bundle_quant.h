/* bundle_quant.h — a bundle's quantized weights: described and written at export, checked at open.
 *
 * A quantized bundle's modules take, for each quantized matrix W [out, in], the weight arguments
 * "W:q<bits>", "W:q<bits>.scale" and, with zero points, "W:q<bits>.zero" (graph/quantize.h's
 * names and layouts) and dequantize them in the graph (tessera.qlinear's decomposition). Their
 * bytes are in a safetensors file of the bundle (manifest quantization.file), since no checkpoint
 * holds them; every other weight stays in the checkpoint, by name, as for a float bundle.
 *
 * Why ui8 bytes for 4-bit and not tensor<…xi4> arguments: the bytes are exactly packed i4's (two
 * values per byte, the even channel low), but as ui8 they are an ordinary 8-bit buffer every host
 * API passes as it is. Tried with the pinned oracles: a tensor<4x8xi4> argument compiles in XLA
 * (fed an ml_dtypes.int4 array) and in iree-compile, but IREE's runtime cannot take it from the host
 * ("could not map dtype(int4) to element type"); the ui8 form's unpacking is four integer ops in the
 * module, which the official parser, IREE and XLA all accept and run (the oracle tests).
 *
 * Export: ts_bundle_quant_describe fills m->quant from the weight schemas, the language model's
 * and vision.main's (each "W:q<bits>" with its scales, block = in / scale columns; a --quantize
 * export's tower is quantized as the engine's: engine/quantized_weights.h's tower chooser);
 * ts_bundle_quant_write asks `source` for those tensors and writes them to BUNDLE/<file>
 * (loader/safetensors_write.h). A matrix named in both schemas is one tensor, described once.
 * Open: ts_bundle_quant_check holds each matrix the manifest describes (bits 8 or 4, a block that
 * divides its width, even for 4-bit, an F16/BF16/F32 scale dtype) to the weight schema's
 * descriptors and to the file's tensors (dtype, shape, byte count); ts_bundle_quant_check_module
 * holds every tessera.qlinear of a module to the matrix its weights belong to (bits, block, zero
 * points). Errors (TS_ERR_FORMAT) name the matrix, the tensor, and both sides.
 */
#ifndef TS_BUNDLE_BUNDLE_QUANT_H
#define TS_BUNDLE_BUNDLE_QUANT_H

#include "bundle/manifest.h"
#include "models/decoder.h"

#define TS_BUNDLE_QUANT_FILE "quantized.safetensors"

/* `method`: "q8", "q4", "gptq", "awq". No-op (m->quant stays version 0) when the schema has no
 * quantized weights. */
ts_status ts_bundle_quant_describe(ts_manifest *m, const char *method, ts_error *err);
ts_status ts_bundle_quant_write(const ts_manifest *m, const ts_weight_source *source, const char *bundle_dir, ts_error *err);
/* Whether schema weight `tensor` is one of the quantized tensors (its bytes in the bundle's file). */
bool ts_bundle_quant_owns(const ts_manifest *m, const char *tensor);
ts_status ts_bundle_quant_check(const ts_manifest *m, const ts_checkpoint *file, ts_error *err);
ts_status ts_bundle_quant_check_module(const ts_manifest *m, const ts_graph *g, const char *entry, ts_error *err);

#endif
