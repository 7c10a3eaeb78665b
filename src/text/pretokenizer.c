/* pretokenizer.c — splitting normalized text into pre-tokens (see pretokenizer.h).
 *
 * Every step maps the current piece list to a new one. A split step first lists (range, is_match)
 * parts covering the piece, then folds them according to the behaviour, mirroring the order in
 * which Hugging Face's SplitDelimiterBehavior folds them; empty pieces are dropped.
 */
#include "text/pretokenizer.h"

#include "base/buf.h"
#include "base/error.h"
#include "base/utf8.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

typedef enum behavior { REMOVED, ISOLATED, MERGED_PREV, MERGED_NEXT, CONTIGUOUS } behavior;

typedef enum kind {
    PRE_SPLIT_REGEX,
    PRE_SPLIT_STRING,
    PRE_BYTE_LEVEL,
    PRE_METASPACE,
    PRE_DIGITS,
    PRE_WHITESPACE_SPLIT
} kind;

typedef enum prepend_scheme { PREPEND_ALWAYS, PREPEND_FIRST, PREPEND_NEVER } prepend_scheme;

typedef struct step {
    kind kind;
    behavior behavior;
    bool invert;
    pcre2_code *regex; /* PRE_SPLIT_REGEX and ByteLevel use_regex */
    bool jit;
    char *literal;
    size_t literal_len;
    bool add_prefix_space; /* ByteLevel */
    char replacement[8];   /* Metaspace */
    size_t replacement_len;
    prepend_scheme prepend;
    bool split;
    bool individual_digits;
} step;

struct ts_pretokenizer {
    step *steps;
    size_t n_steps;
    bool byte_level;
};

/* GPT-2's pattern, used by ByteLevel with use_regex. */
static const char gpt2_pattern[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

void ts_pieces_free(ts_pieces *pieces)
{
    ts_buf_fini(&pieces->buf);
    free(pieces->items);
    free(pieces->scratch);
    if (pieces->match_data) pcre2_match_data_free(pieces->match_data);
    memset(pieces, 0, sizeof(*pieces));
}

void ts_pretokenizer_destroy(ts_pretokenizer *pre)
{
    if (!pre) return;
    for (size_t i = 0; i < pre->n_steps; i++) {
        if (pre->steps[i].regex) pcre2_code_free(pre->steps[i].regex);
        free(pre->steps[i].literal);
    }
    free(pre->steps);
    free(pre);
}

bool ts_pretokenizer_is_byte_level(const ts_pretokenizer *pre)
{
    return pre && pre->byte_level;
}

static ts_status compile_regex(step *s, const char *pattern, ts_error *err)
{
    int code;
    PCRE2_SIZE at;
    s->regex = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP,
                             &code, &at, NULL);
    if (!s->regex) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof(msg));
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "pre-tokenizer regex /%s/ does not compile at offset %zu: %s", pattern,
                            (size_t)at, (const char *)msg);
    }
    /* JIT is an optimisation only: without it pcre2_match interprets the same pattern. */
    s->jit = pcre2_jit_compile(s->regex, PCRE2_JIT_COMPLETE) == 0;
    return TS_OK;
}

static bool parse_behavior(const char *name, behavior *out)
{
    static const struct {
        const char *name;
        behavior b;
    } table[] = {{"Removed", REMOVED},
                 {"Isolated", ISOLATED},
                 {"MergedWithPrevious", MERGED_PREV},
                 {"MergedWithNext", MERGED_NEXT},
                 {"Contiguous", CONTIGUOUS}};
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (strcmp(name, table[i].name) == 0) {
            *out = table[i].b;
            return true;
        }
    }
    return false;
}

static ts_status add_step(ts_pretokenizer *pre, const cJSON *json, ts_error *err)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(json, "type");
    if (!cJSON_IsString(type))
        return ts_error_set(err, TS_ERR_FORMAT, "pre_tokenizer without a type");
    const char *t = type->valuestring;
    if (strcmp(t, "Sequence") == 0) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(json, "pretokenizers");
        if (!cJSON_IsArray(list))
            return ts_error_set(err, TS_ERR_FORMAT,
                                "Sequence pre_tokenizer without \"pretokenizers\"");
        const cJSON *child;
        cJSON_ArrayForEach(child, list)
        {
            ts_status st = add_step(pre, child, err);
            if (st) return st;
        }
        return TS_OK;
    }
    step *grown = realloc(pre->steps, (pre->n_steps + 1) * sizeof(*grown));
    if (!grown) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "pre_tokenizer: out of memory");
    pre->steps = grown;
    step *s = &pre->steps[pre->n_steps];
    memset(s, 0, sizeof(*s));
    ts_status st = TS_OK;
    if (strcmp(t, "Split") == 0) {
        const cJSON *pattern = cJSON_GetObjectItemCaseSensitive(json, "pattern");
        const cJSON *regex = cJSON_GetObjectItemCaseSensitive(pattern, "Regex");
        const cJSON *literal = cJSON_GetObjectItemCaseSensitive(pattern, "String");
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(json, "behavior");
        if (!cJSON_IsString(b) || !parse_behavior(b->valuestring, &s->behavior))
            return ts_error_set(err, TS_ERR_FORMAT, "Split pre_tokenizer: bad \"behavior\"");
        s->invert = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(json, "invert"));
        if (cJSON_IsString(regex)) {
            s->kind = PRE_SPLIT_REGEX;
            st = compile_regex(s, regex->valuestring, err);
        } else if (cJSON_IsString(literal) && literal->valuestring[0]) {
            s->kind = PRE_SPLIT_STRING;
            s->literal = strdup(literal->valuestring);
            s->literal_len = strlen(literal->valuestring);
            if (!s->literal) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
        } else {
            st = ts_error_set(err, TS_ERR_FORMAT, "Split pre_tokenizer without a pattern");
        }
    } else if (strcmp(t, "ByteLevel") == 0) {
        s->kind = PRE_BYTE_LEVEL;
        s->add_prefix_space =
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(json, "add_prefix_space"));
        const cJSON *use_regex = cJSON_GetObjectItemCaseSensitive(json, "use_regex");
        if (!cJSON_IsFalse(use_regex)) st = compile_regex(s, gpt2_pattern, err);
        s->behavior = ISOLATED;
        pre->byte_level = true;
    } else if (strcmp(t, "Metaspace") == 0) {
        s->kind = PRE_METASPACE;
        const cJSON *rep = cJSON_GetObjectItemCaseSensitive(json, "replacement");
        const char *r = cJSON_IsString(rep) ? rep->valuestring : "\xE2\x96\x81";
        s->replacement_len = strlen(r);
        if (s->replacement_len == 0 || s->replacement_len > 4)
            return ts_error_set(err, TS_ERR_FORMAT, "Metaspace: replacement must be one character");
        memcpy(s->replacement, r, s->replacement_len);
        const cJSON *scheme = cJSON_GetObjectItemCaseSensitive(json, "prepend_scheme");
        const cJSON *add_prefix = cJSON_GetObjectItemCaseSensitive(json, "add_prefix_space");
        s->prepend = PREPEND_ALWAYS;
        if (cJSON_IsString(scheme)) {
            if (strcmp(scheme->valuestring, "first") == 0)
                s->prepend = PREPEND_FIRST;
            else if (strcmp(scheme->valuestring, "never") == 0)
                s->prepend = PREPEND_NEVER;
            else if (strcmp(scheme->valuestring, "always") != 0)
                return ts_error_set(err, TS_ERR_FORMAT, "Metaspace: unknown prepend_scheme \"%s\"",
                                    scheme->valuestring);
        } else if (cJSON_IsFalse(add_prefix)) {
            s->prepend = PREPEND_NEVER;
        }
        const cJSON *split = cJSON_GetObjectItemCaseSensitive(json, "split");
        s->split = !cJSON_IsFalse(split);
    } else if (strcmp(t, "Digits") == 0) {
        s->kind = PRE_DIGITS;
        s->individual_digits =
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(json, "individual_digits"));
        st = compile_regex(s, s->individual_digits ? "\\p{N}" : "\\p{N}+", err);
        s->behavior = ISOLATED;
    } else if (strcmp(t, "WhitespaceSplit") == 0) {
        s->kind = PRE_WHITESPACE_SPLIT;
        st = compile_regex(s, "\\s+", err);
        s->behavior = REMOVED;
    } else {
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "pre_tokenizer type \"%s\" is not supported",
                            t);
    }
    pre->n_steps++; /* counted even on error so destroy frees what was set */
    return st;
}

ts_status ts_pretokenizer_parse(const cJSON *json, ts_pretokenizer **out, ts_error *err)
{
    *out = NULL;
    if (!json || cJSON_IsNull(json)) return TS_OK;
    ts_pretokenizer *pre = calloc(1, sizeof(*pre));
    if (!pre) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "pre_tokenizer: out of memory");
    ts_status st = add_step(pre, json, err);
    if (st) {
        ts_pretokenizer_destroy(pre);
        return st;
    }
    *out = pre;
    return TS_OK;
}

/* ------------------------------------------------------------------ piece lists */

typedef struct part {
    uint32_t offset, len;
    bool is_match;
} part;

typedef struct parts {
    part *items;
    size_t n, cap;
} parts;

static bool push_part(parts *p, uint32_t offset, uint32_t len, bool is_match)
{
    if (p->n == p->cap) {
        part *grown = ts_array_grow(p->items, &p->cap, sizeof(*grown), 64);
        if (!grown) return false;
        p->items = grown;
    }
    p->items[p->n++] = (part){offset, len, is_match};
    return true;
}

static bool push_piece(ts_pieces *ps, uint32_t offset, uint32_t len, bool at_start)
{
    if (ps->n == ps->cap) {
        ts_piece *grown = ts_array_grow(ps->items, &ps->cap, sizeof(*grown), 64);
        if (!grown) return false;
        ps->items = grown;
    }
    ps->items[ps->n++] = (ts_piece){offset, len, at_start};
    return true;
}

/* Lists the regex matches of one piece as parts covering it. */
static ts_status regex_parts(const step *s, ts_pieces *ps, const ts_piece *piece, parts *out,
                             ts_error *err)
{
    if (!ps->match_data) {
        ps->match_data = pcre2_match_data_create(4, NULL);
        if (!ps->match_data) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
    }
    pcre2_match_data *md = ps->match_data;
    size_t pos = 0, covered = 0, len = piece->len;
    while (pos <= len) {
        PCRE2_SPTR subject = (PCRE2_SPTR)(ps->buf.data + piece->offset);
        int rc = s->jit ? pcre2_jit_match(s->regex, subject, len, pos, 0, md, NULL)
                        : pcre2_match(s->regex, subject, len, pos, PCRE2_NO_UTF_CHECK, md, NULL);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(rc, msg, sizeof(msg));
            return ts_error_set(err, TS_ERR_INTERNAL, "pre-tokenizer regex match failed: %s",
                                (const char *)msg);
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        size_t start = ov[0], end = ov[1];
        if (end == start) {
            /* Empty matches split nothing; step over one character to make progress. */
            if (start >= len) break;
            uint32_t cp;
            pos = start + ts_utf8_decode(subject + start, len - start, &cp);
            continue;
        }
        if (start > covered && !push_part(out, piece->offset + covered, start - covered, false))
            return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
        if (!push_part(out, piece->offset + start, end - start, true))
            return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
        covered = pos = end;
    }
    if (covered < len && !push_part(out, piece->offset + covered, len - covered, false))
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
    return TS_OK;
}

static ts_status literal_parts(const char *lit, size_t lit_len, ts_pieces *ps,
                               const ts_piece *piece, parts *out, ts_error *err)
{
    const char *base = ps->buf.data + piece->offset;
    size_t pos = 0, len = piece->len;
    while (pos < len) {
        const char *hit = memmem(base + pos, len - pos, lit, lit_len);
        if (!hit) break;
        size_t at = (size_t)(hit - base);
        if (at > pos && !push_part(out, piece->offset + pos, at - pos, false))
            return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
        if (!push_part(out, piece->offset + at, lit_len, true))
            return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
        pos = at + lit_len;
    }
    if (pos < len && !push_part(out, piece->offset + pos, len - pos, false))
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
    return TS_OK;
}

/* Folds parts per behaviour into the output list. */
static bool fold_parts(parts *p, behavior b, bool invert, bool at_start, uint32_t piece_offset,
                       ts_pieces *ps)
{
    size_t first = ps->n;
    if (invert)
        for (size_t i = 0; i < p->n; i++)
            p->items[i].is_match = !p->items[i].is_match;
    switch (b) {
    case REMOVED:
    case ISOLATED:
        for (size_t i = 0; i < p->n; i++) {
            if (b == REMOVED && p->items[i].is_match) continue;
            if (!push_piece(ps, p->items[i].offset, p->items[i].len, false)) return false;
        }
        break;
    case MERGED_PREV: {
        bool previous_match = false;
        for (size_t i = 0; i < p->n; i++) {
            part *q = &p->items[i];
            if (q->is_match && !previous_match && ps->n > first) {
                ts_piece *last = &ps->items[ps->n - 1];
                last->len = q->offset + q->len - last->offset;
            } else if (!push_piece(ps, q->offset, q->len, false)) {
                return false;
            }
            previous_match = q->is_match;
        }
        break;
    }
    case MERGED_NEXT: {
        /* Walk backwards: a match absorbs the piece that follows it. */
        bool previous_match = false;
        for (size_t k = p->n; k-- > 0;) {
            part *q = &p->items[k];
            if (q->is_match && !previous_match && ps->n > first) {
                ts_piece *last = &ps->items[ps->n - 1];
                last->len = last->offset + last->len - q->offset;
                last->offset = q->offset;
            } else if (!push_piece(ps, q->offset, q->len, false)) {
                return false;
            }
            previous_match = q->is_match;
        }
        for (size_t i = first, j = ps->n - 1; i < j; i++, j--) {
            ts_piece t = ps->items[i];
            ps->items[i] = ps->items[j];
            ps->items[j] = t;
        }
        break;
    }
    case CONTIGUOUS: {
        bool previous_match = false;
        for (size_t i = 0; i < p->n; i++) {
            part *q = &p->items[i];
            if (q->is_match == previous_match && ps->n > first) {
                ts_piece *last = &ps->items[ps->n - 1];
                last->len = q->offset + q->len - last->offset;
            } else if (!push_piece(ps, q->offset, q->len, false)) {
                return false;
            }
            previous_match = q->is_match;
        }
        break;
    }
    }
    if (ps->n > first && at_start && ps->items[first].offset == piece_offset)
        ps->items[first].at_start = true;
    return true;
}

/* Metaspace: spaces become the replacement, the replacement is prepended per scheme, then the
 * piece splits before each replacement (MergedWithNext). Rewrites into ps->buf. */
static ts_status metaspace(const step *s, ts_pieces *ps, const ts_piece *piece, parts *p,
                           ts_error *err)
{
    size_t new_offset = ps->buf.len;
    const char *rep = s->replacement;
    size_t rep_len = s->replacement_len;
    /* Hugging Face checks after replacing spaces, so a leading space counts as a replacement. */
    const char *text = ps->buf.data + piece->offset;
    bool starts_with_rep = (piece->len > 0 && text[0] == ' ') ||
                           (piece->len >= rep_len && memcmp(text, rep, rep_len) == 0);
    bool prepend = !starts_with_rep && (s->prepend == PREPEND_ALWAYS ||
                                        (s->prepend == PREPEND_FIRST && piece->at_start));
    if (!ts_buf_reserve(&ps->buf, piece->len * rep_len + rep_len))
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
    if (prepend) ts_buf_append(&ps->buf, rep, rep_len);
    for (uint32_t i = 0; i < piece->len; i++) {
        char c = ps->buf.data[piece->offset + i];
        if (c == ' ')
            ts_buf_append(&ps->buf, rep, rep_len);
        else
            ts_buf_append(&ps->buf, &c, 1);
    }
    ts_piece rewritten = {(uint32_t)new_offset, (uint32_t)(ps->buf.len - new_offset),
                          piece->at_start};
    if (!s->split)
        return push_part(p, rewritten.offset, rewritten.len, false)
                   ? TS_OK
                   : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
    return literal_parts(rep, rep_len, ps, &rewritten, p, err);
}

static ts_status run_step(const step *s, ts_pieces *ps, ts_error *err)
{
    /* The step reads ps->items (now in scratch) and writes a fresh list into ps->items. */
    ts_piece *in = ps->items;
    size_t n_in = ps->n, cap_in = ps->cap;
    ps->items = ps->scratch;
    ps->cap = ps->scratch_cap;
    ps->n = 0;
    ps->scratch = in;
    ps->scratch_cap = cap_in;
    parts p = {0};
    ts_status st = TS_OK;
    for (size_t i = 0; i < n_in && !st; i++) {
        ts_piece piece = ps->scratch[i];
        p.n = 0;
        if (s->kind == PRE_BYTE_LEVEL && s->add_prefix_space &&
            (piece.len == 0 || ps->buf.data[piece.offset] != ' ')) {
            size_t at = ps->buf.len;
            if (!ts_buf_reserve(&ps->buf, piece.len + 1)) {
                st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
                break;
            }
            ts_buf_append(&ps->buf, " ", 1);
            ts_buf_append(&ps->buf, ps->buf.data + piece.offset, piece.len);
            piece.offset = (uint32_t)at;
            piece.len += 1;
        }
        switch (s->kind) {
        case PRE_SPLIT_STRING:
            st = literal_parts(s->literal, s->literal_len, ps, &piece, &p, err);
            break;
        case PRE_BYTE_LEVEL:
            /* With use_regex it splits like GPT-2 (Isolated); without, it keeps the piece. */
            if (s->regex)
                st = regex_parts(s, ps, &piece, &p, err);
            else if (!push_part(&p, piece.offset, piece.len, false))
                st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
            break;
        case PRE_SPLIT_REGEX:
        case PRE_DIGITS:
        case PRE_WHITESPACE_SPLIT:
            st = regex_parts(s, ps, &piece, &p, err);
            break;
        case PRE_METASPACE:
            st = metaspace(s, ps, &piece, &p, err);
            if (!st && p.n) piece.offset = p.items[0].offset; /* at_start follows the rewrite */
            break;
        }
        if (!st && !fold_parts(&p, s->kind == PRE_METASPACE ? MERGED_NEXT : s->behavior, s->invert,
                               piece.at_start, piece.offset, ps))
            st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
    }
    free(p.items);
    /* Hugging Face drops empty pieces after every split. */
    size_t kept = 0;
    for (size_t i = 0; i < ps->n; i++)
        if (ps->items[i].len) ps->items[kept++] = ps->items[i];
    ps->n = kept;
    return st;
}

ts_status ts_pretokenizer_run(const ts_pretokenizer *pre, const char *text, size_t len,
                              bool at_start, ts_pieces *pieces, ts_error *err)
{
    pieces->buf.len = 0;
    pieces->n = 0;
    if (!ts_buf_append(&pieces->buf, text, len))
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
    if (len == 0) return TS_OK;
    if (!push_piece(pieces, 0, (uint32_t)len, at_start))
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory");
    if (!pre) return TS_OK;
    for (size_t i = 0; i < pre->n_steps; i++) {
        ts_status st = run_step(&pre->steps[i], pieces, err);
        if (st) return st;
    }
    return TS_OK;
}
