/* stop_matcher.c — stop strings over streamed text; the contract is in stop_matcher.h.
 *
 * Invariant between calls: text[released..len) holds no complete stop string and is the longest
 * tail of the text so far that is a proper prefix of some stop string. Any stop occurrence that
 * is still open starts inside that tail, so searching text from `released` after appending a
 * piece finds every stop string the piece completes.
 */
#include "engine/stop_matcher.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>

ts_status ts_stop_matcher_init(ts_stop_matcher *m, const char *const *stop, int n_stop, ts_error *err)
{
    memset(m, 0, sizeof(*m));
    m->matched = -1;
    if (n_stop < 0 || (n_stop && !stop))
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "stop strings: bad list (%d entries)", n_stop);
    for (int i = 0; i < n_stop; i++)
        if (!stop[i] || !stop[i][0])
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "stop string %d is empty", i);
    if (n_stop) {
        m->stop = calloc((size_t)n_stop, sizeof(*m->stop));
        m->stop_len = calloc((size_t)n_stop, sizeof(*m->stop_len));
        if (!m->stop || !m->stop_len) goto oom;
    }
    m->n_stop = n_stop;
    for (int i = 0; i < n_stop; i++) {
        m->stop_len[i] = strlen(stop[i]);
        m->stop[i] = malloc(m->stop_len[i] + 1);
        if (!m->stop[i]) goto oom;
        memcpy(m->stop[i], stop[i], m->stop_len[i] + 1);
        if (m->stop_len[i] > m->longest) m->longest = m->stop_len[i];
    }
    return TS_OK;
oom:
    ts_stop_matcher_fini(m);
    return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "stop strings: out of memory");
}

void ts_stop_matcher_fini(ts_stop_matcher *m)
{
    for (int i = 0; m->stop && i < m->n_stop; i++) free(m->stop[i]);
    free(m->stop);
    free(m->stop_len);
    ts_buf_fini(&m->text);
    memset(m, 0, sizeof(*m));
    m->matched = -1;
}

/* The earliest position in s[0..n) where any stop string starts, the longest wins a tie. */
static bool find_stop(const ts_stop_matcher *m, const char *s, size_t n, size_t *at, int *which)
{
    bool found = false;
    for (int i = 0; i < m->n_stop; i++) {
        size_t sl = m->stop_len[i];
        for (size_t p = 0; sl <= n && p <= n - sl && (!found || p <= *at); p++) {
            if (memcmp(s + p, m->stop[i], sl) != 0) continue;
            if (!found || p < *at || sl > m->stop_len[*which]) *at = p, *which = i;
            found = true;
            break;
        }
    }
    return found;
}

/* Length of the longest tail of s[0..n) that is a proper prefix of a stop string. */
static size_t open_tail(const ts_stop_matcher *m, const char *s, size_t n)
{
    size_t best = 0;
    for (int i = 0; i < m->n_stop; i++) {
        size_t sl = m->stop_len[i];
        for (size_t t = (sl - 1 < n ? sl - 1 : n); t > best; t--)
            if (memcmp(s + n - t, m->stop[i], t) == 0) {
                best = t;
                break;
            }
    }
    return best;
}

ts_status ts_stop_matcher_push(ts_stop_matcher *m, const char *piece, size_t len, const char **out,
                               size_t *out_len, ts_error *err)
{
    *out = "";
    *out_len = 0;
    if (m->stopped) return TS_OK;
    /* Drop what the last call handed out. */
    if (m->released) memmove(m->text.data, m->text.data + m->released, m->text.len - m->released);
    m->text.len -= m->released;
    m->released = 0;
    if (!ts_buf_append(&m->text, piece, len))
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "stop strings: out of memory");
    size_t at = 0;
    int which = -1;
    if (find_stop(m, m->text.data, m->text.len, &at, &which)) {
        m->stopped = true;
        m->matched = which;
        m->released = at;
        m->text.len = at;
    } else {
        m->released = m->text.len - open_tail(m, m->text.data, m->text.len);
    }
    *out = m->text.data;
    *out_len = m->released;
    return TS_OK;
}

void ts_stop_matcher_finish(ts_stop_matcher *m, const char **out, size_t *out_len)
{
    *out = "";
    *out_len = 0;
    if (m->stopped || !m->text.data) return;
    *out = m->text.data + m->released;
    *out_len = m->text.len - m->released;
    m->released = m->text.len;
}
