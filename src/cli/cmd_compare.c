/* cmd_compare.c — `tessera compare`: a model against a reference file, stage by stage, naming
 * the first stage that diverges. Exit 0 when every stage matches, 1 otherwise. */
#include "cli.h"
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>

#define MAX_IMAGES 16

/* Each file decoded and preprocessed by the model's own processor (dir's processor config). */
static ts_status load_images(const char *dir, const ts_model *m, const char *const *files, int n, ts_pixel_values *out,
                             ts_error *err)
{
    if (n == 0) return TS_OK;
    ts_preprocessor_config pc;
    ts_status st = ts_preprocessor_config_load(dir, &pc, err);
    for (int i = 0; st == TS_OK && i < n; i++) {
        ts_image img;
        st = ts_image_load(files[i], NULL, &img, err);
        if (st == TS_OK)
            st = ts_preprocess_image(&pc, ts_model_get_config(m)->family, img.rgb, img.width, img.height, NULL, &out[i], err);
        ts_image_free(&img);
    }
    return st;
}

static int usage(FILE *out)
{
    fprintf(out, "usage: tessera compare -m DIR --reference FILE.safetensors [--image FILE]... [--threads N] [--quantize q8|q4]\n"
                 "                       [--compute f32|bf16|bf16x2|int8|auto]\n"
                 "  Runs DIR's model on the reference's inputs and compares every stage it holds (image embeddings,\n"
                 "  positions, merged embeddings, each layer's hidden state and KV, prefill and decode logits, greedy\n"
                 "  tokens) within 1e-4 × max(1, max |ref|), or 4 × the stage's f32-vs-float64 gap where the reference\n"
                 "  records one (f64_gap_<stage>); prints each stage and the first that diverges.\n"
                 "  The file format is the fixtures' (tests/fixtures/README.md).\n"
                 "  --image FILE (up to 16, in prompt order): the prompt's images, preprocessed by DIR's processor, for a\n"
                 "  reference that keeps the image file rather than its pixel values (Phi-4-multimodal's).\n"
                 "  --quantize q8|q4 quantizes the model's matrices at load first: the weight error is printed and\n"
                 "  each stage's difference is then the quantization's error against the reference.\n"
                 "  --compute (default f32, exact): the matmul precision, as run's; with --quantize, int8 or auto\n"
                 "  reports the error of the int8-activation (W8A8) path that run and serve take by default.\n");
    return out == stdout ? TS_EXIT_OK : TS_EXIT_USAGE;
}

static void print_stage(void *user, const char *stage, double diff, double tol, bool ok)
{
    (void)user;
    printf("%-22s %-4s max |diff| %-10.3g tolerance %.3g\n", stage, ok ? "ok" : "FAIL", diff, tol);
}

int cmd_compare(int argc, char **argv)
{
    const char *model = NULL, *reference = NULL, *quantize = NULL, *compute = "f32", *v, *image_files[MAX_IMAGES];
    int n_image_files = 0;
    long long threads = 0;
    for (int i = 1; i < argc; i++) {
        if (ts_cli_is_help(argv[i])) return usage(stdout);
        if (ts_cli_match(argc, argv, &i, "-m", &v) || ts_cli_match(argc, argv, &i, "--model", &v)) model = v;
        else if (ts_cli_match(argc, argv, &i, "--reference", &v)) reference = v;
        else if (ts_cli_match(argc, argv, &i, "--image", &v)) {
            if (!v) return ts_cli_usage_error("compare", "--image needs a file");
            if (n_image_files == MAX_IMAGES) return ts_cli_usage_error("compare", "at most %d --image files", MAX_IMAGES);
            image_files[n_image_files++] = v;
        }
        else if (ts_cli_match(argc, argv, &i, "--quantize", &v)) {
            if (!v) return ts_cli_usage_error("compare", "--quantize needs q8 or q4");
            quantize = v;
        }
        else if (ts_cli_match(argc, argv, &i, "--compute", &v)) {
            if (!v) return ts_cli_usage_error("compare", "--compute needs f32, bf16, bf16x2, int8 or auto");
            compute = v;
        }
        else if (ts_cli_match(argc, argv, &i, "--threads", &v)) {
            if (!ts_cli_parse_int(v, 1, 1024, &threads)) return ts_cli_usage_error("compare", "--threads needs a number");
        } else return ts_cli_usage_error("compare", "unknown argument '%s'", argv[i]);
    }
    if (!model || !reference) return ts_cli_usage_error("compare", "-m DIR and --reference FILE are required");
    char model_buf[4096];
    if (!(model = ts_cli_resolve_model("compare", model, model_buf, sizeof(model_buf)))) return TS_EXIT_RUNTIME;
    ts_error err;
    ts_context *ctx;
    ts_context_options o = {.n_threads = (int)threads, .compute = compute};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return ts_cli_fail("compare", &err);
    char choice[160];
    printf("compute %s\n", ts_context_compute_summary(ctx, choice, sizeof(choice)));
    ts_model *m;
    ts_model_options mo = {.quantize = quantize};
    if (ts_model_load(ctx, model, &mo, &m, &err) != TS_OK) {
        ts_context_destroy(ctx);
        return ts_cli_fail("compare", &err);
    }
    if (quantize) printf("quantized %s\n", ts_model_quantization_summary(m));
    char *first = NULL;
    ts_pixel_values images[MAX_IMAGES] = {0};
    ts_status st = load_images(model, m, image_files, n_image_files, images, &err);
    if (st == TS_OK) st = ts_model_compare_images(m, reference, images, n_image_files, print_stage, NULL, &first, &err);
    for (int i = 0; i < n_image_files; i++) ts_pixel_values_free(&images[i]);
    ts_model_destroy(m);
    ts_context_destroy(ctx);
    if (st != TS_OK) return ts_cli_fail("compare", &err);
    if (first) printf("first divergent stage: %s\n", first);
    else printf("every stage matches\n");
    int rc = first ? TS_EXIT_RUNTIME : TS_EXIT_OK;
    free(first);
    return rc;
}
