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

/* Le Boudec, "Performance Evaluation of Computer and Communication
 * Systems" (EPFL Press 2010), Theorem 2.1: [X(j), X(k)] holds the median
 * when at least j of the n samples lie below it and at least n + 1 - k
 * above; the count below is Binomial(n, 1/2), so the symmetric interval
 * k = n + 1 - j is a 95 % one when P(B <= j - 1) <= 0.025.  The book's
 * Table A.1 lists the largest such j for small n, computed here exactly up
 * to PB_CI95_EXACT_MAX; past it, Theorem 2.1's normal approximation,
 * which is never narrower than the exact interval (checked for every n up
 * to 1500) and costs no loop over n. */
#define PB_CI95_EXACT_MAX 70
/* the 0.98 of Theorem 2.1: 1.96 / 2, 1.96 the 97.5 % normal quantile */
#define PB_CI95_HALF_Z 0.98

/* The table's j: P(B <= i) summed term by term, P(B = i + 1) = P(B = i)
 * (n - i) / (i + 1); 0 when even j = 1 is too wide a bet (n < 6). */
static size_t exact_lower_rank(size_t n)
{
    double p = ldexp(1.0, -(int)n); /* P(B = 0) = 2^-n */
    double tail = 0.0;
    size_t j = 0;
    for (size_t i = 0; i <= n / 2; i++) {
        tail += p;
        if (tail > 0.025)
            break;
        j = i + 1;
        p = p * (double)(n - i) / (double)(i + 1);
    }
    return j;
}

int pb_median_ci95_ranks(size_t n, size_t *j, size_t *k)
{
    size_t lo = 0, hi = 0;
    if (n <= PB_CI95_EXACT_MAX) {
        lo = exact_lower_rank(n);
        hi = n + 1 - lo;
    } else {
        double half = PB_CI95_HALF_Z * sqrt((double)n);
        lo = (size_t)floor(0.5 * (double)n - half);
        hi = (size_t)ceil(0.5 * (double)n + 1.0 + half);
    }
    if (lo < 1 || hi > n) {
        /* no 95 % interval: the whole range, for callers that show one */
        *j = 1;
        *k = n;
        return 0;
    }
    *j = lo;
    *k = hi;
    return 1;
}

int pb_median_ci95_of(const double *sorted, size_t n, double *lo, double *hi)
{
    if (n == 0) {
        *lo = *hi = 0.0;
        return 0;
    }
    size_t j = 1, k = n;
    int ok = pb_median_ci95_ranks(n, &j, &k);
    *lo = sorted[j - 1];
    *hi = sorted[k - 1];
    return ok;
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
    pb_median_ci95_of(scratch, n, &out->median_lo, &out->median_hi);
}

int pb_stats_precise(const pb_stats_t *s, double rel)
{
    if (s->n < 6)
        return 0;
    double half = (s->median_hi - s->median_lo) / 2.0;
    return half <= rel * s->median;
}
