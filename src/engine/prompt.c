/* prompt.c — image placeholders of a rendered chat prompt expanded into the tokens each image
 * becomes, at the text level as the Hugging Face processors do (so tokenization around them is
 * the reference's), by the family's rule (ts_image_prompt):
 *   REPEAT:  <image> → <image> × tokens (the tokens the tower's rows fill);
 *   WRAPPED: <start> → "\n\n" <start> <image> × tokens <end> "\n\n"; an image of several
 *            views (pan-and-scan crops) → the family's crop_prompt around one block per view.
 * Audio placeholders the same way: <|audio|> → <|audio|> × the clip's tokens
 * (ts_prompt_expand_audio; Phi4MultimodalProcessor's rule).
 * The token strings come from the tokenizer by the config's ids, never from literals.
 */
#include "base/error.h"
#include "models/family.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    char *data;
    size_t len, cap;
    bool failed;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->failed) return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = (t->len + n + 1) * 2;
        char *d = realloc(t->data, cap);
        if (!d) {
            t->failed = true;
            return;
        }
        t->data = d, t->cap = cap;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
}

static const char *token_text(const ts_tokenizer *tok, int64_t id, const char *role, ts_error *err)
{
    const char *s = id >= 0 ? ts_tokenizer_id_to_token(tok, (int32_t)id) : NULL;
    if (!s) ts_error_set(err, TS_ERR_FORMAT, "the tokenizer has no %s token (id %lld from config.json)", role, (long long)id);
    return s;
}

ts_status ts_prompt_expand_images(const ts_model_config *cfg, const ts_tokenizer *tok, const char *prompt, size_t len,
                                  const int64_t *tokens_per_image, int n_images, char **out, size_t *out_len, ts_error *err)
{
    *out = NULL;
    if (!cfg->family || cfg->family->image_prompt == TS_IMAGE_PROMPT_NONE)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: prompts with images are not supported for this model", ts_family_name(cfg->family));
    bool wrapped = cfg->family->image_prompt == TS_IMAGE_PROMPT_WRAPPED;
    const char *image = token_text(tok, cfg->image_token_id, "image", err);
    const char *boi = wrapped ? token_text(tok, cfg->vision_start_token_id, "start-of-image", err) : NULL;
    const char *eoi = wrapped ? token_text(tok, cfg->vision_end_token_id, "end-of-image", err) : NULL;
    if (!image || (wrapped && (!boi || !eoi))) return err ? err->status : TS_ERR_FORMAT;
    const char *placeholder = wrapped ? boi : image;
    size_t p_len = strlen(placeholder), i_len = strlen(image);
    text t = {0};
    put(&t, "", 0);
    int seen = 0;
    const char *at = prompt, *end = prompt + len;
    while (at < end) {
        const char *hit = NULL;
        for (const char *c = at; c + p_len <= end; c++)
            if (memcmp(c, placeholder, p_len) == 0) {
                hit = c;
                break;
            }
        if (!hit) {
            put(&t, at, (size_t)(end - at));
            break;
        }
        put(&t, at, (size_t)(hit - at));
        /* Views of this image: one, or (WRAPPED) its tokens over the tokens of one view. */
        int64_t per = wrapped && cfg->mm_tokens_per_image > 0 ? cfg->mm_tokens_per_image : 0;
        int64_t views = seen < n_images && per && tokens_per_image[seen] > per &&
                                tokens_per_image[seen] % per == 0
                            ? tokens_per_image[seen] / per
                            : 1;
        const char *const *crops = cfg->family->crop_prompt;
        if (views > 1 && !crops) {
            free(t.data);
            return ts_error_set(
                err, TS_ERR_UNSUPPORTED,
                "prompt: image %d has %lld views (crops), %s has no prompt for crops", seen,
                (long long)views, ts_family_name(cfg->family));
        }
        for (int64_t view = 0; seen < n_images && view < views; view++) {
            if (views > 1) {
                const char *join = view == 0 ? crops[0] : view == 1 ? crops[1] : crops[2];
                put(&t, join, strlen(join));
            }
            if (wrapped) put(&t, "\n\n", 2), put(&t, boi, strlen(boi));
            for (int64_t k = 0; k < tokens_per_image[seen] / views; k++)
                put(&t, image, i_len);
            if (wrapped) put(&t, eoi, strlen(eoi)), put(&t, "\n\n", 2);
        }
        seen++;
        at = hit + p_len;
    }
    if (t.failed) {
        free(t.data);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "prompt: out of memory");
    }
    if (seen != n_images) {
        free(t.data);
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "prompt: %d image placeholder%s (%s) for %d image%s", seen, seen == 1 ? "" : "s",
                            placeholder, n_images, n_images == 1 ? "" : "s");
    }
    *out = t.data;
    if (out_len) *out_len = t.len;
    return TS_OK;
}

ts_status ts_prompt_expand_audio(const ts_model_config *cfg, const ts_tokenizer *tok, const char *prompt, size_t len,
                                 const int64_t *tokens_per_clip, int n_clips, char **out, size_t *out_len, ts_error *err)
{
    *out = NULL;
    if (!ts_family_audio_path(cfg))
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: this model does not accept audio input", ts_family_name(cfg->family));
    const char *audio = token_text(tok, cfg->audio_token_id, "audio", err);
    if (!audio) return err ? err->status : TS_ERR_FORMAT;
    size_t a_len = strlen(audio);
    text t = {0};
    put(&t, "", 0);
    int seen = 0;
    for (const char *at = prompt, *end = prompt + len; at < end;) {
        const char *hit = NULL;
        for (const char *c = at; !hit && c + a_len <= end; c++)
            if (memcmp(c, audio, a_len) == 0) hit = c;
        put(&t, at, (size_t)((hit ? hit : end) - at));
        if (!hit) break;
        for (int64_t k = 0; seen < n_clips && k < tokens_per_clip[seen]; k++)
            put(&t, audio, a_len);
        seen++;
        at = hit + a_len;
    }
    if (t.failed || seen != n_clips) {
        free(t.data);
        return t.failed ? ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "prompt: out of memory")
                        : ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "prompt: %d audio placeholder%s (%s) for %d clip%s", seen,
                                       seen == 1 ? "" : "s", audio, n_clips, n_clips == 1 ? "" : "s");
    }
    *out = t.data;
    if (out_len) *out_len = t.len;
    return TS_OK;
}
