/* pb_validate_cmd.h - `parbench validate`: find the bad link before a run.
 *
 * Rounds of disjoint rank pairs that exchange messages at the same time
 * (model/pb_tournament.h): first all nodes' local pairs at once, then a
 * round-robin of the nodes, rail-aligned (local rank i with local rank i),
 * N-1 rounds for N nodes instead of N^2 pairs one by one.  Ranks without
 * a partner in a round wait without spinning.  Each round is timed in
 * PB_VALIDATE_VOTES votes of the best of a few trials; a pair slower than
 * --min-ratio times the median of the other pairs of its link class in
 * its round in most votes (model/pb_outlier.h) is flagged, and the flags
 * are attributed to slow ranks, rails, NICs or pairs (model/pb_attrib.h).
 * --pairs all|local|rails|leaders picks the phases, --budget stops early
 * with what was measured, --max-pairs stops before a round that would
 * pass it (the first round always runs). */
#ifndef PB_VALIDATE_CMD_H
#define PB_VALIDATE_CMD_H

#include "pb_ctx.h"

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

/* PB_OK, PB_EVERIFY when a pair is flagged, or an error. */
int pb_validate_cmd(pb_ctx_t *ctx, pb_err_t *err);

#endif
