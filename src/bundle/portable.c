/* portable.c — portable artifacts written by the official StableHLO bindings (see portable.h). */
#include "bundle/portable.h"

#include "base/error.h"
#include "base/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run as `python -c SERIALIZE TARGET IN OUT [IN OUT …]`; prints the serializer's version last. */
static const char SERIALIZE[] =
    "import sys\n"
    "try:\n"
    "    from jax._src.interpreters.mlir import make_ir_context\n"
    "    from jaxlib.mlir import ir\n"
    "    from jaxlib.mlir.dialects import stablehlo\n"
    "    import jaxlib\n"
    "except ImportError as e:\n"
    "    sys.exit('the official StableHLO bindings (jaxlib) are not importable: %s' % e)\n"
    "target = sys.argv[1]\n"
    "with make_ir_context():\n"
    "    for src, dst in zip(sys.argv[2::2], sys.argv[3::2]):\n"
    "        with open(src) as f:\n"
    "            m = ir.Module.parse(f.read())\n"
    "        if not m.operation.verify():\n"
    "            sys.exit(src + ': the module does not verify')\n"
    "        with open(dst, 'wb') as f:\n"
    "            f.write(stablehlo.serialize_portable_artifact(m, target))\n"
    "print('StableHLO %s (jaxlib %s)' % (stablehlo.get_current_version(), jaxlib.__version__))\n";

void ts_portable_file(const char *module_file, char *out, size_t cap)
{
    size_t n = strlen(module_file);
    if (n > 5 && strcmp(module_file + n - 5, ".mlir") == 0) snprintf(out, cap, "%.*s.mlirbc", (int)(n - 5), module_file);
    else snprintf(out, cap, "%s.mlirbc", module_file);
}

/* The last non-empty line of `text`, trimmed, into out. */
static void last_line(char *text, char *out, size_t cap)
{
    size_t n = strlen(text);
    while (n && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' ')) text[--n] = 0;
    char *nl = strrchr(text, '\n');
    snprintf(out, cap, "%s", nl ? nl + 1 : text);
}

/* Runs argv with stdout and stderr into one buffer (at most 64 KB kept); returns the exit status
 * or -1 when it could not be started. */
static int run_capture(char *const *argv, char *out, size_t cap)
{
    int fds[2];
    out[0] = 0;
    if (pipe(fds) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    size_t used = 0;
    char chunk[4096];
    ssize_t got;
    while ((got = read(fds[0], chunk, sizeof(chunk))) != 0) {
        if (got < 0) {
            if (errno == EINTR) continue;
            break;
        }
        /* Keep the tail: the error or the version line comes last. */
        if ((size_t)got >= cap - 1) used = 0;
        else if (used + (size_t)got >= cap) {
            size_t drop = used + (size_t)got - (cap - 1);
            memmove(out, out + drop, used - drop);
            used -= drop;
        }
        size_t take = (size_t)got < cap - 1 ? (size_t)got : cap - 1;
        memcpy(out + used, chunk + (size_t)got - take, take);
        used += take;
        out[used] = 0;
    }
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

ts_status ts_portable_write(const char *bundle_dir, const char *python, ts_manifest *m, ts_error *err)
{
    int n = ts_manifest_module_count(m);
    char **argv = calloc((size_t)(4 + 2 * n + 1), sizeof(char *));
    char (*paths)[1200] = calloc((size_t)(2 * n + 1), sizeof(*paths));
    char *output = malloc(65536);
    ts_status st = TS_OK;
    if (!argv || !paths || !output) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "portable: out of memory");
    if (st == TS_OK) {
        int a = 0;
        argv[a++] = (char *)python;
        argv[a++] = "-c";
        argv[a++] = (char *)SERIALIZE;
        argv[a++] = TS_PORTABLE_TARGET;
        for (int i = 0; i < n; i++) {
            char artifact[256];
            ts_portable_file(ts_manifest_module_file(m, i), artifact, sizeof(artifact));
            snprintf(paths[2 * i], sizeof(paths[0]), "%s/%s", bundle_dir, ts_manifest_module_file(m, i));
            snprintf(paths[2 * i + 1], sizeof(paths[0]), "%s/%s", bundle_dir, artifact);
            argv[a++] = paths[2 * i];
            argv[a++] = paths[2 * i + 1];
        }
        int rc = run_capture(argv, output, 65536);
        char line[512];
        last_line(output, line, sizeof(line));
        if (rc != 0)
            st = ts_error_set(err, TS_ERR_UNSUPPORTED,
                              "--portable: %s could not write the portable artifacts: %s (pass --python or set TESSERA_PYTHON "
                              "to a Python with jaxlib; scripts/install-deps makes .venv/bin/python)",
                              python, rc < 0 ? "it could not be started" : line[0] ? line : "no output");
        else if (strncmp(line, "StableHLO ", 10) != 0)
            st = ts_error_set(err, TS_ERR_FORMAT, "--portable: %s did not report the serializer's version", python);
        else snprintf(m->portable.producer, sizeof(m->portable.producer), "%.63s", line);
    }
    for (int i = 0; i < n && st == TS_OK; i++) st = ts_file_sha256(paths[2 * i + 1], m->portable.sha256[i], err);
    if (st == TS_OK) snprintf(m->portable.target, sizeof(m->portable.target), "%s", TS_PORTABLE_TARGET);
    free(argv);
    free(paths);
    free(output);
    return st;
}

ts_status ts_portable_check(const char *bundle_dir, const ts_manifest *m, ts_error *err)
{
    if (!m->portable.target[0]) return TS_OK;
    for (int i = 0; i < ts_manifest_module_count(m); i++) {
        char artifact[256], path[1200], digest[65];
        ts_portable_file(ts_manifest_module_file(m, i), artifact, sizeof(artifact));
        snprintf(path, sizeof(path), "%s/%s", bundle_dir, artifact);
        ts_status st = ts_file_sha256(path, digest, err);
        if (st != TS_OK) return ts_error_set(err, st, "portable artifact %s: missing or unreadable", artifact);
        if (strcmp(digest, m->portable.sha256[i]) != 0)
            return ts_error_set(err, TS_ERR_FORMAT, "portable artifact %s: its SHA-256 %.16s… is not the manifest's %.16s…", artifact,
                                digest, m->portable.sha256[i]);
    }
    return TS_OK;
}
