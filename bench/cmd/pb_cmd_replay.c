/* pb_cmd_replay.c - parbench replay PROFILE: a recorded job's
 * communication run again on this cluster, verified as coll verifies and
 * timed between the backend's marks, against what was recorded, per
 * communicator and for the whole job.
 *
 * The stages: every rank reads the recording and plans it alike
 * (glue/pb_replay_plan.h: the operations as units in one order every rank
 * shares, and why that order cannot deadlock); the groups and buffers
 * (run/pb_replay_run.h); a verified pass, the warm-up passes, the timed
 * passes; per communicator and pass the slowest member, the median over
 * the passes; the table and --csv (pb_replay_out.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_replay.h"
#include "../cli/pb_cmd_table.h"
#include "../cli/pb_opt_common.h"
#include "../cli/pb_opt_set.h"
#include "../../util/pb_stats.h"

/* Every rank reads the recording itself (from a shared file system, as
 * each reads its own argv): no rank waits on another to parse, and a bad
 * recording is refused identically everywhere. */
static int load(pb_replay_t *r, pb_err_t *err)
{
    const pb_replay_opts_t *ro = &r->o->replay;
    int code = pb_jp_load(ro->inputs, (size_t)ro->ninputs, &r->jp, err);
    if (code == PB_OK)
        code = pb_jp_infer(&r->jp, NULL, &r->shape, err);
    if (code == PB_OK)
        code = pb_rp_build(&r->jp, &r->plan, err);
    if (code == PB_OK && r->plan.world != r->ctx->size)
        code = pb_err_set(err, PB_EINPUT,
                          "the recording is of %d ranks and %d run: replay runs one rank per "
                          "recorded rank (launch %d)",
                          r->plan.world, r->ctx->size, r->plan.world);
    size_t nc = r->plan.ncomms ? r->plan.ncomms : 1, np = ro->iters ? ro->iters : 1;
    if (code == PB_OK) {
        r->pass_s = calloc(np * nc, sizeof *r->pass_s);
        r->wall_s = calloc(np, sizeof *r->wall_s);
        r->rank_s = calloc(np, sizeof *r->rank_s);
        r->replayed_s = calloc(nc, sizeof *r->replayed_s);
        r->wrong = calloc(nc, sizeof *r->wrong);
        if (!r->pass_s || !r->wall_s || !r->rank_s || !r->replayed_s || !r->wrong)
            code = pb_err_set(err, PB_ERUNTIME, "out of memory");
    }
    return code;
}

/* Collective: the ranks must replay one plan.  A recording read
 * differently on some node (another file behind the same path) would
 * pair operations that do not match, and hang. */
static int same_plan(const pb_replay_t *r, pb_err_t *err)
{
    int64_t h = (int64_t)(pb_rp_hash(&r->plan) >> 1), v[2] = {h, -h};
    if (pb_ctl_allreduce(r->ctx->world, v, 2, PB_CTL_I64, PB_CTL_MAX) != PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "the exchange of the plans' hashes failed");
    if (v[0] != -v[1]) /* the largest hash is the smallest: all alike */
        return pb_err_set(err, PB_EINPUT, "the ranks read different recordings: each must read "
                          "the whole job's (is PROFILE the same on every node?)");
    return PB_OK;
}

/* The verified pass (unless -c 0), the rest of the warm-up, the timed
 * passes; a signal stops between passes, on every rank alike. */
static void passes(pb_replay_t *r)
{
    const pb_replay_opts_t *ro = &r->o->replay;
    size_t nc = r->plan.ncomms;
    uint64_t warm = ro->warmup;
    double wall;
    if (r->o->meas.check) {
        pb_replay_pass(&r->x, 1, 0, &wall);
        r->verified = 1;
        warm -= warm > 0;
    }
    for (uint64_t i = 0; i < warm && !pb_ctx_stopping(r->ctx); i++)
        pb_replay_pass(&r->x, 0, ro->gaps, &wall);
    for (uint64_t i = 0; i < ro->iters && !pb_ctx_stopping(r->ctx); i++) {
        pb_replay_pass(&r->x, 0, ro->gaps, &wall);
        memcpy(r->pass_s + i * nc, r->x.spent, nc * sizeof *r->pass_s);
        for (size_t c = 0; c < nc; c++)
            r->rank_s[i] += r->x.spent[c];
        r->wall_s[i] = wall;
        r->timed++;
    }
}

static double median(double *v, size_t n)
{
    pb_stats_sort(v, n);
    return n ? pb_quantile_sorted(v, n, 0.5) : 0.0;
}

/* Over the world: the slowest member per communicator and pass, the
 * slowest rank per pass (its whole pass, and its operations' sum), the
 * wrong elements; then the medians. */
static int reduce(pb_replay_t *r, pb_err_t *err)
{
    pb_ctx_t *ctx = r->ctx;
    size_t nc = r->plan.ncomms;
    for (size_t c = 0; c < nc; c++)
        r->wrong[c] = r->x.wrong[c];
    pb_watch_begin(ctx->wd, "replay: the exchange of the times and wrong counts");
    int rc = pb_ctl_allreduce(ctx->world, r->wrong, nc, PB_CTL_I64, PB_CTL_SUM);
    if (rc == PB_OK && r->timed)
        rc = pb_ctl_allreduce(ctx->world, r->pass_s, r->timed * nc, PB_CTL_DOUBLE, PB_CTL_MAX);
    if (rc == PB_OK && r->timed)
        rc = pb_ctl_allreduce(ctx->world, r->wall_s, r->timed, PB_CTL_DOUBLE, PB_CTL_MAX);
    if (rc == PB_OK && r->timed)
        rc = pb_ctl_allreduce(ctx->world, r->rank_s, r->timed, PB_CTL_DOUBLE, PB_CTL_MAX);
    pb_watch_end(ctx->wd);
    if (rc != PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "the exchange of the replay's times failed");
    double *v = malloc((r->timed ? r->timed : 1) * sizeof *v);
    if (v == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    for (size_t c = 0; c < nc; c++) {
        for (uint64_t p = 0; p < r->timed; p++)
            v[p] = r->pass_s[p * nc + c];
        r->replayed_s[c] = median(v, r->timed);
        r->wrong_total += r->wrong[c];
    }
    memcpy(v, r->wall_s, r->timed * sizeof *v);
    r->wall_med = median(v, r->timed);
    memcpy(v, r->rank_s, r->timed * sizeof *v);
    r->rank_med = median(v, r->timed);
    free(v);
    return PB_OK;
}

/* Rank 0 prints and writes --csv; every rank returns its outcome. */
static int report(pb_replay_t *r, pb_err_t *err)
{
    pb_ctx_t *ctx = r->ctx;
    int code = PB_OK;
    if (ctx->rank == 0 && r->timed) {
        pb_replay_print_table(r);
        if (r->o->replay.csv_path)
            code = pb_replay_write_csv(r, r->o->replay.csv_path, err);
    }
    if (pb_ctl_bcast(ctx->world, &code, sizeof code, 0) != PB_OK)
        pb_ctx_abort(ctx, &(pb_err_t){PB_ERUNTIME, "the broadcast of the outcome failed"});
    if (code != PB_OK)
        return ctx->rank == 0 ? code : pb_err_set(err, code, "replay: see rank 0");
    if (r->wrong_total > 0)
        return pb_err_set(err, PB_EVERIFY, "verification failed: %" PRId64 " wrong elements",
                          r->wrong_total);
    return PB_OK;
}

static int pb_replay_cmd(pb_ctx_t *ctx, pb_err_t *err)
{
    pb_replay_t r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.o = ctx->opt;
    pb_jobprof_init(&r.jp);
    int code = load(&r, err);
    if (pb_ctx_agree(ctx, code, err) == PB_OK && same_plan(&r, err) == PB_OK &&
        pb_replay_setup(&r.x, ctx, &r.plan, &r.jp, r.o->replay.scale, r.o->replay.gaps, err) ==
            PB_OK) {
        if (ctx->rank == 0 && !r.o->run.quiet)
            pb_replay_print_head(&r);
        passes(&r);
        code = reduce(&r, err);
        if (code == PB_OK)
            code = report(&r, err);
    }
    pb_replay_release(&r.x);
    pb_rp_free(&r.plan);
    pb_jobprof_free(&r.jp);
    free(r.pass_s);
    free(r.wall_s);
    free(r.rank_s);
    free(r.replayed_s);
    free(r.wrong);
    return err->code ? err->code : code;
}

/* ---- the command: its options and table row ----------------------- */

/* a positive number (pb_parse_double refuses 0 and below) */
static int set_scale(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                     pb_err_t *err)
{
    (void)s;
    return pb_parse_double(shown, v, 0, &o->replay.scale, err);
}

static const char replay_elsewhere[] = "--gaps, --scale and --steps are options of parbench replay";

static const pb_opt_spec_t replay_specs[] = {
    {"iters", 'n', "N", pb_opt_u64, PB_OFF(replay.iters), 1,
     "timed passes over the recording (default 5): a time is\nthe median over them", NULL, NULL},
    {"warmup", 'w', "N", pb_opt_u64, PB_OFF(replay.warmup), 0,
     "untimed passes first (default 1), the first verifying\n"
     "every result (unless -c 0; with -w 0 one still runs)", NULL, NULL},
    {"gaps", 0, NULL, pb_opt_flag, PB_OFF(replay.gaps), 0,
     "keep each rank busy, before each operation, for its\n"
     "recorded idle time since its previous one (the compute\n"
     "between; default: operations back to back)", NULL, replay_elsewhere},
    {"scale", 0, "F", set_scale, 0, 0,
     "every size x F, rounded down to what its collective needs\n"
     "(a quick look at a large recording; the times are then\n"
     "the smaller sizes')", NULL, replay_elsewhere},
    {"steps", 0, "K", pb_opt_u64, PB_OFF(replay.steps), 1,
     "the recording holds K training steps: totals per step", NULL, replay_elsewhere},
    {"csv", 0, "FILE", pb_opt_file, PB_OFF(replay.csv_path), 0,
     "the per-communicator table as CSV (replaced)", "@file", NULL},
    {"quiet", 'q', NULL, pb_opt_flag, PB_OFF(run.quiet), 0, "the table only, no head", NULL, NULL},
};
static const pb_opt_group_t replay_group = PB_GROUP("replaying:", replay_specs, NULL);

static void replay_defaults(pb_options_t *o)
{
    pb_run_defaults(o);
    o->replay.iters = 5;
    o->replay.warmup = 1;
    o->replay.scale = 1.0;
    o->meas.check = 1;
}

static int replay_finish(pb_options_t *o, pb_err_t *err)
{
    if (o->replay.ninputs == 0)
        return pb_err_set(err, PB_EINPUT, "parbench replay needs the recording: a directory of "
                          "profiler record files or PyTorch traces, or an ops CSV");
    if (o->run.fault == PB_FAULT_STALL || o->run.fault == PB_FAULT_HANG)
        return pb_err_set(err, PB_EINPUT, "replay takes --fault corrupt:R only");
    return pb_run_finish(o, err);
}

const pb_cmd_desc_t pb_cmd_replay = {
    PB_CMD_REPLAY, "replay", "PROFILE: a recorded job's communication, run again (parbench replay --help)",
    "usage: parbench replay PROFILE [PROFILE ...] [OPTIONS]\n"
    "\n"
    "Runs a recorded job's communication again on this cluster and compares it\n"
    "with the recording: this job's communication on this cluster.  PROFILE is\n"
    "what parbench profile reads: a directory of parbench's NCCL profiler record\n"
    "files or of PyTorch profiler traces, such files, or parbench's ops CSV.\n"
    "Every recorded operation runs with its collective, size and type on a group\n"
    "of the same global ranks as its recorded communicator, one rank per\n"
    "recorded rank (the default --np).  The operations run in one order that\n"
    "every rank shares - each at the median of its members' recorded issue\n"
    "times, a send together with its receive - so that no interleaving of\n"
    "communicators can deadlock, and each completes before the next.  A first\n"
    "pass verifies every result exactly (as coll --check), then --iters passes\n"
    "are timed.  Per communicator: its operations and bytes, the recorded time\n"
    "(the slowest member's sum of its operations' durations: GPU time where\n"
    "recorded, else end - start) and the replayed one (the same, measured; the\n"
    "median pass), their ratio and the wrong elements; then the whole job's.\n"
    "Exit 1 when a result is wrong, 2 for a recording that cannot be replayed.\n",
    {{&replay_group, NULL}, {&pb_grp_check, NULL}, {&pb_grp_launch, NULL}, {&pb_grp_help, NULL}},
    "Operations the recording holds but parbench does not run (Barrier, Gather,\n"
    "a send without its receive, a communicator whose members were not recorded)\n"
    "are counted in the head and left out of both sides of the comparison.\n",
    PB_MAX_INPUTS, replay_defaults, replay_finish, NULL, NULL, pb_replay_cmd, 0, NULL};
