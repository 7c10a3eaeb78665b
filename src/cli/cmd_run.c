/* cmd_run.c — `tessera run -m DIR -p TEXT`: generate text from a prompt, streaming it.
 *
 * The prompt goes through the model's chat template (one user message, generation prompt added)
 * when the folder has one, or verbatim with --raw. Sampling defaults follow the folder's
 * generation_config.json the way transformers' generate() reads it: do_sample true → its
 * temperature, top_k and top_p; otherwise greedy. Its repetition_penalty applies either way.
 * Any flag overrides its own setting only; --temperature 0 is greedy. Without --seed the seed
 * comes from the clock and is reported (stderr, or "seed" in --json).
 * Text streams to stdout as it is generated; --json prints one object at the end instead. A
 * timing line (prompt and generation tokens per second, peak RSS) goes to stderr.
 * Exit 0 ok, 1 runtime error, 2 usage.
 */
#include "cli.h"
#include "commands.h"
#include "base/error.h"
#include "base/file.h"
#include "base/text_escape.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define MAX_STOPS 16
#define MAX_IMAGES 8
#define MAX_AUDIO 8

typedef struct options {
    const char *dir, *prompt, *bundle, *compute, *kv_cache, *cpu, *quantize;
    bool raw, chat, json, ignore_eos;
    long long max_tokens;     /* -1 = not given */
    long long threads;
    long long capacity;       /* 0 = prompt + max_tokens */
    double temperature;       /* NAN = not given, likewise below */
    long long top_k;          /* -1 = not given */
    double top_p, min_p, repeat_penalty, presence_penalty, frequency_penalty;
    bool seed_given;
    unsigned long long seed;
    const char *stop[MAX_STOPS];
    int n_stop;
    const char *images[MAX_IMAGES];
    int n_images;
    const char *audio[MAX_AUDIO];
    int n_audio;
    long long min_pixels, max_pixels; /* 0 = the preprocessor config's */
    char dir_buf[4096];               /* -m resolved (a Hugging Face id → its snapshot folder) */
    long long image_max_tokens;       /* 0 = no cap */
    long long draft;                  /* -1 = not given: DEFAULT_DRAFT; 0 = off */
} options;

/* Drafted tokens per speculative step unless --draft/--no-draft say otherwise: the pending token
 * and 3 drafts are 4 rows, what the matmul kernels take in one pass over the weights (a fifth row
 * costs another pass: see tessera bench --speculative). */
#define DEFAULT_DRAFT 3

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: tessera run -m DIR -p TEXT [options]\n\n"
        "Generates a reply to TEXT and streams it to stdout.\n\n"
        "  -m, --model DIR          the model folder\n"
        "  -p, --prompt TEXT        the prompt\n"
        "  --chat                   apply the model's chat template (default when it has one)\n"
        "  --raw                    feed TEXT verbatim; special tokens in it are recognised\n"
        "  --max-tokens N           stop after N new tokens (default: generation_config.json's\n"
        "                           max_new_tokens, else 256)\n"
        "  --ignore-eos             never stop at EOS: EOS ids are banned, as in llama.cpp\n"
        "  --stop STR               stop when the text contains STR (repeatable, up to %d)\n"
        "  --temperature T          0 = greedy (default: greedy unless generation_config.json\n"
        "                           says do_sample, then its temperature, top_k and top_p)\n"
        "  --top-k K                keep the K most likely tokens (0 = off)\n"
        "  --top-p P                keep the smallest set holding probability P (1 = off)\n"
        "  --min-p P                drop tokens below P times the top probability (0 = off)\n"
        "  --repeat-penalty R       HF repetition penalty over prompt and output (1 = off)\n"
        "  --presence-penalty X     OpenAI presence penalty over the output (0 = off)\n"
        "  --frequency-penalty X    OpenAI frequency penalty over the output (0 = off)\n"
        "  --seed S                 sampling seed (default: from the clock, reported)\n"
        "  --threads N              worker threads (default: all cores)\n"
        "  --capacity C             KV cache length in tokens (default: prompt + max tokens)\n"
        "  --bundle BUNDLE          run through a StableHLO bundle's entries (tessera export)\n"
        "  --image FILE             a JPEG, PNG or WebP image placed before the text "
        "(repeatable);\n"
        "                           with --raw, the text holds the model's image placeholders "
        "itself\n"
        "  --audio FILE             a WAV, FLAC, MP3 or Ogg clip placed before the text "
        "(repeatable):\n"
        "                           its header checked (duration, channels, rate, size), then "
        "decoded,\n"
        "                           resampled and encoded by models with an audio path "
        "(Phi-4-multimodal);\n"
        "                           other models refuse it\n"
        "  --max-pixels N, --min-pixels N  the image budget of pixel-budget processors (default: "
        "the\n"
        "                           model's preprocessor_config.json); fewer pixels, fewer image "
        "tokens\n"
        "  --image-max-tokens N     at most N tokens per image (pixel budget: max pixels = "
        "N·(patch·merge)²)\n"
        "  --compute f32|bf16|bf16x2|int8|auto  matmul precision (default auto: bf16 products for "
        "bf16\n"
        "                           weights (and their prefill attention) where the CPU has bf16 "
        "units, int8\n"
        "                           activations for quantized weights; f32: f32 products "
        "throughout; with\n"
        "                           --bundle the default is f32)\n"
        "  --kv-cache f32|bf16      KV cache element type (default f32)\n"
        "  --draft N                speculative decoding: draft up to N tokens a step (1..%d) by\n"
        "                           n-gram lookup in the prompt and output, verified in one\n"
        "                           forward pass (default %d; output unchanged: greedy tokens\n"
        "                           identical, sampling distribution kept); with --bundle through\n"
        "                           its decode_k.main (up to k - 1 drafts a step) if it has one\n"
        "  --no-draft               plain decoding, one token a forward pass\n"
        "  --quantize q8|q4         quantize the language model's matrices at load (blocks of 32,\n"
        "                           f16 scales), and a vision tower's and projector's whose width\n"
        "                           32 divides; the weight errors are reported, tower apart\n"
        "  --cpu LEVEL              cap the kernels: portable, avx2, avx512, avx512_bf16, amx\n"
        "  --json                   print one JSON object at the end instead of streaming\n"
        "  -h, --help               show this help\n\n"
        "exit status: 0 ok, 1 runtime error, 2 usage error\n",
        MAX_STOPS, TS_MAX_DRAFT, DEFAULT_DRAFT);
}

static bool parse_double(const char *text, double lo, double hi, double *out)
{
    if (!text || !*text) return false;
    errno = 0;
    char *end;
    double v = strtod(text, &end);
    if (errno || *end || !(v >= lo && v <= hi)) return false;
    *out = v;
    return true;
}

/* Parses argv into o; returns TS_EXIT_OK to go on, else the exit code (help, usage error). */
static int parse_args(int argc, char **argv, options *o, bool *help)
{
    memset(o, 0, sizeof(*o));
    o->max_tokens = -1, o->top_k = -1, o->draft = -1;
    o->temperature = o->top_p = o->min_p = o->repeat_penalty = NAN;
    o->presence_penalty = o->frequency_penalty = NAN;
    *help = false;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL, *flag = argv[i];
        if (ts_cli_is_help(flag)) {
            *help = true;
            return TS_EXIT_OK;
        } else if (ts_cli_match(argc, argv, &i, "--json", NULL)) {
            o->json = true;
        } else if (ts_cli_match(argc, argv, &i, "--compute", &v)) {
            if (!v)
                return ts_cli_usage_error("run", "--compute needs f32, bf16, bf16x2, int8 or auto");
            o->compute = v;
        } else if (ts_cli_match(argc, argv, &i, "--kv-cache", &v)) {
            if (!v) return ts_cli_usage_error("run", "--kv-cache needs f32 or bf16");
            o->kv_cache = v;
        } else if (ts_cli_match(argc, argv, &i, "--quantize", &v)) {
            if (!v) return ts_cli_usage_error("run", "--quantize needs q8 or q4");
            o->quantize = v;
        } else if (ts_cli_match(argc, argv, &i, "--cpu", &v)) {
            if (!v) return ts_cli_usage_error("run", "--cpu needs a level");
            o->cpu = v;
        } else if (ts_cli_match(argc, argv, &i, "--image", &v)) {
            if (!v || !*v) return ts_cli_usage_error("run", "--image needs a file");
            if (o->n_images == MAX_IMAGES) return ts_cli_usage_error("run", "at most %d --image files", MAX_IMAGES);
            o->images[o->n_images++] = v;
        } else if (ts_cli_match(argc, argv, &i, "--audio", &v)) {
            if (!v || !*v) return ts_cli_usage_error("run", "--audio needs a file");
            if (o->n_audio == MAX_AUDIO) return ts_cli_usage_error("run", "at most %d --audio files", MAX_AUDIO);
            o->audio[o->n_audio++] = v;
        } else if (ts_cli_match(argc, argv, &i, "--max-pixels", &v)) {
            if (!ts_cli_parse_int(v, 1, 1LL << 40, &o->max_pixels)) return ts_cli_usage_error("run", "--max-pixels needs a positive number");
        } else if (ts_cli_match(argc, argv, &i, "--image-max-tokens", &v)) {
            if (!ts_cli_parse_int(v, 1, 1LL << 24, &o->image_max_tokens))
                return ts_cli_usage_error("run", "--image-max-tokens needs a positive number");
        } else if (ts_cli_match(argc, argv, &i, "--min-pixels", &v)) {
            if (!ts_cli_parse_int(v, 1, 1LL << 40, &o->min_pixels)) return ts_cli_usage_error("run", "--min-pixels needs a positive number");
        } else if (ts_cli_match(argc, argv, &i, "--bundle", &v)) {
            if (!v || !*v) return ts_cli_usage_error("run", "--bundle needs a folder");
            o->bundle = v;
        } else if (ts_cli_match(argc, argv, &i, "--raw", NULL)) {
            o->raw = true;
        } else if (ts_cli_match(argc, argv, &i, "--chat", NULL)) {
            o->chat = true;
        } else if (ts_cli_match(argc, argv, &i, "--no-draft", NULL)) {
            o->draft = 0;
        } else if (ts_cli_match(argc, argv, &i, "--draft", &v)) {
            if (!ts_cli_parse_int(v, 1, TS_MAX_DRAFT, &o->draft))
                return ts_cli_usage_error("run", "--draft needs an integer in 1..%d", TS_MAX_DRAFT);
        } else if (ts_cli_match(argc, argv, &i, "--ignore-eos", NULL)) {
            o->ignore_eos = true;
        } else if (ts_cli_match(argc, argv, &i, "-m", &v) || ts_cli_match(argc, argv, &i, "--model", &v)) {
            if (!v || !*v) return ts_cli_usage_error("run", "%s needs a folder", flag);
            o->dir = v;
        } else if (ts_cli_match(argc, argv, &i, "-p", &v) || ts_cli_match(argc, argv, &i, "--prompt", &v)) {
            if (!v) return ts_cli_usage_error("run", "%s needs a text", flag);
            o->prompt = v;
        } else if (ts_cli_match(argc, argv, &i, "--stop", &v)) {
            if (!v || !*v) return ts_cli_usage_error("run", "--stop needs a non-empty string");
            if (o->n_stop == MAX_STOPS) return ts_cli_usage_error("run", "at most %d --stop strings", MAX_STOPS);
            o->stop[o->n_stop++] = v;
        } else if (ts_cli_match(argc, argv, &i, "--max-tokens", &v)) {
            if (!ts_cli_parse_int(v, 1, 1 << 24, &o->max_tokens))
                return ts_cli_usage_error("run", "--max-tokens needs an integer in 1..%d", 1 << 24);
        } else if (ts_cli_match(argc, argv, &i, "--threads", &v)) {
            if (!ts_cli_parse_int(v, 1, 1024, &o->threads))
                return ts_cli_usage_error("run", "--threads needs an integer in 1..1024");
        } else if (ts_cli_match(argc, argv, &i, "--capacity", &v)) {
            if (!ts_cli_parse_int(v, 1, 1 << 24, &o->capacity))
                return ts_cli_usage_error("run", "--capacity needs an integer in 1..%d", 1 << 24);
        } else if (ts_cli_match(argc, argv, &i, "--top-k", &v)) {
            if (!ts_cli_parse_int(v, 0, INT32_MAX, &o->top_k))
                return ts_cli_usage_error("run", "--top-k needs an integer ≥ 0");
        } else if (ts_cli_match(argc, argv, &i, "--seed", &v)) {
            long long s;
            if (!ts_cli_parse_int(v, 0, INT64_MAX, &s)) return ts_cli_usage_error("run", "--seed needs an integer ≥ 0");
            o->seed = (unsigned long long)s, o->seed_given = true;
        } else if (ts_cli_match(argc, argv, &i, "--temperature", &v)) {
            if (!parse_double(v, 0, 1e6, &o->temperature))
                return ts_cli_usage_error("run", "--temperature needs a number ≥ 0");
        } else if (ts_cli_match(argc, argv, &i, "--top-p", &v)) {
            if (!parse_double(v, 1e-9, 1, &o->top_p)) return ts_cli_usage_error("run", "--top-p needs a number in (0, 1]");
        } else if (ts_cli_match(argc, argv, &i, "--min-p", &v)) {
            if (!parse_double(v, 0, 1, &o->min_p)) return ts_cli_usage_error("run", "--min-p needs a number in [0, 1]");
        } else if (ts_cli_match(argc, argv, &i, "--repeat-penalty", &v)) {
            if (!parse_double(v, 1e-6, 1e6, &o->repeat_penalty))
                return ts_cli_usage_error("run", "--repeat-penalty needs a number > 0");
        } else if (ts_cli_match(argc, argv, &i, "--presence-penalty", &v)) {
            if (!parse_double(v, -1e6, 1e6, &o->presence_penalty))
                return ts_cli_usage_error("run", "--presence-penalty needs a number");
        } else if (ts_cli_match(argc, argv, &i, "--frequency-penalty", &v)) {
            if (!parse_double(v, -1e6, 1e6, &o->frequency_penalty))
                return ts_cli_usage_error("run", "--frequency-penalty needs a number");
        } else {
            return ts_cli_usage_error("run", "unknown argument '%s'", flag);
        }
    }
    if (!o->dir) return ts_cli_usage_error("run", "missing -m DIR");
    if (!(o->dir = ts_cli_resolve_model("run", o->dir, o->dir_buf, sizeof(o->dir_buf)))) return TS_EXIT_RUNTIME;
    if (!o->prompt) return ts_cli_usage_error("run", "missing -p TEXT");
    if (o->quantize && o->bundle)
        return ts_cli_usage_error("run", "--quantize does not apply to --bundle (a bundle carries its own weights' math)");
    if (o->raw && o->chat) return ts_cli_usage_error("run", "--raw and --chat exclude each other");
    return TS_EXIT_OK;
}

/* Sampling from generation_config.json as documented at the top, then the flags. */
static void sampling_from(const options *o, const ts_generation_config *gc, ts_sampling_params *sp)
{
    ts_sampling_params_default(sp);
    if (gc->do_sample) {
        sp->temperature = (float)gc->temperature;
        sp->top_k = (int32_t)gc->top_k;
        sp->top_p = (float)gc->top_p;
    }
    sp->repetition_penalty = (float)gc->repetition_penalty;
    if (!isnan(o->temperature)) sp->temperature = (float)o->temperature;
    if (o->top_k >= 0) sp->top_k = (int32_t)o->top_k;
    if (!isnan(o->top_p)) sp->top_p = (float)o->top_p;
    if (!isnan(o->min_p)) sp->min_p = (float)o->min_p;
    if (!isnan(o->repeat_penalty)) sp->repetition_penalty = (float)o->repeat_penalty;
    if (!isnan(o->presence_penalty)) sp->presence_penalty = (float)o->presence_penalty;
    if (!isnan(o->frequency_penalty)) sp->frequency_penalty = (float)o->frequency_penalty;
    sp->seed = o->seed;
}

/* ------------------------------------------------------------------ text → prompt ids
 * The only part that needs the tokenizer and the chat template. */

/* The chat context is JSON: \n \r \t short, other controls and DEL as \u00xx. */
#define JSON_STYLE (TS_JSON_ESC_NRT | TS_JSON_ESC_DEL)

static ts_status oom(ts_error *err) { return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory"); }

/* Renders the chat template for one user message. *out owned, free(). */
static ts_status render_chat(const ts_chat_template *tmpl, const ts_tokenizer *tok, const char *text,
                             int n_images, int n_audio, char **out, ts_error *err)
{
    ts_buf ctxj = {0};
    ts_buf_puts(&ctxj, "{\"messages\":[{\"role\":\"user\",\"content\":");
    if (n_images || n_audio) { /* content parts: the images first, then the clips, then the text */
        ts_buf_puts(&ctxj, "[");
        for (int i = 0; i < n_images; i++) ts_buf_puts(&ctxj, "{\"type\":\"image\"},");
        for (int i = 0; i < n_audio; i++) ts_buf_puts(&ctxj, "{\"type\":\"audio\"},");
        ts_buf_puts(&ctxj, "{\"type\":\"text\",\"text\":");
        ts_json_quote(&ctxj, text, strlen(text), JSON_STYLE);
        ts_buf_puts(&ctxj, "}]");
    } else {
        ts_json_quote(&ctxj, text, strlen(text), JSON_STYLE);
    }
    ts_buf_puts(&ctxj, "}],\"add_generation_prompt\":true");
    static const char *roles[] = {"bos_token", "eos_token", "pad_token", "unk_token"};
    for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
        const char *t = ts_tokenizer_special_token(tok, roles[i]);
        if (!t) continue;
        ts_buf_puts(&ctxj, ",\"");
        ts_buf_puts(&ctxj, roles[i]);
        ts_buf_puts(&ctxj, "\":");
        ts_json_quote(&ctxj, t, strlen(t), JSON_STYLE);
    }
    ts_buf_puts(&ctxj, "}");
    if (ctxj.failed) {
        free(ctxj.data);
        return oom(err);
    }
    ts_status st = ts_chat_template_render(tmpl, ctxj.data, out, err);
    free(ctxj.data);
    return st;
}

/* Prompt ids for o->prompt: through the chat template, the rendered text encoded as the
 * processors do (ts_tokenizer_encode_chat: BOS added unless the template wrote it), or, raw, as
 * tokenizer(text) does with its post-processor. With images, as the family's processor does:
 * the placeholders expanded to each image's token count, then tokenizer(text). *ids owned. */
static ts_status prompt_ids(const options *o, const ts_model *model, const ts_tokenizer *tok, const ts_pixel_values *images,
                            const int64_t *audio_tokens, int32_t **ids, size_t *n, ts_error *err)
{
    ts_chat_template *tmpl = NULL;
    if (!o->raw) {
        ts_status st = ts_chat_template_load(o->dir, NULL, &tmpl, err);
        if (st == TS_ERR_NOT_FOUND && !o->chat) tmpl = NULL;
        else if (st) return st;
    }
    if (!tmpl && !o->n_images && !o->n_audio) return ts_tokenizer_encode(tok, o->prompt, strlen(o->prompt), true, ids, n, err);
    char *text = NULL;
    ts_status st = TS_OK;
    if (tmpl) st = render_chat(tmpl, tok, o->prompt, o->n_images, o->n_audio, &text, err);
    else if (!(text = strdup(o->prompt))) st = oom(err);
    ts_chat_template_destroy(tmpl);
    if (!st && (o->n_images || o->n_audio)) {
        int64_t counts[MAX_IMAGES];
        for (int i = 0; i < o->n_images; i++) counts[i] = ts_model_image_tokens(model, &images[i]);
        char *expanded = NULL;
        size_t len = 0;
        /* Each placeholder kind by its own rule (text level, as the processor): images, then clips. */
        if (o->n_images)
            st = ts_prompt_expand_images(ts_model_get_config(model), tok, text, strlen(text), counts, o->n_images, &expanded, &len, err);
        if (!st && o->n_audio) {
            char *with_images = expanded;
            const char *from = with_images ? with_images : text;
            st = ts_prompt_expand_audio(ts_model_get_config(model), tok, from, strlen(from), audio_tokens, o->n_audio, &expanded, &len,
                                        err);
            free(with_images);
        }
        if (!st) st = tmpl ? ts_tokenizer_encode_chat(tok, expanded, len, ids, n, err) : ts_tokenizer_encode(tok, expanded, len, true, ids, n, err);
        free(expanded);
    } else if (!st) {
        st = ts_tokenizer_encode_chat(tok, text, strlen(text), ids, n, err);
    }
    free(text);
    return st;
}

/* Decodes and preprocesses o->images for the model. */
static ts_status load_images(const options *o, const ts_model *model, ts_pixel_values *out, ts_error *err)
{
    ts_preprocessor_config pc;
    ts_status st = ts_preprocessor_config_load(o->dir, &pc, err);
    ts_image_budget budget = {.min_pixels = o->min_pixels ? o->min_pixels : pc.min_pixels,
                              .max_pixels = o->max_pixels ? o->max_pixels : pc.max_pixels};
    bool budgeted = o->min_pixels || o->max_pixels || o->image_max_tokens;
    if (st == TS_OK && o->image_max_tokens) {
        /* A merged token covers (patch·merge)² pixels; smart_resize keeps h·w within max_pixels. */
        long long side = pc.patch_size * pc.merge_size;
        if (side < 1) {
            st = ts_error_set(err, TS_ERR_UNSUPPORTED, "--image-max-tokens: %s has no Qwen-VL patching (fixed-size images)",
                              o->dir);
        }
        long long cap = o->image_max_tokens * side * side;
        if (st == TS_OK && cap < budget.max_pixels) budget.max_pixels = cap;
        if (st == TS_OK && budget.min_pixels > budget.max_pixels) budget.min_pixels = budget.max_pixels;
    }
    for (int i = 0; st == TS_OK && i < o->n_images; i++) {
        ts_image img;
        st = ts_image_load(o->images[i], NULL, &img, err);
        if (st == TS_OK)
            st = ts_preprocess_image(&pc, ts_model_get_config(model)->family, img.rgb, img.width, img.height, budgeted ? &budget : NULL,
                                     &out[i], err);
        ts_image_free(&img);
    }
    return st;
}

/* Each --audio clip's header against the default limits (ts_audio_probe: duration, channels,
 * rate, size; nothing decoded), as the server checks an input_audio part, before any model loads. */
static ts_status probe_audio(const options *o, ts_error *err)
{
    for (int i = 0; i < o->n_audio; i++) {
        ts_mapping m = {0};
        ts_status st = ts_mapping_open(o->audio[i], &m, err);
        if (st) return st;
        ts_audio_info info;
        ts_error e = {0};
        st = ts_audio_probe(m.data, m.size, NULL, &info, &e);
        ts_mapping_close(&m);
        if (st) return ts_error_set(err, st, "--audio %s: %s", o->audio[i], e.message);
    }
    return TS_OK;
}

/* Each --audio clip decoded, resampled and encoded by the model (with --bundle: by the bundle's
 * audio.main); the rows joined in order into *out, each clip's token count in tokens[]. */
static ts_status encode_audio(const options *o, ts_model *model, ts_bundle *bundle, ts_encoded_media *out, int64_t *tokens,
                              ts_error *err)
{
    ts_status st = TS_OK;
    for (int i = 0; st == TS_OK && i < o->n_audio; i++) {
        ts_mapping m = {0};
        int64_t before = out->n_audio_rows;
        st = ts_mapping_open(o->audio[i], &m, err);
        /* With images in the prompt too, the clips are encoded for it (Phi-4: vision_speech). */
        unsigned modalities = TS_MODALITY_AUDIO | (o->n_images ? TS_MODALITY_IMAGE : 0u);
        if (st == TS_OK)
            st = bundle ? ts_bundle_encode_audio(bundle, model, m.data, m.size, NULL, modalities, out, err)
                        : ts_model_encode_audio_for(model, NULL, m.data, m.size, NULL, modalities, out, err);
        ts_mapping_close(&m);
        tokens[i] = out->n_audio_rows - before;
        if (st) ts_error_prefix(err, "--audio %s: ", o->audio[i]);
    }
    return st;
}

/* ------------------------------------------------------------------ running */

static bool stream_piece(void *user, int32_t id, const char *text, size_t len)
{
    bool *wrote = user;
    if (len) {
        fwrite(text, 1, len, stdout);
        fflush(stdout);
        *wrote = true;
    }
    return true;
}

static void print_json(const ts_generation *g, unsigned long long seed)
{
    ts_buf b = {0};
    char num[64];
    snprintf(num, sizeof(num), "{\"prompt_tokens\":%zu,\"generated_ids\":[", g->prompt_tokens);
    ts_buf_puts(&b, num);
    for (size_t i = 0; i < g->n_ids; i++) {
        snprintf(num, sizeof(num), "%s%d", i ? "," : "", g->ids[i]);
        ts_buf_puts(&b, num);
    }
    ts_buf_puts(&b, "],\"text\":");
    ts_json_quote(&b, g->text, g->text_len, JSON_STYLE);
    ts_buf_puts(&b, ",\"finish_reason\":\"");
    ts_buf_puts(&b, ts_finish_reason_name(g->finish_reason));
    snprintf(num, sizeof(num), "\",\"seed\":%llu", seed);
    ts_buf_puts(&b, num);
    char timings[256];
    snprintf(timings, sizeof(timings),
             ",\"timings\":{\"prompt_ms\":%.3f,\"generation_ms\":%.3f,\"generated_tokens\":%zu,"
             "\"prompt_tokens_per_s\":%.2f,\"generation_tokens_per_s\":%.2f}}\n",
             g->prompt_ms, g->generation_ms, g->n_ids,
             g->prompt_ms > 0 ? (double)g->prompt_tokens * 1e3 / g->prompt_ms : 0.0,
             g->generation_ms > 0 ? (double)g->n_ids * 1e3 / g->generation_ms : 0.0);
    ts_buf_puts(&b, timings);
    if (!b.failed) fputs(b.data, stdout);
    free(b.data);
}

static void print_timings(const ts_generation *g)
{
    struct rusage ru;
    double rss_mib = getrusage(RUSAGE_SELF, &ru) == 0 ? (double)ru.ru_maxrss / 1024.0 : 0.0;
    fprintf(stderr,
            "tessera run: prompt %zu tokens in %.1f ms (%.1f tok/s), generated %zu tokens in %.1f ms "
            "(%.1f tok/s), finish %s, peak RSS %.1f MiB\n",
            g->prompt_tokens, g->prompt_ms,
            g->prompt_ms > 0 ? (double)g->prompt_tokens * 1e3 / g->prompt_ms : 0.0, g->n_ids,
            g->generation_ms, g->generation_ms > 0 ? (double)g->n_ids * 1e3 / g->generation_ms : 0.0,
            ts_finish_reason_name(g->finish_reason), rss_mib);
}

/* What speculative decoding did, or why it was off. */
static void print_speculation(const ts_generation *g, const options *o, bool bundle)
{
    if (g->draft_tokens > 0)
        fprintf(stderr,
                "tessera run: speculative decoding, drafts of up to %d tokens (n-gram lookup): %zu "
                "verify steps, %zu of %zu drafted tokens accepted, %zu forward passes for %zu tokens\n",
                g->draft_tokens, g->verify_steps, g->accepted, g->drafted, g->forwards, g->n_ids);
    else
        fprintf(stderr, "tessera run: speculative decoding off (%s)\n",
                o->draft == 0 ? "--no-draft"
                : bundle      ? "the bundle has no decode_k.main: export it with --draft-width K"
                              : "the model's sliding-window cache cannot roll back");
}

typedef struct session {
    ts_context *ctx;
    ts_model *model;
    ts_bundle *bundle;
    ts_tokenizer *tok;
    ts_sequence *seq;
    int32_t *ids;
    ts_pixel_values images[MAX_IMAGES];
    ts_encoded_media audio;
} session;

static void session_close(session *s)
{
    free(s->ids);
    for (int i = 0; i < MAX_IMAGES; i++) ts_pixel_values_free(&s->images[i]);
    ts_encoded_media_free(&s->audio);
    ts_sequence_destroy(s->seq);
    ts_bundle_close(s->bundle);
    ts_tokenizer_destroy(s->tok);
    ts_model_destroy(s->model);
    ts_context_destroy(s->ctx);
}

static int run(options *o)
{
    session s = {0};
    ts_error err = {0};
    /* The fast path by default (issue 15's defaults); a bundle keeps its declared f32 products. */
    const char *compute = o->compute ? o->compute : o->bundle ? NULL : "auto";
    ts_context_options co = {.n_threads = (int)o->threads,
                             .log_level = TS_LOG_WARN,
                             .compute = compute,
                             .cpu_level = o->cpu};
    ts_model_options mo = {.kv_cache = o->kv_cache, .quantize = o->quantize};
    ts_generation_config gc;
    size_t n_ids = 0;
    ts_status st = probe_audio(o, &err);
    if (!st) st = ts_context_create(&co, &s.ctx, &err);
    if (!st) st = ts_generation_config_load(o->dir, &gc, &err);
    if (!st) st = ts_model_load(s.ctx, o->dir, &mo, &s.model, &err);
    if (!st && o->bundle) st = ts_bundle_open(s.ctx, o->bundle, o->dir, &s.bundle, &err);
    if (!st) st = ts_tokenizer_load(o->dir, &s.tok, &err);
    if (!st && ts_model_quantization_summary(s.model)[0]) fprintf(stderr, "tessera run: weights %s\n", ts_model_quantization_summary(s.model));
    char choice[256];
    if (!st)
        fprintf(stderr, "tessera run: compute %s\n",
                ts_context_compute_summary(s.ctx, choice, sizeof(choice)));
    if (!st && o->n_images && !(ts_model_supported_modalities(ts_model_get_config(s.model)) & TS_MODALITY_IMAGE)) {
        st = ts_error_set(&err, TS_ERR_UNSUPPORTED, "%s: images are not supported for this model",
                          ts_family_name(ts_model_get_config(s.model)->family));
    }
    unsigned modalities = st ? 0 : ts_model_supported_modalities(ts_model_get_config(s.model));
    /* Clips for a model without an audio path are refused rather than ignored. */
    int64_t audio_tokens[MAX_AUDIO] = {0};
    if (!st && o->n_audio && !(modalities & TS_MODALITY_AUDIO)) {
        st = ts_error_set(&err, TS_ERR_UNSUPPORTED, "%s: this model does not accept audio input (input modalities: text%s)",
                          ts_family_name(ts_model_get_config(s.model)->family), modalities & TS_MODALITY_IMAGE ? ", image" : "");
    }
    if (!st && o->n_audio) st = encode_audio(o, s.model, s.bundle, &s.audio, audio_tokens, &err);
    if (!st && o->n_images) st = load_images(o, s.model, s.images, &err);
    if (!st && o->n_audio && o->n_images) {
        /* One prompt with both: the images' rows beside the clips' (prefilled together); with a
         * bundle from its vision.main when it has one. */
        ts_encoded_media rows;
        st = s.bundle && ts_bundle_vision_buckets(s.bundle, NULL) > 0 ? ts_bundle_encode_images(s.bundle, s.images, o->n_images, &rows, &err)
                                                                     : ts_model_encode_images(s.model, s.images, o->n_images, &rows, &err);
        if (!st) s.audio.rows = rows.rows, s.audio.n_rows = rows.n_rows, rows.rows = NULL;
        ts_encoded_media_free(&rows);
    }
    if (!st) st = prompt_ids(o, s.model, s.tok, s.images, audio_tokens, &s.ids, &n_ids, &err);
    if (!st && n_ids == 0) {
        st = ts_error_set(&err, TS_ERR_INVALID_ARGUMENT, "the prompt encodes to no tokens");
    }
    if (st) {
        session_close(&s);
        return ts_cli_fail("run", &err);
    }

    const ts_model_config *mc = ts_model_get_config(s.model);
    int64_t max_tokens = o->max_tokens > 0 ? o->max_tokens : gc.max_new_tokens > 0 ? gc.max_new_tokens : 256;
    int64_t capacity = o->capacity ? o->capacity : (int64_t)n_ids + max_tokens;
    /* By default the cache stops at the model's context length; generation then ends "length". */
    int64_t max_pos = mc->text.max_position_embeddings;
    if (!o->capacity && max_pos > (int64_t)n_ids && capacity > max_pos) capacity = max_pos;

    if (!o->seed_given) o->seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);
    ts_generate_params p = {0};
    sampling_from(o, &gc, &p.sampling);
    int64_t eos[8];
    p.n_eos_ids = ts_generation_eos_ids(&gc, mc, eos);
    p.eos_ids = eos;
    p.max_tokens = max_tokens;
    p.ignore_eos = o->ignore_eos;
    p.stop = o->stop, p.n_stop = o->n_stop;
    p.tokenizer = s.tok;
    p.skip_special_tokens = true;
    bool wrote = false;
    if (!o->json) p.on_token = stream_piece, p.user = &wrote;
    /* A bundle verifies drafts through its decode_k.main (at most its k - 1 a step; without the
     * entry the loop decodes one token at a time). */
    p.draft_tokens = o->draft < 0 ? DEFAULT_DRAFT : (int)o->draft;

    ts_generation g;
    /* Through the bundle's entries (admitted to a capacity bucket), or the engine's graph. */
    if (s.bundle && o->n_audio) {
        st = ts_bundle_generate_audio(s.bundle, s.model, s.ids, n_ids, &s.audio, &p, &g, &err);
    } else if (s.bundle && o->n_images) {
        st = ts_bundle_generate_images(s.bundle, s.model, s.ids, n_ids, s.images, o->n_images, &p, &g, &err);
    } else if (s.bundle) {
        st = ts_bundle_generate(s.bundle, s.ids, n_ids, &p, &g, &err);
    } else {
        st = ts_sequence_create_draft(s.model, capacity, p.draft_tokens, &s.seq, &err);
        if (!st && o->n_audio) st = ts_generate_audio(s.model, s.seq, s.ids, n_ids, &s.audio, &p, &g, &err);
        else if (!st && o->n_images) st = ts_generate_images(s.model, s.seq, s.ids, n_ids, s.images, o->n_images, &p, &g, &err);
        else if (!st) st = ts_generate(s.model, s.seq, s.ids, n_ids, &p, &g, &err);
    }
    if (st) {
        if (wrote) putchar('\n');
        session_close(&s);
        return ts_cli_fail("run", &err);
    }
    if (o->json) {
        print_json(&g, o->seed);
    } else if (wrote && g.text[g.text_len - 1] != '\n') {
        putchar('\n');
    }
    fflush(stdout);
    if (!o->seed_given && !o->json && p.sampling.temperature > 0)
        fprintf(stderr, "tessera run: seed %llu\n", o->seed);
    print_timings(&g);
    print_speculation(&g, o, s.bundle != NULL);
    ts_generation_free(&g);
    session_close(&s);
    return TS_EXIT_OK;
}

int cmd_run(int argc, char **argv)
{
    options o;
    bool help;
    int rc = parse_args(argc, argv, &o, &help);
    if (help) {
        usage(stdout);
        return TS_EXIT_OK;
    }
    if (rc != TS_EXIT_OK) return rc;
    return run(&o);
}
