/* mm_inputs.c — from (expanded token ids, encoded media) to what a prefill needs, written once.
 *
 *   ids, pixel values (grids), encoded media ─ ts_mm_inputs_build ─→ embeddings f32[n][hidden]
 *                                                                     positions [rows][n], delta
 *                                                                     side inputs (DeepStack)
 *
 * The image tokens' embedding rows are replaced, in prompt order, by the tower's rows; the
 * positions come from rotary_positions, the only place that knows which rule a model's
 * positions follow; a model whose image rows carry side features (Qwen3-VL's DeepStack) gets
 * them as its side-input payload, the image tokens' prompt positions and the levels' rows. The
 * engine, the bundle runtime, the server's media stage and compare all assemble through here, so
 * the prompt a fixture checks is the prompt every path prefills. Slicing (one request out of a
 * batched encode, one prefill chunk out of a prompt) lives here too, beside the layout it cuts.
 */
#include "engine/mm_inputs.h"
#include "base/error.h"
#include "engine/model.h"
#include "engine/vision.h"
#include "models/family.h"

#include <stdlib.h>
#include <string.h>

void ts_encoded_media_free(ts_encoded_media *media)
{
    if (!media) return;
    free(media->rows), free(media->deepstack);
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
    memset(in, 0, sizeof(*in));
}

ts_side_inputs ts_mm_inputs_side(const ts_mm_inputs *in)
{
    return (ts_side_inputs){in->side_kind,
                            in->side_kind == TS_SIDE_DEEPSTACK ? &in->deepstack : NULL};
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
    /* A text model has no image token: every id is a token row. */
    int32_t image_token = tower ? (int32_t)cfg->image_token_id : -1;
    int64_t hidden = cfg->text.hidden_size, image_tokens = 0;
    for (size_t i = 0; i < n; i++)
        image_tokens += ids[i] == image_token;
    const int32_t *layers = NULL;
    int n_layers = 0;
    ts_side_kind side = ts_model_side_inputs(m, &layers, &n_layers);
    ts_status st = check_media(m, media, image_tokens, side, n_layers, err);
    if (st != TS_OK) return st;
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
        text_ids[i] = ids[i] == image_token ? 0 : ids[i];
    if (st == TS_OK) st = ts_model_embed_tokens(m, text_ids, n, out->embeddings, err);
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
    free(text_ids);
    if (st != TS_OK) ts_mm_inputs_free(out);
    return st;
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
    if (!out->embeddings || !out->positions || (nv && !visual) || (nv && levels && !features)) {
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
    return TS_OK;
}
