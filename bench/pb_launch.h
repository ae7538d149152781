/* pb_launch.h - starting without a launcher.
 *
 * `parbench` typed in a plain shell re-executes itself under mpirun, so
 * the first experience is one command; under mpirun, srun or any PMI/PMIx
 * launcher it runs as it is. */
#ifndef PB_LAUNCH_H
#define PB_LAUNCH_H

#include "pb_options.h"

/* Was this process started by an MPI launcher? (environment only: must
 * work before MPI_Init) */
int pb_launch_under_launcher(void);

/* This process's world rank as the launcher announced it, 0 when none.
 * Lets argument errors be printed once, before MPI starts. */
int pb_launch_rank_hint(void);

/* NVIDIA GPUs the driver lists on this host (0 without a driver). */
int pb_launch_local_gpus(void);

/* Replaces this process with mpirun running the same arguments; returns
 * only on failure. */
int pb_launch_exec(int argc, char **argv, const pb_options_t *opt, pb_err_t *err);

#endif
