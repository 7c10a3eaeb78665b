/* media.c — the media stage: from a request's image or audio bytes to the embeddings its prompt
 * is prefilled with.
 *
 * Decoding, preprocessing, expanding and tokenizing happen on the request's own worker thread
 * (exchange.c), after srv_media_cost has read every image's declared size from its header and
 * held it against the request's pixel budget (--max-request-pixels), and in the order the decode
 * gate (decode_gate.h) gives: cheapest first, small requests in a lane of their own. A failure
 * there is that request's 400 alone, before it is queued.
 *
 * The encoding thread, on a context of its own so the scheduler keeps decoding, takes every
 * waiting image request (up to MEDIA_BATCH) and encodes their images in one tower call — the
 * tower's attention is block-diagonal per image, so batching changes an image's rows by f32
 * rounding at most (image_encoder_test measures it). Each request's rows (every level's) are cut
 * out of the batch and assembled with its prompt by ts_mm_inputs_build, as every prefill path
 * assembles an image prompt. If the batched call fails, each request is encoded alone, so one bad
 * request cannot fail the others. Pixels and tower rows are freed as soon as the inputs are built.
 *
 * Audio requests (their clips' headers validated at parse, their duration held to the limits
 * there) are encoded on the same thread and context, one request at a time: its images first
 * when it has them (their placeholders expanded by srv_media_prepare, the prompt not yet
 * tokenized), then each clip decoded, resampled to the model's rate, turned into features and
 * encoded for the request's inputs (ts_model_encode_audio_for: Phi-4-multimodal projects a clip
 * beside an image with its vision_speech pair), the cancel flag checked between clips; then the
 * placeholders expanded to each clip's token count, the prompt tokenized and admitted by its
 * tokens, and its inputs built by ts_mm_inputs_build.
 */
#include "server/server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEDIA_BATCH 8

static int status_of(ts_status st) { return st == TS_ERR_OUT_OF_MEMORY || st == TS_ERR_INTERNAL ? 500 : 400; }

static void drop(srv_server *s, srv_job *job)
{
    pthread_mutex_lock(&s->mu);
    s->admitted--;
    srv_metrics_set_queue(s->metrics, s->admitted);
    pthread_mutex_unlock(&s->mu);
    srv_job_release(job);
}

/* The per-image budget: the request's mm_processor_kwargs within the server's --image-max-tokens. */
static int budget_for(srv_server *s, const srv_job *job, ts_image_budget *budget, bool *given, srv_error *err)
{
    const ts_image_budget *asked = &job->req.budget;
    *budget = (ts_image_budget){s->pre.min_pixels, s->pre.max_pixels};
    *given = asked->min_pixels || asked->max_pixels || s->opt.image_max_tokens;
    int64_t side = s->pre.patch_size * s->pre.merge_size;
    if (*given && side < 1) {
        if (asked->min_pixels || asked->max_pixels)
            return srv_fail(err, 400, "mm_processor_kwargs", "this model's images have a fixed size: max_pixels/min_pixels do not apply");
        *given = false;
        return 0;
    }
    int64_t cap = s->opt.image_max_tokens ? s->opt.image_max_tokens * side * side : 0;
    if (asked->max_pixels) budget->max_pixels = asked->max_pixels;
    if (asked->min_pixels) budget->min_pixels = asked->min_pixels;
    if (cap && asked->max_pixels > cap)
        return srv_fail(err, 400, "mm_processor_kwargs.max_pixels",
                        "max_pixels %lld is over this server's image budget of %lld pixels (%lld tokens per image)",
                        (long long)asked->max_pixels, (long long)cap, (long long)s->opt.image_max_tokens);
    if (cap && asked->min_pixels > cap)
        return srv_fail(err, 400, "mm_processor_kwargs.min_pixels",
                        "min_pixels %lld is over this server's image budget of %lld pixels (%lld tokens per image)",
                        (long long)asked->min_pixels, (long long)cap, (long long)s->opt.image_max_tokens);
    if (cap && budget->max_pixels > cap) budget->max_pixels = cap;
    if (budget->min_pixels > budget->max_pixels) {
        if (asked->min_pixels)
            return srv_fail(err, 400, "mm_processor_kwargs.min_pixels", "min_pixels %lld is above max_pixels %lld",
                            (long long)budget->min_pixels, (long long)budget->max_pixels);
        budget->min_pixels = budget->max_pixels;
    }
    return 0;
}

int srv_media_cost(srv_server *s, const srv_job *job, int64_t *pixels, srv_error *err)
{
    const srv_request *r = &job->req;
    *pixels = 0;
    for (int i = 0; i < r->n_images; i++) {
        int64_t w, h;
        ts_error e = {0};
        ts_status st = ts_image_probe(r->images[i].bytes, r->images[i].len, &w, &h, &e);
        if (st != TS_OK) return srv_fail(err, status_of(st), r->images[i].where, "%s: the image cannot be decoded: %s", r->images[i].where, e.message);
        if (w <= 0 || h <= 0 || w > (1 << 30) / h + 1) w = h = 1 << 20; /* absurd: over any budget below */
        *pixels += w * h;
        if (*pixels > s->opt.max_request_pixels)
            return srv_fail(err, 400, r->images[i].where,
                            "%s: the images declare %lld pixels up to here (this one %lld x %lld), over this server's %lld per request "
                            "(--max-request-pixels); nothing was decoded",
                            r->images[i].where, (long long)*pixels, (long long)w, (long long)h, (long long)s->opt.max_request_pixels);
    }
    return 0;
}

int srv_media_prepare(srv_server *s, srv_job *job, srv_error *err)
{
    const srv_request *r = &job->req;
    ts_image_budget budget;
    bool budgeted;
    if (budget_for(s, job, &budget, &budgeted, err)) return -1;
    job->pixels = calloc((size_t)r->n_images, sizeof(*job->pixels));
    if (!job->pixels) return srv_fail(err, 500, "", "out of memory");
    job->n_pixels = r->n_images;
    const ts_model_config *cfg = ts_model_get_config(s->model);
    int64_t counts[SRV_MAX_IMAGES];
    /* What keys the images' rows in the prefix cache (the engine's: a bundle has none), taken
     * here, off the scheduler's thread. */
    bool digests = s->opt.prefix_cache_bytes && !s->bundle_slots;
    job->media = digests ? calloc((size_t)r->n_images, sizeof(*job->media)) : NULL;
    if (digests && !job->media && r->n_images) return srv_fail(err, 500, "", "out of memory");
    job->n_media = job->media ? r->n_images : 0;
    for (int i = 0; i < r->n_images; i++) {
        ts_image img;
        ts_error e = {0};
        ts_status st = ts_image_decode(r->images[i].bytes, r->images[i].len, NULL, &img, &e);
        if (st != TS_OK) return srv_fail(err, status_of(st), r->images[i].where, "%s: the image cannot be decoded: %s", r->images[i].where, e.message);
        st = ts_preprocess_image(&s->pre, cfg->family, img.rgb, img.width, img.height, budgeted ? &budget : NULL, &job->pixels[i], &e);
        ts_image_free(&img);
        if (st != TS_OK) return srv_fail(err, status_of(st), r->images[i].where, "%s: %s", r->images[i].where, e.message);
        counts[i] = ts_model_image_tokens(s->model, &job->pixels[i]);
        if (job->media) {
            ts_pixel_values_digest(&job->pixels[i], job->media[i].digest);
            job->media[i].rows = counts[i];
        }
        if (s->opt.image_max_tokens && counts[i] > s->opt.image_max_tokens)
            return srv_fail(err, 400, r->images[i].where, "%s: the image needs %lld tokens, over this server's %lld per image",
                            r->images[i].where, (long long)counts[i], (long long)s->opt.image_max_tokens);
    }
    char *expanded = NULL;
    size_t len = 0;
    ts_error e = {0};
    if (ts_prompt_expand_images(cfg, s->tok, job->prompt_text, strlen(job->prompt_text), counts, r->n_images, &expanded, &len, &e) != TS_OK)
        return srv_fail(err, 400, "messages", "%s", e.message);
    if (r->n_audio) { /* the clips' placeholders are expanded, and the prompt tokenized, once they are encoded */
        free(job->prompt_text);
        job->prompt_text = expanded;
        return 0;
    }
    ts_status st = ts_tokenizer_encode_chat(s->tok, expanded, len, &job->ids, &job->n_ids, &e);
    free(expanded);
    if (st != TS_OK) return srv_fail(err, 400, "messages", "cannot tokenize the prompt: %s", e.message);
    return srv_admit_tokens(s, job, err);
}

/* Tower rows for the images of jobs[0..n) in one call; then each job's inputs from its share of
 * the rows (ts_encoded_media_slice: its rows of every level) through ts_mm_inputs_build. */
static ts_status encode(srv_server *s, srv_job **jobs, int n, ts_error *e)
{
    int n_all = 0;
    for (int j = 0; j < n; j++) n_all += jobs[j]->n_pixels;
    ts_pixel_values *all = malloc(sizeof(*all) * (size_t)n_all);
    if (!all) return TS_ERR_OUT_OF_MEMORY;
    for (int j = 0, k = 0; j < n; j++)
        for (int i = 0; i < jobs[j]->n_pixels; i++) all[k++] = jobs[j]->pixels[i];
    ts_encoded_media media;
    ts_status st = srv_encode_images(s, all, n_all, &media, e);
    free(all);
    int64_t at = 0;
    for (int j = 0; st == TS_OK && j < n; j++) {
        srv_job *job = jobs[j];
        int64_t mine = 0;
        for (int i = 0; i < job->n_pixels; i++) mine += ts_model_image_tokens(s->model, &job->pixels[i]);
        ts_encoded_media own;
        st = ts_encoded_media_slice(&media, at, mine, &own, e);
        if (st == TS_OK)
            st = ts_mm_inputs_build(s->model, job->ids, job->n_ids, job->pixels, job->n_pixels,
                                    &own, &job->mm, e);
        ts_encoded_media_free(&own);
        at += mine;
    }
    ts_encoded_media_free(&media);
    return st;
}

/* One audio request through the stage (see the top), its images too when it has them (their
 * placeholders already expanded by srv_media_prepare); 0, or -1 with *err (its clip named). */
static int encode_audio(srv_server *s, srv_job *job, srv_error *err)
{
    const srv_request *r = &job->req;
    ts_encoded_media all = {0};
    int64_t counts[SRV_MAX_AUDIO];
    int rc = 0;
    /* The images' rows first (the request's own encode), and the clips then encoded for a
     * prompt with images (Phi-4-multimodal: the vision_speech projector). */
    unsigned modalities = TS_MODALITY_AUDIO | (job->n_pixels ? TS_MODALITY_IMAGE : 0u);
    if (job->n_pixels) {
        ts_error e = {0};
        ts_status st = srv_encode_images(s, job->pixels, job->n_pixels, &all, &e);
        if (st != TS_OK) rc = srv_fail(err, status_of(st), "", "the images cannot be encoded: %s", e.message);
    }
    /* The cancel flag between clips and after the last: a client gone is not encoded for further. */
    for (int i = 0; !rc && i <= r->n_audio; i++) {
        if (atomic_load(&job->cancelled)) {
            rc = srv_fail(err, 499, "", "the client closed the connection");
        } else if (i < r->n_audio) {
            ts_error e = {0};
            int64_t before = all.n_audio_rows;
            ts_status st = ts_model_encode_audio_for(s->model, s->media_ctx, r->audio[i].bytes, r->audio[i].len, &s->limits.audio,
                                                     modalities, &all, &e);
            if (st != TS_OK)
                rc = srv_fail(err, status_of(st), r->audio[i].where, "%s: the audio cannot be encoded: %s", r->audio[i].where, e.message);
            counts[i] = all.n_audio_rows - before;
        }
    }
    const ts_model_config *cfg = ts_model_get_config(s->model);
    char *expanded = NULL;
    size_t len = 0;
    ts_error e = {0};
    if (!rc && ts_prompt_expand_audio(cfg, s->tok, job->prompt_text, strlen(job->prompt_text), counts, r->n_audio, &expanded, &len, &e) != TS_OK)
        rc = srv_fail(err, 400, "messages", "%s", e.message);
    if (!rc && ts_tokenizer_encode_chat(s->tok, expanded, len, &job->ids, &job->n_ids, &e) != TS_OK)
        rc = srv_fail(err, 400, "messages", "cannot tokenize the prompt: %s", e.message);
    free(expanded);
    if (!rc) rc = srv_admit_tokens(s, job, err);
    ts_status st = TS_OK;
    if (!rc && (st = ts_mm_inputs_build(s->model, job->ids, job->n_ids, job->pixels, job->n_pixels, &all, &job->mm, &e)) != TS_OK)
        rc = srv_fail(err, status_of(st), "messages", "%s", e.message);
    ts_encoded_media_free(&all);
    return rc;
}

static void to_scheduler(srv_server *s, srv_job *job)
{
    for (int i = 0; i < job->n_pixels; i++) ts_pixel_values_free(&job->pixels[i]);
    pthread_mutex_lock(&s->mu);
    bool queued = !s->stopping && srv_queue_push(&s->ready_q, job);
    if (queued) pthread_cond_signal(&s->sched_cv);
    pthread_mutex_unlock(&s->mu);
    if (!queued) {
        srv_job_fail(job, 503, "", "the server is shutting down");
        drop(s, job);
    }
}

void *srv_media_main(void *arg)
{
    srv_server *s = arg;
    for (;;) {
        srv_job *jobs[MEDIA_BATCH];
        int n = 0;
        pthread_mutex_lock(&s->mu);
        while (!s->stopping && !s->media_q.count) pthread_cond_wait(&s->media_cv, &s->mu);
        if (s->stopping) {
            pthread_mutex_unlock(&s->mu);
            return NULL;
        }
        while (n < MEDIA_BATCH && s->media_q.count) jobs[n++] = srv_queue_pop(&s->media_q);
        pthread_mutex_unlock(&s->mu);
        int kept = 0;
        for (int j = 0; j < n; j++) {
            srv_error aerr = {0};
            if (atomic_load(&jobs[j]->cancelled)) {
                srv_job_fail(jobs[j], 499, "", "the client closed the connection");
                drop(s, jobs[j]);
            } else if (!jobs[j]->req.n_audio) {
                jobs[kept++] = jobs[j];
            } else if (encode_audio(s, jobs[j], &aerr)) {
                srv_job_fail(jobs[j], aerr.status, aerr.param, "%s", aerr.message);
                drop(s, jobs[j]);
            } else {
                to_scheduler(s, jobs[j]);
            }
        }
        if (!kept) continue;
        ts_error e = {0};
        if (kept && encode(s, jobs, kept, &e) == TS_OK) {
            for (int j = 0; j < kept; j++) to_scheduler(s, jobs[j]);
            continue;
        }
        for (int j = 0; j < kept; j++) { /* alone, so one request's failure stays its own */
            srv_job_drop_encoded(jobs[j]);
            ts_error one = {0};
            if (kept > 1 && encode(s, &jobs[j], 1, &one) == TS_OK) {
                to_scheduler(s, jobs[j]);
            } else {
                srv_job_fail(jobs[j], status_of(kept > 1 ? one.status : e.status), "", "the images cannot be encoded: %s",
                             kept > 1 ? one.message : e.message);
                drop(s, jobs[j]);
            }
        }
    }
}
