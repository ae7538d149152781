/* compare's noise rule (reports/pb_compare.h): each row's estimated 95 %
 * interval of its median, the verdict on a pair, and the summary line.
 *
 * Every expected number is worked by hand from the rule (Le Boudec,
 * "Performance Evaluation of Computer and Communication Systems", Theorem
 * 2.1: ranks floor(0.5 n - 0.98 sqrt(n)) and ceil(0.5 n + 1 + 0.98
 * sqrt(n)); for n <= 70 his Table A.1's exact ranks, util/pb_stats.h):
 *   n = 100 (latency rows): 0.98 sqrt(100) = 9.8, ranks floor(50 - 9.8) =
 *   40 and ceil(51 + 9.8) = 61, at positions 39/99 and 60/99; on the line
 *   through (0, min), (0.5, median), (0.99, p99), (1, max) they sit
 *   a = (0.5 - 39/99) / 0.5 = 10.5/49.5 of the way from the median down to
 *   min and b = (60/99 - 0.5) / 0.49 = 10.5/48.51 of the way from the
 *   median up to p99.
 * The fixtures (tests/fixtures/compare/noise_*.csv) are four allreduce rows
 * of 100 iterations, the median 100 us except B's 10 us:
 *   A 1 MiB   98/100/102/105 -> 108/110/112/115   +10 %, tight
 *   B 8 B     6/10/16/20     -> 6.6/11/17.6/22    +10 %, wide
 *   C 64 KiB  98/100/102/105 -> 88/90/92/95       -10 %, tight
 *   D 4 KiB   100 x 4        -> 110 x 4           +10 %, no spread
 * A: base hi = 100 + 2b = 100.433, new lo = 110 - 2a = 109.576: apart,
 * regressed.  B: base hi = 10 + 6b = 11.299, new lo = 11 - 4.4a = 10.067:
 * they overlap, within noise.  C: new hi = 90 + 2b = 90.433 < base lo =
 * 100 - 2a = 99.576: improved.  D: zero-width intervals, 110 > 100: the
 * threshold alone decides, regressed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_test.h"
#include "reports/pb_compare.h"
#include "reports/pb_csv.h"

#define A_FRAC (10.5 / 49.5)
#define B_FRAC (10.5 / 48.51)

static pb_result_t row(const char *mode, uint64_t iters, double mn, double med, double p99,
                       double mx)
{
    pb_result_t r;
    memset(&r, 0, sizeof r);
    snprintf(r.mode, sizeof r.mode, "%s", mode);
    r.iters = iters;
    r.time_us_min = mn;
    r.time_us_median = med;
    r.time_us_p99 = p99;
    r.time_us_max = mx;
    return r;
}

/* A band that is the row's whole range, min to max. */
static void whole_range(pb_result_t r)
{
    double lo = 0.0, hi = 0.0;
    pb_compare_band(&r, &lo, &hi);
    CHECK_NEAR(lo, r.time_us_min, 1e-12);
    CHECK_NEAR(hi, r.time_us_max, 1e-12);
}

static void check_bands(void)
{
    double lo, hi;
    pb_result_t r = row("latency", 100, 98, 100, 102, 105);
    pb_compare_band(&r, &lo, &hi);
    CHECK_NEAR(lo, 100.0 - 2.0 * A_FRAC, 1e-12); /* 99.5758 */
    CHECK_NEAR(hi, 100.0 + 2.0 * B_FRAC, 1e-12); /* 100.4329 */
    /* n = 10: the table's ranks 2 and 9 (1 - 2 (1 + 10) / 2^10 = 0.979 >=
     * 0.95; ranks 3 and 8 give 0.891), positions 1/9 and 8/9: lo = 90 + 10
     * x (1/9) / 0.5 = 92.222, hi = 100 + 10 x (8/9 - 0.5) / 0.49 = 107.937
     * (the formula alone would say ranks 1 and 10: the whole range) */
    r = row("latency", 10, 90, 100, 110, 120);
    pb_compare_band(&r, &lo, &hi);
    CHECK_NEAR(lo, 90.0 + 10.0 * (2.0 / 9.0), 1e-12);
    CHECK_NEAR(hi, 100.0 + 10.0 * ((8.0 / 9.0 - 0.5) / 0.49), 1e-12);
    /* n = 20: ranks 6 and 15 (1 - 2 x 21700 / 2^20 = 0.959), positions 5/19
     * and 14/19: lo = 90 + 10 x (5/19) / 0.5, hi = 100 + 10 x (14/19 - 0.5)
     * / 0.49 */
    r = row("latency", 20, 90, 100, 110, 120);
    pb_compare_band(&r, &lo, &hi);
    CHECK_NEAR(lo, 90.0 + 10.0 * (10.0 / 19.0), 1e-12);
    CHECK_NEAR(hi, 100.0 + 10.0 * ((14.0 / 19.0 - 0.5) / 0.49), 1e-12);
    /* n = 6: ranks 1 and 6 (1 - 2 / 64 = 0.969): the whole range */
    whole_range(row("latency", 6, 95, 100, 110, 112));
    /* n = 5: no 95 % interval exists (2 / 32 > 0.05): the whole range */
    whole_range(row("latency", 5, 95, 100, 110, 112));
    /* throughput: a sample times a batch, n unknown: the whole range */
    whole_range(row("throughput", 100, 98, 100, 102, 105));
    /* no iteration count: the whole range */
    whole_range(row("latency", 0, 98, 100, 102, 105));
    /* no spread (an imported log): no noise */
    r = row("throughput", 20, 50, 50, 50, 50);
    pb_compare_band(&r, &lo, &hi);
    CHECK(lo == 50.0 && hi == 50.0);
    /* quantiles out of order (a hand-made file): still around the median */
    r = row("latency", 100, 120, 100, 90, 80);
    pb_compare_band(&r, &lo, &hi);
    CHECK(lo <= 100.0 && hi >= 100.0);
}

/* Without spread the rule is the threshold alone, whatever the change. */
static void check_flat_is_threshold(void)
{
    const double t[] = {0.0, 0.05, 0.2};
    const double g[] = {0.5, 0.9, 0.95, 0.96, 1.0, 1.04, 1.05, 1.06, 1.1, 1.3, 2.0};
    pb_result_t a = row("latency", 100, 100, 100, 100, 100);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        for (size_t j = 0; j < sizeof g / sizeof g[0]; j++) {
            double v = 100.0 * g[j], d1, d2;
            pb_result_t b = row("latency", 100, v, v, v, v);
            pb_compare_rule_t noisy = {t[i], 0}, plain = {t[i], 1};
            pb_compare_verdict_t x = pb_compare_verdict(&a, &b, &noisy, &d1);
            CHECK(x == pb_compare_verdict(&a, &b, &plain, &d2));
            CHECK(x != PB_CMP_NOISE);
            CHECK(d1 == d2);
        }
    }
}

static int read_rows(const char *name, pb_result_t **rows, size_t *n)
{
    char path[512];
    pb_err_t err;
    pb_err_clear(&err);
    snprintf(path, sizeof path, "%s/tests/fixtures/compare/%s", PB_SOURCE_DIR, name);
    int rc = pb_csv_read(path, rows, n, &err);
    if (rc != PB_OK)
        fprintf(stderr, "%s\n", err.msg);
    return rc;
}

/* The fixtures' rows are in the same order in every file: A, B, C, D. */
static void check_fixture_verdicts(void)
{
    pb_result_t *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    CHECK(read_rows("noise_base.csv", &a, &na) == PB_OK);
    CHECK(read_rows("noise_new.csv", &b, &nb) == PB_OK);
    CHECK(na == 4 && nb == 4);
    if (na == 4 && nb == 4) {
        const pb_compare_verdict_t want[] = {PB_CMP_REGRESSED, PB_CMP_NOISE, PB_CMP_IMPROVED,
                                             PB_CMP_REGRESSED};
        const pb_compare_verdict_t plain[] = {PB_CMP_REGRESSED, PB_CMP_REGRESSED,
                                              PB_CMP_IMPROVED, PB_CMP_REGRESSED};
        pb_compare_rule_t rule = {0.05, 0}, ignore = {0.05, 1};
        for (int i = 0; i < 4; i++) {
            double d;
            CHECK(pb_compare_verdict(&a[i], &b[i], &rule, &d) == want[i]);
            CHECK_NEAR(d, i == 2 ? -0.1 : 0.1, 1e-12);
            CHECK(pb_compare_verdict(&a[i], &b[i], &ignore, &d) == plain[i]);
        }
        /* at 20 % no change is past the threshold: noise or not */
        pb_compare_rule_t wide = {0.2, 0};
        for (int i = 0; i < 4; i++) {
            double d;
            CHECK(pb_compare_verdict(&a[i], &b[i], &wide, &d) == PB_CMP_SAME);
        }
    }
    free(a);
    free(b);
}

/* The printed table's marks and the summary line, counted by hand above:
 * A and D regressed, C improved, B within noise; and in noise_wide.csv
 * only B changed. */
static void check_summary(const char *new_name, const char *want_line, size_t regressed,
                          size_t noise, double worst)
{
    pb_result_t *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    CHECK(read_rows("noise_base.csv", &a, &na) == PB_OK);
    CHECK(read_rows(new_name, &b, &nb) == PB_OK);
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f == NULL)
        return;
    pb_compare_rule_t rule = {0.05, 0};
    pb_compare_sum_t sum;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_compare_rows(a, na, "B.csv", b, nb, "N.csv", &rule, f, &sum, &err) == PB_OK);
    CHECK(sum.matched == 4 && sum.only_base == 0 && sum.only_new == 0);
    CHECK(sum.regressed == regressed && sum.noise == noise);
    CHECK_NEAR(sum.worst, worst, 1e-12);
    char line[1024], last[1024] = "";
    size_t marked = 0;
    rewind(f);
    while (fgets(line, sizeof line, f) != NULL) {
        marked += strstr(line, "  within noise\n") != NULL;
        snprintf(last, sizeof last, "%s", line);
    }
    fclose(f);
    CHECK(marked == noise);
    if (strcmp(last, want_line) != 0) {
        fprintf(stderr, "summary: got   '%s'\n         want  '%s'\n", last, want_line);
        CHECK(0);
    }
    free(a);
    free(b);
}

int main(void)
{
    check_bands();
    check_flat_is_threshold();
    check_fixture_verdicts();
    check_summary("noise_new.csv",
                  "compare: 4 matched, 0 missing (0 only in B.csv, 0 only in N.csv), 2 regressed, "
                  "1 improved, 1 within noise\n",
                  2, 1, 0.1);
    check_summary("noise_wide.csv",
                  "compare: 4 matched, 0 missing (0 only in B.csv, 0 only in N.csv), 0 regressed, "
                  "0 improved, 1 within noise\n",
                  0, 1, 0.0);
    PB_TEST_END("unit_compare_noise");
}
