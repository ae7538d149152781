/* test_outlier.c - model/pb_outlier: validate's decision on made-up
 * bandwidths (GB/s, any unit would do).
 *
 * The rule under test: per round, ratio = the pair's bandwidth / the
 * median of the OTHER pairs of its class in that round; flagged when the
 * ratio is below min_ratio in a strict majority of the rounds that voted;
 * the reported ratio is the upper median of the per-round ratios (sorted
 * element floor(k/2) of k).  Every expected value below is worked out by
 * hand from the numbers beside it. */
#include "validate/pb_outlier.h"

#include <math.h>
#include <stddef.h>

#include "pb_test.h"

#define MIN_RATIO 0.8 /* validate's default --min-ratio */

/* One pair slow in every round is flagged; its healthy classmates are
 * not, although their reference includes the slow pair. */
static void test_consistently_slow(void)
{
    const double bw[3 * 4] = {
        10, 12, 11, 2.0,  /* round 0 */
        11, 10, 12, 3.0,  /* round 1 */
        12, 11, 10, 2.4}; /* round 2 */
    const int cls[4] = {0, 0, 0, 0};
    pb_outlier_t o[4];
    pb_err_t err;
    CHECK(pb_outlier_judge(bw, 4, 3, cls, MIN_RATIO, o, &err) == PB_OK);
    /* pair 3: the others are {10,12,11}, {11,10,12}, {12,11,10}, median 11
     * every round: ratios 2/11 = 0.18, 3/11 = 0.27, 2.4/11 = 0.218, all
     * below 0.8: 3 of 3 slow; sorted, element 1 is 2.4/11 */
    CHECK(o[3].peers == 3 && o[3].rounds == 3 && o[3].slow_rounds == 3);
    CHECK(o[3].flagged);
    CHECK_NEAR(o[3].ratio, 2.4 / 11.0, 1e-12);
    /* pair 0: others {12,11,2} -> 11, {10,12,3} -> 10, {11,10,2.4} -> 10:
     * ratios 10/11 = 0.909, 11/10 = 1.1, 12/10 = 1.2: none slow, upper
     * median 1.1.  (The slow pair is one of three others: the median
     * ignores it.) */
    CHECK(o[0].slow_rounds == 0 && !o[0].flagged);
    CHECK_NEAR(o[0].ratio, 1.1, 1e-12);
    /* pair 1: {10,11,2} -> 10: 1.2; {11,12,3} -> 11: 10/11; {12,10,2.4}
     * -> 10: 1.1.  pair 2: {10,12,2} -> 10: 1.1; {11,10,3} -> 10: 1.2;
     * {12,11,2.4} -> 11: 10/11.  Both: sorted {0.909, 1.1, 1.2} -> 1.1 */
    CHECK(!o[1].flagged && !o[2].flagged);
    CHECK_NEAR(o[1].ratio, 1.1, 1e-12);
    CHECK_NEAR(o[2].ratio, 1.1, 1e-12);
}

/* Load from elsewhere hitting one pair in one round (a noisy neighbour,
 * a compile job) must not flag it; a burst slowing a whole round must
 * not flag anyone. */
static void test_one_noisy_round(void)
{
    const double bw[4 * 4] = {
        10, 10, 10, 10,  /* round 0 */
        10, 10, 10, 1,   /* round 1: pair 3 hit once, 10x */
        1, 1, 1, 1,      /* round 2: everything 10x slower */
        10, 10, 10, 10}; /* round 3 */
    const int cls[4] = {0, 0, 0, 0};
    pb_outlier_t o[4];
    pb_err_t err;
    CHECK(pb_outlier_judge(bw, 4, 4, cls, MIN_RATIO, o, &err) == PB_OK);
    /* pair 3: 10/10, 1/10, 1/1, 10/10 -> 1 slow round of 4, not a
     * majority; sorted {0.1, 1, 1, 1}, element 2 = 1 */
    CHECK(o[3].rounds == 4 && o[3].slow_rounds == 1 && !o[3].flagged);
    CHECK_NEAR(o[3].ratio, 1.0, 1e-12);
    /* pair 0: round 1's others {10,10,1} -> 10: ratio 1; round 2: 1/1.
     * Every ratio is 1: a slow round compares with its own round only */
    for (int i = 0; i < 3; i++) {
        CHECK(o[i].slow_rounds == 0 && !o[i].flagged);
        CHECK_NEAR(o[i].ratio, 1.0, 1e-12);
    }
}

/* Half the rounds slow is not a strict majority; one more is. */
static void test_majority(void)
{
    /* pair 1 against pair 0 and 2 (both 10, median 10): ratios per round
     * 0.1, 0.2, 1.0, 1.0 -> 2 slow of 4: not flagged; sorted element 2 =
     * 1.0, not below 0.8 either (the printed ratio agrees) */
    const double half[4 * 3] = {10, 1, 10, 10, 2, 10, 10, 10, 10, 10, 10, 10};
    /* 0.1, 0.2, 0.5, 1.0 -> 3 of 4: flagged; sorted element 2 = 0.5 */
    const double most[4 * 3] = {10, 1, 10, 10, 2, 10, 10, 5, 10, 10, 10, 10};
    const int cls[3] = {7, 7, 7};
    pb_outlier_t o[3];
    pb_err_t err;
    CHECK(pb_outlier_judge(half, 3, 4, cls, MIN_RATIO, o, &err) == PB_OK);
    CHECK(o[1].slow_rounds == 2 && o[1].rounds == 4 && !o[1].flagged);
    CHECK_NEAR(o[1].ratio, 1.0, 1e-12);
    CHECK(pb_outlier_judge(most, 3, 4, cls, MIN_RATIO, o, &err) == PB_OK);
    CHECK(o[1].slow_rounds == 3 && o[1].flagged);
    CHECK_NEAR(o[1].ratio, 0.5, 1e-12);
    /* pair 0 in `most`: others {1,10} -> 5.5: 10/5.5 = 1.82; {2,10} -> 6:
     * 1.67; {5,10} -> 7.5: 1.33; {10,10}: 1.  Sorted element 2 = 10/6 */
    CHECK(!o[0].flagged);
    CHECK_NEAR(o[0].ratio, 10.0 / 6.0, 1e-12);
}

/* Pairs are compared within their class only; a pair alone in its class
 * is never flagged; two pairs in a class flag the slower one only. */
static void test_classes(void)
{
    /* class 0 (NVLink-like, 100) and class 1 (PCIe-like, 10), one round,
     * pair 5 at half its class */
    const double bw[6] = {100, 100, 100, 10, 10, 5};
    const int cls[6] = {0, 0, 0, 1, 1, 1};
    pb_outlier_t o[6];
    pb_err_t err;
    CHECK(pb_outlier_judge(bw, 6, 1, cls, MIN_RATIO, o, &err) == PB_OK);
    /* pair 5: others of class 1 {10, 10} -> 10: 0.5 < 0.8: flagged.
     * pair 3: {10, 5} -> 7.5: 10/7.5 = 1.33.  Class 0: 1.  Were the
     * classes mixed, every class-1 pair would be about 0.1 */
    CHECK(o[5].flagged && o[5].peers == 2);
    CHECK_NEAR(o[5].ratio, 0.5, 1e-12);
    CHECK(!o[3].flagged && !o[4].flagged);
    CHECK_NEAR(o[3].ratio, 10.0 / 7.5, 1e-12);
    for (int i = 0; i < 3; i++)
        CHECK(!o[i].flagged && o[i].ratio == 1.0);

    /* alone: pair 2 has class 9 only, and however slow, it is not judged */
    const double alone[2 * 3] = {10, 10, 0.001, 10, 10, 0.001};
    const int acls[3] = {1, 1, 9};
    CHECK(pb_outlier_judge(alone, 3, 2, acls, MIN_RATIO, o, &err) == PB_OK);
    CHECK(o[2].peers == 0 && o[2].rounds == 0 && !o[2].flagged && isnan(o[2].ratio));
    CHECK(o[0].peers == 1 && !o[0].flagged && o[0].ratio == 1.0);

    /* two pairs: each compared with the other, ratios r and 1/r.  Pair 1
     * against pair 0: 2/10 = 0.2, 2.5/10 = 0.25, 12/10 = 1.2 -> 2 of 3
     * slow: flagged, sorted element 1 = 0.25.  Pair 0: 5, 4, 10/12 =
     * 0.833 (not below 0.8) -> never slow, element 1 = 4 */
    const double two[3 * 2] = {10, 2, 10, 2.5, 10, 12};
    const int tcls[2] = {3, 3};
    CHECK(pb_outlier_judge(two, 2, 3, tcls, MIN_RATIO, o, &err) == PB_OK);
    CHECK(o[1].flagged && o[1].slow_rounds == 2);
    CHECK_NEAR(o[1].ratio, 0.25, 1e-12);
    CHECK(!o[0].flagged && o[0].slow_rounds == 0);
    CHECK_NEAR(o[0].ratio, 4.0, 1e-12);
}

/* Zero bandwidth: slow against a positive reference; no vote where the
 * reference itself is 0.  Bad numbers are refused. */
static void test_zero_and_bad(void)
{
    const double bw[3] = {0, 0, 5};
    const int cls[3] = {0, 0, 0};
    pb_outlier_t o[3];
    pb_err_t err;
    CHECK(pb_outlier_judge(bw, 3, 1, cls, MIN_RATIO, o, &err) == PB_OK);
    /* pairs 0 and 1: others {0, 5} -> 2.5: ratio 0, slow, flagged.
     * pair 2: others {0, 0} -> 0: no comparison, no vote, not flagged */
    CHECK(o[0].flagged && o[0].ratio == 0.0 && o[1].flagged);
    CHECK(o[2].rounds == 0 && !o[2].flagged && isnan(o[2].ratio));

    const double neg[2] = {1, -1}, nan2[2] = {1, NAN}, inf2[2] = {1, INFINITY};
    CHECK(pb_outlier_judge(neg, 2, 1, cls, MIN_RATIO, o, &err) == PB_EINPUT);
    CHECK(pb_outlier_judge(nan2, 2, 1, cls, MIN_RATIO, o, &err) == PB_EINPUT);
    CHECK(pb_outlier_judge(inf2, 2, 1, cls, MIN_RATIO, o, &err) == PB_EINPUT);
    CHECK(pb_outlier_judge(bw, 3, 0, cls, MIN_RATIO, o, &err) == PB_EINPUT);
    CHECK(pb_outlier_judge(bw, 3, 1, cls, -0.5, o, &err) == PB_EINPUT);
    CHECK(pb_outlier_judge(bw, 0, 1, cls, MIN_RATIO, o, &err) == PB_OK); /* nothing to judge */
}

static void test_median(void)
{
    double odd[3] = {3, 1, 2}, even[4] = {4, 1, 3, 2};
    CHECK(pb_outlier_median(odd, 3) == 2.0);  /* sorted 1 2 3 */
    CHECK(pb_outlier_median(even, 4) == 2.5); /* sorted 1 2 3 4: (2 + 3) / 2 */
    CHECK(pb_outlier_median(odd, 0) == 0.0);
}

int main(void)
{
    test_consistently_slow();
    test_one_noisy_round();
    test_majority();
    test_classes();
    test_zero_and_bad();
    test_median();
    PB_TEST_END("unit_outlier");
}
