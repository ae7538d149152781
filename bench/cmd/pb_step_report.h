/* pb_step_report.h - what the executed step prints and writes (rank 0).
 *
 * `all` holds every rank's measurements: for rank r and timed step i,
 * all[(r * n + i) * PB_STEP_COLS + 0] is the rank's step time and
 * [... + 1 + c] its seconds in category c (pb_step_cat). */
#ifndef PB_STEP_REPORT_H
#define PB_STEP_REPORT_H

#include <stdint.h>

#include "../run/pb_step_run.h"

#define PB_STEP_COLS (1 + PB_SC_COUNT)

/* The measured breakdown (of the slowest rank) beside the prediction,
 * the breakdown of every rank, and CSV/JSON rows.  n timed steps. */
void pb_step_report(pb_step_exec_t *s, const double *all, int n, int64_t wrong);

#endif
