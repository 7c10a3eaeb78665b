/* bundle_tensors.h — the weights a bundle holds itself (manifest `bundle_weights`): described and
 * written at export, checked at open.
 *
 * A bundle's modules take their weights by name, and a runtime finds them in the checkpoint.
 * Some schema weights are in no checkpoint: the parts a family derives at load (Phi-4-multimodal's
 * q/k/v rows of qkv_proj and gate/up rows of gate_up_proj; a sparse MoE layer's stacked experts) and the
 * stacked LoRA adapters (engine/lora.h). Their bytes, as the engine serves them, go to a
 * safetensors file of the bundle (TS_BUNDLE_TENSORS_FILE); the modules stay one graph definition
 * (the engine's), and every other weight stays in the checkpoint. The copy costs disk: for the
 * published Phi-4-multimodal about the fused projections' size again (bf16) plus the adapters'.
 *
 * Export: ts_bundle_tensors_describe lists every schema weight (the language model's and
 * vision.main's) that `in_checkpoint` does not find and the quantization does not own;
 * ts_bundle_tensors_write asks `source` for each (with the schema's shape) and writes the file.
 * Open: ts_bundle_tensors_check holds each listed name to the schemas (a name no module takes is
 * refused) and to the file (present); the schema check (bundle.c) then compares dtype and shape.
 * Errors name the tensor and the file.
 */
#ifndef TS_BUNDLE_BUNDLE_TENSORS_H
#define TS_BUNDLE_BUNDLE_TENSORS_H

#include "bundle/manifest.h"
#include "models/decoder.h"

/* No-op (m->tensors.version stays 0) when every weight is in the checkpoint, or in_checkpoint is
 * NULL (a synthetic export: no checkpoint, nothing to hold). */
ts_status ts_bundle_tensors_describe(ts_manifest *m, bool (*in_checkpoint)(void *self, const char *name), void *self, ts_error *err);
ts_status ts_bundle_tensors_write(const ts_manifest *m, const ts_weight_source *source, const char *bundle_dir, ts_error *err);
/* Whether schema weight `name` is one the bundle's file holds. */
bool ts_bundle_tensors_owns(const ts_manifest *m, const char *name);
ts_status ts_bundle_tensors_check(const ts_manifest *m, const ts_checkpoint *file, ts_error *err);

#endif
