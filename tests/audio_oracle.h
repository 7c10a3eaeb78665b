/* audio_oracle.h — test-time access to the audio oracle (tests/oracle/phi4_audio_oracle.py under
 * the project's .venv: numpy, soundfile, python-soxr, pinned in tests/oracle/requirements.txt).
 *
 * Audio tests compare against the oracle run at test time, never against numbers pasted into the
 * test. audio_oracle_open makes a private temp folder and reports whether the oracle's packages
 * import; audio_oracle_close removes the folder. audio_oracle_call runs one oracle command whose
 * last argument is an output file in that folder and returns its float32 values (malloc'd, owned
 * by the caller) or NULL. Raw float32 inputs are written with audio_oracle_write. When the oracle
 * is missing the calls fail and the test should end with exit code 77 (skip).
 */
#ifndef TS_TESTS_AUDIO_ORACLE_H
#define TS_TESTS_AUDIO_ORACLE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

typedef struct audio_oracle {
    int available;
    char dir[64];
    char python[4096];
    char script[4096];
    char last_json[512]; /* the oracle's stdout line */
} audio_oracle;

static inline int audio_oracle_system(const char *cmd)
{
    int rc = system(cmd);
    if (rc == -1) return -1;
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static inline void audio_oracle_open(audio_oracle *o)
{
    memset(o, 0, sizeof(*o));
    const char *root = getenv("TS_ROOT");
    if (!root) root = ".";
    snprintf(o->python, sizeof(o->python), "%s/.venv/bin/python", root);
    snprintf(o->script, sizeof(o->script), "%s/tests/oracle/phi4_audio_oracle.py", root);
    snprintf(o->dir, sizeof(o->dir), "/tmp/ts_audio_oracle_XXXXXX");
    if (!mkdtemp(o->dir)) return;
    char cmd[8400];
    snprintf(cmd, sizeof(cmd), "'%s' -c 'import numpy, soundfile, soxr' 2>/dev/null", o->python);
    o->available = audio_oracle_system(cmd) == 0;
    if (!o->available)
        fprintf(stderr,
                "audio oracle (.venv: numpy, soundfile, soxr) missing: oracle tests skipped\n");
}

static inline void audio_oracle_close(audio_oracle *o)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", o->dir);
    if (o->dir[0]) audio_oracle_system(cmd);
}

/* o->dir/name, in a static-free caller buffer. */
static inline void audio_oracle_path(const audio_oracle *o, const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", o->dir, name);
}

static inline int audio_oracle_write(const audio_oracle *o, const char *name, const float *x,
                                     int64_t n)
{
    char path[256];
    audio_oracle_path(o, name, path, sizeof(path));
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t put = fwrite(x, sizeof(float), (size_t)n, f);
    fclose(f);
    return put == (size_t)n ? 0 : -1;
}

/* Runs `python script ARGS OUT` where OUT = dir/out_name; returns OUT's floats and their count. */
static inline float *audio_oracle_call(audio_oracle *o, const char *args, const char *out_name,
                                       int64_t *n)
{
    *n = 0;
    if (!o->available) return NULL;
    char out[256], cmd[9000], json[256];
    audio_oracle_path(o, out_name, out, sizeof(out));
    audio_oracle_path(o, "stdout.json", json, sizeof(json));
    int w = snprintf(cmd, sizeof(cmd), "'%s' '%s' %s '%s' > '%s'", o->python, o->script, args, out,
                     json);
    if (w < 0 || (size_t)w >= sizeof(cmd) || audio_oracle_system(cmd) != 0) return NULL;
    FILE *j = fopen(json, "r");
    o->last_json[0] = '\0';
    if (j) {
        if (!fgets(o->last_json, sizeof(o->last_json), j)) o->last_json[0] = '\0';
        fclose(j);
    }
    FILE *f = fopen(out, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    float *v = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (v && bytes > 0 && fread(v, 1, (size_t)bytes, f) != (size_t)bytes) {
        free(v);
        v = NULL;
    }
    fclose(f);
    *n = bytes / (long)sizeof(float);
    return v;
}

static inline double audio_max_abs_diff(const float *a, const float *b, int64_t n)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++) {
        double d = (double)a[i] - (double)b[i];
        if (d < 0) d = -d;
        if (d > m || d != d) m = d != d ? 1e30 : d;
    }
    return m;
}

#endif
