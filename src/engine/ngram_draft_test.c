/* ngram_draft_test.c — ts_ngram_draft on hand-made histories: the longest suffix wins over a
 * shorter one that occurs later, the most recent occurrence of a suffix wins, the draft stops at
 * k and at the history's end, a self-overlapping run (a repeated token) drafts its own
 * continuation, no match and bad arguments draft nothing. */
#include "engine/ngram_draft.h"
#include "check.h"

static void test_longest_suffix_first(void)
{
    /* Suffix [1 2 3]: the 3-gram occurs at 0 (followed by 7 8); the 1-gram [3] also occurs later
     * at 6 (followed by 9), which a shortest-first or most-recent-token lookup would take. */
    const int32_t h[] = {1, 2, 3, 7, 8, 5, 3, 9, 1, 2, 3};
    int32_t out[4] = {0};
    CHECK_INT_EQ(ts_ngram_draft(h, 11, 1, 3, 2, out), 2);
    CHECK_INT_EQ(out[0], 7);
    CHECK_INT_EQ(out[1], 8);
    /* Limited to 1-grams: the latest earlier [3] is at 6. */
    CHECK_INT_EQ(ts_ngram_draft(h, 11, 1, 1, 4, out), 4);
    CHECK_INT_EQ(out[0], 9);
    CHECK_INT_EQ(out[3], 3);
}

static void test_most_recent_occurrence(void)
{
    const int32_t h[] = {4, 5, 10, 4, 5, 11, 12, 4, 5};
    int32_t out[3] = {0};
    CHECK_INT_EQ(ts_ngram_draft(h, 9, 2, 2, 3, out), 3);
    CHECK_INT_EQ(out[0], 11);
    CHECK_INT_EQ(out[1], 12);
    CHECK_INT_EQ(out[2], 4);
}

static void test_stops_at_history_end(void)
{
    /* [6 7] occurred at 2; only [8 6 7] follows before the end: three tokens, not k = 5. */
    const int32_t h[] = {0, 1, 6, 7, 8, 6, 7};
    int32_t out[5] = {0};
    CHECK_INT_EQ(ts_ngram_draft(h, 7, 2, 4, 5, out), 3);
    CHECK_INT_EQ(out[0], 8);
    CHECK_INT_EQ(out[2], 7);
}

static void test_repeated_token(void)
{
    /* A run of one token: the suffix [9 9] occurs one back, its continuation is the run itself. */
    const int32_t h[] = {3, 9, 9, 9};
    int32_t out[4] = {0};
    CHECK_INT_EQ(ts_ngram_draft(h, 4, 2, 4, 4, out), 1);
    CHECK_INT_EQ(out[0], 9);
}

static void test_nothing_to_draft(void)
{
    const int32_t h[] = {1, 2, 3, 4};
    int32_t out[4] = {-1, -1, -1, -1};
    CHECK_INT_EQ(ts_ngram_draft(h, 4, 1, 3, 4, out), 0);
    CHECK_INT_EQ(out[0], -1);
    CHECK_INT_EQ(ts_ngram_draft(h, 0, 1, 3, 4, out), 0);
    CHECK_INT_EQ(ts_ngram_draft(h, 1, 1, 3, 4, out), 0);
    const int32_t r[] = {1, 2, 1};
    CHECK_INT_EQ(ts_ngram_draft(r, 3, 1, 3, 0, out), 0);  /* k = 0 */
    CHECK_INT_EQ(ts_ngram_draft(r, 3, 0, 3, 2, out), 0);  /* min_n 0 */
    CHECK_INT_EQ(ts_ngram_draft(r, 3, 3, 2, 2, out), 0);  /* min > max */
    CHECK_INT_EQ(ts_ngram_draft(r, 3, 1, 3, 2, out), 2);  /* [1] at 0: 2 1 */
    CHECK_INT_EQ(out[0], 2);
    CHECK_INT_EQ(out[1], 1);
}

int main(void)
{
    RUN(test_longest_suffix_first);
    RUN(test_most_recent_occurrence);
    RUN(test_stops_at_history_end);
    RUN(test_repeated_token);
    RUN(test_nothing_to_draft);
    return check_finish();
}
