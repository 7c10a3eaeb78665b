/* check.h — the unit-test harness: CHECK macros that count and report, and a main footer.
 *
 * A test file defines test functions, runs them from main with RUN(fn), and returns
 * check_finish(), which prints "N passed, N failed" and exits non-zero on any failure.
 * A failed CHECK prints file:line and the expression (and values for the _EQ forms) and
 * goes on, so one run shows every failure.
 */
#ifndef TS_TESTS_CHECK_H
#define TS_TESTS_CHECK_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_passed, check_failed;

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

/* The message must contain `needle`: error tests assert what the user is told. */
#define CHECK_CONTAINS(hay, needle)                                                                \
    do {                                                                                           \
        const char *h_ = (hay), *n_ = (needle);                                                    \
        if (h_ && strstr(h_, n_)) {                                                                \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: \"%s\" should contain \"%s\"\n", __FILE__,      \
                    __LINE__, h_ ? h_ : "(null)", n_);                                             \
        }                                                                                          \
    } while (0)

#define RUN(fn)                                                                                    \
    do {                                                                                           \
        int before_ = check_failed;                                                                \
        fn();                                                                                      \
        fprintf(stderr, "%s %s\n", check_failed == before_ ? "ok  " : "FAIL", #fn);                \
    } while (0)

static inline int check_finish(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif
