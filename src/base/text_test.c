/* text_test.c — base's growable buffer (appends, printf past the stack buffer, take, sticky
 * failure), hex digits and the JSON escape styles each writer relies on. */
#include "base/buf.h"
#include "base/text_escape.h"
#include "check.h"

#include <stdint.h>

static void test_buf(void)
{
    ts_buf b = {0};
    CHECK(ts_buf_append(&b, "ab", 2));
    CHECK(ts_buf_puts(&b, "cd"));
    CHECK(ts_buf_putc(&b, 'e'));
    CHECK(ts_buf_printf(&b, "-%d-%s", 42, "x"));
    REQUIRE(b.data != NULL);
    CHECK_STR_EQ(b.data, "abcde-42-x");
    CHECK_INT_EQ(b.len, 10);
    CHECK(b.cap >= b.len + 1);

    /* Longer than printf's stack buffer: formatted a second time, straight into the buffer. */
    char big[1000];
    memset(big, 'y', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    CHECK(ts_buf_printf(&b, "[%s]", big));
    CHECK_INT_EQ(b.len, 10 + 2 + 999);
    CHECK_INT_EQ(b.data[b.len], '\0');
    CHECK_INT_EQ(b.data[10], '[');
    CHECK_INT_EQ(b.data[b.len - 1], ']');

    size_t len = 0;
    char *text = ts_buf_take(&b, &len);
    REQUIRE(text != NULL);
    CHECK_INT_EQ(len, 1011);
    CHECK_INT_EQ(strlen(text), 1011);
    CHECK(b.data == NULL && b.len == 0 && b.cap == 0);
    free(text);

    /* An empty buffer still hands out a string. */
    text = ts_buf_take(&b, &len);
    REQUIRE(text != NULL);
    CHECK_STR_EQ(text, "");
    CHECK_INT_EQ(len, 0);
    free(text);

    /* A zero-length append makes the text a C string too (callers hand it out as one). */
    CHECK(ts_buf_append(&b, "", 0));
    REQUIRE(b.data != NULL);
    CHECK_STR_EQ(b.data, "");
    ts_buf_fini(&b);
    CHECK(b.data == NULL);
}

static void test_buf_failure_is_sticky(void)
{
    ts_buf b = {0};
    CHECK(ts_buf_puts(&b, "kept"));
    /* A request no allocator can meet: refused, contents untouched, and later appends refused. */
    CHECK(!ts_buf_reserve(&b, SIZE_MAX - 2));
    CHECK(b.failed);
    CHECK(!ts_buf_puts(&b, "more"));
    CHECK_STR_EQ(b.data, "kept");
    CHECK(ts_buf_take(&b, NULL) == NULL);
    ts_buf_fini(&b);
    CHECK(!b.failed);
    CHECK(ts_buf_puts(&b, "again"));
    CHECK_STR_EQ(b.data, "again");
    ts_buf_fini(&b);
}

static void test_hex(void)
{
    CHECK_INT_EQ(ts_hex_value('0'), 0);
    CHECK_INT_EQ(ts_hex_value('9'), 9);
    CHECK_INT_EQ(ts_hex_value('a'), 10);
    CHECK_INT_EQ(ts_hex_value('F'), 15);
    CHECK_INT_EQ(ts_hex_value('g'), -1);
    CHECK_INT_EQ(ts_hex_value('\xC3'), -1);
    unsigned v = 0;
    CHECK(ts_hex4("00e9", &v));
    CHECK_INT_EQ(v, 0xE9);
    CHECK(ts_hex4("D83C", &v));
    CHECK_INT_EQ(v, 0xD83C);
    v = 7;
    CHECK(!ts_hex4("12x4", &v));
    CHECK_INT_EQ(v, 7); /* untouched on failure */
    CHECK(!ts_hex4("1\0"
                   "23",
                   &v)); /* stops at the NUL, reads no further */
}

static void quoted_is(const char *s, size_t n, unsigned flags, const char *want)
{
    ts_buf b = {0};
    CHECK(ts_json_quote(&b, s, n, flags));
    CHECK_STR_EQ(b.data, want);
    ts_buf_fini(&b);
}

static void test_json_escape_styles(void)
{
    const char raw[] = "a\"\\\n\r\t\b\f\x01\x7F\xC3\xA9z";
    size_t n = sizeof(raw) - 1;
    /* cmd_inspect's form: only the two mandatory shorthands. */
    quoted_is(raw, n, 0, "\"a\\\"\\\\\\u000a\\u000d\\u0009\\u0008\\u000c\\u0001\x7F\xC3\xA9z\"");
    /* The CLI's JSON lines. */
    quoted_is(raw, n, TS_JSON_ESC_NRT, "\"a\\\"\\\\\\n\\r\\t\\u0008\\u000c\\u0001\x7F\xC3\xA9z\"");
    /* tessera run's chat context. */
    quoted_is(raw, n, TS_JSON_ESC_NRT | TS_JSON_ESC_DEL,
              "\"a\\\"\\\\\\n\\r\\t\\u0008\\u000c\\u0001\\u007f\xC3\xA9z\"");
    /* Python's json.dumps. */
    quoted_is(raw, n, TS_JSON_ESC_NRT | TS_JSON_ESC_BF,
              "\"a\\\"\\\\\\n\\r\\t\\b\\f\\u0001\x7F\xC3\xA9z\"");
    quoted_is("", 0, 0, "\"\"");
    /* An embedded NUL is data, not the end. */
    quoted_is("x\0y", 3, 0, "\"x\\u0000y\"");

    char esc[8];
    CHECK_INT_EQ(ts_json_escape_byte('a', 0, esc), 0);
    CHECK_INT_EQ(ts_json_escape_byte(0x1F, 0, esc), 6);
    CHECK_STR_EQ(esc, "\\u001f");

    ts_buf b = {0};
    CHECK(ts_json_escape(&b, "q\"", 2, 0));
    CHECK_STR_EQ(b.data, "q\\\"");
    ts_buf_fini(&b);
}

static void test_json_fquote(void)
{
    FILE *f = tmpfile();
    REQUIRE(f != NULL);
    CHECK(ts_json_fquote(f, "a\nb\x01", 4, TS_JSON_ESC_NRT));
    rewind(f);
    char got[64] = {0};
    CHECK_INT_EQ(fread(got, 1, sizeof(got) - 1, f), 12);
    CHECK_STR_EQ(got, "\"a\\nb\\u0001\"");
    fclose(f);
}

int main(void)
{
    RUN(test_buf);
    RUN(test_buf_failure_is_sticky);
    RUN(test_hex);
    RUN(test_json_escape_styles);
    RUN(test_json_fquote);
    return check_finish();
}
