/* postprocessor.c — post-processor → prefix/suffix ids (see postprocessor.h). */
#include "text/postprocessor.h"

#include "base/error.h"

#include <string.h>

static ts_status push(int32_t *list, size_t *n, int32_t id, ts_error *err)
{
    if (*n >= TS_TEMPLATE_MAX)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "post_processor adds more than %d tokens",
                            TS_TEMPLATE_MAX);
    list[(*n)++] = id;
    return TS_OK;
}

static ts_status parse_template(const cJSON *json, ts_template *t, ts_error *err)
{
    const cJSON *single = cJSON_GetObjectItemCaseSensitive(json, "single");
    const cJSON *specials = cJSON_GetObjectItemCaseSensitive(json, "special_tokens");
    if (!cJSON_IsArray(single))
        return ts_error_set(err, TS_ERR_FORMAT, "TemplateProcessing without a \"single\" list");
    ts_template inner = *t, outer = {0};
    bool seen_sequence = false;
    const cJSON *piece;
    cJSON_ArrayForEach(piece, single)
    {
        const cJSON *special = cJSON_GetObjectItemCaseSensitive(piece, "SpecialToken");
        if (cJSON_GetObjectItemCaseSensitive(piece, "Sequence")) {
            seen_sequence = true;
            continue;
        }
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(special, "id");
        if (!cJSON_IsString(name))
            return ts_error_set(err, TS_ERR_FORMAT, "TemplateProcessing: bad piece in \"single\"");
        const cJSON *entry = cJSON_GetObjectItemCaseSensitive(specials, name->valuestring);
        const cJSON *ids = cJSON_GetObjectItemCaseSensitive(entry, "ids");
        if (!cJSON_IsArray(ids))
            return ts_error_set(err, TS_ERR_FORMAT,
                                "TemplateProcessing: special token \"%s\" has no ids",
                                name->valuestring);
        const cJSON *id;
        cJSON_ArrayForEach(id, ids)
        {
            if (!cJSON_IsNumber(id) || id->valuedouble < 0)
                return ts_error_set(err, TS_ERR_FORMAT, "TemplateProcessing: bad id for \"%s\"",
                                    name->valuestring);
            ts_status st = seen_sequence ? push(outer.suffix, &outer.n_suffix, id->valueint, err)
                                         : push(outer.prefix, &outer.n_prefix, id->valueint, err);
            if (st) return st;
        }
    }
    /* A later processor wraps what the earlier ones produced. */
    ts_template merged = outer;
    merged.n_suffix = 0;
    ts_status st = TS_OK;
    for (size_t i = 0; i < inner.n_prefix && !st; i++)
        st = push(merged.prefix, &merged.n_prefix, inner.prefix[i], err);
    for (size_t i = 0; i < inner.n_suffix && !st; i++)
        st = push(merged.suffix, &merged.n_suffix, inner.suffix[i], err);
    for (size_t i = 0; i < outer.n_suffix && !st; i++)
        st = push(merged.suffix, &merged.n_suffix, outer.suffix[i], err);
    if (st) return st;
    *t = merged;
    return TS_OK;
}

static ts_status parse_cls_sep(const cJSON *json, ts_template *t, ts_error *err)
{
    const cJSON *cls = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "cls"), 1);
    const cJSON *sep = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "sep"), 1);
    if (!cJSON_IsNumber(cls) || !cJSON_IsNumber(sep))
        return ts_error_set(err, TS_ERR_FORMAT,
                            "post_processor: \"cls\"/\"sep\" must be [token, id]");
    ts_template wrapped = {0};
    ts_status st = push(wrapped.prefix, &wrapped.n_prefix, cls->valueint, err);
    for (size_t i = 0; i < t->n_prefix && !st; i++)
        st = push(wrapped.prefix, &wrapped.n_prefix, t->prefix[i], err);
    for (size_t i = 0; i < t->n_suffix && !st; i++)
        st = push(wrapped.suffix, &wrapped.n_suffix, t->suffix[i], err);
    if (!st) st = push(wrapped.suffix, &wrapped.n_suffix, sep->valueint, err);
    if (st) return st;
    *t = wrapped;
    return TS_OK;
}

static ts_status apply(const cJSON *json, ts_template *t, ts_error *err)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(json, "type");
    if (!cJSON_IsString(type))
        return ts_error_set(err, TS_ERR_FORMAT, "post_processor without a type");
    const char *name = type->valuestring;
    if (strcmp(name, "Sequence") == 0) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(json, "processors");
        if (!cJSON_IsArray(list))
            return ts_error_set(err, TS_ERR_FORMAT,
                                "Sequence post_processor without \"processors\"");
        const cJSON *child;
        cJSON_ArrayForEach(child, list)
        {
            ts_status st = apply(child, t, err);
            if (st) return st;
        }
        return TS_OK;
    }
    if (strcmp(name, "ByteLevel") == 0) return TS_OK;
    if (strcmp(name, "TemplateProcessing") == 0) return parse_template(json, t, err);
    if (strcmp(name, "BertProcessing") == 0 || strcmp(name, "RobertaProcessing") == 0)
        return parse_cls_sep(json, t, err);
    return ts_error_set(err, TS_ERR_UNSUPPORTED, "post_processor type \"%s\" is not supported",
                        name);
}

ts_status ts_template_parse(const cJSON *json, ts_template *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!json || cJSON_IsNull(json)) return TS_OK;
    return apply(json, out, err);
}
