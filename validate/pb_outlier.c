#include "pb_outlier.h"

#include <math.h>
#include <stdlib.h>

#include "../util/pb_stats.h"

double pb_outlier_median(double *v, size_t n)
{
    pb_stats_sort(v, n);
    return pb_quantile_sorted(v, n, 0.5);
}

/* Pairs ordered by class, so that each class is one run. */
typedef struct by_cls {
    int cls;
    size_t i;
} by_cls_t;

static int cmp_by_cls(const void *x, const void *y)
{
    const by_cls_t *a = x, *b = y;
    if (a->cls != b->cls)
        return (a->cls > b->cls) - (a->cls < b->cls);
    return (a->i > b->i) - (a->i < b->i);
}

/* Element k of the sorted v[0 .. m-1] with element p taken out. */
static double without(const double *v, size_t p, size_t k)
{
    return v[k < p ? k : k + 1];
}

/* The median of the sorted v[0 .. m-1] with one element equal to x taken
 * out (which one does not matter: equal values leave the same list). */
static double median_without(const double *v, size_t m, double x)
{
    size_t lo = 0, hi = m; /* the first position holding x */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n = m - 1;
    if (n == 0)
        return 0.0;
    return n % 2 ? without(v, lo, n / 2)
                 : 0.5 * (without(v, lo, n / 2 - 1) + without(v, lo, n / 2));
}

/* Every pair's ratio in every round: pair i against the median of the
 * other pairs of its class in the same round.  One sort per class and
 * round (O(P log P) a round, not O(P^2)): a validate round at 16,384
 * ranks holds 8,192 pairs.  ratio[i * rounds + r], NAN where the others'
 * median is not above 0 (that round does not vote). */
static void ratios_of(const double *bw, size_t pairs, size_t rounds, const by_cls_t *order,
                      double *sorted, double *ratio, int *peers)
{
    for (size_t s = 0; s < pairs;) {
        size_t e = s;
        while (e < pairs && order[e].cls == order[s].cls)
            e++;
        size_t m = e - s;
        for (size_t k = s; k < e; k++)
            peers[order[k].i] = (int)(m - 1);
        for (size_t r = 0; r < rounds && m > 1; r++) {
            const double *row = bw + r * pairs;
            for (size_t k = 0; k < m; k++)
                sorted[k] = row[order[s + k].i];
            pb_stats_sort(sorted, m);
            for (size_t k = s; k < e; k++) {
                size_t i = order[k].i;
                double ref = median_without(sorted, m, row[i]);
                ratio[i * rounds + r] = ref > 0.0 ? row[i] / ref : NAN;
            }
        }
        s = e;
    }
}

int pb_outlier_judge(const double *bw, size_t pairs, size_t rounds, const int *cls,
                     double min_ratio, pb_outlier_t *out, pb_err_t *err)
{
    if (rounds == 0)
        return pb_err_set(err, PB_EINPUT, "outlier test needs at least one round");
    if (!isfinite(min_ratio) || min_ratio < 0.0)
        return pb_err_set(err, PB_EINPUT, "minimum ratio %g is not a number >= 0", min_ratio);
    for (size_t r = 0; r < rounds; r++)
        for (size_t i = 0; i < pairs; i++) {
            double b = bw[r * pairs + i];
            if (!isfinite(b) || b < 0.0)
                return pb_err_set(err, PB_EINPUT, "bandwidth of pair %zu in round %zu is %g",
                                  i, r, b);
        }
    if (pairs == 0)
        return PB_OK;
    by_cls_t *order = malloc(pairs * sizeof *order);
    double *sorted = malloc(pairs * sizeof *sorted);
    double *ratio = malloc(pairs * rounds * sizeof *ratio);
    int *peers = malloc(pairs * sizeof *peers);
    if (!order || !sorted || !ratio || !peers) {
        free(order);
        free(sorted);
        free(ratio);
        free(peers);
        return pb_err_set(err, PB_ERUNTIME, "out of memory judging %zu pairs", pairs);
    }
    for (size_t i = 0; i < pairs; i++)
        order[i] = (by_cls_t){cls[i], i};
    qsort(order, pairs, sizeof *order, cmp_by_cls);
    for (size_t k = 0; k < pairs * rounds; k++)
        ratio[k] = NAN;
    ratios_of(bw, pairs, rounds, order, sorted, ratio, peers);
    for (size_t i = 0; i < pairs; i++) {
        pb_outlier_t *o = &out[i];
        o->peers = peers[i];
        o->rounds = o->slow_rounds = o->flagged = 0;
        o->ratio = NAN;
        /* the voting rounds' ratios, packed to the front of the pair's row */
        double *v = ratio + i * rounds;
        size_t k = 0;
        for (size_t r = 0; r < rounds && o->peers > 0; r++)
            if (!isnan(v[r]))
                v[k++] = v[r];
        o->rounds = (int)k;
        if (k > 0)
            o->flagged = pb_outlier_majority_below(v, k, min_ratio, &o->ratio, &o->slow_rounds);
    }
    free(order);
    free(sorted);
    free(ratio);
    free(peers);
    return PB_OK;
}

int pb_outlier_majority_below(double *v, size_t k, double min, double *upper_median, int *below)
{
    int n = 0;
    for (size_t i = 0; i < k; i++)
        n += v[i] < min;
    *below = n;
    if (k == 0) {
        *upper_median = NAN;
        return 0;
    }
    /* with n values below min, sorted v[0 .. n-1] are the low ones, so
     * v[k/2] < min exactly when n > k/2, a strict majority */
    pb_stats_sort(v, k);
    *upper_median = v[k / 2];
    return (size_t)n > k / 2;
}
