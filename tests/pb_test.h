/* pb_test.h - the few macros every unit test uses.  A test is a plain
 * program: exit 0 when every check held, 1 otherwise, 77 to skip. */
#ifndef PB_TEST_H
#define PB_TEST_H

#include <math.h>
#include <stdio.h>

#define PB_TEST_SKIP 77

static int pb_test_failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            pb_test_failures++;                                                      \
        }                                                                            \
    } while (0)

/* |got - want| <= tol * |want| (or tol when want is 0) */
#define CHECK_NEAR(got, want, tol)                                                   \
    do {                                                                             \
        double g_ = (double)(got), w_ = (double)(want);                              \
        double d_ = fabs(g_ - w_), s_ = fabs(w_) > 0.0 ? fabs(w_) : 1.0;             \
        if (!(d_ <= (tol) * s_)) {                                                   \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.17g, want %.17g\n",    \
                    __FILE__, __LINE__, #got, g_, w_);                               \
            pb_test_failures++;                                                      \
        }                                                                            \
    } while (0)

#define PB_TEST_END(name)                                                            \
    do {                                                                             \
        if (pb_test_failures) {                                                      \
            fprintf(stderr, "%s: %d check(s) failed\n", name, pb_test_failures);     \
            return 1;                                                                \
        }                                                                            \
        printf("%s: all checks passed\n", name);                                     \
        return 0;                                                                    \
    } while (0)

#endif
