/* pb_outlier.h - which rank pairs are slow for their link class: the pure
 * decision behind `parbench validate`, apart from the measuring so that it
 * can be tested on made-up bandwidths.
 *
 * Input: for every round (a sweep over all pairs) and every pair, the
 * pair's bandwidth in that round (the best of its trials: load from
 * elsewhere only slows a pair down), and each pair's link class.
 *
 * Per round, a pair's ratio is its bandwidth over the median of the OTHER
 * pairs of its class in the same round: the pair itself never dilutes its
 * own reference, and pairs of one round ran within moments of each other,
 * so a burst of load from elsewhere that slows a whole round cancels out.
 * A pair is flagged when its ratio is below min_ratio in a strict majority
 * of the rounds that could vote: one unlucky round never flags a pair, a
 * pair slow every time always is.
 *
 * Edge cases, decided here once:
 *  - a pair alone in its class has nothing to compare with: never
 *    flagged, peers = 0, ratio NAN (the caller says "alone");
 *  - two pairs in a class: each is compared with the other, so their
 *    ratios in a round are r and 1/r.  Load and faults only slow a pair,
 *    so the slower one is the suspect: it is flagged when it is below
 *    min_ratio x the other in most rounds, and the faster one (ratio above
 *    1/min_ratio >= 1) never is.  At most one of the two is flagged in a
 *    round, as long as min_ratio <= 1;
 *  - zero bandwidth (nothing came through) against a positive reference is
 *    ratio 0: slow.  A round where the other pairs' median is 0 gives no
 *    comparison and does not vote; a pair with no voting round is never
 *    flagged (ratio NAN);
 *  - negative or non-finite bandwidths are refused (PB_EINPUT): they are a
 *    caller's bug, not a measurement. */
#ifndef PB_OUTLIER_H
#define PB_OUTLIER_H

#include <stddef.h>

#include "../util/pb_err.h"

typedef struct pb_outlier {
    int peers;       /* other pairs of its class; 0: alone, never flagged */
    int rounds;      /* rounds that voted (other pairs' median above 0) */
    int slow_rounds; /* of those, rounds with ratio below min_ratio */
    /* The upper median of the voting rounds' ratios (element floor(k/2)
     * of the k sorted ratios; the median itself when k is odd).  Chosen so
     * that ratio < min_ratio exactly when a strict majority of rounds is
     * below min_ratio: the printed ratio never contradicts the verdict.
     * NAN when no round voted. */
    double ratio;
    int flagged; /* slow_rounds > rounds / 2, i.e. ratio < min_ratio */
} pb_outlier_t;

/* bw[r * pairs + i]: bandwidth of pair i in round r (any unit, the same
 * for all); cls[i]: pair i's class, any integer (equal = same class).
 * Fills out[0 .. pairs-1].  PB_OK, or PB_EINPUT (rounds 0, a bad
 * bandwidth, min_ratio negative or not finite), PB_ERUNTIME (memory). */
int pb_outlier_judge(const double *bw, size_t pairs, size_t rounds, const int *cls,
                     double min_ratio, pb_outlier_t *out, pb_err_t *err);

/* The majority rule of every verdict of validate (this file's rounds,
 * the share of an expectation, the re-measurement alone): of k values,
 * how many are below `min`, and the upper median (element k/2 of the
 * sorted values), which is below `min` exactly when a strict majority is.
 * Returns that verdict (1: below); NAN as the median for k = 0.  v is
 * sorted in place. */
int pb_outlier_majority_below(double *v, size_t k, double min, double *upper_median,
                              int *below);

/* Median of n values (the mean of the two middle ones when n is even:
 * util/pb_stats.h's type-7 quantile at 0.5), sorting v in place; 0 for
 * n = 0. */
double pb_outlier_median(double *v, size_t n);

#endif
