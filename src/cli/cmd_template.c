/* cmd_template.c — `tessera template`: render a model folder's chat template for a messages
 * file (or a JSON-lines batch of them) and print exactly the text, with no newline added. */
#include "cli.h"
#include "commands.h"
#include "base/buf.h"
#include "base/text_escape.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VARS 64

static void help(FILE *out)
{
    fprintf(
        out,
        "usage: tessera template -m DIR [options] MESSAGES.json\n"
        "       tessera template -m DIR [options] --jsonl FILE\n\n"
        "Renders DIR's chat template (tokenizer_config.json chat_template, chat_template.jinja or\n"
        "chat_template.json) and prints the text exactly, with no newline added. MESSAGES.json is "
        "a\n"
        "JSON array of messages or an object of variables (\"messages\", \"tools\", …). "
        "bos_token,\n"
        "eos_token, … come from tokenizer_config.json.\n\n"
        "options:\n"
        "  -m, --model DIR            model (or tokenizer-only) folder\n"
        "  --name NAME                which template of a named list (default \"default\")\n"
        "  --add-generation-prompt    set add_generation_prompt=true (default false)\n"
        "  --var NAME=JSON            set a variable, e.g. --var enable_thinking=false "
        "(repeatable)\n"
        "  --jsonl FILE               each line a messages array or object; prints one JSON "
        "string\n"
        "                             per line (null for a line that failed; its error on stderr)\n"
        "  -h, --help                 this text\n\n"
        "exit status: 0 ok, 1 runtime error (any failed line), 2 usage error\n");
}

static char *read_all(FILE *f, size_t *len)
{
    ts_buf b = {0};
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        ts_buf_append(&b, chunk, got);
    return ts_buf_take(&b, len);
}

static char *read_path(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) return NULL;
    char *text = read_all(f, len);
    if (f != stdin) fclose(f);
    return text;
}

static bool blank(const char *s)
{
    for (; *s; s++)
        if (!isspace((unsigned char)*s)) return false;
    return true;
}

int cmd_template(int argc, char **argv)
{
    const char *dir = NULL, *name = NULL, *jsonl = NULL, *messages = NULL;
    bool gen = false;
    char *vars[MAX_VARS];
    size_t n_vars = 0;
    int rc = TS_EXIT_OK;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (ts_cli_is_help(argv[i])) {
            help(stdout);
            goto out;
        } else if (ts_cli_match(argc, argv, &i, "-m", &v) ||
                   ts_cli_match(argc, argv, &i, "--model", &v)) {
            if (!v) {
                rc = ts_cli_usage_error("template", "%s needs a folder", argv[i]);
                goto out;
            }
            dir = v;
        } else if (ts_cli_match(argc, argv, &i, "--name", &v)) {
            if (!v) {
                rc = ts_cli_usage_error("template", "--name needs a value");
                goto out;
            }
            name = v;
        } else if (ts_cli_match(argc, argv, &i, "--jsonl", &v)) {
            if (!v) {
                rc = ts_cli_usage_error("template", "--jsonl needs a file");
                goto out;
            }
            jsonl = v;
        } else if (ts_cli_match(argc, argv, &i, "--add-generation-prompt", NULL)) {
            gen = true;
        } else if (ts_cli_match(argc, argv, &i, "--var", &v)) {
            const char *eq = v ? strchr(v, '=') : NULL;
            if (!eq || eq == v) {
                rc = ts_cli_usage_error("template", "--var needs NAME=JSON");
                goto out;
            }
            for (const char *c = v; c < eq; c++)
                if (!(isalnum((unsigned char)*c) || *c == '_')) {
                    rc = ts_cli_usage_error("template", "--var name '%.*s' is not an identifier",
                                            (int)(eq - v), v);
                    goto out;
                }
            if (n_vars == MAX_VARS) {
                rc = ts_cli_usage_error("template", "at most %d --var", MAX_VARS);
                goto out;
            }
            size_t need = strlen(v) + 16;
            char *layer = malloc(need);
            if (!layer) {
                fprintf(stderr, "tessera template: out of memory\n");
                rc = TS_EXIT_RUNTIME;
                goto out;
            }
            snprintf(layer, need, "{\"%.*s\": %s}", (int)(eq - v), v, eq + 1);
            vars[n_vars++] = layer;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            rc = ts_cli_usage_error("template", "unknown option '%s'", argv[i]);
            goto out;
        } else if (!messages) {
            messages = argv[i];
        } else {
            rc = ts_cli_usage_error("template", "more than one messages file");
            goto out;
        }
    }
    if (!dir) {
        rc = ts_cli_usage_error("template", "missing -m DIR");
        goto out;
    }
    char dir_buf[4096];
    if (!(dir = ts_cli_resolve_model("template", dir, dir_buf, sizeof(dir_buf)))) {
        rc = TS_EXIT_RUNTIME;
        goto out;
    }
    if (!messages == !jsonl) {
        rc = ts_cli_usage_error("template", "give one MESSAGES.json or --jsonl FILE");
        goto out;
    }

    ts_error err = {0};
    ts_chat_template *tmpl = NULL;
    if (ts_chat_template_load(dir, name, &tmpl, &err) != TS_OK) {
        rc = ts_cli_fail("template", &err);
        goto out;
    }
    size_t len;
    char *text = read_path(jsonl ? jsonl : messages, &len);
    if (!text) {
        fprintf(stderr, "tessera template: cannot read '%s'\n", jsonl ? jsonl : messages);
        ts_chat_template_destroy(tmpl);
        rc = TS_EXIT_RUNTIME;
        goto out;
    }
    /* Layers: the default, the document, the flag, then --var overrides. */
    const char *layers[MAX_VARS + 3];
    size_t n_layers = 0;
    /* transformers passes tools and documents as None when absent. */
    layers[n_layers++] = "{\"add_generation_prompt\": false, \"tools\": null, \"documents\": null}";
    size_t doc_at = n_layers++;
    if (gen) layers[n_layers++] = "{\"add_generation_prompt\": true}";
    for (size_t i = 0; i < n_vars; i++)
        layers[n_layers++] = vars[i];
    if (!jsonl) {
        layers[doc_at] = text;
        char *out = NULL;
        if (ts_chat_template_render_layers(tmpl, layers, n_layers, &out, &err) != TS_OK)
            rc = ts_cli_fail("template", &err);
        else
            fwrite(out, 1, strlen(out), stdout);
        free(out);
    } else {
        size_t line_no = 0;
        for (char *line = text; line && *line;) {
            char *nl = strchr(line, '\n');
            if (nl) *nl = '\0';
            line_no++;
            if (!blank(line)) {
                layers[doc_at] = line;
                char *out = NULL;
                if (ts_chat_template_render_layers(tmpl, layers, n_layers, &out, &err) != TS_OK) {
                    fprintf(stderr, "tessera template: line %zu: %s\n", line_no, err.message);
                    fputs("null\n", stdout);
                    rc = TS_EXIT_RUNTIME;
                } else {
                    ts_json_fquote(stdout, out, strlen(out), TS_JSON_ESC_NRT);
                    putchar('\n');
                }
                free(out);
            }
            line = nl ? nl + 1 : NULL;
        }
    }
    free(text);
    ts_chat_template_destroy(tmpl);
out:
    for (size_t i = 0; i < n_vars; i++)
        free(vars[i]);
    fflush(stdout);
    return rc;
}
