/* hf_cache_test.c — model ids resolved in a Hugging Face cache laid out as huggingface_hub does:
 * refs/main chooses the snapshot, else the newest one; a folder stays a folder; a missing model,
 * a missing snapshot and a broken link into blobs/ are errors that say where they looked. */
#include "check.h"
#include "loader/hf_cache.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char hub[512];

static void make_dirs(const char *path)
{
    char tmp[1024];
    snprintf(tmp, sizeof(tmp), "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(tmp, 0755);
            *p = '/';
        }
    mkdir(tmp, 0755);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* A snapshot whose config.json links to a blob, as the cache stores it; mtime in seconds. */
static void snapshot(const char *repo, const char *commit, const char *blob, bool blob_present, time_t mtime)
{
    char dir[1024], blobs[1024], target[1100], link[1100];
    snprintf(dir, sizeof(dir), "%s/%s/snapshots/%s", hub, repo, commit);
    snprintf(blobs, sizeof(blobs), "%s/%s/blobs", hub, repo);
    make_dirs(dir);
    make_dirs(blobs);
    snprintf(target, sizeof(target), "%s/%s", blobs, blob);
    if (blob_present) write_file(target, "{\"model_type\": \"qwen2\"}");
    snprintf(link, sizeof(link), "%s/config.json", dir);
    snprintf(target, sizeof(target), "../../blobs/%s", blob);
    CHECK_INT_EQ(symlink(target, link), 0);
    struct timespec times[2] = {{mtime, 0}, {mtime, 0}};
    CHECK_INT_EQ(utimensat(AT_FDCWD, dir, times, 0), 0);
}

static void expect_resolves(const char *id, const char *want_suffix)
{
    char out[2048];
    ts_error err = {0};
    ts_status st = ts_model_path_resolve(id, out, sizeof(out), &err);
    CHECK_INT_EQ(st, TS_OK);
    if (st != TS_OK) {
        fprintf(stderr, "%s: %s\n", id, err.message);
        return;
    }
    size_t n = strlen(out), m = strlen(want_suffix);
    CHECK(n >= m && strcmp(out + n - m, want_suffix) == 0);
    if (!(n >= m && strcmp(out + n - m, want_suffix) == 0)) fprintf(stderr, "%s → %s, wanted …%s\n", id, out, want_suffix);
}

static void expect_error(const char *id, const char *needle)
{
    char out[2048];
    ts_error err = {0};
    CHECK(ts_model_path_resolve(id, out, sizeof(out), &err) != TS_OK);
    CHECK(strstr(err.message, needle) != NULL);
    if (!strstr(err.message, needle)) fprintf(stderr, "%s: '%s' lacks '%s'\n", id, err.message, needle);
}

int main(void)
{
    char root[] = "/tmp/ts_hf_XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    snprintf(hub, sizeof(hub), "%s/home/hub", root);
    char home[600];
    snprintf(home, sizeof(home), "%s/home", root);
    unsetenv("HF_HUB_CACHE");
    unsetenv("XDG_CACHE_HOME");
    setenv("HF_HOME", home, 1);

    /* refs/main names the older snapshot: it wins over the newer one. */
    snapshot("models--Org--Pinned", "aaa111", "b1", true, 1000);
    snapshot("models--Org--Pinned", "bbb222", "b2", true, 2000);
    char ref[1024];
    snprintf(ref, sizeof(ref), "%s/models--Org--Pinned/refs", hub);
    make_dirs(ref);
    strcat(ref, "/main");
    write_file(ref, "aaa111\n");
    expect_resolves("Org/Pinned", "/models--Org--Pinned/snapshots/aaa111");

    /* No refs/main: the snapshot modified last. */
    snapshot("models--Org--Newest", "old000", "b3", true, 1000);
    snapshot("models--Org--Newest", "new999", "b4", true, 3000);
    snapshot("models--Org--Newest", "mid555", "b5", true, 2000);
    expect_resolves("Org/Newest", "/models--Org--Newest/snapshots/new999");

    /* HF_HUB_CACHE takes precedence over HF_HOME. */
    setenv("HF_HUB_CACHE", "/nonexistent/hub", 1);
    expect_error("Org/Pinned", "/nonexistent/hub/models--Org--Pinned");
    unsetenv("HF_HUB_CACHE");

    /* A folder is used as it is, even when it looks like an id. */
    char folder[700];
    snprintf(folder, sizeof(folder), "%s/local", root);
    make_dirs(folder);
    expect_resolves(folder, "/local");

    /* Missing model: the error names where it looked and that nothing is downloaded. */
    expect_error("Org/Missing", "models--Org--Missing");
    expect_error("Org/Missing", "downloads nothing");
    /* refs/main naming a snapshot that is not there. */
    snapshot("models--Org--Stale", "c0ffee", "b6", true, 1000);
    snprintf(ref, sizeof(ref), "%s/models--Org--Stale/refs", hub);
    make_dirs(ref);
    strcat(ref, "/main");
    write_file(ref, "deadbeef");
    expect_error("Org/Stale", "refs/main names deadbeef");
    /* A broken link into blobs/ (an interrupted download). */
    snapshot("models--Org--Broken", "abc", "missing-blob", false, 1000);
    expect_error("Org/Broken", "broken link");
    /* No snapshots at all. */
    snprintf(ref, sizeof(ref), "%s/models--Org--Empty/snapshots", hub);
    make_dirs(ref);
    expect_error("Org/Empty", "has no snapshot");
    /* Not an id and not a folder. */
    expect_error("no-such-folder", "no such folder");
    expect_error("a/b/c", "no such folder");
    expect_error("../tessera-hf-cache-test-absent", "no such folder"); /* a name no neighbour folder has */
    expect_error("Org/..", "no such folder");
    expect_error("", "no model");

    char cmd[700];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    CHECK_INT_EQ(system(cmd), 0);
    return check_finish();
}
