/* test_stats.c - util/pb_stats: quantiles (Hyndman & Fan type 7, numpy's
 * default linear interpolation), the distribution-free 95 % confidence
 * interval of the median, and the precision test built on it.
 *
 * Type 7: h = (n - 1) p (0-based), Q = x[floor h] + (h - floor h) *
 * (x[floor h + 1] - x[floor h]).  Median CI: 1-based ranks [j, n + 1 - j]
 * with the largest j whose interval still holds the median with
 * probability >= 0.95, 1 - 2 P(Binomial(n, 1/2) <= j - 1) (Le Boudec,
 * "Performance Evaluation of Computer and Communication Systems", Table
 * A.1), and past n = 70 Theorem 2.1's j = floor(0.5 n - 0.98 sqrt(n)),
 * k = ceil(0.5 n + 1 + 0.98 sqrt(n)) (the same as n/2 -/+ 1.96 sqrt(n)/2 of
 * Campbell & Gardner, "Statistics with Confidence"; Conover, Practical
 * Nonparametric Statistics, 3rd ed., section 3.2). */
#include "util/pb_stats.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "pb_test.h"

static void test_one_to_hundred(void)
{
    double x[100], scratch[100], orig[100];
    /* 1..100 in a scrambled order: 37 is coprime to 100, so i -> 37 i mod
     * 100 is a permutation; +1 makes the values 1..100. */
    for (int i = 0; i < 100; i++)
        x[i] = (double)((37 * i) % 100 + 1);
    CHECK(x[0] == 1.0 && x[1] == 38.0 && x[99] == 64.0); /* really unsorted */
    memcpy(orig, x, sizeof x);

    pb_stats_t s;
    pb_stats_compute(x, 100, scratch, &s);
    CHECK(memcmp(orig, x, sizeof x) == 0); /* input left untouched */
    CHECK(s.n == 100);
    CHECK(s.min == 1.0);
    CHECK(s.max == 100.0);
    CHECK_NEAR(s.mean, 50.5, 1e-12);   /* (1 + 100) / 2 = 50.5 */
    CHECK_NEAR(s.median, 50.5, 1e-12); /* h = 99 * 0.5 = 49.5 -> 50 + 0.5 * (51 - 50) */
    /* p99: h = 99 * 0.99 = 98.01 -> x[98] + 0.01 (x[99] - x[98]) = 99 + 0.01 = 99.01
     * (numpy.percentile(range(1, 101), 99) = 99.01); tolerance for 0.99's
     * binary rounding only */
    CHECK_NEAR(s.p99, 99.01, 1e-9);
    CHECK(s.p99 < 100.0); /* not simply the max */
    /* CI of the median, n = 100: half = 1.96 * sqrt(100) / 2 = 9.8, mid = 50;
     * lower rank floor(50 - 9.8) = 40, upper rank ceil(50 + 9.8) + 1 = 61
     * (Campbell & Gardner: 1 + n/2 + 9.8 = 60.8 -> 61); value at rank k is k */
    CHECK(s.median_lo == 40.0);
    CHECK(s.median_hi == 61.0);

    /* pb_median_ci95_of directly on the sorted data */
    double sorted[100], lo = -1, hi = -1;
    for (int i = 0; i < 100; i++)
        sorted[i] = (double)(i + 1);
    CHECK(pb_median_ci95_of(sorted, 100, &lo, &hi) == 1);
    CHECK(lo == 40.0 && hi == 61.0);

    /* quantiles directly: p = 0 -> min, p = 1 -> max, p = 0.25 -> h = 24.75
     * -> 25 + 0.75 * 1 = 25.75 (numpy: 25.75) */
    CHECK(pb_quantile_sorted(sorted, 100, 0.0) == 1.0);
    CHECK(pb_quantile_sorted(sorted, 100, 1.0) == 100.0);
    CHECK_NEAR(pb_quantile_sorted(sorted, 100, 0.25), 25.75, 1e-12);
    CHECK_NEAR(pb_quantile_sorted(sorted, 100, 0.75), 75.25, 1e-12); /* h = 74.25 */
}

static void test_small(void)
{
    double scratch[8];
    pb_stats_t s;

    /* {3, 1, 2}: sorted 1 2 3, h = 2 * 0.5 = 1 -> x[1] = 2 */
    static const double three[] = {3.0, 1.0, 2.0};
    pb_stats_compute(three, 3, scratch, &s);
    CHECK(s.n == 3);
    CHECK(s.median == 2.0);
    CHECK(s.min == 1.0 && s.max == 3.0);
    CHECK_NEAR(s.mean, 2.0, 1e-15); /* 6 / 3 */
    /* p99: h = 2 * 0.99 = 1.98 -> 2 + 0.98 * (3 - 2) = 2.98 */
    CHECK_NEAR(s.p99, 2.98, 1e-12);
    /* n < 6: the CI is the whole range */
    CHECK(s.median_lo == 1.0 && s.median_hi == 3.0);

    /* {4, 1, 3, 2}: even n, median between the middle two: h = 1.5 -> 2.5 */
    static const double four[] = {4.0, 1.0, 3.0, 2.0};
    pb_stats_compute(four, 4, scratch, &s);
    CHECK_NEAR(s.median, 2.5, 1e-15);
    CHECK(s.median_lo == 1.0 && s.median_hi == 4.0);

    /* one sample: everything is that sample */
    static const double one[] = {7.25};
    pb_stats_compute(one, 1, scratch, &s);
    CHECK(s.n == 1);
    CHECK(s.min == 7.25 && s.max == 7.25 && s.median == 7.25 && s.p99 == 7.25);
    CHECK(s.mean == 7.25);
    CHECK(s.median_lo == 7.25 && s.median_hi == 7.25);
    CHECK(!pb_stats_precise(&s, 0.5)); /* too few samples to claim anything */

    /* five samples (n < 6): full range */
    static const double five[] = {50, 10, 40, 20, 30};
    double lo, hi;
    pb_stats_compute(five, 5, scratch, &s);
    CHECK(s.median == 30.0); /* h = 4 * 0.5 = 2 -> x[2] = 30 */
    CHECK(s.median_lo == 10.0 && s.median_hi == 50.0);
    static const double five_sorted[] = {10, 20, 30, 40, 50};
    CHECK(pb_median_ci95_of(five_sorted, 5, &lo, &hi) == 0); /* no 95 % interval */
    CHECK(lo == 10.0 && hi == 50.0);
}

static void test_ci_ranks(void)
{
    double x[400];
    for (int i = 0; i < 400; i++)
        x[i] = (double)(i + 1); /* value = 1-based rank */
    double lo, hi;

    /* n = 400 (above the exact table: Le Boudec's rule): 0.98 sqrt(400)
     * = 19.6: floor(200 - 19.6) = 180, ceil(201 + 19.6) = 221 (Campbell &
     * Gardner: 180.4 -> 180, 220.6 -> 221) */
    CHECK(pb_median_ci95_of(x, 400, &lo, &hi) == 1);
    CHECK(lo == 180.0 && hi == 221.0);

    /* n = 36 (the exact rule): P(Bin(36, 1/2) <= 11) = 0.0144 <= 0.025 <
     * P(<= 12) = 0.0326, so j = 12 and k = 36 + 1 - 12 = 25 */
    CHECK(pb_median_ci95_of(x, 36, &lo, &hi) == 1);
    CHECK(lo == 12.0 && hi == 25.0);

    /* n = 6, the smallest with an interval: P(Bin(6, 1/2) <= 0) = 1/64
     * = 0.0156 <= 0.025 < P(<= 1) = 7/64, so j = 1, k = 6: the full range */
    CHECK(pb_median_ci95_of(x, 6, &lo, &hi) == 1);
    CHECK(lo == 1.0 && hi == 6.0);
}

/* The ranks against the table, worked by hand: [j, n + 1 - j] covers the
 * median with probability 1 - 2 sum_{i < j} C(n, i) / 2^n, and j is the
 * largest with that >= 0.95.  The same intervals and levels are printed
 * in the exact tables of the median's interval (Le Boudec's Table A.1;
 * Hayter, "Probability and Statistics for Engineers and Scientists",
 * Table A.7: "6 [x(1), x(6)] 96.9 %", "10 [x(2), x(9)] 97.9 %", "20 [x(6),
 * x(15)] 95.9 %"). */
static void test_table(void)
{
    static const struct {
        size_t n, j, k;
    } want[] = {
        /* j = 1: 1 - 2 / 64 = 0.969; j = 2 would give 1 - 2 (1 + 6) / 64 = 0.781 */
        {6, 1, 6},
        /* 1 - 2 / 128 = 0.984; j = 2: 1 - 2 x 8 / 128 = 0.875 */
        {7, 1, 7},
        /* 1 - 2 / 256 = 0.992; j = 2: 1 - 2 x 9 / 256 = 0.930 */
        {8, 1, 8},
        /* j = 2: 1 - 2 x 10 / 512 = 0.961; j = 3: 1 - 2 x 46 / 512 = 0.820 */
        {9, 2, 8},
        /* j = 2: 1 - 2 (1 + 10) / 1024 = 0.979; j = 3: 1 - 2 x 56 / 1024 = 0.891
         * (the formula alone would give floor(5 - 3.099) = 1, ceil(9.099) = 10) */
        {10, 2, 9},
        /* j = 3: 1 - 2 (1 + 12 + 66) / 4096 = 0.961; j = 4: 1 - 2 x 299 / 4096 = 0.854 */
        {12, 3, 10},
        /* j = 6: 1 - 2 (1 + 20 + 190 + 1140 + 4845 + 15504) / 2^20 = 1 - 2 x
         * 21700 / 1048576 = 0.959; j = 7: 1 - 2 x 60460 / 1048576 = 0.885 */
        {20, 6, 15},
        /* n = 71, the first past the table: floor(35.5 - 0.98 x 8.4261) =
         * floor(27.24) = 27, ceil(36.5 + 8.2576) = ceil(44.76) = 45 */
        {71, 27, 45},
        /* floor(50 - 9.8) = 40, ceil(51 + 9.8) = 61 (exact sums give the same) */
        {100, 40, 61},
        /* floor(200 - 19.6) = 180, ceil(201 + 19.6) = 221 */
        {400, 180, 221},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        size_t j = 0, k = 0;
        CHECK(pb_median_ci95_ranks(want[i].n, &j, &k) == 1);
        if (j != want[i].j || k != want[i].k) {
            fprintf(stderr, "n = %zu: ranks %zu..%zu, want %zu..%zu\n", want[i].n, j, k,
                    want[i].j, want[i].k);
            CHECK(0);
        }
    }
    /* n <= 5: no 95 % interval: the whole range misses the median with
     * probability 2 / 2^n >= 2 / 32 = 0.0625 > 0.05; the flag says so */
    for (size_t n = 1; n <= 5; n++) {
        size_t j = 0, k = 0;
        CHECK(pb_median_ci95_ranks(n, &j, &k) == 0);
        CHECK(j == 1 && k == n);
    }
    /* on data, and through pb_stats_compute: 1..10 -> 2 and 9 */
    double x[10], scratch[10], lo = 0.0, hi = 0.0;
    for (int i = 0; i < 10; i++)
        x[i] = (double)(i + 1);
    CHECK(pb_median_ci95_of(x, 10, &lo, &hi) == 1 && lo == 2.0 && hi == 9.0);
    pb_stats_t s;
    pb_stats_compute(x, 10, scratch, &s);
    CHECK(s.median_lo == 2.0 && s.median_hi == 9.0);
    /* five: no interval, the whole range to show */
    CHECK(pb_median_ci95_of(x, 5, &lo, &hi) == 0 && lo == 1.0 && hi == 5.0);
}

static void test_precise(void)
{
    double x[10], scratch[10];
    pb_stats_t s;

    /* constant samples: CI half-width 0 <= 0.02 * 5 */
    for (int i = 0; i < 10; i++)
        x[i] = 5.0;
    pb_stats_compute(x, 10, scratch, &s);
    CHECK(s.median == 5.0 && s.median_lo == 5.0 && s.median_hi == 5.0);
    CHECK(pb_stats_precise(&s, 0.02));

    /* alternating 1, 100: sorted five 1s then five 100s; median h = 4.5 ->
     * 1 + 0.5 * 99 = 50.5; n = 10: ranks 2 and 9 (test_table) -> [1, 100],
     * half-width 49.5 > 0.02 * 50.5 = 1.01 */
    for (int i = 0; i < 10; i++)
        x[i] = (i % 2) ? 100.0 : 1.0;
    pb_stats_compute(x, 10, scratch, &s);
    CHECK_NEAR(s.median, 50.5, 1e-12);
    CHECK(s.median_lo == 1.0 && s.median_hi == 100.0);
    CHECK(!pb_stats_precise(&s, 0.02));
    CHECK(pb_stats_precise(&s, 1.0)); /* 49.5 <= 1.0 * 50.5 */

    /* 100 samples 1000 + (i mod 5): median 1002, n = 100 ranks 40 and 61:
     * sorted has twenty of each of 1000..1004, rank 40 -> 1001, rank 61 ->
     * 1003; half-width 1 <= 0.001 * 1002 = 1.002 but > 0.0009 * 1002 */
    double y[100], sy[100];
    for (int i = 0; i < 100; i++)
        y[i] = 1000.0 + (double)(i % 5);
    pb_stats_compute(y, 100, sy, &s);
    CHECK(s.median == 1002.0);
    CHECK(s.median_lo == 1001.0 && s.median_hi == 1003.0);
    CHECK(pb_stats_precise(&s, 0.001));
    CHECK(!pb_stats_precise(&s, 0.0009));

    /* five constant samples: n < 6 is never precise */
    for (int i = 0; i < 5; i++)
        x[i] = 5.0;
    pb_stats_compute(x, 5, scratch, &s);
    CHECK(!pb_stats_precise(&s, 0.02));
}

int main(void)
{
    test_one_to_hundred();
    test_small();
    test_ci_ranks();
    test_table();
    test_precise();
    PB_TEST_END("unit_stats");
}
