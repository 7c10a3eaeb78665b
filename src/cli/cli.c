/* cli.c — shared CLI helpers. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ts_cli_fail(const char *cmd, const ts_error *err)
{
    fprintf(stderr, "tessera %s: %s\n", cmd, err->message[0] ? err->message : ts_status_name(err->status));
    return TS_EXIT_RUNTIME;
}

const char *ts_cli_resolve_model(const char *cmd, const char *model, char *buf, size_t cap)
{
    ts_error err = {0};
    if (ts_model_path_resolve(model, buf, cap, &err) == TS_OK) return buf;
    ts_cli_fail(cmd, &err);
    return NULL;
}

int ts_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tessera %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nsee 'tessera %s --help'\n", cmd);
    return TS_EXIT_USAGE;
}

bool ts_cli_match(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0) return false;
    if (arg[n] == '=') {
        if (value) *value = arg + n + 1;
        return true;
    }
    if (arg[n] != '\0') return false;
    if (value) {
        *value = NULL;
        if (*i + 1 < argc) *value = argv[++*i];
    }
    return true;
}

bool ts_cli_is_help(const char *arg) { return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0; }

bool ts_cli_parse_int(const char *text, long long lo, long long hi, long long *out)
{
    if (!text || !*text) return false;
    errno = 0;
    char *end;
    long long v = strtoll(text, &end, 10);
    if (errno || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

