/* main.c — `tessera` entry point: picks the subcommand and owns the exit code. */
#include "cli.h"
#include "commands.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"inspect", cmd_inspect, "show a model folder: family, dimensions, dtypes, parameters, modalities"},
    {"run", cmd_run, "generate text from a prompt, streamed (chat template, sampling, stops)"},
    {"tokenize", cmd_tokenize, "print the token ids of a text"},
    {"detokenize", cmd_detokenize, "print the text of token ids"},
    {"template", cmd_template, "render the chat template for a messages file"},
    {"compare", cmd_compare, "compare a model with a reference file, stage by stage"},
    {"export", cmd_export, "write a model's entries as a StableHLO bundle"},
    {"serve", cmd_serve, "the OpenAI-compatible server (chat, completions, images, metrics)"},
    {"bench", cmd_bench, "measure tokenizer and model speed"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: tessera COMMAND [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'tessera COMMAND --help' shows a command's options.\n"
                 "exit status: 0 ok, 1 runtime error, 2 usage error\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return TS_EXIT_USAGE;
    }
    if (ts_cli_is_help(argv[1])) {
        usage(stdout);
        return TS_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("tessera %s (cpu: %s)\n", TS_VERSION, ts_cpu_features_string(ts_cpu_features()));
        return TS_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "tessera: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return TS_EXIT_USAGE;
}
