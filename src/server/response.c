/* response.c — the OpenAI JSON shapes: chat.completion(.chunk), text_completion, logprobs in
 * both dialects (chat: content[{token, logprob, bytes, top_logprobs}]; completions: tokens,
 * token_logprobs, top_logprobs, text_offset), usage, and the models list. Token strings are the
 * token's own decoded text; bytes that are not valid UTF-8 on their own (a piece of a multi-byte
 * character) become U+FFFD in the string and stay exact in "bytes", as OpenAI does.
 */
#include "server/response.h"
#include "base/utf8.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void srv_reply_init(srv_reply *r, const srv_server *s, const srv_job *job)
{
    r->server = s, r->job = job;
    r->created = (long)time(NULL);
    snprintf(r->id, sizeof(r->id), "%s-%016llx", job->req.endpoint == SRV_CHAT ? "chatcmpl" : "cmpl", (unsigned long long)job->serial);
}

static bool is_chat(const srv_reply *r) { return r->job->req.endpoint == SRV_CHAT; }

/* The token's text (invalid bytes as U+FFFD) and, when asked, its raw bytes. */
static char *token_text(const srv_server *s, int32_t id, cJSON **bytes)
{
    char *raw = NULL;
    size_t len = 0;
    if (ts_tokenizer_decode(s->tok, &id, 1, false, &raw, &len, NULL) != TS_OK) raw = NULL, len = 0;
    if (bytes && (*bytes = cJSON_CreateArray()))
        for (size_t i = 0; i < len; i++) cJSON_AddItemToArray(*bytes, cJSON_CreateNumber((unsigned char)raw[i]));
    char *out = ts_utf8_clean(raw ? raw : "", len);
    free(raw);
    return out;
}

static cJSON *chat_logprob_entry(const srv_server *s, int32_t id, float lp)
{
    cJSON *e = cJSON_CreateObject(), *bytes = NULL;
    char *t = token_text(s, id, &bytes);
    cJSON_AddStringToObject(e, "token", t ? t : "");
    cJSON_AddNumberToObject(e, "logprob", lp);
    cJSON_AddItemToObject(e, "bytes", bytes ? bytes : cJSON_CreateArray());
    free(t);
    return e;
}

/* Logprobs of events[from, to) in the endpoint's dialect; NULL when none were asked for. */
static cJSON *logprobs(const srv_reply *r, size_t from, size_t to, size_t *text_offset)
{
    const srv_job *job = r->job;
    if (!job->req.logprobs) return NULL;
    if (is_chat(r)) {
        cJSON *doc = cJSON_CreateObject(), *content = cJSON_AddArrayToObject(doc, "content");
        for (size_t i = from; i < to; i++) {
            const srv_event *ev = &job->events[i];
            if (!ev->has_logprob) continue;
            cJSON *e = chat_logprob_entry(r->server, ev->id, ev->logprob), *top = cJSON_AddArrayToObject(e, "top_logprobs");
            for (int k = 0; k < ev->n_top; k++) cJSON_AddItemToArray(top, chat_logprob_entry(r->server, ev->top[k].id, ev->top[k].logprob));
            cJSON_AddItemToArray(content, e);
        }
        return doc;
    }
    cJSON *doc = cJSON_CreateObject(), *tokens = cJSON_AddArrayToObject(doc, "tokens"),
          *lps = cJSON_AddArrayToObject(doc, "token_logprobs"), *tops = cJSON_AddArrayToObject(doc, "top_logprobs"),
          *offsets = cJSON_AddArrayToObject(doc, "text_offset");
    for (size_t i = from; i < to; i++) {
        const srv_event *ev = &job->events[i];
        if (ev->has_logprob) {
            char *t = token_text(r->server, ev->id, NULL);
            cJSON_AddItemToArray(tokens, cJSON_CreateString(t ? t : ""));
            cJSON_AddItemToArray(lps, cJSON_CreateNumber(ev->logprob));
            cJSON_AddItemToArray(offsets, cJSON_CreateNumber((double)*text_offset));
            cJSON *top = cJSON_CreateObject();
            for (int k = 0; k < ev->n_top; k++) {
                char *tt = token_text(r->server, ev->top[k].id, NULL);
                if (tt && !cJSON_GetObjectItemCaseSensitive(top, tt)) cJSON_AddNumberToObject(top, tt, ev->top[k].logprob);
                free(tt);
            }
            cJSON_AddItemToArray(tops, top);
            free(t);
        }
        *text_offset += ev->len;
    }
    return doc;
}

static char *joined_text(const srv_job *job, size_t from, size_t to)
{
    size_t len = 0;
    for (size_t i = from; i < to; i++) len += job->events[i].len;
    char *text = malloc(len + 1);
    if (!text) return NULL;
    size_t at = 0;
    for (size_t i = from; i < to; i++) memcpy(text + at, job->events[i].text, job->events[i].len), at += job->events[i].len;
    text[at] = '\0';
    return text;
}

static cJSON *usage(const srv_job *job)
{
    cJSON *u = cJSON_CreateObject();
    cJSON_AddNumberToObject(u, "prompt_tokens", (double)job->prompt_tokens);
    cJSON_AddNumberToObject(u, "completion_tokens", (double)job->completion_tokens);
    cJSON_AddNumberToObject(u, "total_tokens", (double)(job->prompt_tokens + job->completion_tokens));
    /* OpenAI's field for the prompt tokens a prefix cache served (not prefilled). */
    cJSON *details = cJSON_AddObjectToObject(u, "prompt_tokens_details");
    if (details) cJSON_AddNumberToObject(details, "cached_tokens", (double)job->cached_tokens);
    return u;
}

static cJSON *envelope(const srv_reply *r, bool chunk)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "id", r->id);
    cJSON_AddStringToObject(doc, "object", is_chat(r) ? (chunk ? "chat.completion.chunk" : "chat.completion") : "text_completion");
    cJSON_AddNumberToObject(doc, "created", (double)r->created);
    cJSON_AddStringToObject(doc, "model", r->server->model_name);
    cJSON_AddStringToObject(doc, "system_fingerprint", "tessera-" TS_VERSION);
    return doc;
}

static char *print(cJSON *doc, bool sse)
{
    char *body = doc ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    if (!body || !sse) return body;
    size_t len = strlen(body);
    char *line = malloc(len + 9);
    if (line) memcpy(line, "data: ", 6), memcpy(line + 6, body, len), memcpy(line + 6 + len, "\n\n", 3);
    free(body);
    return line;
}

char *srv_reply_complete(const srv_reply *r)
{
    const srv_job *job = r->job;
    cJSON *doc = envelope(r, false), *choices = cJSON_AddArrayToObject(doc, "choices"), *choice = cJSON_CreateObject();
    cJSON_AddItemToArray(choices, choice);
    cJSON_AddNumberToObject(choice, "index", 0);
    char *text = joined_text(job, 0, job->n_events);
    if (is_chat(r)) {
        cJSON *msg = cJSON_AddObjectToObject(choice, "message");
        cJSON_AddStringToObject(msg, "role", "assistant");
        cJSON_AddStringToObject(msg, "content", text ? text : "");
    } else {
        cJSON_AddStringToObject(choice, "text", text ? text : "");
    }
    free(text);
    size_t offset = 0;
    cJSON *lp = logprobs(r, 0, job->n_events, &offset);
    cJSON_AddItemToObject(choice, "logprobs", lp ? lp : cJSON_CreateNull());
    cJSON_AddStringToObject(choice, "finish_reason", ts_finish_reason_name(job->finish_reason));
    cJSON_AddItemToObject(doc, "usage", usage(job));
    return print(doc, false);
}

/* A chunk with one choice; `usage: null` on every chunk when the client asked for usage, as
 * OpenAI does. */
static cJSON *chunk(const srv_reply *r, cJSON **choice)
{
    cJSON *doc = envelope(r, true), *choices = cJSON_AddArrayToObject(doc, "choices");
    *choice = cJSON_CreateObject();
    cJSON_AddItemToArray(choices, *choice);
    cJSON_AddNumberToObject(*choice, "index", 0);
    if (r->job->req.include_usage) cJSON_AddNullToObject(doc, "usage");
    return doc;
}

char *srv_reply_chunk_role(const srv_reply *r)
{
    cJSON *choice, *doc = chunk(r, &choice), *delta = cJSON_AddObjectToObject(choice, "delta");
    cJSON_AddStringToObject(delta, "role", "assistant");
    cJSON_AddStringToObject(delta, "content", "");
    cJSON_AddNullToObject(choice, "logprobs");
    cJSON_AddNullToObject(choice, "finish_reason");
    return print(doc, true);
}

char *srv_reply_chunk_events(const srv_reply *r, size_t from, size_t to)
{
    cJSON *choice, *doc = chunk(r, &choice);
    char *text = joined_text(r->job, from, to);
    if (is_chat(r)) cJSON_AddStringToObject(cJSON_AddObjectToObject(choice, "delta"), "content", text ? text : "");
    else cJSON_AddStringToObject(choice, "text", text ? text : "");
    free(text);
    size_t offset = 0; /* within this chunk */
    cJSON *lp = logprobs(r, from, to, &offset);
    cJSON_AddItemToObject(choice, "logprobs", lp ? lp : cJSON_CreateNull());
    cJSON_AddNullToObject(choice, "finish_reason");
    return print(doc, true);
}

char *srv_reply_chunk_finish(const srv_reply *r)
{
    cJSON *choice, *doc = chunk(r, &choice);
    if (is_chat(r)) cJSON_AddObjectToObject(choice, "delta");
    else cJSON_AddStringToObject(choice, "text", "");
    cJSON_AddNullToObject(choice, "logprobs");
    cJSON_AddStringToObject(choice, "finish_reason", ts_finish_reason_name(r->job->finish_reason));
    return print(doc, true);
}

char *srv_reply_chunk_usage(const srv_reply *r)
{
    cJSON *doc = envelope(r, true);
    cJSON_AddArrayToObject(doc, "choices");
    cJSON_AddItemToObject(doc, "usage", usage(r->job));
    return print(doc, true);
}

char *srv_models_json(const srv_server *s, bool one)
{
    cJSON *m = cJSON_CreateObject(), *doc = m;
    if (!one) {
        doc = cJSON_CreateObject();
        cJSON_AddStringToObject(doc, "object", "list");
        cJSON_AddItemToArray(cJSON_AddArrayToObject(doc, "data"), m);
    }
    cJSON_AddStringToObject(m, "id", s->model_name);
    cJSON_AddStringToObject(m, "object", "model");
    cJSON_AddNumberToObject(m, "created", 0);
    cJSON_AddStringToObject(m, "owned_by", "tessera");
    cJSON_AddNumberToObject(m, "max_model_len", (double)s->capacity);
    cJSON *modalities = cJSON_AddArrayToObject(m, "input_modalities");
    cJSON_AddItemToArray(modalities, cJSON_CreateString("text"));
    if (srv_accepts_images(s)) cJSON_AddItemToArray(modalities, cJSON_CreateString("image"));
    if (srv_accepts_audio(s)) cJSON_AddItemToArray(modalities, cJSON_CreateString("audio"));
    cJSON *out = cJSON_AddArrayToObject(m, "output_modalities");
    cJSON_AddItemToArray(out, cJSON_CreateString("text"));
    return print(doc, false);
}
