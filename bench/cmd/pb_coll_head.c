/* pb_coll_head.c - what `parbench coll` prints before its tables: the
 * run (backend, ranks, devices) and, per table, the method. */
#include "pb_coll_sweep.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../reports/pb_table.h"
#include "../run/pb_harness.h"
#include "../glue/pb_pattern_print.h"

/* Collective: every rank's device line goes to rank 0, which prints them
 * so a run's log says which GPU (and bus ID) each rank drove. */
void pb_coll_run_head(const sweep_t *s)
{
    const pb_ctx_t *ctx = s->ctx;
    enum { INFO = 192 };
    char mine[INFO] = "";
    char *all = NULL;
    /* buffers on a GPU: which one (the same answer on every rank) */
    if (pb_backend_has(&ctx->be, PB_CAP_DEVICE_MEM)) {
        ctx->be.mem->device_info((pb_backend_t *)&ctx->be, mine, sizeof mine);
        /* every rank joins the gather; rank 0 without room for it says
         * less rather than writing past a buffer */
        int ok = ctx->rank != 0 || (all = calloc((size_t)ctx->size, INFO)) != NULL;
        if (pb_ctl_allreduce(ctx->world, &ok, 1, PB_CTL_INT, PB_CTL_MIN) != PB_OK || !ok ||
            pb_ctl_gather(ctx->world, mine, all, INFO, 0) != PB_OK) {
            free(all);
            all = NULL;
        }
    }
    if (ctx->rank != 0 || ctx->opt->run.quiet) {
        free(all);
        return;
    }
    printf("# parbench %s | %s | backend %s: %s\n", PB_VERSION,
           ctx->opt->cmd == PB_CMD_MAIN ? "main job: collective sweep" : "coll", ctx->be.comm->name,
           ctx->version);
    /* --gpus: say the ranks are threads, so nobody reads it as mpirun's */
    printf("# run %s | world %d rank%s%s on %d node%s (rank 0 on %s)", ctx->run_id, ctx->size,
           ctx->size == 1 ? "" : "s", pb_ctl_is_mpi(ctx->world) ? "" : " (threads of one process)",
           ctx->nodes, ctx->nodes == 1 ? "" : "s", ctx->host);
    if (s->g->size != ctx->size)
        printf(" | %d groups of %d ranks, running at once", ctx->size / s->g->size, s->g->size);
    printf(" | slowest link in a group: %s\n", s->link_class);
    pb_ctx_print_oversub(ctx, stdout);
    for (int r = 0; all && r < ctx->size; r++)
        printf("#   rank %d: %s\n", r, all + (size_t)r * INFO);
    if (ctx->opt->meas.check)
        printf("# check: every output compared with its exact expected value after timing\n");
    for (int t = 0; t < PB_DTYPE_COUNT; t++)
        for (int r = 0; r < PB_REDOP_COUNT; r++)
            if (s->refused[t] >> r & 1u)
                printf("# not run (--dtype all): %s with redop %s: %s\n",
                       pb_dtype_name((pb_dtype_t)t), pb_redop_name((pb_redop_t)r),
                       s->refused_why[t]);
    if (ctx->csv_path)
        printf("# csv: %s\n", ctx->csv_path);
    fflush(stdout);
    free(all);
}

void pb_coll_table_head(const sweep_t *s, pb_coll_t c, pb_dtype_t t, const char *redop,
                        pb_mode_t mode, int rounded, size_t skipped)
{
    const pb_options_t *o = s->ctx->opt;
    printf("#\n# %s | %s | redop %s | group %s (%d ranks) | mode %s\n", pb_coll_name(c),
           pb_dtype_name(t), redop, s->group_name, s->g->size, pb_mode_name(mode));
    if (mode == PB_MODE_LATENCY)
        printf("#   timing: barrier, then one operation between two clocks; the slowest rank's time per sample\n");
    else if (mode == PB_MODE_THROUGHPUT)
        printf("#   timing: barrier, then a batch of back-to-back operations between two clocks, / batch; slowest rank\n");
    else
        printf("#   timing: barrier, then %" PRIu64 " replays of a graph of back-to-back operations, / operations; slowest rank\n",
               o->meas.graph_replays);
    char warm[112]; /* the main job caps the warm-up's time (pb_harness.h) */
    int w = snprintf(warm, sizeof warm, "%s%" PRIu64 " warm-up operations",
                     o->meas.warmup_cap > 0.0 ? "up to " : "", o->meas.warmup);
    if (o->meas.warmup_cap > 0.0 && w > 0 && (size_t)w < sizeof warm)
        snprintf(warm + w, sizeof warm - (size_t)w, " (as many as fit in %.3g s, at least 1)",
                 o->meas.warmup_cap);
    if (o->meas.iters)
        printf("#   samples: %" PRIu64 " fixed, after %s\n", o->meas.iters, warm);
    else
        printf("#   samples: at least %" PRIu64 ", then until the median's 95%% CI is within "
               "+-%.3g%%, %.3g s are spent or %" PRIu64 " are taken; %s\n",
               o->meas.min_iters, o->meas.precision * 100.0, o->meas.time_budget, o->meas.max_iters,
               warm);
    /* --buffers: a value chosen for the user, so named */
    char cap[32];
    pb_fmt_bytes(cap, sizeof cap, (double)s->bufs.bytes);
    if (s->rotate)
        printf("#   buffers: each timed operation on the next slice of two %s buffers "
               "(%snccl-tests' way)\n",
               cap, o->meas.rotate < 0 ? "default; " : "");
    else
        printf("#   buffers: the same every operation (%sOSU's way)\n",
               o->meas.rotate < 0 ? "default; " : "");
    printf("#   size = %s; algbw = size / median time; busbw = algbw * %s; GB = 1e9 B\n",
           pb_coll_desc(c)->size_is, pb_busbw_factor_text(c));
    if (rounded)
        printf("#   range sizes rounded down to multiples of %" PRIu64 " B (n x element)\n",
               pb_coll_granule(c, s->g->size, t));
    if (skipped)
        printf("#   %zu listed size%s skipped here: not a multiple of %" PRIu64
               " B, as %s of %s on %d ranks needs\n",
               skipped, skipped == 1 ? "" : "s", pb_coll_granule(c, s->g->size, t),
               pb_coll_name(c), pb_dtype_name(t), s->g->size);
    pb_table_header(stdout);
}

