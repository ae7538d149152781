/* pb_replay_run.c - the replay on the ranks (pb_replay_run.h). */
#include "pb_replay_run.h"

#include <stdlib.h>
#include <string.h>

/* One split per layer of the plan (communicators of a layer share no
 * rank): this rank asks for the communicator of the layer it is in, at
 * its place among the members, so that group rank = communicator rank.
 * Every rank takes part in every split, even after a failure of its own
 * (the first is kept), so that none waits in a split the others left. */
static int make_groups(pb_replay_exec_t *x, pb_err_t *err)
{
    const pb_replay_plan_t *p = x->plan;
    pb_ctx_t *ctx = x->ctx;
    int code = PB_OK;
    for (int layer = 0; layer < p->nlayers; layer++) {
        int color = -1, key = 0;
        for (size_t c = 0; c < p->ncomms && color < 0; c++) {
            const pb_jcomm_t *cm = &x->jp->comms[c];
            for (int k = 0; p->comms[c].layer == layer && k < cm->nranks; k++)
                if (cm->members[k] == ctx->rank) {
                    color = (int)c;
                    key = k;
                }
        }
        pb_group_t *g = NULL;
        pb_watch_begin(ctx->wd, "replay: splitting the groups of layer %d of %d", layer + 1,
                       p->nlayers);
        int rc = ctx->be.comm->split(ctx->world_group, color, key, &g, err);
        pb_watch_end(ctx->wd);
        if (rc == PB_OK && color >= 0) {
            x->groups[color] = g;
            int n = x->jp->comms[color].nranks;
            if (g == NULL || g->size != n || g->rank != key)
                rc = pb_err_set(err, PB_ERUNTIME, "the split of recorded communicator %d gave "
                                "rank %d of %d, not %d of %d", color, g ? g->rank : -1,
                                g ? g->size : 0, key, n);
        }
        if (code == PB_OK)
            code = rc;
    }
    return code;
}

static void make_op(const pb_replay_exec_t *x, const pb_rp_step_t *s, pb_op_t *op)
{
    const pb_rp_unit_t *u = &x->plan->units[s->unit];
    memset(op, 0, sizeof *op);
    op->coll = u->coll;
    op->dtype = u->dtype;
    op->redop = PB_SUM;
    op->root = u->root;
    op->bytes = pb_rp_scaled(u, x->jp->comms[u->comm].nranks, x->scale);
    if (u->src >= 0) { /* a pair: this rank sends, receives, or both (to itself) */
        op->p2p = 1;
        op->to = s->me == u->src ? u->dst : -1;
        op->from = s->me == u->dst ? u->src : -1;
    }
}

/* What this rank's units need: the backend's reductions on their types,
 * and the buffer bytes of the largest. */
static int check_units(const pb_replay_exec_t *x, uint64_t *max_bytes, pb_err_t *err)
{
    pb_backend_t *be = &x->ctx->be;
    *max_bytes = 0;
    for (size_t i = 0; i < x->nsteps; i++) {
        const pb_rp_unit_t *u = &x->plan->units[x->steps[i].unit];
        pb_op_t op;
        make_op(x, &x->steps[i], &op);
        uint64_t b = pb_op_buffer_bytes(&op, x->jp->comms[u->comm].nranks);
        if (b > *max_bytes)
            *max_bytes = b;
        char why[160];
        if (pb_coll_reduces(u->coll) && !be->comm->supports(be, u->dtype, PB_SUM, x->jp->comms[u->comm].nranks, why,
                                                          sizeof why))
            return pb_err_set(err, PB_EINPUT, "the recording's %s of %s: %s", pb_coll_name(u->coll),
                              pb_dtype_name(u->dtype), why);
    }
    return PB_OK;
}

int pb_replay_setup(pb_replay_exec_t *x, pb_ctx_t *ctx, const pb_replay_plan_t *p,
                    const pb_jobprof_t *jp, double scale, int gaps, pb_err_t *err)
{
    memset(x, 0, sizeof *x);
    x->ctx = ctx;
    x->plan = p;
    x->jp = jp;
    x->scale = scale;
    x->corrupt = ctx->opt->run.fault == PB_FAULT_CORRUPT && ctx->opt->run.fault_rank == ctx->rank;
    size_t nc = p->ncomms ? p->ncomms : 1;
    x->groups = calloc(nc, sizeof *x->groups);
    x->spent = calloc(nc, sizeof *x->spent);
    x->wrong = calloc(nc, sizeof *x->wrong);
    int code = x->groups && x->spent && x->wrong
                   ? pb_rp_rank_steps(p, jp, ctx->rank, &x->steps, &x->nsteps, err)
                   : pb_err_set(err, PB_ERUNTIME, "out of memory");
    if (code == PB_OK && gaps)
        code = pb_backend_require(&ctx->be, PB_CAP_BUSY, err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    code = make_groups(x, err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    uint64_t max_bytes = 0;
    code = check_units(x, &max_bytes, err);
    if (code == PB_OK) /* all-to-all-v's counts: 4 arrays of a group's size at most */
        code = pb_ctx_memory_fits(ctx, max_bytes, 4u * (uint64_t)ctx->size * sizeof(uint64_t),
                                  err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    /* the world group's buffers: any group's operation fits them, and
     * their all-to-all-v counts have room for the largest group */
    code = pb_bufs_alloc(ctx->world_group, max_bytes, &x->bufs, err);
    return pb_ctx_agree(ctx, code, err);
}

/* One unit: verified, or timed after its recorded gap. */
static int one(pb_replay_exec_t *x, const pb_rp_step_t *s, int verify, int gaps, pb_err_t *err)
{
    const pb_rp_unit_t *u = &x->plan->units[s->unit];
    pb_group_t *g = x->groups[u->comm];
    const pb_comm_ops_t *cm = g->be->comm;
    pb_op_t op;
    make_op(x, s, &op);
    snprintf(g->doing, sizeof g->doing, "replay: %s of %llu B %s on recorded communicator %d",
             pb_coll_name(op.coll), (unsigned long long)op.bytes, pb_dtype_name(op.dtype),
             u->comm);
    if (pb_op_setup(&op, g, &x->bufs, err))
        return err->code;
    if (verify) {
        uint64_t w = 0;
        if (pb_op_verify(g, &op, &x->bufs, x->corrupt, &w, err))
            return err->code;
        x->wrong[u->comm] += (int64_t)w;
        return PB_OK;
    }
    if (gaps && s->gap_ns > 0 && (g->be->mem->busy(g, (double)s->gap_ns * 1e-9, err) ||
                                  cm->sync(g, err)))
        return err->code;
    double sec = 0.0;
    if (cm->mark(g, 0, err) || pb_op_run(g, &op, &x->bufs, err) || cm->mark(g, 1, err) ||
        cm->elapsed(g, 0, 1, &sec, err) || cm->sync(g, err))
        return err->code;
    x->spent[u->comm] += sec;
    return PB_OK;
}

void pb_replay_pass(pb_replay_exec_t *x, int verify, int gaps, double *wall)
{
    pb_ctx_t *ctx = x->ctx;
    pb_err_t err;
    pb_err_clear(&err);
    memset(x->spent, 0, (x->plan->ncomms ? x->plan->ncomms : 1) * sizeof *x->spent);
    pb_watch_begin(ctx->wd, "replay: %s pass over %zu operations",
                   verify ? "the verified" : "a timed", x->plan->nunits);
    if (ctx->world_group->be->comm->barrier(ctx->world_group, &err))
        pb_ctx_abort(ctx, &err);
    double t0 = pb_ctl_now();
    for (size_t i = 0; i < x->nsteps; i++) {
        if (one(x, &x->steps[i], verify, gaps, &err))
            pb_ctx_abort(ctx, &err);
        pb_watch_tick(ctx->wd);
    }
    *wall = pb_ctl_now() - t0;
    pb_watch_end(ctx->wd);
}

void pb_replay_release(pb_replay_exec_t *x)
{
    if (x->bufs.send || x->bufs.a2av)
        pb_bufs_free(x->ctx->world_group, &x->bufs);
    for (size_t c = 0; x->groups && c < x->plan->ncomms; c++)
        if (x->groups[c])
            x->ctx->be.comm->group_free(x->groups[c]);
    free(x->groups);
    free(x->steps);
    free(x->spent);
    free(x->wrong);
    memset(x, 0, sizeof *x);
}
