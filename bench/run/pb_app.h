/* pb_app.h - a parsed command line, run: MPI up, the command, MPI down. */
#ifndef PB_APP_H
#define PB_APP_H

#include "../cli/pb_options.h"

/* Returns the process exit code. */
int pb_app_run(int *argc, char ***argv, const pb_options_t *opt);

/* Input refused before MPI started (argv is the same on every rank, so
 * every rank refuses it alike): rank 0 prints `msg` (NULL: nothing) and
 * returns `code`.  Under a launcher the other ranks return 0: mpirun
 * tears the job down at the first non-zero exit, and a rank leaving
 * early with 2 lost rank 0's line about once in 15 runs on a loaded
 * machine; mpirun's status is still rank 0's code. */
int pb_app_refuse(int code, const char *msg);

#endif
