/* capabilities.c — the one predicate for what a model can be served with.
 *
 * A modality is supported only when every stage for it is built: text needs the family's decoder;
 * images will need the processor, the tower and the prompt assembly of that family, and until
 * those land no family reports images, whatever its config declares. Everything that advertises
 * modalities (inspect, the server's /v1/models) asks this function.
 */
#include "models/decoder.h"
#include "tessera.h"

unsigned ts_model_supported_modalities(const ts_model_config *cfg)
{
    ts_decoder_spec spec;
    unsigned out = 0;
    if (ts_decoder_spec_init(cfg, &spec, NULL) == TS_OK) out |= TS_MODALITY_TEXT;
    return out;
}
