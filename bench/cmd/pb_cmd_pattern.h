/* pb_cmd_pattern.h - `parbench --pattern ...`: a strategy's traffic run on
 * the real groups of the layout, every group of a kind at once, as in
 * training; and `--dry-run`, which only prints the plan (no MPI). */
#ifndef PB_CMD_PATTERN_H
#define PB_CMD_PATTERN_H

#include "../run/pb_ctx.h"

/* No MPI: prints (when print is set) the operation list and totals.  Returns an exit code. */
int pb_pattern_dry_run(const pb_options_t *o, int print, pb_err_t *err);

/* Collective over the world.  Returns PB_OK, PB_EVERIFY or PB_EINPUT. */
int pb_pattern_cmd(pb_ctx_t *ctx, pb_err_t *err);

#endif
