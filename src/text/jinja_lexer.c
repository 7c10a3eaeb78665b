/* jinja_lexer.c — template source to tokens, with jinja2's whitespace rules. */
#include "text/jinja_lexer.h"
#include "base/utf8.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct lexer {
    ts_jinja_rt *rt;
    const char *src;
    size_t len;
    const size_t *line_starts; /* offsets where each line begins, for line:column */
    size_t n_lines;
    ts_jinja_token *tokens;
    size_t n, cap;
} lexer;

static void position(const lexer *lx, size_t off, int *line, int *col)
{
    size_t lo = 0, hi = lx->n_lines;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (lx->line_starts[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    *line = (int)lo + 1;
    *col = (int)(off - lx->line_starts[lo]) + 1;
}

static _Noreturn void fail_at(lexer *lx, size_t off, const char *msg)
{
    position(lx, off, &lx->rt->line, &lx->rt->col);
    ts_jinja_throw(lx->rt, TS_ERR_FORMAT, "%s", msg);
}

static ts_jinja_token *push(lexer *lx, ts_jinja_token_type type, size_t off)
{
    if (lx->n == lx->cap) {
        size_t cap = lx->cap ? lx->cap * 2 : 256;
        ts_jinja_token *t = ts_jinja_alloc(lx->rt, cap * sizeof(*t));
        if (lx->n) memcpy(t, lx->tokens, lx->n * sizeof(*t));
        lx->tokens = t;
        lx->cap = cap;
    }
    ts_jinja_token *t = &lx->tokens[lx->n++];
    memset(t, 0, sizeof(*t));
    t->type = type;
    position(lx, off, &t->line, &t->col);
    return t;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* jinja2 decodes literals with Python's unicode-escape: known escapes are replaced, unknown
 * ones (like "\d") stay as written. */
static size_t lex_string(lexer *lx, size_t p)
{
    char quote = lx->src[p];
    size_t start = p++;
    ts_jinja_buf b = {0};
    while (p < lx->len && lx->src[p] != quote) {
        char c = lx->src[p];
        if (c != '\\') {
            ts_jinja_buf_addc(lx->rt, &b, c);
            p++;
            continue;
        }
        if (p + 1 >= lx->len) break;
        char e = lx->src[p + 1];
        p += 2;
        switch (e) {
        case 'n':
            ts_jinja_buf_addc(lx->rt, &b, '\n');
            break;
        case 't':
            ts_jinja_buf_addc(lx->rt, &b, '\t');
            break;
        case 'r':
            ts_jinja_buf_addc(lx->rt, &b, '\r');
            break;
        case 'a':
            ts_jinja_buf_addc(lx->rt, &b, '\a');
            break;
        case 'b':
            ts_jinja_buf_addc(lx->rt, &b, '\b');
            break;
        case 'f':
            ts_jinja_buf_addc(lx->rt, &b, '\f');
            break;
        case 'v':
            ts_jinja_buf_addc(lx->rt, &b, '\v');
            break;
        case '\\':
            ts_jinja_buf_addc(lx->rt, &b, '\\');
            break;
        case '\'':
            ts_jinja_buf_addc(lx->rt, &b, '\'');
            break;
        case '"':
            ts_jinja_buf_addc(lx->rt, &b, '"');
            break;
        case '\n':
            break;
        case 'x':
        case 'u':
        case 'U': {
            size_t need = e == 'x' ? 2 : e == 'u' ? 4 : 8;
            uint32_t cp = 0;
            for (size_t k = 0; k < need; k++) {
                char h = p + k < lx->len ? lx->src[p + k] : 0;
                if (!isxdigit((unsigned char)h))
                    fail_at(lx, p - 2, "truncated \\x/\\u escape in string literal");
                cp = cp * 16 + (uint32_t)(isdigit((unsigned char)h)
                                              ? h - '0'
                                              : (tolower((unsigned char)h) - 'a' + 10));
            }
            if (cp > 0x10FFFF) fail_at(lx, p - 2, "escape outside the Unicode range");
            p += need;
            {
                char u[4];
                ts_jinja_buf_add(lx->rt, &b, u, ts_utf8_encode(cp, u));
            }
            break;
        }
        default:
            if (e >= '0' && e <= '7') {
                uint32_t cp = (uint32_t)(e - '0');
                for (int k = 0; k < 2 && p < lx->len && lx->src[p] >= '0' && lx->src[p] <= '7'; k++)
                    cp = cp * 8 + (uint32_t)(lx->src[p++] - '0');
                {
                    char u[4];
                    ts_jinja_buf_add(lx->rt, &b, u, ts_utf8_encode(cp, u));
                }
            } else {
                ts_jinja_buf_addc(lx->rt, &b, '\\');
                ts_jinja_buf_addc(lx->rt, &b, e);
            }
        }
    }
    if (p >= lx->len) fail_at(lx, start, "unterminated string literal");
    ts_jinja_token *t = push(lx, TS_JT_STRING, start);
    ts_jinja_value v = ts_jinja_buf_value(lx->rt, &b);
    t->text = v.u.str.s;
    t->len = v.u.str.len;
    return p + 1;
}

static size_t lex_number(lexer *lx, size_t p)
{
    size_t start = p;
    bool is_float = false;
    while (p < lx->len && (isdigit((unsigned char)lx->src[p]) || lx->src[p] == '_'))
        p++;
    if (p + 1 < lx->len && lx->src[p] == '.' && isdigit((unsigned char)lx->src[p + 1])) {
        is_float = true;
        p++;
        while (p < lx->len && (isdigit((unsigned char)lx->src[p]) || lx->src[p] == '_'))
            p++;
    }
    if (p < lx->len && (lx->src[p] == 'e' || lx->src[p] == 'E')) {
        size_t q = p + 1;
        if (q < lx->len && (lx->src[q] == '+' || lx->src[q] == '-')) q++;
        if (q < lx->len && isdigit((unsigned char)lx->src[q])) {
            is_float = true;
            p = q;
            while (p < lx->len && isdigit((unsigned char)lx->src[p]))
                p++;
        }
    }
    char buf[128];
    size_t n = 0;
    for (size_t k = start; k < p && n + 1 < sizeof(buf); k++)
        if (lx->src[k] != '_') buf[n++] = lx->src[k];
    buf[n] = '\0';
    ts_jinja_token *t = push(lx, is_float ? TS_JT_FLOAT : TS_JT_INT, start);
    t->text = lx->src + start;
    t->len = p - start;
    errno = 0;
    if (is_float) {
        t->f = strtod(buf, NULL);
    } else {
        t->i = strtoll(buf, NULL, 10);
        if (errno) fail_at(lx, start, "integer literal out of range");
    }
    return p;
}

static const char *const operators[] = {"//", "**", "==", "!=", "<=", ">=", "+", "-", "*",
                                        "/",  "%",  "~",  "<",  ">",  "=",  "(", ")", "[",
                                        "]",  "{",  "}",  ",",  ".",  ":",  "|", ";"};

/* Lexes the inside of a tag; returns the offset after its closing delimiter. */
static size_t lex_tag(lexer *lx, size_t p, bool is_block, bool *line_starting)
{
    int depth = 0;
    char close = is_block ? '%' : '}';
    for (;;) {
        while (p < lx->len && is_space(lx->src[p]))
            p++;
        if (p >= lx->len)
            fail_at(lx, p,
                    is_block ? "unclosed block tag: expected '%}'"
                             : "unclosed expression: expected '}}'");
        const char *s = lx->src + p;
        size_t rest = lx->len - p;
        if (depth == 0) {
            size_t sign = (s[0] == '-' || s[0] == '+') ? 1 : 0;
            if (rest >= sign + 2 && s[sign] == close && s[sign + 1] == '}' &&
                (sign == 0 || s[0] == '-' || is_block)) {
                push(lx, is_block ? TS_JT_BLOCK_END : TS_JT_VAR_END, p);
                p += sign + 2;
                if (sign && s[0] == '-') {
                    while (p < lx->len && is_space(lx->src[p]))
                        p++;
                    *line_starting = lx->src[p - 1] == '\n';
                } else if (!sign && is_block && p < lx->len && lx->src[p] == '\n') {
                    p++;
                    *line_starting = true;
                } else {
                    *line_starting = false;
                }
                return p;
            }
        }
        char c = s[0];
        if (c == '\'' || c == '"') {
            p = lex_string(lx, p);
        } else if (isdigit((unsigned char)c)) {
            p = lex_number(lx, p);
        } else if (isalpha((unsigned char)c) || c == '_') {
            size_t start = p;
            while (p < lx->len && (isalnum((unsigned char)lx->src[p]) || lx->src[p] == '_'))
                p++;
            ts_jinja_token *t = push(lx, TS_JT_NAME, start);
            t->text = lx->src + start;
            t->len = p - start;
        } else {
            size_t k = 0, n = sizeof(operators) / sizeof(operators[0]);
            for (; k < n; k++) {
                size_t ol = strlen(operators[k]);
                if (rest >= ol && memcmp(s, operators[k], ol) == 0) break;
            }
            if (k == n) fail_at(lx, p, "unexpected character in tag");
            if (c == '(' || c == '[' || c == '{') depth++;
            if ((c == ')' || c == ']' || c == '}') && depth > 0) depth--;
            ts_jinja_token *t = push(lx, TS_JT_OP, p);
            t->text = operators[k];
            t->len = strlen(operators[k]);
            p += t->len;
        }
    }
}

/* Matches `{%[-+]? NAME [-+]?%}` at p; on success sets the signs and the offset after it. */
static bool match_word_tag(const lexer *lx, size_t p, const char *name, char *open_sign,
                           char *close_sign, size_t *end)
{
    const char *s = lx->src;
    size_t n = lx->len, nl = strlen(name);
    if (p + 2 > n || s[p] != '{' || s[p + 1] != '%') return false;
    p += 2;
    *open_sign = p < n && (s[p] == '-' || s[p] == '+') ? s[p++] : 0;
    while (p < n && is_space(s[p]))
        p++;
    if (n - p < nl || memcmp(s + p, name, nl) != 0) return false;
    p += nl;
    if (p < n && (isalnum((unsigned char)s[p]) || s[p] == '_')) return false;
    while (p < n && is_space(s[p]))
        p++;
    *close_sign = p < n && (s[p] == '-' || s[p] == '+') ? s[p++] : 0;
    if (n - p < 2 || s[p] != '%' || s[p + 1] != '}') return false;
    *end = p + 2;
    return true;
}

/* lstrip_blocks: where text [p, text_end) ends once indentation before a block tag is cut. */
static size_t lstrip_cut(const lexer *lx, size_t p, size_t text_end, bool line_starting)
{
    size_t l = text_end;
    while (l > p && lx->src[l - 1] != '\n')
        l--;
    if (l > p || line_starting) {
        for (size_t k = l; k < text_end; k++)
            if (!is_space(lx->src[k])) return text_end;
        return l;
    }
    return text_end;
}

/* `{% raw %}…{% endraw %}`: the body is text. Like jinja2, no trim_blocks after `raw %}`, but
 * lstrip_blocks before `{% endraw` and trim_blocks after it. Returns the offset after endraw. */
static size_t lex_raw(lexer *lx, size_t after_raw, char raw_close_sign, size_t opener)
{
    size_t p = after_raw;
    if (raw_close_sign == '-')
        while (p < lx->len && is_space(lx->src[p]))
            p++;
    for (size_t q = p; q + 1 < lx->len; q++) {
        char os, cs;
        size_t end;
        if (!match_word_tag(lx, q, "endraw", &os, &cs, &end)) continue;
        size_t keep = q;
        if (os == '-')
            while (keep > p && is_space(lx->src[keep - 1]))
                keep--;
        else if (os != '+')
            keep = lstrip_cut(lx, p, q, false);
        if (keep > p) {
            ts_jinja_token *t = push(lx, TS_JT_TEXT, p);
            t->text = lx->src + p;
            t->len = keep - p;
        }
        if (cs == '-')
            while (end < lx->len && is_space(lx->src[end]))
                end++;
        else if (cs != '+' && end < lx->len && lx->src[end] == '\n')
            end++;
        return end;
    }
    fail_at(lx, opener, "unclosed 'raw' block: no {% endraw %}");
}

/* jinja2 reads the source with newlines normalised and, without keep_trailing_newline, drops
 * one final newline. */
static char *normalize(ts_jinja_rt *rt, const char *src, size_t len, size_t *out_len)
{
    char *out = ts_jinja_alloc(rt, len + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (src[i] == '\r') {
            out[n++] = '\n';
            if (i + 1 < len && src[i + 1] == '\n') i++;
        } else {
            out[n++] = src[i];
        }
    }
    if (n && out[n - 1] == '\n') n--;
    out[n] = '\0';
    *out_len = n;
    return out;
}

void ts_jinja_lex(ts_jinja_rt *rt, const char *source, size_t source_len, ts_jinja_token **tokens,
                  size_t *n_tokens)
{
    lexer lx = {.rt = rt};
    lx.src = normalize(rt, source, source_len, &lx.len);
    size_t n_lines = 1;
    for (size_t i = 0; i < lx.len; i++)
        n_lines += lx.src[i] == '\n';
    size_t *starts = ts_jinja_alloc(rt, n_lines * sizeof(size_t));
    starts[0] = 0;
    for (size_t i = 0, k = 1; i < lx.len; i++)
        if (lx.src[i] == '\n') starts[k++] = i + 1;
    lx.line_starts = starts;
    lx.n_lines = n_lines;

    size_t p = 0;
    bool line_starting = true;
    while (p <= lx.len) {
        size_t tag = p;
        while (tag + 1 < lx.len &&
               !(lx.src[tag] == '{' &&
                 (lx.src[tag + 1] == '{' || lx.src[tag + 1] == '%' || lx.src[tag + 1] == '#')))
            tag++;
        bool found = tag + 1 < lx.len;
        size_t text_end = found ? tag : lx.len;
        char kind = found ? lx.src[tag + 1] : 0;
        char sign = found && tag + 2 < lx.len ? lx.src[tag + 2] : 0;
        if (sign != '-' && sign != '+') sign = 0;
        if (sign == '+' && kind == '{') sign = 0;
        size_t keep = text_end;
        if (found && sign == '-') {
            while (keep > p && is_space(lx.src[keep - 1]))
                keep--;
        } else if (found && sign != '+' && kind != '{') {
            keep = lstrip_cut(&lx, p, text_end, line_starting);
        }
        if (keep > p) {
            ts_jinja_token *t = push(&lx, TS_JT_TEXT, p);
            t->text = lx.src + p;
            t->len = keep - p;
        }
        if (!found) break;
        size_t after = tag + 2 + (sign ? 1 : 0);
        if (kind == '#') {
            size_t q = after;
            while (q + 1 < lx.len && !(lx.src[q] == '#' && lx.src[q + 1] == '}'))
                q++;
            if (q + 1 >= lx.len) fail_at(&lx, tag, "unclosed comment: expected '#}'");
            bool strip = q > after && lx.src[q - 1] == '-';
            bool plus = q > after && lx.src[q - 1] == '+';
            p = q + 2;
            if (strip) {
                while (p < lx.len && is_space(lx.src[p]))
                    p++;
                line_starting = p > 0 && lx.src[p - 1] == '\n';
            } else if (!plus && p < lx.len && lx.src[p] == '\n') {
                p++;
                line_starting = true;
            } else {
                line_starting = false;
            }
            continue;
        }
        char raw_open, raw_close;
        size_t raw_end;
        /* jinja2's raw opener takes no `+%}`; such a tag falls through to "unknown tag 'raw'". */
        if (kind == '%' && match_word_tag(&lx, tag, "raw", &raw_open, &raw_close, &raw_end) &&
            raw_close != '+') {
            p = lex_raw(&lx, raw_end, raw_close, tag);
            line_starting = p > 0 && lx.src[p - 1] == '\n';
            continue;
        }
        push(&lx, kind == '%' ? TS_JT_BLOCK_BEGIN : TS_JT_VAR_BEGIN, tag);
        p = lex_tag(&lx, after, kind == '%', &line_starting);
    }
    push(&lx, TS_JT_EOF, lx.len);
    *tokens = lx.tokens;
    *n_tokens = lx.n;
}
