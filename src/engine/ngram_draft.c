/* ngram_draft.c — see ngram_draft.h. */
#include "engine/ngram_draft.h"

#include <string.h>

int ts_ngram_draft(const int32_t *h, size_t n, int min_n, int max_n, int k, int32_t *out)
{
    if (k <= 0 || min_n < 1 || max_n < min_n || !h) return 0;
    for (int m = max_n; m >= min_n; m--) {
        if ((size_t)m >= n) continue; /* an earlier occurrence needs at least one more token */
        const int32_t *suffix = h + n - (size_t)m;
        /* Occurrences start at j ≤ n − m − 1, so at least h[j + m] follows them. */
        for (size_t j = n - (size_t)m; j-- > 0;) {
            if (h[j] != suffix[0] || memcmp(h + j, suffix, sizeof(*h) * (size_t)m) != 0) continue;
            size_t from = j + (size_t)m, count = n - from;
            if (count > (size_t)k) count = (size_t)k;
            memcpy(out, h + from, sizeof(*h) * count);
            return (int)count;
        }
    }
    return 0;
}
