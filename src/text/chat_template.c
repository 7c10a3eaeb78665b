/* chat_template.c — the public chat template API: find a model folder's template, compile it
 * with the Jinja engine, and render it against JSON variables the way transformers'
 * apply_chat_template does (special tokens from tokenizer_config.json, then the caller's). */
#include "tessera.h"

#include "base/error.h"
#include "base/file.h"
#include "text/jinja_interp.h"
#include "text/jinja_json.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The keys transformers passes from special_tokens_map. */
static const char *const special_token_keys[] = {"bos_token", "eos_token", "unk_token", "sep_token",
                                                 "pad_token", "cls_token", "mask_token"};
#define N_SPECIAL (sizeof(special_token_keys) / sizeof(special_token_keys[0]))

struct ts_chat_template {
    ts_jinja_program *program;
    char *special[N_SPECIAL]; /* NULL when unset */
};

ts_status ts_chat_template_compile(const char *source, size_t len, const char *origin,
                                   ts_chat_template **out, ts_error *err)
{
    *out = NULL;
    if (!source) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "chat template source is NULL");
    ts_chat_template *t = calloc(1, sizeof(*t));
    if (!t) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
    ts_status st = ts_jinja_compile(source, len, origin, &t->program, err);
    if (st != TS_OK) {
        free(t);
        return st;
    }
    *out = t;
    return TS_OK;
}

void ts_chat_template_destroy(ts_chat_template *tmpl)
{
    if (!tmpl) return;
    ts_jinja_program_destroy(tmpl->program);
    for (size_t i = 0; i < N_SPECIAL; i++)
        free(tmpl->special[i]);
    free(tmpl);
}

static ts_status parse_json_file(const char *path, cJSON **out, ts_error *err)
{
    char *text;
    size_t len;
    ts_status st = ts_file_read(path, &text, &len, err);
    if (st != TS_OK) return st;
    const char *end = NULL;
    *out = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!*out) {
        size_t off = end ? (size_t)(end - text) : 0;
        free(text);
        return ts_error_set(err, TS_ERR_FORMAT, "%s: invalid JSON near byte %zu", path, off);
    }
    free(text);
    return TS_OK;
}

/* Picks the template out of a "chat_template" value: a string or [{name, template}, …]. */
static ts_status pick_template(const cJSON *value, const char *name, const char *path,
                               const char **out, ts_error *err)
{
    if (cJSON_IsString(value)) {
        if (name && strcmp(name, "default") != 0)
            return ts_error_set(err, TS_ERR_NOT_FOUND,
                                "%s: has a single chat template, no template named '%s'", path,
                                name);
        *out = value->valuestring;
        return TS_OK;
    }
    if (!cJSON_IsArray(value))
        return ts_error_set(err, TS_ERR_FORMAT,
                            "%s: chat_template must be a string or a list of {name, template}",
                            path);
    const char *want = name ? name : "default";
    char names[256] = "";
    for (const cJSON *e = value->child; e; e = e->next) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "name");
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(e, "template");
        if (!cJSON_IsString(n) || !cJSON_IsString(t))
            return ts_error_set(err, TS_ERR_FORMAT,
                                "%s: chat_template entries need string 'name' and 'template'",
                                path);
        if (strcmp(n->valuestring, want) == 0) {
            *out = t->valuestring;
            return TS_OK;
        }
        size_t used = strlen(names);
        snprintf(names + used, sizeof(names) - used, "%s'%s'", used ? ", " : "", n->valuestring);
    }
    return ts_error_set(err, TS_ERR_NOT_FOUND, "%s: no chat template named '%s' (have %s)", path,
                        want, names);
}

static ts_status capture_special_tokens(ts_chat_template *t, const cJSON *config, ts_error *err)
{
    for (size_t i = 0; i < N_SPECIAL; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(config, special_token_keys[i]);
        if (cJSON_IsObject(v)) v = cJSON_GetObjectItemCaseSensitive(v, "content");
        if (!cJSON_IsString(v)) continue;
        t->special[i] = strdup(v->valuestring);
        if (!t->special[i]) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
    }
    return TS_OK;
}

ts_status ts_chat_template_load(const char *dir, const char *name, ts_chat_template **out,
                                ts_error *err)
{
    *out = NULL;
    char path[PATH_MAX];
    cJSON *config = NULL;
    const char *source = NULL;
    char *owned = NULL;
    size_t len = 0;
    char origin[PATH_MAX + 32];
    ts_status st = ts_path_join(path, sizeof(path), dir, "tokenizer_config.json", err);
    if (st != TS_OK) return st;
    if (ts_file_exists(path)) {
        if ((st = parse_json_file(path, &config, err)) != TS_OK) return st;
        const cJSON *ct = cJSON_GetObjectItemCaseSensitive(config, "chat_template");
        if (ct && !cJSON_IsNull(ct)) {
            if ((st = pick_template(ct, name, path, &source, err)) != TS_OK) goto done;
            len = strlen(source);
            snprintf(origin, sizeof(origin), "%s#chat_template", path);
        }
    }
    if (!source) {
        if ((st = ts_path_join(path, sizeof(path), dir, "chat_template.jinja", err)) != TS_OK)
            goto done;
        if (ts_file_exists(path)) {
            if ((st = ts_file_read(path, &owned, &len, err)) != TS_OK) goto done;
            source = owned;
            snprintf(origin, sizeof(origin), "%s", path);
        }
    }
    cJSON *json_file = NULL;
    if (!source) {
        if ((st = ts_path_join(path, sizeof(path), dir, "chat_template.json", err)) != TS_OK)
            goto done;
        if (!ts_file_exists(path)) {
            st = ts_error_set(
                err, TS_ERR_NOT_FOUND,
                "%s: no chat template (tokenizer_config.json chat_template, chat_template.jinja or "
                "chat_template.json)",
                dir);
            goto done;
        }
        if ((st = parse_json_file(path, &json_file, err)) != TS_OK) goto done;
        const cJSON *ct = cJSON_GetObjectItemCaseSensitive(json_file, "chat_template");
        if (!ct) {
            st = ts_error_set(err, TS_ERR_FORMAT, "%s: no 'chat_template' key", path);
            cJSON_Delete(json_file);
            goto done;
        }
        if ((st = pick_template(ct, name, path, &source, err)) != TS_OK) {
            cJSON_Delete(json_file);
            goto done;
        }
        len = strlen(source);
        snprintf(origin, sizeof(origin), "%s#chat_template", path);
    }
    st = ts_chat_template_compile(source, len, origin, out, err);
    cJSON_Delete(json_file);
    if (st == TS_OK && config && (st = capture_special_tokens(*out, config, err)) != TS_OK) {
        ts_chat_template_destroy(*out);
        *out = NULL;
    }
done:
    free(owned);
    cJSON_Delete(config);
    return st;
}

typedef struct build_ctx {
    const ts_chat_template *tmpl;
    const char *const *layers;
    size_t n_layers;
} build_ctx;

static void build_vars(ts_jinja_rt *rt, ts_jinja_value vars, void *user)
{
    build_ctx *b = user;
    for (size_t i = 0; i < N_SPECIAL; i++)
        if (b->tmpl->special[i])
            ts_jinja_dict_set(rt, vars, ts_jinja_cstring(rt, special_token_keys[i]),
                              ts_jinja_cstring(rt, b->tmpl->special[i]));
    for (size_t l = 0; l < b->n_layers; l++) {
        char what[48];
        snprintf(what, sizeof(what), "context layer %zu", l + 1);
        rt->line = 0;
        if (!b->layers[l]) ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT, "%s is NULL", what);
        ts_jinja_value layer = ts_jinja_parse_json(rt, b->layers[l], strlen(b->layers[l]), what);
        if (layer.kind == TS_JV_LIST) {
            ts_jinja_dict_set(rt, vars, ts_jinja_cstring(rt, "messages"), layer);
        } else if (layer.kind == TS_JV_DICT) {
            for (size_t i = 0; i < layer.u.dict->n; i++)
                ts_jinja_dict_set(rt, vars, layer.u.dict->keys[i], layer.u.dict->values[i]);
        } else {
            ts_jinja_throw(rt, TS_ERR_INVALID_ARGUMENT,
                           "%s: expected a JSON object of variables or an array of messages", what);
        }
    }
}

ts_status ts_chat_template_render_layers(const ts_chat_template *tmpl, const char *const *layers,
                                         size_t n_layers, char **out, ts_error *err)
{
    *out = NULL;
    if (!tmpl) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "chat template is NULL");
    if (n_layers && !layers)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "context layers are NULL");
    build_ctx b = {tmpl, layers, n_layers};
    return ts_jinja_render(tmpl->program, build_vars, &b, out, NULL, err);
}

ts_status ts_chat_template_render(const ts_chat_template *tmpl, const char *context_json,
                                  char **out, ts_error *err)
{
    const char *layers[1] = {context_json ? context_json : "{}"};
    return ts_chat_template_render_layers(tmpl, layers, 1, out, err);
}
