/* pb_cmd_validate.h - `parbench validate`: find the bad link before a run.
 *
 * Rounds of disjoint rank pairs that exchange messages at the same time
 * (validate/pb_tournament.h): first all nodes' local pairs at once, then a
 * round-robin of the nodes, rail-aligned (local rank i with local rank i),
 * N-1 rounds for N nodes instead of N^2 pairs one by one.  Ranks without
 * a partner in a round wait without spinning.  Each round is timed in
 * PB_VALIDATE_VOTES votes of the best of a few trials; a pair slower than
 * --min-ratio times the median of the other pairs of its link class in
 * its round in most votes (validate/pb_outlier.h) is flagged, and the flags
 * are attributed to slow ranks, rails, NICs or pairs (validate/pb_attrib.h).
 * --pairs all|local|rails|leaders picks the phases, --budget stops early
 * with what was measured, --max-pairs stops before a round that would
 * pass it (the first round always runs). */
#ifndef PB_CMD_VALIDATE_H
#define PB_CMD_VALIDATE_H

#include "../run/pb_ctx.h"

/* PB_OK, PB_EVERIFY when a pair is flagged, or an error. */
int pb_validate_cmd(pb_ctx_t *ctx, pb_err_t *err);

#endif
