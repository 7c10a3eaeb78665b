/* hf_cache.c — model ids resolved in the local Hugging Face cache (see hf_cache.h). */
#include "loader/hf_cache.h"

#include "base/error.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static const char *nonempty_env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

ts_status ts_hf_hub_dir(char *out, size_t cap, ts_error *err)
{
    const char *v;
    int n;
    if ((v = nonempty_env("HF_HUB_CACHE"))) n = snprintf(out, cap, "%s", v);
    else if ((v = nonempty_env("HF_HOME"))) n = snprintf(out, cap, "%s/hub", v);
    else if ((v = nonempty_env("XDG_CACHE_HOME"))) n = snprintf(out, cap, "%s/huggingface/hub", v);
    else if ((v = nonempty_env("HOME"))) n = snprintf(out, cap, "%s/.cache/huggingface/hub", v);
    else return ts_error_set(err, TS_ERR_NOT_FOUND, "no Hugging Face cache: none of HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME, HOME is set");
    if (n < 0 || (size_t)n >= cap) return ts_error_set(err, TS_ERR_RANGE, "the Hugging Face cache path is too long");
    return TS_OK;
}

/* ORG/NAME: two non-empty parts of [A-Za-z0-9._-], neither "." nor "..". */
static bool is_model_id(const char *id, size_t *slash)
{
    const char *s = strchr(id, '/');
    if (!s || s == id || !s[1] || strchr(s + 1, '/')) return false;
    for (const char *c = id; *c; c++)
        if (c != s && !((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-'))
            return false;
    if (id[0] == '.' || s[1] == '.') return false;
    *slash = (size_t)(s - id);
    return true;
}

/* The commit refs/main names, trimmed; false when there is no such file. */
static bool read_ref(const char *repo, char *commit, size_t cap)
{
    char path[4096];
    if (snprintf(path, sizeof(path), "%s/refs/main", repo) >= (int)sizeof(path)) return false;
    FILE *f = fopen(path, "r");
    if (!f) return false;
    size_t n = fread(commit, 1, cap - 1, f);
    fclose(f);
    commit[n] = 0;
    while (n && (commit[n - 1] == '\n' || commit[n - 1] == '\r' || commit[n - 1] == ' ')) commit[--n] = 0;
    return n > 0;
}

/* The snapshot modified last (names compared when the times tie, so the choice is stable). */
static bool newest_snapshot(const char *snapshots, char *name, size_t cap)
{
    DIR *d = opendir(snapshots);
    if (!d) return false;
    struct dirent *e;
    struct timespec best = {0, 0};
    bool found = false;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        struct stat st;
        if (snprintf(path, sizeof(path), "%s/%s", snapshots, e->d_name) >= (int)sizeof(path)) continue;
        if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        bool newer = !found || st.st_mtim.tv_sec > best.tv_sec ||
                     (st.st_mtim.tv_sec == best.tv_sec && (st.st_mtim.tv_nsec > best.tv_nsec ||
                                                           (st.st_mtim.tv_nsec == best.tv_nsec && strcmp(e->d_name, name) > 0)));
        if (newer && strlen(e->d_name) < cap) {
            snprintf(name, cap, "%s", e->d_name);
            best = st.st_mtim;
            found = true;
        }
    }
    closedir(d);
    return found;
}

ts_status ts_model_path_resolve(const char *model, char *out, size_t cap, ts_error *err)
{
    if (!model || !*model) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "no model given");
    if (is_dir(model)) {
        if (snprintf(out, cap, "%s", model) >= (int)cap) return ts_error_set(err, TS_ERR_RANGE, "model path too long");
        return TS_OK;
    }
    size_t slash;
    if (!is_model_id(model, &slash))
        return ts_error_set(err, TS_ERR_NOT_FOUND, "model '%s': no such folder (a Hugging Face id is written ORG/NAME)", model);
    char hub[4096], repo[4096 + 256], snap[4096 + 512], commit[256];
    ts_status st = ts_hf_hub_dir(hub, sizeof(hub), err);
    if (st != TS_OK) {
        ts_error_prefix(err, "model '%s': no such folder, and ", model);
        return st;
    }
    if (snprintf(repo, sizeof(repo), "%s/models--%.*s--%s", hub, (int)slash, model, model + slash + 1) >= (int)sizeof(repo))
        return ts_error_set(err, TS_ERR_RANGE, "model '%s': cache path too long", model);
    if (!is_dir(repo))
        return ts_error_set(err, TS_ERR_NOT_FOUND,
                            "model '%s': no such folder, and not in the Hugging Face cache (looked for %s); tessera downloads "
                            "nothing: fetch it first, e.g. huggingface-cli download %s",
                            model, repo, model);
    bool by_ref = read_ref(repo, commit, sizeof(commit));
    if (by_ref) {
        if (strchr(commit, '/') || commit[0] == '.')
            return ts_error_set(err, TS_ERR_FORMAT, "model '%s': %s/refs/main does not name a commit", model, repo);
        if (snprintf(snap, sizeof(snap), "%s/snapshots/%s", repo, commit) >= (int)sizeof(snap))
            return ts_error_set(err, TS_ERR_RANGE, "model '%s': snapshot path too long", model);
        if (!is_dir(snap))
            return ts_error_set(err, TS_ERR_NOT_FOUND, "model '%s': refs/main names %s, but %s is missing (an interrupted download?)", model,
                                commit, snap);
    } else {
        char sub[4096 + 300];
        if (snprintf(sub, sizeof(sub), "%s/snapshots", repo) >= (int)sizeof(sub))
            return ts_error_set(err, TS_ERR_RANGE, "model '%s': cache path too long", model);
        if (!newest_snapshot(sub, commit, sizeof(commit)))
            return ts_error_set(err, TS_ERR_NOT_FOUND, "model '%s': %s has no snapshot (looked in %s)", model, repo, sub);
        if (snprintf(snap, sizeof(snap), "%s/%s", sub, commit) >= (int)sizeof(snap))
            return ts_error_set(err, TS_ERR_RANGE, "model '%s': snapshot path too long", model);
    }
    char config[sizeof(snap) + 16];
    if (snprintf(config, sizeof(config), "%s/config.json", snap) >= (int)sizeof(config))
        return ts_error_set(err, TS_ERR_RANGE, "model '%s': snapshot path too long", model);
    struct stat cs;
    if (stat(config, &cs) != 0) {
        struct stat ls;
        bool dangling = lstat(config, &ls) == 0 && S_ISLNK(ls.st_mode);
        return ts_error_set(err, TS_ERR_NOT_FOUND, "model '%s': %s %s", model, config,
                            dangling ? "is a broken link into the cache's blobs (an interrupted download?)" : "is missing");
    }
    if (snprintf(out, cap, "%s", snap) >= (int)cap) return ts_error_set(err, TS_ERR_RANGE, "model '%s': snapshot path too long", model);
    return TS_OK;
}
