#include "pb_validate_judge.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pb_validate_per_count(const pb_options_t *o, int a, int b, int alone)
{
    int named = (o->run.fault_rank == a && o->run.fault_peer == b) ||
                (o->run.fault_rank == b && o->run.fault_peer == a);
    int slowed = (o->run.fault == PB_FAULT_SLOW && named) ||
                 (o->run.fault == PB_FAULT_NOISY && named && !alone) ||
                 (o->run.fault == PB_FAULT_SLOW_RANK && (o->run.fault_rank == a || o->run.fault_rank == b));
    return 1 + (slowed ? PB_VALIDATE_SLOWDOWN : 0);
}

int pb_validate_partner(const pb_ctx_t *ctx, const pb_tourn_t *t, int round, int r)
{
    const pb_nodemap_t *m = &ctx->map;
    int pn = 0, pl = 0;
    if (!pb_tourn_partner(t, round, m->node[r], m->local[r], &pn, &pl))
        return -1;
    return pb_rankmap_member(m, pn, pl);
}

const char *pb_vstate_name(pb_vstate_t s)
{
    static const char *const names[] = {"ok", "not judged", "slow", "cleared", "unconfirmed"};
    return names[s];
}

int pb_vjudge_init(pb_vjudge_t *j, pb_ctx_t *ctx, const pb_tourn_t *t, uint64_t bytes,
                   const pb_vexpect_rank_t *facts, pb_err_t *err)
{
    memset(j, 0, sizeof *j);
    j->ctx = ctx;
    j->t = t;
    j->bytes = bytes;
    j->facts = facts;
    j->device = pb_backend_has(&ctx->be, PB_CAP_DEVICE_MEM);
    int rails = 1;
    for (int n = 0; n < ctx->map.nnodes; n++)
        if (pb_rankmap_node_size(&ctx->map, n) > rails)
            rails = pb_rankmap_node_size(&ctx->map, n);
    return pb_attrib_init(&j->at, ctx->size, rails, err);
}

void pb_vjudge_free(pb_vjudge_t *j)
{
    pb_attrib_free(&j->at);
    free(j->kept);
    free(j->pending);
    memset(j, 0, sizeof *j);
}

static void write_row(pb_ctx_t *ctx, const pb_vpair_t *p, uint64_t bytes, pb_err_t *err)
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
     * counted); the times are per counted exchange, over the votes' best
     * trials: the numbers the round's verdict was taken on */
    r.iters = (uint64_t)PB_VALIDATE_VOTES * PB_VALIDATE_TRIALS * PB_VALIDATE_REPS *
              (uint64_t)p->per;
    r.time_us_min = p->st.min * 1e6;
    r.time_us_median = p->st.median * 1e6;
    r.time_us_p99 = p->st.p99 * 1e6;
    r.time_us_max = p->st.max * 1e6;
    r.algbw_gbps = r.busbw_gbps = p->gbps;
    snprintf(r.redop, sizeof r.redop, "none");
    r.slowest_rank = -1;
    r.expect_gbps = p->expect.gbps;
    snprintf(r.verdict, sizeof r.verdict, "%s", pb_vstate_name(p->state));
    if (pb_ctx_emit(ctx, &r, err) != PB_OK)
        pb_ctx_abort(ctx, err);
}

/* Appends *p to a growing array (at most `limit` entries: 0 when full). */
static int push(pb_vpair_t **arr, size_t *n, size_t *cap, size_t limit, const pb_vpair_t *p,
                pb_err_t *err)
{
    if (*n >= limit)
        return 0;
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        pb_vpair_t *k = realloc(*arr, c * sizeof *k);
        if (k == NULL)
            return pb_err_set(err, PB_ERUNTIME, "out of memory keeping validate's pairs"), -1;
        *arr = k;
        *cap = c;
    }
    (*arr)[(*n)++] = *p;
    return 1;
}

/* The printed copy: every pair up to PB_VJ_LISTED measured, then the
 * flagged ones. */
static int keep(pb_vjudge_t *j, const pb_vpair_t *p, pb_err_t *err)
{
    if (!(j->measured <= PB_VJ_LISTED || p->flags))
        return PB_OK;
    return push(&j->kept, &j->nkept, &j->cap, PB_VJ_LISTED + PB_ATTRIB_KEEP, p, err) < 0
               ? err->code
               : PB_OK;
}

int pb_vjudge_settle(pb_vjudge_t *j, pb_vpair_t *p, pb_err_t *err)
{
    pb_attrib_pair_t ap = {p->a, p->b, p->rail, p->state == PB_VS_SLOW, 0};
    int code = pb_attrib_add(&j->at, &ap, err);
    for (size_t i = 0; code == PB_OK && i < j->nkept; i++)
        if (j->kept[i].a == p->a && j->kept[i].b == p->b && j->kept[i].round == p->round)
            j->kept[i] = *p;
    j->cleared += p->state == PB_VS_CLEARED;
    j->unconfirmed += p->state == PB_VS_UNCONFIRMED;
    if (code == PB_OK && (j->ctx->csv || j->ctx->json))
        write_row(j->ctx, p, j->bytes, err);
    return code;
}

/* The pairs of one round and their per-vote bandwidths: a transfer takes
 * as long as its slower end. */
static size_t round_pairs(pb_vjudge_t *j, int round, const double *sec, pb_vpair_t *p,
                          double *bw, int *cls, int *active)
{
    const pb_ctx_t *ctx = j->ctx;
    size_t n = 0;
    for (int a = 0; a < ctx->size; a++) {
        int b = pb_validate_partner(ctx, j->t, round, a);
        active[a] = b >= 0;
        if (b <= a)
            continue;
        memset(&p[n], 0, sizeof p[n]);
        p[n].a = a;
        p[n].b = b;
        p[n].round = round;
        p[n].rail = pb_tourn_is_cross(j->t, round) ? ctx->map.local[a] : -1;
        p[n].per = pb_validate_per_count(ctx->opt, a, b, 0);
        p[n].ref_a = p[n].ref_b = -1;
        p[n].share = p[n].alone_gbps = p[n].alone_ref_gbps = NAN;
        p[n].alone_ratio = p[n].alone_share = NAN;
        pb_link_t l = pb_nodemap_link(&ctx->map, a, b);
        pb_link_format(l, p[n].cls, sizeof p[n].cls);
        cls[n] = pb_link_rank(l);
        n++;
    }
    for (size_t i = 0; i < n; i++)
        for (int v = 0; v < PB_VALIDATE_VOTES; v++) {
            double sa = sec[(size_t)p[i].a * PB_VALIDATE_VOTES + (size_t)v];
            double sb = sec[(size_t)p[i].b * PB_VALIDATE_VOTES + (size_t)v];
            double s = sa > sb ? sa : sb;
            /* a time of 0 (a clock too coarse to see the exchange) cannot
             * be told from nothing: 0, judged slow, shown */
            bw[(size_t)v * n + i] = s > 0.0 ? (double)j->bytes / s / 1e9 : 0.0;
        }
    return n;
}

/* A pair's median time and GB/s, and its share of the expectation voted
 * on like its ratio: below --min-share in most votes flags it. */
static void pair_stats(pb_vjudge_t *j, pb_vpair_t *p, size_t i, size_t n, const double *sec,
                       const double *bw, const int *active)
{
    double tmp[PB_VALIDATE_VOTES], scratch[PB_VALIDATE_VOTES];
    for (int v = 0; v < PB_VALIDATE_VOTES; v++) {
        double sa = sec[(size_t)p->a * PB_VALIDATE_VOTES + (size_t)v];
        double sb = sec[(size_t)p->b * PB_VALIDATE_VOTES + (size_t)v];
        tmp[v] = sa > sb ? sa : sb;
    }
    pb_stats_compute(tmp, PB_VALIDATE_VOTES, scratch, &p->st);
    _Static_assert(PB_VALIDATE_VOTES % 2 == 1, "the bandwidth shown is bytes / median time");
    p->gbps = p->st.median > 0.0 ? (double)j->bytes / p->st.median / 1e9 : 0.0;
    pb_vjudge_expect(j, p->a, p->b, active, &p->expect);
    if (p->expect.gbps > 0.0) {
        for (int v = 0; v < PB_VALIDATE_VOTES; v++)
            tmp[v] = bw[(size_t)v * n + i] / p->expect.gbps;
        if (pb_outlier_majority_below(tmp, PB_VALIDATE_VOTES, j->ctx->opt->validate.min_share,
                                      &p->share, &p->share_slow))
            p->flags |= PB_VFLAG_ABS;
    }
}

/* The reference of a pair flagged against its class: the unflagged pair
 * of its class in its round nearest the median GB/s of those pairs,
 * measured beside it when it is re-measured alone.  tmp: n doubles. */
static void pick_ref(pb_vpair_t *p, size_t n, const int *cls, size_t i, double *tmp)
{
    size_t k = 0;
    for (size_t x = 0; x < n; x++)
        if (x != i && cls[x] == cls[i] && !p[x].flags)
            tmp[k++] = p[x].gbps;
    if (k == 0)
        return;
    double med = pb_outlier_median(tmp, k), best = INFINITY;
    for (size_t x = 0; x < n; x++)
        if (x != i && cls[x] == cls[i] && !p[x].flags && fabs(p[x].gbps - med) < best) {
            best = fabs(p[x].gbps - med);
            p[i].ref_a = p[x].a;
            p[i].ref_b = p[x].b;
        }
}

/* Each pair of the round: flagged ones wait for their re-measurement
 * (their rows and counts come then), the others are settled now. */
static int file_pairs(pb_vjudge_t *j, pb_vpair_t *p, size_t n, const int *cls, double *tmp,
                      pb_err_t *err)
{
    for (size_t i = 0; i < n; i++)
        if (p[i].flags & PB_VFLAG_REL)
            pick_ref(p, n, cls, i, tmp);
    for (size_t i = 0; i < n; i++) {
        j->measured++;
        int rel = p[i].judged.rounds > 0;
        j->judged += rel || p[i].expect.gbps > 0.0;
        if (keep(j, &p[i], err) != PB_OK)
            return err->code;
        if (!p[i].flags) {
            p[i].state = rel || p[i].expect.gbps > 0.0 ? PB_VS_OK : PB_VS_NOT_JUDGED;
            if (pb_vjudge_settle(j, &p[i], err) != PB_OK)
                return err->code;
            continue;
        }
        j->flagged++;
        int r = push(&j->pending, &j->npending, &j->pcap, PB_ATTRIB_KEEP, &p[i], err);
        if (r < 0)
            return err->code;
        if (r == 0) { /* past what is kept: never re-measured */
            p[i].state = PB_VS_UNCONFIRMED;
            if (pb_vjudge_settle(j, &p[i], err) != PB_OK)
                return err->code;
        }
    }
    return PB_OK;
}

int pb_vjudge_round(pb_vjudge_t *j, int round, const double *sec, pb_err_t *err)
{
    size_t w = (size_t)j->ctx->size, half = w / 2 + 1;
    pb_vpair_t *p = calloc(half, sizeof *p);
    double *bw = calloc(half * PB_VALIDATE_VOTES, sizeof *bw);
    int *cls = calloc(half, sizeof *cls), *active = calloc(w, sizeof *active);
    pb_outlier_t *o = calloc(half, sizeof *o);
    int code = p && bw && cls && o && active
                   ? PB_OK
                   : pb_err_set(err, PB_ERUNTIME, "out of memory judging a round");
    size_t n = code == PB_OK ? round_pairs(j, round, sec, p, bw, cls, active) : 0;
    if (code == PB_OK)
        code = pb_outlier_judge(bw, n, PB_VALIDATE_VOTES, cls, j->ctx->opt->validate.min_ratio, o, err);
    for (size_t i = 0; code == PB_OK && i < n; i++) {
        p[i].judged = o[i];
        p[i].flags = o[i].flagged ? PB_VFLAG_REL : 0;
        pair_stats(j, &p[i], i, n, sec, bw, active);
    }
    if (code == PB_OK)
        code = file_pairs(j, p, n, cls, bw, err); /* bw is spent: scratch */
    if (code == PB_OK)
        j->rounds_done++;
    free(p);
    free(bw);
    free(cls);
    free(o);
    free(active);
    return code;
}
