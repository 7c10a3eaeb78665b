/* request_test.c — srv_request_parse on valid chat and completions bodies (every field mapped,
 * images decoded byte for byte, messages_json exact) and on a corpus of malformed ones, each
 * checked for status 400, the offending param, the words the user is told and a zeroed *out;
 * file:// images against a real temporary media root (traversal, symlink escape, directory,
 * size); and the OpenAI error document srv_error_json writes. */
#include "server/request.h"
#include "base/file.h"
#include "check.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

static int n_bad_cases;

/* Test fixtures on disk: a media root and a directory outside it. */
static char root_dir[64] = "/tmp/ts_request_root_XXXXXX";
static char outside_dir[64] = "/tmp/ts_request_out_XXXXXX";

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    if (vasprintf(&s, f, ap) < 0) s = NULL;
    va_end(ap);
    return s;
}

/* An encoder written apart from the parser's decoder, so a shared mistake cannot pass. */
static char *base64(const uint8_t *data, size_t n, bool pad)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc(n / 3 * 4 + 8), *o = out;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        *o++ = abc[data[i] >> 2];
        *o++ = abc[(data[i] & 3) << 4 | data[i + 1] >> 4];
        *o++ = abc[(data[i + 1] & 15) << 2 | data[i + 2] >> 6];
        *o++ = abc[data[i + 2] & 63];
    }
    if (n - i == 1) {
        *o++ = abc[data[i] >> 2];
        *o++ = abc[(data[i] & 3) << 4];
        if (pad) *o++ = '=', *o++ = '=';
    } else if (n - i == 2) {
        *o++ = abc[data[i] >> 2];
        *o++ = abc[(data[i] & 3) << 4 | data[i + 1] >> 4];
        *o++ = abc[(data[i + 1] & 15) << 2];
        if (pad) *o++ = '=';
    }
    *o = '\0';
    return out;
}

/* A 1×1 PNG (signature, IHDR, IDAT, IEND): 67 bytes, so its base64 ends in "=". */
static const uint8_t png[] = {
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48,
    0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00,
    0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78,
    0x9C, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00,
    0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82};
/* Something JPEG-like of 4 bytes: base64 ends in "==". */
static const uint8_t jpeg[] = {0xFF, 0xD8, 0xFF, 0xD9};

static srv_limits limits(void)
{
    srv_limits l;
    memset(&l, 0, sizeof l);
    l.max_images = 3;
    l.max_image_bytes = 4096;
    l.max_stop = 16;
    l.max_audio = 3;
    l.audio.max_seconds = 3.0;
    l.max_request_audio_seconds = 4.0;
    l.vocab_size = 1000;
    ts_sampling_params_default(&l.defaults);
    /* Non-trivial defaults show that absent fields take them. */
    l.defaults.temperature = 0.7f;
    l.defaults.top_p = 0.9f;
    l.defaults.top_k = 20;
    return l;
}

static bool parse_ok(srv_endpoint ep, const char *body, const srv_limits *lim, srv_request *req,
                     int line)
{
    srv_error err;
    int rc = srv_request_parse(ep, body, strlen(body), lim, req, &err);
    if (rc != 0)
        fprintf(stderr, "line %d: unexpected failure: [%s] %s\n", line, err.param, err.message);
    CHECK_INT_EQ(rc, 0);
    return rc == 0;
}
#define PARSE_OK(ep, body, lim, req) parse_ok(ep, body, lim, req, __LINE__)

/* One malformed request: 400, the param, a phrase of the message, and *out left zeroed. */
static void bad_at(int line, srv_endpoint ep, const srv_limits *lim, const char *body,
                   const char *param, const char *needle)
{
    int before = check_failed;
    srv_request req;
    memset(&req, 0x5A, sizeof req);
    srv_error err;
    int rc = srv_request_parse(ep, body, body ? strlen(body) : 0, lim, &req, &err);
    CHECK_INT_EQ(rc, -1);
    CHECK_INT_EQ(err.status, 400);
    CHECK_STR_EQ(err.param, param);
    CHECK_CONTAINS(err.message, needle);
    static const srv_request zero;
    CHECK(memcmp(&req, &zero, sizeof req) == 0);
    if (check_failed != before) fprintf(stderr, "  (the case at line %d)\n", line);
    n_bad_cases++;
}

#define MSG "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]"
#define BAD(body, param, needle) bad_at(__LINE__, SRV_CHAT, &lim, body, param, needle)
#define BAD_COMPLETION(body, param, needle)                                                        \
    bad_at(__LINE__, SRV_COMPLETIONS, &lim, body, param, needle)
/* A chat body whose single user message holds one image part with this URL. */
#define IMAGE_BODY(url)                                                                            \
    "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":{"       \
    "\"url\":"                                                                                     \
    "\"" url "\"}}]}]}"

static void bad_dynamic(int line, const srv_limits *lim, char *body, const char *param,
                        const char *needle)
{
    bad_at(line, SRV_CHAT, lim, body, param, needle);
    free(body);
}

/* ---------------------------------------------------------------- valid requests */

static void test_chat_string(void)
{
    srv_limits lim = limits();
    srv_request req;
    const char *body = "{\"model\":\"qwen\",\"messages\":[{\"role\":\"system\",\"content\":\"Be "
                       "brief.\"},{\"role\":\"user\",\"content\":\"Hi \\\"there\\\"\\n\"}]}";
    if (!PARSE_OK(SRV_CHAT, body, &lim, &req)) return;
    CHECK_INT_EQ(req.endpoint, SRV_CHAT);
    CHECK_STR_EQ(req.model, "qwen");
    CHECK_STR_EQ(req.messages_json, "[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":"
                                    "\"user\",\"content\":\"Hi \\\"there\\\"\\n\"}]");
    CHECK(req.prompt == NULL);
    CHECK_INT_EQ(req.n_images, 0);
    CHECK(req.images == NULL);
    CHECK(!req.stream && !req.include_usage && !req.seed_given && !req.logprobs && !req.ignore_eos);
    CHECK(!req.no_draft); /* speculative decoding unless the request opts out */
    CHECK_INT_EQ(req.max_tokens, 0);
    CHECK_INT_EQ(req.n_stop, 0);
    CHECK(req.stop == NULL);
    CHECK(req.sampling.temperature == 0.7f && req.sampling.top_p == 0.9f);
    CHECK_INT_EQ(req.sampling.top_k, 20);
    CHECK(req.sampling.min_p == 0 && req.sampling.repetition_penalty == 1);
    CHECK(req.sampling.logit_bias == NULL && req.sampling.n_logit_bias == 0);
    CHECK_INT_EQ(req.budget.min_pixels, 0);
    CHECK_INT_EQ(req.budget.max_pixels, 0);
    srv_request_free(&req);
    CHECK(req.messages_json == NULL && req.model == NULL);
}

static void test_chat_images(void)
{
    srv_limits lim = limits();
    char *b1 = base64(png, sizeof png, true), *b2 = base64(jpeg, sizeof jpeg, true);
    CHECK(b1[strlen(b1) - 1] == '=' && b2[strlen(b2) - 2] == '=');
    char *body = fmt(
        "{\"messages\":[{\"role\":\"developer\",\"content\":\"Be brief.\"},"
        "{\"role\":\"user\",\"name\":\"bob\",\"content\":[{\"type\":\"text\",\"text\":\"compare\"},"
        "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,%s\",\"detail\":"
        "\"high\"}},"
        "{\"type\":\"image_url\",\"image_url\":\"data:image/jpeg;base64,%s\"},"
        "{\"type\":\"text\",\"text\":\"which?\"}]},"
        "{\"role\":\"assistant\",\"content\":null},"
        "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"the first\"}]}]}",
        b1, b2);
    srv_request req;
    if (PARSE_OK(SRV_CHAT, body, &lim, &req)) {
        CHECK_INT_EQ(req.n_images, 2);
        CHECK_INT_EQ(req.images[0].len, sizeof png);
        CHECK(memcmp(req.images[0].bytes, png, sizeof png) == 0);
        CHECK_STR_EQ(req.images[0].where, "messages[1].content[1]");
        CHECK_INT_EQ(req.images[1].len, sizeof jpeg);
        CHECK(memcmp(req.images[1].bytes, jpeg, sizeof jpeg) == 0);
        CHECK_STR_EQ(req.images[1].where, "messages[1].content[2]");
        CHECK_STR_EQ(req.messages_json,
                     "[{\"role\":\"system\",\"content\":\"Be brief.\"},"
                     "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"compare\"},"
                     "{\"type\":\"image\"},{\"type\":\"image\"},{\"type\":\"text\",\"text\":"
                     "\"which?\"}],\"name\":\"bob\"},"
                     "{\"role\":\"assistant\",\"content\":null},"
                     "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"the "
                     "first\"}]}]");
        srv_request_free(&req);
    }
    free(body);

    /* Unpadded base64 is accepted and decodes to the same bytes; the scheme is case-blind. */
    char *b3 = base64(png, sizeof png, false);
    body = fmt(IMAGE_BODY("DATA:image/PNG;BASE64,%s"), b3);
    if (PARSE_OK(SRV_CHAT, body, &lim, &req)) {
        CHECK_INT_EQ(req.n_images, 1);
        CHECK_INT_EQ(req.images[0].len, sizeof png);
        CHECK(memcmp(req.images[0].bytes, png, sizeof png) == 0);
        CHECK_STR_EQ(req.images[0].where, "messages[0].content[0]");
        CHECK_STR_EQ(req.messages_json, "[{\"role\":\"user\",\"content\":[{\"type\":\"image\"}]}]");
        srv_request_free(&req);
    }
    free(body);
    free(b1);
    free(b2);
    free(b3);
}

static void test_completions(void)
{
    srv_limits lim = limits();
    srv_request req;
    if (PARSE_OK(SRV_COMPLETIONS,
                 "{\"model\":\"m\",\"prompt\":\"Once upon\",\"echo\":false,\"suffix\":null,"
                 "\"best_of\":1,\"logprobs\":3,\"max_tokens\":16}",
                 &lim, &req)) {
        CHECK_INT_EQ(req.endpoint, SRV_COMPLETIONS);
        CHECK_STR_EQ(req.prompt, "Once upon");
        CHECK_STR_EQ(req.model, "m");
        CHECK(req.messages_json == NULL);
        CHECK(req.logprobs);
        CHECK_INT_EQ(req.top_logprobs, 3);
        CHECK_INT_EQ(req.max_tokens, 16);
        srv_request_free(&req);
    }
    if (PARSE_OK(SRV_COMPLETIONS, "{\"prompt\":[\"only one\"],\"logprobs\":0}", &lim, &req)) {
        CHECK_STR_EQ(req.prompt, "only one");
        CHECK(req.logprobs);
        CHECK_INT_EQ(req.top_logprobs, 0);
        CHECK(req.model == NULL);
        srv_request_free(&req);
    }
    /* A chat-only field on the completions endpoint is just an unknown field. */
    if (PARSE_OK(SRV_COMPLETIONS, "{\"prompt\":\"x\",\"messages\":5,\"top_logprobs\":99}", &lim,
                 &req)) {
        CHECK(!req.logprobs);
        srv_request_free(&req);
    }
}

static void test_parameters(void)
{
    srv_limits lim = limits();
    srv_request req;
    const char *body =
        "{" MSG ",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
        "\"temperature\":0,\"top_p\":0.5,\"top_k\":40,\"min_p\":0.05,"
        "\"presence_penalty\":-1.5,\"frequency_penalty\":2,\"repetition_penalty\":1.1,"
        "\"seed\":-1,\"stop\":[\"\\n\\n\",\"END\"],\"max_tokens\":100,"
        "\"max_completion_tokens\":50,\"n\":1,\"logprobs\":true,\"top_logprobs\":5,"
        "\"logit_bias\":{\"7\":-100,\"3\":2.5,\"999\":100},"
        "\"mm_processor_kwargs\":{\"min_pixels\":3136,\"max_pixels\":1003520,\"other\":1},"
        "\"ignore_eos\":true,\"speculative_decoding\":false}";
    if (PARSE_OK(SRV_CHAT, body, &lim, &req)) {
        CHECK(req.no_draft);
        CHECK(req.stream && req.include_usage);
        CHECK(req.sampling.temperature == 0.0f); /* greedy */
        CHECK(req.sampling.top_p == 0.5f);
        CHECK_INT_EQ(req.sampling.top_k, 40);
        CHECK(req.sampling.min_p == 0.05f);
        CHECK(req.sampling.presence_penalty == -1.5f);
        CHECK(req.sampling.frequency_penalty == 2.0f);
        CHECK(req.sampling.repetition_penalty == 1.1f);
        CHECK(req.seed_given);
        CHECK(req.sampling.seed == UINT64_MAX);
        CHECK_INT_EQ(req.n_stop, 2);
        CHECK_STR_EQ(req.stop[0], "\n\n");
        CHECK_STR_EQ(req.stop[1], "END");
        CHECK_INT_EQ(req.max_tokens, 50); /* max_completion_tokens wins */
        CHECK(req.logprobs);
        CHECK_INT_EQ(req.top_logprobs, 5);
        CHECK_INT_EQ(req.sampling.n_logit_bias, 3); /* sorted by id */
        CHECK_INT_EQ(req.sampling.logit_bias[0].id, 3);
        CHECK(req.sampling.logit_bias[0].bias == 2.5f);
        CHECK_INT_EQ(req.sampling.logit_bias[1].id, 7);
        CHECK(req.sampling.logit_bias[1].bias == -100.0f);
        CHECK_INT_EQ(req.sampling.logit_bias[2].id, 999);
        CHECK_INT_EQ(req.budget.min_pixels, 3136);
        CHECK_INT_EQ(req.budget.max_pixels, 1003520);
        CHECK(req.ignore_eos);
        srv_request_free(&req);
    }
    /* max_tokens alone; a single stop string; top_k -1 and 0 both mean off; a large seed. */
    if (PARSE_OK(SRV_CHAT,
                 "{" MSG ",\"max_tokens\":100,\"stop\":\"###\",\"top_k\":-1,\"seed\":1234567}",
                 &lim, &req)) {
        CHECK_INT_EQ(req.max_tokens, 100);
        CHECK_INT_EQ(req.n_stop, 1);
        CHECK_STR_EQ(req.stop[0], "###");
        CHECK_INT_EQ(req.sampling.top_k, 0);
        CHECK(req.sampling.seed == 1234567u);
        srv_request_free(&req);
    }
    if (PARSE_OK(SRV_CHAT,
                 "{" MSG ",\"top_k\":0,\"max_completion_tokens\":2147483648,\"stop\":[],"
                 "\"logit_bias\":{},\"mm_processor_kwargs\":{\"max_pixels\":500}}",
                 &lim, &req)) {
        CHECK_INT_EQ(req.sampling.top_k, 0);
        CHECK_INT_EQ(req.max_tokens, 2147483648LL);
        CHECK_INT_EQ(req.n_stop, 0);
        CHECK_INT_EQ(req.sampling.n_logit_bias, 0);
        CHECK_INT_EQ(req.budget.min_pixels, 0);
        CHECK_INT_EQ(req.budget.max_pixels, 500);
        srv_request_free(&req);
    }
}

/* JSON null is "not set": every optional field null leaves the defaults. */
static void test_null_is_absent(void)
{
    srv_limits lim = limits();
    srv_request req;
    const char *body =
        "{" MSG ",\"model\":null,\"stream\":null,\"stream_options\":null,\"temperature\":null,"
        "\"top_p\":null,\"top_k\":null,\"min_p\":null,\"presence_penalty\":null,"
        "\"frequency_penalty\":null,\"repetition_penalty\":null,\"seed\":null,\"stop\":null,"
        "\"max_tokens\":null,\"max_completion_tokens\":null,\"n\":null,\"logprobs\":null,"
        "\"top_logprobs\":null,\"logit_bias\":null,\"mm_processor_kwargs\":null,"
        "\"ignore_eos\":null,\"tools\":null,\"response_format\":null}";
    if (PARSE_OK(SRV_CHAT, body, &lim, &req)) {
        CHECK(req.model == NULL);
        CHECK(req.sampling.temperature == 0.7f && req.sampling.top_p == 0.9f);
        CHECK_INT_EQ(req.sampling.top_k, 20);
        CHECK(!req.seed_given && !req.logprobs && !req.stream);
        CHECK_INT_EQ(req.max_tokens, 0);
        CHECK_INT_EQ(req.n_stop, 0);
        srv_request_free(&req);
    }
    /* An assistant message with content null or absent is fine; the name null is dropped. */
    if (PARSE_OK(SRV_CHAT,
                 "{\"messages\":[{\"role\":\"user\",\"content\":\"a\",\"name\":null},"
                 "{\"role\":\"assistant\"}]}",
                 &lim, &req)) {
        CHECK_STR_EQ(req.messages_json, "[{\"role\":\"user\",\"content\":\"a\"},{\"role\":"
                                        "\"assistant\",\"content\":null}]");
        srv_request_free(&req);
    }
    if (PARSE_OK(SRV_COMPLETIONS, "{\"prompt\":\"p\",\"logprobs\":null,\"best_of\":null}", &lim,
                 &req)) {
        CHECK(!req.logprobs);
        srv_request_free(&req);
    }
}

static void test_unknown_fields_ignored(void)
{
    srv_limits lim = limits();
    srv_request req;
    const char *body =
        "{\"user\":\"u1\",\"metadata\":{\"a\":[1,2,{}]},\"store\":false,\"tools\":[],"
        "\"response_format\":{\"type\":\"text\"},\"parallel_tool_calls\":true,"
        "\"messages\":[{\"role\":\"user\",\"weird\":1,\"content\":[{\"type\":\"text\",\"text\":"
        "\"x\",\"cache_control\":{}}]}],\"temperature\":1,\"x-extra\":null}";
    if (PARSE_OK(SRV_CHAT, body, &lim, &req)) {
        CHECK_STR_EQ(req.messages_json,
                     "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"x\"}]}]");
        CHECK(req.sampling.temperature == 1.0f);
        srv_request_free(&req);
    }
    /* Whitespace around the value and a UTF-8 byte order mark are not errors. */
    const char *spaced = "\xEF\xBB\xBF  {" MSG "}  \r\n";
    if (PARSE_OK(SRV_CHAT, spaced, &lim, &req)) srv_request_free(&req);
}

/* The request owns its logit bias whether it came from the defaults or the body. */
static void test_default_logit_bias(void)
{
    srv_limits lim = limits();
    ts_logit_bias bias[2] = {{1, 5.0f}, {2, -5.0f}};
    lim.defaults.logit_bias = bias;
    lim.defaults.n_logit_bias = 2;
    srv_request req;
    if (PARSE_OK(SRV_CHAT, "{" MSG "}", &lim, &req)) {
        CHECK_INT_EQ(req.sampling.n_logit_bias, 2);
        CHECK(req.sampling.logit_bias != bias);
        CHECK(req.sampling.logit_bias[1].id == 2 && req.sampling.logit_bias[1].bias == -5.0f);
        srv_request_free(&req);
    }
    if (PARSE_OK(SRV_CHAT, "{" MSG ",\"logit_bias\":{\"9\":1}}", &lim, &req)) {
        CHECK_INT_EQ(req.sampling.n_logit_bias, 1);
        CHECK_INT_EQ(req.sampling.logit_bias[0].id, 9);
        srv_request_free(&req);
    }
}

/* ---------------------------------------------------------------- file:// images */

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    CHECK_INT_EQ(fwrite(data, 1, n, f), n);
    fclose(f);
}

static char *in_root(const char *name)
{
    return fmt("%s/%s", root_dir, name);
}

static void make_media(void)
{
    REQUIRE(mkdtemp(root_dir) != NULL);
    REQUIRE(mkdtemp(outside_dir) != NULL);
    char *p = in_root("a b.png");
    write_file(p, png, sizeof png);
    free(p);
    p = in_root("sub");
    CHECK_INT_EQ(mkdir(p, 0700), 0);
    free(p);
    p = in_root("sub/in.jpg");
    write_file(p, jpeg, sizeof jpeg);
    free(p);
    uint8_t big[5000] = {0};
    p = in_root("big.png");
    write_file(p, big, sizeof big);
    free(p);
    p = in_root("empty.png");
    write_file(p, "", 0);
    free(p);
    char *secret = fmt("%s/secret.png", outside_dir);
    write_file(secret, png, sizeof png);
    p = in_root("escape.png");
    CHECK_INT_EQ(symlink(secret, p), 0);
    free(p);
    free(secret);
    p = in_root("inner_link.jpg");
    CHECK_INT_EQ(symlink("sub/in.jpg", p), 0);
    free(p);
    p = fmt("%s_sibling", root_dir);
    CHECK_INT_EQ(mkdir(p, 0700), 0);
    free(p);
    p = fmt("%s_sibling/a.png", root_dir);
    write_file(p, png, sizeof png);
    free(p);
}

static void remove_media(void)
{
    static const char *names[] = {"a b.png",   "sub/in.jpg", "sub",           "big.png",
                                  "empty.png", "escape.png", "inner_link.jpg"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *p = in_root(names[i]);
        if (remove(p) != 0) fprintf(stderr, "cannot remove %s\n", p);
        free(p);
    }
    char *secret = fmt("%s/secret.png", outside_dir);
    remove(secret);
    free(secret);
    char *sibling = fmt("%s_sibling/a.png", root_dir);
    remove(sibling);
    sibling[strlen(sibling) - strlen("/a.png")] = '\0';
    rmdir(sibling);
    free(sibling);
    rmdir(root_dir);
    rmdir(outside_dir);
}

static void test_file_urls_ok(void)
{
    srv_limits lim = limits();
    lim.media_root = root_dir;
    srv_request req;
    /* Percent-encoding, the localhost host, and a symlink that stays inside the root. */
    char *body = fmt("{\"messages\":[{\"role\":\"user\",\"content\":["
                     "{\"type\":\"image_url\",\"image_url\":{\"url\":\"file://%s/a%%20b.png\"}},"
                     "{\"type\":\"image_url\",\"image_url\":{\"url\":\"file://localhost%s/"
                     "inner_link.jpg\"}},"
                     "{\"type\":\"image_url\",\"image_url\":\"file://%s/sub/../sub/in.jpg\"}]}]}",
                     root_dir, root_dir, root_dir);
    if (PARSE_OK(SRV_CHAT, body, &lim, &req)) {
        CHECK_INT_EQ(req.n_images, 3);
        CHECK_INT_EQ(req.images[0].len, sizeof png);
        CHECK(memcmp(req.images[0].bytes, png, sizeof png) == 0);
        CHECK_INT_EQ(req.images[1].len, sizeof jpeg);
        CHECK(memcmp(req.images[1].bytes, jpeg, sizeof jpeg) == 0);
        CHECK_INT_EQ(req.images[2].len, sizeof jpeg);
        CHECK_STR_EQ(req.images[2].where, "messages[0].content[2]");
        srv_request_free(&req);
    }
    free(body);
    /* The root given with a trailing slash and through a relative spelling still works. */
    char *alt = fmt("%s/sub/..//", root_dir);
    lim.media_root = alt;
    body = fmt(IMAGE_BODY("file://%s/sub/in.jpg"), root_dir);
    if (PARSE_OK(SRV_CHAT, body, &lim, &req)) srv_request_free(&req);
    free(body);
    free(alt);
}

static void test_file_urls_bad(void)
{
    srv_limits lim = limits();
    const char *url_param = "messages[0].content[0].image_url.url";
    char *body = fmt(IMAGE_BODY("file://%s/a%%20b.png"), root_dir);
    bad_dynamic(__LINE__, &lim, body, url_param, "this server has no media root");

    lim.media_root = root_dir;
    bad_dynamic(__LINE__, &lim, fmt(IMAGE_BODY("file://%s/../../etc/passwd"), root_dir), url_param,
                "is not a file under the media root");
    bad_dynamic(__LINE__, &lim, fmt(IMAGE_BODY("file://%s/escape.png"), root_dir), url_param,
                "is not a file under the media root");
    bad_dynamic(__LINE__, &lim, fmt(IMAGE_BODY("file://%s/missing.png"), root_dir), url_param,
                "is not a file under the media root");
    bad_dynamic(__LINE__, &lim, fmt(IMAGE_BODY("file://%s/sub"), root_dir), url_param,
                "is not a regular file");
    bad_dynamic(__LINE__, &lim, fmt(IMAGE_BODY("file://%s"), root_dir), url_param,
                "is not a file under the media root"); /* the root itself */
    bad_dynamic(__LINE__, &lim, fmt(IMAGE_BODY("file://%s/big.png"), root_dir), url_param,
                "is 5000 bytes, at most 4096");
    bad_dynamic(__LINE__, &lim, fmt(IMAGE_BODY("file://%s/empty.png"), root_dir), url_param,
                "is empty");
    bad_dynamic(__LINE__, &lim, fmt(IMAGE_BODY("file://evil.example%s/a.png"), root_dir), url_param,
                "names the host \"evil.example\"");
    bad_dynamic(__LINE__, &lim, fmt(IMAGE_BODY("file://%s/a%%2zb.png"), root_dir), url_param,
                "bad percent escape");
    bad_dynamic(__LINE__, &lim, fmt(IMAGE_BODY("file://%s/a%%00.png"), root_dir), url_param,
                "bad percent escape");
    bad_dynamic(__LINE__, &lim, fmt(IMAGE_BODY("file://%s/secret.png"), outside_dir), url_param,
                "is not a file under the media root");
    /* A sibling whose name starts with the root's is outside it: the '/' boundary. */
    bad_dynamic(__LINE__, &lim, fmt(IMAGE_BODY("file://%s_sibling/a.png"), root_dir), url_param,
                "is not a file under the media root");
}

/* ---------------------------------------------------------------- malformed requests */

static void test_bad_json(void)
{
    srv_limits lim = limits();
    BAD("{", "", "not valid JSON");
    BAD("{\"messages\": [}", "", "not valid JSON");
    BAD("{'messages': 1}", "", "not valid JSON (near byte");
    BAD("{\"a\":tru}", "", "not valid JSON");
    BAD("{\"a\":1} x", "", "more after the JSON value (at byte 8)");
    BAD("[1,2]", "", "must be a JSON object, not an array");
    BAD("\"text\"", "", "must be a JSON object, not a string");
    BAD("", "", "empty");
    BAD(" \n\t", "", "empty");
    BAD(NULL, "", "empty");
    /* The length bounds the parse: a valid object cut short is invalid. */
    int before = check_failed;
    srv_request req;
    srv_error err;
    const char *body = "{" MSG "}";
    CHECK_INT_EQ(srv_request_parse(SRV_CHAT, body, strlen(body) - 1, &lim, &req, &err), -1);
    CHECK_CONTAINS(err.message, "not valid JSON");
    if (check_failed != before) fprintf(stderr, "  (the cut-short case)\n");
    n_bad_cases++;
}

static void test_bad_messages(void)
{
    srv_limits lim = limits();
    BAD("{}", "messages", "\"messages\" is required");
    BAD("{\"messages\":null}", "messages", "\"messages\" is required");
    BAD("{\"messages\":[]}", "messages", "\"messages\" must not be empty");
    BAD("{\"messages\":\"hi\"}", "messages", "\"messages\" must be an array");
    BAD("{\"messages\":[\"hi\"]}", "messages[0]", "\"messages[0]\" must be an object");
    BAD("{\"messages\":[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"assistant\",\"content\":"
        "\"b\"},{\"role\":\"foo\",\"content\":\"c\"}]}",
        "messages[2].role", "messages[2].role: unknown role \"foo\"");
    BAD("{\"messages\":[{\"content\":\"a\"}]}", "messages[0].role", "is required");
    BAD("{\"messages\":[{\"role\":5,\"content\":\"a\"}]}", "messages[0].role",
        "\"messages[0].role\" must be a string");
    BAD("{\"messages\":[{\"role\":\"tool\",\"content\":\"a\"}]}", "messages[0].role",
        "\"tool\" messages are not supported");
    BAD("{\"messages\":[{\"role\":\"function\",\"content\":\"a\"}]}", "messages[0].role",
        "not supported");
    BAD("{\"messages\":[{\"role\":\"User\",\"content\":\"a\"}]}", "messages[0].role",
        "unknown role \"User\"");
    BAD("{\"messages\":[{\"role\":\"user\",\"content\":5}]}", "messages[0].content",
        "must be a string or an array of content parts");
    BAD("{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\"}}]}",
        "messages[0].content", "must be a string or an array of content parts");
    BAD("{\"messages\":[{\"role\":\"user\"}]}", "messages[0].content",
        "\"messages[0].content\" is required");
    BAD("{\"messages\":[{\"role\":\"system\",\"content\":null}]}", "messages[0].content",
        "is required");
    BAD("{\"messages\":[{\"role\":\"user\",\"content\":\"a\",\"name\":5}]}", "messages[0].name",
        "must be a string");
    BAD("{\"messages\":[{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"1\"}]}"
        "]}",
        "messages[0].tool_calls", "tool calling is not supported");
    BAD("{" MSG ",\"tools\":[{\"type\":\"function\"}]}", "tools", "tool calling is not supported");
    BAD("{" MSG ",\"response_format\":{\"type\":\"json_object\"}}", "response_format",
        "type \"json_object\" is not supported");
    BAD("{" MSG ",\"response_format\":\"json\"}", "response_format", "must be an object");
}

static void test_bad_parts(void)
{
    srv_limits lim = limits();
#define PARTS(p) "{\"messages\":[{\"role\":\"user\",\"content\":[" p "]}]}"
    BAD(PARTS("\"hi\""), "messages[0].content[0]", "\"messages[0].content[0]\" must be an object");
    BAD(PARTS("{\"text\":\"hi\"}"), "messages[0].content[0].type",
        "\"messages[0].content[0].type\" is required");
    BAD(PARTS("{\"type\":7}"), "messages[0].content[0].type", "must be a string");
    BAD(PARTS("{\"type\":\"video_url\",\"video_url\":{\"url\":\"x\"}}"),
        "messages[0].content[0].type", "\"video_url\" is not supported");
    BAD(PARTS("{\"type\":\"file\",\"file\":{}}"), "messages[0].content[0].type",
        "\"file\" is not supported");
    BAD(PARTS("{\"type\":\"text\",\"text\":5}"), "messages[0].content[0].text",
        "\"messages[0].content[0].text\" must be a string");
    BAD(PARTS("{\"type\":\"text\"}"), "messages[0].content[0].text", "is required");
    BAD(PARTS("{\"type\":\"image_url\",\"image_url\":{\"detail\":\"low\"}}"),
        "messages[0].content[0].image_url.url", "is required");
    BAD(PARTS("{\"type\":\"image_url\",\"image_url\":{\"url\":5}}"),
        "messages[0].content[0].image_url.url", "must be a string");
    BAD(PARTS("{\"type\":\"image_url\"}"), "messages[0].content[0].image_url", "is required");
    BAD(PARTS("{\"type\":\"image_url\",\"image_url\":5}"), "messages[0].content[0].image_url",
        "must be an object with a \"url\"");
#undef PARTS
}

/* ---- input_audio parts: the clips are the committed fixtures and WAV headers built here. */

static char *read_clip(const char *name, size_t *len)
{
    char path[4096], *data = NULL;
    const char *root = getenv("TS_ROOT");
    ts_error err = {0};
    snprintf(path, sizeof path, "%s/tests/fixtures/media/audio/%s", root ? root : ".", name);
    if (ts_file_read(path, &data, len, &err) != TS_OK) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    return data;
}

static char *clip_b64(const char *name)
{
    size_t len;
    char *data = read_clip(name, &len);
    char *b = base64((const uint8_t *)data, len, true);
    free(data);
    return b;
}

/* A 44-byte WAV header and `present` zero bytes, base64: channels, rate and the data size given. */
static char *wav_b64(unsigned channels, uint32_t rate, uint32_t declared, uint32_t present)
{
    uint8_t *w = calloc(1, 44 + present);
    unsigned align = (channels ? channels : 1) * 2;
    memcpy(w, "RIFF", 4), memcpy(w + 8, "WAVEfmt ", 8), memcpy(w + 36, "data", 4);
    uint32_t v[] = {36 + present, 16, rate, rate * align, declared};
    int at[] = {4, 16, 24, 28, 40};
    for (int k = 0; k < 5; k++)
        for (int b = 0; b < 4; b++) w[at[k] + b] = (uint8_t)(v[k] >> (8 * b));
    w[20] = 1, w[22] = (uint8_t)channels, w[32] = (uint8_t)align, w[34] = 16;
    char *b = base64(w, 44 + present, true);
    free(w);
    return b;
}

#define AUDIO_PART(data, format)                                                                   \
    fmt("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_audio\",\"input_audio\":" \
        "{\"data\":\"%s\",\"format\":\"%s\"}}]}]}",                                                 \
        data, format)

static void test_chat_audio(void)
{
    srv_limits lim = limits();
    size_t len;
    char *wav = read_clip("speech_8k_s16.wav", &len);
    char *b = base64((const uint8_t *)wav, len, true);
    char *body = fmt("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_audio\","
                     "\"input_audio\":{\"data\":\"%s\",\"format\":\"wav\"}},{\"type\":\"text\","
                     "\"text\":\"What is said?\"}]}]}",
                     b);
    srv_request req;
    if (PARSE_OK(SRV_CHAT, body, &lim, &req)) {
        CHECK_STR_EQ(req.messages_json, "[{\"role\":\"user\",\"content\":[{\"type\":\"audio\"},"
                                        "{\"type\":\"text\",\"text\":\"What is said?\"}]}]");
        CHECK_INT_EQ(req.n_audio, 1);
        CHECK_INT_EQ(req.n_images, 0);
        CHECK(req.audio[0].len == len && memcmp(req.audio[0].bytes, wav, len) == 0);
        CHECK_INT_EQ(req.audio[0].info.format, TS_AUDIO_FORMAT_WAV);
        CHECK_INT_EQ(req.audio[0].info.channels, 1);
        CHECK_INT_EQ(req.audio[0].info.rate, 8000);
        CHECK_INT_EQ(req.audio[0].info.frames, 12000); /* 1.5 s (sox trim 0 1.5) */
        CHECK(req.audio[0].seconds == 1.5);
        CHECK_STR_EQ(req.audio[0].where, "messages[0].content[0]");
        srv_request_free(&req);
    }
    free(body), free(b), free(wav);
    /* Each container under its own name, two clips within the 4 s a request may declare. */
    const char *clips[][2] = {{"silence_16k.flac", "flac"}, {"speech_16k.mp3", "mp3"},
                              {"tone_8k_stereo.ogg", "ogg"}, {"tone_48k_f32.wav", "wav"}};
    for (int k = 0; k < 4; k++) {
        b = clip_b64(clips[k][0]);
        body = AUDIO_PART(b, clips[k][1]);
        if (PARSE_OK(SRV_CHAT, body, &lim, &req)) {
            CHECK_INT_EQ(req.n_audio, 1);
            CHECK(req.audio[0].info.rate >= 8000 && req.audio[0].seconds <= 1.6);
            srv_request_free(&req);
        }
        free(body), free(b);
    }
}

static void test_bad_audio(void)
{
    srv_limits lim = limits();
#define PARTS(p) "{\"messages\":[{\"role\":\"user\",\"content\":[" p "]}]}"
    const char *D = "messages[0].content[0].input_audio.data";
    const char *F = "messages[0].content[0].input_audio.format";
    BAD(PARTS("{\"type\":\"input_audio\"}"), "messages[0].content[0].input_audio",
        "\"messages[0].content[0].input_audio\" is required");
    BAD(PARTS("{\"type\":\"input_audio\",\"input_audio\":\"UklGRg==\"}"),
        "messages[0].content[0].input_audio", "must be an object with \"data\" and \"format\"");
    BAD(PARTS("{\"type\":\"input_audio\",\"input_audio\":{\"data\":\"UklGRg==\"}}"), F,
        "\"messages[0].content[0].input_audio.format\" is required");
    BAD(PARTS("{\"type\":\"input_audio\",\"input_audio\":{\"data\":\"UklGRg==\",\"format\":3}}"), F,
        "must be a string");
    BAD(PARTS("{\"type\":\"input_audio\",\"input_audio\":{\"data\":\"UklGRg==\",\"format\":\"aac\"}}"),
        F, "audio format \"aac\" is not supported (\"wav\", \"mp3\", \"flac\" or \"ogg\")");
    BAD(PARTS("{\"type\":\"input_audio\",\"input_audio\":{\"format\":\"wav\"}}"), D,
        "\"messages[0].content[0].input_audio.data\" is required");
    BAD(PARTS("{\"type\":\"input_audio\",\"input_audio\":{\"data\":\"\",\"format\":\"wav\"}}"), D,
        "input_audio.data: audio data is empty");
    BAD(PARTS("{\"type\":\"input_audio\",\"input_audio\":{\"data\":\"UklG@@==\",\"format\":\"wav\"}}"),
        D, "invalid base64 character '@' at offset 4");
    char *png_b64 = base64(png, sizeof png, true);
    bad_dynamic(__LINE__, &lim, AUDIO_PART(png_b64, "wav"), D,
                "the audio cannot be accepted: audio: not a WAV, FLAC, MP3 or Ogg file (first bytes "
                "89 50 4e 47)");
    free(png_b64);
    char *b = clip_b64("speech_16k.mp3");
    bad_dynamic(__LINE__, &lim, AUDIO_PART(b, "wav"), F,
                "the format is \"wav\" but the data is a MP3 file (\"mp3\")");
    free(b);
    b = wav_b64(0, 16000, 3200, 3200);
    bad_dynamic(__LINE__, &lim, AUDIO_PART(b, "wav"), D, "WAV: header declares 0 channels");
    free(b);
    b = wav_b64(1, 100, 200, 200);
    bad_dynamic(__LINE__, &lim, AUDIO_PART(b, "wav"), D, "sample rate 100 Hz is outside");
    free(b);
    b = wav_b64(1, 16000, 16000u * 2 * 36000, 3200); /* ten hours declared, 0.1 s present */
    bad_dynamic(__LINE__, &lim, AUDIO_PART(b, "wav"), D,
                "WAV: header declares 36000.0 s of audio (576000000 frames at 16000 Hz), over the "
                "limit of 3.0 s");
    /* A wrong format on broken data: the mismatch is what is reported. */
    bad_dynamic(__LINE__, &lim, AUDIO_PART(b, "flac"), F, "the data is a WAV file");
    free(b);
    /* Four clips, at most three; three of 1.5 s, at most 4 s a request (the third named). */
    b = clip_b64("speech_8k_s16.wav");
    char *part = fmt("{\"type\":\"input_audio\",\"input_audio\":{\"data\":\"%s\",\"format\":\"wav\"}}", b);
    bad_dynamic(__LINE__, &lim,
                fmt("{\"messages\":[{\"role\":\"user\",\"content\":[%s,%s,%s,%s]}]}", part, part, part, part),
                "messages", "4 audio clips, at most 3 per request");
    bad_dynamic(__LINE__, &lim, fmt("{\"messages\":[{\"role\":\"user\",\"content\":[%s,%s,%s]}]}", part, part, part),
                "messages[0].content[2].input_audio.data",
                "the clips declare 4.5 s of audio up to here (this one 1.5 s), over this server's 4.0 s "
                "per request; nothing was decoded");
    bad_dynamic(__LINE__, &lim,
                fmt("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\","
                    "\"content\":[%s]}]}",
                    part),
                "messages[1].content[0]", "audio is only allowed in user messages, not assistant");
    free(part), free(b);
}

static void test_bad_image_urls(void)
{
    srv_limits lim = limits();
    const char *p = "messages[0].content[0].image_url.url";
    BAD(IMAGE_BODY("http://example.com/cat.png"), p,
        "remote image URLs are not fetched by this server; send the image as a data: URL");
    BAD(IMAGE_BODY("https://example.com/cat.png"), p, "remote image URLs are not fetched");
    BAD(IMAGE_BODY("ftp://example.com/cat.png"), p, "image URL scheme \"ftp\" is not supported");
    BAD(IMAGE_BODY("cat.png"), p, "not a data: URL");
    BAD(IMAGE_BODY("data:image/png;base64,iVBO!Rw0K"), p,
        "invalid base64 character '!' at offset 4");
    BAD(IMAGE_BODY("data:image/png;base64,iVBO Rw0K"), p,
        "invalid base64 character \\x20 at offset 4");
    BAD(IMAGE_BODY("data:image/png;base64,iVBO-_w0K"), p, "invalid base64 character '-'");
    BAD(IMAGE_BODY("data:image/png;base64,QQ="), p, "bad base64 padding");
    BAD(IMAGE_BODY("data:image/png;base64,QQ==QQ=="), p, "bad base64 padding: '=' at offset 2");
    BAD(IMAGE_BODY("data:image/png;base64,QUJDR"), p, "bad base64 padding");
    BAD(IMAGE_BODY("data:image/png;base64,QUJD===="), p, "bad base64 padding");
    BAD(IMAGE_BODY("data:text/plain;base64,aGVsbG8="), p, "is not an image (data:text/plain)");
    BAD(IMAGE_BODY("data:;base64,aGVsbG8="), p, "is not an image (data:)");
    BAD(IMAGE_BODY("data:image/png,iVBORw0K"), p, "must be base64");
    BAD(IMAGE_BODY("data:image/png;base64"), p, "must be base64");
    BAD(IMAGE_BODY("data:image/png;base64,"), p, "image data is empty");
    BAD(IMAGE_BODY("data:image/png;base64,=="), p, "bad base64 padding");
    /* The image given as a bare string reports the image_url param itself. */
    BAD("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":"
        "\"http://x/y.png\"}]}]}",
        "messages[0].content[0].image_url", "remote image URLs");

    /* Over max_image_bytes: refused from the encoded length, before decoding. */
    static uint8_t big[5000];
    char *b = base64(big, sizeof big, true);
    bad_dynamic(__LINE__, &lim, fmt(IMAGE_BODY("data:image/png;base64,%s"), b), p,
                "messages[0].content[0]: image is 5000 bytes, at most 4096");
    free(b);

    /* Images outside user messages. */
    char *png64 = base64(png, sizeof png, true);
    bad_dynamic(__LINE__, &lim,
                fmt("{\"messages\":[{\"role\":\"system\",\"content\":[{\"type\":\"image_url\","
                    "\"image_url\":{\"url\":\"data:image/png;base64,%s\"}}]}]}",
                    png64),
                "messages[0].content[0]", "images are only allowed in user messages");
    bad_dynamic(__LINE__, &lim,
                fmt("{\"messages\":[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"assistant\","
                    "\"content\":[{\"type\":\"image_url\",\"image_url\":\"data:image/png;base64,"
                    "%s\"}]}]}",
                    png64),
                "messages[1].content[0]", "not assistant messages");

    /* Too many images: counted over every message before any is loaded. */
#define IMG "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,%s\"}}"
    bad_dynamic(__LINE__, &lim,
                fmt("{\"messages\":[{\"role\":\"user\",\"content\":[" IMG "," IMG "]},"
                    "{\"role\":\"user\",\"content\":[" IMG "," IMG "]}]}",
                    png64, png64, png64, png64),
                "messages", "4 images, at most 3 per request");
#undef IMG
    free(png64);
}

static void test_bad_sampling(void)
{
    srv_limits lim = limits();
    BAD("{" MSG ",\"temperature\":\"hot\"}", "temperature", "\"temperature\" must be a number");
    BAD("{" MSG ",\"temperature\":true}", "temperature", "must be a number");
    BAD("{" MSG ",\"temperature\":2.5}", "temperature",
        "\"temperature\" must be in [0, 2], got 2.5");
    BAD("{" MSG ",\"temperature\":-0.1}", "temperature", "must be in [0, 2]");
    BAD("{" MSG ",\"temperature\":1e999}", "temperature", "must be in [0, 2]");
    BAD("{" MSG ",\"top_p\":0}", "top_p", "\"top_p\" must be in (0, 1], got 0");
    BAD("{" MSG ",\"top_p\":1.5}", "top_p", "must be in (0, 1], got 1.5");
    BAD("{" MSG ",\"top_p\":1e-50}", "top_p", "must be in (0, 1]");
    BAD("{" MSG ",\"top_k\":-2}", "top_k", "\"top_k\" must be -1 (off) or more, got -2");
    BAD("{" MSG ",\"top_k\":1.5}", "top_k", "must be an integer, got 1.5");
    BAD("{" MSG ",\"top_k\":3000000000}", "top_k", "too large");
    BAD("{" MSG ",\"min_p\":2}", "min_p", "\"min_p\" must be in [0, 1], got 2");
    BAD("{" MSG ",\"presence_penalty\":3}", "presence_penalty", "must be in [-2, 2], got 3");
    BAD("{" MSG ",\"frequency_penalty\":-3}", "frequency_penalty", "must be in [-2, 2]");
    BAD("{" MSG ",\"repetition_penalty\":0}", "repetition_penalty", "must be in (0, 10], got 0");
    BAD("{" MSG ",\"repetition_penalty\":11}", "repetition_penalty", "must be in (0, 10]");
    BAD("{" MSG ",\"seed\":\"42\"}", "seed", "\"seed\" must be an integer");
    BAD("{" MSG ",\"seed\":1.5}", "seed", "\"seed\" must be an integer, got 1.5");
    BAD("{" MSG ",\"seed\":1e30}", "seed", "\"seed\" is too large");
    BAD("{" MSG ",\"n\":2}", "n", "n: only n = 1 is supported");
    BAD("{" MSG ",\"n\":\"1\"}", "n", "\"n\" must be an integer");
    BAD("{" MSG ",\"model\":5}", "model", "\"model\" must be a string");
    BAD("{" MSG ",\"stream\":\"yes\"}", "stream", "\"stream\" must be a boolean");
    BAD("{" MSG ",\"stream_options\":1}", "stream_options", "must be an object");
    BAD("{" MSG ",\"stream_options\":{\"include_usage\":1}}", "stream_options.include_usage",
        "\"stream_options.include_usage\" must be a boolean");
    BAD("{" MSG ",\"ignore_eos\":1}", "ignore_eos", "must be a boolean");
    BAD("{" MSG ",\"speculative_decoding\":0}", "speculative_decoding", "must be a boolean");
}

static void test_bad_stop_and_lengths(void)
{
    srv_limits lim = limits();
    BAD("{" MSG ",\"stop\":5}", "stop", "\"stop\" must be a string or an array of strings");
    BAD("{" MSG ",\"stop\":{}}", "stop", "must be a string or an array of strings");
    BAD("{" MSG ",\"stop\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"j\",\"k\","
        "\"l\",\"m\",\"n\",\"o\",\"p\",\"q\",\"r\",\"s\",\"t\"]}",
        "stop", "stop: 20 strings, at most 16");
    BAD("{" MSG ",\"stop\":\"\"}", "stop", "\"stop\" must not be an empty string");
    BAD("{" MSG ",\"stop\":[\"a\",5]}", "stop[1]", "\"stop[1]\" must be a string");
    BAD("{" MSG ",\"stop\":[\"a\",\"\"]}", "stop[1]", "must not be an empty string");
    char long_stop[1026];
    memset(long_stop, 'x', 1025);
    long_stop[1025] = '\0';
    bad_dynamic(__LINE__, &lim, fmt("{" MSG ",\"stop\":[\"%s\"]}", long_stop), "stop[0]",
                "is 1025 bytes, at most 1024");

    BAD("{" MSG ",\"max_tokens\":-1}", "max_tokens", "\"max_tokens\" must be at least 1, got -1");
    BAD("{" MSG ",\"max_tokens\":0}", "max_tokens", "must be at least 1, got 0");
    BAD("{" MSG ",\"max_tokens\":1.5}", "max_tokens", "\"max_tokens\" must be an integer, got 1.5");
    BAD("{" MSG ",\"max_tokens\":1e12}", "max_tokens", "\"max_tokens\" is too large");
    BAD("{" MSG ",\"max_tokens\":2147483649}", "max_tokens", "too large");
    BAD("{" MSG ",\"max_tokens\":\"10\"}", "max_tokens", "\"max_tokens\" must be an integer");
    BAD("{" MSG ",\"max_tokens\":10,\"max_completion_tokens\":0}", "max_completion_tokens",
        "\"max_completion_tokens\" must be at least 1");
}

static void test_bad_logprobs_bias_budget(void)
{
    srv_limits lim = limits();
    BAD("{" MSG ",\"logprobs\":1}", "logprobs", "\"logprobs\" must be a boolean");
    BAD("{" MSG ",\"logprobs\":true,\"top_logprobs\":21}", "top_logprobs",
        "\"top_logprobs\" must be in [0, 20], got 21");
    BAD("{" MSG ",\"logprobs\":true,\"top_logprobs\":-1}", "top_logprobs", "must be in [0, 20]");
    BAD("{" MSG ",\"top_logprobs\":2}", "top_logprobs", "requires \"logprobs\": true");
    BAD("{" MSG ",\"logprobs\":false,\"top_logprobs\":0}", "top_logprobs",
        "requires \"logprobs\": true");
    BAD("{" MSG ",\"logit_bias\":{\"abc\":1}}", "logit_bias",
        "logit_bias: key \"abc\" is not a token id");
    BAD("{" MSG ",\"logit_bias\":{\"-1\":1}}", "logit_bias", "key \"-1\" is not a token id");
    BAD("{" MSG ",\"logit_bias\":{\"1000\":1}}", "logit_bias",
        "token id \"1000\" is outside the vocabulary [0, 1000)");
    BAD("{" MSG ",\"logit_bias\":{\"5\":101}}", "logit_bias", "must be a number in [-100, 100]");
    BAD("{" MSG ",\"logit_bias\":{\"5\":\"x\"}}", "logit_bias", "must be a number in [-100, 100]");
    BAD("{" MSG ",\"logit_bias\":[1]}", "logit_bias", "\"logit_bias\" must be an object");
    BAD("{" MSG ",\"logit_bias\":{\"5\":1,\"05\":2}}", "logit_bias", "token id 5 is given twice");
    BAD("{" MSG ",\"mm_processor_kwargs\":5}", "mm_processor_kwargs",
        "\"mm_processor_kwargs\" must be an object");
    BAD("{" MSG ",\"mm_processor_kwargs\":{\"max_pixels\":\"big\"}}",
        "mm_processor_kwargs.max_pixels", "\"mm_processor_kwargs.max_pixels\" must be an integer");
    BAD("{" MSG ",\"mm_processor_kwargs\":{\"min_pixels\":0}}", "mm_processor_kwargs.min_pixels",
        "must be at least 1");
    BAD("{" MSG ",\"mm_processor_kwargs\":{\"max_pixels\":1e10}}", "mm_processor_kwargs.max_pixels",
        "too large");
    BAD("{" MSG ",\"mm_processor_kwargs\":{\"min_pixels\":200,\"max_pixels\":100}}",
        "mm_processor_kwargs", "min_pixels 200 is greater than max_pixels 100");
}

static void test_bad_completions(void)
{
    srv_limits lim = limits();
    BAD_COMPLETION("{}", "prompt", "\"prompt\" is required");
    BAD_COMPLETION("{\"prompt\":null}", "prompt", "\"prompt\" is required");
    BAD_COMPLETION("{\"prompt\":\"\"}", "prompt", "\"prompt\" must not be empty");
    BAD_COMPLETION("{\"prompt\":[\"\"]}", "prompt", "must not be empty");
    BAD_COMPLETION("{\"prompt\":5}", "prompt",
                   "\"prompt\" must be a string or an array holding one string");
    BAD_COMPLETION("{\"prompt\":[\"a\",\"b\"]}", "prompt", "an array of 2 prompts");
    BAD_COMPLETION("{\"prompt\":[]}", "prompt", "an array of 0 prompts");
    BAD_COMPLETION("{\"prompt\":[1,2,3]}", "prompt", "an array of 3 prompts");
    BAD_COMPLETION("{\"prompt\":[[1,2,3]]}", "prompt", "token-id prompts are not supported");
    BAD_COMPLETION("{\"prompt\":[true]}", "prompt[0]", "\"prompt[0]\" must be a string");
    BAD_COMPLETION("{\"prompt\":\"a\",\"echo\":true}", "echo",
                   "echo: echoing the prompt is not supported");
    BAD_COMPLETION("{\"prompt\":\"a\",\"echo\":\"yes\"}", "echo", "\"echo\" must be a boolean");
    BAD_COMPLETION("{\"prompt\":\"a\",\"suffix\":\"\"}", "suffix", "not supported");
    BAD_COMPLETION("{\"prompt\":\"a\",\"best_of\":2}", "best_of", "only best_of = 1 is supported");
    BAD_COMPLETION("{\"prompt\":\"a\",\"logprobs\":21}", "logprobs",
                   "\"logprobs\" must be in [0, 20], got 21");
    BAD_COMPLETION("{\"prompt\":\"a\",\"logprobs\":true}", "logprobs",
                   "\"logprobs\" must be an integer");
    BAD_COMPLETION("{\"prompt\":\"a\",\"temperature\":3}", "temperature", "must be in [0, 2]");
    BAD_COMPLETION("[\"a\"]", "", "must be a JSON object");
}

/* ---------------------------------------------------------------- errors */

static void test_error_json(void)
{
    srv_error err;
    CHECK_INT_EQ(srv_fail(&err, 400, "messages[0].role", "unknown role \"%s\"\n\\", "x\"y"), -1);
    CHECK_INT_EQ(err.status, 400);
    char *json = srv_error_json(&err);
    REQUIRE(json != NULL);
    cJSON *doc = cJSON_Parse(json);
    REQUIRE(doc != NULL);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(doc, "error");
    CHECK(cJSON_IsObject(e));
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "message")),
                 "unknown role \"x\"y\"\n\\");
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "type")),
                 "invalid_request_error");
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "param")),
                 "messages[0].role");
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(e, "code")));
    CHECK_CONTAINS(json, "\\\"x\\\"y\\\"\\n\\\\");
    cJSON_Delete(doc);
    free(json);

    static const struct {
        int status;
        const char *type;
    } types[] = {{401, "authentication_error"},  {404, "invalid_request_error"},
                 {413, "invalid_request_error"}, {429, "rate_limit_error"},
                 {500, "server_error"},          {503, "server_error"}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        srv_fail(&err, types[i].status, NULL, "status %d", types[i].status);
        json = srv_error_json(&err);
        doc = cJSON_Parse(json);
        e = cJSON_GetObjectItemCaseSensitive(doc, "error");
        CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "type")),
                     types[i].type);
        CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(e, "param")));
        cJSON_Delete(doc);
        free(json);
    }

    /* A message cut by the buffer does not end inside a UTF-8 character. */
    char long_text[1200];
    for (size_t i = 0; i + 2 < sizeof long_text; i += 2)
        memcpy(long_text + i, "\xC3\xA9", 2);
    long_text[sizeof long_text - 2] = '\0';
    srv_fail(&err, 400, "", "xy%s", long_text);
    size_t n = strlen(err.message);
    CHECK_INT_EQ(n, 510); /* "xy" and 254 whole characters: the 255th did not fit */
    CHECK(((unsigned char)err.message[n - 1] & 0xC0) == 0x80);
    CHECK(srv_error_json(NULL) == NULL);

    /* Through the parser: an error reaches the document with its param. */
    srv_limits lim = limits();
    srv_request req;
    const char *body = "{" MSG ",\"top_p\":0}";
    CHECK_INT_EQ(srv_request_parse(SRV_CHAT, body, strlen(body), &lim, &req, &err), -1);
    json = srv_error_json(&err);
    CHECK_CONTAINS(json, "\"param\":\"top_p\"");
    CHECK_CONTAINS(json, "\"type\":\"invalid_request_error\"");
    free(json);
}

int main(void)
{
    RUN(test_chat_string);
    RUN(test_chat_images);
    RUN(test_completions);
    RUN(test_parameters);
    RUN(test_null_is_absent);
    RUN(test_unknown_fields_ignored);
    RUN(test_default_logit_bias);
    make_media();
    RUN(test_file_urls_ok);
    RUN(test_file_urls_bad);
    remove_media();
    RUN(test_bad_json);
    RUN(test_bad_messages);
    RUN(test_bad_parts);
    RUN(test_chat_audio);
    RUN(test_bad_audio);
    RUN(test_bad_image_urls);
    RUN(test_bad_sampling);
    RUN(test_bad_stop_and_lengths);
    RUN(test_bad_logprobs_bias_budget);
    RUN(test_bad_completions);
    RUN(test_error_json);
    printf("%d malformed requests checked\n", n_bad_cases);
    return check_finish();
}
