/* request.c — srv_request_parse: an OpenAI chat or completions body, checked field by field.
 *
 * Every field the server acts on is read here and nowhere else, so a request that parses is one
 * the engine can run as asked: a wrong type, an out-of-range value or a feature this server does
 * not implement (n > 1, echo, suffix, tools, audio parts, remote images) is a 400 naming the
 * field, never a quiet default. The request is built in place in *out; any failure tears it
 * down with srv_request_free, so a caller never sees half a request.
 */
#include "server/request.h"
#include "server/json_strings.h"
#include "base/utf8.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    MAX_STOP_BYTES = 1024,
    MAX_TOP_LOGPROBS = 20,
    CLIP = 48, /* bytes of user text quoted in an error message */
};
/* max_tokens and the pixel budget: larger values are mistakes, and keep int arithmetic safe. */
#define MAX_COUNT 2147483648.0

/* ---------------------------------------------------------------- errors */

/* A message cut by the buffer must still be valid UTF-8: the error JSON carries it verbatim. */
static void drop_partial_utf8(char *s)
{
    size_t n = strlen(s), i = n;
    while (i > 0 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
        i--;
    if (i == 0) return;
    unsigned char lead = (unsigned char)s[i - 1];
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (n - (i - 1) < need) s[i - 1] = '\0';
}

int srv_fail(srv_error *err, int status, const char *param, const char *fmt, ...)
{
    if (!err) return -1;
    err->status = status;
    if (snprintf(err->param, sizeof err->param, "%s", param ? param : "") >= (int)sizeof err->param)
        drop_partial_utf8(err->param);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof err->message) drop_partial_utf8(err->message);
    return -1;
}

static const char *error_type(int status)
{
    switch (status) {
    case 401:
        return "authentication_error";
    case 429:
        return "rate_limit_error";
    default:
        return status >= 500 ? "server_error" : "invalid_request_error";
    }
}

char *srv_error_json(const srv_error *err)
{
    if (!err) return NULL;
    /* Messages quote the request's own fields, which need not be valid UTF-8. */
    char *message = ts_utf8_clean(err->message, strlen(err->message)), *param = ts_utf8_clean(err->param, strlen(err->param));
    cJSON *doc = cJSON_CreateObject();
    cJSON *e = cJSON_AddObjectToObject(doc, "error");
    bool ok = message && param && e && cJSON_AddStringToObject(e, "message", message) &&
              cJSON_AddStringToObject(e, "type", error_type(err->status)) &&
              (param[0] ? cJSON_AddStringToObject(e, "param", param) != NULL : cJSON_AddNullToObject(e, "param") != NULL) &&
              cJSON_AddNullToObject(e, "code");
    char *printed = ok ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    free(message), free(param);
    /* The contract says free(): copy out of cJSON's allocator, which may be hooked. */
    char *out = printed ? strdup(printed) : NULL;
    cJSON_free(printed);
    return out;
}

static int out_of_memory(srv_error *err)
{
    return srv_fail(err, 500, "", "out of memory");
}

/* Copies s (n bytes) into buf for quoting, cut at a UTF-8 boundary with "..." when too long. */
static const char *clip(char *buf, size_t size, const char *s, size_t n)
{
    if (n < size) {
        memcpy(buf, s, n);
        buf[n] = '\0';
        return buf;
    }
    size_t keep = size - 4;
    while (keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80)
        keep--;
    memcpy(buf, s, keep);
    memcpy(buf + keep, "...", 4);
    return buf;
}

/* ---------------------------------------------------------------- typed fields */

typedef struct parser {
    const srv_limits *limits;
    srv_request *req;
    srv_error *err;
} parser;

/* The field, or NULL when absent or JSON null: OpenAI clients send null for "not set". */
static const cJSON *field(const cJSON *obj, const char *name)
{
    if (!cJSON_IsObject(obj)) return NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    return cJSON_IsNull(v) ? NULL : v;
}

static const char *json_kind(const cJSON *v)
{
    if (cJSON_IsArray(v)) return "an array";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsNull(v)) return "null";
    return "an object";
}

static int type_error(srv_error *err, const char *param, const char *expected)
{
    return srv_fail(err, 400, param, "\"%s\" must be %s", param, expected);
}

static int required(srv_error *err, const char *param)
{
    return srv_fail(err, 400, param, "\"%s\" is required", param);
}

/* 1 when given, 0 when absent, -1 on error. */
static int get_bool(parser *p, const cJSON *obj, const char *name, const char *param, bool *out)
{
    const cJSON *v = field(obj, name);
    if (!v) return 0;
    if (!cJSON_IsBool(v)) return type_error(p->err, param, "a boolean");
    *out = cJSON_IsTrue(v);
    return 1;
}

/* A JSON number that is a whole int64: cJSON keeps only the double, so integrality and range are
 * judged on it (seeds past 2^53 arrive rounded, as they would in JavaScript clients). */
static int as_integer(parser *p, const cJSON *v, const char *param, int64_t *out)
{
    if (!cJSON_IsNumber(v)) return type_error(p->err, param, "an integer");
    double d = v->valuedouble;
    if (!isfinite(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0)
        return srv_fail(p->err, 400, param, "\"%s\" is too large (%g)", param, d);
    if (d != trunc(d))
        return srv_fail(p->err, 400, param, "\"%s\" must be an integer, got %g", param, d);
    *out = (int64_t)d;
    return 0;
}

static int get_integer(parser *p, const cJSON *obj, const char *name, const char *param,
                       int64_t *out)
{
    const cJSON *v = field(obj, name);
    if (!v) return 0;
    return as_integer(p, v, param, out) ? -1 : 1;
}

static int get_int_in(parser *p, const cJSON *obj, const char *name, int64_t lo, int64_t hi,
                      int64_t *out)
{
    int given = get_integer(p, obj, name, name, out);
    if (given <= 0) return given;
    if (*out < lo || *out > hi)
        return srv_fail(p->err, 400, name, "\"%s\" must be in [%lld, %lld], got %lld", name,
                        (long long)lo, (long long)hi, (long long)*out);
    return 1;
}

/* A count such as max_tokens: an integer in [1, 2^31]. */
static int get_count(parser *p, const cJSON *obj, const char *name, const char *param, int64_t *out)
{
    int given = get_integer(p, obj, name, param, out);
    if (given <= 0) return given;
    if (*out < 1)
        return srv_fail(p->err, 400, param, "\"%s\" must be at least 1, got %lld", param,
                        (long long)*out);
    if ((double)*out > MAX_COUNT)
        return srv_fail(p->err, 400, param, "\"%s\" is too large (%lld; at most %.0f)", param,
                        (long long)*out, MAX_COUNT);
    return 1;
}

/* A sampling number in [lo, hi], or (lo, hi] when lo_open; stored as float. */
static int get_float(parser *p, const cJSON *obj, const char *name, double lo, bool lo_open,
                     double hi, float *out)
{
    const cJSON *v = field(obj, name);
    if (!v) return 0;
    if (!cJSON_IsNumber(v)) return type_error(p->err, name, "a number");
    double d = v->valuedouble;
    /* The float check catches an open bound met only after rounding (top_p 1e-50 → 0). */
    bool ok = isfinite(d) && (lo_open ? d > lo : d >= lo) && d <= hi &&
              (!lo_open || (float)d > (float)lo);
    if (!ok)
        return srv_fail(p->err, 400, name, "\"%s\" must be in %s%g, %g], got %g", name,
                        lo_open ? "(" : "[", lo, hi, d);
    *out = (float)d;
    return 1;
}

static int dup_string(parser *p, const char *s, char **out)
{
    *out = strdup(s);
    return *out ? 0 : out_of_memory(p->err);
}

/* ---------------------------------------------------------------- common parameters */

static int add_stop(parser *p, const cJSON *v, const char *param)
{
    if (!cJSON_IsString(v)) return type_error(p->err, param, "a string");
    size_t n = strlen(v->valuestring);
    if (n == 0) return srv_fail(p->err, 400, param, "\"%s\" must not be an empty string", param);
    if (n > MAX_STOP_BYTES)
        return srv_fail(p->err, 400, param, "\"%s\" is %zu bytes, at most %d", param, n,
                        MAX_STOP_BYTES);
    if (dup_string(p, v->valuestring, &p->req->stop[p->req->n_stop])) return -1;
    p->req->n_stop++;
    return 0;
}

static int parse_stop(parser *p, const cJSON *root)
{
    const cJSON *v = field(root, "stop");
    if (!v) return 0;
    if (!cJSON_IsString(v) && !cJSON_IsArray(v))
        return type_error(p->err, "stop", "a string or an array of strings");
    int n = cJSON_IsString(v) ? 1 : cJSON_GetArraySize(v);
    if (n > p->limits->max_stop)
        return srv_fail(p->err, 400, "stop", "stop: %d strings, at most %d", n,
                        p->limits->max_stop);
    if (n == 0) return 0;
    p->req->stop = calloc((size_t)n, sizeof *p->req->stop);
    if (!p->req->stop) return out_of_memory(p->err);
    if (cJSON_IsString(v)) return add_stop(p, v, "stop");
    int i = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, v)
    {
        char param[64];
        snprintf(param, sizeof param, "stop[%d]", i++);
        if (add_stop(p, s, param)) return -1;
    }
    return 0;
}

static int by_id(const void *a, const void *b)
{
    int32_t x = ((const ts_logit_bias *)a)->id, y = ((const ts_logit_bias *)b)->id;
    return (x > y) - (x < y);
}

/* A token id key: decimal digits only, as OpenAI's tokenizer ids are written. */
static bool parse_token_id(const char *key, int64_t *id)
{
    if (!key[0] || strspn(key, "0123456789") != strlen(key) || strlen(key) > 18) return false;
    *id = strtoll(key, NULL, 10);
    return true;
}

/* The request's own copy (sorted by id): sampling.logit_bias always points into memory the
 * request owns, so srv_request_free can release it whatever the defaults held. */
static int parse_logit_bias(parser *p, const cJSON *root)
{
    ts_sampling_params *s = &p->req->sampling;
    const ts_sampling_params *d = &p->limits->defaults;
    const cJSON *v = field(root, "logit_bias");
    if (!v) {
        if (d->n_logit_bias == 0 || !d->logit_bias) return 0;
        ts_logit_bias *copy = malloc(d->n_logit_bias * sizeof *copy);
        if (!copy) return out_of_memory(p->err);
        memcpy(copy, d->logit_bias, d->n_logit_bias * sizeof *copy);
        s->logit_bias = copy;
        s->n_logit_bias = d->n_logit_bias;
        return 0;
    }
    if (!cJSON_IsObject(v))
        return type_error(p->err, "logit_bias", "an object mapping token ids to numbers");
    int n = cJSON_GetArraySize(v);
    if (n == 0) return 0;
    ts_logit_bias *lb = calloc((size_t)n, sizeof *lb);
    if (!lb) return out_of_memory(p->err);
    s->logit_bias = lb;
    const cJSON *item;
    cJSON_ArrayForEach(item, v)
    {
        char key[CLIP];
        clip(key, sizeof key, item->string, strlen(item->string));
        int64_t id;
        if (!parse_token_id(item->string, &id))
            return srv_fail(p->err, 400, "logit_bias", "logit_bias: key \"%s\" is not a token id",
                            key);
        if (id >= p->limits->vocab_size)
            return srv_fail(p->err, 400, "logit_bias",
                            "logit_bias: token id \"%s\" is outside the vocabulary [0, %lld)", key,
                            (long long)p->limits->vocab_size);
        if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || item->valuedouble < -100 ||
            item->valuedouble > 100)
            return srv_fail(p->err, 400, "logit_bias",
                            "logit_bias: the bias for token \"%s\" must be a number in [-100, 100]",
                            key);
        lb[s->n_logit_bias].id = (int32_t)id;
        lb[s->n_logit_bias].bias = (float)item->valuedouble;
        s->n_logit_bias++;
    }
    /* "5" and "05" name one token; which bias wins would be a guess, so neither does. */
    qsort(lb, s->n_logit_bias, sizeof *lb, by_id);
    for (size_t i = 1; i < s->n_logit_bias; i++)
        if (lb[i].id == lb[i - 1].id)
            return srv_fail(p->err, 400, "logit_bias", "logit_bias: token id %d is given twice",
                            (int)lb[i].id);
    return 0;
}

static int parse_budget(parser *p, const cJSON *root)
{
    const cJSON *v = field(root, "mm_processor_kwargs");
    if (!v) return 0;
    if (!cJSON_IsObject(v)) return type_error(p->err, "mm_processor_kwargs", "an object");
    ts_image_budget *b = &p->req->budget;
    if (get_count(p, v, "min_pixels", "mm_processor_kwargs.min_pixels", &b->min_pixels) < 0 ||
        get_count(p, v, "max_pixels", "mm_processor_kwargs.max_pixels", &b->max_pixels) < 0)
        return -1;
    if (b->min_pixels && b->max_pixels && b->min_pixels > b->max_pixels)
        return srv_fail(p->err, 400, "mm_processor_kwargs",
                        "mm_processor_kwargs: min_pixels %lld is greater than max_pixels %lld",
                        (long long)b->min_pixels, (long long)b->max_pixels);
    return 0;
}

static int parse_common(parser *p, const cJSON *root)
{
    srv_request *r = p->req;
    ts_sampling_params *s = &r->sampling;
    const cJSON *v = field(root, "model");
    if (v) {
        if (!cJSON_IsString(v)) return type_error(p->err, "model", "a string");
        if (dup_string(p, v->valuestring, &r->model)) return -1;
    }
    if (get_bool(p, root, "stream", "stream", &r->stream) < 0) return -1;
    v = field(root, "stream_options");
    if (v) {
        if (!cJSON_IsObject(v)) return type_error(p->err, "stream_options", "an object");
        if (get_bool(p, v, "include_usage", "stream_options.include_usage", &r->include_usage) < 0)
            return -1;
    }
    if (get_float(p, root, "temperature", 0, false, 2, &s->temperature) < 0 ||
        get_float(p, root, "top_p", 0, true, 1, &s->top_p) < 0 ||
        get_float(p, root, "min_p", 0, false, 1, &s->min_p) < 0 ||
        get_float(p, root, "presence_penalty", -2, false, 2, &s->presence_penalty) < 0 ||
        get_float(p, root, "frequency_penalty", -2, false, 2, &s->frequency_penalty) < 0 ||
        get_float(p, root, "repetition_penalty", 0, true, 10, &s->repetition_penalty) < 0)
        return -1;

    int64_t x;
    int given = get_integer(p, root, "top_k", "top_k", &x);
    if (given < 0) return -1;
    if (given) {
        if (x < -1)
            return srv_fail(p->err, 400, "top_k", "\"top_k\" must be -1 (off) or more, got %lld",
                            (long long)x);
        if (x > INT32_MAX)
            return srv_fail(p->err, 400, "top_k", "\"top_k\" is too large (%lld)", (long long)x);
        s->top_k = x <= 0 ? 0 : (int32_t)x; /* vLLM's -1 and llama.cpp's 0 both mean off */
    }
    given = get_integer(p, root, "seed", "seed", &x);
    if (given < 0) return -1;
    if (given) {
        s->seed = (uint64_t)x;
        r->seed_given = true;
    }
    if (parse_stop(p, root)) return -1;

    int64_t max_tokens = 0, max_completion_tokens = 0;
    if (get_count(p, root, "max_tokens", "max_tokens", &max_tokens) < 0 ||
        get_count(p, root, "max_completion_tokens", "max_completion_tokens",
                  &max_completion_tokens) < 0)
        return -1;
    /* OpenAI deprecated max_tokens in favour of max_completion_tokens: the newer name wins. */
    r->max_tokens = max_completion_tokens ? max_completion_tokens : max_tokens;

    given = get_integer(p, root, "n", "n", &x);
    if (given < 0) return -1;
    if (given && x != 1) return srv_fail(p->err, 400, "n", "n: only n = 1 is supported");

    if (parse_logit_bias(p, root) || parse_budget(p, root)) return -1;
    if (get_bool(p, root, "ignore_eos", "ignore_eos", &r->ignore_eos) < 0) return -1;
    return 0;
}

/* ---------------------------------------------------------------- images */

static bool has_prefix(const char *s, const char *prefix)
{
    return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

static int base64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Strict standard base64: no whitespace or URL-safe letters, padding optional but exact. The
 * letters are checked and the decoded size computed before anything is allocated, so a bad or
 * oversized image costs one scan. */
static int decode_base64(parser *p, const char *s, const char *where, const char *param,
                         uint8_t **out, size_t *out_len)
{
    size_t n = strlen(s), data = n;
    while (data > 0 && s[data - 1] == '=')
        data--;
    for (size_t i = 0; i < data; i++) {
        unsigned char c = (unsigned char)s[i];
        if (base64_value(c) >= 0) continue;
        if (c == '=')
            return srv_fail(p->err, 400, param,
                            "%s: bad base64 padding: '=' at offset %zu of the data", where, i);
        char shown[8];
        snprintf(shown, sizeof shown, c >= 0x21 && c < 0x7F ? "'%c'" : "\\x%02X", c);
        return srv_fail(p->err, 400, param,
                        "%s: invalid base64 character %s at offset %zu of the data", where, shown,
                        i);
    }
    size_t pad = n - data;
    if (pad > 2 || (pad && n % 4 != 0) || data % 4 == 1)
        return srv_fail(
            p->err, 400, param,
            "%s: bad base64 padding or length (%zu characters, %zu of them '=' at the end)", where,
            n, pad);
    size_t len = data / 4 * 3 + (data % 4 ? data % 4 - 1 : 0);
    if (len == 0) return srv_fail(p->err, 400, param, "%s: image data is empty", where);
    if (len > p->limits->max_image_bytes)
        return srv_fail(p->err, 400, param, "%s: image is %zu bytes, at most %zu", where, len,
                        p->limits->max_image_bytes);
    uint8_t *bytes = malloc(len);
    if (!bytes) return out_of_memory(p->err);
    uint32_t acc = 0;
    size_t k = 0;
    for (size_t i = 0; i < data; i++) {
        acc = acc << 6 | (uint32_t)base64_value((unsigned char)s[i]);
        if (i % 4 == 3) {
            bytes[k++] = (uint8_t)(acc >> 16);
            bytes[k++] = (uint8_t)(acc >> 8);
            bytes[k++] = (uint8_t)acc;
            acc = 0;
        }
    }
    if (data % 4 == 2) {
        bytes[k++] = (uint8_t)(acc >> 4);
    } else if (data % 4 == 3) {
        bytes[k++] = (uint8_t)(acc >> 10);
        bytes[k++] = (uint8_t)(acc >> 2);
    }
    *out = bytes;
    *out_len = k;
    return 0;
}

static int load_data_url(parser *p, const char *url, const char *where, const char *param,
                         uint8_t **out, size_t *out_len)
{
    const char *meta = url + strlen("data:");
    const char *comma = strchr(meta, ',');
    size_t mime_len = strcspn(meta, ";,");
    char shown[CLIP];
    if (mime_len <= strlen("image/") || !has_prefix(meta, "image/"))
        return srv_fail(p->err, 400, param, "%s: the data: URL is not an image (data:%s)", where,
                        clip(shown, sizeof shown, meta, mime_len));
    /* RFC 2397: ";base64" is the last parameter, right before the comma. */
    size_t meta_len = comma ? (size_t)(comma - meta) : 0;
    if (!comma || meta_len < 7 || strncasecmp(comma - 7, ";base64", 7) != 0)
        return srv_fail(p->err, 400, param,
                        "%s: the data: URL must be base64 (data:<image type>;base64,<data>)",
                        where);
    return decode_base64(p, comma + 1, where, param, out, out_len);
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The path of file://[localhost]/path, percent-decoded; owned. Query and fragment are dropped
 * as URL syntax says (a '?' or '#' in a file name must be written %3F, %23). */
static int file_url_path(parser *p, const char *url, const char *where, const char *param,
                         char **out)
{
    const char *rest = url + strlen("file://");
    size_t host = strcspn(rest, "/");
    char shown[CLIP];
    if (host && !(host == 9 && strncasecmp(rest, "localhost", 9) == 0))
        return srv_fail(p->err, 400, param,
                        "%s: file:// URL names the host \"%s\"; only local files (file:///path) "
                        "are read",
                        where, clip(shown, sizeof shown, rest, host));
    const char *path = rest + host;
    size_t n = strcspn(path, "?#");
    if (n == 0) return srv_fail(p->err, 400, param, "%s: file:// URL has no path", where);
    char *decoded = malloc(n + 1);
    if (!decoded) return out_of_memory(p->err);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (path[i] != '%') {
            decoded[k++] = path[i];
            continue;
        }
        int hi = i + 2 < n ? hex_value(path[i + 1]) : -1;
        int lo = hi >= 0 ? hex_value(path[i + 2]) : -1;
        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
            free(decoded);
            return srv_fail(p->err, 400, param,
                            "%s: file:// URL has a bad percent escape at offset %zu of the path",
                            where, i);
        }
        decoded[k++] = (char)(hi << 4 | lo);
        i += 2;
    }
    decoded[k] = '\0';
    *out = decoded;
    return 0;
}

/* Reads a file:// image only when its real path (symlinks resolved) lies strictly under the
 * real media root. A missing file and one outside the root get the same answer, so the server
 * is no oracle for what exists elsewhere on the machine. */
static int load_file_url(parser *p, const char *url, const char *where, const char *param,
                         uint8_t **out, size_t *out_len)
{
    if (!p->limits->media_root)
        return srv_fail(p->err, 400, param,
                        "%s: file:// image URLs are refused: this server has no media root; send "
                        "the image as a data: URL",
                        where);
    char *path = NULL;
    if (file_url_path(p, url, where, param, &path)) return -1;
    char *root = realpath(p->limits->media_root, NULL);
    if (!root) {
        free(path);
        return srv_fail(p->err, 500, "", "the media root cannot be resolved: %s", strerror(errno));
    }
    char *real = realpath(path, NULL);
    free(path);
    size_t root_len = strcmp(root, "/") == 0 ? 0 : strlen(root);
    bool inside = real && strncmp(real, root, root_len) == 0 && real[root_len] == '/' &&
                  real[root_len + 1] != '\0';
    free(root);
    char shown[CLIP];
    clip(shown, sizeof shown, url, strlen(url));
    if (!inside) {
        free(real);
        return srv_fail(p->err, 400, param, "%s: %s is not a file under the media root", where,
                        shown);
    }
    /* O_NOFOLLOW: the checked path must be the file opened, not a link swapped in since. */
    int fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    free(real);
    if (fd < 0)
        return srv_fail(p->err, 400, param, "%s: cannot open %s: %s", where, shown,
                        strerror(errno));
    struct stat st;
    int rc = 0;
    uint8_t *bytes = NULL;
    if (fstat(fd, &st) != 0) {
        rc = srv_fail(p->err, 400, param, "%s: cannot stat %s: %s", where, shown, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        rc = srv_fail(p->err, 400, param, "%s: %s is not a regular file", where, shown);
    } else if (st.st_size == 0) {
        rc = srv_fail(p->err, 400, param, "%s: image file %s is empty", where, shown);
    } else if ((uintmax_t)st.st_size > p->limits->max_image_bytes) {
        rc = srv_fail(p->err, 400, param, "%s: image file %s is %lld bytes, at most %zu", where,
                      shown, (long long)st.st_size, p->limits->max_image_bytes);
    } else if (!(bytes = malloc((size_t)st.st_size))) {
        rc = out_of_memory(p->err);
    } else {
        size_t got = 0, want = (size_t)st.st_size;
        while (got < want) {
            ssize_t r = read(fd, bytes + got, want - got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            got += (size_t)r;
        }
        if (got < want) {
            rc = srv_fail(p->err, 400, param, "%s: could not read all of %s", where, shown);
        } else {
            *out = bytes;
            *out_len = want;
            bytes = NULL;
        }
    }
    free(bytes);
    close(fd);
    return rc;
}

static int load_image(parser *p, const char *url, int i, int j, const char *param)
{
    srv_image_source *img = &p->req->images[p->req->n_images];
    char where[64];
    snprintf(where, sizeof where, "messages[%d].content[%d]", i, j);
    uint8_t *bytes = NULL;
    size_t len = 0;
    int rc;
    if (has_prefix(url, "data:")) {
        rc = load_data_url(p, url, where, param, &bytes, &len);
    } else if (has_prefix(url, "file://")) {
        rc = load_file_url(p, url, where, param, &bytes, &len);
    } else if (has_prefix(url, "http://") || has_prefix(url, "https://")) {
        rc = srv_fail(p->err, 400, param,
                      "%s: remote image URLs are not fetched by this server; send the image as a "
                      "data: URL",
                      where);
    } else {
        size_t scheme = strcspn(url, ":/?#");
        char shown[CLIP];
        if (url[scheme] == ':' && scheme > 0)
            rc = srv_fail(p->err, 400, param,
                          "%s: image URL scheme \"%s\" is not supported; send the image as a "
                          "data: URL",
                          where, clip(shown, sizeof shown, url, scheme));
        else
            rc = srv_fail(p->err, 400, param,
                          "%s: the image URL is not a data: URL (nor file://); send the image as "
                          "a data: URL",
                          where);
    }
    if (rc) return -1;
    img->bytes = bytes;
    img->len = len;
    memcpy(img->where, where, sizeof where);
    p->req->n_images++;
    return 0;
}

/* ---------------------------------------------------------------- chat */

/* Counted before anything loads, so "12 images, at most 4" costs no decoding. */
static int count_images(const cJSON *messages)
{
    int n = 0;
    const cJSON *m, *part;
    cJSON_ArrayForEach(m, messages)
    {
        const cJSON *content = field(m, "content");
        if (!cJSON_IsArray(content)) continue;
        cJSON_ArrayForEach(part, content)
        {
            const cJSON *type = field(part, "type");
            if (cJSON_IsString(type) && strcmp(type->valuestring, "image_url") == 0) n++;
        }
    }
    return n;
}

static int parse_part(parser *p, const cJSON *part, int i, int j, const char *role, cJSON *parts)
{
    char where[64], param[64];
    snprintf(where, sizeof where, "messages[%d].content[%d]", i, j);
    if (!cJSON_IsObject(part)) return type_error(p->err, where, "an object (a content part)");
    snprintf(param, sizeof param, "messages[%d].content[%d].type", i, j);
    const cJSON *type = field(part, "type");
    if (!type) return required(p->err, param);
    if (!cJSON_IsString(type)) return type_error(p->err, param, "a string");
    cJSON *out = cJSON_CreateObject();
    if (!out || !cJSON_AddItemToArray(parts, out)) {
        cJSON_Delete(out);
        return out_of_memory(p->err);
    }
    if (strcmp(type->valuestring, "text") == 0) {
        snprintf(param, sizeof param, "messages[%d].content[%d].text", i, j);
        const cJSON *text = field(part, "text");
        if (!text) return required(p->err, param);
        if (!cJSON_IsString(text)) return type_error(p->err, param, "a string");
        if (!cJSON_AddStringToObject(out, "type", "text") ||
            !cJSON_AddStringToObject(out, "text", text->valuestring))
            return out_of_memory(p->err);
        return 0;
    }
    if (strcmp(type->valuestring, "image_url") == 0) {
        if (strcmp(role, "user") != 0)
            return srv_fail(p->err, 400, where,
                            "%s: images are only allowed in user messages, not %s messages", where,
                            role);
        snprintf(param, sizeof param, "messages[%d].content[%d].image_url", i, j);
        const cJSON *image = field(part, "image_url");
        const char *url;
        if (!image) return required(p->err, param);
        if (cJSON_IsString(image)) {
            url = image->valuestring;
        } else if (cJSON_IsObject(image)) {
            snprintf(param, sizeof param, "messages[%d].content[%d].image_url.url", i, j);
            const cJSON *u = field(image, "url");
            if (!u) return required(p->err, param);
            if (!cJSON_IsString(u)) return type_error(p->err, param, "a string");
            url = u->valuestring;
        } else {
            return type_error(p->err, param, "an object with a \"url\" (or the URL string)");
        }
        if (load_image(p, url, i, j, param)) return -1;
        if (!cJSON_AddStringToObject(out, "type", "image")) return out_of_memory(p->err);
        return 0;
    }
    char shown[CLIP];
    return srv_fail(p->err, 400, param,
                    "%s: content part type \"%s\" is not supported by this server", where,
                    clip(shown, sizeof shown, type->valuestring, strlen(type->valuestring)));
}

static int parse_role(parser *p, const cJSON *msg, int i, const char **role)
{
    char param[64];
    snprintf(param, sizeof param, "messages[%d].role", i);
    const cJSON *v = field(msg, "role");
    if (!v) return required(p->err, param);
    if (!cJSON_IsString(v)) return type_error(p->err, param, "a string");
    const char *s = v->valuestring;
    if (strcmp(s, "system") == 0 || strcmp(s, "developer") == 0) {
        *role = "system"; /* OpenAI's newer name for the same turn; templates know "system" */
    } else if (strcmp(s, "user") == 0 || strcmp(s, "assistant") == 0) {
        *role = s;
    } else if (strcmp(s, "tool") == 0 || strcmp(s, "function") == 0) {
        return srv_fail(p->err, 400, param,
                        "%s: \"%s\" messages are not supported by this server (no tool calling)",
                        param, s);
    } else {
        char shown[CLIP];
        return srv_fail(p->err, 400, param, "%s: unknown role \"%s\"", param,
                        clip(shown, sizeof shown, s, strlen(s)));
    }
    return 0;
}

/* A list field that asks for tool calling: refused when it holds anything, since answering
 * without the tools would be a different request. */
static int refuse_tools(parser *p, const cJSON *obj, const char *name, const char *param)
{
    const cJSON *v = field(obj, name);
    if (!v || (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 0)) return 0;
    return srv_fail(p->err, 400, param, "%s: tool calling is not supported by this server", param);
}

static int parse_message(parser *p, const cJSON *msg, int i, cJSON *messages)
{
    char param[64];
    snprintf(param, sizeof param, "messages[%d]", i);
    if (!cJSON_IsObject(msg)) return type_error(p->err, param, "an object");
    const char *role = NULL;
    if (parse_role(p, msg, i, &role)) return -1;
    snprintf(param, sizeof param, "messages[%d].tool_calls", i);
    if (refuse_tools(p, msg, "tool_calls", param)) return -1;

    cJSON *out = cJSON_CreateObject();
    if (!out || !cJSON_AddItemToArray(messages, out)) {
        cJSON_Delete(out);
        return out_of_memory(p->err);
    }
    if (!cJSON_AddStringToObject(out, "role", role)) return out_of_memory(p->err);

    snprintf(param, sizeof param, "messages[%d].content", i);
    const cJSON *content = field(msg, "content");
    if (!content) {
        if (strcmp(role, "assistant") != 0) return required(p->err, param);
        if (!cJSON_AddNullToObject(out, "content")) return out_of_memory(p->err);
    } else if (cJSON_IsString(content)) {
        if (!cJSON_AddStringToObject(out, "content", content->valuestring))
            return out_of_memory(p->err);
    } else if (cJSON_IsArray(content)) {
        cJSON *parts = cJSON_AddArrayToObject(out, "content");
        if (!parts) return out_of_memory(p->err);
        int j = 0;
        const cJSON *part;
        cJSON_ArrayForEach(part, content)
        {
            if (parse_part(p, part, i, j++, role, parts)) return -1;
        }
    } else {
        return type_error(p->err, param, "a string or an array of content parts");
    }

    snprintf(param, sizeof param, "messages[%d].name", i);
    const cJSON *name = field(msg, "name");
    if (name) {
        if (!cJSON_IsString(name)) return type_error(p->err, param, "a string");
        if (!cJSON_AddStringToObject(out, "name", name->valuestring)) return out_of_memory(p->err);
    }
    return 0;
}

static int parse_chat(parser *p, const cJSON *root)
{
    srv_request *r = p->req;
    if (get_bool(p, root, "logprobs", "logprobs", &r->logprobs) < 0) return -1;
    int64_t top = 0;
    int given = get_int_in(p, root, "top_logprobs", 0, MAX_TOP_LOGPROBS, &top);
    if (given < 0) return -1;
    if (given && !r->logprobs)
        return srv_fail(p->err, 400, "top_logprobs",
                        "\"top_logprobs\" requires \"logprobs\": true");
    r->top_logprobs = (int)top;
    if (refuse_tools(p, root, "tools", "tools") || refuse_tools(p, root, "functions", "functions"))
        return -1;
    const cJSON *format = field(root, "response_format");
    if (format) {
        const cJSON *type = field(format, "type");
        if (!cJSON_IsObject(format) || !cJSON_IsString(type))
            return type_error(p->err, "response_format", "an object with a string \"type\"");
        if (strcmp(type->valuestring, "text") != 0) {
            char shown[CLIP];
            return srv_fail(
                p->err, 400, "response_format",
                "response_format: type \"%s\" is not supported by this server",
                clip(shown, sizeof shown, type->valuestring, strlen(type->valuestring)));
        }
    }

    const cJSON *messages = field(root, "messages");
    if (!messages) return required(p->err, "messages");
    if (!cJSON_IsArray(messages)) return type_error(p->err, "messages", "an array");
    if (cJSON_GetArraySize(messages) == 0)
        return srv_fail(p->err, 400, "messages", "\"messages\" must not be empty");
    int n_images = count_images(messages);
    if (n_images > p->limits->max_images)
        return srv_fail(p->err, 400, "messages", "%d image%s, at most %d per request", n_images,
                        n_images == 1 ? "" : "s", p->limits->max_images);
    if (n_images > 0 && !(r->images = calloc((size_t)n_images, sizeof *r->images)))
        return out_of_memory(p->err);

    cJSON *out = cJSON_CreateArray();
    if (!out) return out_of_memory(p->err);
    int i = 0;
    const cJSON *msg;
    cJSON_ArrayForEach(msg, messages)
    {
        if (parse_message(p, msg, i++, out)) {
            cJSON_Delete(out);
            return -1;
        }
    }
    char *printed = cJSON_PrintUnformatted(out);
    cJSON_Delete(out);
    if (!printed) return out_of_memory(p->err);
    r->messages_json = strdup(printed); /* owned under free(), like every other string here */
    cJSON_free(printed);
    return r->messages_json ? 0 : out_of_memory(p->err);
}

/* ---------------------------------------------------------------- completions */

static int parse_completions(parser *p, const cJSON *root)
{
    srv_request *r = p->req;
    const cJSON *v = field(root, "prompt");
    if (!v) return required(p->err, "prompt");
    if (cJSON_IsArray(v)) {
        int n = cJSON_GetArraySize(v);
        if (n != 1)
            return srv_fail(p->err, 400, "prompt",
                            "prompt: an array of %d prompts; this server takes exactly one", n);
        v = cJSON_GetArrayItem(v, 0);
        if (cJSON_IsNumber(v) || cJSON_IsArray(v))
            return srv_fail(p->err, 400, "prompt",
                            "prompt: token-id prompts are not supported; send the text");
        if (!cJSON_IsString(v)) return type_error(p->err, "prompt[0]", "a string");
    } else if (!cJSON_IsString(v)) {
        return type_error(p->err, "prompt", "a string or an array holding one string");
    }
    if (!v->valuestring[0]) return srv_fail(p->err, 400, "prompt", "\"prompt\" must not be empty");
    if (dup_string(p, v->valuestring, &r->prompt)) return -1;

    bool echo = false;
    if (get_bool(p, root, "echo", "echo", &echo) < 0) return -1;
    if (echo)
        return srv_fail(p->err, 400, "echo",
                        "echo: echoing the prompt is not supported by this server");
    if (field(root, "suffix"))
        return srv_fail(p->err, 400, "suffix", "suffix: insertion is not supported by this server");
    int64_t best_of;
    int given = get_integer(p, root, "best_of", "best_of", &best_of);
    if (given < 0) return -1;
    if (given && best_of != 1)
        return srv_fail(p->err, 400, "best_of", "best_of: only best_of = 1 is supported");
    int64_t logprobs;
    given = get_int_in(p, root, "logprobs", 0, MAX_TOP_LOGPROBS, &logprobs);
    if (given < 0) return -1;
    if (given) {
        r->logprobs = true;
        r->top_logprobs = (int)logprobs;
    }
    return 0;
}

/* ---------------------------------------------------------------- entry points */

static size_t skip_space(const char *s, size_t i, size_t len)
{
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

int srv_request_parse(srv_endpoint endpoint, const char *body, size_t len, const srv_limits *limits,
                      srv_request *out, srv_error *err)
{
    srv_error scratch;
    if (!err) err = &scratch;
    memset(err, 0, sizeof *err);
    if (!out) return srv_fail(err, 500, "", "srv_request_parse: no request to fill");
    memset(out, 0, sizeof *out);
    if (!limits || (endpoint != SRV_CHAT && endpoint != SRV_COMPLETIONS))
        return srv_fail(err, 500, "", "srv_request_parse: no limits or an unknown endpoint");
    if (!body || skip_space(body, 0, len) == len)
        return srv_fail(err, 400, "", "the request body is empty; expected a JSON object");

    if (srv_json_check_strings(body, len, err)) return -1;
    /* return_parse_end, not cJSON_GetErrorPtr: the latter is a global shared by threads. */
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(body, len, &end, false);
    size_t at = end && end >= body && end <= body + len ? (size_t)(end - body) : 0;
    if (!root)
        return srv_fail(err, 400, "", "the request body is not valid JSON (near byte %zu)", at);
    at = skip_space(body, at, len);
    int rc;
    if (at != len) {
        rc = srv_fail(err, 400, "", "the request body has more after the JSON value (at byte %zu)",
                      at);
    } else if (!cJSON_IsObject(root)) {
        rc = srv_fail(err, 400, "", "the request body must be a JSON object, not %s",
                      json_kind(root));
    } else {
        parser p = {.limits = limits, .req = out, .err = err};
        out->endpoint = endpoint;
        out->sampling = limits->defaults;
        out->sampling.logit_bias = NULL; /* parse_logit_bias makes the request's own copy */
        out->sampling.n_logit_bias = 0;
        rc = parse_common(&p, root);
        if (!rc) rc = endpoint == SRV_CHAT ? parse_chat(&p, root) : parse_completions(&p, root);
    }
    cJSON_Delete(root);
    if (rc) srv_request_free(out);
    return rc;
}

void srv_request_free(srv_request *req)
{
    if (!req) return;
    free(req->model);
    free(req->messages_json);
    free(req->prompt);
    for (int i = 0; i < req->n_images; i++)
        free(req->images[i].bytes);
    free(req->images);
    for (int i = 0; i < req->n_stop; i++)
        free(req->stop[i]);
    free(req->stop);
    free((void *)req->sampling.logit_bias);
    memset(req, 0, sizeof *req);
}
