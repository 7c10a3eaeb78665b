/* cli.h — small helpers shared by the CLI commands: exit codes, error printing, flag parsing.
 *
 * Flags are parsed by hand per command: `--name value` and `--name=value`. ts_cli_flag returns
 * the value (or NULL) and advances *i past what it consumed; a flag that needs a value and has
 * none is a usage error reported by the caller.
 */
#ifndef TS_CLI_CLI_H
#define TS_CLI_CLI_H

#include "tessera.h"

#include <stdbool.h>

enum { TS_EXIT_OK = 0, TS_EXIT_RUNTIME = 1, TS_EXIT_USAGE = 2 };

/* Prints "tessera CMD: message" to stderr and returns TS_EXIT_RUNTIME. */
int ts_cli_fail(const char *cmd, const ts_error *err);
/* Prints "tessera CMD: message\n" plus "see 'tessera CMD --help'" and returns TS_EXIT_USAGE. */
int ts_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True when argv[*i] is `--name` or `--name=…`. With a value, *value points at it: the part
 * after '=' or the next argument (then *i advances). *value is NULL when none was given. */
bool ts_cli_match(int argc, char **argv, int *i, const char *name, const char **value);
bool ts_cli_is_help(const char *arg);
/* -m's value as a folder (ts_model_path_resolve: a folder, or ORG/NAME in the local Hugging Face
 * cache) written into buf; NULL after printing the error. */
const char *ts_cli_resolve_model(const char *cmd, const char *model, char *buf, size_t cap);
/* Parses a whole decimal integer in [lo, hi]. */
bool ts_cli_parse_int(const char *text, long long lo, long long hi, long long *out);

#endif
