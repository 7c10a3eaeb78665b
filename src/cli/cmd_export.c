/* cmd_export.c — `tessera export`: a model's entries as a StableHLO bundle. */
#include "cli.h"
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int usage(FILE *out)
{
    fprintf(out, "usage: tessera export -m DIR -o BUNDLE [--capacity C[,C…]] [--prefill-capacity N] [--batch B]\n"
                 "                      [--draft-width K] [--vision-patches N[,N…]] [--audio-frames F[,F…]] [--quantize q8|q4]\n"
                 "                      [--portable [--python PATH]]\n"
                 "       tessera export --synthetic PRESET -o BUNDLE …   (a published shape, bf16 weights; no checkpoint)\n"
                 "  Writes prefill.main, prefill_embeddings.main and decode.main as StableHLO modules, one set per\n"
                 "  capacity bucket, and manifest.json (weights stay in DIR and are module arguments).\n"
                 "  --capacity          context capacity buckets, ascending (default 4096)\n"
                 "  --prefill-capacity  prompt rows of the prefill entries (default: the bucket's capacity)\n"
                 "  --batch             decode slots (default 1)\n"
                 "  --draft-width K     also write decode_k.main per bucket: K rows per slot verified in one call\n"
                 "                      (the pending token and K - 1 drafts: speculative decoding), 2..16\n"
                 "  --vision-patches    vision.main patch buckets, ascending (a fixed-size tower: its image's patch count)\n"
                 "  --audio-frames      audio.main duration buckets in feature frames per clip, ascending (100 a second;\n"
                 "                      one encoder pass: Phi-4-multimodal takes up to 4000), for a model with an audio encoder\n"
                 "  --quantize q8|q4    the language model's matrices quantized as `run --quantize` does (blocks of 32,\n"
                 "                      f16 scales); a GPTQ/AWQ checkpoint is exported quantized as published. The\n"
                 "                      integer weights, scales and zero points go in BUNDLE/quantized.safetensors\n"
                 "  --portable          also write each module as a StableHLO portable artifact (X.mlirbc, target 1.0.0),\n"
                 "                      serialized by the official StableHLO bindings that jaxlib ships\n"
                 "  --python PATH       the Python with jaxlib for --portable (default $TESSERA_PYTHON, else python3;\n"
                 "                      scripts/install-deps makes .venv/bin/python)\n");
    return out == stdout ? TS_EXIT_OK : TS_EXIT_USAGE;
}

/* "a,b,c" → up to 16 positive numbers; false on anything else. */
static bool parse_list(const char *v, int64_t *out, int *n)
{
    if (!v) return false;
    char *copy = strdup(v), *save = NULL;
    bool ok = copy != NULL;
    *n = 0;
    for (char *tok = ok ? strtok_r(copy, ",", &save) : NULL; tok && ok; tok = strtok_r(NULL, ",", &save)) {
        long long c;
        ok = *n < 16 && ts_cli_parse_int(tok, 1, 1 << 24, &c);
        if (ok) out[(*n)++] = c;
    }
    free(copy);
    return ok && *n > 0;
}

int cmd_export(int argc, char **argv)
{
    const char *model = NULL, *bundle = NULL, *synthetic = NULL, *quantize = NULL, *v;
    int64_t caps[16];
    int64_t patches[16], frames[16];
    int n_caps = 0, n_patches = 0, n_frames = 0;
    long long prefill = 0, batch = 1, draft_width = 0;
    bool portable = false;
    const char *python = getenv("TESSERA_PYTHON");
    for (int i = 1; i < argc; i++) {
        if (ts_cli_is_help(argv[i])) return usage(stdout);
        if (ts_cli_match(argc, argv, &i, "-m", &v) || ts_cli_match(argc, argv, &i, "--model", &v)) model = v;
        else if (ts_cli_match(argc, argv, &i, "-o", &v) || ts_cli_match(argc, argv, &i, "--output", &v)) bundle = v;
        else if (ts_cli_match(argc, argv, &i, "--synthetic", &v)) synthetic = v;
        else if (ts_cli_match(argc, argv, &i, "--capacity", &v)) {
            if (!parse_list(v, caps, &n_caps))
                return ts_cli_usage_error("export", "--capacity takes up to 16 positive numbers, e.g. 1024,4096");
        } else if (ts_cli_match(argc, argv, &i, "--vision-patches", &v)) {
            if (!parse_list(v, patches, &n_patches))
                return ts_cli_usage_error("export", "--vision-patches takes up to 16 positive numbers, e.g. 1024,4096");
        } else if (ts_cli_match(argc, argv, &i, "--audio-frames", &v)) {
            if (!parse_list(v, frames, &n_frames))
                return ts_cli_usage_error("export", "--audio-frames takes up to 16 positive numbers, e.g. 1000,3000");
        } else if (ts_cli_match(argc, argv, &i, "--prefill-capacity", &v)) {
            if (!ts_cli_parse_int(v, 1, 1 << 24, &prefill)) return ts_cli_usage_error("export", "--prefill-capacity needs a number");
        } else if (ts_cli_match(argc, argv, &i, "--batch", &v)) {
            if (!ts_cli_parse_int(v, 1, 64, &batch)) return ts_cli_usage_error("export", "--batch needs a number in 1..64");
        } else if (ts_cli_match(argc, argv, &i, "--draft-width", &v)) {
            if (!ts_cli_parse_int(v, 2, 16, &draft_width)) return ts_cli_usage_error("export", "--draft-width needs a number in 2..16");
        } else if (strcmp(argv[i], "--portable") == 0) portable = true;
        else if (ts_cli_match(argc, argv, &i, "--python", &v)) python = v;
        else if (ts_cli_match(argc, argv, &i, "--quantize", &v)) {
            if (!v || (strcmp(v, "q8") != 0 && strcmp(v, "q4") != 0)) return ts_cli_usage_error("export", "--quantize takes q8 or q4");
            quantize = v;
        }
        else return ts_cli_usage_error("export", "unknown argument '%s'", argv[i]);
    }
    if ((!model && !synthetic) || !bundle) return ts_cli_usage_error("export", "-m DIR (or --synthetic PRESET) and -o BUNDLE are required");
    char model_buf[4096];
    if (model && !(model = ts_cli_resolve_model("export", model, model_buf, sizeof(model_buf)))) return TS_EXIT_RUNTIME;
    ts_bundle_options o = {.capacities = n_caps ? caps : NULL, .n_capacities = n_caps, .prefill_capacity = prefill, .slots = batch,
                           .vision_patches = n_patches ? patches : NULL, .n_vision_patches = n_patches,
                           .audio_frames = n_frames ? frames : NULL, .n_audio_frames = n_frames,
                           .portable_python = portable ? (python && *python ? python : "python3") : NULL,
                           .quantize = quantize, .draft_width = draft_width};
    ts_error err;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ts_status st = synthetic ? ts_bundle_export_synthetic(synthetic, TS_DTYPE_BF16, bundle, &o, &err)
                             : ts_bundle_export(model, bundle, &o, &err);
    if (st != TS_OK) return ts_cli_fail("export", &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fprintf(stderr, "tessera export: %s written in %.0f ms\n", bundle,
            (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
    return TS_EXIT_OK;
}
