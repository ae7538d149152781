/* pb_tverdict.h - is a candidate setting faster than the default?  The
 * verdict of `parbench tune`, from paired measurements: the default and
 * the candidate are timed back to back, in alternating order (default
 * first in even pairs, the candidate first in odd ones), so that a drift
 * of the machine between launches or over minutes hits both sides of
 * every pair alike; each pair gives one ratio, candidate / default.
 *
 * The gain is the median of the ratios, with the distribution-free 95 %
 * interval of the median (util/pb_stats.h, pb_median_ci95_ranks: the
 * sign test's order statistics, exact binomial ranks up to 70 pairs and
 * Le Boudec's n/2 -/+ 0.98 sqrt(n) above; Hoefler & Belli, SC'15,
 * section 3.1.3).  A
 * candidate is faster only when the whole interval is below 1, slower
 * when it is above 1, and otherwise "no change": a gain inside the noise
 * is never reported as a gain.
 *
 * Below PB_TV_MIN_PAIRS pairs there is no 95 % interval at all, and the
 * verdict is "not enough pairs" (the median's ratio is kept, to show).
 * The order-statistic interval of the median on n pairs is at widest
 * the pairs' whole range [X(1), X(n)], which misses the median only when
 * every pair falls on one side of it: probability 2 x 0.5^n.  That is
 * 2 x 0.5^6 = 0.031 < 0.05 at n = 6, the smallest n where it holds,
 * and 2 x 0.5^5 = 0.0625 > 0.05 at 5: five pairs all one way happen by
 * chance when nothing changed more often than a 95 % interval allows
 * (util/pb_stats.h says so: no interval, where the range would give a
 * zero-width one from one pair).  From 6 pairs on the
 * whole range is a true 95 % interval, and for the first few n it is
 * the interval util/pb_stats.h gives: faster or slower then needs every
 * pair on that side. */
#ifndef PB_TVERDICT_H
#define PB_TVERDICT_H

#include <stddef.h>

#include "../util/pb_err.h"

/* The fewest pairs with a 95 % interval of the median (above). */
#define PB_TV_MIN_PAIRS 6

typedef enum pb_tv {
    PB_TV_SAME,   /* the interval holds 1: no change */
    PB_TV_FASTER, /* the interval lies below 1 */
    PB_TV_SLOWER, /* the interval lies above 1 */
    PB_TV_FEW     /* fewer than PB_TV_MIN_PAIRS pairs: no interval, no verdict */
} pb_tv_t;

typedef struct pb_tverdict {
    size_t n;           /* pairs */
    double ratio;       /* median of candidate / default (below 1: faster) */
    double lo, hi;      /* its 95 % interval (NaN for PB_TV_FEW: none) */
    pb_tv_t v;
} pb_tverdict_t;

/* def[i], cand[i]: the times of pair i (any unit, positive).  scratch:
 * n doubles.  PB_EINPUT for n = 0 or a time not positive and finite. */
int pb_tverdict(const double *def, const double *cand, size_t n, double *scratch,
                pb_tverdict_t *out, pb_err_t *err);

const char *pb_tv_name(pb_tv_t v);

#endif
