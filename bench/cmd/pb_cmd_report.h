/* pb_cmd_report.h - `parbench report`: results (and a calibration, and
 * topology pairs) in, one self-contained page out, no MPI (main.c runs it
 * before any launch).  The main job writes its page with it too. */
#ifndef PB_CMD_REPORT_H
#define PB_CMD_REPORT_H

#include "../cli/pb_options.h"
#include "../../reports/pb_result.h"

/* One page: what it is made of and which run of the results it shows. */
typedef struct pb_report_req {
    const char *results, *calib, *pairs; /* calib, pairs: NULL for none */
    const char *out;
    /* the rows of this run only; NULL: the newest run's when `newest`,
     * else every row.  With `newest` (parbench report), a file of several
     * runs is said to be shown one run at a time, in `said` */
    const char *run_id;
    int newest;
    const char *note; /* a line for the page's head (NULL: none) */
    char said[PB_RESULT_STR + 160]; /* out: "FILE holds N runs: ..." or "" */
    int log_bw; /* bus bandwidth on a log axis (--log-bw); 0: linear */
} pb_report_req_t;

/* The report of a results file, with the calibration and the topology
 * pairs when their paths are given. */
int pb_report_files(pb_report_req_t *q, pb_err_t *err);

#endif
