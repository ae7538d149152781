/* parbench: parse, run what needs no ranks, else launch if needed and run
 * on the ranks (MPI processes, or the threads of --gpus N).  What each command runs is its entry in the command table
 * (cmd/pb_cmd_NAME.c, listed in cmd/pb_cmd_list.def). */
#include <stdio.h>

#include "run/pb_app.h"
#include "cli/pb_cmd_table.h"
#include "run/pb_launch.h"
#include "run/pb_preflight.h"
#include "glue/pb_megatron_opts.h"
#include "cli/pb_options.h"

int main(int argc, char **argv)
{
    pb_options_t opt;
    pb_err_t err;
    int rank0 = pb_launch_rank_hint() == 0;
    /* argv is the same on every rank, so every rank refuses the same
     * input; only rank 0 says so */
    if (pb_cli_parse(argc, argv, &opt, &err) != PB_OK)
        return pb_app_refuse(err.code, err.msg);
    if (opt.cmd == PB_CMD_HELP || opt.cmd == PB_CMD_VERSION) {
        if (rank0)
            fputs(opt.cmd == PB_CMD_VERSION ? "parbench " PB_VERSION "\n"
                                            : pb_cli_usage(opt.help_for),
                  stdout);
        return 0;
    }
    /* a launch script fills what the flags left unsaid (explicit flags win) */
    if (opt.model.megatron_args && pb_megatron_merge(&opt, rank0, &err) != PB_OK)
        return pb_app_refuse(err.code, err.msg);
    const pb_cmd_desc_t *c = pb_cmd_find(opt.cmd);
    /* files, presets, a dump, a dry run: no MPI, nothing launched */
    if (c->run_alone) {
        int code = c->run_alone(&opt, rank0, &err);
        if (code != PB_RUN_RANKS)
            return code == PB_OK ? code : pb_app_refuse(code, err.msg);
    }
#ifdef PARBENCH_HAVE_MPI
    if (!opt.run.gpus) {
        /* gemm times this machine's GPU from one process; under a launcher
         * each rank takes its own GPU, but it never starts mpirun itself
         * (more ranks than GPUs would only be refused) */
        if (!opt.run.no_launch && !c->never_launches && !pb_launch_under_launcher()) {
            int np = 0;
            int code = pb_launch_world(&opt, &np, &err);
            if (code == PB_OK && pb_preflight(&opt, np, 0, &err) != PB_OK)
                return pb_app_refuse(err.code, err.msg); /* before mpirun: one line */
            if (code == PB_OK)
                code = pb_launch_setenv(c->launch_env, &err);
            if (code == PB_OK)
                code = pb_launch_exec(argc, argv, np, &err);
            if (code != PB_OK && err.msg[0])
                fprintf(stderr, "parbench: %s\n", err.msg);
            return code;
        }
        return pb_app_run_mpi(&argc, &argv, &opt);
    }
#endif
    /* --gpus N, or a build without MPI: the ranks are threads */
    int n = 1;
    if (!c->never_launches || opt.run.gpus) {
        int code = pb_launch_threads(&opt, &n, &err);
        if (code == PB_OK)
            code = pb_preflight(&opt, n, 1, &err);
        if (code != PB_OK)
            return pb_app_refuse(code, err.msg);
    }
    return pb_app_run_threads(&opt, n);
}
