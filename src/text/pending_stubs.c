/* pending_stubs.c — TEMPORARY: the tokenizer and chat-template API of tessera.h, answering
 * TS_ERR_UNSUPPORTED "not merged yet" so that generation and `tessera run` link before the
 * tokenizer and template branches are merged. Delete this file at that merge. */
#include "base/error.h"

static ts_status pending(ts_error *err, const char *what)
{
    return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: not merged yet", what);
}

ts_status ts_tokenizer_load(const char *dir, ts_tokenizer **out, ts_error *err)
{
    *out = NULL;
    return pending(err, "tokenizer");
}
void ts_tokenizer_destroy(ts_tokenizer *tok) { (void)tok; }
ts_status ts_tokenizer_encode(const ts_tokenizer *tok, const char *text, size_t len,
                              bool add_special_tokens, int32_t **ids, size_t *n_ids, ts_error *err)
{
    *ids = NULL;
    *n_ids = 0;
    return pending(err, "tokenizer");
}
ts_status ts_tokenizer_decode(const ts_tokenizer *tok, const int32_t *ids, size_t n_ids,
                              bool skip_special_tokens, char **text, size_t *len, ts_error *err)
{
    *text = NULL;
    *len = 0;
    return pending(err, "tokenizer");
}
size_t ts_tokenizer_vocab_size(const ts_tokenizer *tok) { return 0; }
int32_t ts_tokenizer_token_to_id(const ts_tokenizer *tok, const char *token) { return -1; }
const char *ts_tokenizer_id_to_token(const ts_tokenizer *tok, int32_t id) { return NULL; }
bool ts_tokenizer_is_special(const ts_tokenizer *tok, int32_t id) { return false; }
const char *ts_tokenizer_special_token(const ts_tokenizer *tok, const char *role) { return NULL; }
ts_status ts_detokenizer_create(const ts_tokenizer *tok, bool skip_special_tokens,
                                ts_detokenizer **out, ts_error *err)
{
    *out = NULL;
    return pending(err, "detokenizer");
}
void ts_detokenizer_destroy(ts_detokenizer *detok) { (void)detok; }
ts_status ts_detokenizer_push(ts_detokenizer *detok, int32_t id, const char **piece,
                              size_t *piece_len, ts_error *err)
{
    return pending(err, "detokenizer");
}
ts_status ts_detokenizer_finish(ts_detokenizer *detok, const char **piece, size_t *piece_len,
                                ts_error *err)
{
    return pending(err, "detokenizer");
}
ts_status ts_chat_template_compile(const char *source, size_t len, const char *origin,
                                   ts_chat_template **out, ts_error *err)
{
    *out = NULL;
    return pending(err, "chat templates");
}
ts_status ts_chat_template_load(const char *dir, const char *name, ts_chat_template **out,
                                ts_error *err)
{
    *out = NULL;
    return pending(err, "chat templates");
}
void ts_chat_template_destroy(ts_chat_template *tmpl) { (void)tmpl; }
ts_status ts_chat_template_render(const ts_chat_template *tmpl, const char *context_json,
                                  char **out, ts_error *err)
{
    *out = NULL;
    return pending(err, "chat templates");
}
