/* qwen2.h — what the Qwen2 family shares with the families built on its decoder (Qwen2-VL,
 * Qwen2.5-VL, Qwen3-VL): its config checks. */
#ifndef TS_MODELS_QWEN2_H
#define TS_MODELS_QWEN2_H

#include "models/family.h"

/* Qwen2-style sliding windows apply only to layers past max_window_layers, which the decoder
 * cannot describe; such configs are refused rather than run with full attention. */
ts_status ts_qwen2_reject_sliding(const ts_json_reader *r, const cJSON *text);

#endif
