/* pb_cmd_import.h - `parbench import`: nccl-tests, OSU and IMB logs to
 * result rows (reports/pb_import.h), and with -o the calibration fitted
 * to them, so a log becomes a calibrated prediction in two commands.  No
 * MPI (main.c runs it before any launch). */
#ifndef PB_CMD_IMPORT_H
#define PB_CMD_IMPORT_H

#include "../cli/pb_options.h"

int pb_import_cmd(const pb_options_t *opt, pb_err_t *err);

#endif
