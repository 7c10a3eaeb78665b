/* speculative.c — see speculative.h. */
#include "engine/speculative.h"

#include <string.h>

ts_status ts_speculate(const ts_verifier *v, ts_completion *c, int32_t pending, int k,
                       float *rows, ts_spec_step *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    int32_t tokens[1 + TS_MAX_DRAFT];
    if (k > TS_MAX_DRAFT) k = TS_MAX_DRAFT;
    int n = ts_completion_draft(c, k, tokens + 1);
    if (n == 0) return TS_OK;
    tokens[0] = pending;
    out->ran = true;
    out->drafted = n;
    ts_status st = v->verify(v->self, tokens, n + 1, rows, err);
    if (!st)
        st = ts_completion_verify(c, rows, tokens + 1, n, NULL, NULL, &out->accepted, &out->next,
                                  &out->done, err);
    if (st) return st;
    /* The runner holds pending and the n drafts; keep pending and the accepted ones. */
    int drop = n - out->accepted;
    return drop > 0 ? v->rollback(v->self, drop, err) : TS_OK;
}
