/* mm_inputs.c — from (expanded token ids, encoded media) to what a prefill needs, written once.
 *
 *   ids, pixel values (grids), encoded media ─ ts_mm_inputs_build ─→ embeddings f32[n][hidden]
 *   (image rows, audio rows)
 *                                                                     positions [rows][n], delta
 *                                                                     side inputs (DeepStack)
 *
 * The image tokens' embedding rows are replaced, in prompt order, by the tower's rows, the audio
 * tokens' by the audio encoder's (1-D positions, no side input: Phi-4-multimodal); the
 * positions come from rotary_positions, the only place that knows which rule a model's
 * positions follow; a model whose image rows carry side features (DeepStack levels) gets
 * them as its side-input payload, the image tokens' prompt positions and the levels' rows; a
 * model whose image tokens see their whole image gets the prompt's additive attention
 * bias [1, 1, n, n] (causal, plus each run of image tokens visible to itself). The
 * engine, the bundle runtime, the server's media stage and compare all assemble through here, so
 * the prompt a fixture checks is the prompt every path prefills. Slicing (one request out of a
 * batched encode, one prefill chunk out of a prompt) lives here too, beside the layout it cuts.
 */
#include "engine/mm_inputs.h"
#include "base/error.h"
#include "engine/model.h"
#include "models/decoder.h"
#include "engine/vision.h"
#include "models/family.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ts_encoded_media_free(ts_encoded_media *media)
{
    if (!media) return;
    free(media->rows), free(media->deepstack), free(media->audio_rows);
    memset(media, 0, sizeof(*media));
}

ts_status ts_mm_encode(ts_vision *v, int64_t hidden, const ts_pixel_values *images, int n_images,
                       ts_encoded_media *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    ts_status st = ts_vision_encode_deepstack(v, images, n_images, &out->rows, &out->deepstack,
                                              &out->deepstack_levels, &out->n_rows, err);
    out->hidden = hidden;
    if (st != TS_OK) ts_encoded_media_free(out);
    return st;
}

ts_status ts_encoded_media_slice(const ts_encoded_media *all, int64_t first, int64_t count,
                                 ts_encoded_media *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    if (first < 0 || count < 0 || first > all->n_rows || count > all->n_rows - first)
        return ts_error_set(
            err, TS_ERR_RANGE, "media: rows %lld..%lld are outside the %lld encoded rows",
            (long long)first, (long long)(first + count - 1), (long long)all->n_rows);
    size_t width = (size_t)all->hidden, level = (size_t)count * width;
    int levels = all->deepstack ? all->deepstack_levels : 0;
    out->rows = malloc(sizeof(float) * (level ? level : 1));
    out->deepstack = levels ? malloc(sizeof(float) * (level ? level * (size_t)levels : 1)) : NULL;
    if (!out->rows || (levels && !out->deepstack)) {
        ts_encoded_media_free(out);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "media: out of memory for %lld rows",
                            (long long)count);
    }
    if (level) memcpy(out->rows, all->rows + (size_t)first * width, sizeof(float) * level);
    /* Each level is [all->n_rows][hidden]: the slice takes the same rows of every level. */
    for (int k = 0; k < levels && level; k++)
        memcpy(out->deepstack + (size_t)k * level,
               all->deepstack + ((size_t)k * (size_t)all->n_rows + (size_t)first) * width,
               sizeof(float) * level);
    out->n_rows = count, out->hidden = all->hidden, out->deepstack_levels = levels;
    return TS_OK;
}

/* The prompt's rotary positions and rope delta: the family's rule (M-RoPE over the images'
 * grids, with its delta) when it has one, else the arange and delta 0. positions has room for
 * [3][n]. */
static ts_status rotary_positions(const ts_model *m, const int32_t *ids, size_t n,
                                  const ts_pixel_values *images, int n_images, int32_t *positions,
                                  int *rows, int64_t *delta, ts_error *err)
{
    const ts_model_config *cfg = ts_model_get_config(m);
    *delta = 0, *rows = cfg->family->positions ? cfg->family->position_rows : 1;
    if (!cfg->family->positions) {
        for (size_t i = 0; i < n; i++)
            positions[i] = (int32_t)i;
        return TS_OK;
    }
    return cfg->family->positions(cfg, ids, n, images, n_images, positions, delta, err);
}

void ts_mm_inputs_free(ts_mm_inputs *in)
{
    if (!in) return;
    free(in->embeddings), free(in->positions);
    /* The payload's arrays are this struct's own (ts_deepstack declares them const for the
     * prefill, which only reads them); layer_indices is the model's. */
    free((void *)in->deepstack.visual_positions), free((void *)in->deepstack.layer_features);
    free((void *)in->attention.bias);
    memset(in, 0, sizeof(*in));
}

ts_side_inputs ts_mm_inputs_side(const ts_mm_inputs *in)
{
    return (ts_side_inputs){in->side_kind,
                            in->side_kind == TS_SIDE_DEEPSTACK ? &in->deepstack : NULL,
                            in->side_kind == TS_SIDE_ATTENTION_BIAS ? &in->attention : NULL};
}

/* The prompt's [n][n] additive mask as transformers' create_causal_mask builds it: causal, OR'd with
 * token_type_ids_mask_function — query and key in the same image group, a group being one run
 * of consecutive image tokens (image_group_ids: a new group starts where an image token follows
 * a text token). A run longer than the sliding window is refused: local layers add the window
 * to this bias (an AND), which equals the reference's OR only while every run fits in it. */
static ts_status image_block_bias(const ts_model *m, const int32_t *ids, size_t n,
                                  int32_t image_token, ts_attention_bias *out, ts_error *err)
{
    int64_t window = ts_model_sliding_window(m);
    for (size_t i = 0, run = 0; i < n; i++) {
        run = ids[i] == image_token ? run + 1 : 0;
        if (window > 0 && (int64_t)run > window)
            return ts_error_set(err, TS_ERR_UNSUPPORTED,
                                "%s: an image of more than %lld tokens (ending at prompt row %zu) "
                                "is longer than sliding_window %lld: its bidirectional block "
                                "would be cut by the window",
                                ts_family_name(ts_model_get_config(m)->family), (long long)window,
                                i, (long long)window);
    }
    float *bias = malloc(sizeof(float) * n * n); /* n ≥ 1: checked above */
    if (!bias)
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY,
                            "prefill: out of memory for a %zu × %zu attention bias", n, n);
    /* Row q sees keys 0 … end−1: itself and everything before (causal; the earlier rows of its
     * own run are among them), and for an image token the rest of its run. */
    size_t run_end = 0; /* the end of the image run row q is in (found once per run) */
    for (size_t q = 0; q < n; q++) {
        if (ids[q] == image_token && run_end <= q)
            for (run_end = q + 1; run_end < n && ids[run_end] == image_token;)
                run_end++;
        size_t end = ids[q] == image_token ? run_end : q + 1;
        for (size_t k = 0; k < n; k++)
            bias[q * n + k] = k < end ? 0.0f : -INFINITY;
    }
    *out = (ts_attention_bias){bias, {1, 1, (int64_t)n, (int64_t)n}};
    return TS_OK;
}

/* The media's rows and levels against the prompt and the model. */
static ts_status check_media(const ts_model *m, const ts_encoded_media *media, int64_t image_tokens,
                             ts_side_kind side, int n_layers, ts_error *err)
{
    const ts_model_config *cfg = ts_model_get_config(m);
    int64_t rows = media ? media->n_rows : 0;
    if (image_tokens != rows)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "prefill: the prompt has %lld image tokens, the images make %lld",
                            (long long)image_tokens, (long long)rows);
    if (!rows) return TS_OK;
    if (!media->rows || media->hidden != cfg->text.hidden_size)
        return ts_error_set(
            err, TS_ERR_INVALID_ARGUMENT,
            "prefill: the image rows are %lld wide, the model's hidden size is %lld",
            (long long)(media->rows ? media->hidden : 0), (long long)cfg->text.hidden_size);
    int levels = media->deepstack ? media->deepstack_levels : 0;
    /* Main rows without the side features the model adds after its first layers would make a
     * wrong prefill, not a refused one: refuse them here. */
    if (side == TS_SIDE_DEEPSTACK && levels != n_layers)
        return ts_error_set(
            err, TS_ERR_UNSUPPORTED,
            "%s: the image rows carry %d DeepStack levels, the model's DeepStack takes %d",
            ts_family_name(cfg->family), levels, n_layers);
    if (side != TS_SIDE_DEEPSTACK && levels)
        return ts_error_set(
            err, TS_ERR_INVALID_ARGUMENT,
            "%s: the image rows carry %d DeepStack levels, the model has no DeepStack",
            ts_family_name(cfg->family), levels);
    return TS_OK;
}

/* The audio rows against the prompt's audio tokens (beside images too: the clips were then
 * encoded for a prompt with images, ts_model_encode_audio_for). */
static ts_status check_audio(const ts_model *m, const ts_encoded_media *media, int64_t audio_tokens,
                             ts_error *err)
{
    const ts_model_config *cfg = ts_model_get_config(m);
    int64_t rows = media ? media->n_audio_rows : 0;
    if (rows && !ts_family_audio_path(cfg))
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: this model does not accept audio input",
                            ts_family_name(cfg->family));
    if (audio_tokens != rows)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "prefill: the prompt has %lld audio tokens, the clips make %lld",
                            (long long)audio_tokens, (long long)rows);
    if (rows && (!media->audio_rows || media->hidden != cfg->text.hidden_size))
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "prefill: the audio rows are %lld wide, the model's hidden size is %lld",
                            (long long)media->hidden, (long long)cfg->text.hidden_size);
    return TS_OK;
}

ts_status ts_mm_inputs_build(const ts_model *m, const int32_t *ids, size_t n,
                             const ts_pixel_values *images, int n_images,
                             const ts_encoded_media *media, ts_mm_inputs *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    const ts_model_config *cfg = ts_model_get_config(m);
    /* An image path needs every stage (the one predicate), not only a tower. */
    bool tower = ts_model_vision(m) != NULL && ts_vision_has_image_prefill(cfg);
    if (!tower && (n_images > 0 || (media && media->n_rows > 0)))
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: images are not supported for this model",
                            ts_family_name(cfg->family));
    if (n == 0 || !ids) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "prefill: no tokens");
    if (n_images < 0 || n_images > TS_MAX_IMAGES)
        return ts_error_set(err, TS_ERR_RANGE, "prefill: %d images (1..%d allowed)", n_images,
                            TS_MAX_IMAGES);
    /* A text model has no image token: every id is a token row. Likewise audio. */
    int32_t image_token = tower ? (int32_t)cfg->image_token_id : -1;
    int32_t audio_token = ts_family_audio_path(cfg) ? (int32_t)cfg->audio_token_id : -1;
    int64_t hidden = cfg->text.hidden_size, image_tokens = 0, audio_tokens = 0;
    for (size_t i = 0; i < n; i++)
        image_tokens += ids[i] == image_token, audio_tokens += ids[i] == audio_token;
    const int32_t *layers = NULL;
    int n_layers = 0;
    ts_side_kind side = ts_model_side_inputs(m, &layers, &n_layers);
    ts_status st = check_media(m, media, image_tokens, side, n_layers, err);
    if (st != TS_OK) return st;
    st = check_audio(m, media, audio_tokens, err);
    if (st != TS_OK) return st;
    /* Positions that follow the images' grids need their pixel values, not only their rows. */
    if (cfg->family->positions && image_tokens > 0 && n_images == 0)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "%s: the prompt's image positions need the images' pixel values",
                            ts_family_name(cfg->family));
    out->n = n, out->hidden = hidden, out->side_kind = side;
    out->embeddings = malloc(sizeof(float) * n * (size_t)hidden);
    out->positions = malloc(sizeof(int32_t) * 3 * n);
    int32_t *text_ids = malloc(sizeof(int32_t) * n);
    int levels = side == TS_SIDE_DEEPSTACK ? n_layers : 0;
    int32_t *visual =
        levels && image_tokens ? malloc(sizeof(int32_t) * (size_t)image_tokens) : NULL;
    float *features = levels && image_tokens
                          ? malloc(sizeof(float) * (size_t)(levels * image_tokens * hidden))
                          : NULL;
    out->deepstack =
        (ts_deepstack){visual, levels ? image_tokens : 0, features, levels ? layers : NULL, levels};
    if (!out->embeddings || !out->positions || !text_ids ||
        (levels && image_tokens && (!visual || !features)))
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "prefill: out of memory for %zu rows", n);
    /* Token embeddings with the image rows in place, in prompt order (the image token's own
     * embedding row is never read: it is replaced). */
    for (size_t i = 0; st == TS_OK && i < n; i++)
        text_ids[i] = ids[i] == image_token || ids[i] == audio_token ? 0 : ids[i];
    if (st == TS_OK) st = ts_model_embed_tokens(m, text_ids, n, out->embeddings, err);
    for (size_t i = 0, a = 0; st == TS_OK && audio_tokens && i < n; i++)
        if (ids[i] == audio_token)
            memcpy(out->embeddings + i * (size_t)hidden, media->audio_rows + (a++) * (size_t)hidden,
                   sizeof(float) * (size_t)hidden);
    int64_t next = 0;
    for (size_t i = 0; st == TS_OK && i < n; i++) {
        if (ids[i] != image_token) continue;
        memcpy(out->embeddings + i * (size_t)hidden, media->rows + next * hidden,
               sizeof(float) * (size_t)hidden);
        if (visual) visual[next] = (int32_t)i; /* payload row r: the r-th image token */
        next++;
    }
    if (st == TS_OK && features)
        memcpy(features, media->deepstack,
               sizeof(float) * (size_t)(levels * image_tokens * hidden));
    if (st == TS_OK)
        st = rotary_positions(m, ids, n, images, n_images, out->positions, &out->position_rows,
                              &out->rope_delta, err);
    /* Without image tokens the bias would be the causal mask the plain prefill applies anyway:
     * no n² payload for a text prompt. */
    if (side == TS_SIDE_ATTENTION_BIAS && image_tokens == 0) out->side_kind = TS_SIDE_NONE;
    if (st == TS_OK && out->side_kind == TS_SIDE_ATTENTION_BIAS)
        st = image_block_bias(m, ids, n, image_token, &out->attention, err);
    free(text_ids);
    if (st != TS_OK) ts_mm_inputs_free(out);
    return st;
}

/* What a chunk's [count, count] block leaves out must be what the prefill assumes of it: the
 * rows before the chunk visible to the chunk's rows (0), the rows after hidden (−inf), and the
 * chunk hidden from the rows before (which ran earlier). A finite entry after, or one before the
 * chunk that is not 0, means the cut falls inside an image block. */
static ts_status check_bias_cut(const float *bias, size_t n, size_t at, size_t count, ts_error *err)
{
    /* Rows before the chunk against the chunk's keys only: later keys are the later chunks'
     * to check, so the chunks of one prompt scan O(n²) in all. */
    for (size_t q = 0; q < at + count; q++)
        for (size_t k = q < at ? at : 0; k < (q < at ? at + count : n); k++) {
            float v = bias[q * n + k];
            bool ok = q < at || k >= at + count ? v == -INFINITY : k >= at || v == 0.0f;
            if (!ok)
                return ts_error_set(err, TS_ERR_UNSUPPORTED,
                                    "prefill: a chunk of rows %zu..%zu cuts the attention bias "
                                    "(row %zu sees row %zu across the chunk's edge: an image "
                                    "block split between chunks)",
                                    at, at + count - 1, q, k);
        }
    return TS_OK;
}

/* Row e−1 seeing row e (a later row) means an edge at e falls inside a block. */
static bool cuts_block(const ts_mm_inputs *in, size_t e)
{
    return e > 0 && e < in->n && in->attention.bias[(e - 1) * in->n + e] != -INFINITY;
}

size_t ts_mm_inputs_chunk(const ts_mm_inputs *in, size_t at, size_t max)
{
    if (at >= in->n || max == 0) return 0;
    size_t end = at + (max < in->n - at ? max : in->n - at);
    if (in->side_kind != TS_SIDE_ATTENTION_BIAS || !in->attention.bias) return end - at;
    size_t back = end;
    while (back > at && cuts_block(in, back))
        back--;
    if (back > at) return back - at;
    /* The block starting at `at` is longer than max: take it whole. */
    while (cuts_block(in, end))
        end++;
    return end - at;
}

ts_status ts_mm_inputs_slice(const ts_mm_inputs *in, size_t at, size_t count, ts_mm_inputs *out,
                             ts_error *err)
{
    memset(out, 0, sizeof(*out));
    if (count == 0 || at > in->n || count > in->n - at)
        return ts_error_set(err, TS_ERR_RANGE,
                            "prefill: rows %zu..%zu are outside the prompt's %zu", at,
                            at + count - 1, in->n);
    const ts_deepstack *ds = &in->deepstack;
    size_t hidden = (size_t)in->hidden, rows = (size_t)in->position_rows;
    /* The payload rows whose image tokens fall inside the slice (visual positions ascend). */
    int64_t first = 0, nv = 0;
    while (first < ds->n_visual && ds->visual_positions[first] < (int64_t)at)
        first++;
    while (first + nv < ds->n_visual && ds->visual_positions[first + nv] < (int64_t)(at + count))
        nv++;
    int levels = ds->n_layers;
    const float *bias = in->side_kind == TS_SIDE_ATTENTION_BIAS ? in->attention.bias : NULL;
    ts_status st = bias ? check_bias_cut(bias, in->n, at, count, err) : TS_OK;
    if (st != TS_OK) return st;
    *out = (ts_mm_inputs){.n = count,
                          .hidden = in->hidden,
                          .position_rows = in->position_rows,
                          .rope_delta = in->rope_delta,
                          .side_kind = in->side_kind};
    out->embeddings = malloc(sizeof(float) * count * hidden);
    out->positions = malloc(sizeof(int32_t) * rows * count);
    int32_t *visual = nv ? malloc(sizeof(int32_t) * (size_t)nv) : NULL;
    float *features =
        nv && levels ? malloc(sizeof(float) * (size_t)levels * (size_t)nv * hidden) : NULL;
    out->deepstack = (ts_deepstack){visual, nv, features, ds->layer_indices, levels};
    float *block = bias ? malloc(sizeof(float) * count * count) : NULL;
    out->attention = (ts_attention_bias){block, {1, 1, (int64_t)count, (int64_t)count}};
    if (!bias) out->attention = (ts_attention_bias){0};
    if (!out->embeddings || !out->positions || (nv && !visual) || (nv && levels && !features) ||
        (bias && !block)) {
        ts_mm_inputs_free(out);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "prefill: out of memory for %zu rows",
                            count);
    }
    memcpy(out->embeddings, in->embeddings + at * hidden, sizeof(float) * count * hidden);
    for (size_t r = 0; r < rows; r++)
        memcpy(out->positions + r * count, in->positions + r * in->n + at, sizeof(int32_t) * count);
    /* Positions count rows of the call that takes them: relative to the slice's first row. */
    for (int64_t v = 0; v < nv; v++)
        visual[v] = ds->visual_positions[first + v] - (int32_t)at;
    for (int k = 0; k < levels && nv; k++)
        memcpy(features + (size_t)k * (size_t)nv * hidden,
               ds->layer_features + ((size_t)k * (size_t)ds->n_visual + (size_t)first) * hidden,
               sizeof(float) * (size_t)nv * hidden);
    for (size_t q = 0; block && q < count; q++)
        memcpy(block + q * count, bias + (at + q) * in->n + at, sizeof(float) * count);
    return TS_OK;
}
