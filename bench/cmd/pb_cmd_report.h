/* pb_cmd_report.h - `parbench report`: results (and a calibration, and
 * topology pairs) in, one self-contained page out, no MPI (main.c runs it
 * before any launch).  The main job writes its page with it too. */
#ifndef PB_CMD_REPORT_H
#define PB_CMD_REPORT_H

#include "../cli/pb_options.h"

/* The report of a results file (rows of run_id only when not NULL), with
 * the calibration and the topology pairs when their paths are not NULL. */
int pb_report_files(const char *results, const char *calib, const char *pairs,
                    const char *out, const char *run_id, const char *note, pb_err_t *err);

#endif
