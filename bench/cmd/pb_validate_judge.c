#include "pb_validate_judge.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pb_validate_per_count(const pb_options_t *o, int a, int b)
{
    int slowed = (o->run.fault == PB_FAULT_SLOW &&
                  ((o->run.fault_rank == a && o->run.fault_peer == b) ||
                   (o->run.fault_rank == b && o->run.fault_peer == a))) ||
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

int pb_vjudge_init(pb_vjudge_t *j, pb_ctx_t *ctx, const pb_tourn_t *t, uint64_t bytes,
                   pb_err_t *err)
{
    memset(j, 0, sizeof *j);
    j->ctx = ctx;
    j->t = t;
    j->bytes = bytes;
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
     * trials: the numbers the verdict was taken on */
    r.iters = (uint64_t)PB_VALIDATE_VOTES * PB_VALIDATE_TRIALS * PB_VALIDATE_REPS *
              (uint64_t)p->per;
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

static int keep(pb_vjudge_t *j, const pb_vpair_t *p, pb_err_t *err)
{
    if (!(j->measured <= PB_VJ_LISTED || p->judged.flagged) ||
        j->nkept >= PB_VJ_LISTED + PB_ATTRIB_KEEP)
        return PB_OK;
    if (j->nkept == j->cap) {
        size_t c = j->cap ? 2 * j->cap : 64;
        pb_vpair_t *k = realloc(j->kept, c * sizeof *k);
        if (k == NULL)
            return pb_err_set(err, PB_ERUNTIME, "out of memory keeping validate's pairs");
        j->kept = k;
        j->cap = c;
    }
    j->kept[j->nkept++] = *p;
    return PB_OK;
}

/* The pairs of one round and their per-vote bandwidths: a transfer takes
 * as long as its slower end. */
static size_t round_pairs(pb_vjudge_t *j, int round, const double *sec, pb_vpair_t *p,
                          double *bw, int *cls)
{
    const pb_ctx_t *ctx = j->ctx;
    size_t n = 0;
    for (int a = 0; a < ctx->size; a++) {
        int b = pb_validate_partner(ctx, j->t, round, a);
        if (b <= a)
            continue;
        memset(&p[n], 0, sizeof p[n]);
        p[n].a = a;
        p[n].b = b;
        p[n].round = round;
        p[n].rail = pb_tourn_is_cross(j->t, round) ? ctx->map.local[a] : -1;
        p[n].per = pb_validate_per_count(ctx->opt, a, b);
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

int pb_vjudge_round(pb_vjudge_t *j, int round, const double *sec, pb_err_t *err)
{
    size_t w = (size_t)j->ctx->size, half = w / 2 + 1;
    pb_vpair_t *p = calloc(half, sizeof *p);
    double *bw = calloc(half * PB_VALIDATE_VOTES, sizeof *bw);
    int *cls = calloc(half, sizeof *cls);
    pb_outlier_t *o = calloc(half, sizeof *o);
    double tmp[PB_VALIDATE_VOTES], scratch[PB_VALIDATE_VOTES];
    int code = p && bw && cls && o ? PB_OK
                                   : pb_err_set(err, PB_ERUNTIME, "out of memory judging a round");
    size_t n = code == PB_OK ? round_pairs(j, round, sec, p, bw, cls) : 0;
    if (code == PB_OK)
        code = pb_outlier_judge(bw, n, PB_VALIDATE_VOTES, cls, j->ctx->opt->validate.min_ratio, o, err);
    for (size_t i = 0; code == PB_OK && i < n; i++) {
        for (int v = 0; v < PB_VALIDATE_VOTES; v++) {
            double sa = sec[(size_t)p[i].a * PB_VALIDATE_VOTES + (size_t)v];
            double sb = sec[(size_t)p[i].b * PB_VALIDATE_VOTES + (size_t)v];
            tmp[v] = sa > sb ? sa : sb;
        }
        pb_stats_compute(tmp, PB_VALIDATE_VOTES, scratch, &p[i].st);
        _Static_assert(PB_VALIDATE_VOTES % 2 == 1, "the bandwidth shown is bytes / median time");
        p[i].gbps = p[i].st.median > 0.0 ? (double)j->bytes / p[i].st.median / 1e9 : 0.0;
        p[i].judged = o[i];
        j->measured++;
        pb_attrib_pair_t ap = {p[i].a, p[i].b, p[i].rail, o[i].flagged, 0};
        code = pb_attrib_add(&j->at, &ap, err);
        if (code == PB_OK)
            code = keep(j, &p[i], err);
        if (code == PB_OK && (j->ctx->csv || j->ctx->json))
            write_row(j->ctx, &p[i], j->bytes, err);
    }
    if (code == PB_OK)
        j->rounds_done++;
    free(p);
    free(bw);
    free(cls);
    free(o);
    return code;
}
