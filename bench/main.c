/* parbench: parse, launch if needed, run.  Everything else lives in the
 * files named by the calls below. */
#include <stdio.h>

#include "pb_app.h"
#include "pb_launch.h"
#include "pb_options.h"
#include "pb_topo_cmd.h"
#include "pb_pattern_cmd.h"
#include "pb_model_cmd.h"
#include "pb_report_cmd.h"

int main(int argc, char **argv)
{
    pb_options_t opt;
    pb_err_t err;
    /* argv is the same on every rank, so every rank refuses the same
     * input; only rank 0 says so */
    if (pb_cli_parse(argc, argv, &opt, &err) != PB_OK) {
        if (pb_launch_rank_hint() == 0)
            fprintf(stderr, "parbench: %s\n", err.msg);
        return err.code;
    }
    if (opt.cmd == PB_CMD_HELP || opt.cmd == PB_CMD_VERSION) {
        if (pb_launch_rank_hint() == 0)
            fputs(opt.cmd == PB_CMD_VERSION ? "parbench " PB_VERSION "\n"
                                            : pb_cli_usage(opt.help_for),
                  stdout);
        return 0;
    }
    /* files in, a page or a verdict out: no MPI, nothing launched */
    if (opt.cmd == PB_CMD_REPORT || opt.cmd == PB_CMD_COMPARE) {
        int code = opt.cmd == PB_CMD_REPORT ? pb_report_cmd(&opt, &err) : pb_compare_cmd(&opt, &err);
        if (code != PB_OK)
            fprintf(stderr, "parbench: %s\n", err.msg);
        return code;
    }
    /* a plan needs no ranks: a 16,384-GPU layout prints on a laptop */
    if (opt.cmd == PB_CMD_PATTERN && opt.main.dry_run) {
        int rank0 = pb_launch_rank_hint() == 0;
        int code = pb_pattern_dry_run(&opt, rank0, &err);
        if (code != PB_OK && rank0)
            fprintf(stderr, "parbench: %s\n", err.msg);
        return code;
    }
    /* calibrate, model and plan are arithmetic over files and presets:
     * no MPI, no launch; under a launcher only rank 0 prints */
    if (opt.cmd == PB_CMD_CALIBRATE || opt.cmd == PB_CMD_MODEL || opt.cmd == PB_CMD_PLAN) {
        if (pb_launch_rank_hint() != 0)
            return 0;
        int code = opt.cmd == PB_CMD_CALIBRATE ? pb_calibrate_cmd(&opt, &err)
                   : opt.cmd == PB_CMD_MODEL   ? pb_model_cmd(&opt, &err)
                                               : pb_plan_cmd(&opt, &err);
        if (code != PB_OK)
            fprintf(stderr, "parbench: %s\n", err.msg);
        return code;
    }
    /* a dump describes another machine: no MPI, no launch, so a layout
     * for a thousand GPUs can be checked from a laptop */
    if (opt.cmd == PB_CMD_TOPO && opt.topo.xml != NULL) {
        if (pb_launch_rank_hint() != 0)
            return 0;
        int code = pb_topo_cmd_offline(&opt, &err);
        if (code != PB_OK)
            fprintf(stderr, "parbench: %s\n", err.msg);
        return code;
    }
    /* gemm times this machine's GPU from one process; under a launcher
     * each rank takes its own GPU, but it never starts mpirun itself (more
     * ranks than GPUs would only be refused) */
    if (!opt.run.no_launch && opt.cmd != PB_CMD_GEMM && !pb_launch_under_launcher()) {
        int np = 0;
        int code = pb_launch_world(&opt, &np, &err);
        if (code == PB_OK)
            code = pb_launch_exec(argc, argv, np, &err);
        if (code != PB_OK && err.msg[0])
            fprintf(stderr, "parbench: %s\n", err.msg);
        return code;
    }
    return pb_app_run(&argc, &argv, &opt);
}
