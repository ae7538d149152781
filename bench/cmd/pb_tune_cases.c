/* pb_tune_cases.c - what parbench tune measures: the job's distinct
 * operations (from the model and layout's patterns, or --op and the
 * sizes), their groups, and the default's first pass, whose times order
 * the search and size its budget. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_tune.h"
#include "../../util/pb_size.h"
#include "../glue/pb_pattern_print.h"
#include "../run/pb_harness.h"

double pb_tune_case_weight(const pb_tune_case_t *c)
{
    return c->def_s * (double)c->count;
}

const char *pb_tune_group_name(const pb_tune_t *t, const pb_tune_case_t *c)
{
    if (c->kind != PB_TUNE_OPKIND)
        return pb_gkind_name((pb_gkind_t)c->kind);
    return c->gsize == t->ctx->size ? "world" : "split"; /* coll's names */
}

void pb_tune_case_name(const pb_tune_t *t, const pb_tune_case_t *c, char *buf, size_t len)
{
    char hb[32];
    pb_fmt_bytes(hb, sizeof hb, (double)c->op.bytes);
    snprintf(buf, len, "%s %s(%d) %s %s", pb_coll_name(c->op.coll), pb_tune_group_name(t, c),
             c->gsize, hb, pb_dtype_name(c->op.dtype));
}

void pb_tune_clock_start(pb_tune_t *t)
{
    t->t0 = pb_ctl_now();
}

double pb_tune_clock(pb_tune_t *t)
{
    double mine = pb_ctl_now() - t->t0;
    if (pb_ctl_allreduce(t->ctx->world, &mine, 1, PB_CTL_DOUBLE, PB_CTL_MAX) != PB_OK)
        pb_ctx_abort(t->ctx, &(pb_err_t){PB_ERUNTIME, "the agreement on the time spent failed"});
    t->spent = mine;
    return mine;
}

int pb_tune_split(pb_tune_t *t, int kind, pb_group_t **out, pb_err_t *err)
{
    pb_ctx_t *ctx = t->ctx;
    int gid = 0, idx = ctx->rank;
    if (kind != PB_TUNE_OPKIND) {
        pb_layout_group(&t->plan.layout, (pb_gkind_t)kind, ctx->rank, &gid, &idx, NULL);
    } else if (t->o->meas.group_size > 0) {
        gid = ctx->rank / t->o->meas.group_size;
        idx = ctx->rank % t->o->meas.group_size;
    }
    return ctx->be.comm->split(ctx->world_group, gid, idx, out, err);
}

/* The default's group of a kind, split once, before any setting. */
static int def_group(pb_tune_t *t, int kind, pb_err_t *err)
{
    return t->def[kind] ? PB_OK : pb_tune_split(t, kind, &t->def[kind], err);
}

static int add_case(pb_tune_t *t, const pb_op_t *op, int kind, int strategy, uint64_t count)
{
    for (size_t i = 0; i < t->ncases; i++) {
        pb_tune_case_t *c = &t->cases[i];
        if (c->kind == kind && c->op.coll == op->coll && c->op.bytes == op->bytes &&
            c->op.dtype == op->dtype && c->op.p2p == op->p2p && c->op.to == op->to &&
            c->op.from == op->from && c->op.imbalance == op->imbalance) {
            c->count += count; /* forward and backward of one shape: one case */
            return 1;
        }
    }
    if (t->ncases == PB_TUNE_CASES)
        return 0;
    pb_tune_case_t *c = &t->cases[t->ncases++];
    memset(c, 0, sizeof *c);
    c->op = *op;
    c->kind = kind;
    c->strategy = strategy;
    c->gsize = t->def[kind]->size;
    c->count = count;
    return 1;
}

/* The job's operations from its model and layout: every record of the
 * step, shapes merged; a group of one rank moves nothing and is left. */
static int plan_cases(pb_tune_t *t, pb_err_t *err)
{
    const pb_op_list_t *ops = &t->plan.ops;
    for (size_t i = 0; i < ops->n; i++) {
        const pb_pat_op_t *r = &ops->ops[i];
        if (r->group_size < 2)
            continue;
        if (def_group(t, r->group, err) != PB_OK)
            return err->code;
        pb_op_t op;
        pb_pattern_backend_op(r, t->def[r->group], &op);
        if (r->p2p != PB_P2P_NONE) {
            op.p2p = 1;
            pb_pattern_peers(r->p2p, t->def[r->group]->rank, t->def[r->group]->size, &op.to,
                             &op.from);
        }
        if (!add_case(t, &op, r->group, r->strategy, r->count))
            return pb_err_set(err, PB_EINPUT, "the job has more than %d distinct operations: "
                              "give fewer strategies or --op", PB_TUNE_CASES);
    }
    return PB_OK;
}

/* --op and the sizes: every collective at every size, on the world or
 * on groups of --group-size; sizes rounded down to what the group can
 * split. */
static int op_cases(pb_tune_t *t, pb_err_t *err)
{
    const pb_meas_opts_t *m = &t->o->meas;
    uint64_t *sizes = NULL;
    size_t n = 0;
    int code = m->size_list ? pb_size_list(m->size_list, &sizes, &n, err)
                            : pb_size_range(m->size_min, m->size_max,
                                            m->size_step ? 0.0 : m->size_factor, m->size_step,
                                            &sizes, &n, err);
    if (code == PB_OK)
        code = def_group(t, PB_TUNE_OPKIND, err);
    for (int ci = 0; ci < m->ncolls && code == PB_OK; ci++)
        for (size_t i = 0; i < n && code == PB_OK; i++) {
            pb_op_t op;
            memset(&op, 0, sizeof op);
            op.coll = m->colls[ci];
            op.dtype = m->dtypes[0];
            op.redop = m->redops[0];
            op.root = m->root;
            uint64_t gran = pb_coll_granule(op.coll, t->def[PB_TUNE_OPKIND]->size, op.dtype);
            op.bytes = sizes[i] - sizes[i] % gran;
            if (op.bytes == 0)
                continue;
            if (!add_case(t, &op, PB_TUNE_OPKIND, -1, 1))
                code = pb_err_set(err, PB_EINPUT, "more than %d collective and size pairs: "
                                  "give fewer sizes", PB_TUNE_CASES);
        }
    if (code == PB_OK && t->ncases == 0)
        code = pb_err_set(err, PB_EINPUT, "no size left to tune once rounded to what the group "
                          "of %d ranks can split", t->def[PB_TUNE_OPKIND]->size);
    free(sizes);
    return code;
}

int pb_tune_cases(pb_tune_t *t, pb_err_t *err)
{
    pb_ctx_t *ctx = t->ctx;
    int code = PB_OK;
    if (t->have_plan) {
        code = pb_pattern_plan(&t->o->model, 0, ctx->size, t->o->run.np, &t->plan, err);
        if (code == PB_OK)
            code = plan_cases(t, err);
        if (code == PB_OK && t->ncases == 0)
            code = pb_err_set(err, PB_EINPUT, "this layout moves nothing: every group has one "
                              "rank");
    } else {
        if (t->o->meas.group_size > 0 && ctx->size % t->o->meas.group_size != 0)
            return pb_err_set(err, PB_EINPUT, "--group-size %d does not divide the %d launched "
                              "ranks", t->o->meas.group_size, ctx->size);
        code = op_cases(t, err);
    }
    return code;
}

/* One side of a pair, or the default's first pass: the harness's median
 * (the slowest rank's, the same on every rank) and the seconds it took.
 * Returns 1 when a signal stopped it (no time). */
int pb_tune_time(pb_tune_t *t, pb_group_t *g, const pb_op_t *op, pb_bufs_t *b,
                 const char *setting, double *med, double *wall)
{
    pb_ctx_t *ctx = t->ctx;
    const pb_meas_opts_t *m = &t->o->meas;
    pb_harness_cfg_t cfg = {m->modes[0], m->warmup, m->iters, m->min_iters, m->max_iters,
                            m->batch, m->graph_replays, m->precision, m->time_budget, ctx->wd, 0,
                            0.0, pb_harness_rotate(m->rotate, &ctx->be)};
    pb_err_t err;
    pb_err_clear(&err);
    pb_op_t run = *op;
    snprintf(g->doing, sizeof g->doing, "tune: %s of %" PRIu64 " B on %d ranks under %s",
             pb_coll_name(op->coll), op->bytes, g->size, setting);
    pb_watch_begin(ctx->wd, "%s", g->doing);
    double t0 = pb_ctl_now();
    pb_timing_t tm;
    if (pb_op_setup(&run, g, b, &err) || pb_op_fill(g, &run, b, &err) ||
        pb_harness_time(g, ctx->world_group, ctx->world, &run, b, &cfg, &tm, &err))
        pb_ctx_abort(ctx, &err);
    pb_watch_end(ctx->wd);
    free(tm.per_rank);
    if (tm.abandoned) {
        ctx->stopped_by = tm.abandoned;
        return 1;
    }
    *med = tm.st.median;
    *wall = pb_ctl_now() - t0;
    return 0;
}

/* Verifies op on g once: the wrong elements of every rank, summed. */
int64_t pb_tune_verify(pb_tune_t *t, pb_group_t *g, const pb_op_t *op, pb_bufs_t *b)
{
    pb_ctx_t *ctx = t->ctx;
    pb_err_t err;
    pb_err_clear(&err);
    uint64_t w = 0;
    pb_op_t run = *op;
    pb_watch_begin(ctx->wd, "verification of %s", g->doing);
    int corrupt = t->o->run.fault == PB_FAULT_CORRUPT && t->o->run.fault_rank == ctx->rank;
    if (pb_op_setup(&run, g, b, &err) || pb_op_verify(g, &run, b, corrupt, &w, &err))
        pb_ctx_abort(ctx, &err);
    int64_t wrong = (int64_t)w;
    if (pb_ctl_allreduce(ctx->world, &wrong, 1, PB_CTL_I64, PB_CTL_SUM) != PB_OK)
        pb_ctx_abort(ctx, &(pb_err_t){PB_ERUNTIME, "the sum of the wrong counts failed"});
    pb_watch_end(ctx->wd);
    return wrong;
}

int pb_tune_bufs(pb_tune_t *t, const pb_tune_case_t *c, pb_bufs_t *b, pb_err_t *err)
{
    pb_ctx_t *ctx = t->ctx;
    pb_group_t *g = t->def[c->kind];
    memset(b, 0, sizeof *b);
    uint64_t need = pb_op_buffer_bytes(&c->op, g->size);
    int code = pb_ctx_memory_fits(ctx, need, 4u * (uint64_t)g->size * sizeof(uint64_t), err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    code = pb_bufs_alloc(g, need, b, err);
    return pb_ctx_agree(ctx, code, err);
}

/* Every case once under the default: its time orders the knobs (the
 * collectives with the largest share first) and sizes what a candidate
 * costs; its verification says the default itself is right. */
int pb_tune_default_pass(pb_tune_t *t, pb_err_t *err)
{
    for (size_t i = 0; i < t->ncases && !pb_ctx_stopping(t->ctx); i++) {
        pb_tune_case_t *c = &t->cases[i];
        pb_bufs_t b;
        if (pb_tune_bufs(t, c, &b, err) != PB_OK)
            return err->code;
        int stopped = pb_tune_time(t, t->def[c->kind], &c->op, &b, "the default", &c->def_s,
                                   &c->def_wall);
        int64_t wrong = !stopped && t->o->meas.check
                            ? pb_tune_verify(t, t->def[c->kind], &c->op, &b) : 0;
        pb_bufs_free(t->def[c->kind], &b);
        if (wrong > 0) {
            char nm[96];
            pb_tune_case_name(t, c, nm, sizeof nm);
            return pb_err_set(err, PB_EVERIFY, "the default setting itself gives %" PRId64
                              " wrong elements on %s: nothing to tune against", wrong, nm);
        }
    }
    return PB_OK;
}
