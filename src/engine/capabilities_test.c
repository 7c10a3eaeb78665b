/* capabilities_test.c — the modality predicate: text where the decoder is built, never images
 * where every image stage of the family exists, whatever its config declares. */
#include "check.h"
#include "models/family.h"
#include "tessera.h"

static unsigned served(const char *name)
{
    char dir[128];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    ts_model_config cfg;
    ts_error err;
    if (ts_model_config_load(dir, &cfg, &err) != TS_OK) return 0xff;
    return ts_model_supported_modalities(&cfg);
}

static void test_predicate(void)
{
    CHECK_INT_EQ(served("qwen2"), TS_MODALITY_TEXT);
    CHECK_INT_EQ(served("llama"), TS_MODALITY_TEXT);
    CHECK_INT_EQ(served("qwen2_vl"), TS_MODALITY_TEXT | TS_MODALITY_IMAGE);
    CHECK_INT_EQ(served("qwen2_5_vl"), TS_MODALITY_TEXT | TS_MODALITY_IMAGE);
    CHECK_INT_EQ(served("qwen2_vl-text-only"), TS_MODALITY_TEXT | TS_MODALITY_IMAGE);
    CHECK_INT_EQ(served("qwen3_vl"), TS_MODALITY_TEXT | TS_MODALITY_IMAGE);
    CHECK_INT_EQ(served("qwen3_vl_moe"), TS_MODALITY_TEXT | TS_MODALITY_IMAGE);
    /* Gemma3's images (bidirectional image blocks); gemma3_text has no vision_config. */
    CHECK_INT_EQ(served("gemma3"), TS_MODALITY_TEXT | TS_MODALITY_IMAGE);
    CHECK_INT_EQ(served("gemma3_text"), TS_MODALITY_TEXT);
    CHECK_INT_EQ(served("qwen3_moe"), TS_MODALITY_TEXT);
    /* Phi-4-multimodal: the language model, the image path (HD processor, tower, projector) and
     * the audio path. */
    CHECK_INT_EQ(served("phi4_mm-text"), TS_MODALITY_TEXT | TS_MODALITY_IMAGE | TS_MODALITY_AUDIO);
    CHECK_INT_EQ(served("phi4_mm-audio"), TS_MODALITY_TEXT | TS_MODALITY_IMAGE | TS_MODALITY_AUDIO);
    CHECK_INT_EQ(served("phi4_mm-image-small"), TS_MODALITY_TEXT | TS_MODALITY_IMAGE | TS_MODALITY_AUDIO);
    CHECK_INT_EQ(served("qwen3_vl_moe-sparse-step"), TS_MODALITY_TEXT | TS_MODALITY_IMAGE);
    CHECK_INT_EQ(served("llava"), TS_MODALITY_TEXT | TS_MODALITY_IMAGE);
    CHECK_INT_EQ(served("llava_siglip"), TS_MODALITY_TEXT | TS_MODALITY_IMAGE);
}

/* Phi-4-multimodal is the one family with an audio path (its media stage step:
 * server/media.c); every other fixture's predicate above is exact, so none says audio. */
static void test_audio_families(void)
{
    int n = 0;
    const ts_family_desc *const *all = ts_family_all(&n);
    CHECK(n > 0);
    for (int i = 0; i < n; i++) {
        bool phi4 = ts_family_is(all[i], "phi4_multimodal");
        if ((all[i]->audio != NULL) != phi4) fprintf(stderr, "family %s: audio path %s\n", all[i]->name, all[i]->audio ? "set" : "missing");
        CHECK((all[i]->audio != NULL) == phi4);
    }
    CHECK((served("qwen2_vl") & TS_MODALITY_AUDIO) == 0);
}

int main(void)
{
    RUN(test_predicate);
    RUN(test_audio_families);
    return check_finish();
}
