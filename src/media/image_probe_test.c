/* image_probe_test.c — ts_image_probe agrees with the decoder's size on every fixture format
 * (PNG, baseline and progressive JPEG, lossy and lossless WebP; before orientation, so a rotated
 * one has its sides swapped), and refuses truncated headers and other formats with the decoder's statuses. */
#include "check.h"
#include "tessera.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)n);
    *len = d ? fread(d, 1, (size_t)n, f) : 0;
    fclose(f);
    return d;
}

static void test_fixtures(void)
{
    const char *files[] = {"tests/fixtures/media/tiny.png", "tests/fixtures/media/tiny.jpg", "tests/fixtures/media/progressive.jpg",
                           "tests/fixtures/media/tiny_lossy.webp", "tests/fixtures/media/tiny_alpha_lossless.webp",
                           "tests/fixtures/qwen2_vl/chelsea.png"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        size_t len;
        uint8_t *d = slurp(files[i], &len);
        CHECK(d != NULL);
        if (!d) continue;
        ts_image img;
        ts_error err = {0};
        int64_t w, h;
        REQUIRE_INT_EQ(ts_image_decode(d, len, NULL, &img, &err), TS_OK);
        CHECK_INT_EQ(ts_image_probe(d, len, &w, &h, &err), TS_OK);
        /* Before orientation: an EXIF-rotated fixture decodes with its sides swapped. */
        CHECK((w == img.width && h == img.height) || (w == img.height && h == img.width));
        printf("  %s: %lld x %lld\n", files[i], (long long)w, (long long)h);
        /* A header cut short is a format error, never a size. */
        CHECK(ts_image_probe(d, 20, &w, &h, &err) != TS_OK && w == 0 && h == 0);
        ts_image_free(&img);
        free(d);
    }
    int64_t w, h;
    ts_error err = {0};
    CHECK_INT_EQ(ts_image_probe("GIF89a\1\0\1\0", 10, &w, &h, &err), TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "GIF");
    CHECK_INT_EQ(ts_image_probe("hello", 5, &w, &h, &err), TS_ERR_UNSUPPORTED);
    /* A PNG whose IHDR declares 100000 x 100000: the probe reads it; nothing is allocated. */
    uint8_t png[24] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0};
    CHECK_INT_EQ(ts_image_probe(png, sizeof(png), &w, &h, &err), TS_OK);
    CHECK_INT_EQ(w, 100000);
    CHECK_INT_EQ(h, 100000);
}

int main(void)
{
    RUN(test_fixtures);
    return check_finish();
}
