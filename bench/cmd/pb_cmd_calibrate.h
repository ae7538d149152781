/* pb_cmd_calibrate.h - parbench calibrate: result rows fitted to the
 * collective model, piece by piece (model/pb_calib.h).  A pure
 * computation over files, printed by the one process that runs it. */
#ifndef PB_CMD_CALIBRATE_H
#define PB_CMD_CALIBRATE_H

#include "../cli/pb_options.h"

/* parbench calibrate's work: the rows of the results files fitted,
 * printed, and written to `output` (NULL: printed only); a piece of 4+
 * sizes may miss by at most fit_tol (a fraction).  The main job calls it
 * on its own results.csv. */
#define PB_FIT_TOL_DEFAULT 0.05 /* --fit-tol 5 */
int pb_calibrate_files(const char *const *inputs, int ninputs, const char *output,
                       double fit_tol, pb_err_t *err);

/* The command as its options say (import -o calls it with its own). */
int pb_calibrate_cmd(const pb_options_t *o, pb_err_t *err);

#endif
