/* The ranks as MPI processes (pb_app.h). */
#include "pb_app.h"

#include <mpi.h>
#include <stdio.h>

#include "../../collectives/pb_ctl_mpi.h"
#include "../../topo/pb_topo.h"
#include "pb_launch_status.h"
#include "pb_wall.h"
#include "pb_watchdog.h"

int pb_app_run_mpi(int *argc, char ***argv, const pb_options_t *opt)
{
    /* before MPI starts its threads, so that none of them takes SIGINT
     * or SIGTERM: the watchdog thread does (pb_watchdog.h) */
    pb_wd_signals_t *sigs = NULL;
    if (pb_app_signals(&sigs) != PB_OK)
        return PB_ERUNTIME;
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
    int provided = MPI_THREAD_SINGLE, rank = 0;
    double t0 = pb_ctl_now();
    if (MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "parbench: MPI_Init_thread failed\n");
        pb_wd_signals_close(sigs);
        return PB_ERUNTIME;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int phases = rank == 0 && pb_wall_wanted();
    if (phases)
        printf("# phases mpi: init %.3f\n", pb_ctl_now() - t0);
    pb_ctl_t *world = pb_ctl_mpi_new(MPI_COMM_WORLD);
    if (world == NULL) {
        fprintf(stderr, "parbench: MPI_Comm_dup of the world failed\n");
        MPI_Abort(MPI_COMM_WORLD, PB_ERUNTIME);
        return PB_ERUNTIME;
    }
    int code = pb_app_rank(world, opt, sigs);
    /* one code for the whole job (the largest), agreed before finalizing,
     * so that rank 0 can stand for every rank: a self-launch hands it to
     * the launching process and every rank exits 0, which leaves mpirun
     * no non-zero exit to print its banner about (pb_launch_status.h) */
    int agreed = code;
    if (MPI_Allreduce(&code, &agreed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        agreed = code;
    t0 = pb_ctl_now();
    MPI_Finalize();
    if (phases)
        printf("# phases mpi: finalize %.3f\n", pb_ctl_now() - t0);
    pb_wd_signals_close(sigs);
    return pb_launch_status_report(rank, agreed);
}
