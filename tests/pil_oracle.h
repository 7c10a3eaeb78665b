/* pil_oracle.h — test-time access to PIL (tools/pil_oracle.py under /usr/bin/python3).
 *
 * Media tests compare against PIL run at test time, never against numbers pasted into the test.
 * oracle_open makes a private temp folder and reports whether PIL is usable; oracle_close removes
 * the folder. Decoded and resized images are malloc'd, owned by the caller (free()). When PIL is
 * missing the oracle calls fail and the test should end with exit code 77 (skip).
 */
#ifndef TS_TESTS_PIL_ORACLE_H
#define TS_TESTS_PIL_ORACLE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

typedef struct oracle {
    int available;
    char dir[64];
    char script[4096];
} oracle;

static inline int oracle_run(const char *cmd)
{
    int rc = system(cmd);
    if (rc == -1) return -1;
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static inline void oracle_open(oracle *o)
{
    memset(o, 0, sizeof(*o));
    const char *root = getenv("TS_ROOT");
    snprintf(o->script, sizeof(o->script), "%s/tools/pil_oracle.py", root ? root : ".");
    snprintf(o->dir, sizeof(o->dir), "/tmp/ts_oracle_XXXXXX");
    if (!mkdtemp(o->dir)) return;
    o->available = oracle_run("/usr/bin/python3 -c 'import PIL' 2>/dev/null") == 0;
    if (!o->available) fprintf(stderr, "PIL (/usr/bin/python3) missing: oracle tests skipped\n");
}

static inline void oracle_close(oracle *o)
{
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", o->dir);
    if (o->dir[0] && strncmp(o->dir, "/tmp/ts_oracle_", 15) == 0) (void)!system(cmd);
}

static inline uint8_t *oracle_read_file(const char *path, size_t expect)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *buf = malloc(expect ? expect : 1);
    size_t got = buf ? fread(buf, 1, expect, f) : 0;
    int extra = fgetc(f) != EOF;
    fclose(f);
    if (got != expect || extra) {
        free(buf);
        return NULL;
    }
    return buf;
}

static inline int oracle_write_file(const char *path, const uint8_t *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t put = fwrite(data, 1, n, f);
    return fclose(f) == 0 && put == n ? 0 : -1;
}

/* PNG → packed RGB8 by PIL; NULL on failure. */
static inline uint8_t *oracle_decode(const oracle *o, const char *png, int *width, int *height)
{
    if (!o->available) return NULL;
    char out[128], cmd[8192];
    snprintf(out, sizeof(out), "%s/decoded.rgb", o->dir);
    if (snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s' decode '%s' '%s'", o->script, png, out) >=
        (int)sizeof(cmd))
        return NULL;
    FILE *p = popen(cmd, "r");
    if (!p) return NULL;
    int n = fscanf(p, "%d %d", width, height);
    if (pclose(p) != 0 || n != 2) return NULL;
    return oracle_read_file(out, (size_t)*width * (size_t)*height * 3);
}

/* One resize job for oracle_resize_batch. */
typedef struct oracle_job {
    const uint8_t *src;
    int width, height, out_width, out_height, filter;
    uint8_t *result; /* set by the batch: owned, free() */
} oracle_job;

/* Runs every job in one Python process; 0 when all results came back. */
static inline int oracle_resize_batch(const oracle *o, oracle_job *jobs, int n)
{
    if (!o->available) return -1;
    char manifest[128], path[160], cmd[8192];
    snprintf(manifest, sizeof(manifest), "%s/manifest.txt", o->dir);
    FILE *m = fopen(manifest, "w");
    if (!m) return -1;
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof(path), "%s/in%d.rgb", o->dir, i);
        if (oracle_write_file(path, jobs[i].src, (size_t)jobs[i].width * jobs[i].height * 3)) {
            fclose(m);
            return -1;
        }
        fprintf(m, "%s %d %d %d %d %d %s/out%d.rgb\n", path, jobs[i].width, jobs[i].height,
                jobs[i].out_width, jobs[i].out_height, jobs[i].filter, o->dir, i);
    }
    if (fclose(m)) return -1;
    if (snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s' resize '%s'", o->script, manifest) >=
        (int)sizeof(cmd))
        return -1;
    if (oracle_run(cmd) != 0) return -1;
    int ok = 0;
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof(path), "%s/out%d.rgb", o->dir, i);
        jobs[i].result = oracle_read_file(path, (size_t)jobs[i].out_width * jobs[i].out_height * 3);
        if (!jobs[i].result) ok = -1;
    }
    return ok;
}

#endif
