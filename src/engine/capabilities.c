/* capabilities.c — the one predicate for what a model can be served with.
 *
 * A modality is supported only when every stage for it is built: text needs the family's decoder;
 * images need, besides, the media decoders (always built) and the family's processor, tower,
 * prompt rule and side inputs — which ts_family_image_path answers from the descriptor's hooks
 * (each family with an image path is tested end to end against its fixtures). Audio likewise needs
 * the media decoders (always built) and the family's feature extractor, token count and encoder —
 * ts_family_audio_path (models/audio_path.h; Phi-4-multimodal's). Everything that
 * advertises or admits modalities (inspect, the server's /v1/models and its admission, run --image
 * and --audio) asks this function.
 */
#include "engine/vision.h"
#include "models/family.h"
#include "models/decoder.h"
#include "tessera.h"

unsigned ts_model_supported_modalities(const ts_model_config *cfg)
{
    ts_decoder_spec spec;
    unsigned out = 0;
    if (ts_decoder_spec_init(cfg, &spec, NULL) != TS_OK) return 0;
    out |= TS_MODALITY_TEXT;
    if (ts_vision_has_image_prefill(cfg)) out |= TS_MODALITY_IMAGE;
    if (ts_family_audio_path(cfg)) out |= TS_MODALITY_AUDIO;
    return out;
}
