/* pb_validate_cmd.h - `parbench validate`: find the bad link before a run.
 *
 * Every chosen rank pair exchanges messages alone (the other ranks wait
 * without spinning, so they steal no CPU from the pair), in several sweeps
 * over all pairs; the best of a few trials is the pair's bandwidth in a
 * sweep, and a pair slower than --min-ratio times the median of the other
 * pairs of its link class in most sweeps (model/pb_outlier.h) is flagged
 * with its class and bus ids. */
#ifndef PB_VALIDATE_CMD_H
#define PB_VALIDATE_CMD_H

#include "pb_ctx.h"

/* PB_OK, PB_EVERIFY when a pair is flagged, or an error. */
int pb_validate_cmd(pb_ctx_t *ctx, pb_err_t *err);

#endif
