/* pb_stats.h - summary statistics: of timing samples (bench/), of the
 * model's errors (model/pb_band), of implied efficiencies and pair
 * ratios (model/pb_gemm_fit, validate/) - one quantile rule for all.
 *
 * Quantiles interpolate linearly between order statistics (Hyndman & Fan
 * type 7, numpy's default), so p99 of 100 samples is between the 99th and
 * the 100th, not simply the maximum. */
#ifndef PB_STATS_H
#define PB_STATS_H

#include <stddef.h>

typedef struct pb_stats {
    size_t n;
    double min;
    double median;
    double p99;
    double max;
    double mean;
    /* distribution-free 95 % confidence interval of the median
     * (pb_median_ci95_of; below 6 samples none exists and this is the
     * whole range) */
    double median_lo;
    double median_hi;
} pb_stats_t;

/* samples are left untouched; scratch must hold n doubles. */
void pb_stats_compute(const double *samples, size_t n, double *scratch, pb_stats_t *out);

/* Sorts v ascending in place. */
void pb_stats_sort(double *v, size_t n);

/* Quantile p in [0, 1] of sorted data (the median: p = 0.5, the mean of
 * the two middle values for an even count). */
double pb_quantile_sorted(const double *sorted, size_t n, double p);

/* The distribution-free 95 % confidence interval of the median, one rule
 * for every caller (Le Boudec, "Performance Evaluation of Computer and
 * Communication Systems", Theorem 2.1 and Table A.1; pb_stats.c): the
 * 1-based ranks j <= k of the sorted samples, [X(j), X(k)], k = n + 1 - j.
 * Returns 1 when the interval exists, 0 when it does not (n < 6: even the
 * whole range misses the median with probability 2 x 0.5^n > 0.05), with
 * j = 1, k = n then. */
int pb_median_ci95_ranks(size_t n, size_t *j, size_t *k);

/* The same interval's values on sorted data (n = 0: zeros); returns what
 * pb_median_ci95_ranks returns: 0 means lo..hi is the whole range, not a
 * 95 % interval. */
int pb_median_ci95_of(const double *sorted, size_t n, double *lo, double *hi);

/* Is the median known to within rel (e.g. 0.02): CI half-width <= rel *
 * median? */
int pb_stats_precise(const pb_stats_t *s, double rel);

#endif
