#include "pb_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void pb_stats_sort(double *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_double);
}

double pb_quantile_sorted(const double *sorted, size_t n, double p)
{
    if (n == 0)
        return 0.0;
    if (p <= 0.0)
        return sorted[0];
    if (p >= 1.0)
        return sorted[n - 1];
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)floor(h);
    double frac = h - (double)lo;
    if (lo + 1 >= n)
        return sorted[n - 1];
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

void pb_median_ci95(const double *sorted, size_t n, double *lo, double *hi)
{
    if (n == 0) {
        *lo = *hi = 0.0;
        return;
    }
    if (n < 6) {
        *lo = sorted[0];
        *hi = sorted[n - 1];
        return;
    }
    double half = 1.96 * sqrt((double)n) / 2.0;
    double mid = (double)n / 2.0;
    /* 1-based ranks j = floor(mid - half), k = ceil(mid + half) + 1 */
    long j = (long)floor(mid - half);
    long k = (long)ceil(mid + half) + 1;
    if (j < 1)
        j = 1;
    if (k > (long)n)
        k = (long)n;
    *lo = sorted[j - 1];
    *hi = sorted[k - 1];
}

void pb_stats_compute(const double *samples, size_t n, double *scratch, pb_stats_t *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n == 0)
        return;
    memcpy(scratch, samples, n * sizeof *scratch);
    pb_stats_sort(scratch, n);
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += scratch[i];
    out->min = scratch[0];
    out->max = scratch[n - 1];
    out->mean = sum / (double)n;
    out->median = pb_quantile_sorted(scratch, n, 0.5);
    out->p99 = pb_quantile_sorted(scratch, n, 0.99);
    pb_median_ci95(scratch, n, &out->median_lo, &out->median_hi);
}

int pb_stats_precise(const pb_stats_t *s, double rel)
{
    if (s->n < 6)
        return 0;
    double half = (s->median_hi - s->median_lo) / 2.0;
    return half <= rel * s->median;
}
