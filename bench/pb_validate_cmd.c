#include "pb_validate_cmd.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../model/pb_outlier.h"
#include "pb_stats.h"

/* Many short trials, keeping the best of each round: load from elsewhere
 * only ever slows a pair down, and a trial short enough to fit in one
 * scheduler time slice catches the pair running undisturbed at least
 * once.  Every round's best is kept and the rounds vote (model/
 * pb_outlier.h): a burst of load from elsewhere hits one round of a pair,
 * not most of them. */
#define PB_VALIDATE_REPS 2   /* exchanges per trial */
#define PB_VALIDATE_TRIALS 8 /* per round */
#define PB_VALIDATE_ROUNDS 7 /* sweeps over all pairs; odd, so no vote ties */
/* --fault slow:A-B: every timed exchange of the pair is followed by 20
 * more, timed with it, so the pair's bandwidth is about 1/21 of its own,
 * far below any sensible --min-ratio: a test of the flagging proves
 * detection, not luck.  Extra exchanges, not a sleep: they slow down with
 * the pair under load from elsewhere, so the ratio stays near 1/21 on a
 * busy machine too (a sleep of fixed length does not: on 2 cores with
 * spinning processes a healthy exchange waited up to 8 ms for their time
 * slices, which a 20 ms sleep beat by only 2.5x), and they add no sleep
 * whose wake-up skew between the two ranks would slow the next exchange. */
#define PB_VALIDATE_SLOWDOWN 20

typedef struct vpair {
    int a, b;
    char cls[16];
    double gbps;         /* per direction: median over rounds */
    pb_stats_t st;       /* seconds per exchange, over the rounds' bests */
    pb_outlier_t judged;
} vpair_t;

/* Pairs to measure.  With GPUs: all pairs inside each node plus one per
 * node pair (local rank 0 of each), the links that matter; host ranks:
 * every pair.  Bounded by --max-pairs. */
static size_t choose_pairs(const pb_ctx_t *ctx, vpair_t *out, size_t cap, size_t *total)
{
    const pb_nodemap_t *m = &ctx->map;
    int gpus = m->ranks[0].gpu >= 0;
    size_t n = 0;
    *total = 0;
    for (int a = 0; a < m->size; a++)
        for (int b = a + 1; b < m->size; b++) {
            const pb_rank_info_t *ra = &m->ranks[a], *rb = &m->ranks[b];
            int take = !gpus || ra->node == rb->node ||
                       (ra->local_rank == 0 && rb->local_rank == 0);
            if (!take)
                continue;
            (*total)++;
            if (n < cap) {
                memset(&out[n], 0, sizeof out[n]);
                out[n].a = a;
                out[n].b = b;
                n++;
            }
        }
    return n;
}

/* A barrier that sleeps instead of spinning: idle ranks must not take
 * the CPU the measured pair runs on (ranks may outnumber cores).  The
 * backend's barrier cannot do that (MPI_Barrier spins; NCCL's is an
 * all-reduce on the device), so this one coordinates on the MPI world;
 * only the timed exchanges and the buffers go through the backend. */
static int quiet_barrier(MPI_Comm c)
{
    MPI_Request req;
    if (MPI_Ibarrier(c, &req) != MPI_SUCCESS)
        return -1;
    int done = 0;
    struct timespec ts = {0, 200000};
    while (!done) {
        if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -1;
        if (!done)
            nanosleep(&ts, NULL);
    }
    return 0;
}

/* Exchanges timed for each one counted: 1, or 1 + PB_VALIDATE_SLOWDOWN
 * for the pair --fault slow names. */
static int exchanges_per_count(const pb_options_t *o, const vpair_t *p)
{
    int slowed = o->run.fault == PB_FAULT_SLOW &&
                 ((o->run.fault_rank == p->a && o->run.fault_peer == p->b) ||
                  (o->run.fault_rank == p->b && o->run.fault_peer == p->a));
    return 1 + (slowed ? PB_VALIDATE_SLOWDOWN : 0);
}

/* One round of one pair, on both of its ranks: the best of the trials,
 * in seconds per exchange as this rank saw it.  Timed like every other
 * command, through the backend's marks (host: the clock; device: events
 * on the group's stream), so that on a GPU the time is the transfer's,
 * not the enqueue's. */
static int measure_pair(pb_ctx_t *ctx, const vpair_t *p, void *sbuf, void *rbuf,
                        uint64_t bytes, int first, double *best, pb_err_t *err)
{
    pb_group_t *g = ctx->world_group;
    const pb_comm_ops_t *ops = ctx->be.comm;
    int peer = ctx->rank == p->a ? p->b : p->a;
    int per = exchanges_per_count(ctx->opt, p);
    snprintf(g->doing, sizeof g->doing, "validate: send/recv %" PRIu64 " B, pair %d-%d", bytes,
             p->a, p->b);
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

/* Judge every pair (model/pb_outlier.h) on its per-round bandwidths; sec
 * holds [round][pair] seconds per exchange, the slower rank of the pair. */
static int judge(const pb_ctx_t *ctx, vpair_t *p, size_t n, const double *sec, uint64_t bytes,
                 pb_err_t *err)
{
    size_t rounds = PB_VALIDATE_ROUNDS;
    double *bw = calloc(rounds * n + 1, sizeof *bw), *tmp = calloc(rounds + 1, sizeof *tmp);
    _Static_assert(PB_VALIDATE_ROUNDS % 2 == 1, "the bandwidth shown is bytes / median time");
    double *scratch = calloc(rounds + 1, sizeof *scratch);
    int *cls = calloc(n + 1, sizeof *cls);
    pb_outlier_t *o = calloc(n + 1, sizeof *o);
    int code = PB_OK;
    if (!bw || !tmp || !scratch || !cls || !o) {
        code = pb_err_set(err, PB_ERUNTIME, "out of memory judging %zu pairs", n);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        pb_link_format(pb_nodemap_link(&ctx->map, p[i].a, p[i].b), p[i].cls, sizeof p[i].cls);
        size_t j = 0;
        while (strcmp(p[j].cls, p[i].cls) != 0)
            j++;
        cls[i] = (int)j; /* the class's id: its first pair */
    }
    /* bytes per second each way; a time of 0 (a clock too coarse to see
     * the exchange) cannot be told from nothing: 0, judged slow, shown */
    for (size_t k = 0; k < rounds * n; k++)
        bw[k] = sec[k] > 0.0 ? (double)bytes / sec[k] / 1e9 : 0.0;
    if ((code = pb_outlier_judge(bw, n, rounds, cls, ctx->opt->validate.min_ratio, o, err)) != PB_OK)
        goto out;
    for (size_t i = 0; i < n; i++) {
        for (size_t r = 0; r < rounds; r++)
            tmp[r] = sec[r * n + i];
        pb_stats_compute(tmp, rounds, scratch, &p[i].st);
        /* an odd count of rounds: the median time is one round's, and
         * that round's bandwidth is the median bandwidth */
        p[i].gbps = p[i].st.median > 0.0 ? (double)bytes / p[i].st.median / 1e9 : 0.0;
        p[i].judged = o[i];
    }
out:
    free(bw);
    free(tmp);
    free(scratch);
    free(cls);
    free(o);
    return code;
}

static void write_row(pb_ctx_t *ctx, const vpair_t *p, uint64_t bytes, pb_err_t *err)
{
    pb_result_t r;
    pb_ctx_result_base(ctx, &r);
    snprintf(r.mode, sizeof r.mode, "throughput");
    snprintf(r.pattern, sizeof r.pattern, "validate");
    snprintf(r.collective, sizeof r.collective, "sendrecv");
    snprintf(r.group, sizeof r.group, "pair:%d-%d", p->a, p->b);
    r.group_size = 2;
    snprintf(r.link_class, sizeof r.link_class, "%s", p->cls);
    r.bytes = bytes;
    snprintf(r.dtype, sizeof r.dtype, "int8");
    /* the exchanges timed (a pair slowed by --fault did 21 for each one
     * counted); the times are per counted exchange, over the rounds' best
     * trials: the numbers the verdict was taken on */
    r.iters = (uint64_t)PB_VALIDATE_ROUNDS * PB_VALIDATE_TRIALS * PB_VALIDATE_REPS *
              (uint64_t)exchanges_per_count(ctx->opt, p);
    r.time_us_min = p->st.min * 1e6;
    r.time_us_median = p->st.median * 1e6;
    r.time_us_p99 = p->st.p99 * 1e6;
    r.time_us_max = p->st.max * 1e6;
    r.algbw_gbps = r.busbw_gbps = p->gbps;
    snprintf(r.redop, sizeof r.redop, "none");
    r.slowest_rank = -1;
    if (pb_ctx_emit(ctx, &r, err) != PB_OK)
        pb_ctx_abort(ctx, err);
}

/* Every rank judged the same numbers (the same exit code everywhere);
 * rank 0 prints and, holding the only CSV writer, writes. */
static int report(pb_ctx_t *ctx, const vpair_t *p, size_t n, size_t total, uint64_t bytes,
                  pb_err_t *err)
{
    int print = ctx->rank == 0 && !ctx->opt->run.quiet;
    const pb_options_t *o = ctx->opt;
    const pb_nodemap_t *m = &ctx->map;
    size_t flagged = 0, alone = 0;
    for (size_t i = 0; i < n; i++) {
        flagged += (size_t)p[i].judged.flagged;
        alone += p[i].judged.rounds == 0;
    }
    if (print) {
        printf("# parbench %s | validate | %zu of %zu pairs, %" PRIu64
               " B send/recv both ways, %d rounds, each the best of %d trials x %d exchanges\n",
               PB_VERSION, n, total, bytes, PB_VALIDATE_ROUNDS, PB_VALIDATE_TRIALS,
               PB_VALIDATE_REPS);
        pb_ctx_print_oversub(ctx, stdout);
        if (n < total)
            printf("# --max-pairs %" PRIu64 " leaves %zu pairs unmeasured\n", o->validate.max_pairs,
                   total - n);
        printf("# GB/s per direction (1e9 B), median of the rounds; ratio per round = GB/s / "
               "median of the other pairs of the class, shown: the rounds' upper median\n");
        printf("# flagged: ratio below %.2f in most rounds (slow = rounds below)\n",
               o->validate.min_ratio);
        printf("%-9s %-8s %-29s %10s %7s %6s  %s\n", "pair", "class", "bus ids", "GB/s", "ratio",
               "slow", "");
        for (size_t i = 0; i < n; i++) {
            const pb_outlier_t *j = &p[i].judged;
            char pair[24], bus[2 * PB_TOPO_NAME + 2], ratio[16], slow[24];
            snprintf(pair, sizeof pair, "%d-%d", p[i].a, p[i].b);
            snprintf(bus, sizeof bus, "%s %s", m->ranks[p[i].a].busid, m->ranks[p[i].b].busid);
            if (j->rounds > 0) {
                snprintf(ratio, sizeof ratio, "%.2f", j->ratio);
                snprintf(slow, sizeof slow, "%d/%d", j->slow_rounds, j->rounds);
            } else {
                snprintf(ratio, sizeof ratio, "-");
                snprintf(slow, sizeof slow, "-");
            }
            printf("%-9s %-8s %-29s %10.3f %7s %6s  %s\n", pair, p[i].cls, bus, p[i].gbps, ratio,
                   slow,
                   j->flagged      ? "FLAGGED"
                   : j->peers == 0 ? "alone in its class: not judged"
                   : j->rounds == 0 ? "no other pair of its class moved data: not judged"
                                    : "ok");
        }
    }
    for (size_t i = 0; i < n && (ctx->csv || ctx->json); i++)
        write_row(ctx, &p[i], bytes, err);
    if (flagged == 0) {
        if (print)
            printf("# every pair judged within %.2f of its class median%s\n", o->validate.min_ratio,
                   alone ? " (pairs not judged: see above)" : "");
        return PB_OK;
    }
    char list[320] = "";
    size_t len = 0;
    for (size_t i = 0; i < n && len < sizeof list - 40; i++)
        if (p[i].judged.flagged)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%d-%d (%s, bus %s %s)",
                                    len ? ", " : "", p[i].a, p[i].b, p[i].cls,
                                    m->ranks[p[i].a].busid, m->ranks[p[i].b].busid);
    return pb_err_set(err, PB_EVERIFY, "validate: %zu of %zu pairs below %.2f x their class median: %s",
                      flagged, n, o->validate.min_ratio, list);
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

int pb_validate_cmd(pb_ctx_t *ctx, pb_err_t *err)
{
    const pb_options_t *o = ctx->opt;
    uint64_t bytes = o->validate.bytes;
    if (ctx->size < 2)
        return pb_err_set(err, PB_EINPUT, "validate needs at least 2 ranks");
    if (o->run.fault == PB_FAULT_SLOW && (o->run.fault_rank >= ctx->size || o->run.fault_peer >= ctx->size))
        return pb_err_set(err, PB_EINPUT, "--fault slow:%d-%d names a rank outside the %d launched",
                          o->run.fault_rank, o->run.fault_peer, ctx->size);
    if (bytes == 0)
        return pb_err_set(err, PB_EINPUT, "validate needs a message of at least 1 B");
    size_t cap = (size_t)o->validate.max_pairs, total = 0;
    size_t all = (size_t)ctx->size * (size_t)(ctx->size - 1) / 2;
    if (cap > all)
        cap = all;
    if (cap > (size_t)INT_MAX / PB_VALIDATE_ROUNDS) /* one MPI_Allreduce count */
        return pb_err_set(err, PB_EINPUT, "validate measures at most %d pairs: give --max-pairs",
                          INT_MAX / PB_VALIDATE_ROUNDS);
    vpair_t *p = calloc(cap + 1, sizeof *p);
    double *sec = calloc((size_t)PB_VALIDATE_ROUNDS * cap + 1, sizeof *sec);
    void *sbuf = NULL, *rbuf = NULL;
    int code = p && sec ? PB_OK : pb_err_set(err, PB_ERUNTIME, "out of memory");
    if (code == PB_OK)
        code = prepare(ctx, bytes, &sbuf, &rbuf, err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK) {
        code = err->code;
        goto out;
    }
    size_t n = choose_pairs(ctx, p, cap, &total);
    pb_watch_begin(ctx->wd, "validate: send/recv between %zu pairs of ranks", n);
    /* sec[round][pair]: this rank's best seconds per exchange where it is
     * in the pair, 0 elsewhere; the MAX below makes it the slower of the
     * pair's two ranks (a transfer takes as long as its slower end) */
    for (int round = 0; round < PB_VALIDATE_ROUNDS; round++)
        for (size_t i = 0; i < n; i++) {
            pb_watch_tick(ctx->wd);
            if (quiet_barrier(ctx->world) != 0) {
                pb_err_set(err, PB_ERUNTIME, "barrier failed");
                pb_ctx_abort(ctx, err);
            }
            if (ctx->rank == p[i].a || ctx->rank == p[i].b)
                if (measure_pair(ctx, &p[i], sbuf, rbuf, bytes, round == 0,
                                 &sec[(size_t)round * n + i], err) != PB_OK)
                    pb_ctx_abort(ctx, err);
        }
    int rc = MPI_Allreduce(MPI_IN_PLACE, sec, (int)((size_t)PB_VALIDATE_ROUNDS * n), MPI_DOUBLE,
                           MPI_MAX, ctx->world);
    if (rc != MPI_SUCCESS) {
        pb_err_set(err, PB_ERUNTIME, "MPI_Allreduce of the pairs' times failed (%d)", rc);
        pb_ctx_abort(ctx, err);
    }
    pb_watch_end(ctx->wd);
    code = judge(ctx, p, n, sec, bytes, err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK) {
        code = err->code;
        goto out;
    }
    code = report(ctx, p, n, total, bytes, err);
out:
    if (rbuf)
        ctx->be.mem->free(&ctx->be, rbuf);
    if (sbuf)
        ctx->be.mem->free(&ctx->be, sbuf);
    free(sec);
    free(p);
    return code;
}
