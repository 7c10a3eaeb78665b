/* json_strings.c — a structural walk over JSON text that follows the path of each string (object
 * keys, array indices) and stops at the first NUL or raw control byte in one. See json_strings.h. */
#include "server/json_strings.h"

#include <stdio.h>
#include <string.h>

#define MAX_DEPTH 32 /* deeper levels are walked, but named "…" in the path */

typedef struct level {
    bool object;
    char key[48];
    long index;
} level;

static void path_of(const level *stack, int depth, bool in_key, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = 0;
    int named = depth < MAX_DEPTH ? depth : MAX_DEPTH;
    for (int i = 0; i < named && n < cap; i++) {
        if (i == depth - 1 && in_key && stack[i].object) break; /* the bad string is this key itself */
        if (stack[i].object) n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? "." : "", stack[i].key);
        else n += (size_t)snprintf(out + n, cap - n, "[%ld]", stack[i].index);
    }
    if (depth > MAX_DEPTH && n < cap) snprintf(out + n, cap - n, "…");
}

int srv_json_check_strings(const char *body, size_t len, srv_error *err)
{
    level stack[MAX_DEPTH];
    int depth = 0;
    bool expect_key = false; /* inside an object, before a key's colon */
    for (size_t i = 0; i < len; i++) {
        char c = body[i];
        if (c == '{' || c == '[') {
            if (depth < MAX_DEPTH) stack[depth] = (level){.object = c == '{'};
            depth++;
            expect_key = c == '{';
        } else if (c == '}' || c == ']') {
            if (depth) depth--;
            expect_key = false;
        } else if (c == ',') {
            if (depth && depth <= MAX_DEPTH) {
                if (stack[depth - 1].object) expect_key = true;
                else stack[depth - 1].index++;
            }
        } else if (c == ':') {
            expect_key = false;
        } else if (c == '"') {
            bool key = expect_key && depth && depth <= MAX_DEPTH && stack[depth - 1].object;
            size_t start = ++i, kept = 0;
            for (; i < len && body[i] != '"'; i++) {
                unsigned char b = (unsigned char)body[i];
                const char *what = NULL;
                if (b < 0x20) what = "a raw control character (escape it)";
                else if (b == '\\' && i + 1 < len) {
                    if (body[i + 1] == 'u' && i + 5 < len && !strncmp(body + i + 2, "0000", 4)) what = "a NUL character (\\u0000)";
                    i++; /* the escaped character is never the closing quote */
                }
                if (what) {
                    char path[64];
                    path_of(stack, depth, key, path, sizeof(path));
                    return srv_fail(err, 400, path, "%s%s holds %s at byte %zu: strings may not contain it", path[0] ? "" : "the body",
                                    path, what, i);
                }
            }
            if (key) {
                kept = i - start < sizeof(stack[0].key) - 1 ? i - start : sizeof(stack[0].key) - 1;
                memcpy(stack[depth - 1].key, body + start, kept);
                stack[depth - 1].key[kept] = 0;
            }
        }
    }
    return 0;
}
