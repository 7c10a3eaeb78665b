/* processor_test.c — image processors against the fixtures' reference pixel values.
 *
 * Every image fixture's PNG is decoded by PIL at test time, preprocessed here, and compared with
 * `pixel_values` (max |diff| must be 0) and `image_grid_thw` (exact) in reference.safetensors.
 * smart_resize is checked on hand-picked cases (half-even ties, both branches, the pinned clamp,
 * the aspect limit) and on a random sweep against the reference formula in tools/pil_oracle.py.
 * Exit 77 (skip) when PIL is missing; the cases that need no oracle still run.
 */
#include "media/clip_processor.h"
#include "models/family.h"
#include "models/qwen2_vl/qwen_vl_processor.h"

#include "check.h"
#include "pil_oracle.h"

static oracle O;

static const char *root(void)
{
    return getenv("TS_ROOT") ? getenv("TS_ROOT") : ".";
}

static ts_preprocessor_config load_config(const char *fixture)
{
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/tests/fixtures/%s/model", root(), fixture);
    ts_preprocessor_config cfg;
    ts_error err = {0};
    ts_status st = ts_preprocessor_config_load(dir, &cfg, &err);
    if (st) fprintf(stderr, "  %s\n", err.message);
    CHECK_INT_EQ(st, TS_OK);
    return cfg;
}

typedef struct fixture_case {
    const char *name;
    const char *family;
    const char *images[2];
} fixture_case;

static const fixture_case fixtures[] = {
    {"qwen2_vl", "qwen2_vl", {"chelsea.png"}},
    {"qwen2_5_vl", "qwen2_5_vl", {"chelsea.png"}},
    {"qwen2_vl-two-images", "qwen2_vl", {"chelsea.png", "coffee.png"}},
    {"qwen3_vl", "qwen3_vl", {"chelsea.png"}},
    {"llava", "llava", {"chelsea.png"}},
    {"llava_siglip", "llava", {"chelsea.png"}},
    {"gemma3", "gemma3", {"chelsea.png"}},
};

static void check_fixture(const fixture_case *fc)
{
    ts_preprocessor_config cfg = load_config(fc->name);
    char path[4096];
    snprintf(path, sizeof(path), "%s/tests/fixtures/%s/reference.safetensors", root(), fc->name);
    ts_checkpoint *ref = NULL;
    ts_error err = {0};
    CHECK_INT_EQ(ts_checkpoint_open(path, &ref, &err), TS_OK);
    if (!ref) return;
    const ts_tensor_info *want = ts_checkpoint_find(ref, "pixel_values");
    const ts_tensor_info *grid = ts_checkpoint_find(ref, "image_grid_thw");
    CHECK(want && want->dtype == TS_DTYPE_F32);
    bool qwen = strcmp(fc->family, "llava") != 0 && strcmp(fc->family, "gemma3") != 0;
    CHECK(!qwen || (grid && grid->dtype == TS_DTYPE_I64));
    int64_t rows = 0, max_rows = want ? want->shape[0] : 0;
    size_t offset = 0; /* floats consumed from the reference */
    float max_diff = 0;
    int n_images = 0;
    for (int i = 0; i < 2 && fc->images[i] && want; i++, n_images++) {
        snprintf(path, sizeof(path), "%s/tests/fixtures/%s/%s", root(), fc->name, fc->images[i]);
        int w = 0, h = 0;
        uint8_t *rgb = oracle_decode(&O, path, &w, &h);
        CHECK(rgb != NULL);
        if (!rgb) break;
        ts_pixel_values pv;
        ts_status st = ts_preprocess_image(&cfg, ts_family_find(fc->family), rgb, w, h, NULL, &pv, &err);
        if (st) fprintf(stderr, "  %s: %s\n", fc->name, err.message);
        CHECK_INT_EQ(st, TS_OK);
        free(rgb);
        if (st) break;
        size_t n = 1;
        for (int d = 0; d < pv.n_dims; d++)
            n *= (size_t)pv.shape[d];
        /* Images are stacked along the first axis, so the remaining axes must agree. */
        CHECK_INT_EQ(pv.n_dims, want->n_dims);
        for (int d = 1; d < pv.n_dims && d < want->n_dims; d++)
            CHECK_INT_EQ(pv.shape[d], want->shape[d]);
        rows += pv.shape[0];
        CHECK(rows <= max_rows);
        if (rows > max_rows) {
            ts_pixel_values_free(&pv);
            break;
        }
        const float *ref_px = (const float *)want->data + offset;
        for (size_t k = 0; k < n; k++) {
            float d = fabsf(pv.data[k] - ref_px[k]);
            if (!(d <= max_diff)) max_diff = d; /* NaN sticks */
        }
        offset += n;
        if (qwen && grid && i < grid->shape[0]) {
            const int64_t *g = (const int64_t *)grid->data + 3 * i;
            for (int a = 0; a < 3; a++)
                CHECK_INT_EQ(pv.grid_thw[a], g[a]);
            CHECK_INT_EQ(pv.n_tokens, g[0] * g[1] * g[2] / (cfg.merge_size * cfg.merge_size));
        }
        ts_pixel_values_free(&pv);
    }
    CHECK_INT_EQ(rows, max_rows);
    if (qwen && grid) CHECK_INT_EQ(grid->shape[0], n_images);
    fprintf(stderr, "  %-20s %d image(s), %lld rows, max |diff| %g\n", fc->name, n_images,
            (long long)rows, (double)max_diff);
    CHECK(max_diff == 0.0f);
    ts_checkpoint_close(ref);
}

static void test_fixtures(void)
{
    for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
        check_fixture(&fixtures[i]);
}

static void expect_size(int64_t h, int64_t w, int64_t f, int64_t lo, int64_t hi, int64_t want_h,
                        int64_t want_w)
{
    int64_t oh = -1, ow = -1;
    ts_error err = {0};
    CHECK_INT_EQ(ts_qwen_smart_resize(h, w, f, lo, hi, &oh, &ow, &err), TS_OK);
    if (oh != want_h || ow != want_w)
        fprintf(stderr,
                "  smart_resize(%lld, %lld, %lld, %lld, %lld) = (%lld, %lld), want (%lld, %lld)\n",
                (long long)h, (long long)w, (long long)f, (long long)lo, (long long)hi,
                (long long)oh, (long long)ow, (long long)want_h, (long long)want_w);
    CHECK_INT_EQ(oh, want_h);
    CHECK_INT_EQ(ow, want_w);
}

static void test_smart_resize_cases(void)
{
    /* 70/28 = 2.5 and 98/28 = 3.5: Python rounds both ties to even (2, 4). */
    expect_size(70, 98, 28, 3136, 1000000, 56, 112);
    expect_size(70, 70, 28, 3136, 1000000, 56, 56);
    /* 14/28 = 0.5 rounds to 0, below min_pixels: the min branch scales up. */
    expect_size(14, 14, 28, 3136, 1000000, 56, 56);
    expect_size(10, 10, 28, 3136, 1000000, 56, 56);
    expect_size(1, 200, 28, 3136, 1000000, 28, 812);
    /* Max branch; the pinned clamp keeps the short side at one factor instead of 0. */
    expect_size(28, 4200, 28, 3136, 3136, 28, 672);
    /* The fixtures: chelsea (451x300) and coffee (600x400) under their configs. */
    expect_size(300, 451, 28, 3136, 50176, 168, 252);
    expect_size(400, 600, 28, 3136, 50176, 168, 252);
    expect_size(300, 451, 32, 4096, 65536, 192, 288);
    expect_size(56, 56, 28, 3136, 50176, 56, 56);

    int64_t oh, ow;
    ts_error err = {0};
    CHECK_INT_EQ(ts_qwen_smart_resize(1, 201, 28, 3136, 1000000, &oh, &ow, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "aspect ratio 201.00");
    CHECK_CONTAINS(err.message, "at most 200");
    CHECK_INT_EQ(ts_qwen_smart_resize(201, 1, 28, 3136, 1000000, &oh, &ow, &err), TS_ERR_RANGE);
    CHECK_INT_EQ(ts_qwen_smart_resize(0, 5, 28, 3136, 1000000, &oh, &ow, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "empty");
    CHECK_INT_EQ(ts_qwen_smart_resize(5, 5, 28, 5000, 4000, &oh, &ow, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "min 5000, max 4000");
}

/* Random sizes and budgets (many near .5 ties and both branches) against the reference formula. */
static void test_smart_resize_sweep(void)
{
    enum { n = 3000 };
    static int64_t cases[n][5];
    char path[128], cmd[8192];
    snprintf(path, sizeof(path), "%s/smart_resize.txt", O.dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    uint32_t s = 7;
    for (int i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        int64_t factor = (s >> 8) % 2 ? 28 : 32;
        s = s * 1664525u + 1013904223u;
        int64_t h = 1 + (s >> 8) % 4000;
        s = s * 1664525u + 1013904223u;
        int64_t w = 1 + (s >> 8) % 4000;
        if (i % 3 == 0) h = factor * (1 + (s >> 20) % 40) + factor / 2; /* an exact tie */
        s = s * 1664525u + 1013904223u;
        int64_t lo = factor * factor * (1 + (s >> 8) % 64);
        s = s * 1664525u + 1013904223u;
        int64_t hi = lo + factor * factor * ((s >> 8) % 2000);
        int64_t c[5] = {h, w, factor, lo, hi};
        memcpy(cases[i], c, sizeof(c));
        fprintf(f, "%lld %lld %lld %lld %lld\n", (long long)h, (long long)w, (long long)factor,
                (long long)lo, (long long)hi);
    }
    fclose(f);
    int len = snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s' smart_resize '%s'", O.script, path);
    FILE *p = len < (int)sizeof(cmd) ? popen(cmd, "r") : NULL;
    CHECK(p != NULL);
    if (!p) return;
    int mismatches = 0, errors = 0;
    for (int i = 0; i < n; i++) {
        char line[128];
        if (!fgets(line, sizeof(line), p)) {
            CHECK(!"oracle output ended early");
            break;
        }
        int64_t oh = 0, ow = 0;
        ts_error err = {0};
        ts_status st = ts_qwen_smart_resize(cases[i][0], cases[i][1], cases[i][2], cases[i][3],
                                            cases[i][4], &oh, &ow, &err);
        long long wh, ww;
        bool ref_error = strncmp(line, "error", 5) == 0;
        errors += ref_error;
        bool same = ref_error ? st == TS_ERR_RANGE
                              : (st == TS_OK && sscanf(line, "%lld %lld", &wh, &ww) == 2 &&
                                 wh == oh && ww == ow);
        if (!same && mismatches++ < 5)
            fprintf(stderr, "  case %lld %lld %lld %lld %lld: reference %s", (long long)cases[i][0],
                    (long long)cases[i][1], (long long)cases[i][2], (long long)cases[i][3],
                    (long long)cases[i][4], line);
    }
    CHECK_INT_EQ(pclose(p), 0);
    fprintf(stderr, "  %d cases (%d aspect errors), %d mismatches\n", n, errors, mismatches);
    CHECK_INT_EQ(mismatches, 0);
}

/* The seed project's 56x56 example: grid (1, 4, 4), rows in merge-unit order. */
static void test_patch_order(void)
{
    ts_preprocessor_config cfg = load_config("qwen2_vl");
    cfg.do_rescale = cfg.do_normalize = false; /* raw values identify the source pixel */
    enum { S = 56, P = 14 };
    static uint8_t rgb[S * S * 3];
    for (int y = 0; y < S; y++)
        for (int x = 0; x < S; x++) {
            uint8_t *px = rgb + (y * S + x) * 3;
            px[0] = (uint8_t)((y / P) * 4 + x / P); /* raster patch index */
            px[1] = (uint8_t)(y % P);
            px[2] = (uint8_t)(x % P);
        }
    ts_pixel_values pv;
    ts_error err = {0};
    CHECK_INT_EQ(ts_preprocess_image(&cfg, ts_family_find("qwen2_vl"), rgb, S, S, NULL, &pv, &err), TS_OK);
    if (!pv.data) return;
    CHECK_INT_EQ(pv.grid_thw[0], 1);
    CHECK_INT_EQ(pv.grid_thw[1], 4);
    CHECK_INT_EQ(pv.grid_thw[2], 4);
    CHECK_INT_EQ(pv.shape[0], 16);
    CHECK_INT_EQ(pv.shape[1], 3 * 2 * P * P);
    CHECK_INT_EQ(pv.n_tokens, 4);
    static const int order[16] = {0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15};
    int bad = 0;
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 3; c++)
            for (int t = 0; t < 2; t++)
                for (int py = 0; py < P; py++)
                    for (int px = 0; px < P; px++) {
                        float v = pv.data[r * pv.shape[1] + ((c * 2 + t) * P + py) * P + px];
                        float want = c == 0 ? (float)order[r] : c == 1 ? (float)py : (float)px;
                        bad += v != want;
                    }
    CHECK_INT_EQ(bad, 0);
    ts_pixel_values_free(&pv);
    CHECK(pv.data == NULL);
}

static void test_budget(void)
{
    ts_preprocessor_config cfg = load_config("qwen2_vl");
    enum { W = 451, H = 300 };
    uint8_t *rgb = calloc((size_t)W * H, 3);
    ts_pixel_values pv;
    ts_error err = {0};
    /* A budget of 16 merged tokens instead of the config's 64. */
    ts_image_budget small = {0, 28 * 28 * 16};
    CHECK_INT_EQ(ts_preprocess_image(&cfg, ts_family_find("qwen2_vl"), rgb, W, H, &small, &pv, &err),
                 TS_OK);
    int64_t oh, ow;
    CHECK_INT_EQ(ts_qwen_smart_resize(H, W, 28, cfg.min_pixels, small.max_pixels, &oh, &ow, &err),
                 TS_OK);
    CHECK_INT_EQ(pv.resized_height, oh);
    CHECK_INT_EQ(pv.resized_width, ow);
    CHECK_INT_EQ(pv.grid_thw[1] * 14, oh);
    CHECK_INT_EQ(pv.grid_thw[2] * 14, ow);
    CHECK(pv.n_tokens <= 16);
    CHECK_INT_EQ(pv.n_tokens, pv.shape[0] / 4);
    ts_pixel_values_free(&pv);
    /* A larger minimum scales the image up: beta = sqrt(313600 / 135300), sides
     * ceil(300·beta/28)·28 = 476 and ceil(451·beta/28)·28 = 700, i.e. 17x25 merged tokens. */
    ts_image_budget big = {28 * 28 * 400, 28 * 28 * 1000};
    CHECK_INT_EQ(ts_preprocess_image(&cfg, ts_family_find("qwen2_vl"), rgb, W, H, &big, &pv, &err), TS_OK);
    CHECK_INT_EQ(pv.resized_height, 476);
    CHECK_INT_EQ(pv.resized_width, 700);
    CHECK_INT_EQ(pv.n_tokens, 425);
    CHECK_INT_EQ(pv.resized_height * pv.resized_width, pv.shape[0] * 14 * 14);
    ts_pixel_values_free(&pv);
    /* Zero fields take the config's values: the same as no budget. */
    ts_image_budget none = {0, 0};
    CHECK_INT_EQ(ts_preprocess_image(&cfg, ts_family_find("qwen2_vl"), rgb, W, H, &none, &pv, &err), TS_OK);
    CHECK_INT_EQ(pv.grid_thw[1], 12);
    CHECK_INT_EQ(pv.grid_thw[2], 18);
    ts_pixel_values_free(&pv);
    /* Impossible budgets. */
    ts_image_budget crossed = {28 * 28 * 100, 28 * 28 * 10};
    CHECK_INT_EQ(ts_preprocess_image(&cfg, ts_family_find("qwen2_vl"), rgb, W, H, &crossed, &pv, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "need 0 < min <= max");
    ts_image_budget negative = {-1, 0};
    CHECK_INT_EQ(ts_preprocess_image(&cfg, ts_family_find("qwen2_vl"), rgb, W, H, &negative, &pv, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "must not be negative");
    ts_image_budget huge = {(int64_t)1 << 40, (int64_t)1 << 41};
    CHECK_INT_EQ(ts_preprocess_image(&cfg, ts_family_find("qwen2_vl"), rgb, W, H, &huge, &pv, &err),
                 TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "lower min_pixels");
    CHECK(pv.data == NULL);
    free(rgb);
}

static void test_errors(void)
{
    ts_preprocessor_config qwen = load_config("qwen2_vl"), clip = load_config("llava");
    uint8_t px[3 * 201] = {0};
    ts_pixel_values pv;
    ts_error err = {0};
    CHECK_INT_EQ(ts_preprocess_image(&qwen, ts_family_find("qwen2_vl"), px, 0, 1, NULL, &pv, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "0x1");
    CHECK_INT_EQ(ts_preprocess_image(&qwen, ts_family_find("qwen2_vl"), px, 201, 1, NULL, &pv, &err),
                 TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "aspect ratio");
    CHECK_INT_EQ(ts_preprocess_image(&qwen, ts_family_find("qwen2"), px, 1, 1, NULL, &pv, &err),
                 TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "takes no images");
    CHECK_INT_EQ(ts_preprocess_image(&clip, ts_family_find("qwen2_vl"), px, 1, 1, NULL, &pv, &err),
                 TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "CLIPImageProcessor");
    /* A 224-px short edge on a 5000x1 strip would be 1.1 million pixels wide: refused, with the
     * sizes in the message. */
    static uint8_t strip[5000 * 3];
    clip.size_shortest_edge = 224;
    CHECK_INT_EQ(ts_preprocess_image(&clip, ts_family_find("llava"), strip, 5000, 1, NULL, &pv, &err),
                 TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "5000x1 would resize to 1120000x224");
    clip.resample = 1;
    CHECK_INT_EQ(ts_preprocess_image(&clip, ts_family_find("llava"), px, 1, 1, NULL, &pv, &err),
                 TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "resample 1");
    /* A 200:1 image is allowed (the limit is strict) and reaches the min_pixels branch. */
    CHECK_INT_EQ(ts_preprocess_image(&qwen, ts_family_find("qwen2_vl"), px, 200, 1, NULL, &pv, &err),
                 TS_OK);
    CHECK_INT_EQ(pv.grid_thw[1], 2);
    CHECK_INT_EQ(pv.grid_thw[2], 58);
    ts_pixel_values_free(&pv);
    /* Without do_resize the image must already be a multiple of patch_size·merge_size. */
    static uint8_t square[57 * 56 * 3];
    qwen.do_resize = false;
    CHECK_INT_EQ(ts_preprocess_image(&qwen, ts_family_find("qwen2_vl"), square, 56, 56, NULL, &pv, &err),
                 TS_OK);
    CHECK_INT_EQ(pv.shape[0], 16);
    ts_pixel_values_free(&pv);
    CHECK_INT_EQ(ts_preprocess_image(&qwen, ts_family_find("qwen2_vl"), square, 57, 56, NULL, &pv, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "not a multiple of patch_size·merge_size = 28");
}

static void test_clip_sizes(void)
{
    int64_t w, h;
    ts_clip_shortest_edge_size(451, 300, 56, &w, &h);
    CHECK_INT_EQ(w, 84);
    CHECK_INT_EQ(h, 56);
    ts_clip_shortest_edge_size(300, 451, 56, &w, &h);
    CHECK_INT_EQ(w, 56);
    CHECK_INT_EQ(h, 84);
    ts_clip_shortest_edge_size(7, 7, 224, &w, &h);
    CHECK_INT_EQ(w, 224);
    CHECK_INT_EQ(h, 224);
    /* A crop larger than the resized image pads with zeros around it, as the reference does:
     * with no resize, a 2x1 image cropped to 4x3 sits at columns 1-2, row 1. */
    ts_preprocessor_config cfg = load_config("llava");
    cfg.do_resize = cfg.do_rescale = cfg.do_normalize = false;
    cfg.crop_width = 4;
    cfg.crop_height = 3;
    uint8_t px[6] = {10, 20, 30, 40, 50, 60};
    ts_pixel_values pv;
    ts_error err = {0};
    CHECK_INT_EQ(ts_preprocess_image(&cfg, ts_family_find("llava"), px, 2, 1, NULL, &pv, &err), TS_OK);
    if (!pv.data) return;
    CHECK_INT_EQ(pv.shape[2], 3);
    CHECK_INT_EQ(pv.shape[3], 4);
    static const float red[12] = {0, 0, 0, 0, 0, 10, 40, 0, 0, 0, 0, 0};
    CHECK(memcmp(pv.data, red, sizeof(red)) == 0);
    ts_pixel_values_free(&pv);
}

typedef struct sweep_job {
    ts_preprocessor_config cfg;
    const char *family;
    int width, height;
    uint32_t seed;
} sweep_job;

static uint8_t *noise_image(int w, int h, uint32_t seed)
{
    uint8_t *p = malloc((size_t)w * h * 3);
    uint32_t s = seed * 2654435761u + 1u;
    for (size_t i = 0; i < (size_t)w * h * 3; i++) {
        s = s * 1664525u + 1013904223u;
        /* A gradient plus noise: smooth enough to look like a picture, rough enough to clip. */
        p[i] = (uint8_t)(((i / 3) % (size_t)w) * 200 / (size_t)w + (s >> 27));
    }
    return p;
}

static void write_params(FILE *m, const sweep_job *j)
{
    const ts_preprocessor_config *c = &j->cfg;
    if (c->do_pan_and_scan)
        fprintf(m, "pas %lld %lld %d %lld %lld %.17g", (long long)c->size_height,
                (long long)c->size_width, c->resample, (long long)c->pan_and_scan_min_crop_size,
                (long long)c->pan_and_scan_max_num_crops, c->pan_and_scan_min_ratio_to_activate);
    else if (strcmp(j->family, "llava") == 0 || strcmp(j->family, "gemma3") == 0)
        fprintf(m, "clip %lld %lld %lld %lld %lld %d", (long long)c->size_shortest_edge,
                (long long)c->size_height, (long long)c->size_width,
                c->do_center_crop ? (long long)c->crop_height : 0LL,
                c->do_center_crop ? (long long)c->crop_width : 0LL, c->resample);
    else
        fprintf(m, "qwen %lld %lld %lld %lld %lld", (long long)c->patch_size,
                (long long)c->temporal_patch_size, (long long)c->merge_size,
                (long long)c->min_pixels, (long long)c->max_pixels);
    /* %.17g round-trips a double, so Python sees the very same constants. */
    fprintf(m, " %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", c->rescale_factor, c->image_mean[0],
            c->image_mean[1], c->image_mean[2], c->image_std[0], c->image_std[1], c->image_std[2]);
}

/* Random sizes and processor settings beyond the fixtures (odd crops, crops larger than the
 * image, other patch/temporal/merge sizes, budgets) against the reference's numpy pipeline. */
static void test_pipeline_sweep(void)
{
    ts_preprocessor_config qwen = load_config("qwen2_vl"), qwen3 = load_config("qwen3_vl"),
                           clip = load_config("llava"), siglip = load_config("llava_siglip"),
                           gemma = load_config("gemma3");
    ts_preprocessor_config odd_qwen = qwen, small_budget = qwen, pad_clip = clip, odd_clip = clip,
                           big_clip = clip, wide_gemma = gemma, pas_gemma = gemma,
                           pas_small = gemma;
    /* Pan-and-scan: crops of at least 20 pixels, up to 4; and of 5 pixels, up to 3, from 1.5. */
    pas_gemma.do_pan_and_scan = true, pas_gemma.pan_and_scan_min_crop_size = 20;
    pas_small.do_pan_and_scan = true, pas_small.pan_and_scan_min_crop_size = 5;
    pas_small.pan_and_scan_max_num_crops = 3, pas_small.pan_and_scan_min_ratio_to_activate = 1.5;
    odd_qwen.patch_size = 8, odd_qwen.temporal_patch_size = 3, odd_qwen.merge_size = 3;
    odd_qwen.image_mean[1] = 0.25, odd_qwen.image_std[2] = 0.125;
    small_budget.min_pixels = 28 * 28 * 4, small_budget.max_pixels = 28 * 28 * 30;
    pad_clip.size_shortest_edge = 30, pad_clip.crop_height = 40, pad_clip.crop_width = 50;
    odd_clip.size_shortest_edge = 47, odd_clip.crop_height = 31, odd_clip.crop_width = 33;
    big_clip.size_shortest_edge = 224, big_clip.crop_height = big_clip.crop_width = 224;
    wide_gemma.size_height = 40, wide_gemma.size_width = 70;
    const struct {
        const ts_preprocessor_config *cfg;
        const char *family;
    } kinds[] = {{&qwen, "qwen2_vl"},         {&qwen3, "qwen3_vl"},    {&odd_qwen, "qwen2_5_vl"},
                 {&small_budget, "qwen2_vl"}, {&clip, "llava"},        {&pad_clip, "llava"},
                 {&odd_clip, "llava"},        {&big_clip, "llava"},    {&siglip, "llava"},
                 {&gemma, "gemma3"},          {&wide_gemma, "gemma3"}, {&pas_gemma, "gemma3"},
                 {&pas_small, "gemma3"}};
    static const int sizes[][2] = {{13, 900}, {900, 13},   {64, 64}, {333, 777}, {150, 1},
                                   {29, 29},  {1000, 700}, {56, 56}, {57, 111},  {7, 5}};
    enum { n_kinds = sizeof(kinds) / sizeof(kinds[0]), n_sizes = sizeof(sizes) / sizeof(sizes[0]) };
    static sweep_job jobs[n_kinds * n_sizes];
    char path[160], manifest[128], cmd[8192];
    snprintf(manifest, sizeof(manifest), "%s/process.txt", O.dir);
    FILE *m = fopen(manifest, "w");
    CHECK(m != NULL);
    if (!m) return;
    int n = 0;
    for (int k = 0; k < n_kinds; k++)
        for (int s = 0; s < n_sizes; s++, n++) {
            jobs[n] =
                (sweep_job){*kinds[k].cfg, kinds[k].family, sizes[s][0], sizes[s][1], (uint32_t)n};
            uint8_t *rgb = noise_image(jobs[n].width, jobs[n].height, jobs[n].seed);
            snprintf(path, sizeof(path), "%s/img%d.rgb", O.dir, n);
            CHECK_INT_EQ(oracle_write_file(path, rgb, (size_t)jobs[n].width * jobs[n].height * 3),
                         0);
            free(rgb);
            fprintf(m, "%s %d %d %s/px%d.f32 ", path, jobs[n].width, jobs[n].height, O.dir, n);
            write_params(m, &jobs[n]);
        }
    fclose(m);
    int len = snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s' process '%s'", O.script, manifest);
    CHECK(len < (int)sizeof(cmd) && oracle_run(cmd) == 0);
    float max_diff = 0;
    int failed = 0, with_crops = 0;
    for (int i = 0; i < n; i++) {
        uint8_t *rgb = noise_image(jobs[i].width, jobs[i].height, jobs[i].seed);
        ts_pixel_values pv;
        ts_error err = {0};
        ts_status st = ts_preprocess_image(&jobs[i].cfg, ts_family_find(jobs[i].family), rgb, jobs[i].width,
                                           jobs[i].height, NULL, &pv, &err);
        free(rgb);
        if (st) fprintf(stderr, "  job %d: %s\n", i, err.message);
        CHECK_INT_EQ(st, TS_OK);
        size_t count = 1;
        for (int d = 0; d < pv.n_dims; d++)
            count *= (size_t)pv.shape[d];
        with_crops += st == TS_OK && jobs[i].cfg.do_pan_and_scan && pv.shape[0] > 1;
        snprintf(path, sizeof(path), "%s/px%d.f32", O.dir, i);
        float *want = st ? NULL : (float *)oracle_read_file(path, count * sizeof(float));
        float job_diff = want ? 0 : INFINITY;
        for (size_t e = 0; want && e < count; e++) {
            float d = fabsf(pv.data[e] - want[e]);
            if (!(d <= job_diff)) job_diff = d;
        }
        if (!(job_diff == 0) && failed++ < 5)
            fprintf(stderr, "  job %d (%s, %dx%d): max |diff| %g (or size mismatch)\n", i,
                    jobs[i].cfg.image_processor_type, jobs[i].width, jobs[i].height,
                    (double)job_diff);
        if (!(job_diff <= max_diff)) max_diff = job_diff;
        free(want);
        ts_pixel_values_free(&pv);
    }
    fprintf(stderr,
            "  %d images through %d processor settings (%d cut by pan-and-scan), max |diff| %g\n",
            n, n_kinds, with_crops, (double)max_diff);
    CHECK_INT_EQ(failed, 0);
    CHECK(with_crops >= 6); /* the pan-and-scan settings do cut the long thin images */
}

int main(void)
{
    oracle_open(&O);
    RUN(test_smart_resize_cases);
    RUN(test_patch_order);
    RUN(test_budget);
    RUN(test_errors);
    RUN(test_clip_sizes);
    if (O.available) {
        RUN(test_smart_resize_sweep);
        RUN(test_fixtures);
        RUN(test_pipeline_sweep);
    }
    oracle_close(&O);
    int rc = check_finish();
    return rc ? rc : (O.available ? 0 : 77);
}
