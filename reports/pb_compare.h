/* pb_compare.h - two result files, row by row: the gate a CI job or a
 * pre-flight script runs before a big training job.
 *
 * Rows match on (pattern, collective, group, group_size, bytes, dtype,
 * backend, world) and also on (in_place, mode, redop): one sweep measures
 * every size out of place and in place, in latency and throughput mode,
 * and for each reduction, and those are different measurements of the same
 * eight fields; matching without them would compare an in-place time with
 * an out-of-place one.  A key repeated inside one file (appended runs)
 * takes its last row, the newest.
 *
 * The rule.  A median measured from a few noisy samples moves by chance,
 * so a change past the threshold is a regression only when the noise of
 * the two rows cannot explain it.  Hoefler & Belli, "Scientific
 * Benchmarking of Parallel Computing Systems" (SC'15,
 * https://htor.inf.ethz.ch/publications/img/hoefler-scientific-benchmarking.pdf,
 * doi 10.1145/2807591.2807644), section 3.2 and Rule 7: compare
 * nondeterministic data with non-overlapping confidence intervals; "if
 * 1-alpha confidence intervals do not overlap, then one can be 1-alpha
 * confident that there is a statistically significant difference. The
 * converse is not true".  Their section 3.1.3 gives the distribution-free
 * 95 % interval of the median after Le Boudec; the ranks are the one rule
 * of util/pb_stats.h (pb_median_ci95_ranks: Le Boudec's Table A.1 for
 * n <= 70, floor(0.5 n - 0.98 sqrt(n)) to ceil(0.5 n + 1 + 0.98 sqrt(n))
 * beyond; none below 6 samples).
 *
 * A row holds no samples, only n and the quantiles 0 (min), 0.5 (median),
 * 0.99 (p99) and 1 (max), so the two ranks are read off the line through
 * those points at their positions (rank - 1) / (n - 1) (the same quantile
 * rule that gave min, median and p99: util/pb_stats.h).  n is the row's
 * iters in latency mode, where one sample times one operation; in
 * throughput and graph mode a sample times a batch of operations, the file
 * does not say how many samples there were, and the interval is then the
 * whole range [min, max], which holds the median's interval for any n.
 *
 * Then, with d = (new_median - base_median) / base_median:
 *   regressed     d >  threshold and new's interval lies above base's
 *   improved      d < -threshold and new's interval lies below base's
 *   within noise  |d| > threshold but the intervals overlap
 * ("above" is new_lo > base_hi: the growth exceeds the two rows' noise,
 * (base_hi - base_median) + (new_median - new_lo).)  Why it is
 * conservative, i.e. flags fewer rows than a test at the same level:
 * non-overlap of two 95 % intervals is a stricter test than a 95 % test of
 * the difference (the converse above); the line through min, median and
 * p99 is steeper near the median than the quantile function of a normal
 * spread or of a right-skewed one (the paper: timings are "heavily skewed
 * to the right"), and matches a uniform one, so the bands come out wider
 * than the exact intervals (simulated, 300 draws of n = 100: the two
 * half-intervals together were 1.0x the exact ones' width for a uniform
 * spread, 2.0x normal, 1.9x lognormal, 2.1x a shifted exponential; one
 * side alone can be narrower: 0.8x on the fast side of the exponential,
 * and with two modes and only 20 samples both together came out at 0.65x:
 * few samples of a bimodal spread are judged a little too readily);
 * and where n is unknown the band is the whole range.  A row without
 * spread (min = median = p99 = max, e.g. an imported log) has a zero-width
 * interval: the rule is then the threshold alone, as is --ignore-noise. */
#ifndef PB_COMPARE_H
#define PB_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "pb_result.h"
#include "../util/pb_err.h"

typedef enum pb_compare_verdict {
    PB_CMP_SAME,      /* within the threshold */
    PB_CMP_REGRESSED, /* slower past the threshold and past the noise */
    PB_CMP_IMPROVED,  /* faster past the threshold and past the noise */
    PB_CMP_NOISE      /* past the threshold, but the intervals overlap */
} pb_compare_verdict_t;

typedef struct pb_compare_rule {
    double threshold; /* a fraction: 0.05 is 5 % */
    int ignore_noise; /* --ignore-noise: the threshold alone */
} pb_compare_rule_t;

typedef struct pb_compare_sum {
    size_t matched, regressed, improved, noise, only_base, only_new;
    double worst; /* largest relative time growth among regressed rows */
} pb_compare_sum_t;

/* The estimated 95 % interval of r's median (the rule above): *lo <=
 * median <= *hi. */
void pb_compare_band(const pb_result_t *r, double *lo, double *hi);

/* The verdict on one matched pair (the rule above); *growth gets d. */
pb_compare_verdict_t pb_compare_verdict(const pb_result_t *base, const pb_result_t *cur,
                                        const pb_compare_rule_t *rule, double *growth);

/* Prints the per-row changes and the rows found on one side only to out
 * (names are the files' names for the headings), then the summary line
 * "compare: N matched, M missing (X only in BASE, Y only in NEW), R
 * regressed, I improved, Q within noise". */
int pb_compare_rows(const pb_result_t *base, size_t nbase, const char *base_name,
                    const pb_result_t *cur, size_t ncur, const char *cur_name,
                    const pb_compare_rule_t *rule, FILE *out, pb_compare_sum_t *sum,
                    pb_err_t *err);

#endif
