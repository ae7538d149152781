/* test_num.c - util/pb_num: the one whole-number rule (digits only,
 * within [lo, hi]).  Every case is picked by hand; the comment beside it
 * says why its answer is what it is. */
#include "util/pb_num.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pb_test.h"

#define SENTINEL UINT64_C(0xdeadbeef)

/* pb_num_u64(s, lo, hi) gives rc and, unless rc is PB_NUM_NAN, the value want. */
static void check(const char *s, uint64_t lo, uint64_t hi, int rc_want, uint64_t want, int line)
{
    uint64_t v = SENTINEL;
    int rc = pb_num_u64(s, lo, hi, &v);
    uint64_t v_want = rc_want == PB_NUM_NAN ? SENTINEL : want;
    if (rc != rc_want || v != v_want) {
        fprintf(stderr, "line %d: pb_num_u64(\"%s\", %llu, %llu) rc=%d v=%llu, want rc=%d v=%llu\n",
                line, s, (unsigned long long)lo, (unsigned long long)hi, rc,
                (unsigned long long)v, rc_want, (unsigned long long)v_want);
        pb_test_failures++;
    }
}

#define OK(s, lo, hi, want) check(s, lo, hi, PB_NUM_OK, want, __LINE__)
#define NAN_(s) check(s, 0, UINT64_MAX, PB_NUM_NAN, 0, __LINE__)
#define RANGE(s, lo, hi, want) check(s, lo, hi, PB_NUM_RANGE, want, __LINE__)

static void test_digits(void)
{
    OK("0", 0, UINT64_MAX, 0);                                     /* zero is a whole number */
    OK("7", 0, UINT64_MAX, 7);                                     /* one digit */
    OK("007", 0, UINT64_MAX, 7);                                   /* leading zeros are fine */
    OK("1234567890", 0, UINT64_MAX, UINT64_C(1234567890));         /* every digit */
    OK("18446744073709551615", 0, UINT64_MAX, UINT64_MAX);         /* 2^64 - 1, the largest */
    OK("018446744073709551615", 0, UINT64_MAX, UINT64_MAX);        /* same, a leading zero */
    RANGE("18446744073709551616", 0, UINT64_MAX, UINT64_MAX);      /* 2^64: saturates */
    RANGE("18446744073709551620", 0, UINT64_MAX, UINT64_MAX);      /* 2^64 + 4 */
    RANGE("99999999999999999999999", 0, UINT64_MAX, UINT64_MAX);   /* far past */
    NAN_("");                                                      /* no digit */
    NAN_("-1");                                                    /* a sign */
    NAN_("+1");                                                    /* a sign, even plus */
    NAN_("-0");                                                    /* a sign on zero */
    NAN_(" 1");                                                    /* space before */
    NAN_("1 ");                                                    /* space after */
    NAN_("\t1");                                                   /* tab before */
    NAN_("1\n");                                                   /* newline after */
    NAN_("1e3");                                                   /* no exponent */
    NAN_("0x10");                                                  /* no hex */
    NAN_("1.0");                                                   /* no fraction */
    NAN_("1K");                                                    /* no suffix (pb_size's job) */
    NAN_("1,000");                                                 /* no separators */
    NAN_("99999999999999999999x");                                 /* past 2^64 and trailing */
    NAN_("x");                                                     /* not a digit at all */
    NAN_("/");                                                     /* '0' - 1 */
    NAN_(":");                                                     /* '9' + 1 */
}

static void test_bounds(void)
{
    OK("1", 1, 10, 1);                                   /* at lo */
    OK("10", 1, 10, 10);                                 /* at hi */
    RANGE("0", 1, 10, 0);                                /* lo - 1: *out < lo says which */
    RANGE("11", 1, 10, 11);                              /* hi + 1 */
    OK("5", 5, 5, 5);                                    /* lo == hi */
    RANGE("4", 5, 5, 4);                                 /* just below the single value */
    RANGE("6", 5, 5, 6);                                 /* just above */
    OK("16777216", 1, UINT64_C(1) << 24, UINT64_C(1) << 24); /* 2^24, pb_megatron's bound */
    RANGE("16777217", 1, UINT64_C(1) << 24, UINT64_C(16777217));
    OK("18446744073709551615", UINT64_MAX, UINT64_MAX, UINT64_MAX); /* lo = hi = 2^64 - 1 */
    RANGE("18446744073709551614", UINT64_MAX, UINT64_MAX, UINT64_MAX - 1);
    RANGE("18446744073709551616", 0, 1000, UINT64_MAX);  /* overflow is above any hi */
    NAN_("-5");                                          /* the sign is looked at first */
    check("-5", 1, 10, PB_NUM_NAN, 0, __LINE__);         /* ... whatever the bounds */
    check("", 1, 10, PB_NUM_NAN, 0, __LINE__);
}

/* pb_num_u64n reads exactly len bytes: a NUL among them is not a digit,
 * and what follows them is not looked at. */
static void test_len(void)
{
    uint64_t v = SENTINEL;
    CHECK(pb_num_u64n("123", 3, 0, UINT64_MAX, &v) == PB_NUM_OK && v == 123);
    v = SENTINEL;
    CHECK(pb_num_u64n("123x", 3, 0, UINT64_MAX, &v) == PB_NUM_OK && v == 123); /* x not read */
    v = SENTINEL;
    CHECK(pb_num_u64n("12\0003", 4, 0, UINT64_MAX, &v) == PB_NUM_NAN && v == SENTINEL);
    CHECK(pb_num_u64n("123", 0, 0, UINT64_MAX, &v) == PB_NUM_NAN && v == SENTINEL); /* empty */
    CHECK(pb_num_u64n("12", 2, 13, 20, &v) == PB_NUM_RANGE && v == 12);
    v = SENTINEL;
    CHECK(pb_num_u64(NULL, 0, UINT64_MAX, &v) == PB_NUM_NAN && v == SENTINEL);
}

int main(void)
{
    test_digits();
    test_bounds();
    test_len();
    PB_TEST_END("unit_num");
}
