/* cmd_tokenize.c — `tessera tokenize` and `tessera detokenize`.
 *
 * Both take a folder holding tokenizer.json (a model folder or just the tokenizer files). The
 * --jsonl modes run a whole corpus in one process: one JSON value per input line, one per output
 * line, in order; a line that fails prints `null` and the run exits 1 at the end.
 */
#include "cli.h"
#include "commands.h"
#include "base/text_escape.h"
#include "base/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ JSON line helpers */

/* Decodes one JSON string literal (the whole line, surrounding spaces allowed) in place into
 * out (at least as long as the line). Returns the byte length or -1. */
static long parse_json_string(const char *line, char *out)
{
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p++ != '"') return -1;
    size_t n = 0;
    for (;;) {
        char c = *p++;
        if (c == '\0') return -1;
        if (c == '"') break;
        if (c != '\\') {
            out[n++] = c;
            continue;
        }
        char e = *p++;
        switch (e) {
        case '"':
        case '\\':
        case '/':
            out[n++] = e;
            break;
        case 'b':
            out[n++] = '\b';
            break;
        case 'f':
            out[n++] = '\f';
            break;
        case 'n':
            out[n++] = '\n';
            break;
        case 'r':
            out[n++] = '\r';
            break;
        case 't':
            out[n++] = '\t';
            break;
        case 'u': {
            unsigned cp, lo;
            if (!ts_hex4(p, &cp)) return -1;
            p += 4;
            if (cp >= 0xD800 && cp < 0xDC00) {
                if (p[0] != '\\' || p[1] != 'u' || !ts_hex4(p + 2, &lo) || lo < 0xDC00 ||
                    lo > 0xDFFF)
                    return -1; /* a lone surrogate is not text */
                p += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return -1;
            }
            n += ts_utf8_encode(cp, out + n);
            break;
        }
        default:
            return -1;
        }
    }
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return *p ? -1 : (long)n;
}

static char *read_line(FILE *in, size_t *cap, char **buf)
{
    ssize_t n = getline(buf, cap, in);
    if (n < 0) return NULL;
    while (n > 0 && ((*buf)[n - 1] == '\n' || (*buf)[n - 1] == '\r'))
        (*buf)[--n] = '\0';
    return *buf;
}

static FILE *open_input(const char *path)
{
    return strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
}

/* ------------------------------------------------------------------ tokenize */

static void tokenize_help(FILE *out)
{
    fprintf(
        out,
        "usage: tessera tokenize -m DIR [--no-special] TEXT\n"
        "       tessera tokenize -m DIR [--no-special] --jsonl FILE\n\n"
        "Prints the token ids of TEXT on one line, separated by spaces.\n\n"
        "  -m, --model DIR   folder with tokenizer.json (and tokenizer_config.json)\n"
        "  --no-special      do not add the post-processor's special tokens (BOS/EOS)\n"
        "  --jsonl FILE      each line of FILE ('-' = stdin) is a JSON string; prints one JSON\n"
        "                    array of ids per line\n\n"
        "Invalid UTF-8 is an error naming its byte offset. Exit: 0 ok, 1 error, 2 usage.\n");
}

static int tokenize_jsonl(const ts_tokenizer *tok, const char *path, bool special)
{
    FILE *in = open_input(path);
    if (!in) {
        fprintf(stderr, "tessera tokenize: cannot open %s\n", path);
        return TS_EXIT_RUNTIME;
    }
    char *line = NULL, *text = NULL;
    size_t cap = 0, text_cap = 0, line_no = 0;
    int rc = TS_EXIT_OK;
    while (read_line(in, &cap, &line)) {
        line_no++;
        size_t need = strlen(line) + 1;
        if (need > text_cap) {
            free(text);
            text = malloc(need);
            text_cap = need;
            if (!text) return TS_EXIT_RUNTIME;
        }
        long len = parse_json_string(line, text);
        if (len < 0) {
            fprintf(stderr, "tessera tokenize: %s:%zu: not a JSON string\n", path, line_no);
            puts("null");
            rc = TS_EXIT_RUNTIME;
            continue;
        }
        ts_error err = {0};
        int32_t *ids;
        size_t n;
        if (ts_tokenizer_encode(tok, text, (size_t)len, special, &ids, &n, &err)) {
            fprintf(stderr, "tessera tokenize: %s:%zu: %s\n", path, line_no, err.message);
            puts("null");
            rc = TS_EXIT_RUNTIME;
            continue;
        }
        putchar('[');
        for (size_t i = 0; i < n; i++)
            printf(i ? ",%d" : "%d", ids[i]);
        puts("]");
        free(ids);
    }
    free(line);
    free(text);
    if (in != stdin) fclose(in);
    return rc;
}

int cmd_tokenize(int argc, char **argv)
{
    const char *model = NULL, *jsonl = NULL, *text = NULL;
    bool special = true;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (ts_cli_is_help(argv[i])) {
            tokenize_help(stdout);
            return TS_EXIT_OK;
        } else if (ts_cli_match(argc, argv, &i, "-m", &v) ||
                   ts_cli_match(argc, argv, &i, "--model", &v)) {
            if (!v) return ts_cli_usage_error("tokenize", "%s needs a folder", argv[i]);
            model = v;
        } else if (ts_cli_match(argc, argv, &i, "--jsonl", &v)) {
            if (!v) return ts_cli_usage_error("tokenize", "--jsonl needs a file ('-' for stdin)");
            jsonl = v;
        } else if (strcmp(argv[i], "--no-special") == 0) {
            special = false;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return ts_cli_usage_error("tokenize", "unknown option '%s'", argv[i]);
        } else if (!text) {
            text = argv[i];
        } else {
            return ts_cli_usage_error("tokenize", "one TEXT only (quote it)");
        }
    }
    if (!model) return ts_cli_usage_error("tokenize", "-m DIR is required");
    char model_buf[4096];
    if (!(model = ts_cli_resolve_model("tokenize", model, model_buf, sizeof(model_buf)))) return TS_EXIT_RUNTIME;
    if (!text == !jsonl) return ts_cli_usage_error("tokenize", "give either TEXT or --jsonl FILE");
    ts_error err = {0};
    ts_tokenizer *tok;
    if (ts_tokenizer_load(model, &tok, &err)) return ts_cli_fail("tokenize", &err);
    int rc = TS_EXIT_OK;
    if (jsonl) {
        rc = tokenize_jsonl(tok, jsonl, special);
    } else {
        int32_t *ids;
        size_t n;
        if (ts_tokenizer_encode(tok, text, strlen(text), special, &ids, &n, &err)) {
            rc = ts_cli_fail("tokenize", &err);
        } else {
            for (size_t i = 0; i < n; i++)
                printf(i ? " %d" : "%d", ids[i]);
            putchar('\n');
            free(ids);
        }
    }
    ts_tokenizer_destroy(tok);
    return rc;
}

/* ------------------------------------------------------------------ detokenize */

static void detokenize_help(FILE *out)
{
    fprintf(
        out,
        "usage: tessera detokenize -m DIR [--skip-special] IDS...\n"
        "       tessera detokenize -m DIR [--skip-special] --jsonl FILE\n\n"
        "Prints the text of the ids (separate arguments or one space-separated string).\n\n"
        "  -m, --model DIR   folder with tokenizer.json\n"
        "  --skip-special    leave special tokens out of the text\n"
        "  --jsonl FILE      each line of FILE ('-' = stdin) is a JSON array of ids; prints one\n"
        "                    JSON string per line\n\n"
        "Ids outside the vocabulary decode to nothing. Exit: 0 ok, 1 error, 2 usage.\n");
}

/* Parses integers separated by spaces, commas or brackets into *ids. Returns false on junk. */
static bool parse_ids(const char *s, int32_t **ids, size_t *n, size_t *cap)
{
    while (*s) {
        if (*s == ' ' || *s == ',' || *s == '[' || *s == ']' || *s == '\t') {
            s++;
            continue;
        }
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end == s || v < 0 || v > INT32_MAX) return false;
        if (*n == *cap) {
            *cap = *cap ? *cap * 2 : 64;
            int32_t *grown = realloc(*ids, *cap * sizeof(**ids));
            if (!grown) return false;
            *ids = grown;
        }
        (*ids)[(*n)++] = (int32_t)v;
        s = end;
    }
    return true;
}

static int detokenize_jsonl(const ts_tokenizer *tok, const char *path, bool skip)
{
    FILE *in = open_input(path);
    if (!in) {
        fprintf(stderr, "tessera detokenize: cannot open %s\n", path);
        return TS_EXIT_RUNTIME;
    }
    char *line = NULL;
    size_t cap = 0, line_no = 0;
    int32_t *ids = NULL;
    size_t ids_cap = 0;
    int rc = TS_EXIT_OK;
    while (read_line(in, &cap, &line)) {
        line_no++;
        size_t n = 0;
        ts_error err = {0};
        char *text;
        size_t len;
        if (strcmp(line, "null") == 0 || !parse_ids(line, &ids, &n, &ids_cap)) {
            fprintf(stderr, "tessera detokenize: %s:%zu: not an array of ids\n", path, line_no);
            puts("null");
            rc = TS_EXIT_RUNTIME;
            continue;
        }
        if (ts_tokenizer_decode(tok, ids, n, skip, &text, &len, &err)) {
            fprintf(stderr, "tessera detokenize: %s:%zu: %s\n", path, line_no, err.message);
            puts("null");
            rc = TS_EXIT_RUNTIME;
            continue;
        }
        ts_json_fquote(stdout, text, len, TS_JSON_ESC_NRT);
        putchar('\n');
        free(text);
    }
    free(line);
    free(ids);
    if (in != stdin) fclose(in);
    return rc;
}

int cmd_detokenize(int argc, char **argv)
{
    const char *model = NULL, *jsonl = NULL;
    bool skip = false;
    int32_t *ids = NULL;
    size_t n = 0, cap = 0;
    int rc = TS_EXIT_OK;
    for (int i = 1; i < argc && rc == TS_EXIT_OK; i++) {
        const char *v;
        if (ts_cli_is_help(argv[i])) {
            detokenize_help(stdout);
            free(ids);
            return TS_EXIT_OK;
        } else if (ts_cli_match(argc, argv, &i, "-m", &v) ||
                   ts_cli_match(argc, argv, &i, "--model", &v)) {
            if (!v) rc = ts_cli_usage_error("detokenize", "%s needs a folder", argv[i]);
            model = v;
        } else if (ts_cli_match(argc, argv, &i, "--jsonl", &v)) {
            if (!v) rc = ts_cli_usage_error("detokenize", "--jsonl needs a file ('-' for stdin)");
            jsonl = v;
        } else if (strcmp(argv[i], "--skip-special") == 0) {
            skip = true;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            rc = ts_cli_usage_error("detokenize", "unknown option '%s'", argv[i]);
        } else if (!parse_ids(argv[i], &ids, &n, &cap)) {
            rc = ts_cli_usage_error("detokenize", "'%s' is not a list of token ids", argv[i]);
        }
    }
    if (rc == TS_EXIT_OK && !model) rc = ts_cli_usage_error("detokenize", "-m DIR is required");
    char model_buf[4096];
    if (rc == TS_EXIT_OK && !(model = ts_cli_resolve_model("detokenize", model, model_buf, sizeof(model_buf)))) rc = TS_EXIT_RUNTIME;
    if (rc == TS_EXIT_OK && jsonl && n)
        rc = ts_cli_usage_error("detokenize", "give either IDS or --jsonl FILE");
    if (rc != TS_EXIT_OK) {
        free(ids);
        return rc;
    }
    ts_error err = {0};
    ts_tokenizer *tok;
    if (ts_tokenizer_load(model, &tok, &err)) {
        free(ids);
        return ts_cli_fail("detokenize", &err);
    }
    if (jsonl) {
        rc = detokenize_jsonl(tok, jsonl, skip);
    } else {
        char *text;
        size_t len;
        if (ts_tokenizer_decode(tok, ids, n, skip, &text, &len, &err)) {
            rc = ts_cli_fail("detokenize", &err);
        } else {
            fwrite(text, 1, len, stdout);
            putchar('\n');
            free(text);
        }
    }
    free(ids);
    ts_tokenizer_destroy(tok);
    return rc;
}
