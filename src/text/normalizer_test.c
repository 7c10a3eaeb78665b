/* normalizer_test.c — NFC through the inert-span shortcut must equal full NFC, plus Replace,
 * Prepend, Lowercase and Strip. */
#include "check.h"
#include "text/normalizer.h"

#include <utf8proc.h>

static char *run(const char *json, const char *text)
{
    cJSON *j = cJSON_Parse(json);
    ts_normalizer *norm;
    ts_error err = {0};
    CHECK_INT_EQ(ts_normalizer_parse(j, &norm, &err), TS_OK);
    cJSON_Delete(j);
    ts_buf out = {0};
    CHECK_INT_EQ(ts_normalizer_apply(norm, text, strlen(text), &out, &err), TS_OK);
    ts_buf_append(&out, "", 0);
    ts_normalizer_destroy(norm);
    return out.data;
}

static void check_nfc(const char *text)
{
    char *got = run("{\"type\":\"NFC\"}", text);
    char *want = (char *)utf8proc_NFC((const utf8proc_uint8_t *)text);
    CHECK_STR_EQ(got, want);
    free(got);
    free(want);
}

static void test_nfc(void)
{
    check_nfc("plain ascii");
    check_nfc("cafe\xCC\x81");                         /* e + U+0301 → é */
    check_nfc("\xE2\x84\xAB");                         /* Ångström sign → Å */
    check_nfc("\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8"); /* L V T jamo → 각 */
    check_nfc("\xEA\xB0\x80\xE1\x86\xA8");             /* LV syllable + T → 각 */
    check_nfc("a\xCC\xA3\xCC\x82 x");                  /* reordering: dot below before circumflex */
    check_nfc(
        "\xE4\xBB\x8A e\xCC\x81\xCC\x81 \xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD \xE3\x81\xA6\xE3\x82\x99");
    check_nfc("\xCC\x81 leading mark");
    check_nfc("\xE0\xA4\x95\xE0\xA4\xBC"); /* क + nukta: composition-excluded */
    char *got = run("{\"type\":\"NFC\"}", "cafe\xCC\x81");
    CHECK_STR_EQ(got, "caf\xC3\xA9");
    free(got);
}

static void test_other_steps(void)
{
    char *got =
        run("{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\",\"prepend\":\"_\"},"
            "{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"__\"}]}",
            "a b");
    CHECK_STR_EQ(got, "_a__b");
    free(got);
    got = run("{\"type\":\"Prepend\",\"prepend\":\"_\"}", "");
    CHECK_STR_EQ(got, ""); /* empty stays empty */
    free(got);
    got = run("{\"type\":\"Lowercase\"}", "\xC4\xB0STANBUL \xCE\xA3");
    CHECK_STR_EQ(got, "i\xCC\x87stanbul \xCF\x83");
    free(got);
    got =
        run("{\"type\":\"Strip\",\"strip_left\":true,\"strip_right\":true}", " \t x y\xE3\x80\x80");
    CHECK_STR_EQ(got, "x y");
    free(got);
}

static void test_errors(void)
{
    ts_normalizer *norm;
    ts_error err = {0};
    cJSON *j =
        cJSON_Parse("{\"type\":\"Replace\",\"pattern\":{\"Regex\":\"a+\"},\"content\":\"b\"}");
    CHECK_INT_EQ(ts_normalizer_parse(j, &norm, &err), TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "Regex");
    cJSON_Delete(j);
}

int main(void)
{
    RUN(test_nfc);
    RUN(test_other_steps);
    RUN(test_errors);
    return check_finish();
}
