/* pb_preflight.h - what a self-launch checks in the launching process,
 * before mpirun starts anything.
 *
 * A mistake found on the ranks costs the user the launch line, parbench's
 * line and Open MPI's ten-line abort banner (one rank exited non-zero),
 * and an impossible world can leave mpirun hanging; everything that can be
 * known here - the fault switches against the world, the output files,
 * the backend on this host, the world against this host's process limit
 * and memory - is refused here in one line, exit 2, as argument errors
 * are.  What only the ranks can know (the other nodes, a CSV's header)
 * they still check. */
#ifndef PB_PREFLIGHT_H
#define PB_PREFLIGHT_H

#include "../cli/pb_options.h"

/* PB_OK, or PB_EINPUT with the reason, for `np` ranks about to start:
 * processes under mpirun, or (threads) the threads of --gpus, which share
 * this process's memory and count against the same process limit. */
int pb_preflight(const pb_options_t *o, int np, int threads, pb_err_t *err);

/* The fault switches (--fault) against a world of `world` ranks: the one
 * rule the ranks apply too (validate). */
int pb_preflight_faults(const pb_run_opts_t *r, int world, pb_err_t *err);

#endif
