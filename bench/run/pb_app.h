/* pb_app.h - a parsed command line, run on its ranks: MPI processes
 * (pb_app_run_mpi) or the threads of --gpus N (pb_app_run_threads), each
 * rank doing the same pb_app_rank. */
#ifndef PB_APP_H
#define PB_APP_H

#include "../cli/pb_options.h"
#include "../../collectives/pb_ctl.h"
#include "pb_wd_signals.h"

/* One rank's whole run on its control world (taken: freed here): the
 * watchdog, the context, the command, and back.  sigs: the process's
 * signal record, one for all the ranks of the process (pb_wd_signals.h).
 * Returns the rank's exit code (the same on every rank). */
int pb_app_rank(pb_ctl_t *world, const pb_options_t *opt, pb_wd_signals_t *sigs);

/* The process's signal record (pb_wd_signals.h), taken first thing,
 * before any other thread starts: SIGINT and SIGTERM blocked in this
 * thread, so that every thread made later inherits the mask and only the
 * watchdogs take them.  PB_OK, or the error printed and its code. */
int pb_app_signals(pb_wd_signals_t **sigs);

#ifdef PARBENCH_HAVE_MPI
/* MPI up, pb_app_rank on MPI_COMM_WORLD, MPI down.  Returns the process
 * exit code. */
int pb_app_run_mpi(int *argc, char ***argv, const pb_options_t *opt);
#endif

/* `n` ranks as threads of this process, one per local GPU (--gpus N, as
 * nccl-tests' -g N), no MPI.  Returns rank 0's exit code. */
int pb_app_run_threads(const pb_options_t *opt, int n);

/* Input refused before the ranks started (argv is the same on every rank,
 * so every rank refuses it alike): rank 0 prints `msg` (NULL: nothing) and
 * returns `code`.  Under a launcher the other ranks return 0: mpirun
 * tears the job down at the first non-zero exit, and a rank leaving
 * early with 2 lost rank 0's line about once in 15 runs on a loaded
 * machine; mpirun's status is still rank 0's code. */
int pb_app_refuse(int code, const char *msg);

#endif
