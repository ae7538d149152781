#include "pb_app.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "../cli/pb_cmd_table.h"
#include "pb_ctx.h"
#include "pb_launch.h"
#include "../cmd/pb_cmd_main_job.h"
#include "pb_share.h"
#include "../../topo/pb_topo.h"

/* The main job's output folder, made by rank 0 before the context opens
 * results.csv inside it; every rank learns whether that worked. */
static int prepare_main(const pb_options_t *o, pb_main_paths_t *p, pb_err_t *err)
{
    int rank = 0, code;
    if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS)
        return pb_err_set(err, PB_ERUNTIME, "MPI_Comm_rank failed");
    code = pb_main_job_prepare(o->main.output, o->run.csv_path, p, rank, err);
    if (pb_share(&code, (int)sizeof code, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        return pb_err_set(err, PB_ERUNTIME, "MPI exchange of the output folder's state failed");
    if (code != PB_OK && rank == 0)
        fprintf(stderr, "parbench: %s\n", err->msg);
    return code;
}

int pb_app_run(int *argc, char ***argv, const pb_options_t *opt)
{
    /* before MPI starts its threads, so that none of them takes SIGINT
     * or SIGTERM: the watchdog thread does (pb_watchdog.h) */
    pb_watchdog_block_signals();
    /* before anything makes a topology (MPI may): pb_topo.h */
    pb_topo_skip_plugins();
    /* Only the main thread calls MPI (the watchdog thread talks over its
     * own sockets, pb_wd_tree.h), and the level asked for is SINGLE, as
     * OSU and IMB ask: in Open MPI 4.1 an 8 B all-reduce between two
     * ranks takes 0.24 us after MPI_Init or a SINGLE request, 0.26-0.28
     * after FUNNELED or SERIALIZED, 1.4-1.5x after MULTIPLE (paired
     * launches, one rank per core), and that difference would be
     * parbench's own bias in the numbers users compare.  The watchdog
     * thread makes no MPI call, which is what SINGLE requires in
     * practice (Open MPI and its PMIx client run threads of their own in
     * every process anyway). */
    int provided = MPI_THREAD_SINGLE;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "parbench: MPI_Init_thread failed\n");
        return PB_ERUNTIME;
    }
    pb_main_paths_t paths;
    pb_ctx_t ctx;
    pb_err_t err;
    pb_err_clear(&err);
    pb_watchdog_t *wd = NULL;
    if (pb_watchdog_start(&wd, MPI_COMM_WORLD, opt->run.timeout_s, &err) != PB_OK) {
        fprintf(stderr, "parbench: %s\n", err.msg);
        MPI_Abort(MPI_COMM_WORLD, PB_ERUNTIME);
        return PB_ERUNTIME;
    }
    memset(&paths, 0, sizeof paths);
    if (opt->cmd == PB_CMD_MAIN && prepare_main(opt, &paths, &err) != PB_OK) {
        pb_watchdog_stop(wd);
        MPI_Finalize();
        return err.code ? err.code : PB_EINPUT;
    }
    /* the main job's rows go to its folder (rank 0 made it) */
    const char *csv = paths.results[0] ? paths.results : opt->run.csv_path;
    int code = pb_ctx_init(&ctx, opt, csv, wd, &err);
    ctx.out_dir = paths.dir[0] ? paths.dir : NULL;
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
    MPI_Finalize();
    return sig && code == PB_OK ? 128 + sig : code;
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
     * mpirun's own status is then rank 0's */
    return pb_launch_under_launcher() ? PB_OK : code;
}
