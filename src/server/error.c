/* error.c — the server's OpenAI error objects: filling one, quoting user text in it, printing it
 * (see error.h). */
#include "server/error.h"
#include "base/utf8.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    char *message = ts_utf8_clean(err->message, strlen(err->message)),
         *param = ts_utf8_clean(err->param, strlen(err->param));
    cJSON *doc = cJSON_CreateObject();
    cJSON *e = cJSON_AddObjectToObject(doc, "error");
    bool ok = message && param && e && cJSON_AddStringToObject(e, "message", message) &&
              cJSON_AddStringToObject(e, "type", error_type(err->status)) &&
              (param[0] ? cJSON_AddStringToObject(e, "param", param) != NULL
                        : cJSON_AddNullToObject(e, "param") != NULL) &&
              cJSON_AddNullToObject(e, "code");
    char *printed = ok ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    free(message), free(param);
    /* The contract says free(): copy out of cJSON's allocator, which may be hooked. */
    char *out = printed ? strdup(printed) : NULL;
    cJSON_free(printed);
    return out;
}

const char *srv_clip(char *buf, size_t size, const char *s, size_t n)
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
