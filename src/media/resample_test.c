/* resample_test.c — ts_resample_rgb8 against PIL's Image.resize, byte for byte.
 *
 * Random images (noise makes bicubic overshoot, so clipping is exercised) and the fixture photos
 * go through many up- and down-scale factors, odd sizes, 1-pixel sides and one-axis-only resizes;
 * every byte must equal PIL's. Exit 77 (skip) when PIL is not installed.
 */
#include "media/resample.h"

#include "check.h"
#include "pil_oracle.h"

static uint8_t *random_image(int w, int h, uint32_t seed)
{
    uint8_t *p = malloc((size_t)w * h * 3);
    uint32_t s = seed * 2654435761u + 12345u;
    for (size_t i = 0; i < (size_t)w * h * 3; i++) {
        s = s * 1664525u + 1013904223u;
        p[i] = (uint8_t)(s >> 24);
    }
    /* Half the images get flat blocks too: edges between saturated regions clip hardest. */
    if (seed & 1)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                if (((x / 3) + (y / 2)) % 2)
                    memset(p + ((size_t)y * w + x) * 3, (x / 3) % 2 ? 255 : 0, 3);
    return p;
}

static long long compare_jobs(oracle_job *jobs, int n)
{
    long long total = 0;
    for (int i = 0; i < n; i++) {
        oracle_job *j = &jobs[i];
        size_t bytes = (size_t)j->out_width * j->out_height * 3;
        uint8_t *ours = malloc(bytes);
        ts_error err = {0};
        ts_status st = ts_resample_rgb8(j->src, j->width, j->height, ours, j->out_width,
                                        j->out_height, (ts_resample_filter)j->filter, &err);
        CHECK_INT_EQ(st, TS_OK);
        long long diff = 0;
        for (size_t b = 0; b < bytes && j->result; b++)
            diff += ours[b] != j->result[b];
        CHECK(j->result != NULL);
        if (diff)
            fprintf(stderr, "  %dx%d -> %dx%d filter %d: %lld bytes differ\n", j->width, j->height,
                    j->out_width, j->out_height, j->filter, diff);
        total += diff;
        free(ours);
        free(j->result);
        j->result = NULL;
    }
    return total;
}

static oracle O;

static void test_random_images(void)
{
    static const int sizes[][2] = {{1, 1},   {1, 9},   {9, 1},   {2, 3},   {5, 5},
                                   {13, 17}, {31, 97}, {64, 48}, {100, 7}, {127, 129}};
    static const double scales[] = {0.05, 0.1, 0.27, 0.5, 0.66, 0.999, 1.0, 1.5, 2.0, 3.7};
    enum { max_jobs = 1200 };
    oracle_job *jobs = calloc(max_jobs, sizeof(*jobs));
    uint8_t *images[sizeof(sizes) / sizeof(sizes[0])];
    int n = 0;
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        int w = sizes[s][0], h = sizes[s][1];
        images[s] = random_image(w, h, (uint32_t)s);
        for (size_t a = 0; a < sizeof(scales) / sizeof(scales[0]); a++)
            for (size_t b = 0; b < sizeof(scales) / sizeof(scales[0]); b++) {
                if ((a + b + s) % 2) continue; /* half the grid keeps the run short */
                int ow = (int)(w * scales[a] + 0.5), oh = (int)(h * scales[b] + 0.5);
                if (ow < 1) ow = 1;
                if (oh < 1) oh = 1;
                for (int filter = 2; filter <= 3; filter++)
                    jobs[n++] = (oracle_job){images[s], w, h, ow, oh, filter, NULL};
            }
    }
    CHECK(n <= max_jobs);
    CHECK_INT_EQ(oracle_resize_batch(&O, jobs, n), 0);
    long long diff = compare_jobs(jobs, n);
    fprintf(stderr, "  random: %d resizes, %lld differing bytes\n", n, diff);
    CHECK_INT_EQ(diff, 0);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        free(images[s]);
    free(jobs);
}

static void test_photos(void)
{
    const char *root = getenv("TS_ROOT") ? getenv("TS_ROOT") : ".";
    static const char *names[] = {"qwen2_vl-two-images/chelsea.png",
                                  "qwen2_vl-two-images/coffee.png"};
    /* The processors' real targets first, then a spread of odd sizes. */
    static const int targets[][2] = {{252, 168}, {288, 192}, {84, 56},   {56, 56},
                                     {56, 84},   {448, 308}, {1, 1},     {17, 301},
                                     {903, 601}, {451, 150}, {225, 300}, {333, 222}};
    for (size_t i = 0; i < 2; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/tests/fixtures/%s", root, names[i]);
        int w = 0, h = 0;
        uint8_t *rgb = oracle_decode(&O, path, &w, &h);
        CHECK(rgb != NULL);
        if (!rgb) continue;
        oracle_job jobs[2 * sizeof(targets) / sizeof(targets[0])];
        int n = 0;
        for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++)
            for (int filter = 2; filter <= 3; filter++)
                jobs[n++] = (oracle_job){rgb, w, h, targets[t][0], targets[t][1], filter, NULL};
        CHECK_INT_EQ(oracle_resize_batch(&O, jobs, n), 0);
        long long diff = compare_jobs(jobs, n);
        fprintf(stderr, "  %s: %d resizes, %lld differing bytes\n", names[i], n, diff);
        CHECK_INT_EQ(diff, 0);
        free(rgb);
    }
}

static void test_errors(void)
{
    uint8_t px[3] = {1, 2, 3}, out[12];
    ts_error err = {0};
    CHECK_INT_EQ(ts_resample_rgb8(px, 1, 1, out, 2, 2, (ts_resample_filter)1, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "filter 1");
    CHECK_INT_EQ(ts_resample_rgb8(px, 0, 1, out, 2, 2, TS_RESAMPLE_BICUBIC, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "0x1 -> 2x2");
    /* Same size is a copy, as in PIL. */
    CHECK_INT_EQ(ts_resample_rgb8(px, 1, 1, out, 1, 1, TS_RESAMPLE_BICUBIC, &err), TS_OK);
    CHECK(memcmp(out, px, 3) == 0);
}

int main(void)
{
    oracle_open(&O);
    RUN(test_errors);
    if (O.available) {
        RUN(test_random_images);
        RUN(test_photos);
    }
    oracle_close(&O);
    int rc = check_finish();
    return rc ? rc : (O.available ? 0 : 77);
}
