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
    /* distribution-free 95 % confidence interval of the median */
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

/* The order statistics bounding a 95 % confidence interval of the median:
 * ranks n/2 -/+ 1.96 sqrt(n)/2 (normal approximation of the binomial),
 * clamped to the data.  Fewer than 6 samples give the full range. */
void pb_median_ci95(const double *sorted, size_t n, double *lo, double *hi);

/* Is the median known to within rel (e.g. 0.02): CI half-width <= rel *
 * median? */
int pb_stats_precise(const pb_stats_t *s, double rel);

#endif
