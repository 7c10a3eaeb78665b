/* cmd_tokenize.c — placeholder until the tokenizer lands; replaced by the tokenizer work. */
#include "cli.h"
#include "commands.h"
#include <stdio.h>
int cmd_tokenize(int argc, char **argv) { (void)argc, (void)argv; fprintf(stderr, "tessera tokenize: not built yet\n"); return TS_EXIT_RUNTIME; }
int cmd_detokenize(int argc, char **argv) { (void)argc, (void)argv; fprintf(stderr, "tessera detokenize: not built yet\n"); return TS_EXIT_RUNTIME; }
int cmd_bench(int argc, char **argv) { return bench_model(argc, argv); }
