/* pb_app.h - a parsed command line, run: MPI up, the command, MPI down. */
#ifndef PB_APP_H
#define PB_APP_H

#include "pb_options.h"

/* Returns the process exit code. */
int pb_app_run(int *argc, char ***argv, const pb_options_t *opt);

#endif
