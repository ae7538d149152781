/* test_tune_verdict.c - tune/pb_tverdict: the paired-ratio verdict on
 * made-up times.  With n = 12 pairs the interval of the median is the
 * sorted ratios of ranks j = floor(6 - 1.96 sqrt(12) / 2) = floor(2.605)
 * = 2 and k = ceil(6 + 3.395) + 1 = 11 (util/pb_stats.h), i.e. elements
 * [1] and [10]; the median of 12 is the mean of elements [5] and [6]. */
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
    CHECK_NEAR(v.lo, 0.79, 1e-12);
    CHECK_NEAR(v.hi, 0.85, 1e-12);
    CHECK(v.v == PB_TV_FASTER && v.n == 12);
    CHECK(strcmp(pb_tv_name(v.v), "faster") == 0);
}

static void test_noise_and_slower(void)
{
    const double noise[12] = {90, 95, 97, 98, 99, 100, 100, 101, 102, 103, 105, 110};
    const double slow[12] = {120, 121, 122, 119, 125, 130, 118, 121, 123, 122, 124, 150};
    pb_tverdict_t v;
    judge(noise, 12, &v);
    CHECK_NEAR(v.lo, 0.95, 1e-12);
    CHECK_NEAR(v.hi, 1.05, 1e-12);
    CHECK(v.v == PB_TV_SAME && strcmp(pb_tv_name(v.v), "no change") == 0);
    judge(slow, 12, &v);
    /* sorted 118 119 120 121 121 122 122 123 124 125 130 150: [1] = 1.19 */
    CHECK_NEAR(v.lo, 1.19, 1e-12);
    CHECK(v.v == PB_TV_SLOWER);
}

/* Fewer than 6 pairs: the interval is the whole range, so a gain needs
 * every pair to agree */
static void test_few(void)
{
    const double mixed[5] = {80, 85, 90, 101, 88};
    const double all[5] = {80, 85, 90, 95, 88};
    pb_tverdict_t v;
    judge(mixed, 5, &v);
    CHECK_NEAR(v.lo, 0.80, 1e-12);
    CHECK_NEAR(v.hi, 1.01, 1e-12);
    CHECK(v.v == PB_TV_SAME);
    judge(all, 5, &v);
    CHECK(v.v == PB_TV_FASTER && v.hi == 0.95);
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
