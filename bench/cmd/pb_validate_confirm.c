/* pb_validate_confirm.c - confirm, then report: every pair flagged in its
 * round is measured again alone, beside a reference pair of its class
 * (measured alone too, vote by vote in turn, so that both see the same
 * moment of the machine), and is called slow only when the rule that
 * flagged it holds again in most votes.  A pair slow only while its round
 * ran is cleared: load from elsewhere, or contention the round itself
 * caused; the table says which pairs were cleared, the verdict names only
 * the confirmed ones.  Most suspicious first (lowest ratio or share), at
 * most --confirm pairs: the rest are counted, never named. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pb_validate_judge.h"

typedef struct job {
    int a, b, ra, rb; /* the pair, its reference (-1: none) */
} job_t;

static double severity(const pb_vpair_t *p)
{
    double s = INFINITY;
    if ((p->flags & PB_VFLAG_REL) && p->judged.ratio < s)
        s = p->judged.ratio;
    if ((p->flags & PB_VFLAG_ABS) && p->share < s)
        s = p->share;
    return s;
}

static int by_severity(const void *x, const void *y)
{
    double a = severity(x), b = severity(y);
    return (a > b) - (a < b);
}

/* Rank 0: the pairs to re-measure, in order. */
static size_t plan(pb_vjudge_t *j, job_t **jobs, pb_err_t *err)
{
    uint64_t cap = j->ctx->opt->validate.confirm;
    size_t n = j->npending < cap ? j->npending : (size_t)cap;
    if (j->npending > 1) /* qsort of a NULL array is undefined even for 0 elements */
        qsort(j->pending, j->npending, sizeof *j->pending, by_severity);
    *jobs = calloc(n + 1, sizeof **jobs);
    if (*jobs == NULL) {
        pb_err_set(err, PB_ERUNTIME, "out of memory planning validate's re-measurement");
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        (*jobs)[i] = (job_t){j->pending[i].a, j->pending[i].b, j->pending[i].ref_a,
                             j->pending[i].ref_b};
    return n;
}

/* GB/s of pair x-y in every vote of rank-major times all[r][2][VOTES]. */
static void votes_gbps(const pb_vjudge_t *j, const double *all, int which, int x, int y,
                       double *gbps)
{
    for (int v = 0; v < PB_VALIDATE_VOTES; v++) {
        size_t k = (size_t)which * PB_VALIDATE_VOTES + (size_t)v;
        double sx = all[(size_t)x * 2 * PB_VALIDATE_VOTES + k];
        double sy = all[(size_t)y * 2 * PB_VALIDATE_VOTES + k];
        double s = sx > sy ? sx : sy;
        gbps[v] = s > 0.0 ? (double)j->bytes / s / 1e9 : 0.0;
    }
}

/* Rank 0: the verdict on one re-measured pair. */
static void judge_alone(pb_vjudge_t *j, pb_vpair_t *p, const double *all)
{
    const pb_validate_opts_t *o = &j->ctx->opt->validate;
    double bw[PB_VALIDATE_VOTES], ref[PB_VALIDATE_VOTES], v[PB_VALIDATE_VOTES], tmp[PB_VALIDATE_VOTES];
    int below = 0, rel = 0, abs_ = 0, by_rel = (p->flags & PB_VFLAG_REL) && p->ref_a >= 0;
    votes_gbps(j, all, 0, p->a, p->b, bw);
    memcpy(tmp, bw, sizeof tmp);
    p->alone_gbps = pb_outlier_median(tmp, PB_VALIDATE_VOTES);
    if (by_rel) {
        votes_gbps(j, all, 1, p->ref_a, p->ref_b, ref);
        for (int k = 0; k < PB_VALIDATE_VOTES; k++)
            v[k] = ref[k] > 0.0 ? bw[k] / ref[k] : 1.0; /* no reference time: no vote against */
        rel = pb_outlier_majority_below(v, PB_VALIDATE_VOTES, o->min_ratio, &p->alone_ratio, &below);
        p->alone_ref_gbps = pb_outlier_median(ref, PB_VALIDATE_VOTES);
    }
    pb_vexpect_t alone;
    pb_vjudge_expect(j, p->a, p->b, NULL, &alone);
    if ((p->flags & PB_VFLAG_ABS) && alone.gbps > 0.0) {
        for (int k = 0; k < PB_VALIDATE_VOTES; k++)
            v[k] = bw[k] / alone.gbps;
        abs_ = pb_outlier_majority_below(v, PB_VALIDATE_VOTES, o->min_share, &p->alone_share, &below);
    }
    if (rel || abs_)
        p->state = PB_VS_SLOW;
    else if ((p->flags & PB_VFLAG_REL) && !by_rel && !(p->flags & PB_VFLAG_ABS))
        p->state = PB_VS_UNCONFIRMED; /* no pair of its class to measure beside it */
    else
        p->state = PB_VS_CLEARED;
}

/* Every rank: one pair's votes, alone, then its reference's. */
static void measure_job(pb_ctx_t *ctx, const job_t *jb, void *sbuf, void *rbuf, uint64_t bytes,
                        double *mine, pb_err_t *err)
{
    int me = ctx->rank;
    int peer = me == jb->a ? jb->b : me == jb->b ? jb->a : -1;
    int rpeer = jb->ra < 0 ? -1 : me == jb->ra ? jb->rb : me == jb->rb ? jb->ra : -1;
    memset(mine, 0, 2 * PB_VALIDATE_VOTES * sizeof *mine);
    for (int v = 0; v < PB_VALIDATE_VOTES; v++) {
        pb_watch_tick(ctx->wd);
        pb_validate_barrier(ctx, err);
        if (peer >= 0 && pb_validate_measure(ctx, peer, sbuf, rbuf, bytes, PB_VM_ALONE, &mine[v], err) != PB_OK)
            pb_ctx_abort(ctx, err);
        pb_validate_barrier(ctx, err);
        if (rpeer >= 0 &&
            pb_validate_measure(ctx, rpeer, sbuf, rbuf, bytes, PB_VM_ALONE, &mine[PB_VALIDATE_VOTES + v], err) != PB_OK)
            pb_ctx_abort(ctx, err);
    }
}

static int share_plan(pb_ctx_t *ctx, pb_vjudge_t *j, job_t **jobs, int *n, pb_err_t *err)
{
    int code = PB_OK;
    *n = 0;
    if (ctx->rank == 0) {
        *n = (int)plan(j, jobs, err);
        code = *jobs ? PB_OK : err->code;
    }
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    if (pb_ctl_bcast(ctx->world, n, sizeof *n, 0) != PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "broadcast of validate's re-measurement failed");
    if (ctx->rank != 0 && (*jobs = calloc((size_t)*n + 1, sizeof **jobs)) == NULL)
        code = pb_err_set(err, PB_ERUNTIME, "out of memory for validate's re-measurement");
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    if (*n > 0 && pb_ctl_bcast(ctx->world, *jobs, (uint64_t)*n * sizeof **jobs, 0) != PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "broadcast of validate's re-measurement failed");
    return PB_OK;
}

/* Rank 0: every pending pair settled (re-measured ones judged above). */
static int settle_all(pb_vjudge_t *j, size_t measured, pb_err_t *err)
{
    for (size_t i = 0; i < j->npending; i++) {
        if (i >= measured)
            j->pending[i].state = PB_VS_UNCONFIRMED;
        if (pb_vjudge_settle(j, &j->pending[i], err) != PB_OK)
            return err->code;
    }
    return PB_OK;
}

int pb_validate_confirm(pb_ctx_t *ctx, pb_vjudge_t *j, void *sbuf, void *rbuf, uint64_t bytes,
                        pb_err_t *err)
{
    job_t *jobs = NULL;
    int n = 0;
    double mine[2 * PB_VALIDATE_VOTES], *all = NULL;
    int code = share_plan(ctx, j, &jobs, &n, err);
    if (code == PB_OK && ctx->rank == 0 && n > 0 &&
        (all = calloc((size_t)ctx->size * 2 * PB_VALIDATE_VOTES, sizeof *all)) == NULL)
        code = pb_err_set(err, PB_ERUNTIME, "out of memory for validate's re-measurement");
    if (code == PB_OK)
        code = pb_ctx_agree(ctx, code, err);
    if (code == PB_OK && n > 0) {
        pb_watch_begin(ctx->wd, "validate: %d flagged pairs re-measured alone", n);
        ctx->world->quiet = 1;
        for (int k = 0; k < n; k++) {
            measure_job(ctx, &jobs[k], sbuf, rbuf, bytes, mine, err);
            if (pb_ctl_gather(ctx->world, mine, all, sizeof mine, 0) != PB_OK) {
                pb_err_set(err, PB_ERUNTIME, "gathering a re-measurement failed");
                pb_ctx_abort(ctx, err);
            }
            if (ctx->rank == 0)
                judge_alone(j, &j->pending[k], all);
        }
        ctx->world->quiet = 0;
        pb_watch_end(ctx->wd);
    }
    if (code == PB_OK && ctx->rank == 0)
        code = settle_all(j, (size_t)n, err);
    free(all);
    free(jobs);
    return code;
}
