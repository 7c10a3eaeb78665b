/* jinja_lexer.h — splits a Jinja template into text and tag tokens.
 *
 * Applies jinja2's source rules as Hugging Face configures them: newlines normalised to "\n",
 * one trailing newline dropped, `{%-`/`-%}` whitespace control, trim_blocks (first newline
 * after a block or comment tag) and lstrip_blocks (indentation before a block or comment tag),
 * `+` to opt out. Tokens and decoded string literals live in rt's arena. Lexing errors (an
 * unclosed tag or string, a stray character) throw with origin:line:column.
 */
#ifndef TS_TEXT_JINJA_LEXER_H
#define TS_TEXT_JINJA_LEXER_H

#include "text/jinja_value.h"

typedef enum ts_jinja_token_type {
    TS_JT_TEXT,
    TS_JT_VAR_BEGIN,
    TS_JT_VAR_END,
    TS_JT_BLOCK_BEGIN,
    TS_JT_BLOCK_END,
    TS_JT_NAME,
    TS_JT_STRING,
    TS_JT_INT,
    TS_JT_FLOAT,
    TS_JT_OP,
    TS_JT_EOF,
} ts_jinja_token_type;

typedef struct ts_jinja_token {
    ts_jinja_token_type type;
    const char *text; /* TEXT and STRING: decoded contents; NAME/OP: spelling */
    size_t len;
    int64_t i;
    double f;
    int line, col;
} ts_jinja_token;

/* *tokens ends with TS_JT_EOF. */
void ts_jinja_lex(ts_jinja_rt *rt, const char *source, size_t len, ts_jinja_token **tokens,
                  size_t *n_tokens);

#endif
