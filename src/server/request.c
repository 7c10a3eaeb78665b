/* request.c — srv_request_parse: an OpenAI chat or completions body, checked field by field.
 *
 * Every field the server acts on is read here and nowhere else, so a request that parses is one
 * the engine can run as asked: a wrong type, an out-of-range value or a feature this server does
 * not implement (n > 1, echo, suffix, tools, remote images) is a 400 naming the
 * field, never a quiet default. The request is built in place in *out; any failure tears it
 * down with srv_request_free, so a caller never sees half a request.
 */
#include "server/request.h"
#include "server/image_url.h"
#include "server/input_audio.h"
#include "server/json_strings.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MAX_STOP_BYTES = 1024,
    MAX_TOP_LOGPROBS = 20,
};
/* max_tokens and the pixel budget: larger values are mistakes, and keep int arithmetic safe. */
#define MAX_COUNT 2147483648.0

static int out_of_memory(srv_error *err)
{
    return srv_fail(err, 500, "", "out of memory");
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
        char key[SRV_CLIP];
        srv_clip(key, sizeof key, item->string, strlen(item->string));
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
        s->top_k = x <= 0 ? 0 : (int32_t)x; /* -1 and 0 both mean off */
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
    bool speculative = true;
    if (get_bool(p, root, "speculative_decoding", "speculative_decoding", &speculative) < 0) return -1;
    r->no_draft = !speculative;
    return 0;
}

/* ---------------------------------------------------------------- images */

static int load_image(parser *p, const char *url, int i, int j, const char *param)
{
    srv_image_source *img = &p->req->images[p->req->n_images];
    char where[64];
    snprintf(where, sizeof where, "messages[%d].content[%d]", i, j);
    uint8_t *bytes = NULL;
    size_t len = 0;
    if (srv_image_url_load(url, where, param, p->limits, &bytes, &len, p->err)) return -1;
    img->bytes = bytes;
    img->len = len;
    memcpy(img->where, where, sizeof where);
    p->req->n_images++;
    return 0;
}

/* ---------------------------------------------------------------- chat */

/* Counted before anything loads, so "12 images, at most 4" costs no decoding. */
static int count_parts(const cJSON *messages, const char *kind)
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
            if (cJSON_IsString(type) && strcmp(type->valuestring, kind) == 0) n++;
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
    if (strcmp(type->valuestring, "input_audio") == 0) {
        if (strcmp(role, "user") != 0)
            return srv_fail(p->err, 400, where,
                            "%s: audio is only allowed in user messages, not %s messages", where,
                            role);
        srv_request *r = p->req;
        srv_audio_source *clip = &r->audio[r->n_audio];
        if (srv_input_audio_load(part, i, j, p->limits, clip, p->err)) return -1;
        r->n_audio++;
        double total = 0;
        for (int k = 0; k < r->n_audio; k++) total += r->audio[k].seconds;
        if (total > p->limits->max_request_audio_seconds) {
            char data[96];
            snprintf(data, sizeof data, "%s.input_audio.data", where);
            return srv_fail(p->err, 400, data,
                            "%s: the clips declare %.1f s of audio up to here (this one %.1f s), "
                            "over this server's %.1f s per request; nothing was decoded",
                            data, total, clip->seconds, p->limits->max_request_audio_seconds);
        }
        if (!cJSON_AddStringToObject(out, "type", "audio")) return out_of_memory(p->err);
        return 0;
    }
    char shown[SRV_CLIP];
    return srv_fail(p->err, 400, param,
                    "%s: content part type \"%s\" is not supported by this server", where,
                    srv_clip(shown, sizeof shown, type->valuestring, strlen(type->valuestring)));
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
        char shown[SRV_CLIP];
        return srv_fail(p->err, 400, param, "%s: unknown role \"%s\"", param,
                        srv_clip(shown, sizeof shown, s, strlen(s)));
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
            char shown[SRV_CLIP];
            return srv_fail(
                p->err, 400, "response_format",
                "response_format: type \"%s\" is not supported by this server",
                srv_clip(shown, sizeof shown, type->valuestring, strlen(type->valuestring)));
        }
    }

    const cJSON *messages = field(root, "messages");
    if (!messages) return required(p->err, "messages");
    if (!cJSON_IsArray(messages)) return type_error(p->err, "messages", "an array");
    if (cJSON_GetArraySize(messages) == 0)
        return srv_fail(p->err, 400, "messages", "\"messages\" must not be empty");
    int n_images = count_parts(messages, "image_url");
    if (n_images > p->limits->max_images)
        return srv_fail(p->err, 400, "messages", "%d image%s, at most %d per request", n_images,
                        n_images == 1 ? "" : "s", p->limits->max_images);
    if (n_images > 0 && !(r->images = calloc((size_t)n_images, sizeof *r->images)))
        return out_of_memory(p->err);
    int n_audio = count_parts(messages, "input_audio");
    if (n_audio > p->limits->max_audio)
        return srv_fail(p->err, 400, "messages", "%d audio clip%s, at most %d per request",
                        n_audio, n_audio == 1 ? "" : "s", p->limits->max_audio);
    if (n_audio > 0 && !(r->audio = calloc((size_t)n_audio, sizeof *r->audio)))
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
    for (int i = 0; i < req->n_audio; i++)
        free(req->audio[i].bytes);
    free(req->audio);
    for (int i = 0; i < req->n_stop; i++)
        free(req->stop[i]);
    free(req->stop);
    free((void *)req->sampling.logit_bias);
    memset(req, 0, sizeof *req);
}
