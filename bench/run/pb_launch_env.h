/* pb_launch_env.h - what an MPI launcher announces in the environment,
 * read before MPI starts (and without it): whether one started this
 * process, and its rank.  Apart from pb_launch.c (which starts mpirun
 * itself), so that code which only asks "am I rank 0?" before MPI, as
 * the pattern plan does for its notes, depends on nothing that launches. */
#ifndef PB_LAUNCH_ENV_H
#define PB_LAUNCH_ENV_H

/* Was this process started by an MPI launcher? (environment only: must
 * work before MPI_Init) */
int pb_launch_under_launcher(void);

/* This process's world rank as the launcher announced it, 0 when none.
 * Lets argument errors be printed once, before MPI starts. */
int pb_launch_rank_hint(void);

#endif
