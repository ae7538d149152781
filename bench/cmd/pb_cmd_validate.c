#include "pb_cmd_validate.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../validate/pb_tournament.h"
#include "../run/pb_progress.h"
#include "pb_validate_judge.h"
#include "../cli/pb_opt_common.h"

/* One vote of one pair, on both of its ranks: the best of the trials,
 * in seconds per exchange as this rank saw it.  Timed like every other
 * command, through the backend's marks (host: the clock; device: events
 * on the group's stream), so that on a GPU the time is the transfer's,
 * not the enqueue's. */
int pb_validate_measure(pb_ctx_t *ctx, int peer, void *sbuf, void *rbuf, uint64_t bytes,
                        int how, double *best, pb_err_t *err)
{
    pb_group_t *g = ctx->world_group;
    const pb_comm_ops_t *ops = ctx->be.comm;
    int per = pb_validate_per_count(ctx->opt, ctx->rank, peer, how & PB_VM_ALONE);
    int first = how & PB_VM_FIRST;
    snprintf(g->doing, sizeof g->doing, "validate: send/recv %" PRIu64 " B, pair %d-%d", bytes,
             ctx->rank < peer ? ctx->rank : peer, ctx->rank < peer ? peer : ctx->rank);
    /* untimed exchanges first: connection setup and the first touch of
     * the shared-memory queues would otherwise slow whichever pair is
     * measured first */
    for (int r = 0; first && r < PB_VALIDATE_REPS; r++)
        if (ops->sendrecv(g, sbuf, peer, rbuf, peer, bytes, PB_I8, err) != PB_OK)
            return err->code;
    if (first && ops->sync(g, err) != PB_OK)
        return err->code;
    for (int t = 0; t < PB_VALIDATE_TRIALS; t++) {
        double dt = 0.0;
        if (ops->mark(g, 0, err) != PB_OK)
            return err->code;
        for (int r = 0; r < PB_VALIDATE_REPS * per; r++)
            if (ops->sendrecv(g, sbuf, peer, rbuf, peer, bytes, PB_I8, err) != PB_OK)
                return err->code;
        if (ops->mark(g, 1, err) != PB_OK || ops->elapsed(g, 0, 1, &dt, err) != PB_OK)
            return err->code;
        if (t == 0 || dt < *best)
            *best = dt;
    }
    *best /= PB_VALIDATE_REPS;
    return PB_OK;
}

/* Buffers through the backend (device memory on NCCL), filled by it: the
 * send buffer with this rank's pattern, the receive buffer poisoned; all
 * done before the first timed exchange. */
static int prepare(pb_ctx_t *ctx, uint64_t bytes, void **sbuf, void **rbuf, pb_err_t *err)
{
    const pb_mem_ops_t *ops = ctx->be.mem;
    pb_group_t *g = ctx->world_group;
    if (ops->alloc(&ctx->be, bytes, sbuf, err) != PB_OK ||
        ops->alloc(&ctx->be, bytes, rbuf, err) != PB_OK)
        return err->code;
    if (ops->fill(g, *sbuf, bytes, PB_I8, (uint64_t)ctx->rank, 101, err) != PB_OK ||
        ops->poison(g, *rbuf, bytes, err) != PB_OK || ctx->be.comm->sync(g, err) != PB_OK)
        return err->code;
    return PB_OK;
}

/* Waits without spinning: idle ranks must not take the CPU the measured
 * pairs run on (ranks may outnumber cores).  The backend's collectives
 * cannot do that (MPI spins; NCCL's barrier is an all-reduce on the
 * device), so the rounds are coordinated on the control world, quiet
 * while validate runs (pb_ctl.h); only the timed exchanges and the
 * buffers go through the backend. */
void pb_validate_barrier(pb_ctx_t *ctx, pb_err_t *err)
{
    if (pb_ctl_barrier(ctx->world) != PB_OK) {
        pb_err_set(err, PB_ERUNTIME, "barrier failed");
        pb_ctx_abort(ctx, err);
    }
}

/* Pairs in round r, counted from the schedule alone (every rank gets the
 * same number). */
static size_t pairs_in(const pb_ctx_t *ctx, const pb_tourn_t *t, int r)
{
    size_t n = 0;
    for (int a = 0; a < ctx->size; a++)
        n += pb_validate_partner(ctx, t, r, a) > a;
    return n;
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* Pairs in the whole schedule, without walking it: a node of L ranks has
 * L(L-1)/2 local pairs; two nodes meet once, on min(La, Lb) rails (1 for
 * leaders); with nodes sorted by size, node i is the smaller of its
 * meetings with the nodes after it. */
static size_t schedule_pairs(const pb_tourn_t *t, int *sizes_sorted)
{
    size_t n = 0;
    int nn = t->nnodes;
    if (t->intra > 0)
        for (int k = 0; k < nn; k++)
            n += (size_t)t->size[k] * (size_t)(t->size[k] - 1) / 2;
    if (t->cross == 0)
        return n;
    if (t->pairs == PB_TOURN_LEADERS)
        return n + (size_t)nn * (size_t)(nn - 1) / 2;
    for (int i = 0; i < nn; i++)
        sizes_sorted[i] = t->size[i];
    qsort(sizes_sorted, (size_t)nn, sizeof *sizes_sorted, cmp_int);
    for (int i = 0; i < nn; i++)
        n += (size_t)sizes_sorted[i] * (size_t)(nn - 1 - i);
    return n;
}

/* The rounds --max-pairs allows: whole rounds while they fit, at least
 * one (a cap below one round's pairs still measures something). */
static int rounds_allowed(const pb_ctx_t *ctx, const pb_tourn_t *t, size_t *planned)
{
    uint64_t cap = ctx->opt->validate.max_pairs;
    size_t sum = 0;
    int r = 0, total = pb_tourn_total(t);
    for (; r < total; r++) {
        size_t n = pairs_in(ctx, t, r);
        if (r > 0 && sum + n > cap)
            break;
        sum += n;
    }
    *planned = sum;
    return r;
}

/* One round on every rank: its votes with its partner (or quiet waits
 * when it rests), then its times to rank 0, which judges them. */
static void run_round(pb_ctx_t *ctx, const pb_tourn_t *t, int round, void *sbuf, void *rbuf,
                      uint64_t bytes, double *all, pb_vjudge_t *j, pb_err_t *err)
{
    int peer = pb_validate_partner(ctx, t, round, ctx->rank);
    double mine[PB_VALIDATE_VOTES] = {0};
    for (int v = 0; v < PB_VALIDATE_VOTES; v++) {
        pb_watch_tick(ctx->wd);
        pb_validate_barrier(ctx, err);
        if (peer >= 0 && pb_validate_measure(ctx, peer, sbuf, rbuf, bytes, v == 0 ? PB_VM_FIRST : 0, &mine[v], err) != PB_OK)
            pb_ctx_abort(ctx, err);
    }
    if (pb_ctl_gather(ctx->world, mine, all, sizeof mine, 0) != PB_OK) {
        pb_err_set(err, PB_ERUNTIME, "gathering round %d's times failed", round);
        pb_ctx_abort(ctx, err);
    }
    if (ctx->rank == 0 && pb_vjudge_round(j, round, all, err) != PB_OK)
        pb_ctx_abort(ctx, err);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Rank 0 says whether round `done` runs (0), or why not: the budget is
 * spent (1; the first round always runs, so that a budget shorter than a
 * round still measures something).  Every rank waits for the word
 * without spinning. */
static int go_on(pb_ctx_t *ctx, int done, double t0, pb_err_t *err)
{
    int stop = ctx->rank == 0 && done > 0 && ctx->opt->validate.budget_s > 0.0 &&
               now_s() - t0 >= ctx->opt->validate.budget_s;
    if (pb_ctl_bcast(ctx->world, &stop, sizeof stop, 0) != PB_OK) {
        pb_err_set(err, PB_ERUNTIME, "broadcast failed");
        pb_ctx_abort(ctx, err);
    }
    return !stop;
}

static int check_input(const pb_ctx_t *ctx, uint64_t bytes, pb_err_t *err)
{
    if (ctx->size < 2)
        return pb_err_set(err, PB_EINPUT, "validate needs at least 2 ranks");
    if (bytes == 0)
        return pb_err_set(err, PB_EINPUT, "validate needs a message of at least 1 B");
    return PB_OK;
}

/* Every round, while rank 0's budget lasts, with the control world
 * quiet so that resting ranks sleep (pb_validate_barrier).  Returns the rounds
 * run. */
static int run_rounds(pb_ctx_t *ctx, const pb_tourn_t *t, int rounds, void *sbuf, void *rbuf,
                      uint64_t bytes, double *all, pb_vjudge_t *j, pb_err_t *err)
{
    pb_progress_t prog;
    pb_progress_start(&prog, pb_progress_wanted(ctx->rank, ctx->opt->run.quiet),
                      (uint64_t)rounds);
    pb_watch_begin(ctx->wd, "validate: %d rounds of concurrent send/recv pairs", rounds);
    double t0 = now_s();
    int done = 0;
    ctx->world->quiet = 1;
    for (; done < rounds && go_on(ctx, done, t0, err); done++) {
        char what[96];
        snprintf(what, sizeof what, "validate round %d/%d (%s)", done + 1, rounds,
                 pb_tourn_is_cross(t, done) ? "cross-node" : "intra-node");
        pb_progress_step(&prog, what);
        run_round(ctx, t, done, sbuf, rbuf, bytes, all, j, err);
    }
    ctx->world->quiet = 0;
    pb_watch_end(ctx->wd);
    pb_progress_clear(&prog);
    return done;
}

/* The message: -b, else large enough that a link's latency is a small
 * part of a transfer, so that its share of the line rate is the link's:
 * 256 MiB where the backend moves device memory (0.7 ms at 380 GB/s, a
 * healthy NVLink 4 pair, against about 10 us of latency), 1 MiB on host
 * memory, where no line rate is known (doc/topology-and-validate.md). */
static uint64_t message_bytes(const pb_ctx_t *ctx)
{
    uint64_t b = ctx->opt->validate.bytes;
    if (b != PB_VALIDATE_AUTO_BYTES)
        return b;
    return pb_backend_has(&ctx->be, PB_CAP_DEVICE_MEM) ? UINT64_C(256) << 20 : UINT64_C(1) << 20;
}

typedef struct vrun {
    int *sizes, *sorted;
    double *all;
    void *sbuf, *rbuf;
    pb_vexpect_rank_t *facts;
    pb_tourn_t t;
    pb_vjudge_t j;
} vrun_t;

/* The schedule, the buffers, the link facts and rank 0's judge: every
 * rank returns the same code. */
static int set_up(pb_ctx_t *ctx, vrun_t *v, uint64_t bytes, pb_err_t *err)
{
    const pb_nodemap_t *m = &ctx->map;
    int nn = m->nnodes, pairs = ctx->opt->validate.pairs;
    v->sizes = calloc((size_t)nn, sizeof *v->sizes);
    v->sorted = calloc((size_t)nn, sizeof *v->sorted);
    v->all = ctx->rank == 0 ? calloc((size_t)ctx->size * PB_VALIDATE_VOTES, sizeof *v->all) : NULL;
    int code = v->sizes && v->sorted && (v->all || ctx->rank != 0)
                   ? PB_OK
                   : pb_err_set(err, PB_ERUNTIME, "out of memory for validate's schedule");
    if (code == PB_OK) {
        for (int n = 0; n < nn; n++)
            v->sizes[n] = pb_rankmap_node_size(m, n);
        pb_tourn_init(&v->t, (pb_tourn_pairs_t)pairs, nn, v->sizes);
    }
    if (code == PB_OK && pb_tourn_total(&v->t) == 0)
        code = pb_err_set(err, PB_EINPUT, "validate --pairs %s: no pair to measure on %d node%s "
                          "of %d rank%s", pairs == PB_TOURN_LOCAL ? "local" : "rails/leaders",
                          nn, nn == 1 ? "" : "s", v->sizes[0], v->sizes[0] == 1 ? "" : "s");
    if (code == PB_OK)
        code = prepare(ctx, bytes, &v->sbuf, &v->rbuf, err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK || pb_validate_facts(ctx, &v->facts, err) != PB_OK)
        return err->code;
    code = ctx->rank == 0 ? pb_vjudge_init(&v->j, ctx, &v->t, bytes, v->facts, err) : PB_OK;
    return pb_ctx_agree(ctx, code, err) != PB_OK ? err->code : PB_OK;
}

static void tear_down(pb_ctx_t *ctx, vrun_t *v)
{
    if (v->rbuf)
        ctx->be.mem->free(&ctx->be, v->rbuf);
    if (v->sbuf)
        ctx->be.mem->free(&ctx->be, v->sbuf);
    if (ctx->rank == 0)
        pb_vjudge_free(&v->j);
    free(v->facts);
    free(v->all);
    free(v->sizes);
    free(v->sorted);
}

/* The whole command: the schedule, every round, the flagged pairs
 * re-measured, rank 0's verdict, and the verdict's exit code on every
 * rank. */
int pb_validate_cmd(pb_ctx_t *ctx, pb_err_t *err)
{
    const pb_options_t *o = ctx->opt;
    uint64_t bytes = message_bytes(ctx);
    int code = check_input(ctx, bytes, err);
    if (code != PB_OK)
        return code;
    vrun_t v;
    memset(&v, 0, sizeof v);
    code = set_up(ctx, &v, bytes, err);
    if (code != PB_OK)
        goto out;
    size_t total = schedule_pairs(&v.t, v.sorted), planned = 0;
    int rounds = rounds_allowed(ctx, &v.t, &planned), done = 0;
    done = run_rounds(ctx, &v.t, rounds, v.sbuf, v.rbuf, bytes, v.all, &v.j, err);
    code = pb_validate_confirm(ctx, &v.j, v.sbuf, v.rbuf, bytes, err);
    char stopped[160] = "";
    if (done < rounds)
        snprintf(stopped, sizeof stopped, "--budget %g s spent after %d of %d rounds",
                 o->validate.budget_s, done, pb_tourn_total(&v.t));
    else if (rounds < pb_tourn_total(&v.t))
        snprintf(stopped, sizeof stopped, "--max-pairs %" PRIu64 " stops after %d of %d rounds",
                 o->validate.max_pairs, rounds, pb_tourn_total(&v.t));
    if (ctx->rank == 0 && code == PB_OK)
        code = pb_vjudge_report(&v.j, total, stopped, err);
    /* rank 0 holds the verdict; every rank exits with its code */
    if (pb_ctl_bcast(ctx->world, &code, sizeof code, 0) != PB_OK) {
        pb_err_set(err, PB_ERUNTIME, "broadcast of the verdict failed");
        pb_ctx_abort(ctx, err);
    }
    if (ctx->rank != 0 && code != PB_OK)
        pb_err_set(err, code, "validate: see rank 0");
out:
    tear_down(ctx, &v);
    return code;
}

/* ---- the command: its options and table row ----------------------- */

/* --pairs all|local|rails|leaders: the order of pb_tourn_pairs_t */
static int set_pairs(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                     pb_err_t *err)
{
    (void)s, (void)shown;
    static const char *const modes[] = {"all", "local", "rails", "leaders"};
    for (int k = 0; k < 4; k++)
        if (strcmp(v, modes[k]) == 0) {
            o->validate.pairs = k;
            return PB_OK;
        }
    return pb_err_set(err, PB_EINPUT, "validate --pairs takes all, local, rails or leaders, "
                      "not '%s'", v);
}

/* --expect CLASS=GB/s[,...]: repeatable, a class given again keeps the last */
static int set_expect(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                      pb_err_t *err)
{
    (void)s, (void)shown;
    return pb_vexpect_parse(&o->validate.expect, v, err);
}

static const pb_opt_spec_t validate_specs[] = {
    {"pairs", 0, "P", set_pairs, 0, 0,
     "all (default: intra-node rounds, then cross-node rounds\n"
     "on every rail), local (within nodes), rails (across nodes,\n"
     "every rail) or leaders (across nodes, rail 0 only)", "all local rails leaders", NULL},
    {"budget", 0, "T", pb_opt_duration, PB_OFF(validate.budget_s), 0,
     "start no round after a time T (90s, 2m, 1h); report\nwhat was measured (the first round always runs)",
     NULL, NULL},
    {"max-pairs", 0, "N", pb_opt_u64, PB_OFF(validate.max_pairs), 1,
     "stop before the round that would pass N pairs (default\n256; the first round always runs)",
     NULL, NULL},
    {"min-ratio", 0, "R", pb_opt_pos, PB_OFF(validate.min_ratio), 0,
     "flag pairs below R x the median of their class in their\nround in most votes (default 0.8)",
     NULL, NULL},
    {"expect", 0, "CLASS=GB/s", set_expect, 0, 0,
     "expected GB/s per direction of a link class (NV18, NV,\n"
     "PIX, NET, CORE, ...; comma-separated or repeated): wins\n"
     "over the line rate found from the topology", NULL, NULL},
    {"min-share", 0, "S", pb_opt_pos, PB_OFF(validate.min_share), 0,
     "flag pairs below S x their expected GB/s in most votes\n(default 0.7)", NULL, NULL},
    {"confirm", 0, "N", pb_opt_u64, PB_OFF(validate.confirm), 1,
     "re-measure at most N flagged pairs alone, most suspicious\nfirst (default 64)", NULL, NULL},
    {"minbytes", 'b', "S", pb_opt_size, PB_OFF(validate.bytes), 0,
     "message size (default 256M on device memory, 1M on host\nmemory)", NULL, NULL},
};
static const pb_opt_group_t validate_group = PB_GROUP("", validate_specs, NULL);

static void validate_defaults(pb_options_t *o)
{
    pb_run_defaults(o);
    o->validate.max_pairs = 256;
    o->validate.min_ratio = 0.8;
    o->validate.min_share = PB_VEXPECT_MIN_SHARE;
    o->validate.confirm = 64;
    o->validate.bytes = PB_VALIDATE_AUTO_BYTES;
}

static int validate_finish(pb_options_t *o, pb_err_t *err)
{
    if (o->validate.min_ratio > 1.0)
        return pb_err_set(err, PB_EINPUT, "--min-ratio must be at most 1 (got %g)",
                          o->validate.min_ratio);
    if (o->validate.min_share > 1.0)
        return pb_err_set(err, PB_EINPUT, "--min-share must be at most 1 (got %g)",
                          o->validate.min_share);
    return PB_OK;
}

const pb_cmd_desc_t pb_cmd_validate = {
    PB_CMD_VALIDATE, "validate", "send/recv bandwidth of rank pairs, in concurrent rounds, against their class and their link",
    "usage: parbench validate [OPTIONS]\n"
    "\n"
    "Measures send/recv bandwidth of rank pairs in rounds of pairs that run at\n"
    "once: first every node's local pairs (a round-robin of its ranks), then a\n"
    "round-robin of the nodes, rail-aligned (local rank i with local rank i):\n"
    "N-1 rounds for N nodes.  Each round is timed in 7 votes.  A pair is flagged\n"
    "when, in most votes, it is below --min-ratio x the median of the other\n"
    "pairs of its class in its round, or below --min-share x its expected GB/s\n"
    "(its link's line rate from the topology: NVLinks, PCIe link, NIC; or\n"
    "--expect CLASS=GB/s).  A flagged pair is re-measured alone, beside a pair\n"
    "of its class, and only what holds again is called slow; the rest is\n"
    "cleared as noise.  Slow pairs are named as slow ranks (slow with every\n"
    "partner), NICs, rails (slow on every node pair using it) or pairs.\n"
    "Exit 1 when a pair is confirmed slow, 2 when no pair could be judged.\n"
    "--csv appends one row per pair (pattern validate, with expect_gbps and\n"
    "verdict); --fault slow:A-B slows one pair, slow-rank:R every pair of a\n"
    "rank, noisy:A-B one pair in the rounds only (tests the flagging, the\n"
    "naming and the clearing).\n",
    {{&validate_group, NULL}, {&pb_grp_output, NULL}, {&pb_grp_launch, NULL}, {&pb_grp_help, NULL}},
    "", 0, validate_defaults, validate_finish, NULL, NULL, pb_validate_cmd, 0, NULL};
