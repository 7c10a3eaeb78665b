/* lora.h — a model's LoRA adapters, stacked for tessera.lora_linear (graph.h).
 *
 * Owns: the adapters the family names (ts_family_desc.lora_adapters) that the checkpoint folder
 * ships, read once at load from each `<folder>/adapter_config.json` and
 * `<folder>/adapter_model.safetensors` (peft's format), stacked (bf16 when every adapter tensor
 * is bf16, else widened to f32) per decoder
 * projection as `….lora_A` [K, R, in] and `….lora_B` [K, out, R] plus `lora.scale` [K]
 * (decoder.h: ts_decoder_spec's LoRA fields). Adapter 0 is "none" (zeros, scale 0); adapters
 * 1 … K−1 follow the family's order; R is the largest rank, a smaller one zero-padded (its
 * padding adds exact zeros). scale = lora_alpha / r.
 *
 * Guarantees: every adapter is validated before anything is served — the config's options that
 * are not plain LoRA are refused by name (use_dora, use_rslora, fan_in_fan_out, bias other than
 * "none", lora_bias, rank_pattern, alpha_pattern, modules_to_save, layer_replication,
 * trainable_token_indices, …), every tensor's shape is checked against the base weight it adapts
 * (the family's lora_module for fused modules), and every tensor of the file must be used (one
 * that adapts a module Tessera does not apply LoRA to is refused, naming it). A folder the
 * checkpoint lacks is not offered (selecting it fails naming the adapter). Errors name the
 * folder and the key or tensor relative to the checkpoint, never an absolute path.
 *
 * Memory: the stacks are the set's (K · R · (in + out) values per projection), freed by
 * ts_lora_set_destroy; the weight source it gives borrows the set and the base source.
 */
#ifndef TS_ENGINE_LORA_H
#define TS_ENGINE_LORA_H

#include "models/decoder.h"
#include "models/family.h"

typedef struct ts_lora_set ts_lora_set;

/* *out NULL (and TS_OK) when the family has no adapters or the checkpoint ships none. */
ts_status ts_lora_set_load(const char *dir, const ts_model_config *cfg, const ts_decoder_spec *spec,
                           const ts_weight_source *base, ts_lora_set **out, ts_error *err);
void ts_lora_set_destroy(ts_lora_set *set);
/* K: adapters including "none" at 0. */
int ts_lora_set_count(const ts_lora_set *set);
int64_t ts_lora_set_rank(const ts_lora_set *set);
/* The index of adapter `name` (NULL or "none": 0), -1 when the set has no such adapter. */
int ts_lora_set_index(const ts_lora_set *set, const char *name);
/* The name of adapter i ("none" for 0). */
const char *ts_lora_set_name(const ts_lora_set *set, int i);
/* Serves the stacked tensors by name and everything else from `base` (given at load). */
ts_weight_source ts_lora_set_source(ts_lora_set *set);

#endif
