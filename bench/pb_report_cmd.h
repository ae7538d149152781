/* pb_report_cmd.h - `parbench report` and `parbench compare`: files in,
 * files or a verdict out, no MPI (main.c runs them before any launch). */
#ifndef PB_REPORT_CMD_H
#define PB_REPORT_CMD_H

#include "pb_options.h"

/* The report of a results file (rows of run_id only when not NULL), with
 * the calibration and the topology pairs when their paths are not NULL. */
int pb_report_files(const char *results, const char *calib, const char *pairs,
                    const char *out, const char *run_id, const char *note, pb_err_t *err);

/* Exit codes: report 0/2/3; compare 0 (no regression), 1 (a regression),
 * 2 (bad input), 3. */
int pb_report_cmd(const pb_options_t *opt, pb_err_t *err);
int pb_compare_cmd(const pb_options_t *opt, pb_err_t *err);

#endif
