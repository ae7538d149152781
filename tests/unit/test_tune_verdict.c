/* test_tune_verdict.c - tune/pb_tverdict: the paired-ratio verdict on
 * made-up times.  With n = 12 pairs the 95 % interval of the median is
 * the sorted ratios of ranks j and 13 - j, j the largest rank with
 * P(Bin(12, 1/2) <= j - 1) <= 0.025 (util/pb_stats.h, the exact rule for
 * n <= 70): P(<= 1) = 13/4096 = 0.0032, P(<= 2) = 79/4096 = 0.0193,
 * P(<= 3) = 299/4096 = 0.073, so j = 3, k = 10 (Hayter's Table A.7 gives
 * the same), i.e. elements [2] and [9]; the median of 12 is the mean of
 * elements [5] and [6]. */
#include "tune/pb_tverdict.h"

#include <string.h>

#include "pb_test.h"

static void judge(const double *cand, size_t n, pb_tverdict_t *v)
{
    double def[16], scratch[16];
    pb_err_t err;
    memset(&err, 0, sizeof err);
    for (size_t i = 0; i < n; i++)
        def[i] = 100.0;
    CHECK(pb_tverdict(def, cand, n, scratch, v, &err) == PB_OK);
}

static void test_faster(void)
{
    /* out of order on purpose: the ratios are sorted inside */
    const double cand[12] = {85, 78, 80, 90, 81, 79, 82, 80, 84, 81, 83, 82};
    pb_tverdict_t v;
    judge(cand, 12, &v);
    /* sorted: 78 79 80 80 81 81 82 82 83 84 85 90 (/100) */
    CHECK_NEAR(v.ratio, 0.815, 1e-12);
    CHECK_NEAR(v.lo, 0.80, 1e-12);
    CHECK_NEAR(v.hi, 0.84, 1e-12);
    CHECK(v.v == PB_TV_FASTER && v.n == 12);
    CHECK(strcmp(pb_tv_name(v.v), "faster") == 0);
}

static void test_noise_and_slower(void)
{
    const double noise[12] = {90, 95, 97, 98, 99, 100, 100, 101, 102, 103, 105, 110};
    const double slow[12] = {120, 121, 122, 119, 125, 130, 118, 121, 123, 122, 124, 150};
    pb_tverdict_t v;
    judge(noise, 12, &v);
    CHECK_NEAR(v.lo, 0.97, 1e-12);
    CHECK_NEAR(v.hi, 1.03, 1e-12);
    CHECK(v.v == PB_TV_SAME && strcmp(pb_tv_name(v.v), "no change") == 0);
    judge(slow, 12, &v);
    /* sorted 118 119 120 121 121 122 122 123 124 125 130 150: [2] = 1.20 */
    CHECK_NEAR(v.lo, 1.20, 1e-12);
    CHECK(v.v == PB_TV_SLOWER);
}

/* Fewer than 6 pairs: no 95 % interval of the median exists (2 x 0.5^5
 * = 0.0625 > 0.05, tune/pb_tverdict.h), so even 5 unanimous pairs, or a
 * single one, are "not enough pairs", never faster; 6 unanimous pairs
 * are faster: their whole range [X(1), X(6)] misses the median with
 * probability 2 x 0.5^6 = 0.031 < 0.05. */
static void test_few(void)
{
    const double all[5] = {80, 85, 90, 95, 88};
    const double one[1] = {50};
    const double six[6] = {80, 85, 90, 95, 88, 92};
    pb_tverdict_t v;
    judge(all, 5, &v);
    CHECK(v.v == PB_TV_FEW && v.n == 5);
    CHECK(strcmp(pb_tv_name(v.v), "not enough pairs") == 0);
    /* the median is kept to show: sorted 80 85 88 90 95 -> 88 */
    CHECK_NEAR(v.ratio, 0.88, 1e-12);
    CHECK(v.lo != v.lo && v.hi != v.hi); /* NaN: no interval */
    judge(one, 1, &v);
    CHECK(v.v == PB_TV_FEW && v.n == 1);
    judge(six, 6, &v);
    /* sorted 80 85 88 90 92 95: the interval is the whole range */
    CHECK(v.v == PB_TV_FASTER && v.n == 6);
    CHECK_NEAR(v.lo, 0.80, 1e-12);
    CHECK_NEAR(v.hi, 0.95, 1e-12);
}

static void test_bad(void)
{
    double def[2] = {1.0, 0.0}, cand[2] = {1.0, 1.0}, s[2];
    pb_tverdict_t v;
    pb_err_t err;
    memset(&err, 0, sizeof err);
    CHECK(pb_tverdict(def, cand, 2, s, &v, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "pair 1 has a time that is not positive") != NULL);
    memset(&err, 0, sizeof err);
    CHECK(pb_tverdict(def, cand, 0, s, &v, &err) == PB_EINPUT);
}

int main(void)
{
    test_faster();
    test_noise_and_slower();
    test_few();
    test_bad();
    PB_TEST_END("unit_tune_verdict");
}
