/* server.c — the server's life: loading the model once, starting the stages, admission into the
 * queue, the prompt of a request, and an orderly stop. See server.h for the stages. */
#include "server/server.h"
#include "base/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void ts_server_options_default(srv_options *o)
{
    memset(o, 0, sizeof(*o));
    o->host = "127.0.0.1";
    o->port = 8080;
    o->slots = 0; /* 4, or a bundle's */
    o->max_request_bytes = (size_t)32 << 20;
    o->max_images = 8;
    o->queue = 64;
    o->prefill_chunk = 256;
    o->draft_tokens = 3;
    o->batch_tokens = 512;
    o->encoder_cache_bytes = (size_t)256 << 20;
    o->prefix_cache_bytes = (size_t)1 << 30;
    o->max_connections = 1024;
    o->max_connections_per_ip = 128;
    o->header_timeout_s = 10;
    o->body_timeout_s = 60;
    o->idle_timeout_s = 30;
    o->prepare_threads = 2;
    o->max_request_pixels = (int64_t)80 * 1000 * 1000;
    o->max_audio = 8;
    o->max_audio_seconds = TS_AUDIO_DEFAULT_MAX_SECONDS;
    o->max_request_audio_seconds = 2 * TS_AUDIO_DEFAULT_MAX_SECONDS;
    o->log_level = TS_LOG_WARN;
}

bool srv_accepts_images(const srv_server *s)
{
    return (s->encoder || s->media_bundle) && (ts_model_supported_modalities(ts_model_get_config(s->model)) & TS_MODALITY_IMAGE);
}

bool srv_accepts_audio(const srv_server *s)
{
    /* The media stage encodes audio with the engine's model: a bundle's slots have no audio path. */
    return !s->bundle && (ts_model_supported_modalities(ts_model_get_config(s->model)) & TS_MODALITY_AUDIO);
}

ts_status srv_encode_images(srv_server *s, const ts_pixel_values *images, int n,
                            ts_encoded_media *out, ts_error *err)
{
    if (s->media_bundle) return ts_bundle_encode_images(s->media_bundle, images, n, out, err);
    ts_status st = ts_image_encoder_encode(s->encoder, images, n, out, err);
    int64_t hits, misses;
    ts_image_encoder_cache_stats(s->encoder, &hits, &misses);
    srv_metrics_encoder_cache(s->metrics, hits, misses);
    return st;
}

/* ------------------------------------------------------------------ queues */

bool srv_queue_push(srv_queue *q, srv_job *job)
{
    if (q->count == q->cap) {
        int cap = q->cap ? q->cap * 2 : 16;
        srv_job **items = malloc(sizeof(*items) * (size_t)cap);
        if (!items) return false;
        for (int i = 0; i < q->count; i++) items[i] = q->items[(q->head + i) % q->cap];
        free(q->items);
        q->items = items, q->cap = cap, q->head = 0;
    }
    q->items[(q->head + q->count++) % q->cap] = job;
    return true;
}

srv_job *srv_queue_pop(srv_queue *q)
{
    if (!q->count) return NULL;
    srv_job *job = q->items[q->head];
    q->head = (q->head + 1) % q->cap;
    q->count--;
    return job;
}


int srv_reserve(srv_server *s, srv_error *err)
{
    pthread_mutex_lock(&s->mu);
    int rc = 0;
    if (s->stopping) rc = srv_fail(err, 503, "", "the server is shutting down");
    else if (s->admitted + s->reserved >= s->opt.queue)
        rc = srv_fail(err, 429, "", "the server is busy: %d requests are waiting for a slot (--queue %d); retry later",
                      s->admitted + s->reserved, s->opt.queue);
    else s->reserved++;
    pthread_mutex_unlock(&s->mu);
    return rc;
}

void srv_unreserve(srv_server *s)
{
    pthread_mutex_lock(&s->mu);
    s->reserved--;
    pthread_mutex_unlock(&s->mu);
}

void srv_prepare_begin(srv_server *s)
{
    pthread_mutex_lock(&s->mu);
    while (s->preparing >= s->opt.prepare_threads) pthread_cond_wait(&s->prepare_cv, &s->mu);
    s->preparing++;
    pthread_mutex_unlock(&s->mu);
}

void srv_prepare_end(srv_server *s)
{
    pthread_mutex_lock(&s->mu);
    s->preparing--;
    pthread_cond_signal(&s->prepare_cv);
    pthread_mutex_unlock(&s->mu);
}

void srv_worker_enter(srv_server *s) { atomic_fetch_add(&s->workers, 1); }
void srv_worker_exit(srv_server *s) { atomic_fetch_sub(&s->workers, 1); }

int srv_submit(srv_server *s, srv_job *job, srv_error *err)
{
    pthread_mutex_lock(&s->mu);
    int rc = 0;
    if (s->stopping) {
        rc = srv_fail(err, 503, "", "the server is shutting down");
    } else if (s->admitted >= s->opt.queue) { /* not reached: reserved first */
        rc = srv_fail(err, 429, "", "the server is busy: %d requests are waiting for a slot (--queue %d); retry later", s->admitted,
                      s->opt.queue);
    } else {
        srv_job_retain(job);
        bool media = job->req.n_images || job->req.n_audio;
        srv_queue *q = media ? &s->media_q : &s->ready_q;
        if (!srv_queue_push(q, job)) {
            srv_job_release(job);
            rc = srv_fail(err, 500, "", "out of memory");
        } else {
            s->admitted++;
            srv_metrics_set_queue(s->metrics, s->admitted);
            pthread_cond_signal(media ? &s->media_cv : &s->sched_cv);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* ------------------------------------------------------------------ prompts */

int srv_admit_tokens(const srv_server *s, srv_job *job, srv_error *err)
{
    int64_t n = (int64_t)job->n_ids, room = s->capacity - n + 1; /* the last token is never fed back */
    if (n < 1) return srv_fail(err, 400, "messages", "the prompt is empty after templating");
    if (s->prefill_limit && n > s->prefill_limit)
        return srv_fail(err, 400, "messages", "the prompt has %lld tokens; this server's bundle prefills at most %lld", (long long)n,
                        (long long)s->prefill_limit);
    if (room < 1)
        return srv_fail(err, 400, "messages", "the prompt has %lld tokens; this server's context holds %lld", (long long)n,
                        (long long)s->capacity);
    if (job->req.max_tokens > room)
        return srv_fail(err, 400, "max_tokens",
                        "max_tokens %lld does not fit: the prompt has %lld tokens and the context holds %lld, so at most %lld can be "
                        "generated",
                        (long long)job->req.max_tokens, (long long)n, (long long)s->capacity, (long long)room);
    job->max_tokens = job->req.max_tokens ? job->req.max_tokens : room;
    return 0;
}

/* Keeps only the last component of every path-like word (one holding a '/') in msg: the chat
 * template's errors name the file it came from, and a client must not learn where the server's
 * files are. */
static void redact_paths(char *msg)
{
    char *w = msg;
    for (char *r = msg; *r;) {
        size_t word = strcspn(r, " \t\n'\"(");
        char *slash = NULL;
        for (char *p = r; p < r + word; p++)
            if (*p == '/') slash = p;
        char *from = slash ? slash + 1 : r;
        size_t n = (size_t)(r + word - from);
        memmove(w, from, n);
        w += n, r += word;
        if (*r) *w++ = *r++;
    }
    *w = 0;
}

/* The chat template's variables: the generation prompt, then the request's messages (a JSON array
 * layer stands for {"messages": …}); the template already defines the special tokens it captured
 * from tokenizer_config.json, as apply_chat_template does. */
static int render_chat(srv_server *s, srv_job *job, srv_error *err)
{
    if (!s->tmpl) return srv_fail(err, 400, "messages", "this model has no chat template: use /v1/completions");
    const char *layers[2] = {"{\"add_generation_prompt\":true}", job->req.messages_json};
    ts_error e = {0};
    if (ts_chat_template_render_layers(s->tmpl, layers, 2, &job->prompt_text, &e) != TS_OK) {
        redact_paths(e.message);
        return srv_fail(err, 400, "messages", "the chat template failed on these messages: %s", e.message);
    }
    return 0;
}

/* A prompt too long for the context whatever it tokenizes to, told by its size alone before the
 * template and the tokenizer spend time and memory on it: no token stands for more than
 * max_token_bytes of text, and 24 covers JSON escapes (6 bytes for 1) and normalization. */
static int cheap_size_check(const srv_server *s, const srv_request *r, srv_error *err)
{
    size_t bytes = r->endpoint == SRV_CHAT ? (r->messages_json ? strlen(r->messages_json) : 0) : (r->prompt ? strlen(r->prompt) : 0);
    int64_t at_least = (int64_t)(bytes / (24 * s->max_token_bytes));
    if (at_least <= s->capacity) return 0;
    return srv_fail(err, 400, r->endpoint == SRV_CHAT ? "messages" : "prompt",
                    "the prompt (%zu bytes) has at least %lld tokens; this server's context holds %lld (refused before tokenizing)", bytes,
                    (long long)at_least, (long long)s->capacity);
}

int srv_prepare(srv_server *s, srv_job *job, srv_error *err)
{
    srv_request *r = &job->req;
    if (cheap_size_check(s, r, err)) return -1;
    if (r->n_images && !srv_accepts_images(s))
        return srv_fail(err, 400, r->images[0].where, "this model does not accept images (input modalities: text%s)",
                        srv_accepts_audio(s) ? ", audio" : "");
    /* After the parse has validated every clip: malformed audio is reported as what it is. */
    if (r->n_audio && !srv_accepts_audio(s))
        return srv_fail(err, 400, r->audio[0].where, "%s: this model does not accept audio input (input modalities: text%s)",
                        r->audio[0].where, srv_accepts_images(s) ? ", image" : "");
    if (r->endpoint == SRV_CHAT) {
        if (render_chat(s, job, err)) return -1;
    } else if (!(job->prompt_text = strdup(r->prompt))) {
        return srv_fail(err, 500, "", "out of memory");
    }
    job->n_eos_ids = s->n_eos_ids;
    memcpy(job->eos_ids, s->eos_ids, sizeof(job->eos_ids));
    if (!r->seed_given) r->sampling.seed = job->serial * 0x9E3779B97F4A7C15ull ^ (uint64_t)time(NULL);
    if (r->n_images || r->n_audio) return 0; /* the media stage expands and tokenizes once it knows each image's or clip's token count */
    ts_error e = {0};
    /* Completions: tokenizer(prompt) with its special tokens; chat: the rendered template as the
     * processors encode it (BOS unless the template wrote one). */
    ts_status enc = r->endpoint == SRV_COMPLETIONS
                        ? ts_tokenizer_encode(s->tok, job->prompt_text, strlen(job->prompt_text), true, &job->ids, &job->n_ids, &e)
                        : ts_tokenizer_encode_chat(s->tok, job->prompt_text, strlen(job->prompt_text), &job->ids, &job->n_ids, &e);
    if (enc != TS_OK)
        return srv_fail(err, 400, r->endpoint == SRV_CHAT ? "messages" : "prompt", "cannot tokenize the prompt: %s", e.message);
    return srv_admit_tokens(s, job, err);
}

/* ------------------------------------------------------------------ life */

static const char *folder_name(const char *dir)
{
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') len--;
    size_t start = len;
    while (start > 0 && dir[start - 1] != '/') start--;
    static __thread char name[128];
    snprintf(name, sizeof(name), "%.*s", (int)(len - start), dir + start);
    return name;
}

/* --bundle: the largest bucket's slots run the language model; its vision.main, when it has one,
 * runs the images on a second instance bound to the media stage's context. */
static ts_status open_bundle(srv_server *s, ts_error *err)
{
    const srv_options *o = &s->opt;
    ts_status st = ts_bundle_open(s->ctx, o->bundle_dir, o->model_dir, &s->bundle, err);
    if (st) return st;
    int bucket = ts_bundle_bucket_count(s->bundle) - 1;
    int64_t capacity, prefill, slots;
    ts_bundle_bucket(s->bundle, bucket, &capacity, &prefill, &slots);
    if (o->slots && o->slots != slots)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "--slots %d: the bundle's largest bucket has %lld decode slots (export "
                            "it with --slots %d)",
                            o->slots, (long long)slots, o->slots);
    if (slots > SRV_MAX_SLOTS)
        return ts_error_set(
            err, TS_ERR_RANGE,
            "the bundle's largest bucket has %lld decode slots, more than the %d a server runs",
            (long long)slots, SRV_MAX_SLOTS);
    s->opt.slots = (int)slots, s->capacity = capacity, s->prefill_limit = prefill;
    if ((st = ts_bundle_slots_create(s->bundle, bucket, &s->bundle_slots, err))) return st;
    const int64_t *patches;
    if (ts_bundle_vision_buckets(s->bundle, &patches) > 0) st = ts_bundle_open(s->media_ctx, o->bundle_dir, o->model_dir, &s->media_bundle, err);
    return st;
}

static ts_status load(srv_server *s, ts_error *err)
{
    const srv_options *o = &s->opt;
    if (o->bundle_dir && !o->model_dir)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "--bundle needs the model folder it was exported from (-m)");
    if (o->bundle_dir && o->capacity)
        return ts_error_set(
            err, TS_ERR_INVALID_ARGUMENT,
            "--capacity does not apply to --bundle: the bundle's largest bucket sets it");
    if (o->slots < 0 || o->slots > SRV_MAX_SLOTS)
        return ts_error_set(err, TS_ERR_RANGE, "--slots %d outside 1..%d", o->slots, SRV_MAX_SLOTS);
    if (o->max_images < 0 || o->max_images > SRV_MAX_IMAGES)
        return ts_error_set(err, TS_ERR_RANGE, "--max-images %d outside 0..%d", o->max_images,
                            SRV_MAX_IMAGES);
    if (o->queue < 1) return ts_error_set(err, TS_ERR_RANGE, "--queue must be at least 1");
    if (o->prefill_chunk < 1 || o->batch_tokens < 1)
        return ts_error_set(err, TS_ERR_RANGE, "--%s must be at least 1",
                            o->prefill_chunk < 1 ? "prefill-chunk" : "batch-tokens");
    if (o->prepare_threads < 1)
        return ts_error_set(err, TS_ERR_RANGE, "--prepare-threads must be at least 1");
    if (o->max_request_pixels < 1)
        return ts_error_set(err, TS_ERR_RANGE, "--max-request-pixels must be at least 1");
    if (o->max_audio < 0 || o->max_audio > SRV_MAX_AUDIO)
        return ts_error_set(err, TS_ERR_RANGE, "--max-audio %d outside 0..%d", o->max_audio, SRV_MAX_AUDIO);
    if (!(o->max_audio_seconds > 0) || !(o->max_request_audio_seconds > 0) || o->max_audio_seconds > 1e7 ||
        o->max_request_audio_seconds > 1e7)
        return ts_error_set(err, TS_ERR_RANGE, "--max-audio-seconds and --max-request-audio-seconds must be in (0, 1e7]");
    ts_context_options co = {.n_threads = o->threads, .log_level = o->log_level, .cpu_level = o->cpu_level, .compute = o->compute};
    ts_status st = ts_context_create(&co, &s->ctx, err);
    if (st) return st;
    co.n_threads = o->media_threads ? o->media_threads : o->threads;
    if ((st = ts_context_create(&co, &s->media_ctx, err))) return st;
    const char *text_dir = o->synthetic ? o->tokenizer_dir : o->model_dir;
    if (!text_dir || (o->synthetic && o->model_dir))
        return ts_error_set(
            err, TS_ERR_INVALID_ARGUMENT,
            "serve: give a model folder, or a synthetic preset with a tokenizer folder");
    if (o->quantize && o->bundle_dir)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "serve: --quantize does not apply to a bundle (its modules take the "
                            "checkpoint's weights)");
    ts_model_options mo = {.kv_cache = o->kv_cache, .quantize = o->quantize};
    st = o->synthetic ? ts_model_create_synthetic(s->ctx, o->synthetic, TS_DTYPE_BF16, &s->model, err)
                      : ts_model_load(s->ctx, o->model_dir, &mo, &s->model, err);
    if (!st && o->synthetic && o->quantize) st = ts_model_quantize(s->model, o->quantize, err);
    if (st) return st;
    if ((st = ts_tokenizer_load(text_dir, &s->tok, err))) return st;
    st = ts_chat_template_load(text_dir, NULL, &s->tmpl, err);
    if (st == TS_ERR_NOT_FOUND) st = TS_OK, s->tmpl = NULL;
    if (st) return st;
    const ts_model_config *cfg = ts_model_get_config(s->model);
    ts_generation_config gen;
    bool have_gen = ts_generation_config_load(text_dir, &gen, NULL) == TS_OK;
    s->n_eos_ids = ts_generation_eos_ids(have_gen ? &gen : NULL, cfg, s->eos_ids);
    s->vocab = ts_model_vocab_size(s->model);
    s->max_token_bytes = 1;
    for (int32_t id = 0; id < (int32_t)ts_tokenizer_vocab_size(s->tok); id++) {
        const char *t = ts_tokenizer_id_to_token(s->tok, id); /* byte-level or byte-fallback spelling: ≥ the bytes it stands for */
        size_t n = t ? strlen(t) : 0;
        if (n > s->max_token_bytes) s->max_token_bytes = n;
    }
    int64_t max_pos = cfg->text.max_position_embeddings > 0 ? cfg->text.max_position_embeddings : 4096;
    s->capacity = o->capacity ? o->capacity : (max_pos < 4096 ? max_pos : 4096);
    if (o->bundle_dir && (st = open_bundle(s, err))) return st;
    if (!s->opt.slots) s->opt.slots = 4;
    if (s->opt.draft_tokens < 0 || s->opt.draft_tokens > TS_MAX_DRAFT)
        return ts_error_set(err, TS_ERR_RANGE, "server: draft_tokens %d (0..%d)", s->opt.draft_tokens, TS_MAX_DRAFT);
    bool images = ts_model_supported_modalities(cfg) & TS_MODALITY_IMAGE;
    if (images && (st = ts_preprocessor_config_load(o->model_dir, &s->pre, err))) return st;
    /* A bundle encodes images through its vision.main (a tower with side outputs gives the
     * DeepStack rows too); a DeepStack bundle exported without one falls back to the model's own
     * tower for prefill_embeddings_deepstack.main. */
    int n_deepstack = 0;
    if (o->bundle_dir) ts_bundle_side_inputs(s->bundle, NULL, &n_deepstack);
    bool own_tower = !o->bundle_dir || (!s->media_bundle && n_deepstack > 0);
    if (images && own_tower && (st = ts_image_encoder_create(s->model, s->media_ctx, o->encoder_cache_bytes, &s->encoder, err)))
        return st;
    /* OpenAI's defaults: temperature 1, nothing else. */
    ts_sampling_params_default(&s->defaults);
    s->defaults.temperature = 1.0f;
    s->limits = (srv_limits){.media_root = o->media_root,
                             .max_images = o->max_images,
                             .max_image_bytes = TS_IMAGE_DEFAULT_MAX_BYTES,
                             .max_audio = o->max_audio,
                             .audio = {.max_bytes = TS_AUDIO_DEFAULT_MAX_BYTES, .max_seconds = o->max_audio_seconds},
                             .max_request_audio_seconds = o->max_request_audio_seconds,
                             .max_stop = 16,
                             .vocab_size = s->vocab,
                             .defaults = s->defaults};
    snprintf(s->model_name, sizeof(s->model_name), "%s", o->model_name ? o->model_name : o->synthetic ? o->synthetic : folder_name(o->model_dir));
    return TS_OK;
}

ts_status ts_server_create(const srv_options *options, srv_server **out, ts_error *err)
{
    *out = NULL;
    srv_server *s = calloc(1, sizeof(*s));
    if (!s) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "server: out of memory");
    s->opt = *options;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->media_cv, NULL);
    pthread_cond_init(&s->sched_cv, NULL);
    pthread_cond_init(&s->stop_cv, NULL);
    pthread_cond_init(&s->prepare_cv, NULL);
    srv_decode_gate_init(&s->gate, options->prepare_threads, options->prepare_threads);
    atomic_init(&s->workers, 0);
    atomic_init(&s->serial, 1);
    atomic_init(&s->in_flight, 0);
    ts_status st = load(s, err);
    if (!st && !(s->metrics = srv_metrics_create()))
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "server: out of memory");
    if (!st) srv_metrics_set_slots(s->metrics, 0, s->opt.slots);
    if (!st) {
        s->sched_started = pthread_create(&s->sched_thread, NULL, srv_scheduler_main, s) == 0;
        s->media_started = pthread_create(&s->media_thread, NULL, srv_media_main, s) == 0;
        if (!s->sched_started || !s->media_started)
            st = ts_error_set(err, TS_ERR_INTERNAL, "server: cannot start threads");
    }
    if (!st) st = srv_http_start(s, err);
    if (st) {
        ts_server_destroy(s);
        return st;
    }
    *out = s;
    return TS_OK;
}

int ts_server_port(const srv_server *s) { return s->port; }
int ts_server_slots(const srv_server *s) { return s->opt.slots; }

void ts_server_request_stop(srv_server *s)
{
    pthread_mutex_lock(&s->mu);
    s->stop_requested = true;
    pthread_cond_broadcast(&s->stop_cv);
    pthread_mutex_unlock(&s->mu);
}

void ts_server_wait(srv_server *s)
{
    pthread_mutex_lock(&s->mu);
    while (!s->stop_requested) pthread_cond_wait(&s->stop_cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

static void fail_queue(srv_queue *q)
{
    srv_job *job;
    while ((job = srv_queue_pop(q))) {
        srv_job_fail(job, 503, "", "the server is shutting down");
        srv_job_release(job);
    }
    free(q->items);
    q->items = NULL;
}

void ts_server_destroy(srv_server *s)
{
    if (!s) return;
    srv_http_quiesce(s);
    pthread_mutex_lock(&s->mu);
    s->stopping = true;
    pthread_cond_broadcast(&s->media_cv);
    pthread_cond_broadcast(&s->sched_cv);
    pthread_mutex_unlock(&s->mu);
    if (s->media_started) pthread_join(s->media_thread, NULL);
    if (s->sched_started) pthread_join(s->sched_thread, NULL);
    fail_queue(&s->media_q);
    fail_queue(&s->ready_q);
    srv_http_stop(s); /* every job has ended: the connection threads send what they have */
    ts_image_encoder_destroy(s->encoder);
    ts_bundle_slots_destroy(s->bundle_slots);
    ts_bundle_close(s->media_bundle);
    ts_bundle_close(s->bundle);
    ts_chat_template_destroy(s->tmpl);
    ts_tokenizer_destroy(s->tok);
    ts_model_destroy(s->model);
    ts_context_destroy(s->media_ctx);
    ts_context_destroy(s->ctx);
    srv_metrics_destroy(s->metrics);
    pthread_cond_destroy(&s->stop_cv);
    pthread_cond_destroy(&s->prepare_cv);
    srv_decode_gate_fini(&s->gate);
    pthread_cond_destroy(&s->sched_cv);
    pthread_cond_destroy(&s->media_cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
