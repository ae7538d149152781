/* pb_validate_judge.h - rank 0's side of `parbench validate`: judges each
 * round of concurrent pairs as it ends (validate/pb_outlier.h, the pairs of
 * one class in one round against each other: they ran at the same
 * moment), writes their rows, counts verdicts per rank and rail
 * (validate/pb_attrib.h), and at the end prints the table and names the slow
 * GPUs, NICs, rails and pairs.
 *
 * Memory is O(W): one round's times at a time, counters per rank, the
 * pairs printed (every pair up to PB_VJ_LISTED, past that the flagged
 * ones, as `step` summarises past 32 ranks). */
#ifndef PB_VALIDATE_JUDGE_H
#define PB_VALIDATE_JUDGE_H

#include <stdint.h>

#include "../../validate/pb_attrib.h"
#include "../../validate/pb_outlier.h"
#include "../../validate/pb_tournament.h"
#include "../run/pb_ctx.h"
#include "../../util/pb_stats.h"

/* Many short trials, keeping the best of each vote: load from elsewhere
 * only ever slows a pair down, and a trial short enough to fit in one
 * scheduler time slice catches the pair running undisturbed at least
 * once.  Every vote's best is kept and the votes vote (model/
 * pb_outlier.h): a burst of load from elsewhere hits one vote of a pair,
 * not most of them. */
#define PB_VALIDATE_REPS 2   /* exchanges per trial */
#define PB_VALIDATE_TRIALS 8 /* per vote */
/* --fault slow:A-B (that pair) and slow-rank:R (every pair of R): every
 * timed exchange is followed by 20 more, timed with it, so the pair's
 * bandwidth is about 1/21 of its own, far below any sensible --min-ratio:
 * a test of the flagging proves detection, not luck.  Extra exchanges,
 * not a sleep: they slow down with the pair under load from elsewhere, so
 * the ratio stays near 1/21 on a busy machine too (a sleep of fixed
 * length does not: on 2 cores with spinning processes a healthy exchange
 * waited up to 8 ms for their time slices, which a 20 ms sleep beat by
 * only 2.5x), and they add no sleep whose wake-up skew between the two
 * ranks would slow the next exchange. */
#define PB_VALIDATE_SLOWDOWN 20

/* timed rounds per pair (votes); odd, so no vote ties and the median time
 * is one vote's */
#define PB_VALIDATE_VOTES 7
/* every pair printed up to this many pairs measured; past it, flagged
 * pairs only */
#define PB_VJ_LISTED 64

typedef struct pb_vpair {
    int a, b, rail, round;
    char cls[16];
    double gbps;   /* per direction, from the median time */
    pb_stats_t st; /* seconds per exchange over the votes */
    pb_outlier_t judged;
    int per; /* exchanges timed per one counted (21 under --fault) */
} pb_vpair_t;

typedef struct pb_vjudge {
    pb_ctx_t *ctx;
    const pb_tourn_t *t;
    uint64_t bytes;
    pb_attrib_t at;
    pb_vpair_t *kept; /* printed at the end */
    size_t nkept, cap;
    size_t measured; /* pairs judged */
    int rounds_done;
} pb_vjudge_t;

int pb_vjudge_init(pb_vjudge_t *j, pb_ctx_t *ctx, const pb_tourn_t *t, uint64_t bytes,
                   pb_err_t *err);
void pb_vjudge_free(pb_vjudge_t *j);

/* Exchanges timed for each one counted between ranks a and b: 1, or
 * 1 + PB_VALIDATE_SLOWDOWN where a --fault slows them. */
int pb_validate_per_count(const pb_options_t *o, int a, int b);

/* World rank r's partner in round `round`, or -1. */
int pb_validate_partner(const pb_ctx_t *ctx, const pb_tourn_t *t, int round, int r);

/* One round on rank 0: sec[r * VOTES + v] is rank r's best seconds per
 * exchange in vote v (0 where it rested). */
int pb_vjudge_round(pb_vjudge_t *j, int round, const double *sec, pb_err_t *err);

/* The table and the verdict: PB_OK, or PB_EVERIFY naming what is slow.
 * total: pairs of the whole schedule; stopped: why rounds were left out
 * ("" when none were). */
int pb_vjudge_report(pb_vjudge_t *j, size_t total, const char *stopped, pb_err_t *err);

#endif
