/* pb_pattern_cmd.h - `parbench --pattern ...`: a strategy's traffic run on
 * the real groups of the layout, every group of a kind at once, as in
 * training; and `--dry-run`, which only prints the plan (no MPI). */
#ifndef PB_PATTERN_CMD_H
#define PB_PATTERN_CMD_H

#include "pb_ctx.h"

/* No MPI: prints (when print is set) the operation list and totals.  Returns an exit code. */
int pb_pattern_dry_run(const pb_options_t *o, int print, pb_err_t *err);

/* The backend operation of a pattern record on group g: its collective
 * and type, bytes rounded down to what the group can split (never below
 * one granule).  Returns 1 when it rounded, 0 when not.  Partners (p2p)
 * are the caller's. */
#include "../patterns/pb_pat_op.h"
#include "pb_exec.h"
int pb_pattern_backend_op(const pb_pat_op_t *r, const pb_group_t *g, pb_op_t *op);

/* Collective over the world.  Returns PB_OK, PB_EVERIFY or PB_EINPUT. */
int pb_pattern_cmd(pb_ctx_t *ctx, pb_err_t *err);

#endif
