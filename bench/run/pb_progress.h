/* pb_progress.h - one line on stderr while a long sweep or pattern runs:
 * done/total, the current operation and size, and the time left.
 *
 * Shown only on rank 0, only without --quiet, and only when stderr is a
 * terminal.  Under a launcher a rank's stderr is a pipe to mpirun, so the
 * self-launch sets PARBENCH_PROGRESS=1 when *its* stderr was a terminal;
 * the same variable turns the line on under a user's own mpirun/srun. */
#ifndef PB_PROGRESS_H
#define PB_PROGRESS_H

#include <stdint.h>

typedef struct pb_progress {
    int on;
    uint64_t done, total;
    double t0, last; /* seconds (monotonic): start, last redraw */
    int shown;       /* a line is on the screen (to be cleared) */
} pb_progress_t;

/* Whether a progress line belongs on this process's stderr. */
int pb_progress_wanted(int rank, int quiet);

void pb_progress_start(pb_progress_t *p, int on, uint64_t total);
/* Called before each measurement: `what` names it (op and size). */
void pb_progress_step(pb_progress_t *p, const char *what);
/* Clears the line, before anything is printed on stdout and at the end
 * (the tables on stdout carry the record; the next step redraws it). */
void pb_progress_clear(pb_progress_t *p);

#endif
