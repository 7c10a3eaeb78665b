/* phi4_mm_audio.h — Phi-4-multimodal's audio path as its descriptor states it (the family's own
 * header: only phi4_mm.c includes it): config.json's audio_config read into the model config,
 * the extractor (media/audio_fbank.h), the token count and the Conformer encoder
 * (phi4_audio.h) behind models/audio_path.h's hooks. */
#ifndef TS_MODELS_PHI4_MM_AUDIO_H
#define TS_MODELS_PHI4_MM_AUDIO_H

#include "models/family.h"

extern const ts_audio_path ts_phi4_mm_audio_path;
/* audio_config present: has_audio, TS_MODALITY_AUDIO and audio_token_id (default 200011). */
ts_status ts_phi4_mm_read_media_ids(const ts_json_reader *r, const cJSON *root, ts_model_config *c);

#endif
