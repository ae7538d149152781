#include "pb_validate_cmd.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Many short trials, keeping the best: load from elsewhere only ever
 * slows a pair down, and a trial short enough to fit in one scheduler
 * time slice catches the pair running undisturbed at least once. */
#define PB_VALIDATE_REPS 2   /* exchanges per trial */
#define PB_VALIDATE_TRIALS 8 /* per round */
#define PB_VALIDATE_ROUNDS 5 /* sweeps over all pairs: a burst of load from
                              * elsewhere hits one round, not all of them */
#define PB_VALIDATE_SLOWDOWN 4 /* --fault slow: extra transfers per exchange */

typedef struct vpair {
    int a, b;
    double gbps; /* per direction, best trial */
    double seconds; /* of that trial */
    char cls[16];
    double ratio;
    int flagged;
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
 * the CPU the measured pair runs on (ranks may outnumber cores). */
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

static int measure_pair(pb_ctx_t *ctx, vpair_t *p, void *sbuf, void *rbuf, uint64_t bytes,
                        int first, pb_err_t *err)
{
    const pb_options_t *o = ctx->opt;
    int me = ctx->rank, peer = me == p->a ? p->b : p->a;
    int slow = o->fault == PB_FAULT_SLOW &&
               ((o->fault_rank == p->a && o->fault_peer == p->b) ||
                (o->fault_rank == p->b && o->fault_peer == p->a));
    int per = 1 + (slow ? PB_VALIDATE_SLOWDOWN : 0);
    const pb_backend_ops_t *ops = ctx->be.ops;
    double best = 0.0;
    /* untimed exchanges first: connection setup and the first touch of
     * the shared-memory queues would otherwise slow whichever pair is
     * measured first */
    for (int r = 0; first && r < PB_VALIDATE_REPS; r++)
        if (ops->sendrecv(ctx->world_group, sbuf, peer, rbuf, peer, bytes, PB_I8, err) != PB_OK)
            return err->code;
    for (int t = 0; t < PB_VALIDATE_TRIALS; t++) {
        double t0 = MPI_Wtime();
        for (int r = 0; r < PB_VALIDATE_REPS * per; r++)
            if (ops->sendrecv(ctx->world_group, sbuf, peer, rbuf, peer, bytes, PB_I8, err) !=
                PB_OK)
                return err->code;
        double dt = MPI_Wtime() - t0;
        if (t == 0 || dt < best)
            best = dt;
    }
    double gbps = best > 0.0 ? (double)bytes * PB_VALIDATE_REPS / best / 1e9 : 0.0;
    if (first || gbps > p->gbps) {
        p->seconds = best / PB_VALIDATE_REPS;
        p->gbps = gbps;
    }
    return PB_OK;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Median bandwidth of the pairs of one class. */
static double class_median(const vpair_t *p, size_t n, const char *cls, double *tmp)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(p[i].cls, cls) == 0)
            tmp[k++] = p[i].gbps;
    qsort(tmp, k, sizeof *tmp, cmp_double);
    return k == 0 ? 0.0 : k % 2 ? tmp[k / 2] : 0.5 * (tmp[k / 2 - 1] + tmp[k / 2]);
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
    r.iters = PB_VALIDATE_REPS;
    r.time_us_min = r.time_us_median = r.time_us_p99 = r.time_us_max = p->seconds * 1e6;
    r.algbw_gbps = r.busbw_gbps = p->gbps;
    snprintf(r.redop, sizeof r.redop, "none");
    r.slowest_rank = -1;
    if (pb_ctx_emit(ctx, &r, err) != PB_OK)
        pb_ctx_abort(ctx, err);
}

/* Every rank judges the same numbers (the same exit code everywhere);
 * rank 0 prints and, holding the only CSV writer, writes. */
static int report(pb_ctx_t *ctx, vpair_t *p, size_t n, size_t total, uint64_t bytes,
                  pb_err_t *err)
{
    int print = ctx->rank == 0 && !ctx->opt->quiet;
    const pb_options_t *o = ctx->opt;
    const pb_nodemap_t *m = &ctx->map;
    double *tmp = calloc(n + 1, sizeof *tmp);
    if (tmp == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    size_t flagged = 0;
    for (size_t i = 0; i < n; i++) {
        double med = class_median(p, n, p[i].cls, tmp);
        p[i].ratio = med > 0.0 ? p[i].gbps / med : 0.0;
        p[i].flagged = p[i].ratio < o->min_ratio;
        flagged += (size_t)p[i].flagged;
    }
    free(tmp);
    if (print) {
        printf("# parbench %s | validate | %zu of %zu pairs, %" PRIu64
               " B send/recv both ways, best of %d rounds x %d trials x %d exchanges\n",
               PB_VERSION, n, total, bytes, PB_VALIDATE_ROUNDS, PB_VALIDATE_TRIALS,
               PB_VALIDATE_REPS);
        if (n < total)
            printf("# --max-pairs %" PRIu64 " leaves %zu pairs unmeasured\n", o->max_pairs,
                   total - n);
        printf("# GB/s per direction (1e9 B); ratio = GB/s / median of the pair's class; "
               "flagged below %.2f\n", o->min_ratio);
        printf("%-9s %-8s %-29s %10s %7s  %s\n", "pair", "class", "bus ids", "GB/s", "ratio",
               "");
        for (size_t i = 0; i < n; i++) {
            char pair[24], bus[2 * PB_TOPO_NAME + 2];
            snprintf(pair, sizeof pair, "%d-%d", p[i].a, p[i].b);
            snprintf(bus, sizeof bus, "%s %s", m->ranks[p[i].a].busid, m->ranks[p[i].b].busid);
            printf("%-9s %-8s %-29s %10.3f %7.2f  %s\n", pair, p[i].cls, bus, p[i].gbps,
                   p[i].ratio, p[i].flagged ? "FLAGGED" : "ok");
        }
    }
    for (size_t i = 0; i < n && (ctx->csv || ctx->json); i++)
        write_row(ctx, &p[i], bytes, err);
    if (flagged == 0) {
        if (print)
            printf("# every pair within %.2f of its class median\n", o->min_ratio);
        return PB_OK;
    }
    char list[320] = "";
    size_t len = 0;
    for (size_t i = 0; i < n && len < sizeof list - 40; i++)
        if (p[i].flagged)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%d-%d (%s, bus %s %s)",
                                    len ? ", " : "", p[i].a, p[i].b, p[i].cls,
                                    m->ranks[p[i].a].busid, m->ranks[p[i].b].busid);
    return pb_err_set(err, PB_EVERIFY, "validate: %zu of %zu pairs below %.2f x their class median: %s",
                      flagged, n, o->min_ratio, list);
}

int pb_validate_cmd(pb_ctx_t *ctx, pb_err_t *err)
{
    const pb_options_t *o = ctx->opt;
    uint64_t bytes = (o->sizes_given & 1) ? o->size_min : UINT64_C(1) << 20;
    if (ctx->size < 2)
        return pb_err_set(err, PB_EINPUT, "validate needs at least 2 ranks");
    if (o->fault == PB_FAULT_SLOW && (o->fault_rank >= ctx->size || o->fault_peer >= ctx->size))
        return pb_err_set(err, PB_EINPUT, "--fault slow:%d-%d names a rank outside the %d launched",
                          o->fault_rank, o->fault_peer, ctx->size);
    if (bytes == 0)
        return pb_err_set(err, PB_EINPUT, "validate needs a message of at least 1 B");
    size_t cap = (size_t)o->max_pairs, total = 0;
    size_t all = (size_t)ctx->size * (size_t)(ctx->size - 1) / 2;
    if (cap > all)
        cap = all;
    vpair_t *p = calloc(cap + 1, sizeof *p);
    void *sbuf = NULL, *rbuf = NULL;
    int code = p ? PB_OK : pb_err_set(err, PB_ERUNTIME, "out of memory");
    if (code == PB_OK)
        code = ctx->be.ops->alloc(&ctx->be, bytes, &sbuf, err);
    if (code == PB_OK)
        code = ctx->be.ops->alloc(&ctx->be, bytes, &rbuf, err);
    if (code == PB_OK) { /* touched now, not inside a timed exchange */
        memset(sbuf, 1, bytes);
        memset(rbuf, 0, bytes);
    }
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        goto out;
    size_t n = choose_pairs(ctx, p, cap, &total);
    double *bw = calloc(n + 1, sizeof *bw), *secs = calloc(n + 1, sizeof *secs);
    code = bw && secs ? PB_OK : pb_err_set(err, PB_ERUNTIME, "out of memory");
    if (pb_ctx_agree(ctx, code, err) != PB_OK) {
        free(bw);
        free(secs);
        goto out;
    }
    pb_watch_begin(ctx->wd, "validate: send/recv between %zu pairs of ranks", n);
    for (int round = 0; round < PB_VALIDATE_ROUNDS; round++)
        for (size_t i = 0; i < n; i++) {
            pb_watch_tick(ctx->wd);
            if (quiet_barrier(ctx->world) != 0) {
                pb_err_set(err, PB_ERUNTIME, "barrier failed");
                pb_ctx_abort(ctx, err);
            }
            if (ctx->rank == p[i].a || ctx->rank == p[i].b) {
                if (measure_pair(ctx, &p[i], sbuf, rbuf, bytes, round == 0, err) != PB_OK)
                    pb_ctx_abort(ctx, err);
                if (ctx->rank == p[i].a) {
                    bw[i] = p[i].gbps;
                    secs[i] = p[i].seconds;
                }
            }
        }
    /* only rank a of each pair holds its numbers; the others hold 0 */
    MPI_Allreduce(MPI_IN_PLACE, bw, (int)n, MPI_DOUBLE, MPI_MAX, ctx->world);
    MPI_Allreduce(MPI_IN_PLACE, secs, (int)n, MPI_DOUBLE, MPI_MAX, ctx->world);
    pb_watch_end(ctx->wd);
    for (size_t i = 0; i < n; i++) {
        p[i].gbps = bw[i];
        p[i].seconds = secs[i];
        pb_link_format(pb_nodemap_link(&ctx->map, p[i].a, p[i].b), p[i].cls, sizeof p[i].cls);
    }
    free(bw);
    free(secs);
    code = report(ctx, p, n, total, bytes, err);
out:
    if (rbuf)
        ctx->be.ops->free(&ctx->be, rbuf);
    if (sbuf)
        ctx->be.ops->free(&ctx->be, sbuf);
    free(p);
    return code;
}
