#include "pb_app.h"

#include <mpi.h>
#include <stdio.h>

#include "pb_coll_cmd.h"
#include "pb_ctx.h"
#include "pb_gemm_cmd.h"
#include "pb_topo_cmd.h"
#include "pb_validate_cmd.h"
#include "pb_pattern_cmd.h"
#include "pb_step_cmd.h"

int pb_app_run(int *argc, char ***argv, const pb_options_t *opt)
{
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        fprintf(stderr, "parbench: MPI_Init failed\n");
        return PB_ERUNTIME;
    }
    pb_ctx_t ctx;
    pb_err_t err;
    pb_err_clear(&err);
    int code = pb_ctx_init(&ctx, opt, &err);
    if (code == PB_OK) {
        if (opt->cmd == PB_CMD_GEMM)
            code = pb_gemm_cmd(&ctx, &err);
        else if (opt->cmd == PB_CMD_TOPO)
            code = pb_topo_cmd(&ctx, &err);
        else if (opt->cmd == PB_CMD_VALIDATE)
            code = pb_validate_cmd(&ctx, &err);
        else if (opt->cmd == PB_CMD_PATTERN)
            code = pb_pattern_cmd(&ctx, &err);
        else if (opt->cmd == PB_CMD_STEP)
            code = pb_step_cmd(&ctx, &err);
        else
            code = pb_coll_cmd(&ctx, &err);
    }
    /* the main job adds the pattern suite of a small model on the same
     * ranks (and appends to the same CSV) */
    if (code == PB_OK && opt->cmd == PB_CMD_MAIN)
        code = pb_pattern_cmd(&ctx, &err);
    /* every rank holds the same code here; rank 0 says why, once */
    if (code != PB_OK && ctx.rank == 0)
        fprintf(stderr, "parbench: %s\n", err.msg);
    pb_ctx_fini(&ctx);
    MPI_Finalize();
    return code;
}
