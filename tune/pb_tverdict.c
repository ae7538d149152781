#include "pb_tverdict.h"

#include <math.h>

#include "../util/pb_stats.h"

int pb_tverdict(const double *def, const double *cand, size_t n, double *scratch,
                pb_tverdict_t *out, pb_err_t *err)
{
    if (n == 0)
        return pb_err_set(err, PB_EINPUT, "tune: no paired measurement to judge");
    for (size_t i = 0; i < n; i++) {
        if (!(def[i] > 0.0) || !(cand[i] > 0.0) || !isfinite(def[i]) || !isfinite(cand[i]))
            return pb_err_set(err, PB_EINPUT, "tune: pair %zu has a time that is not positive "
                              "(%g, %g)", i, def[i], cand[i]);
        scratch[i] = cand[i] / def[i];
    }
    pb_stats_sort(scratch, n);
    out->n = n;
    out->ratio = pb_quantile_sorted(scratch, n, 0.5);
    if (n < PB_TV_MIN_PAIRS) {
        /* no interval exists (pb_tverdict.h): never a gain, never a loss */
        out->lo = out->hi = NAN;
        out->v = PB_TV_FEW;
        return PB_OK;
    }
    pb_median_ci95_of(scratch, n, &out->lo, &out->hi);
    out->v = out->hi < 1.0 ? PB_TV_FASTER : out->lo > 1.0 ? PB_TV_SLOWER : PB_TV_SAME;
    return PB_OK;
}

const char *pb_tv_name(pb_tv_t v)
{
    static const char *const names[] = {"no change", "faster", "slower", "not enough pairs"};
    return names[v];
}
