/* safetensors.c — header validation for one safetensors file (format: huggingface/safetensors). */
#include "loader/safetensors.h"
#include "base/error.h"
#include "loader/dtype.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* Integers in the header arrive as JSON doubles; above 2^53 they are no longer exact, and no real
 * file needs offsets or dims that large. */
#define EXACT_INTEGER_MAX 9007199254740992.0

static const char *json_type(const cJSON *item)
{
    if (cJSON_IsObject(item)) return "an object";
    if (cJSON_IsArray(item)) return "an array";
    if (cJSON_IsString(item)) return "a string";
    if (cJSON_IsNumber(item)) return "a number";
    if (cJSON_IsBool(item)) return "a boolean";
    if (cJSON_IsNull(item)) return "null";
    return "an invalid value";
}

static bool as_count(const cJSON *item, uint64_t *out)
{
    if (!cJSON_IsNumber(item)) return false;
    double d = item->valuedouble;
    if (!(d >= 0 && d <= EXACT_INTEGER_MAX)) return false;
    uint64_t v = (uint64_t)d;
    if ((double)v != d) return false;
    *out = v;
    return true;
}

typedef struct parser {
    const char *origin;
    ts_safetensors_header *header;
    ts_error *err;
} parser;

static ts_status parse_metadata(parser *p, const cJSON *meta)
{
    if (!cJSON_IsObject(meta))
        return ts_error_set(p->err, TS_ERR_FORMAT, "%s: __metadata__: expected an object, found %s",
                            p->origin, json_type(meta));
    size_t n = (size_t)cJSON_GetArraySize(meta);
    ts_safetensors_header *h = p->header;
    h->metadata_keys = ts_arena_alloc(&h->arena, (n ? n : 1) * sizeof(char *));
    h->metadata_values = ts_arena_alloc(&h->arena, (n ? n : 1) * sizeof(char *));
    if (!h->metadata_keys || !h->metadata_values) goto oom;
    for (const cJSON *item = meta->child; item; item = item->next) {
        if (!cJSON_IsString(item))
            return ts_error_set(p->err, TS_ERR_FORMAT,
                                "%s: __metadata__.%s: expected a string, found %s", p->origin,
                                item->string, json_type(item));
        const char *key = ts_arena_strndup(&h->arena, item->string, strlen(item->string));
        const char *value = ts_arena_strndup(&h->arena, item->valuestring, strlen(item->valuestring));
        if (!key || !value) goto oom;
        h->metadata_keys[h->n_metadata] = key;
        h->metadata_values[h->n_metadata] = value;
        h->n_metadata++;
    }
    return TS_OK;
oom:
    return ts_error_set(p->err, TS_ERR_OUT_OF_MEMORY, "%s: out of memory reading __metadata__",
                        p->origin);
}

static ts_status parse_shape(parser *p, const char *name, const cJSON *shape,
                             ts_safetensors_entry *e)
{
    if (!shape)
        return ts_error_set(p->err, TS_ERR_FORMAT, "%s: tensor '%s': missing \"shape\"", p->origin,
                            name);
    if (!cJSON_IsArray(shape))
        return ts_error_set(p->err, TS_ERR_FORMAT, "%s: tensor '%s': shape: expected an array, found %s",
                            p->origin, name, json_type(shape));
    int n_dims = cJSON_GetArraySize(shape);
    if (n_dims > TS_MAX_DIMS)
        return ts_error_set(p->err, TS_ERR_UNSUPPORTED,
                            "%s: tensor '%s': shape has %d dims, more than the %d supported",
                            p->origin, name, n_dims, TS_MAX_DIMS);
    int d = 0;
    for (const cJSON *dim = shape->child; dim; dim = dim->next, d++) {
        uint64_t v;
        if (!as_count(dim, &v)) {
            if (cJSON_IsNumber(dim))
                return ts_error_set(p->err, TS_ERR_FORMAT,
                                    "%s: tensor '%s': shape[%d] is %g, expected a non-negative integer",
                                    p->origin, name, d, dim->valuedouble);
            return ts_error_set(p->err, TS_ERR_FORMAT,
                                "%s: tensor '%s': shape[%d]: expected a non-negative integer, found %s",
                                p->origin, name, d, json_type(dim));
        }
        e->shape[d] = (int64_t)v;
    }
    e->n_dims = n_dims;
    return TS_OK;
}

static ts_status parse_offsets(parser *p, const char *name, const cJSON *offsets,
                               ts_safetensors_entry *e)
{
    if (!offsets)
        return ts_error_set(p->err, TS_ERR_FORMAT, "%s: tensor '%s': missing \"data_offsets\"",
                            p->origin, name);
    uint64_t begin = 0, end = 0;
    if (!cJSON_IsArray(offsets) || cJSON_GetArraySize(offsets) != 2 ||
        !as_count(offsets->child, &begin) || !as_count(offsets->child->next, &end))
        return ts_error_set(p->err, TS_ERR_FORMAT,
                            "%s: tensor '%s': data_offsets: expected [begin, end], two non-negative "
                            "integers",
                            p->origin, name);
    if (begin > end)
        return ts_error_set(p->err, TS_ERR_FORMAT,
                            "%s: tensor '%s': data_offsets [%llu, %llu]: begin is after end",
                            p->origin, name, (unsigned long long)begin, (unsigned long long)end);
    if (end > p->header->data_size)
        return ts_error_set(p->err, TS_ERR_FORMAT,
                            "%s: tensor '%s': data_offsets end %llu is beyond the data section "
                            "(%zu bytes)",
                            p->origin, name, (unsigned long long)end, p->header->data_size);
    e->begin = begin;
    e->end = end;
    return TS_OK;
}

/* Expected bytes = product(shape) × item size, each step checked against 64-bit overflow. */
static ts_status check_byte_count(parser *p, const char *name, const ts_safetensors_entry *e)
{
    uint64_t bytes = ts_dtype_size(e->dtype);
    for (int d = 0; d < e->n_dims; d++) {
        uint64_t dim = (uint64_t)e->shape[d];
        if (dim != 0 && bytes > UINT64_MAX / dim)
            return ts_error_set(p->err, TS_ERR_RANGE,
                                "%s: tensor '%s': shape is too large (byte count overflows 64 bits)",
                                p->origin, name);
        bytes *= dim;
    }
    if (bytes != e->end - e->begin)
        return ts_error_set(p->err, TS_ERR_FORMAT,
                            "%s: tensor '%s': data_offsets span %llu bytes but a %s tensor of this "
                            "shape needs %llu",
                            p->origin, name, (unsigned long long)(e->end - e->begin),
                            ts_dtype_name(e->dtype), (unsigned long long)bytes);
    return TS_OK;
}

static ts_status parse_entry(parser *p, const cJSON *item, ts_safetensors_entry *e)
{
    const char *name = item->string;
    if (!cJSON_IsObject(item))
        return ts_error_set(p->err, TS_ERR_FORMAT, "%s: tensor '%s': expected an object, found %s",
                            p->origin, name, json_type(item));
    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(item, "dtype");
    if (!dtype)
        return ts_error_set(p->err, TS_ERR_FORMAT, "%s: tensor '%s': missing \"dtype\"", p->origin,
                            name);
    if (!cJSON_IsString(dtype))
        return ts_error_set(p->err, TS_ERR_FORMAT, "%s: tensor '%s': dtype: expected a string, found %s",
                            p->origin, name, json_type(dtype));
    if (!ts_dtype_parse(dtype->valuestring, strlen(dtype->valuestring), &e->dtype))
        return ts_error_set(p->err, TS_ERR_UNSUPPORTED,
                            "%s: tensor '%s': unsupported dtype \"%s\" (supported: F32 F16 BF16 I64 "
                            "I32 I16 I8 U8 BOOL)",
                            p->origin, name, dtype->valuestring);
    ts_status st = parse_shape(p, name, cJSON_GetObjectItemCaseSensitive(item, "shape"), e);
    if (st) return st;
    st = parse_offsets(p, name, cJSON_GetObjectItemCaseSensitive(item, "data_offsets"), e);
    if (st) return st;
    st = check_byte_count(p, name, e);
    if (st) return st;
    e->name = ts_arena_strndup(&p->header->arena, name, strlen(name));
    if (!e->name)
        return ts_error_set(p->err, TS_ERR_OUT_OF_MEMORY, "%s: out of memory reading tensor '%s'",
                            p->origin, name);
    return TS_OK;
}

static int compare_by_name(const void *a, const void *b)
{
    const ts_safetensors_entry *x = *(const ts_safetensors_entry *const *)a;
    const ts_safetensors_entry *y = *(const ts_safetensors_entry *const *)b;
    return strcmp(x->name, y->name);
}

static int compare_by_offset(const void *a, const void *b)
{
    const ts_safetensors_entry *x = *(const ts_safetensors_entry *const *)a;
    const ts_safetensors_entry *y = *(const ts_safetensors_entry *const *)b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return 0;
}

/* cJSON keeps every member of an object, so a repeated name survives parsing; sort a view and
 * compare neighbours. Then, in offset order, each non-empty tensor must start at or after the
 * furthest end seen so far (empty tensors own no bytes and may sit anywhere). */
static ts_status check_names_and_overlaps(parser *p)
{
    ts_safetensors_header *h = p->header;
    if (h->n_entries < 2) return TS_OK;
    const ts_safetensors_entry **view = malloc(h->n_entries * sizeof(*view));
    if (!view)
        return ts_error_set(p->err, TS_ERR_OUT_OF_MEMORY, "%s: out of memory checking tensor names",
                            p->origin);
    ts_status st = TS_OK;
    for (size_t i = 0; i < h->n_entries; i++) view[i] = &h->entries[i];
    qsort(view, h->n_entries, sizeof(*view), compare_by_name);
    for (size_t i = 1; i < h->n_entries; i++) {
        if (strcmp(view[i - 1]->name, view[i]->name) == 0) {
            st = ts_error_set(p->err, TS_ERR_FORMAT, "%s: tensor '%s' appears twice in the header",
                              p->origin, view[i]->name);
            goto done;
        }
    }
    qsort(view, h->n_entries, sizeof(*view), compare_by_offset);
    const ts_safetensors_entry *furthest = NULL;
    for (size_t i = 0; i < h->n_entries; i++) {
        const ts_safetensors_entry *e = view[i];
        if (e->begin == e->end) continue;
        if (furthest && e->begin < furthest->end) {
            st = ts_error_set(p->err, TS_ERR_FORMAT,
                              "%s: tensors '%s' [%llu, %llu) and '%s' [%llu, %llu) overlap",
                              p->origin, furthest->name, (unsigned long long)furthest->begin,
                              (unsigned long long)furthest->end, e->name,
                              (unsigned long long)e->begin, (unsigned long long)e->end);
            goto done;
        }
        if (!furthest || e->end > furthest->end) furthest = e;
    }
done:
    free(view);
    return st;
}

static ts_status parse_root(parser *p, const cJSON *root)
{
    ts_safetensors_header *h = p->header;
    if (!cJSON_IsObject(root))
        return ts_error_set(p->err, TS_ERR_FORMAT, "%s: header is not a JSON object (found %s)",
                            p->origin, json_type(root));
    size_t n_items = (size_t)cJSON_GetArraySize(root);
    h->entries = ts_arena_alloc(&h->arena, (n_items ? n_items : 1) * sizeof(*h->entries));
    if (!h->entries)
        return ts_error_set(p->err, TS_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu tensors",
                            p->origin, n_items);
    bool seen_metadata = false;
    for (const cJSON *item = root->child; item; item = item->next) {
        if (strcmp(item->string, "__metadata__") == 0) {
            if (seen_metadata)
                return ts_error_set(p->err, TS_ERR_FORMAT, "%s: __metadata__ appears twice",
                                    p->origin);
            seen_metadata = true;
            ts_status st = parse_metadata(p, item);
            if (st) return st;
            continue;
        }
        if (item->string[0] == '\0')
            return ts_error_set(p->err, TS_ERR_FORMAT, "%s: a tensor has an empty name", p->origin);
        ts_status st = parse_entry(p, item, &h->entries[h->n_entries]);
        if (st) return st;
        h->n_entries++;
    }
    return check_names_and_overlaps(p);
}

static bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

ts_status ts_safetensors_parse(const uint8_t *bytes, size_t size, const char *origin,
                               ts_safetensors_header *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    if (size == 0)
        return ts_error_set(err, TS_ERR_FORMAT, "%s: empty file (no safetensors header)", origin);
    if (size < 8)
        return ts_error_set(err, TS_ERR_FORMAT,
                            "%s: file is %zu bytes, shorter than the 8-byte header length", origin,
                            size);
    uint64_t header_len = 0;
    for (int i = 7; i >= 0; i--) header_len = header_len << 8 | bytes[i];
    if (header_len == 0)
        return ts_error_set(err, TS_ERR_FORMAT, "%s: header length is 0", origin);
    if (header_len > TS_SAFETENSORS_HEADER_MAX)
        return ts_error_set(err, TS_ERR_RANGE,
                            "%s: header length %llu exceeds the %u-byte limit", origin,
                            (unsigned long long)header_len, TS_SAFETENSORS_HEADER_MAX);
    if (header_len > size - 8)
        return ts_error_set(err, TS_ERR_FORMAT,
                            "%s: header length %llu is beyond the end of the file (%zu bytes after "
                            "the length)",
                            origin, (unsigned long long)header_len, size - 8);

    /* cJSON is handed a private NUL-terminated copy so no parser path can read past the header
     * into the mapping's end. */
    size_t n = (size_t)header_len;
    char *text = malloc(n + 1);
    if (!text)
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "%s: cannot allocate the %zu-byte header",
                            origin, n);
    memcpy(text, bytes + 8, n);
    text[n] = '\0';
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, n, &end, false);
    if (!root) {
        size_t at = end && end >= text && end <= text + n ? (size_t)(end - text) : n;
        free(text);
        return ts_error_set(err, TS_ERR_FORMAT,
                            "%s: header is not valid JSON: error at byte %zu of the header (%zu "
                            "bytes)",
                            origin, at, n);
    }
    for (const char *c = end; c < text + n; c++) {
        if (!is_json_space(*c)) {
            size_t at = (size_t)(c - text);
            cJSON_Delete(root);
            free(text);
            return ts_error_set(err, TS_ERR_FORMAT,
                                "%s: header has extra bytes after the JSON object at byte %zu of "
                                "the header",
                                origin, at);
        }
    }

    ts_arena_init(&out->arena, 0);
    out->data_start = 8 + n;
    out->data_size = size - out->data_start;
    parser p = {origin, out, err};
    ts_status st = parse_root(&p, root);
    cJSON_Delete(root);
    free(text);
    if (st) ts_safetensors_header_fini(out);
    return st;
}

void ts_safetensors_header_fini(ts_safetensors_header *header)
{
    ts_arena_fini(&header->arena);
    memset(header, 0, sizeof(*header));
}
