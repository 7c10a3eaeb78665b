/* guard_test.c — the header checks (guard.c) and the JSON string check (json_strings.c), on the
 * shapes issue 14's attacks used. */
#include "server/guard.h"
#include "server/json_strings.h"
#include "check.h"

#include <string.h>

static void test_key(void)
{
    CHECK(srv_guard_key_matches("Bearer sk-1234", "sk-1234"));
    CHECK(srv_guard_key_matches("bearer sk-1234", "sk-1234"));   /* the scheme is case-insensitive */
    CHECK(srv_guard_key_matches("BEARER   sk-1234", "sk-1234"));
    CHECK(!srv_guard_key_matches("Bearer sk-1235", "sk-1234"));
    CHECK(!srv_guard_key_matches("Bearer sk-123", "sk-1234"));   /* a prefix of the key */
    CHECK(!srv_guard_key_matches("Bearer sk-12345", "sk-1234")); /* the key as a prefix */
    CHECK(!srv_guard_key_matches("Bearer ", "sk-1234"));
    CHECK(!srv_guard_key_matches("Basic sk-1234", "sk-1234"));
    CHECK(!srv_guard_key_matches("Bearersk-1234", "sk-1234"));
    CHECK(!srv_guard_key_matches(NULL, "sk-1234"));
}

static void test_framing(void)
{
    srv_error err = {0};
    const char *same[] = {"12", "12"}, *differ[] = {"12", "5"}, *bad[] = {"12abc"}, *neg[] = {"-1"}, *one[] = {"12"};
    const char *chunked[] = {"chunked"}, *gzip[] = {"gzip, chunked"}, *upper[] = {"Chunked"};
    CHECK_INT_EQ(srv_guard_framing(same, 2, NULL, 0, &err), 0);
    CHECK_INT_EQ(srv_guard_framing(one, 1, NULL, 0, &err), 0);
    CHECK_INT_EQ(srv_guard_framing(NULL, 0, chunked, 1, &err), 0);
    CHECK_INT_EQ(srv_guard_framing(NULL, 0, upper, 1, &err), 0);
    CHECK_INT_EQ(srv_guard_framing(differ, 2, NULL, 0, &err), -1);
    CHECK_INT_EQ(err.status, 400);
    CHECK_CONTAINS(err.message, "two different Content-Length headers (12 and 5)");
    CHECK_INT_EQ(srv_guard_framing(bad, 1, NULL, 0, &err), -1);
    CHECK_CONTAINS(err.message, "'12abc' is not a decimal number");
    CHECK_INT_EQ(srv_guard_framing(neg, 1, NULL, 0, &err), -1);
    CHECK_INT_EQ(srv_guard_framing(one, 1, chunked, 1, &err), -1);
    CHECK_CONTAINS(err.message, "Content-Length and Transfer-Encoding together");
    CHECK_INT_EQ(srv_guard_framing(NULL, 0, gzip, 1, &err), -1);
    CHECK_CONTAINS(err.message, "'gzip, chunked' is not supported");
}

static void test_origin(void)
{
    srv_error err = {0};
    CHECK(srv_guard_is_loopback("127.0.0.1") && srv_guard_is_loopback(NULL) && !srv_guard_is_loopback("0.0.0.0"));
    CHECK_INT_EQ(srv_guard_origin("127.0.0.1:8080", NULL, NULL, &err), 0);
    CHECK_INT_EQ(srv_guard_origin("localhost", NULL, NULL, &err), 0);
    CHECK_INT_EQ(srv_guard_origin("[::1]:80", NULL, NULL, &err), 0);
    CHECK_INT_EQ(srv_guard_origin("evil.example:8080", NULL, NULL, &err), -1); /* DNS rebinding */
    CHECK_INT_EQ(err.status, 403);
    CHECK_INT_EQ(srv_guard_origin("127.0.0.1.evil.example", NULL, NULL, &err), -1);
    CHECK_INT_EQ(srv_guard_origin(NULL, NULL, NULL, &err), -1);
    CHECK_INT_EQ(srv_guard_origin("127.0.0.1:8080", "http://evil.example", NULL, &err), -1);
    CHECK_CONTAINS(err.message, "Origin 'http://evil.example' is not allowed");
    CHECK_INT_EQ(srv_guard_origin("127.0.0.1:8080", "http://localhost:3000", "http://a.example, http://localhost:3000", &err), 0);
    CHECK_INT_EQ(srv_guard_origin("127.0.0.1:8080", "http://localhost:3001", "http://localhost:3000", &err), -1);
    CHECK_INT_EQ(srv_guard_origin("anything", "http://evil.example", "*", &err), 0);
}

static void check_refused(const char *body, const char *param, const char *what)
{
    srv_error err = {0};
    CHECK_INT_EQ(srv_json_check_strings(body, strlen(body), &err), -1);
    CHECK_INT_EQ(err.status, 400);
    CHECK_STR_EQ(err.param, param);
    CHECK_CONTAINS(err.message, what);
}

static void test_json_strings(void)
{
    srv_error err = {0};
    const char *fine = "{\"messages\":[{\"role\":\"user\",\"content\":\"a\\\\u0000 \\\" \\u0001\"}],\"stop\":[\"x\"]}";
    CHECK_INT_EQ(srv_json_check_strings(fine, strlen(fine), &err), 0); /* an escaped backslash, then text */
    check_refused("{\"messages\":[{\"role\":\"user\",\"content\":\"hello\\u0000 world\"}]}", "messages[0].content", "NUL");
    check_refused("{\"messages\":[{\"role\":\"user\\u0000x\",\"content\":\"hi\"}]}", "messages[0].role", "NUL");
    check_refused("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\tb\"}]}]}",
                  "messages[1].content[0].text", "raw control character");
    check_refused("{\"stop\":[\"a\",\"b\\u0000\"]}", "stop[1]", "NUL");
    check_refused("{\"ke\\u0000y\":1}", "", "NUL");
    /* Not JSON at all: left for the parser to report. */
    CHECK_INT_EQ(srv_json_check_strings("{{{{", 4, &err), 0);
}

int main(void)
{
    RUN(test_key);
    RUN(test_framing);
    RUN(test_origin);
    RUN(test_json_strings);
    return check_finish();
}
