/* capabilities.c — the one predicate for what a model can be served with.
 *
 * A modality is supported only when every stage for it is built: text needs the family's decoder;
 * images need, besides, the media decoders (always built), the family's processor, tower and
 * prompt assembly and language-model side — which ts_vision_has_image_prefill answers (Qwen2-VL,
 * Qwen2.5-VL, LLaVA, and Qwen3-VL(-MoE) with its DeepStack rows; each tested end to end against
 * its fixtures). Gemma3's config parses but its decoder is not built, so it serves nothing.
 * Everything that advertises modalities (inspect, the server's /v1/models) asks this function.
 */
#include "engine/vision.h"
#include "models/decoder.h"
#include "tessera.h"

unsigned ts_model_supported_modalities(const ts_model_config *cfg)
{
    ts_decoder_spec spec;
    unsigned out = 0;
    if (ts_decoder_spec_init(cfg, &spec, NULL) != TS_OK) return 0;
    out |= TS_MODALITY_TEXT;
    if (ts_vision_has_image_prefill(cfg)) out |= TS_MODALITY_IMAGE;
    return out;
}
