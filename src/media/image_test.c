/* image_test.c — image decoding against PIL, limits, and a corrupt-input corpus.
 *
 * The oracle cases (tests/oracle/image_cases.py, run with /usr/bin/python3 into a mkdtemp folder)
 * must match PIL's exif_transpose + convert("RGB") pixel for pixel, JPEG and lossy WebP included:
 * both sides use the same libjpeg-turbo and libwebp with default settings. Without python3-pil
 * those cases are skipped with a message; everything else runs on committed files
 * (tests/fixtures/media, chelsea.png) and bytes built here.
 */
#include "check.h"

#include "base/error.h"
#include "base/file.h"
#include "base/sha256.h"
#include "media/exif.h"
#include "media/image_format.h"
#include "media/orient.h"
#include "media/png_meta.h"
#include "tessera.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *root(void)
{
    const char *r = getenv("TS_ROOT");
    return r ? r : ".";
}

/* Owned bytes of root-relative `rel`; aborts the test run if a committed file is missing. */
static uint8_t *read_fixture(const char *rel, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", root(), rel);
    char *data;
    ts_error err;
    if (ts_file_read(path, &data, len, &err) != TS_OK) {
        fprintf(stderr, "missing fixture: %s\n", err.message);
        exit(1);
    }
    return (uint8_t *)data;
}

static ts_status decode(const uint8_t *data, size_t len, ts_image *img, ts_error *err)
{
    return ts_image_decode(data, len, NULL, img, err);
}

/* Decoding must fail with `status` and a message containing `needle`, and leave no image. */
static void expect_failure(const char *label, const uint8_t *data, size_t len,
                           const ts_image_limits *limits, ts_status status, const char *needle)
{
    ts_image img = {1, 1, (uint8_t *)&img};
    ts_error err = {0};
    ts_status st = ts_image_decode(data, len, limits, &img, &err);
    if (st != status)
        fprintf(stderr, "%s: status %s, message \"%s\"\n", label, ts_status_name(st), err.message);
    CHECK_INT_EQ(st, status);
    CHECK_CONTAINS(err.message, needle);
    CHECK(img.rgb == NULL && img.width == 0 && img.height == 0);
    ts_image_free(&img);
}

/* ---------------------------------------------------------------- sniffing */

static void test_sniff(void)
{
    CHECK_INT_EQ(ts_image_format_sniff((const uint8_t *)"\xFF\xD8\xFF\xE0", 4),
                 TS_IMAGE_FORMAT_JPEG);
    CHECK_INT_EQ(ts_image_format_sniff((const uint8_t *)"\x89PNG\r\n\x1A\n", 8),
                 TS_IMAGE_FORMAT_PNG);
    CHECK_INT_EQ(ts_image_format_sniff((const uint8_t *)"RIFF\0\0\0\0WEBP", 12),
                 TS_IMAGE_FORMAT_WEBP);
    CHECK_INT_EQ(ts_image_format_sniff((const uint8_t *)"RIFF\0\0\0\0WAVE", 12),
                 TS_IMAGE_FORMAT_UNKNOWN);
    CHECK_INT_EQ(ts_image_format_sniff((const uint8_t *)"\x89PNG", 4), TS_IMAGE_FORMAT_UNKNOWN);
    CHECK_INT_EQ(ts_image_format_sniff((const uint8_t *)"GIF89a", 6), TS_IMAGE_FORMAT_GIF);
    CHECK_INT_EQ(ts_image_format_sniff((const uint8_t *)"\0\0\0\x1C"
                                                        "ftypavifXXXX",
                                       16),
                 TS_IMAGE_FORMAT_HEIF);
    CHECK_INT_EQ(ts_image_format_sniff(NULL, 0), TS_IMAGE_FORMAT_UNKNOWN);

    expect_failure("gif", (const uint8_t *)"GIF89a\x01\0\x01\0\0\0\0", 13, NULL, TS_ERR_UNSUPPORTED,
                   "GIF images are not supported");
    expect_failure("bmp", (const uint8_t *)"BM\x3A\0\0\0\0\0\0\0\x36\0\0\0", 14, NULL,
                   TS_ERR_UNSUPPORTED, "BMP images are not supported");
    expect_failure("tiff", (const uint8_t *)"II*\0\x08\0\0\0", 8, NULL, TS_ERR_UNSUPPORTED,
                   "TIFF images are not supported");
    expect_failure("heic",
                   (const uint8_t *)"\0\0\0\x18"
                                    "ftypheic\0\0\0\0",
                   16, NULL, TS_ERR_UNSUPPORTED, "HEIF/AVIF images are not supported");
    expect_failure("unknown", (const uint8_t *)"\x00\x11\x22\x33", 4, NULL, TS_ERR_UNSUPPORTED,
                   "unknown image format (first bytes 00 11 22 33)");
    expect_failure("text", (const uint8_t *)"hello, world", 12, NULL, TS_ERR_UNSUPPORTED,
                   "first bytes 68 65 6c 6c 6f 2c 20 77)");
    expect_failure("empty", (const uint8_t *)"", 0, NULL, TS_ERR_FORMAT, "image data is empty");
}

/* ---------------------------------------------------------------- EXIF parser */

static void test_exif_parser(void)
{
    /* Little-endian TIFF, IFD0 at 8 with two entries: an unrelated tag, then orientation 6. */
    static const uint8_t le[] = {'I', 'I', 42, 0, 8, 0,   0,   0,   2, 0,    0x0f, 0x01, 2,
                                 0,   4,   0,  0, 0, 'a', 'b', 'c', 0, 0x12, 0x01, 3,    0,
                                 1,   0,   0,  0, 6, 0,   0,   0,   0, 0,    0,    0};
    CHECK_INT_EQ(ts_exif_orientation(le, sizeof(le)), 6);
    static const uint8_t be[] = {'E', 'x', 'i',  'f',  0, 0, 'M', 'M', 0, 42, 0, 0, 0, 8,
                                 0,   1,   0x01, 0x12, 0, 3, 0,   0,   0, 1,  0, 8, 0, 0};
    CHECK_INT_EQ(ts_exif_orientation(be, sizeof(be)), 8);
    /* LONG is accepted (PIL reads it as an int); BYTE, counts other than 1 and 0/9 are not. */
    uint8_t v[sizeof(le)];
    memcpy(v, le, sizeof(le));
    v[24] = 4;
    CHECK_INT_EQ(ts_exif_orientation(v, sizeof(v)), 6);
    v[24] = 1; /* present but a BYTE: counts as "as stored" */
    CHECK_INT_EQ(ts_exif_orientation(v, sizeof(v)), 1);
    memcpy(v, le, sizeof(le));
    v[26] = 2;
    CHECK_INT_EQ(ts_exif_orientation(v, sizeof(v)), 1);
    memcpy(v, le, sizeof(le));
    v[30] = 9;
    CHECK_INT_EQ(ts_exif_orientation(v, sizeof(v)), 1);
    v[30] = 0;
    CHECK_INT_EQ(ts_exif_orientation(v, sizeof(v)), 1);
    /* Every truncation is safe, and those that cut into the orientation entry lose it. */
    for (size_t n = 0; n < sizeof(le); n++) {
        int o = ts_exif_orientation(le, n);
        CHECK(o == (n >= 34 ? 6 : 0)); /* the entry ends at 34 */
    }
    /* IFD offset past the end; entry count far past the end; not TIFF at all. */
    memcpy(v, le, sizeof(le));
    v[4] = 0xff, v[5] = 0xff, v[6] = 0xff, v[7] = 0xff;
    CHECK_INT_EQ(ts_exif_orientation(v, sizeof(v)), 0);
    memcpy(v, le, sizeof(le));
    v[8] = 0xff, v[9] = 0xff;
    CHECK_INT_EQ(ts_exif_orientation(v, sizeof(v)), 6);
    CHECK_INT_EQ(ts_exif_orientation((const uint8_t *)"XX*\0\x08\0\0\0", 8), 0);
    CHECK_INT_EQ(ts_exif_orientation(NULL, 0), 0);
    CHECK_INT_EQ(ts_exif_orientation(le, 22), 0); /* no orientation entry at all */
}

/* ---------------------------------------------------------------- PNG metadata */

/* A PNG signature and IHDR, then the chunks given (CRCs are not checked here), then IEND. */
static size_t png_chunks(uint8_t *buf, const char *const *types, const char *const *bodies,
                         const size_t *lens, int n)
{
    static const uint8_t head[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0,
                                   13,   'I', 'H', 'D', 'R',  0,    0,    0,    1, 0, 0,
                                   0,    1,   8,   2,   0,    0,    0,    0,    0, 0, 0};
    size_t at = sizeof(head);
    memcpy(buf, head, at);
    for (int i = 0; i < n; i++) {
        buf[at] = (uint8_t)(lens[i] >> 24), buf[at + 1] = (uint8_t)(lens[i] >> 16);
        buf[at + 2] = (uint8_t)(lens[i] >> 8), buf[at + 3] = (uint8_t)lens[i];
        memcpy(buf + at + 4, types[i], 4);
        memcpy(buf + at + 8, bodies[i], lens[i]);
        memset(buf + at + 8 + lens[i], 0, 4);
        at += 12 + lens[i];
    }
    memcpy(buf + at, "\0\0\0\0IEND\xAE\x42\x60\x82", 12);
    return at + 12;
}

static int meta_orientation(const char *type, const char *body, size_t len)
{
    static uint8_t buf[4096];
    size_t n = png_chunks(buf, &type, &body, &len, 1);
    return ts_png_orientation(buf, n);
}

static void test_png_meta(void)
{
    static const char xmp[] = "XML:com.adobe.xmp\0<a tiff:Orientation=\"6\"/>";
    CHECK_INT_EQ(meta_orientation("tEXt", xmp, sizeof(xmp) - 1), 6);
    CHECK_INT_EQ(meta_orientation("tEXt", xmp, sizeof(xmp) - 5), 0); /* digit cut off */
    CHECK_INT_EQ(meta_orientation("tEXt", xmp, 17), 0);              /* no NUL after the key */
    CHECK_INT_EQ(meta_orientation("tEXx", xmp, sizeof(xmp) - 1), 0); /* not a text chunk */
    static const char itxt[] = "XML:com.adobe.xmp\0\0\0en\0\0<tiff:Orientation>3</x>";
    CHECK_INT_EQ(meta_orientation("iTXt", itxt, sizeof(itxt) - 1), 3);
    CHECK_INT_EQ(meta_orientation("iTXt", itxt, 21), 0); /* language tag unterminated */
    static const char itxt_zip[] = "XML:com.adobe.xmp\0\1\0\0\0garbage, not zlib";
    CHECK_INT_EQ(meta_orientation("iTXt", itxt_zip, sizeof(itxt_zip) - 1), 0);
    static const char ztxt[] = "Raw profile type exif\0\0not zlib either";
    CHECK_INT_EQ(meta_orientation("zTXt", ztxt, sizeof(ztxt) - 1), 0);
    /* "Raw profile type exif": three lines, then hex of a little-endian TIFF with orientation 8. */
    static const char raw[] = "Raw profile type exif\0\nexif\n      26\n"
                              "49492a0008000000\n0100120103000100\n000008000000";
    CHECK_INT_EQ(meta_orientation("tEXt", raw, sizeof(raw) - 1), 8);
    static const char raw_odd[] = "Raw profile type exif\0\nexif\n 26\n49492a000800000";
    CHECK_INT_EQ(meta_orientation("tEXt", raw_odd, sizeof(raw_odd) - 1), 0);
    static const char raw_bad[] = "Raw profile type exif\0\nexif\n 26\n49492a0008zz";
    CHECK_INT_EQ(meta_orientation("tEXt", raw_bad, sizeof(raw_bad) - 1), 0);
    static const char raw_short[] = "Raw profile type exif\0\nexif";
    CHECK_INT_EQ(meta_orientation("tEXt", raw_short, sizeof(raw_short) - 1), 0);
    /* A chunk whose length runs past the end stops the walk without reading past it. */
    uint8_t buf[64];
    size_t n = png_chunks(buf, NULL, NULL, NULL, 0);
    buf[33] = 0x7f; /* IEND's length becomes huge */
    CHECK_INT_EQ(ts_png_orientation(buf, n), 0);
    CHECK_INT_EQ(ts_png_orientation(buf, 5), 0);
}

/* ---------------------------------------------------------------- orientation */

static void test_orient(void)
{
    /* A 3x2 image whose red channel is the pixel index; expected layouts after each transform. */
    static const int want[9][6] = {
        {0},
        {0, 1, 2, 3, 4, 5},
        {2, 1, 0, 5, 4, 3},
        {5, 4, 3, 2, 1, 0},
        {3, 4, 5, 0, 1, 2},
        {0, 3, 1, 4, 2, 5},
        {3, 0, 4, 1, 5, 2},
        {5, 2, 4, 1, 3, 0},
        {2, 5, 1, 4, 0, 3},
    };
    for (int o = 1; o <= 8; o++) {
        ts_image img = {3, 2, malloc(18)};
        for (int i = 0; i < 6; i++)
            img.rgb[3 * i] = (uint8_t)i, img.rgb[3 * i + 1] = 7, img.rgb[3 * i + 2] = 9;
        ts_error err;
        CHECK_INT_EQ(ts_image_orient(&img, o, &err), TS_OK);
        CHECK_INT_EQ(img.width, o >= 5 ? 2 : 3);
        CHECK_INT_EQ(img.height, o >= 5 ? 3 : 2);
        int same = 1;
        for (int i = 0; i < 6; i++)
            same &= img.rgb[3 * i] == want[o][i] && img.rgb[3 * i + 1] == 7;
        if (!same) fprintf(stderr, "orientation %d wrong\n", o);
        CHECK(same);
        ts_image_free(&img);
    }
}

/* ---------------------------------------------------------------- committed files */

static void test_committed_files(void)
{
    size_t len;
    uint8_t *data = read_fixture("tests/fixtures/media/tiny.jpg", &len);
    ts_image img;
    ts_error err;
    /* 12x8 stored with orientation 6: upright it is 8 wide, and the blue corner moves top right. */
    CHECK_INT_EQ(decode(data, len, &img, &err), TS_OK);
    CHECK_INT_EQ(img.width, 8);
    CHECK_INT_EQ(img.height, 12);
    if (img.rgb) CHECK(img.rgb[(0 * 8 + 7) * 3 + 2] > 200 && img.rgb[(11 * 8 + 0) * 3 + 2] < 100);
    ts_image_free(&img);
    free(data);

    data = read_fixture("tests/fixtures/media/tiny.png", &len); /* RGBA, orientation 3 */
    CHECK_INT_EQ(decode(data, len, &img, &err), TS_OK);
    CHECK_INT_EQ(img.width, 12);
    CHECK_INT_EQ(img.height, 8);
    /* Rotated 180: the stored pixel (1,0) = (20, 0, 255) lands at (10, 7); alpha dropped. */
    if (img.rgb) {
        const uint8_t *p = img.rgb + (7 * 12 + 10) * 3;
        CHECK(p[0] == 20 && p[1] == 0 && p[2] == 255);
    }
    ts_image_free(&img);
    free(data);

    data = read_fixture("tests/fixtures/media/tiny_alpha_lossless.webp", &len);
    CHECK_INT_EQ(decode(data, len, &img, &err), TS_OK);
    CHECK(img.width == 12 && img.height == 8);
    if (img.rgb) {
        const uint8_t *p = img.rgb + (5 * 12 + 4) * 3; /* lossless keeps (x*20, y*30, 40) */
        CHECK(p[0] == 80 && p[1] == 150 && p[2] == 40);
    }
    ts_image_free(&img);
    free(data);

    data = read_fixture("tests/fixtures/media/tiny_lossy.webp", &len);
    CHECK_INT_EQ(decode(data, len, &img, &err), TS_OK);
    CHECK(img.width == 12 && img.height == 8);
    ts_image_free(&img);
    free(data);

    char path[4096];
    snprintf(path, sizeof(path), "%s/tests/fixtures/qwen2_vl/chelsea.png", root());
    REQUIRE_INT_EQ(ts_image_load(path, NULL, &img, &err), TS_OK);
    CHECK(img.width == 451 && img.height == 300);
    ts_image_free(&img);
    ts_image_free(&img); /* twice is fine */
    ts_image_free(NULL);
}

/* SHA-256 of PIL 9.4's exif_transpose + convert("RGB") bytes for committed files, so exactness
 * is checked even where python3-pil is missing (tests/oracle/image_cases.py re-derives the
 * pixels when it is there). */
static void test_committed_hashes(void)
{
    static const struct {
        const char *path;
        int width, height;
        const char *sha256;
    } cases[] = {
        {"tests/fixtures/qwen2_vl/chelsea.png", 451, 300,
         "416b729128bfb2c3d1eb69bf9b1734a796293abc17939267b2dc94f8a5784031"},
        {"tests/fixtures/qwen2_vl-two-images/coffee.png", 600, 400,
         "0ce2b51640b9c95f19617f03eabf40c3f0368589cc1ee1190b70966165ac184f"},
        {"tests/fixtures/media/tiny.jpg", 8, 12,
         "309866e40aefe0299616cabe9f6727f4c684c60bb02d1471e6a0519acba66891"},
        {"tests/fixtures/media/progressive.jpg", 9, 6,
         "4191c12ee1edfb7e622988067718d2c270534a3898e5107e6211563376bdae7f"},
        {"tests/fixtures/media/tiny_lossy.webp", 12, 8,
         "c8ea7fe391026c3475e28be8da175befc628d23fc2fc781101c4b01ac9195ef6"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t len;
        uint8_t *data = read_fixture(cases[i].path, &len);
        ts_image img;
        ts_error err;
        CHECK_INT_EQ(decode(data, len, &img, &err), TS_OK);
        CHECK(img.width == cases[i].width && img.height == cases[i].height);
        if (img.rgb) {
            char hex[65];
            ts_sha256_hex(img.rgb, (size_t)img.width * img.height * 3, hex);
            CHECK_STR_EQ(hex, cases[i].sha256);
        }
        ts_image_free(&img);
        free(data);
    }
}

/* ---------------------------------------------------------------- limits */

static void test_limits(void)
{
    size_t len;
    uint8_t *png = read_fixture("tests/fixtures/qwen2_vl/chelsea.png", &len);
    char want[128];
    ts_image_limits bytes = {.max_bytes = 1000};
    snprintf(want, sizeof(want), "image data is %zu bytes, over the 1000-byte limit", len);
    expect_failure("max_bytes", png, len, &bytes, TS_ERR_RANGE, want);
    ts_image_limits pixels = {.max_pixels = 135299};
    expect_failure("max_pixels", png, len, &pixels, TS_ERR_RANGE,
                   "PNG: image is 451×300 = 135300 pixels, over the 135299 pixels limit");
    ts_image img;
    ts_error err;
    pixels.max_pixels = 135300; /* exactly at the limit is allowed */
    REQUIRE_INT_EQ(ts_image_decode(png, len, &pixels, &img, &err), TS_OK);
    ts_image_free(&img);
    ts_image_limits negative = {.max_pixels = -1};
    expect_failure("negative", png, len, &negative, TS_ERR_INVALID_ARGUMENT,
                   "max_pixels is negative");

    char path[4096];
    snprintf(path, sizeof(path), "%s/tests/fixtures/qwen2_vl/chelsea.png", root());
    CHECK_INT_EQ(ts_image_load(path, &bytes, &img, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "chelsea.png: image data is");
    CHECK_CONTAINS(err.message, "over the 1000-byte limit");
    CHECK_INT_EQ(ts_image_load("/nonexistent/x.png", NULL, &img, &err), TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, "/nonexistent/x.png");
    CHECK(img.rgb == NULL);
    free(png);

    /* The same limits apply to each format's header, before any pixel is decoded. */
    uint8_t *jpeg = read_fixture("tests/fixtures/media/tiny.jpg", &len);
    ts_image_limits tiny = {.max_pixels = 95};
    expect_failure("jpeg pixels", jpeg, len, &tiny, TS_ERR_RANGE,
                   "JPEG: image is 12×8 = 96 pixels, over the 95 pixels limit");
    free(jpeg);
    uint8_t *webp = read_fixture("tests/fixtures/media/tiny_lossy.webp", &len);
    expect_failure("webp pixels", webp, len, &tiny, TS_ERR_RANGE,
                   "WebP: image is 12×8 = 96 pixels");
    free(webp);
}

/* ---------------------------------------------------------------- corrupt inputs */

static uint32_t crc32_png(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xffffffffu;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8),
    p[3] = (uint8_t)v;
}

/* PNG bytes with IHDR's width and height replaced and its CRC fixed, so only the size is wrong. */
static uint8_t *png_with_size(const uint8_t *png, size_t len, uint32_t width, uint32_t height)
{
    uint8_t *copy = malloc(len);
    memcpy(copy, png, len);
    put_be32(copy + 16, width);
    put_be32(copy + 20, height);
    put_be32(copy + 29, crc32_png(copy + 12, 17));
    return copy;
}

/* Offset of the JPEG SOF0/SOF2 segment's height field. */
static size_t jpeg_sof_size_at(const uint8_t *jpeg, size_t len)
{
    for (size_t i = 2; i + 9 < len; i++)
        if (jpeg[i] == 0xFF && (jpeg[i + 1] == 0xC0 || jpeg[i + 1] == 0xC2)) return i + 5;
    return 0;
}

static void test_corrupt(void)
{
    size_t png_len, jpeg_len, webp_len, len;
    uint8_t *png = read_fixture("tests/fixtures/qwen2_vl/chelsea.png", &png_len);
    uint8_t *jpeg = read_fixture("tests/fixtures/media/tiny.jpg", &jpeg_len);
    uint8_t *webp = read_fixture("tests/fixtures/media/tiny_lossy.webp", &webp_len);

    expect_failure("png cut in the pixels", png, png_len / 2, NULL, TS_ERR_FORMAT,
                   "PNG: truncated data");
    expect_failure("png cut in IHDR", png, 20, NULL, TS_ERR_FORMAT, "PNG: truncated data");
    expect_failure("png signature only", png, 8, NULL, TS_ERR_FORMAT, "PNG: truncated data");
    /* An ancillary chunk declaring ~1 GB in a small file: refused before libpng allocates it. */
    uint8_t huge[33 + 12 + 16];
    memcpy(huge, png, 33); /* signature + IHDR */
    memcpy(huge + 33, "\x42\x4d\x00\x1a" "eXIf", 8);
    memset(huge + 41, 0, sizeof(huge) - 41);
    expect_failure("png chunk longer than the file", huge, sizeof(huge), NULL, TS_ERR_FORMAT, "the eXIf chunk at byte 33 declares");
    uint8_t *bad = malloc(png_len);
    memcpy(bad, png, png_len);
    bad[png_len / 2] ^= 0x55; /* inside IDAT: the chunk CRC no longer matches */
    expect_failure("png bad CRC", bad, png_len, NULL, TS_ERR_FORMAT, "CRC error");
    free(bad);
    bad = png_with_size(png, png_len, 20000, 20000);
    expect_failure("png huge", bad, png_len, NULL, TS_ERR_RANGE,
                   "PNG: image is 20000×20000 = 400 MP, over the 40 MP limit");
    free(bad);
    bad = png_with_size(png, png_len, 0, 300);
    expect_failure("png zero width", bad, png_len, NULL, TS_ERR_FORMAT, "PNG: Invalid IHDR data");
    free(bad);
    bad = png_with_size(png, png_len, 451, 301); /* one row more than the data holds */
    expect_failure("png short data", bad, png_len, NULL, TS_ERR_FORMAT, "PNG: ");
    free(bad);

    uint8_t *tiny = read_fixture("tests/fixtures/media/tiny.png", &len);
    tiny[45] ^= 1; /* inside the eXIf chunk: PIL rejects the file, so do we */
    expect_failure("png bad ancillary CRC", tiny, len, NULL, TS_ERR_FORMAT, "eXIf: CRC error");
    free(tiny);

    expect_failure("jpeg cut in the scan", jpeg, jpeg_len - 40, NULL, TS_ERR_FORMAT,
                   "JPEG: truncated data");
    expect_failure("jpeg cut in the header", jpeg, 30, NULL, TS_ERR_FORMAT, "JPEG: ");
    expect_failure("jpeg SOI only", jpeg, 3, NULL, TS_ERR_FORMAT, "JPEG: ");
    size_t sof = jpeg_sof_size_at(jpeg, jpeg_len);
    CHECK(sof != 0);
    bad = malloc(jpeg_len);
    memcpy(bad, jpeg, jpeg_len);
    bad[sof] = 0xEA, bad[sof + 1] = 0x60, bad[sof + 2] = 0xEA,
    bad[sof + 3] = 0x60; /* 60000×60000 */
    expect_failure("jpeg huge", bad, jpeg_len, NULL, TS_ERR_RANGE,
                   "JPEG: image is 60000×60000 = 3600 MP, over the 40 MP limit");
    bad[sof] = 0, bad[sof + 1] = 0, bad[sof + 2] = 0, bad[sof + 3] = 12; /* height 0 */
    expect_failure("jpeg zero height", bad, jpeg_len, NULL, TS_ERR_FORMAT, "JPEG: ");
    free(bad);
    /* Damaged entropy-coded data is a libjpeg warning; PIL decodes such files, and so do we. */
    bad = malloc(jpeg_len);
    memcpy(bad, jpeg, jpeg_len);
    for (size_t i = jpeg_len - 60; i < jpeg_len - 20; i++)
        bad[i] = (uint8_t)(bad[i] * 7 + 1) == 0xFF ? 0 : (uint8_t)(bad[i] * 7 + 1);
    ts_image img;
    ts_error err;
    CHECK_INT_EQ(decode(bad, jpeg_len, &img, &err), TS_OK);
    ts_image_free(&img);
    free(bad);

    expect_failure("webp cut", webp, webp_len - 30, NULL, TS_ERR_FORMAT, "WebP: truncated data");
    expect_failure("webp header only", webp, 12, NULL, TS_ERR_FORMAT, "WebP: ");
    /* The VP8 frame header holds 14-bit width and height right after the 9d 01 2a start code. */
    bad = malloc(webp_len);
    memcpy(bad, webp, webp_len);
    CHECK(memcmp(bad + 12, "VP8 ", 4) == 0 && bad[23] == 0x9d && bad[24] == 0x01 &&
          bad[25] == 0x2a);
    bad[26] = 0xff, bad[27] = 0x3f, bad[28] = 0xff, bad[29] = 0x3f;
    expect_failure("webp huge", bad, webp_len, NULL, TS_ERR_RANGE,
                   "WebP: image is 16383×16383 = 268.4 MP, over the 40 MP limit");
    bad[12] = 'X';
    expect_failure("webp unknown chunk", bad, webp_len, NULL, TS_ERR_FORMAT, "WebP: ");
    free(bad);

    free(png);
    free(jpeg);
    free(webp);
}

/* A progressive JPEG whose last scan is repeated: libjpeg only warns about the bogus
 * progression, so without a bound every repeat costs a pass over the coefficients. */
static void test_jpeg_scan_limit(void)
{
    size_t len;
    uint8_t *jpeg = read_fixture("tests/fixtures/media/progressive.jpg", &len);
    size_t last = 0; /* FF DA cannot occur inside entropy-coded data (FF is stuffed) */
    for (size_t i = 0; i + 1 < len; i++)
        if (jpeg[i] == 0xFF && jpeg[i + 1] == 0xDA) last = i;
    CHECK(last > 0 && jpeg[len - 2] == 0xFF && jpeg[len - 1] == 0xD9);
    size_t scan = len - 2 - last;
    for (int repeats = 400; repeats <= 600; repeats += 200) {
        size_t n = last + scan * (size_t)repeats + 2;
        uint8_t *many = malloc(n);
        memcpy(many, jpeg, last);
        for (int r = 0; r < repeats; r++)
            memcpy(many + last + scan * (size_t)r, jpeg + last, scan);
        memcpy(many + n - 2, "\xFF\xD9", 2);
        if (repeats == 400) {
            ts_image img;
            ts_error err;
            CHECK_INT_EQ(decode(many, n, &img, &err), TS_OK);
            ts_image_free(&img);
        } else {
            expect_failure("jpeg scans", many, n, NULL, TS_ERR_RANGE, "JPEG: more than 500 scans");
        }
        free(many);
    }
    free(jpeg);
}

/* Every prefix of a small file fails cleanly or decodes; none crashes or leaks. */
static void test_every_prefix(void)
{
    static const char *const files[] = {
        "tests/fixtures/media/tiny.jpg", "tests/fixtures/media/tiny.png",
        "tests/fixtures/media/tiny_lossy.webp", "tests/fixtures/media/tiny_alpha_lossless.webp"};
    for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
        size_t len;
        uint8_t *data = read_fixture(files[f], &len);
        int bad = 0;
        for (size_t n = 0; n < len; n++) {
            ts_image img = {0};
            ts_error err = {0};
            ts_status st = decode(data, n, &img, &err);
            /* A PNG missing only its IEND still has every pixel (PIL agrees). */
            if (st == TS_OK && !(strstr(files[f], ".png") && n >= len - 12)) bad++;
            if (st != TS_OK && (img.rgb || err.message[0] == '\0')) bad++;
            ts_image_free(&img);
        }
        if (bad) fprintf(stderr, "%s: %d prefixes misbehaved\n", files[f], bad);
        CHECK_INT_EQ(bad, 0);
        free(data);
    }
}

/* ---------------------------------------------------------------- PIL oracle */

static int rm_tree(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd);
}

static void test_against_pil(void)
{
    if (system("/usr/bin/python3 -c 'import PIL' 2>/dev/null") != 0) {
        fprintf(stderr,
                "skipping the PIL comparison: /usr/bin/python3 with PIL (python3-pil) not found\n");
        return;
    }
    char dir[] = "/tmp/ts_image_test.XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp failed");
        return;
    }
    char cmd[8400];
    snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/tests/oracle/image_cases.py' '%s' '%s'",
             root(), root(), dir);
    CHECK_INT_EQ(system(cmd), 0);
    char path[4200];
    snprintf(path, sizeof(path), "%s/cases.txt", dir);
    FILE *list = fopen(path, "r");
    REQUIRE(list != NULL);
    int n_cases = 0;
    char name[256];
    int width, height;
    while (list && fscanf(list, "%255s %d %d", name, &width, &height) == 3) {
        n_cases++;
        ts_image img;
        ts_error err = {0};
        snprintf(path, sizeof(path), "%s/%s.in", dir, name);
        ts_status st = ts_image_load(path, NULL, &img, &err);
        if (st != TS_OK) fprintf(stderr, "%s: %s\n", name, err.message);
        CHECK_INT_EQ(st, TS_OK);
        snprintf(path, sizeof(path), "%s/%s.rgb", dir, name);
        char *want;
        size_t want_len;
        CHECK_INT_EQ(ts_file_read(path, &want, &want_len, &err), TS_OK);
        if (st == TS_OK && (img.width != width || img.height != height)) {
            fprintf(stderr, "%s: %d×%d, PIL %d×%d\n", name, img.width, img.height, width, height);
            CHECK(!"size differs from PIL");
        } else if (st == TS_OK) {
            CHECK_INT_EQ(want_len, (size_t)width * height * 3);
            size_t differ = 0, first = 0;
            int max_diff = 0;
            for (size_t i = 0; i < want_len; i++) {
                int d = abs((int)img.rgb[i] - (uint8_t)want[i]);
                if (d && !differ++) first = i;
                if (d > max_diff) max_diff = d;
            }
            if (differ)
                fprintf(stderr,
                        "%s: %zu of %zu bytes differ from PIL (first at pixel %zu, max %d)\n", name,
                        differ, want_len, first / 3, max_diff);
            CHECK_INT_EQ(differ, 0);
        }
        free(want);
        ts_image_free(&img);
    }
    if (list) fclose(list);
    fprintf(stderr, "compared %d images with PIL\n", n_cases);
    CHECK(n_cases >= 51);
    CHECK_INT_EQ(rm_tree(dir), 0);
}

int main(void)
{
    RUN(test_sniff);
    RUN(test_exif_parser);
    RUN(test_png_meta);
    RUN(test_orient);
    RUN(test_committed_files);
    RUN(test_committed_hashes);
    RUN(test_limits);
    RUN(test_corrupt);
    RUN(test_jpeg_scan_limit);
    RUN(test_every_prefix);
    RUN(test_against_pil);
    return check_finish();
}
