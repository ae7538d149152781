/* pb_cmd_main_job.h - `parbench` with no command: the whole loop, into one
 * output folder, saying where everything went.
 *
 *   topology -> verified collective sweep -> pattern suite -> calibration
 *   -> reference step prediction -> report
 *
 * The steps are one table in pb_cmd_main_job.c; calibration and the reference
 * step are the integration points of the model (issue 6). */
#ifndef PB_CMD_MAIN_JOB_H
#define PB_CMD_MAIN_JOB_H

#include "../run/pb_ctx.h"

/* The output folder's files. */
typedef struct pb_main_paths {
    char dir[512];
    char results[600]; /* results.csv (or --csv) */
    char pairs[600];   /* topo-pairs.csv */
    char calib[600];   /* calib.csv */
    char report[600];  /* report.html */
} pb_main_paths_t;

/* Rank 0: makes the folder (output, the -o DIR; NULL: parbench-out/
 * <date-time>) and names its files; results is csv (--csv) when given.
 * Other ranks make nothing and leave p empty. */
int pb_main_job_prepare(const char *output, const char *csv, pb_main_paths_t *p, int rank,
                        pb_err_t *err);

/* Runs the steps in order into ctx->out_dir (rank 0); stops at the first
 * failure. */
int pb_main_job_run(pb_ctx_t *ctx, pb_err_t *err);

#endif
