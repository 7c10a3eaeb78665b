/* text_escape.c — hex digits and JSON string escapes (see text_escape.h). */
#include "base/text_escape.h"

int ts_hex_value(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool ts_hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int d = ts_hex_value((unsigned char)s[i]);
        if (d < 0) return false;
        v = v << 4 | (unsigned)d;
    }
    *out = v;
    return true;
}

size_t ts_json_escape_byte(unsigned char c, unsigned flags, char out[8])
{
    char shorthand = 0;
    if (c == '"' || c == '\\')
        shorthand = (char)c;
    else if (flags & TS_JSON_ESC_NRT)
        shorthand = c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : 0;
    if (!shorthand && (flags & TS_JSON_ESC_BF)) shorthand = c == '\b' ? 'b' : c == '\f' ? 'f' : 0;
    if (shorthand) {
        out[0] = '\\', out[1] = shorthand, out[2] = '\0';
        return 2;
    }
    if (c < 0x20 || (c == 0x7f && (flags & TS_JSON_ESC_DEL)))
        return (size_t)snprintf(out, 8, "\\u%04x", c);
    return 0;
}

bool ts_json_escape(ts_buf *b, const char *s, size_t n, unsigned flags)
{
    size_t run = 0; /* bytes that stand for themselves go out in runs */
    for (size_t i = 0; i < n; i++) {
        char esc[8];
        size_t k = ts_json_escape_byte((unsigned char)s[i], flags, esc);
        if (!k) continue;
        ts_buf_append(b, s + run, i - run);
        ts_buf_append(b, esc, k);
        run = i + 1;
    }
    return ts_buf_append(b, s + run, n - run);
}

bool ts_json_quote(ts_buf *b, const char *s, size_t n, unsigned flags)
{
    ts_buf_putc(b, '"');
    ts_json_escape(b, s, n, flags);
    return ts_buf_putc(b, '"');
}

bool ts_json_fquote(FILE *f, const char *s, size_t n, unsigned flags)
{
    fputc('"', f);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        char esc[8];
        size_t k = ts_json_escape_byte((unsigned char)s[i], flags, esc);
        if (!k) continue;
        fwrite(s + run, 1, i - run, f);
        fwrite(esc, 1, k, f);
        run = i + 1;
    }
    fwrite(s + run, 1, n - run, f);
    return fputc('"', f) != EOF && !ferror(f);
}
