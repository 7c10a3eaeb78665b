/* speculative.c — see speculative.h. */
#include "engine/speculative.h"
#include "base/error.h"
#include "engine/generate.h"

#include <string.h>

ts_status ts_speculate(const ts_verifier *v, ts_completion *c, int32_t pending, int k,
                       float *rows, ts_spec_row_hook hook, void *user, ts_spec_step *out,
                       ts_error *err)
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
    if (st) return st;
    /* Row i holds the logits after tokens[0..i]: row i is checked against draft tokens[i + 1];
     * row n, reached only when every draft was accepted, is sampled plainly. */
    int i = 0;
    for (;; i++) {
        float *row = rows + (size_t)i * (size_t)v->vocab;
        if (hook) hook(user, row);
        bool accepted = false;
        st = i < n ? ts_completion_next_draft(c, row, tokens[i + 1], &out->next, &accepted,
                                              &out->done, err)
                   : ts_completion_next(c, row, &out->next, &out->done, err);
        if (st) return st;
        out->accepted += accepted;
        if (!accepted || out->done) break;
    }
    /* The model holds pending and the n drafts; keep pending and the accepted ones. */
    int drop = n - out->accepted;
    return drop > 0 ? v->rollback(v->self, drop, err) : TS_OK;
}
