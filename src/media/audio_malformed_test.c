/* audio_malformed_test.c — hostile audio inputs, each answered by ts_audio_decode with a clear
 * error: its status and the words that say what is wrong (never a path), nothing allocated.
 *
 * The inputs are built here: WAV headers field by field (truncated headers, zero channels, absurd
 * rates, a ten-hour declared duration, wrong format fields, bad data chunk sizes, NaN samples),
 * the committed FLAC / MP3 / Ogg clips cut short or with a header field rewritten, and bytes
 * that are not audio at all. A case that decodes is a failure.
 */
#include "check.h"
#include "media/audio.h"

#include "base/file.h"

#include <math.h>

enum { WAV_HEADER = 44 };

static size_t put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
    return 2;
}
static size_t put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return 4;
}

typedef struct wav_spec {
    unsigned tag, channels, bits, align; /* align 0: channels * bits / 8 */
    uint32_t rate;
    uint32_t data_declared; /* the data chunk's size field */
    uint32_t data_present;  /* bytes of samples actually written */
} wav_spec;

/* A canonical 44-byte header and data_present bytes of a quiet ramp; returns the length. */
static size_t make_wav(uint8_t *buf, size_t cap, wav_spec s)
{
    unsigned align = s.align ? s.align : s.channels * s.bits / 8;
    size_t at = 0;
    memcpy(buf, "RIFF", 4), at += 4;
    at += put32(buf + at, 36 + s.data_present);
    memcpy(buf + at, "WAVEfmt ", 8), at += 8;
    at += put32(buf + at, 16);
    at += put16(buf + at, s.tag);
    at += put16(buf + at, s.channels);
    at += put32(buf + at, s.rate);
    at += put32(buf + at, s.rate * align);
    at += put16(buf + at, align);
    at += put16(buf + at, s.bits);
    memcpy(buf + at, "data", 4), at += 4;
    at += put32(buf + at, s.data_declared);
    for (uint32_t i = 0; i < s.data_present && at < cap; i++)
        buf[at++] = (uint8_t)(i * 7);
    return at;
}

static const wav_spec OK16 = {1, 1, 16, 0, 16000, 3200, 3200};

static int n_cases;

static void expect(const char *what, const uint8_t *data, size_t len, ts_status status,
                   const char *words)
{
    ts_audio a;
    ts_error err = {0};
    ts_status st = ts_audio_decode(data, len, NULL, 16000, &a, &err);
    fprintf(stderr, "  %-40s -> %s: %s\n", what, ts_status_name(st), err.message);
    CHECK_INT_EQ(st, status);
    CHECK_CONTAINS(err.message, words);
    CHECK(a.samples == NULL && a.n_samples == 0);
    CHECK(strstr(err.message, "/") == NULL || strstr(err.message, "libsndfile") != NULL);
    ts_audio_free(&a);
    n_cases++;
}

static void expect_wav(const char *what, wav_spec s, ts_status status, const char *words)
{
    static uint8_t buf[WAV_HEADER + 8192];
    expect(what, buf, make_wav(buf, sizeof(buf), s), status, words);
}

static void test_wav_headers(void)
{
    static uint8_t buf[WAV_HEADER + 8192];
    size_t len = make_wav(buf, sizeof(buf), OK16);
    ts_audio a;
    ts_error err = {0};
    REQUIRE(ts_audio_decode(buf, len, NULL, 16000, &a, &err) == TS_OK); /* the base case decodes */
    CHECK_INT_EQ(a.n_samples, 1600);
    ts_audio_free(&a);

    expect("truncated RIFF header", buf, 12, TS_ERR_FORMAT, "WAV: no fmt chunk");
    expect("truncated in the fmt chunk", buf, 26, TS_ERR_FORMAT,
           "chunk 'fmt ' declares 16 bytes but 6 follow");
    expect("truncated before the data chunk", buf, 36, TS_ERR_FORMAT, "WAV: no data chunk");
    wav_spec s = OK16;
    s.channels = 0;
    expect_wav("zero channels", s, TS_ERR_FORMAT, "header declares 0 channels");
    s = OK16, s.channels = 100;
    expect_wav("100 channels", s, TS_ERR_RANGE, "100 channels, over the limit of 8");
    s = OK16, s.rate = 0;
    expect_wav("sample rate 0", s, TS_ERR_FORMAT, "sample rate of 0 Hz");
    s = OK16, s.rate = 0xFFFFFFFFu;
    expect_wav("sample rate 4294967295 Hz", s, TS_ERR_RANGE, "4294967295 Hz is outside");
    s = OK16, s.rate = 100;
    expect_wav("sample rate 100 Hz", s, TS_ERR_RANGE, "sample rate 100 Hz is outside");
    s = OK16, s.data_declared = 16000u * 2 * 3600 * 10;
    expect_wav("ten hours declared", s, TS_ERR_RANGE, "header declares 36000.0 s");
    s = OK16, s.data_declared = 6400;
    expect_wav("data chunk longer than the file", s, TS_ERR_FORMAT,
               "data chunk declares 6400 bytes but 3200 follow");
    s = OK16, s.data_declared = 3199, s.data_present = 3199;
    expect_wav("data not whole frames", s, TS_ERR_FORMAT, "not a whole number of 2-byte frames");
    s = OK16, s.data_declared = 0, s.data_present = 0;
    expect_wav("empty data chunk", s, TS_ERR_FORMAT, "no audio frames");
    s = OK16, s.tag = 0x55;
    expect_wav("format tag 0x55 (MPEG in WAV)", s, TS_ERR_UNSUPPORTED, "encoding 0x0055");
    s = OK16, s.tag = 0;
    expect_wav("format tag 0", s, TS_ERR_UNSUPPORTED, "encoding 0x0000");
    s = OK16, s.bits = 12, s.align = 2;
    expect_wav("12-bit PCM", s, TS_ERR_UNSUPPORTED, "12-bit PCM samples are not decoded");
    s = OK16, s.tag = 3;
    expect_wav("16-bit float", s, TS_ERR_UNSUPPORTED, "16-bit float");
    s = OK16, s.align = 7;
    expect_wav("block align 7 for mono 16-bit", s, TS_ERR_FORMAT, "block align 7");

    /* fmt chunk too short, and a data chunk ahead of fmt. */
    len = make_wav(buf, sizeof(buf), OK16);
    put32(buf + 16, 8);
    memmove(buf + 28, buf + 36, len - 36); /* drop the fmt chunk's last 8 bytes */
    expect("fmt chunk of 8 bytes", buf, len - 8, TS_ERR_FORMAT, "fmt chunk is 8 bytes");
    len = make_wav(buf, sizeof(buf), OK16);
    memcpy(buf + 12, "data", 4);
    memcpy(buf + 36, "fmt ", 4);
    expect("data chunk before fmt", buf, len, TS_ERR_FORMAT, "data chunk before the fmt chunk");
    /* Extensible fmt whose size field says 16 (no room for the sub-format). */
    len = make_wav(buf, sizeof(buf), OK16);
    put16(buf + 20, 0xFFFE);
    expect("extensible fmt without its extension", buf, len, TS_ERR_FORMAT,
           "extensible fmt chunk is 16 bytes");
    /* A float WAV holding NaN. */
    s = (wav_spec){3, 1, 32, 0, 16000, 4000, 0};
    len = make_wav(buf, sizeof(buf), s);
    float v[1000];
    for (int i = 0; i < 1000; i++)
        v[i] = i == 500 ? NAN : 0.25f;
    memcpy(buf + WAV_HEADER, v, sizeof(v));
    len += sizeof(v);
    put32(buf + 4, (uint32_t)len - 8);
    expect("float WAV with a NaN sample", buf, len, TS_ERR_FORMAT,
           "sample 500 of channel 0 is not a finite number");
    v[500] = 1e30f; /* finite, but resampling and squaring it overflow to inf */
    memcpy(buf + WAV_HEADER, v, sizeof(v));
    expect("float WAV with a 1e30 sample", buf, len, TS_ERR_FORMAT,
           "sample 500 of channel 0 is 1e+30, beyond +-10000");
}

/* Rewrites an Ogg page's CRC (bytes 22..25: CRC-32, polynomial 0x04c11db7, MSB first, over the
 * page with the field zeroed), so a page edited here still passes libogg's check. */
static void ogg_fix_crc(uint8_t *page, size_t len)
{
    memset(page + 22, 0, 4);
    uint32_t c = 0;
    for (size_t i = 0; i < len; i++) {
        c ^= (uint32_t)page[i] << 24;
        for (int k = 0; k < 8; k++)
            c = c & 0x80000000u ? (c << 1) ^ 0x04c11db7u : c << 1;
    }
    put32(page + 22, c);
}

static int read_clip(const char *name, char **data, size_t *len)
{
    char path[4096];
    const char *root = getenv("TS_ROOT");
    ts_error err = {0};
    snprintf(path, sizeof(path), "%s/tests/fixtures/media/audio/%s", root ? root : ".", name);
    return ts_file_read(path, data, len, &err) == TS_OK ? 0 : -1;
}

static void test_containers(void)
{
    char *flac, *mp3, *ogg;
    size_t flac_len, mp3_len, ogg_len;
    REQUIRE(read_clip("silence_16k.flac", &flac, &flac_len) == 0);
    REQUIRE(read_clip("speech_16k.mp3", &mp3, &mp3_len) == 0);
    REQUIRE(read_clip("speech_48k.ogg", &ogg, &ogg_len) == 0);
    uint8_t *b = malloc(flac_len + mp3_len + ogg_len);

    expect("FLAC cut after its magic", (const uint8_t *)flac, 14, TS_ERR_FORMAT,
           "FLAC: cannot read the header");
    /* STREAMINFO's 36-bit total-samples field (bytes 21..25, low nibble of 21) set to 10 hours. */
    memcpy(b, flac, flac_len);
    uint64_t total = 16000ull * 36000;
    b[21] = (uint8_t)((b[21] & 0xF0) | ((total >> 32) & 0x0F));
    for (int i = 0; i < 4; i++)
        b[22 + i] = (uint8_t)(total >> (24 - 8 * i));
    expect("FLAC declaring ten hours", b, flac_len, TS_ERR_RANGE, "header declares 36000.0 s");
    /* STREAMINFO's sample rate (20 bits from byte 18) set to 0. */
    memcpy(b, flac, flac_len);
    b[18] = 0, b[19] = 0, b[20] &= 0x0F;
    expect("FLAC with sample rate 0", b, flac_len, TS_ERR_FORMAT, "FLAC: cannot read the header");

    memcpy(b, "ID3\x04\x00\x00\x00\x00\x00\x20", 10);
    memset(b + 10, 0x55, 200);
    expect("ID3 tag then no MPEG frames", b, 210, TS_ERR_FORMAT, "MP3: cannot read the header");
    memcpy(b, "\xff\xfb\x90\x64", 4);
    memset(b + 4, 0xA5, 600);
    expect("MPEG frame header then garbage", b, 604, TS_ERR_FORMAT, "MP3");
    memcpy(b, "\xff\xf3\x00\x00", 4);
    memset(b + 4, 0, 600);
    expect("MPEG free-format header, zeros", b, 604, TS_ERR_FORMAT, "MP3");
    expect("FLAC cut in half", (const uint8_t *)flac, flac_len / 2, TS_ERR_FORMAT, "FLAC");

    /* Ogg: the Vorbis headers are checked by libvorbis before libsndfile, which leaks on broken
     * ones (audio_ogg.h); this test runs under LeakSanitizer. */
    expect("Ogg magic then garbage", (const uint8_t *)"OggS\0\2garbagegarbagegarbage", 26,
           TS_ERR_FORMAT, "Ogg: the stream ends before its Vorbis identification header");
    expect("Ogg cut inside its first page", (const uint8_t *)ogg, 40, TS_ERR_FORMAT,
           "Ogg: the stream ends before its Vorbis identification header");
    expect("Ogg cut inside its comment header", (const uint8_t *)ogg, 1000, TS_ERR_FORMAT,
           "Ogg: the stream ends before its Vorbis comment header is complete");
    /* Pages 0..58 (identification header) and 58..3384 (comment, setup) of speech_48k.ogg. */
    memcpy(b, ogg, ogg_len);
    b[3383] = 0; /* the setup header's last byte: its framing bit gone */
    ogg_fix_crc(b + 58, 3384 - 58);
    expect("Ogg setup header broken, page CRC intact", b, ogg_len, TS_ERR_FORMAT,
           "Ogg: the Vorbis setup header is malformed");
    memcpy(b, ogg, ogg_len);
    b[28 + 11] = 0; /* audio_channels of the identification packet */
    ogg_fix_crc(b, 58);
    expect("Ogg declaring zero channels", b, ogg_len, TS_ERR_FORMAT,
           "Ogg: the Vorbis identification header is malformed");
    memcpy(b, ogg, ogg_len);
    b[58 + 100] ^= 0x55; /* a byte of the comment page, CRC left stale: libogg drops the page */
    expect("Ogg comment page with a bad CRC", b, ogg_len, TS_ERR_FORMAT,
           "Ogg: pages are missing inside the Vorbis comment header");

    expect("empty input", (const uint8_t *)"", 0, TS_ERR_FORMAT, "empty input (0 bytes)");
    expect("text, not audio", (const uint8_t *)"hello, world\n", 13, TS_ERR_UNSUPPORTED,
           "not a WAV, FLAC, MP3 or Ogg file (first bytes 68 65 6c 6c)");
    expect("a PNG signature", (const uint8_t *)"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16,
           TS_ERR_UNSUPPORTED, "first bytes 89 50 4e 47");
    expect("AIFF",
           (const uint8_t *)"FORM\0\0\0\x10"
                            "AIFFCOMM",
           16, TS_ERR_UNSUPPORTED, "AIFF files are not decoded");
    expect("RF64",
           (const uint8_t *)"RF64\xff\xff\xff\xff"
                            "WAVEds64",
           16, TS_ERR_UNSUPPORTED, "RF64 files are not decoded");
    free(b), free(flac), free(mp3), free(ogg);
}

static void test_count(void)
{
    fprintf(stderr, "%d malformed inputs, each refused with its reason\n", n_cases);
    CHECK(n_cases >= 20);
}

int main(void)
{
    RUN(test_wav_headers);
    RUN(test_containers);
    RUN(test_count);
    return check_finish();
}
