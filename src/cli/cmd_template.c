/* cmd_template.c — placeholder until the template engine lands; replaced by that work. */
#include "cli.h"
#include "commands.h"
#include <stdio.h>
int cmd_template(int argc, char **argv) { (void)argc, (void)argv; fprintf(stderr, "tessera template: not built yet\n"); return TS_EXIT_RUNTIME; }
