/* cmd_inspect.c — `tessera inspect -m DIR [--json]`: what a model folder holds.
 *
 * Loads config.json and the checkpoint (every header validated) and prints family, architecture,
 * text and vision dimensions, dtypes with tensor counts, the parameter count, the bytes on disk
 * and the modalities the config declares. Exit 0 ok, 1 when the folder cannot be read, 2 usage.
 */
#include "cli.h"
#include "commands.h"
#include "base/error.h"
#include "base/text_escape.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct summary {
    size_t dtype_tensors[TS_DTYPE_COUNT];
    uint64_t parameters;
    uint64_t file_bytes;
    size_t n_files;
    size_t n_tensors;
} summary;

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: tessera inspect -m DIR [--json] [--quantize q8|q4] [--context N]\n\n"
        "Shows a model folder: family, architecture, text and vision dimensions, the\n"
        "dtypes in the checkpoint with tensor counts, parameters, size on disk and the\n"
        "modalities the config declares.\n\n"
        "  -m, --model DIR  the model folder (config.json + safetensors)\n"
        "  --json           print one JSON object instead of text\n"
        "  --quantize q8|q4 also load the model quantized and print the weight error (text only;\n"
        "                   a vision tower's matrices are quantized too and reported apart)\n"
        "  --context N      the KV cache bytes of one sequence of N tokens (default 32768; text "
        "only)\n"
        "  -h, --help       show this help\n\n"
        "exit status: 0 ok, 1 runtime error, 2 usage error\n");
}

static ts_status summarize(const ts_checkpoint *ckpt, summary *s, ts_error *err)
{
    memset(s, 0, sizeof(*s));
    s->n_tensors = ts_checkpoint_tensor_count(ckpt);
    const char **files = calloc(s->n_tensors ? s->n_tensors : 1, sizeof(*files));
    if (!files) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < s->n_tensors; i++) {
        const ts_tensor_info *t = ts_checkpoint_tensor_at(ckpt, i);
        s->dtype_tensors[t->dtype]++;
        uint64_t n = 1;
        for (int d = 0; d < t->n_dims; d++) n *= (uint64_t)t->shape[d];
        s->parameters += n;
        /* Shards are few: a linear scan over the names seen so far is enough. */
        bool seen = false;
        for (size_t j = 0; j < s->n_files && !seen; j++) seen = strcmp(files[j], t->file) == 0;
        if (!seen) files[s->n_files++] = t->file;
    }
    for (size_t j = 0; j < s->n_files; j++) {
        struct stat st;
        if (stat(files[j], &st) == 0) s->file_bytes += (uint64_t)st.st_size;
    }
    free(files);
    return TS_OK;
}

static void modality_text(unsigned m, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s%s", m & TS_MODALITY_TEXT ? "text" : "",
             m & TS_MODALITY_IMAGE ? (m & TS_MODALITY_TEXT ? ", image" : "image") : "",
             m & TS_MODALITY_AUDIO ? ", audio" : "");
}

/* One sequence's KV cache at `context` tokens, f32 and bf16, and what the sliding-window rings
 * save per token against full-length caches in every layer. Nothing for a family without a
 * decoder. */
static void print_kv(const ts_model_config *c, int64_t context)
{
    ts_kv_size kv;
    ts_error err;
    if (ts_model_config_kv_size(c, context, &kv, &err) != TS_OK) return;
    printf("kv cache:      %" PRId64 " tokens: %" PRIu64 " bytes f32, %" PRIu64 " bf16", context,
           4 * kv.elements, 2 * kv.elements);
    if (kv.ring_rows)
        printf(" (%d of %d layers keep a %" PRId64 "-row ring: %" PRIu64 " / %" PRIu64
               " bytes less than full caches, %.0f / %.0f per token)",
               kv.local_layers, kv.layers, kv.ring_rows, 4 * (kv.full_elements - kv.elements),
               2 * (kv.full_elements - kv.elements),
               4.0 * (double)(kv.full_elements - kv.elements) / (double)context,
               2.0 * (double)(kv.full_elements - kv.elements) / (double)context);
    printf("\n");
}

static void print_text(const char *dir, const ts_model_config *c, const summary *s)
{
    const ts_text_config *t = &c->text;
    char modalities[64], served[64];
    modality_text(c->modalities, modalities, sizeof(modalities));
    modality_text(ts_model_supported_modalities(c), served, sizeof(served));
    printf("model:         %s\n", dir);
    printf("family:        %s\n", ts_family_name(c->family));
    printf("architecture:  %s\n", c->architecture[0] ? c->architecture : "(not stated)");
    printf("modalities:    %s (supported by this build: %s)\n", modalities, served[0] ? served : "none");
    printf("text:          %s, layers %" PRId64 ", hidden %" PRId64 ", heads %" PRId64
           ", kv heads %" PRId64 ", head dim %" PRId64 ", intermediate %" PRId64 ", vocab %" PRId64
           "\n",
           t->model_type, t->num_hidden_layers, t->hidden_size, t->num_attention_heads,
           t->num_key_value_heads, t->head_dim, t->intermediate_size, t->vocab_size);
    printf("rope:          %s, theta %g", t->rope_type, t->rope_theta);
    if (t->rope_factor != 1.0 && t->rope_factor != 0.0) printf(", factor %g", t->rope_factor);
    if (t->n_rope_short_factor)
        printf(", %d short/long factors, original positions %" PRId64, t->n_rope_short_factor,
               t->rope_original_max_position);
    if (t->partial_rotary_factor != 1.0) printf(", partial %g", t->partial_rotary_factor);
    if (t->mrope_section[0])
        printf(", mrope section %d/%d/%d%s", t->mrope_section[0], t->mrope_section[1],
               t->mrope_section[2], t->mrope_interleaved ? " interleaved" : "");
    if (t->rope_local_base_freq) printf(", local theta %g", t->rope_local_base_freq);
    printf("\n");
    if (t->num_experts)
        printf("experts:       %" PRId64 " (top %" PRId64 "), expert intermediate %" PRId64 "\n",
               t->num_experts, t->num_experts_per_tok, t->moe_intermediate_size);
    if (t->sliding_window)
        printf("sliding:       window %" PRId64 ", one global layer in %" PRId64 "\n",
               t->sliding_window, t->sliding_window_pattern);
    if (c->has_vision) {
        const ts_vision_config *v = &c->vision;
        printf("vision:        %s, depth %" PRId64 ", hidden %" PRId64 ", heads %" PRId64
               ", intermediate %" PRId64 ", patch %" PRId64,
               v->model_type, v->depth, v->hidden_size, v->num_heads, v->intermediate_size,
               v->patch_size);
        if (v->image_size) printf(", image %" PRId64, v->image_size);
        if (v->spatial_merge_size) printf(", merge %" PRId64, v->spatial_merge_size);
        printf(", out %" PRId64 "\n", v->out_hidden_size);
    }
    printf("dtypes:       ");
    for (int d = 0; d < TS_DTYPE_COUNT; d++)
        if (s->dtype_tensors[d]) printf(" %s %zu tensors", ts_dtype_name((ts_dtype)d), s->dtype_tensors[d]);
    printf("\n");
    printf("parameters:    %" PRIu64 " (%.2f M) in %zu tensors\n", s->parameters,
           (double)s->parameters / 1e6, s->n_tensors);
    printf("files:         %zu, %" PRIu64 " bytes\n", s->n_files, s->file_bytes);
}

/* Only '"' and '\\' short, every other control byte as \u00xx: the form this output always had. */
static void json_string(const char *s) { ts_json_fquote(stdout, s, strlen(s), 0); }

static void print_json(const char *dir, const ts_model_config *c, const summary *s)
{
    const ts_text_config *t = &c->text;
    printf("{\"model\":");
    json_string(dir);
    printf(",\"family\":");
    json_string(ts_family_name(c->family));
    printf(",\"architecture\":");
    json_string(c->architecture);
    printf(",\"modalities\":[%s%s%s]", c->modalities & TS_MODALITY_TEXT ? "\"text\"" : "",
           c->modalities & TS_MODALITY_IMAGE ? ",\"image\"" : "",
           c->modalities & TS_MODALITY_AUDIO ? ",\"audio\"" : "");
    unsigned served = ts_model_supported_modalities(c);
    printf(",\"supported_modalities\":[%s%s]", served & TS_MODALITY_TEXT ? "\"text\"" : "",
           served & TS_MODALITY_IMAGE ? ",\"image\"" : "");
    printf(",\"text\":{\"model_type\":");
    json_string(t->model_type);
    printf(",\"layers\":%" PRId64 ",\"hidden_size\":%" PRId64 ",\"heads\":%" PRId64
           ",\"kv_heads\":%" PRId64 ",\"head_dim\":%" PRId64 ",\"intermediate_size\":%" PRId64
           ",\"vocab_size\":%" PRId64 ",\"rope_type\":",
           t->num_hidden_layers, t->hidden_size, t->num_attention_heads, t->num_key_value_heads,
           t->head_dim, t->intermediate_size, t->vocab_size);
    json_string(t->rope_type);
    printf(",\"rope_theta\":%.17g,\"mrope_section\":[%d,%d,%d],\"num_experts\":%" PRId64 "}",
           t->rope_theta, t->mrope_section[0], t->mrope_section[1], t->mrope_section[2],
           t->num_experts);
    if (c->has_vision) {
        const ts_vision_config *v = &c->vision;
        printf(",\"vision\":{\"model_type\":");
        json_string(v->model_type);
        printf(",\"depth\":%" PRId64 ",\"hidden_size\":%" PRId64 ",\"heads\":%" PRId64
               ",\"intermediate_size\":%" PRId64 ",\"patch_size\":%" PRId64
               ",\"out_hidden_size\":%" PRId64 "}",
               v->depth, v->hidden_size, v->num_heads, v->intermediate_size, v->patch_size,
               v->out_hidden_size);
    } else {
        printf(",\"vision\":null");
    }
    printf(",\"dtypes\":{");
    bool first = true;
    for (int d = 0; d < TS_DTYPE_COUNT; d++) {
        if (!s->dtype_tensors[d]) continue;
        printf("%s\"%s\":%zu", first ? "" : ",", ts_dtype_name((ts_dtype)d), s->dtype_tensors[d]);
        first = false;
    }
    printf("},\"tensors\":%zu,\"parameters\":%" PRIu64 ",\"files\":%zu,\"file_bytes\":%" PRIu64 "}\n",
           s->n_tensors, s->parameters, s->n_files, s->file_bytes);
}

int cmd_inspect(int argc, char **argv)
{
    const char *dir = NULL, *quantize = NULL;
    bool json = false;
    int64_t context = 32768;
    for (int i = 1; i < argc; i++) {
        const char *value = NULL;
        if (ts_cli_is_help(argv[i])) {
            usage(stdout);
            return TS_EXIT_OK;
        } else if (ts_cli_match(argc, argv, &i, "--json", NULL)) {
            json = true;
        } else if (ts_cli_match(argc, argv, &i, "--context", &value)) {
            char *end = NULL;
            long long n = value ? strtoll(value, &end, 10) : 0;
            if (!value || *end || n < 1 || n > (1 << 24))
                return ts_cli_usage_error("inspect", "--context needs a token count in 1..%d",
                                          1 << 24);
            context = n;
        } else if (ts_cli_match(argc, argv, &i, "--quantize", &value)) {
            if (!value) return ts_cli_usage_error("inspect", "--quantize needs q8 or q4");
            quantize = value;
        } else if (ts_cli_match(argc, argv, &i, "-m", &value) ||
                   ts_cli_match(argc, argv, &i, "--model", &value)) {
            if (!value || !*value) return ts_cli_usage_error("inspect", "%s needs a folder", argv[i]);
            dir = value;
        } else {
            return ts_cli_usage_error("inspect", "unknown argument '%s'", argv[i]);
        }
    }
    if (!dir) return ts_cli_usage_error("inspect", "missing -m DIR");
    if (quantize && json) return ts_cli_usage_error("inspect", "--quantize prints text; it does not combine with --json");
    char dir_buf[4096];
    if (!(dir = ts_cli_resolve_model("inspect", dir, dir_buf, sizeof(dir_buf)))) return TS_EXIT_RUNTIME;

    ts_error err = {0};
    ts_model_config config;
    if (ts_model_config_load(dir, &config, &err)) return ts_cli_fail("inspect", &err);
    ts_checkpoint *ckpt = NULL;
    if (ts_checkpoint_open(dir, &ckpt, &err)) return ts_cli_fail("inspect", &err);
    summary s;
    ts_status st = summarize(ckpt, &s, &err);
    ts_checkpoint_close(ckpt);
    if (st) return ts_cli_fail("inspect", &err);
    if (json) print_json(dir, &config, &s);
    else {
        print_text(dir, &config, &s);
        print_kv(&config, context);
    }
    if (quantize) {
        /* The model quantized as run/compare would (a vision tower too), and the weight errors. */
        ts_context *ctx;
        ts_model *m = NULL;
        ts_context_options co = {.log_level = TS_LOG_WARN};
        ts_model_options mo = {.quantize = quantize};
        if (ts_context_create(&co, &ctx, &err)) return ts_cli_fail("inspect", &err);
        st = ts_model_load(ctx, dir, &mo, &m, &err);
        if (!st) printf("quantized:    %s\n", ts_model_quantization_summary(m));
        ts_model_destroy(m);
        ts_context_destroy(ctx);
        if (st) return ts_cli_fail("inspect", &err);
    }
    return TS_EXIT_OK;
}
