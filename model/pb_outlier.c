#include "pb_outlier.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double pb_outlier_median(double *v, size_t n)
{
    if (n == 0)
        return 0.0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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
    /* others: the other pairs' bandwidths of one round; ratios: one pair's
     * ratio per round */
    double *others = malloc(pairs * sizeof *others);
    double *ratios = malloc(rounds * sizeof *ratios);
    if (others == NULL || ratios == NULL) {
        free(others);
        free(ratios);
        return pb_err_set(err, PB_ERUNTIME, "out of memory judging %zu pairs", pairs);
    }
    for (size_t i = 0; i < pairs; i++) {
        pb_outlier_t *o = &out[i];
        o->peers = 0;
        for (size_t j = 0; j < pairs; j++)
            o->peers += j != i && cls[j] == cls[i];
        o->rounds = o->slow_rounds = o->flagged = 0;
        o->ratio = NAN;
        if (o->peers == 0)
            continue;
        size_t k = 0;
        for (size_t r = 0; r < rounds; r++) {
            const double *row = bw + r * pairs;
            size_t m = 0;
            for (size_t j = 0; j < pairs; j++)
                if (j != i && cls[j] == cls[i])
                    others[m++] = row[j];
            double ref = pb_outlier_median(others, m);
            if (!(ref > 0.0))
                continue; /* nothing came through the others: no comparison */
            ratios[k] = row[i] / ref;
            o->slow_rounds += ratios[k] < min_ratio;
            k++;
        }
        o->rounds = (int)k;
        if (k == 0)
            continue;
        qsort(ratios, k, sizeof *ratios, cmp_double);
        /* the upper median: with s rounds below min_ratio, sorted
         * ratios[0 .. s-1] are the low ones, so ratios[k/2] < min_ratio
         * exactly when s > k/2, a strict majority */
        o->ratio = ratios[k / 2];
        o->flagged = 2 * o->slow_rounds > o->rounds;
    }
    free(others);
    free(ratios);
    return PB_OK;
}
