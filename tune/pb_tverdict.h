/* pb_tverdict.h - is a candidate setting faster than the default?  The
 * verdict of `parbench tune`, from paired measurements: the default and
 * the candidate are timed back to back, in alternating order (default
 * first in even pairs, the candidate first in odd ones), so that a drift
 * of the machine between launches or over minutes hits both sides of
 * every pair alike; each pair gives one ratio, candidate / default.
 *
 * The gain is the median of the ratios, with the distribution-free 95 %
 * interval of the median (util/pb_stats.h: order statistics at
 * n/2 -/+ 1.96 sqrt(n)/2, the sign test's interval; Hoefler & Belli,
 * SC'15, section 3.1.3; bench/perf/latency_vs_loop.sh uses the same).  A
 * candidate is faster only when the whole interval is below 1, slower
 * when it is above 1, and otherwise "no change": a gain inside the noise
 * is never reported as a gain.  Up to 10 pairs the interval is the full
 * range of the ratios (below 6 by rule, from 6 to 10 because the order
 * statistics' ranks fall outside 1..n): faster or slower then needs every
 * pair on that side. */
#ifndef PB_TVERDICT_H
#define PB_TVERDICT_H

#include <stddef.h>

#include "../util/pb_err.h"

typedef enum pb_tv {
    PB_TV_SAME,   /* the interval holds 1: no change */
    PB_TV_FASTER, /* the interval lies below 1 */
    PB_TV_SLOWER  /* the interval lies above 1 */
} pb_tv_t;

typedef struct pb_tverdict {
    size_t n;           /* pairs */
    double ratio;       /* median of candidate / default (below 1: faster) */
    double lo, hi;      /* its 95 % interval */
    pb_tv_t v;
} pb_tverdict_t;

/* def[i], cand[i]: the times of pair i (any unit, positive).  scratch:
 * n doubles.  PB_EINPUT for n = 0 or a time not positive and finite. */
int pb_tverdict(const double *def, const double *cand, size_t n, double *scratch,
                pb_tverdict_t *out, pb_err_t *err);

const char *pb_tv_name(pb_tv_t v);

#endif
