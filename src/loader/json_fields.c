/* json_fields.c — typed config-key reads that name the file and key on failure. */
#include "loader/json_fields.h"
#include "base/error.h"
#include "base/file.h"

#include <stdlib.h>
#include <string.h>

/* JSON numbers are doubles; beyond 2^53 an "integer" is no longer exact. */
#define EXACT_INTEGER_MAX 9007199254740992.0

const cJSON *ts_json_member(const cJSON *obj, const char *key)
{
    if (!cJSON_IsObject(obj)) return NULL;
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    return item && !cJSON_IsNull(item) ? item : NULL;
}

bool ts_json_absent(const cJSON *obj, const char *key) { return ts_json_member(obj, key) == NULL; }

ts_status ts_json_missing(const ts_json_reader *r, const char *key)
{
    return ts_error_set(r->err, TS_ERR_NOT_FOUND, "%s: %s%s: missing (no default for it)",
                        r->origin, r->prefix, key);
}

ts_status ts_json_wrong_type(const ts_json_reader *r, const char *key, const char *expected)
{
    return ts_error_set(r->err, TS_ERR_FORMAT, "%s: %s%s: expected %s", r->origin, r->prefix, key,
                        expected);
}

static bool as_int(const cJSON *item, int64_t *out)
{
    if (!cJSON_IsNumber(item)) return false;
    double d = item->valuedouble;
    if (!(d >= -EXACT_INTEGER_MAX && d <= EXACT_INTEGER_MAX)) return false;
    int64_t v = (int64_t)d;
    if ((double)v != d) return false;
    *out = v;
    return true;
}

ts_status ts_json_int(const ts_json_reader *r, const cJSON *obj, const char *key, int64_t def,
                      int64_t *out)
{
    const cJSON *item = ts_json_member(obj, key);
    *out = def;
    if (!item) return TS_OK;
    if (!as_int(item, out)) return ts_json_wrong_type(r, key, "an integer");
    return TS_OK;
}

ts_status ts_json_int_required(const ts_json_reader *r, const cJSON *obj, const char *key,
                               int64_t *out)
{
    if (ts_json_absent(obj, key)) return ts_json_missing(r, key);
    return ts_json_int(r, obj, key, 0, out);
}

ts_status ts_json_double(const ts_json_reader *r, const cJSON *obj, const char *key, double def,
                         double *out)
{
    const cJSON *item = ts_json_member(obj, key);
    *out = def;
    if (!item) return TS_OK;
    if (!cJSON_IsNumber(item)) return ts_json_wrong_type(r, key, "a number");
    *out = item->valuedouble;
    return TS_OK;
}

ts_status ts_json_bool(const ts_json_reader *r, const cJSON *obj, const char *key, bool def,
                       bool *out)
{
    const cJSON *item = ts_json_member(obj, key);
    *out = def;
    if (!item) return TS_OK;
    if (!cJSON_IsBool(item)) return ts_json_wrong_type(r, key, "true or false");
    *out = cJSON_IsTrue(item);
    return TS_OK;
}

ts_status ts_json_string(const ts_json_reader *r, const cJSON *obj, const char *key,
                         const char *def, char *out, size_t cap)
{
    const cJSON *item = ts_json_member(obj, key);
    const char *value = def ? def : "";
    if (item) {
        if (!cJSON_IsString(item)) return ts_json_wrong_type(r, key, "a string");
        value = item->valuestring;
    }
    size_t len = strlen(value);
    if (len >= cap)
        return ts_error_set(r->err, TS_ERR_RANGE, "%s: %s%s: \"%s\" is longer than %zu bytes",
                            r->origin, r->prefix, key, value, cap - 1);
    memcpy(out, value, len + 1);
    return TS_OK;
}

ts_status ts_json_int_list(const ts_json_reader *r, const cJSON *obj, const char *key,
                           bool scalar_ok, int64_t *out, int cap, int *n)
{
    const cJSON *item = ts_json_member(obj, key);
    *n = 0;
    if (!item) return TS_OK;
    const char *expected = scalar_ok ? "an integer or a list of integers" : "a list of integers";
    if (scalar_ok && cJSON_IsNumber(item)) {
        if (!as_int(item, &out[0])) return ts_json_wrong_type(r, key, expected);
        *n = 1;
        return TS_OK;
    }
    if (!cJSON_IsArray(item)) return ts_json_wrong_type(r, key, expected);
    int count = cJSON_GetArraySize(item);
    if (count > cap)
        return ts_error_set(r->err, TS_ERR_RANGE, "%s: %s%s: %d values, at most %d supported",
                            r->origin, r->prefix, key, count, cap);
    int i = 0;
    for (const cJSON *v = item->child; v; v = v->next, i++)
        if (!as_int(v, &out[i])) return ts_json_wrong_type(r, key, expected);
    *n = count;
    return TS_OK;
}

ts_status ts_json_double_list(const ts_json_reader *r, const cJSON *obj, const char *key,
                              double *out, int cap, int *n)
{
    const cJSON *item = ts_json_member(obj, key);
    *n = 0;
    if (!item) return TS_OK;
    if (!cJSON_IsArray(item)) return ts_json_wrong_type(r, key, "a list of numbers");
    int count = cJSON_GetArraySize(item);
    if (count > cap)
        return ts_error_set(r->err, TS_ERR_RANGE, "%s: %s%s: %d values, at most %d supported",
                            r->origin, r->prefix, key, count, cap);
    int i = 0;
    for (const cJSON *v = item->child; v; v = v->next, i++) {
        if (!cJSON_IsNumber(v)) return ts_json_wrong_type(r, key, "a list of numbers");
        out[i] = v->valuedouble;
    }
    *n = count;
    return TS_OK;
}

ts_status ts_json_parse_text(const char *text, size_t len, const char *origin, cJSON **root,
                             ts_error *err)
{
    const char *end = NULL;
    *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!*root) {
        size_t at = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
        return ts_error_set(err, TS_ERR_FORMAT, "%s: not valid JSON: error at byte %zu", origin, at);
    }
    for (const char *c = end; c && c < text + len; c++) {
        if (*c != ' ' && *c != '\t' && *c != '\n' && *c != '\r') {
            cJSON_Delete(*root);
            *root = NULL;
            return ts_error_set(err, TS_ERR_FORMAT, "%s: extra text after the JSON value at byte %zu",
                                origin, (size_t)(c - text));
        }
    }
    return TS_OK;
}

ts_status ts_json_read_file(const char *path, cJSON **root, ts_error *err)
{
    *root = NULL;
    char *text = NULL;
    size_t len = 0;
    TS_TRY(ts_file_read(path, &text, &len, err));
    ts_status st = ts_json_parse_text(text, len, path, root, err);
    free(text);
    return st;
}
