#include "pb_app.h"

#include <stdio.h>
#include <string.h>

#include "../cli/pb_cmd_table.h"
#include "pb_ctx.h"
#include "pb_launch.h"
#include "pb_wall.h"
#include "pb_watchdog.h"
#include "../cmd/pb_cmd_main_job.h"

/* The main job's output folder, made by rank 0 before the context opens
 * results.csv inside it; every rank learns whether that worked. */
static int prepare_main(pb_ctl_t *world, const pb_options_t *o, pb_main_paths_t *p,
                        pb_err_t *err)
{
    int code = pb_main_job_prepare(o->main.output, o->run.csv_path, p, world->rank, err);
    if (pb_ctl_bcast(world, &code, sizeof code, 0) != PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "the exchange of the output folder's state failed");
    if (code != PB_OK && world->rank == 0)
        fprintf(stderr, "parbench: %s\n", err->msg);
    return code;
}

int pb_app_rank(pb_ctl_t *world, const pb_options_t *opt, pb_wd_signals_t *sigs)
{
    pb_main_paths_t paths;
    pb_ctx_t ctx;
    pb_err_t err;
    pb_err_clear(&err);
    pb_watchdog_t *wd = NULL;
    double t0 = pb_ctl_now();
    if (pb_watchdog_start(&wd, world, opt->run.timeout_s, sigs, &err) != PB_OK) {
        fprintf(stderr, "parbench: %s\n", err.msg);
        pb_ctl_abort(world, PB_ERUNTIME);
    }
    memset(&paths, 0, sizeof paths);
    if (opt->cmd == PB_CMD_MAIN && prepare_main(world, opt, &paths, &err) != PB_OK) {
        pb_watchdog_stop(wd);
        pb_ctl_free(world);
        return err.code ? err.code : PB_EINPUT;
    }
    /* the main job's rows go to its folder (rank 0 made it) */
    const char *csv = paths.results[0] ? paths.results : opt->run.csv_path;
    int code = pb_ctx_init(&ctx, opt, csv, wd, world, &err);
    ctx.out_dir = paths.dir[0] ? paths.dir : NULL;
    if (code == PB_OK && ctx.rank == 0 && pb_wall_wanted())
        printf("# phases set-up: watchdog, output folder, topology, node map, backend %.3f\n",
               pb_ctl_now() - t0);
    if (code == PB_OK)
        code = pb_cmd_find(opt->cmd)->run_ranks(&ctx, &err);
    /* every rank holds the same code here; rank 0 says why, once */
    if (code != PB_OK && ctx.rank == 0)
        fprintf(stderr, "parbench: %s\n", err.msg);
    /* a stop on SIGINT/SIGTERM: the rows so far are whole; say where */
    pb_ctx_report_stop(&ctx);
    int sig = ctx.stopped_by;
    pb_ctx_fini(&ctx);
    pb_watchdog_stop(wd);
    return sig && code == PB_OK ? 128 + sig : code;
}

int pb_app_signals(pb_wd_signals_t **sigs)
{
    pb_watchdog_block_signals();
    pb_err_t err;
    pb_err_clear(&err);
    *sigs = NULL;
    if (pb_wd_signals_open(sigs, &err) != PB_OK) {
        fprintf(stderr, "parbench: %s\n", err.msg);
        return PB_ERUNTIME;
    }
    return PB_OK;
}

int pb_app_refuse(int code, const char *msg)
{
    if (pb_launch_rank_hint() == 0) {
        if (msg != NULL)
            fprintf(stderr, "parbench: %s\n", msg);
        return code;
    }
    /* the others leave quietly: mpirun ends the whole job at the first
     * non-zero exit, which could kill rank 0 before its line is out, and
     * mpirun's status is then rank 0's */
    return pb_launch_under_launcher() ? PB_OK : code;
}
