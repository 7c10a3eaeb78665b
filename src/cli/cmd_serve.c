/* cmd_serve.c — `tessera serve`: the OpenAI-compatible server until SIGINT or SIGTERM.
 *
 * The API key comes from --api-key-file (first line) or TESSERA_API_KEY rather than argv where
 * `ps` shows it (--api-key still works). The soft descriptor limit is raised to what
 * --max-connections needs (up to the hard limit) before the server checks it.
 *
 * The signals are blocked in every thread and taken by one waiter thread with sigwait, which asks
 * the server to stop; the main thread then stops it (queued requests get 503) and exits 0.
 */
#include "cli.h"
#include "commands.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static void usage(void)
{
    printf(
        "usage: tessera serve -m DIR [options]\n"
        "  -m, --model DIR            the model folder (config.json, safetensors, tokenizer)\n"
        "  --host ADDR                IPv4 address to listen on (default 127.0.0.1)\n"
        "  --port N                   TCP port (default 8080; 0 = any free port, printed at "
        "start)\n"
        "  --slots N                  sequences decoded together (default 4; with --bundle, its "
        "own)\n"
        "  --capacity N               tokens per slot, prompt + generated (default min(context, "
        "4096))\n"
        "  --queue N                  requests waiting for a slot (or being prepared) before 429 "
        "(default 64)\n"
        "  --api-key-file FILE        require 'Authorization: Bearer KEY' on /v1/, KEY the file's "
        "first line\n"
        "                             (or the TESSERA_API_KEY environment variable; --api-key KEY "
        "shows it in ps)\n"
        "  --allowed-origins LIST     browser Origins admitted on /v1/ (comma-separated; '*' = "
        "any). Without a\n"
        "                             key on a loopback host, only local Host names and these "
        "Origins (default\n"
        "                             none) are served: web pages cannot drive the server\n"
        "  --max-connections N        open connections at most (default 1024)\n"
        "  --max-connections-per-ip N per client address (default 128; 0 = no limit, e.g. behind a "
        "proxy)\n"
        "  --header-timeout S         seconds to send the request line and headers (default 10)\n"
        "  --body-timeout S           seconds to send the body after the headers (default 60)\n"
        "  --idle-timeout S           a silent connection is closed after S seconds (default 30)\n"
        "  --prepare-threads N        requests parsed, templated and tokenized at once; requests "
        "decoding images\n"
        "                             at once, small images (<= 1 MP a request) in a lane of their "
        "own (default 2)\n"
        "  --max-request-pixels N     pixels a request's images may declare in their headers, in "
        "all (default\n"
        "                             80000000): checked before anything is decoded\n"
        "  --media-root DIR           allow file:// image URLs under DIR (default: refused)\n"
        "  --max-request-bytes N      request body limit (default 33554432)\n"
        "  --max-images N             images per request (default 8)\n"
        "  --image-max-tokens N       tokens per image at most (pixel-budget processors: lowers "
        "max_pixels)\n"
        "  --max-audio N              input_audio clips per request (default 8)\n"
        "  --max-audio-seconds S      seconds a clip's header may declare (default 1800)\n"
        "  --max-request-audio-seconds S  seconds a request's clips may declare in all (default "
        "3600); both\n"
        "                             checked from the headers before anything is decoded (no "
        "model takes\n"
        "                             audio yet: valid clips are then refused with a 400)\n"
        "  --encoder-cache-mb N       image encoder cache (default 256; 0 = off)\n"
        "  --prefix-cache-mb N        KV rows of prompt prefixes reused by later requests, blocks of 16\n"
        "                             tokens, least recently used evicted (default 1024; 0 = off)\n"
        "  --prefill-chunk N          prompt tokens one request prefills per step at most (default 256)\n"
        "  --batch-tokens N           rows per step: every decoding request's token, then prompt chunks\n"
        "                             of as many requests as fit, round robin (default 512; the first\n"
        "                             chunk always runs)\n"
        "  --draft N                  speculative decoding: up to N drafted tokens a slot (0..16,\n"
        "                             default 3; n-gram lookup in prompt and output), verified in\n"
        "                             one step while at most 2 slots decode; a request's\n"
        "                             \"speculative_decoding\": false opts out; with --bundle through\n"
        "                             its decode_k.main (K - 1 drafts at most) if it has one\n"
        "  --no-draft                 the same as --draft 0: plain decoding\n"
        "  --threads N                model threads (default: every core)\n"
        "  --media-threads N          image encoder threads (default: as --threads)\n"
        "  --kv-cache f32|bf16        KV cache element type\n"
        "  --quantize q8|q4           quantize the language model's (and vision tower's) matrices at\n"
        "                             load (as for run)\n"
        "  --cpu LEVEL, --compute f32|bf16|bf16x2|int8|auto   as for run (default auto)\n"
        "  --name NAME                the model id reported by /v1/models (default: the folder "
        "name)\n"
        "  --bundle DIR               run through this StableHLO bundle of the model (tessera "
        "export): its\n"
        "                             largest bucket sets capacity and slots; images need its "
        "vision.main\n"
        "  --synthetic PRESET --tokenizer DIR   a random-weight model of a published shape (bf16), "
        "for\n"
        "                             benchmarks (the presets of tessera bench --synthetic)\n");
}

typedef struct {
    const char *name;
    long long lo, hi;
    long long *into;
} int_flag;

static void *wait_signal(void *arg)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    int sig;
    sigwait(&set, &sig);
    ts_server_request_stop(arg);
    return NULL;
}

int cmd_serve(int argc, char **argv)
{
    ts_server_options o;
    ts_server_options_default(&o);
    long long port = o.port, slots = o.slots, capacity = 0, queue = o.queue, body = (long long)o.max_request_bytes,
              images = o.max_images, image_tokens = 0, cache_mb = (long long)(o.encoder_cache_bytes >> 20),
              prefix_mb = (long long)(o.prefix_cache_bytes >> 20), chunk = o.prefill_chunk, batch = o.batch_tokens,
              threads = 0, media_threads = 0, conns = o.max_connections, per_ip = o.max_connections_per_ip,
              pixels = o.max_request_pixels, draft = o.draft_tokens, audio = o.max_audio, audio_s = (long long)o.max_audio_seconds,
              request_audio_s = (long long)o.max_request_audio_seconds, header_s = o.header_timeout_s, body_s = o.body_timeout_s, idle_s = o.idle_timeout_s, prepare = o.prepare_threads;
    const char *key_file = NULL;
    const int_flag ints[] = {{"--port", 0, 65535, &port},
                             {"--slots", 1, 64, &slots},
                             {"--capacity", 1, 1 << 24, &capacity},
                             {"--queue", 1, 1 << 20, &queue},
                             {"--max-request-bytes", 1024, 1LL << 32, &body},
                             {"--max-images", 0, 64, &images},
                             {"--image-max-tokens", 1, 1 << 24, &image_tokens},
                             {"--encoder-cache-mb", 0, 1 << 20, &cache_mb},
                             {"--prefix-cache-mb", 0, 1 << 24, &prefix_mb},
                             {"--prefill-chunk", 1, 1 << 16, &chunk},
                             {"--draft", 0, TS_MAX_DRAFT, &draft},
                             {"--batch-tokens", 1, 1 << 16, &batch},
                             {"--threads", 1, 1024, &threads},
                             {"--media-threads", 1, 1024, &media_threads},
                             {"--max-connections", 1, 1 << 20, &conns},
                             {"--max-connections-per-ip", 0, 1 << 20, &per_ip},
                             {"--header-timeout", 1, 3600, &header_s},
                             {"--body-timeout", 1, 86400, &body_s},
                             {"--idle-timeout", 1, 86400, &idle_s},
                             {"--prepare-threads", 1, 256, &prepare},
                             {"--max-request-pixels", 1, 1LL << 40, &pixels},
                             {"--max-audio", 0, 64, &audio},
                             {"--max-audio-seconds", 1, 10000000, &audio_s},
                             {"--max-request-audio-seconds", 1, 10000000, &request_audio_s}};
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (ts_cli_is_help(argv[i])) {
            usage();
            return TS_EXIT_OK;
        }
        bool matched = false;
        for (size_t k = 0; k < sizeof(ints) / sizeof(ints[0]) && !matched; k++) {
            if (!ts_cli_match(argc, argv, &i, ints[k].name, &v)) continue;
            matched = true;
            if (!ts_cli_parse_int(v, ints[k].lo, ints[k].hi, ints[k].into))
                return ts_cli_usage_error("serve", "%s needs a whole number in %lld..%lld", ints[k].name, ints[k].lo, ints[k].hi);
        }
        if (matched) continue;
        const char **text = NULL;
        if (ts_cli_match(argc, argv, &i, "--no-draft", NULL)) {
            draft = 0;
            continue;
        }
        if (!strcmp(argv[i], "-m") || ts_cli_match(argc, argv, &i, "--model", &v)) {
            if (!strcmp(argv[i], "-m")) v = i + 1 < argc ? argv[++i] : NULL;
            text = &o.model_dir;
        } else if (ts_cli_match(argc, argv, &i, "--host", &v)) text = &o.host;
        else if (ts_cli_match(argc, argv, &i, "--api-key", &v)) text = &o.api_key;
        else if (ts_cli_match(argc, argv, &i, "--api-key-file", &v)) text = &key_file;
        else if (ts_cli_match(argc, argv, &i, "--allowed-origins", &v)) text = &o.allowed_origins;
        else if (ts_cli_match(argc, argv, &i, "--media-root", &v)) text = &o.media_root;
        else if (ts_cli_match(argc, argv, &i, "--kv-cache", &v)) text = &o.kv_cache;
        else if (ts_cli_match(argc, argv, &i, "--quantize", &v)) text = &o.quantize;
        else if (ts_cli_match(argc, argv, &i, "--cpu", &v)) text = &o.cpu_level;
        else if (ts_cli_match(argc, argv, &i, "--compute", &v)) text = &o.compute;
        else if (ts_cli_match(argc, argv, &i, "--name", &v)) text = &o.model_name;
        else if (ts_cli_match(argc, argv, &i, "--bundle", &v)) text = &o.bundle_dir;
        else if (ts_cli_match(argc, argv, &i, "--synthetic", &v)) text = &o.synthetic;
        else if (ts_cli_match(argc, argv, &i, "--tokenizer", &v)) text = &o.tokenizer_dir;
        else return ts_cli_usage_error("serve", "unknown argument '%s'", argv[i]);
        if (!v || !*v) return ts_cli_usage_error("serve", "%s needs a value", argv[i]);
        *text = v;
    }
    if (!o.model_dir == !o.synthetic) return ts_cli_usage_error("serve", "give -m DIR, or --synthetic PRESET --tokenizer DIR");
    char model_buf[4096];
    if (o.model_dir) {
        const char *given = o.model_dir;
        if (!(o.model_dir = ts_cli_resolve_model("serve", given, model_buf, sizeof(model_buf)))) return TS_EXIT_RUNTIME;
        /* A model found in the Hugging Face cache is served under its id, not its snapshot hash. */
        if (!o.model_name && strcmp(given, o.model_dir) != 0) o.model_name = given;
    }
    if (o.synthetic && !o.tokenizer_dir) return ts_cli_usage_error("serve", "--synthetic needs --tokenizer DIR");
    o.port = (int)port, o.slots = (int)slots, o.capacity = capacity, o.queue = (int)queue, o.max_request_bytes = (size_t)body;
    o.max_images = (int)images, o.image_max_tokens = image_tokens, o.encoder_cache_bytes = (size_t)cache_mb << 20;
    o.prefix_cache_bytes = (size_t)prefix_mb << 20;
    o.prefill_chunk = chunk, o.batch_tokens = batch, o.threads = (int)threads, o.media_threads = (int)media_threads;
    o.max_connections = (int)conns, o.max_connections_per_ip = (int)per_ip, o.header_timeout_s = (int)header_s;
    o.body_timeout_s = (int)body_s, o.idle_timeout_s = (int)idle_s, o.prepare_threads = (int)prepare;
    o.max_request_pixels = pixels;
    /* A bundle verifies drafts through its decode_k.main; one without it decodes plainly. */
    o.draft_tokens = (int)draft;
    o.max_audio = (int)audio, o.max_audio_seconds = (double)audio_s, o.max_request_audio_seconds = (double)request_audio_s;
    char key[512];
    if ((key_file != NULL) + (o.api_key != NULL) > 1) return ts_cli_usage_error("serve", "give --api-key or --api-key-file, not both");
    if (key_file) {
        FILE *f = fopen(key_file, "r");
        if (!f) return ts_cli_usage_error("serve", "--api-key-file %s: cannot read it", key_file);
        bool got = fgets(key, sizeof(key), f) != NULL;
        fclose(f);
        key[got ? strcspn(key, "\r\n") : 0] = 0;
        if (!key[0]) return ts_cli_usage_error("serve", "--api-key-file %s: the first line is empty", key_file);
        o.api_key = key;
    } else if (!o.api_key && getenv("TESSERA_API_KEY") && *getenv("TESSERA_API_KEY")) {
        o.api_key = getenv("TESSERA_API_KEY");
    }
    struct rlimit fds;
    rlim_t want = (rlim_t)o.max_connections + 256;
    if (!getrlimit(RLIMIT_NOFILE, &fds) && fds.rlim_cur < want) {
        fds.rlim_cur = fds.rlim_max == RLIM_INFINITY || fds.rlim_max > want ? want : fds.rlim_max;
        setrlimit(RLIMIT_NOFILE, &fds);
    }

    /* Before any thread starts, so every thread inherits the mask and only the waiter takes them. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    if (!o.compute && !o.bundle_dir) o.compute = "auto"; /* as run: the fast path unless told */
    ts_server *server;
    ts_error err = {0};
    if (ts_server_create(&o, &server, &err) != TS_OK) return ts_cli_fail("serve", &err);
    ts_context *probe; /* the server's own contexts are inside it: one of the same settings, to say
                          the choice */
    ts_context_options po = {
        .n_threads = 1, .log_level = TS_LOG_WARN, .cpu_level = o.cpu_level, .compute = o.compute};
    if (ts_context_create(&po, &probe, &err) == TS_OK) {
        char choice[256];
        fprintf(stderr, "tessera serve: compute %s\n",
                ts_context_compute_summary(probe, choice, sizeof(choice)));
        ts_context_destroy(probe);
    }
    fprintf(stderr, "tessera serve: listening on http://%s:%d (%d slots)\n", o.host, ts_server_port(server), ts_server_slots(server));
    pthread_t waiter;
    if (pthread_create(&waiter, NULL, wait_signal, server) != 0) {
        ts_server_destroy(server);
        return ts_cli_fail("serve", &(ts_error){TS_ERR_INTERNAL, "cannot start the signal thread"});
    }
    ts_server_wait(server);
    ts_server_destroy(server);
    pthread_join(waiter, NULL);
    fprintf(stderr, "tessera serve: stopped\n");
    return TS_EXIT_OK;
}
