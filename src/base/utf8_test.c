/* utf8_test.c — strict validation offsets, unfinished tails and Rust-style lossy repair. */
#include "check.h"
#include "base/utf8.h"

static size_t validate(const char *s)
{
    return ts_utf8_validate((const uint8_t *)s, strlen(s));
}

static void test_validate(void)
{
    CHECK_INT_EQ(validate("plain ascii"), 11);
    CHECK_INT_EQ(validate("caf\xC3\xA9 \xF0\x9F\x8E\x89"), 10);
    CHECK_INT_EQ(validate("ab\x80"), 2);            /* stray continuation */
    CHECK_INT_EQ(validate("ab\xC0\xAF"), 2);        /* overlong '/' */
    CHECK_INT_EQ(validate("x\xED\xA0\x80"), 1);     /* UTF-16 surrogate */
    CHECK_INT_EQ(validate("x\xF4\x90\x80\x80"), 1); /* above U+10FFFF */
    CHECK_INT_EQ(validate("xyz\xE2\x82"), 3);       /* truncated at the end */
    CHECK_INT_EQ(validate("\xFF"), 0);
}

static void test_incomplete_tail(void)
{
    const uint8_t emoji[] = {0xF0, 0x9F, 0x8E, 0x89};
    CHECK_INT_EQ(ts_utf8_incomplete_tail(emoji, 1), 1);
    CHECK_INT_EQ(ts_utf8_incomplete_tail(emoji, 3), 3);
    CHECK_INT_EQ(ts_utf8_incomplete_tail(emoji, 4), 0);
    CHECK_INT_EQ(ts_utf8_incomplete_tail((const uint8_t *)"ab\x80", 3),
                 0); /* garbage, not a tail */
}

static void lossy_is(const char *in, size_t len, const char *want)
{
    ts_buf out = {0};
    CHECK(ts_utf8_lossy((const uint8_t *)in, len, &out));
    CHECK_STR_EQ(out.data ? out.data : "", want);
    ts_buf_fini(&out);
}

static void test_lossy(void)
{
    lossy_is("ok", 2, "ok");
    /* A truncated sequence is one U+FFFD; each byte that cannot start one is its own. */
    lossy_is("a\xE2\x82"
             "b",
             4,
             "a\xEF\xBF\xBD"
             "b");
    lossy_is("\x80\x80", 2, "\xEF\xBF\xBD\xEF\xBF\xBD");
    lossy_is("\xE0\x80", 2, "\xEF\xBF\xBD\xEF\xBF\xBD");
    lossy_is("\xF0\x9F\x8E", 3, "\xEF\xBF\xBD");
}

static void clean_is(const char *s, size_t n, const char *want)
{
    char *got = ts_utf8_clean(s, n);
    REQUIRE(got != NULL);
    CHECK_STR_EQ(got, want);
    free(got);
}

/* The server's repair: one U+FFFD for each byte that begins no well-formed sequence, so an
 * unfinished sequence gives one per byte (where the lossy form gives one for the whole). */
static void test_sequence_and_clean(void)
{
    CHECK_INT_EQ(ts_utf8_sequence((const uint8_t *)"a", 1), 1);
    CHECK_INT_EQ(ts_utf8_sequence((const uint8_t *)"\xC3\xA9", 2), 2);
    CHECK_INT_EQ(ts_utf8_sequence((const uint8_t *)"\xF0\x9F\x8E\x89", 4), 4);
    CHECK_INT_EQ(ts_utf8_sequence((const uint8_t *)"\xF0\x9F\x8E", 3), 0);
    CHECK_INT_EQ(ts_utf8_sequence((const uint8_t *)"\xE0\x80\x80", 3), 0); /* overlong */
    CHECK_INT_EQ(ts_utf8_sequence((const uint8_t *)"\xED\xA0\x80", 3), 0); /* surrogate */
    CHECK_INT_EQ(ts_utf8_sequence((const uint8_t *)"\x80", 1), 0);
    CHECK_INT_EQ(ts_utf8_sequence((const uint8_t *)"", 0), 0);

    clean_is("caf\xC3\xA9", 5, "caf\xC3\xA9");
    clean_is("a\xF0\x9F\x8E"
             "b",
             5,
             "a\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
             "b");
    clean_is("\xFF", 1, "\xEF\xBF\xBD");
    clean_is("", 0, "");
    clean_is("x\0y", 3, "x"); /* NUL kept; the C string simply ends there */
}

int main(void)
{
    RUN(test_validate);
    RUN(test_incomplete_tail);
    RUN(test_lossy);
    RUN(test_sequence_and_clean);
    return check_finish();
}
