/* check.h — the unit-test harness: CHECK macros that count and report, and a main footer.
 *
 * A test file defines test functions, runs them from main with RUN(fn), and returns
 * check_finish(), which prints "N passed, N failed" and exits non-zero on any failure.
 * A failed CHECK prints file:line and the expression (and values for the _EQ forms) and
 * goes on, so one run shows every failure. REQUIRE is the CHECK to use where later checks
 * depend on it (they dereference what it guards): on failure it also returns from the test
 * function (a void one), so the failure is reported instead of crashing the run.
 * A test must assert: RUN fails a test function that made no check, and check_finish fails a
 * program that made none. A function that has nothing to check here (its oracle is not
 * installed) says so with CHECK_SKIP("why"), which counts as its check.
 */
#ifndef TS_TESTS_CHECK_H
#define TS_TESTS_CHECK_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_passed, check_failed, check_skipped;

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        if (x) {                                                                                   \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #x);                  \
        }                                                                                          \
    } while (0)

#define CHECK_INT_EQ(a, b)                                                                         \
    do {                                                                                           \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                      \
        if (va_ == vb_) {                                                                          \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld vs %lld)\n", __FILE__, __LINE__,  \
                    #a, #b, va_, vb_);                                                             \
        }                                                                                          \
    } while (0)

#define CHECK_STR_EQ(a, b)                                                                         \
    do {                                                                                           \
        const char *sa_ = (a), *sb_ = (b);                                                         \
        if (sa_ && sb_ && strcmp(sa_, sb_) == 0) {                                                 \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s\n  got:  \"%s\"\n  want: \"%s\"\n",     \
                    __FILE__, __LINE__, #a, #b, sa_ ? sa_ : "(null)", sb_ ? sb_ : "(null)");       \
        }                                                                                          \
    } while (0)

#define REQUIRE(x)                                                                                 \
    do {                                                                                           \
        if (x) {                                                                                   \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: REQUIRE failed: %s (the test stops here)\n", __FILE__,         \
                    __LINE__, #x);                                                                 \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* REQUIRE's form of CHECK_INT_EQ: `REQUIRE_INT_EQ(ts_model_load(…, &m, &err), TS_OK);` before m
 * is used. */
#define REQUIRE_INT_EQ(a, b)                                                                       \
    do {                                                                                           \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                      \
        if (va_ == vb_) {                                                                          \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr,                                                                        \
                    "%s:%d: REQUIRE failed: %s == %s (%lld vs %lld; the test stops here)\n",       \
                    __FILE__, __LINE__, #a, #b, va_, vb_);                                         \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* Nothing to check in this environment: counts as the function's check, and is reported. */
#define CHECK_SKIP(why)                                                                            \
    do {                                                                                           \
        check_skipped++;                                                                           \
        fprintf(stderr, "%s:%d: skipped: %s\n", __FILE__, __LINE__, (why));                        \
    } while (0)

/* The message must contain `needle`: error tests assert what the user is told. */
#define CHECK_CONTAINS(hay, needle)                                                                \
    do {                                                                                           \
        const char *h_ = (hay), *n_ = (needle);                                                    \
        if (h_ && strstr(h_, n_)) {                                                                \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: \"%s\" should contain \"%s\"\n", __FILE__,       \
                    __LINE__, h_ ? h_ : "(null)", n_);                                             \
        }                                                                                          \
    } while (0)

#define RUN(fn)                                                                                    \
    do {                                                                                           \
        int before_ = check_failed, made_ = check_passed + check_failed + check_skipped;           \
        fn();                                                                                      \
        if (check_passed + check_failed + check_skipped == made_) {                                \
            check_failed++;                                                                        \
            fprintf(stderr, "%s: made no checks\n", #fn);                                          \
        }                                                                                          \
        fprintf(stderr, "%s %s\n", check_failed == before_ ? "ok  " : "FAIL", #fn);                \
    } while (0)

static inline int check_finish(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    if (check_passed + check_failed + check_skipped == 0) {
        printf("no checks were made: a test that asserts nothing fails\n");
        return 1;
    }
    return check_failed ? 1 : 0;
}

#endif
