/* cmd_inspect.c — placeholder until the loader lands; replaced by the loader work. */
#include "cli.h"
#include "commands.h"
#include <stdio.h>
int cmd_inspect(int argc, char **argv) { (void)argc, (void)argv; fprintf(stderr, "tessera inspect: not built yet\n"); return TS_EXIT_RUNTIME; }
