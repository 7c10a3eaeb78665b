/* compare.c — a model against a reference file, stage by stage (the fixtures' format: see
 * tests/fixtures/README.md), reporting every stage and which one diverges first.
 *
 * Stages, in pipeline order, each compared when the reference holds it:
 *   image_embeds        the vision tower on the reference's pixel_values and grids, or on the
 *                       caller's images (ts_model_compare_images: a reference that keeps the
 *                       image file, not its pixels)
 *   audio_embeds_speech the audio encoder on the reference's audio_input_features (one clip;
 *                       the prefill then runs with the adapter audio takes); beside images
 *                       audio_embeds_vision_speech (the projector a prompt with images takes)
 *   position_ids        M-RoPE positions from input_ids and the grids; rope_deltas
 *   lm_inputs_embeds    token embeddings with the image rows in place
 *                       (positions and LM input from ts_mm_inputs_build, as every prefill path)
 *   hidden_state_l      every layer (from the reference's LM input, so a vision error does not
 *                       hide a language one), kv_key_l / kv_value_l, prefill_logits
 *   decode_logits[i]    greedy decoding with EOS masked, fed the reference's tokens;
 *   generated_ids       the greedy tokens
 * Tolerance: max |ours − ref| ≤ 1e-4 × max(1, max |ref|) per tensor; ids and positions exact.
 * A stage whose f32 result is ill-conditioned says so in the reference: `f64_gap_<stage>` [1] F32,
 * max |ref − the same model in float64| (the generator measures it). The tolerance is then at
 * least 4 × that gap: our f32 result and the reference's are two draws of the stage's rounding
 * error, |ours − ref| ≤ |ours − f64| + |ref − f64|, and a draw ranges up to ~3 × another
 * (phi4_mm-mixed's last layer: 16 summation orders of the same f32 math lie 2.8e-4 … 1.5e-3 from
 * float64, the reference 5.2e-4, ours 1.4e-3; docs/phi4-multimodal.md). A gap does not widen a
 * stage beyond what its rounding explains: a bug an order above it still fails.
 */
#include "base/error.h"
#include "engine/model.h"
#include "engine/vision.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const ts_checkpoint *ref; /* for the stages' f64_gap_* */
    ts_compare_report report;
    void *user;
    int n_stages, n_failed;
    char first[64];
} session;

static bool note(session *s, const char *stage, double diff, double tol)
{
    bool ok = diff <= tol;
    s->n_stages++;
    if (!ok && !s->n_failed++) snprintf(s->first, sizeof(s->first), "%s", stage);
    if (s->report) s->report(s->user, stage, diff, tol, ok);
    return ok;
}

/* The tolerance rule above: max_ref is the stage's max |ref|. */
static double tolerance(const session *s, const char *stage, double max_ref)
{
    char name[80];
    snprintf(name, sizeof(name), "f64_gap_%s", stage);
    const ts_tensor_info *gap = ts_checkpoint_find(s->ref, name);
    double tol = 1e-4 * fmax(1.0, max_ref);
    if (gap && gap->dtype == TS_DTYPE_F32 && gap->n_bytes == sizeof(float)) tol = fmax(tol, 4.0 * *(const float *)gap->data);
    return tol;
}

static bool compare_floats(session *s, const char *stage, const float *ours, const ts_tensor_info *ref)
{
    size_t n = ref->n_bytes / sizeof(float);
    const float *r = ref->data;
    double max_ref = 0, diff = 0;
    for (size_t i = 0; i < n; i++) {
        max_ref = fmax(max_ref, fabs(r[i]));
        double d = fabs((double)ours[i] - r[i]);
        diff = isnan(d) ? INFINITY : fmax(diff, d);
    }
    return note(s, stage, diff, tolerance(s, stage, max_ref));
}

int ts_argmax_masked(const float *x, int64_t n, const int64_t *eos, int n_eos)
{
    int best = -1;
    for (int64_t i = 0; i < n; i++) {
        bool masked = false;
        for (int e = 0; e < n_eos; e++) masked |= eos[e] == i;
        if (!masked && (best < 0 || x[i] > x[best])) best = (int)i;
    }
    return best;
}

ts_status ts_model_compare(ts_model *m, const char *reference, ts_compare_report report, void *user, char **first_divergent,
                           ts_error *err)
{
    return ts_model_compare_images(m, reference, NULL, 0, report, user, first_divergent, err);
}

ts_status ts_model_compare_images(ts_model *m, const char *reference, const ts_pixel_values *given, int n_given,
                                  ts_compare_report report, void *user, char **first_divergent, ts_error *err)
{
    *first_divergent = NULL;
    ts_checkpoint *ref;
    ts_status st = ts_checkpoint_open(reference, &ref, err);
    if (st != TS_OK) return st;
    session s = {ref, report, user, 0, 0, ""};
    const ts_model_config *cfg = ts_model_get_config(m);
    const ts_tensor_info *ids64 = ts_checkpoint_find(ref, "input_ids");
    if (!ids64 || ids64->dtype != TS_DTYPE_I64 || ids64->n_dims != 2) {
        ts_checkpoint_close(ref);
        return ts_error_set(err, TS_ERR_FORMAT, "%s: no input_ids I64[1, L]: not a Tessera reference file", reference);
    }
    int64_t n = ids64->shape[1], hidden = cfg->text.hidden_size, vocab = ts_model_vocab_size(m), layers = cfg->text.num_hidden_layers;
    int32_t *ids = malloc(sizeof(int32_t) * (size_t)n);
    float *inputs = malloc(sizeof(float) * (size_t)(n * hidden)), *logits = malloc(sizeof(float) * (size_t)(n * vocab));
    float **hid = calloc((size_t)layers + 1, sizeof(float *));
    ts_sequence *seq = NULL;
    if (!ids || !inputs || !logits || !hid)
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "compare: out of memory");
    for (int64_t l = 0; st == TS_OK && l <= layers; l++)
        if (!(hid[l] = malloc(sizeof(float) * (size_t)(n * hidden)))) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "compare: out of memory");
    for (int64_t i = 0; st == TS_OK && i < n; i++) ids[i] = (int32_t)((const int64_t *)ids64->data)[i];

    /* Vision: the tower on the reference's pixel values. */
    const ts_tensor_info *pixels = ts_checkpoint_find(ref, "pixel_values"), *grid = ts_checkpoint_find(ref, "image_grid_thw");
    const ts_tensor_info *embeds_ref = ts_checkpoint_find(ref, "image_embeds"), *pos_ref = ts_checkpoint_find(ref, "position_ids");
    ts_vision *vision = ts_model_vision(m);
    int n_images = grid ? (int)grid->shape[0] : 0;
    ts_pixel_values pv[16];
    const ts_pixel_values *images = pv;
    ts_encoded_media media = {0};
    if (st == TS_OK && n_given > 0) {
        /* The caller's images, preprocessed by the model's own processor (a reference that keeps
         * the image file rather than its pixel values: Phi-4-multimodal's HD crops). */
        st = vision ? ts_model_encode_images(m, given, n_given, &media, err)
                    : ts_error_set(err, TS_ERR_UNSUPPORTED, "compare: the model has no image tower");
        if (st == TS_OK && embeds_ref) {
            if ((size_t)media.n_rows * (size_t)hidden * sizeof(float) == embeds_ref->n_bytes)
                compare_floats(&s, "image_embeds", media.rows, embeds_ref);
            else
                note(&s, "image_embeds", INFINITY, 0);
        }
        images = given, n_images = n_given;
    } else if (st == TS_OK && vision && pixels && !grid && pixels->n_dims == 4) {
        /* Fixed-size images [images, 3, S, S], one tower call for all of them. */
        pv[0] = (ts_pixel_values){.data = (float *)pixels->data, .n_dims = 4};
        for (int d = 0; d < 4; d++)
            pv[0].shape[d] = pixels->shape[d];
        st = ts_model_encode_images(m, pv, 1, &media, err);
        if (st == TS_OK && embeds_ref) compare_floats(&s, "image_embeds", media.rows, embeds_ref);
        n_images = 1;
    } else if (st == TS_OK && vision && pixels && grid && n_images <= 16) {
        int64_t at = 0;
        for (int g = 0; g < n_images; g++) {
            const int64_t *v = (const int64_t *)grid->data + 3 * g;
            int64_t rows = v[0] * v[1] * v[2];
            pv[g] = (ts_pixel_values){.data = (float *)pixels->data + at * pixels->shape[1],
                                      .n_dims = 2,
                                      .shape = {rows, pixels->shape[1]},
                                      .grid_thw = {v[0], v[1], v[2]}};
            at += rows;
        }
        st = ts_model_encode_images(m, pv, n_images, &media, err);
        if (st == TS_OK && embeds_ref) compare_floats(&s, "image_embeds", media.rows, embeds_ref);
    } else {
        n_images = 0;
    }
    /* Audio: the encoder on the reference's features [1, frames, mels]. */
    const ts_tensor_info *feats = ts_checkpoint_find(ref, "audio_input_features");
    bool audio = feats && feats->n_dims == 3 && feats->shape[0] == 1 &&
                 (ts_model_supported_modalities(ts_model_get_config(m)) & TS_MODALITY_AUDIO);
    if (st == TS_OK && audio) {
        ts_encoded_media clip;
        /* Beside images the projector is the vision_speech pair (the reference's stage name says which). */
        const char *stage = n_images > 0 ? "audio_embeds_vision_speech" : "audio_embeds_speech";
        st = ts_model_encode_audio_features(m, NULL, feats->data, feats->shape[1], feats->shape[2],
                                            TS_MODALITY_AUDIO | (n_images > 0 ? TS_MODALITY_IMAGE : 0u), &clip, err);
        const ts_tensor_info *t = ts_checkpoint_find(ref, stage);
        if (st == TS_OK && t && t->n_bytes == sizeof(float) * (size_t)(clip.n_audio_rows * hidden))
            compare_floats(&s, stage, clip.audio_rows, t);
        else if (st == TS_OK && t)
            note(&s, stage, INFINITY, 0);
        media.audio_rows = clip.audio_rows, media.n_audio_rows = clip.n_audio_rows, media.hidden = clip.hidden;
    }
    /* Positions and the LM input, assembled as every prefill path assembles them. */
    ts_mm_inputs mm = {0};
    if (st == TS_OK)
        st = ts_mm_inputs_build(m, ids, (size_t)n, images, n_images, n_images || audio ? &media : NULL, &mm, err);
    bool mrope = pos_ref && pos_ref->n_dims == 3;
    if (st == TS_OK && mrope) {
        /* A model whose positions are not M-RoPE has every one of them wrong. */
        int64_t wrong = mm.position_rows == 3 ? 0 : 3 * n;
        for (int64_t i = 0; mm.position_rows == 3 && i < 3 * n; i++)
            wrong += mm.positions[i] != ((const int64_t *)pos_ref->data)[i];
        const ts_tensor_info *d = ts_checkpoint_find(ref, "rope_deltas");
        note(&s, "position_ids", (double)wrong, 0);
        if (d)
            note(&s, "rope_deltas", fabs((double)(mm.rope_delta - ((const int64_t *)d->data)[0])),
                 0);
    }
    /* The LM input: ours (token rows, image rows from our tower) compared; the reference's fed on. */
    const ts_tensor_info *inputs_ref = ts_checkpoint_find(ref, "lm_inputs_embeds");
    if (st == TS_OK && inputs_ref) {
        if (media.n_rows || media.n_audio_rows || !n_images)
            compare_floats(&s, "lm_inputs_embeds", mm.embeddings, inputs_ref);
        memcpy(inputs, inputs_ref->data, sizeof(float) * (size_t)(n * hidden));
    }
    ts_encoded_media_free(&media);
    /* Every layer, K/V and the prefill logits. */
    const ts_tensor_info *gen = ts_checkpoint_find(ref, "generated_ids");
    int64_t n_new = gen ? gen->shape[0] : 0;
    if (st == TS_OK) st = ts_sequence_create(m, n + n_new + 1, &seq, err);
    /* The adapter the prompt's inputs take (Phi-4-multimodal: speech with audio, vision with an
     * image), as every path. */
    if (st == TS_OK)
        st = ts_sequence_set_modalities(
            seq, (audio ? TS_MODALITY_AUDIO : 0u) | (n_images > 0 ? TS_MODALITY_IMAGE : 0u), err);
    if (st == TS_OK) {
        /* Side inputs (DeepStack) go with the image rows, so only with the embeddings. */
        ts_side_inputs side = ts_mm_inputs_side(&mm);
        ts_diagnostic_prefill d = {.logits = logits,
                                   .hidden = hid,
                                   .embeddings = inputs_ref ? inputs : NULL,
                                   .positions = mm.positions,
                                   .side = inputs_ref ? &side : NULL};
        st = ts_model_prefill_diagnostic(m, seq, ids, (size_t)n, &d, err);
        if (st == TS_OK) ts_sequence_set_rope_delta(seq, mm.rope_delta);
    }
    for (int64_t l = 0; st == TS_OK && l <= layers; l++) {
        char stage[48];
        snprintf(stage, sizeof(stage), "hidden_state_%lld", (long long)l);
        const ts_tensor_info *t = ts_checkpoint_find(ref, stage);
        if (t) compare_floats(&s, stage, hid[l], t);
    }
    int64_t kvh = ts_model_kv_heads(m), hd = ts_model_head_dim(m);
    float *kv = st == TS_OK ? malloc(sizeof(float) * (size_t)(kvh * n * hd)) : NULL;
    for (int64_t l = 0; kv && l < layers; l++)
        for (int value = 0; value < 2; value++) {
            char stage[48];
            snprintf(stage, sizeof(stage), "kv_%s_%lld", value ? "value" : "key", (long long)l);
            const ts_tensor_info *t = ts_checkpoint_find(ref, stage);
            if (!t || ts_model_kv_dtype(m) != TS_DTYPE_F32) continue;
            /* A sliding-window layer's ring holds only its last positions: the rest of the
             * reference's rows are taken as they are (the stage then covers the rows held). */
            memcpy(kv, t->data, sizeof(float) * (size_t)(kvh * n * hd));
            for (int64_t p = 0; p < n; p++) {
                const float *row = ts_sequence_cache_row(seq, (int)l, value, p);
                for (int64_t h = 0; row && h < kvh; h++)
                    memcpy(kv + (h * n + p) * hd, row + h * hd, sizeof(float) * (size_t)hd);
            }
            compare_floats(&s, stage, kv, t);
        }
    free(kv);
    const ts_tensor_info *pl = ts_checkpoint_find(ref, "prefill_logits");
    if (st == TS_OK && pl) compare_floats(&s, "prefill_logits", logits, pl);
    /* Greedy decoding, fed the reference's tokens so one divergence does not cascade. */
    const ts_tensor_info *dl = ts_checkpoint_find(ref, "decode_logits");
    if (st == TS_OK && gen && dl) {
        const float *step = logits + (n - 1) * vocab;
        float *next = malloc(sizeof(float) * (size_t)vocab);
        int64_t wrong = 0;
        double worst = 0, worst_tol = 0;
        for (int64_t i = 0; next && st == TS_OK && i < n_new; i++) {
            const float *r = (const float *)dl->data + i * vocab;
            double max_ref = 0, diff = 0;
            for (int64_t j = 0; j < vocab; j++) max_ref = fmax(max_ref, fabs(r[j])), diff = fmax(diff, fabs((double)step[j] - r[j]));
            double tol = tolerance(&s, "decode_logits", max_ref);
            if (diff / tol > (worst_tol > 0 ? worst / worst_tol : 0)) worst = diff, worst_tol = tol;
            int32_t want = (int32_t)((const int64_t *)gen->data)[i];
            wrong += ts_argmax_masked(step, vocab, cfg->eos_token_ids, cfg->n_eos_token_ids) != want;
            if (i + 1 < n_new) st = ts_model_decode(m, &seq, &want, 1, next, err);
            step = next;
        }
        free(next);
        if (st == TS_OK) {
            note(&s, "decode_logits", worst, worst_tol);
            note(&s, "generated_ids", (double)wrong, 0);
        }
    }
    if (st == TS_OK && s.n_failed) *first_divergent = strdup(s.first);
    ts_sequence_destroy(seq);
    for (int64_t l = 0; hid && l <= layers; l++) free(hid[l]);
    free(hid), free(ids), free(inputs), free(logits);
    ts_mm_inputs_free(&mm);
    ts_checkpoint_close(ref);
    return st;
}
