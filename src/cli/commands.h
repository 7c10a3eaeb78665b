/* commands.h — the subcommands of the `tessera` CLI, one file each (cmd_<name>.c).
 *
 * Each takes the arguments after its name (argv[0] is the command name) and returns the process
 * exit status: 0 ok, 1 runtime error, 2 usage error. Only src/cli/main.c picks the exit code.
 * Commands include only tessera.h (and cli.h for argument helpers).
 */
#ifndef TS_CLI_COMMANDS_H
#define TS_CLI_COMMANDS_H

#include "tessera.h"

int cmd_inspect(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_tokenize(int argc, char **argv);
int cmd_detokenize(int argc, char **argv);
int cmd_template(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_serve(int argc, char **argv);
/* `bench --synthetic`: the model half of cmd_bench. */
int bench_model(int argc, char **argv);
/* `bench --speculative`: speculative decoding's cost per verify step and gains (bench_speculative.c). */
int bench_speculative(int argc, char **argv);

/* `bench --synthetic … --bundle-capacity C`: the bundle half, after the engine's figures. */
typedef struct bench_bundle_args {
    const char *preset, *keep; /* keep: a folder for the checkpoint and bundle (kept), or NULL (a removed temp folder) */
    ts_dtype dtype;
    int64_t capacity, vocab, kv_floats_per_row; /* kv_floats_per_row: layers × kv_heads × head_dim */
    long long prompt, gen;
    const int32_t *tokens; /* the prompt */
    const float *engine_prefill_logits, *engine_last_logits;
    double engine_decode_rate;
} bench_bundle_args;
int bench_bundle(ts_context *ctx, const bench_bundle_args *a);

#endif
