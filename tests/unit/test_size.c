/* test_size.c - util/pb_size: parsing, ranges, lists and formatting of
 * message sizes.  Every expected number is worked out by hand in the
 * comment beside it (K, M, G, T are powers of 1024, as pb_size.h says). */
#include "util/pb_size.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pb_test.h"

/* Parses s; returns the code and leaves the value in *v. */
static int parse(const char *s, uint64_t *v, pb_err_t *err)
{
    pb_err_clear(err);
    *v = UINT64_C(0xdeadbeef);
    return pb_size_parse(s, v, err);
}

static void check_ok(const char *s, uint64_t want, int line)
{
    pb_err_t err;
    uint64_t v;
    int rc = parse(s, &v, &err);
    if (rc != PB_OK || v != want) {
        fprintf(stderr, "line %d: pb_size_parse(\"%s\") rc=%d v=%llu, want %llu (%s)\n", line,
                s, rc, (unsigned long long)v, (unsigned long long)want, err.msg);
        pb_test_failures++;
    }
}

/* Refused with PB_EINPUT, and the message names the offending text
 * (except for the empty string, which has nothing to name). */
static void check_refused(const char *s, int line)
{
    pb_err_t err;
    uint64_t v;
    int rc = parse(s, &v, &err);
    if (rc != PB_EINPUT || err.code != PB_EINPUT) {
        fprintf(stderr, "line %d: pb_size_parse(\"%s\") rc=%d, want PB_EINPUT\n", line, s, rc);
        pb_test_failures++;
        return;
    }
    if (err.msg[0] == '\0' || (s[0] != '\0' && strstr(err.msg, s) == NULL)) {
        fprintf(stderr, "line %d: message for \"%s\" does not name it: '%s'\n", line, s,
                err.msg);
        pb_test_failures++;
    }
}

static int same_list(const uint64_t *got, size_t n, const uint64_t *want, size_t nwant)
{
    if (got == NULL || n != nwant)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            return 0;
    return 1;
}

static void check_range(uint64_t min, uint64_t max, double factor, uint64_t step,
                        const uint64_t *want, size_t nwant, int line)
{
    pb_err_t err;
    pb_err_clear(&err);
    uint64_t *v = NULL;
    size_t n = 99;
    int rc = pb_size_range(min, max, factor, step, &v, &n, &err);
    if (rc != PB_OK || !same_list(v, n, want, nwant)) {
        fprintf(stderr, "line %d: pb_size_range(%llu, %llu, %g, %llu) rc=%d n=%zu, want %zu:",
                line, (unsigned long long)min, (unsigned long long)max, factor,
                (unsigned long long)step, rc, n, nwant);
        for (size_t i = 0; v != NULL && i < n; i++)
            fprintf(stderr, " %llu", (unsigned long long)v[i]);
        fprintf(stderr, " (%s)\n", err.msg);
        pb_test_failures++;
    }
    free(v);
}

static void check_format(uint64_t bytes, const char *want, int line)
{
    char buf[32];
    memset(buf, 'x', sizeof buf);
    pb_size_format(bytes, buf, sizeof buf);
    if (strcmp(buf, want) != 0) {
        fprintf(stderr, "line %d: pb_size_format(%llu) = '%s', want '%s'\n", line,
                (unsigned long long)bytes, buf, want);
        pb_test_failures++;
    }
}

#define OK(s, want) check_ok(s, want, __LINE__)
#define REFUSED(s) check_refused(s, __LINE__)
#define RANGE(min, max, f, st, ...)                                                    \
    do {                                                                               \
        static const uint64_t w_[] = {__VA_ARGS__};                                    \
        check_range(min, max, f, st, w_, sizeof w_ / sizeof w_[0], __LINE__);          \
    } while (0)
#define FORMAT(b, want) check_format(b, want, __LINE__)

static void test_parse(void)
{
    OK("8", 8);                                      /* plain number */
    OK("0", 0);                                      /* zero is a valid size */
    OK("1K", 1024);                                  /* 1K = 2^10 = 1024 */
    OK("1k", 1024);                                  /* suffix is case-insensitive */
    OK("64M", UINT64_C(67108864));                   /* 64 * 2^20 = 67108864 */
    OK("8G", UINT64_C(8589934592));                  /* 8 * 2^30 = 8589934592 */
    OK("1T", UINT64_C(1099511627776));               /* 2^40 = 1099511627776 */
    OK("64KiB", UINT64_C(65536));                    /* 64 * 1024 = 65536 */
    OK("2MB", UINT64_C(2097152));                    /* 2 * 2^20 = 2097152 */
    OK("8B", 8);                                     /* bare B = bytes */
    OK("007", 7);                                    /* leading zeros are digits */
    OK("18446744073709551615", UINT64_MAX);          /* 2^64 - 1, the largest */
    OK("16777215T", UINT64_C(18446742974197923840)); /* (2^24-1)*2^40 = 2^64-2^40 */
    OK("17179869183G", UINT64_C(18446744072635809792)); /* (2^34-1)*2^30 = 2^64-2^30 */

    REFUSED("");                     /* nothing at all */
    REFUSED("1X");                   /* unknown suffix */
    REFUSED("-5");                   /* sign */
    REFUSED("+5");                   /* sign */
    REFUSED("abc");                  /* not a number */
    REFUSED("12K3");                 /* garbage after the suffix */
    REFUSED("K");                    /* suffix without a number */
    REFUSED("1KK");                  /* two suffixes */
    REFUSED(" 8");                   /* leading blank */
    REFUSED("8 ");                   /* trailing blank */
    REFUSED("1.5K");                 /* no fractions */
    REFUSED("18446744073709551616"); /* 2^64: one past the max */
    REFUSED("99999999999999999999"); /* 20 nines > 2^64 - 1 */
    REFUSED("16777216T");            /* 2^24 * 2^40 = 2^64 overflows */
    REFUSED("17179869184G");         /* 2^34 * 2^30 = 2^64 overflows */
    REFUSED("17592186044416M");      /* 2^44 * 2^20 = 2^64 overflows */
    REFUSED("18014398509481984K");   /* 2^54 * 2^10 = 2^64 overflows */
}

static void test_range(void)
{
    RANGE(8, 64, 2.0, 0, 8, 16, 32, 64);         /* 8*2^k up to 64 inclusive */
    RANGE(8, 100, 2.0, 0, 8, 16, 32, 64);        /* 128 > 100 stops at 64 */
    RANGE(1, 10, 0.0, 3, 1, 4, 7, 10);           /* 1 + 3k, k = 0..3 */
    RANGE(1, 11, 0.0, 3, 1, 4, 7, 10);           /* 13 > 11 */
    RANGE(0, 10, 0.0, 5, 0, 5, 10);              /* a step may start at 0 */
    RANGE(8, 30, 1.5, 0, 8, 12, 18, 27);         /* 8, 12, 18, 27; 40.5 > 30 */
    RANGE(8, 8, 2.0, 0, 8);                      /* min == max: one size */
    RANGE(8, 15, 2.0, 0, 8);                     /* 16 > 15 */
    RANGE(1, 4, 1.1, 0, 1, 2, 3, 4);             /* floor(1*1.1) = 1 = s: forced +1 */
    RANGE(UINT64_C(1) << 62, UINT64_MAX, 2.0, 0, /* 2^62, 2^63; 2^64 does not fit */
          UINT64_C(1) << 62, UINT64_C(1) << 63);
    RANGE(UINT64_MAX - 1, UINT64_MAX, 0.0, 1,    /* stepping to 2^64-1, then stop */
          UINT64_MAX - 1, UINT64_MAX);

    /* refusals */
    pb_err_t err;
    uint64_t *v;
    size_t n;
    pb_err_clear(&err);
    CHECK(pb_size_range(64, 8, 2.0, 0, &v, &n, &err) == PB_EINPUT); /* min > max */
    CHECK(err.code == PB_EINPUT && strstr(err.msg, "64") && strstr(err.msg, "8"));
    CHECK(v == NULL && n == 0);
    pb_err_clear(&err);
    CHECK(pb_size_range(8, 64, 1.0, 0, &v, &n, &err) == PB_EINPUT); /* factor 1: no progress */
    CHECK(v == NULL);
    pb_err_clear(&err);
    CHECK(pb_size_range(8, 64, 0.5, 0, &v, &n, &err) == PB_EINPUT); /* factor < 1 */
    pb_err_clear(&err);
    CHECK(pb_size_range(0, 64, 2.0, 0, &v, &n, &err) == PB_EINPUT); /* 0 * 2 = 0 forever */
}

static void test_list(void)
{
    pb_err_t err;
    uint64_t *v = NULL;
    size_t n = 0;

    pb_err_clear(&err);
    CHECK(pb_size_list("8,1K,64M", &v, &n, &err) == PB_OK);
    /* 8; 1K = 1024; 64M = 64 * 2^20 = 67108864; order kept */
    static const uint64_t want1[] = {8, 1024, UINT64_C(67108864)};
    CHECK(same_list(v, n, want1, 3));
    free(v);

    pb_err_clear(&err);
    CHECK(pb_size_list("64M,8", &v, &n, &err) == PB_OK); /* given order, not sorted */
    static const uint64_t want2[] = {UINT64_C(67108864), 8};
    CHECK(same_list(v, n, want2, 2));
    free(v);

    pb_err_clear(&err);
    CHECK(pb_size_list("4K", &v, &n, &err) == PB_OK); /* one item: 4 * 1024 = 4096 */
    CHECK(n == 1 && v != NULL && v[0] == 4096);
    free(v);

    pb_err_clear(&err);
    CHECK(pb_size_list("8,,9", &v, &n, &err) == PB_EINPUT); /* empty item */
    CHECK(v == NULL && n == 0 && err.code == PB_EINPUT);
    pb_err_clear(&err);
    CHECK(pb_size_list("8,1Q", &v, &n, &err) == PB_EINPUT); /* bad suffix */
    CHECK(v == NULL && strstr(err.msg, "1Q") != NULL);
    pb_err_clear(&err);
    CHECK(pb_size_list("8,", &v, &n, &err) == PB_EINPUT); /* trailing comma */
    CHECK(v == NULL);
    pb_err_clear(&err);
    CHECK(pb_size_list("", &v, &n, &err) == PB_EINPUT); /* nothing */
    pb_err_clear(&err);
    CHECK(pb_size_list(",8", &v, &n, &err) == PB_EINPUT); /* leading comma */
    pb_err_clear(&err);
    CHECK(pb_size_list("8,18446744073709551616", &v, &n, &err) == PB_EINPUT); /* 2^64 */
    CHECK(v == NULL);
}

static void test_format(void)
{
    FORMAT(65536, "64K");                          /* 65536 = 64 * 1024 */
    FORMAT(1000, "1000");                          /* not a multiple of 1024 */
    FORMAT(1536, "1536");                          /* 1.5K: 1536 % 1024 = 512 */
    FORMAT(UINT64_C(3) << 30, "3G");               /* 3 * 2^30 */
    FORMAT(0, "0");                                /* zero has no unit */
    FORMAT(8, "8");                                /* small */
    FORMAT(1024, "1K");                            /* 2^10 */
    FORMAT(1023, "1023");                          /* just below 1K */
    FORMAT(UINT64_C(5) << 20, "5M");               /* 5 * 2^20 */
    FORMAT(UINT64_C(1536) << 20, "1536M");         /* 1.5G: 1536M, not 1G */
    FORMAT(UINT64_C(1) << 40, "1T");               /* 2^40 */
    FORMAT(UINT64_C(1) << 50, "1024T");            /* T is the largest unit */
    FORMAT(UINT64_MAX, "18446744073709551615");    /* odd: no unit */
}

int main(void)
{
    test_parse();
    test_range();
    test_list();
    test_format();
    PB_TEST_END("unit_size");
}
