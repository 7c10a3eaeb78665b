/* phi4_lora.h — Phi-4-multimodal's LoRA adapters as its descriptor states them (the family's own
 * header: only phi4_mm.c includes it). The adapters are peft's (speech-lora/, vision-lora/ beside
 * the checkpoint, tools/fixtures/phi4_fixture_notes.md); engine/lora.h loads them. */
#ifndef TS_MODELS_PHI4_LORA_H
#define TS_MODELS_PHI4_LORA_H

#include "models/family.h"

extern const ts_lora_folder ts_phi4_mm_lora_folders[];
/* The original remote code's choice: text → none, audio → speech, image (with or without audio)
 * → vision. */
const char *ts_phi4_mm_lora_for_input(unsigned inputs);
/* The decoder's q/k/v are rows of the adapters' qkv_proj, gate/up rows of gate_up_proj (lora_B
 * splits like the fused base weight); o_proj and down_proj are themselves. */
bool ts_phi4_mm_lora_module(const ts_model_config *cfg, const char *weight, char *module,
                            size_t cap, int64_t *row0, int64_t *rows, int64_t *total_rows);

#endif
