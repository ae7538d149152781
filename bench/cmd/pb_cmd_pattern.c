#include "pb_cmd_pattern.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../run/pb_harness.h"
#include "../glue/pb_pattern_plan.h"
#include "../glue/pb_pattern_print.h"
#include "../run/pb_progress.h"

int pb_pattern_dry_run(const pb_options_t *o, int print, pb_err_t *err)
{
    pb_pattern_plan_t p;
    /* the world is --np when given (dp then fills it), else the layout's */
    int code = pb_pattern_plan(&o->model, o->main.pattern_mask, o->run.np, o->run.np, &p, err);
    if (code == PB_OK && print) {
        pb_pattern_print_head(stdout, &p, "patterns, dry run (nothing launched)");
        pb_pattern_print_ops(stdout, &p);
    }
    pb_pattern_plan_free(&p);
    return code;
}

/* One distinct operation (several records share it: forward and
 * backward all-reduces of the same tensor are measured once). */
typedef struct meas {
    const pb_pat_op_t *rec; /* the first record with this shape */
    pb_op_t op;
    int rounded; /* bytes rounded down to what the group can split */
    pb_timing_t tm;
    int64_t wrong;
} meas_t;

typedef struct run {
    pb_ctx_t *ctx;
    pb_pattern_plan_t plan;
    pb_group_t *groups[PB_GK_COUNT];
    char link[PB_GK_COUNT][16]; /* each kind's class: its slowest link */
    meas_t *meas;
    size_t nmeas;
    size_t *rec_meas; /* record i -> its measurement */
    int64_t wrong_total;
} run_t;

static int same_shape(const pb_pat_op_t *a, const pb_pat_op_t *b)
{
    return a->coll == b->coll && a->group == b->group && a->bytes == b->bytes &&
           a->dtype == b->dtype && a->p2p == b->p2p && a->imbalance == b->imbalance;
}

static void map_op(const pb_pat_op_t *r, const pb_group_t *g, meas_t *m)
{
    m->rounded = pb_pattern_backend_op(r, g, &m->op);
    if (r->p2p != PB_P2P_NONE) {
        m->op.p2p = 1;
        pb_pattern_peers(r->p2p, g->rank, g->size, &m->op.to, &m->op.from);
    }
    m->rec = r;
    m->wrong = PB_RESULT_WRONG_UNCHECKED;
}

/* The layout's groups of one kind as a partition of the world. */
typedef struct kind_groups {
    const pb_layout_t *layout;
    pb_gkind_t kind;
} kind_groups_t;

static int group_of_kind(const void *ctx, int rank)
{
    const kind_groups_t *kg = ctx;
    int gid, idx;
    pb_layout_group(kg->layout, kg->kind, rank, &gid, &idx, NULL);
    return gid;
}

static int build(run_t *r, pb_err_t *err)
{
    pb_ctx_t *ctx = r->ctx;
    const pb_op_list_t *ops = &r->plan.ops;
    r->meas = calloc(ops->n ? ops->n : 1, sizeof *r->meas);
    r->rec_meas = calloc(ops->n ? ops->n : 1, sizeof *r->rec_meas);
    if (!r->meas || !r->rec_meas)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    /* every rank splits the same kinds in the same order: the plan is
     * identical everywhere */
    for (size_t i = 0; i < ops->n; i++) {
        pb_gkind_t k = ops->ops[i].group;
        if (r->groups[k])
            continue;
        int gid, idx;
        pb_layout_group(&r->plan.layout, k, ctx->rank, &gid, &idx, NULL);
        if (ctx->be.comm->split(ctx->world_group, gid, idx, &r->groups[k], err))
            return err->code;
        /* every rank holds the whole map: the same class everywhere */
        kind_groups_t kg = {&r->plan.layout, k};
        pb_link_format(pb_nodemap_groups_slowest(&ctx->map, group_of_kind, &kg), r->link[k],
                       sizeof r->link[k]);
    }
    for (size_t i = 0; i < ops->n; i++) {
        size_t j = 0;
        while (j < r->nmeas && !same_shape(r->meas[j].rec, &ops->ops[i]))
            j++;
        if (j == r->nmeas)
            map_op(&ops->ops[i], r->groups[ops->ops[i].group], &r->meas[r->nmeas++]);
        r->rec_meas[i] = j;
    }
    return PB_OK;
}

static void fill_row(const run_t *r, const meas_t *m, pb_result_t *row)
{
    const pb_group_t *g = r->groups[m->rec->group];
    pb_ctx_result_base(r->ctx, row);
    snprintf(row->mode, sizeof row->mode, "%s", pb_mode_name(r->ctx->opt->meas.modes[0]));
    snprintf(row->pattern, sizeof row->pattern, "%s", pb_strategy_name(m->rec->strategy));
    snprintf(row->collective, sizeof row->collective, "%s", pb_coll_name(m->op.coll));
    snprintf(row->group, sizeof row->group, "%s", pb_gkind_name(m->rec->group));
    row->group_size = g->size;
    snprintf(row->link_class, sizeof row->link_class, "%s", r->link[m->rec->group]);
    row->bytes = m->op.bytes;
    snprintf(row->dtype, sizeof row->dtype, "%s", pb_dtype_name(m->op.dtype));
    row->in_place = 0;
    row->iters = m->tm.iters;
    row->time_us_min = m->tm.st.min * 1e6;
    row->time_us_median = m->tm.st.median * 1e6;
    row->time_us_p99 = m->tm.st.p99 * 1e6;
    row->time_us_max = m->tm.st.max * 1e6;
    row->algbw_gbps = m->tm.st.median > 0.0 ? (double)m->op.bytes / m->tm.st.median / 1e9 : 0.0;
    row->busbw_gbps = row->algbw_gbps * pb_busbw_factor(m->op.coll, g->size);
    row->wrong = m->wrong;
    snprintf(row->redop, sizeof row->redop, "%s",
             pb_coll_reduces(m->op.coll) ? pb_redop_name(m->op.redop) : "none");
    row->slowest_rank = m->tm.slowest_rank;
}

/* Every rank runs its own group's operation of this shape at the same
 * time: the harness's samples start at a world barrier. */
static int measure(run_t *r, meas_t *m, pb_err_t *err)
{
    pb_ctx_t *ctx = r->ctx;
    const pb_options_t *o = ctx->opt;
    pb_group_t *g = r->groups[m->rec->group];
    pb_bufs_t b;
    memset(&b, 0, sizeof b);
    uint64_t need = pb_op_buffer_bytes(&m->op, g->size);
    int code = pb_ctx_memory_fits(ctx, need, 4u * (uint64_t)g->size * sizeof(uint64_t), err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    code = pb_bufs_alloc(g, need, &b, err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    pb_harness_cfg_t cfg = {o->meas.modes[0], o->meas.warmup, o->meas.iters, o->meas.min_iters, o->meas.max_iters,
                            o->meas.batch, o->meas.graph_replays, o->meas.precision, o->meas.time_budget, ctx->wd,
                            o->meas.samples_path != NULL, o->meas.warmup_cap,
                            pb_harness_rotate(o->meas.rotate, &ctx->be)};
    snprintf(g->doing, sizeof g->doing, "%s pattern: %s of %" PRIu64 " B %s, group of %d ranks",
             pb_strategy_name(m->rec->strategy), pb_coll_name(m->op.coll), m->op.bytes,
             pb_dtype_name(m->op.dtype), g->size);
    pb_watch_begin(ctx->wd, "%s", g->doing);
    if (pb_op_setup(&m->op, g, &b, err) || pb_op_fill(g, &m->op, &b, err) ||
        pb_harness_time(g, ctx->world_group, ctx->world, &m->op, &b, &cfg, &m->tm, err))
        pb_ctx_abort(ctx, err);
    pb_watch_end(ctx->wd);
    if (m->tm.abandoned) { /* a signal: no row for a measurement cut short */
        ctx->stopped_by = m->tm.abandoned;
        pb_bufs_free(g, &b);
        free(m->tm.per_rank);
        m->tm.per_rank = NULL;
        return PB_OK;
    }
    if (o->meas.check) {
        uint64_t w = 0;
        pb_watch_begin(ctx->wd, "verification of %s", g->doing);
        int corrupt = o->run.fault == PB_FAULT_CORRUPT && o->run.fault_rank == ctx->rank;
        if (pb_op_verify(g, &m->op, &b, corrupt, &w, err))
            pb_ctx_abort(ctx, err);
        m->wrong = (int64_t)w;
        if (pb_ctl_allreduce(ctx->world, &m->wrong, 1, PB_CTL_I64, PB_CTL_SUM) != PB_OK)
            pb_ctx_abort(ctx, &(pb_err_t){PB_ERUNTIME, "the sum of the wrong counts failed"});
        pb_watch_end(ctx->wd);
        r->wrong_total += m->wrong;
    }
    pb_bufs_free(g, &b);
    if (ctx->csv || ctx->json || ctx->samples) {
        pb_result_t row;
        fill_row(r, m, &row);
        if (pb_ctx_emit(ctx, &row, err) != PB_OK ||
            pb_ctx_emit_samples(ctx, &row, m->tm.per_rank, m->tm.samples, err) != PB_OK)
            pb_ctx_abort(ctx, err);
    }
    free(m->tm.per_rank); /* the row's statistics stay in m->tm */
    m->tm.per_rank = NULL;
    return PB_OK;
}

static void print_ops(const run_t *r)
{
    const pb_op_list_t *ops = &r->plan.ops;
    printf("#\n# per operation: time/op = median of the slowest rank, every group of the kind "
           "running at once; time/step = time/op x count/step\n");
    printf("%-9s %-9s %-13s %-5s %5s %-6s %15s %10s %10s %12s %12s %6s  %s\n", "#strategy",
           "phase", "collective", "group", "size", "link", "bytes", "", "count/step",
           "time/op(us)", "time/step(ms)", "wrong", "what");
    for (size_t i = 0; i < ops->n; i++) {
        const pb_pat_op_t *o = &ops->ops[i];
        const meas_t *m = &r->meas[r->rec_meas[i]];
        char hb[32], wr[24] = PB_RESULT_WRONG_NA;
        pb_fmt_bytes(hb, sizeof hb, (double)m->op.bytes);
        if (m->wrong >= 0)
            snprintf(wr, sizeof wr, "%" PRId64, m->wrong);
        printf("%-9s %-9s %-13s %-5s %5d %-6s %15" PRIu64 " %10s %10" PRIu64
               " %12.2f %12.3f %6s  %s%s%s\n",
               pb_strategy_name(o->strategy), pb_phase_name(o->phase), pb_coll_name(o->coll),
               pb_gkind_name(o->group), o->group_size, r->link[o->group], m->op.bytes, hb, o->count,
               m->tm.st.median * 1e6, m->tm.st.median * 1e3 * (double)o->count, wr, o->what,
               pb_pat_stage_note(o->stage),
               m->rounded ? " (bytes rounded to the group's granule)" : "");
    }
}

static void print_summary(const run_t *r)
{
    const pb_op_list_t *ops = &r->plan.ops;
    printf("#\n# per strategy, per GPU per step: bytes a rank sends (ring algorithms), the "
           "time its operations take back to back, and their ratio\n");
    printf("%-9s %12s %18s %10s %16s %14s %14s\n", "#strategy", "ops/step", "bytes/GPU/step", "",
           "comm time/step", "(overlappable)", "eff. bw GB/s");
    for (int s = 0; s < PB_STRAT_COUNT; s++) {
        /* every stage's operations and the slower end's own (the first
         * stage's or the last's: no GPU holds both, pb_pat_stage_t) */
        uint64_t n3[3] = {0, 0, 0}, w3[3] = {0, 0, 0};
        double t3[3] = {0.0, 0.0, 0.0}, ov3[3] = {0.0, 0.0, 0.0};
        for (size_t i = 0; i < ops->n; i++) {
            const pb_pat_op_t *o = &ops->ops[i];
            if (o->strategy != (pb_strategy_t)s)
                continue;
            const meas_t *m = &r->meas[r->rec_meas[i]];
            double ti = m->tm.st.median * (double)o->count;
            int k = (int)o->stage;
            n3[k] += o->count;
            w3[k] += pb_coll_wire_bytes(o->coll, o->group_size, m->op.bytes) * o->count;
            t3[k] += ti;
            if (o->overlap)
                ov3[k] += ti;
        }
        int end = t3[PB_STAGE_LAST] >= t3[PB_STAGE_FIRST] ? PB_STAGE_LAST : PB_STAGE_FIRST;
        uint64_t nops = n3[0] + n3[end], wire = w3[0] + w3[end];
        double t = t3[0] + t3[end], t_ov = ov3[0] + ov3[end];
        if (nops == 0)
            continue;
        char hb[32];
        pb_fmt_bytes(hb, sizeof hb, (double)wire);
        printf("%-9s %12" PRIu64 " %18" PRIu64 " %10s %13.3f ms %11.3f ms %14.3f\n",
               pb_strategy_name((pb_strategy_t)s), nops, wire, hb, t * 1e3, t_ov * 1e3,
               t > 0.0 ? (double)wire / t / 1e9 : 0.0);
    }
}

static void print_skipped(const run_t *r)
{
    for (int s = 0; s < PB_STRAT_COUNT; s++) {
        if (!(r->plan.mask & 1u << s))
            continue;
        pb_strategy_t st = (pb_strategy_t)s;
        if (s == PB_STRAT_TP && r->plan.layout.sp)
            st = PB_STRAT_SP;
        if (s == PB_STRAT_SP && !r->plan.layout.sp)
            continue;
        if (pb_traffic_total(&r->plan.ops, st).ops == 0)
            printf("# %s: no traffic in this layout (its groups have one rank%s)\n",
                   pb_strategy_name(st),
                   s == PB_STRAT_EP && r->plan.model.experts == 0 ? ", dense model" : "");
    }
}

int pb_pattern_cmd(pb_ctx_t *ctx, pb_err_t *err)
{
    const pb_options_t *o = ctx->opt;
    run_t r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    /* the backend and the plan are the same on every rank: input errors
     * need no agreement, and are found before anything runs */
    int code = o->meas.modes[0] == PB_MODE_GRAPH ? pb_backend_require(&ctx->be, PB_CAP_GRAPH, err)
                                                 : PB_OK;
    if (code == PB_OK)
        code = pb_pattern_plan(&o->model, o->main.pattern_mask, ctx->size, o->run.np, &r.plan,
                               err);
    if (code != PB_OK)
        goto out;
    code = build(&r, err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        goto out;
    if (ctx->rank == 0 && !o->run.quiet) {
        char what[160];
        snprintf(what, sizeof what, "%s | backend %s | run %s | mode %s%s",
                 o->cmd == PB_CMD_MAIN ? "main job: pattern suite" : "patterns", ctx->be.comm->name,
                 ctx->run_id, pb_mode_name(o->meas.modes[0]), o->meas.check ? " | checked" : "");
        pb_pattern_print_head(stdout, &r.plan, what);
        pb_ctx_print_oversub(ctx, stdout);
        print_skipped(&r);
        fflush(stdout);
    }
    pb_progress_t prog;
    pb_progress_start(&prog, pb_progress_wanted(ctx->rank, o->run.quiet), r.nmeas);
    /* SIGINT/SIGTERM: stop between measurements, all ranks alike */
    for (size_t i = 0; i < r.nmeas && !pb_ctx_stopping(ctx); i++) {
        char what[96], hb[32];
        pb_fmt_bytes(hb, sizeof hb, (double)r.meas[i].op.bytes);
        snprintf(what, sizeof what, "%s pattern: %s %s", pb_strategy_name(r.meas[i].rec->strategy),
                 pb_coll_name(r.meas[i].op.coll), hb);
        pb_progress_step(&prog, what);
        if ((code = measure(&r, &r.meas[i], err)) != PB_OK) {
            pb_progress_clear(&prog);
            goto out;
        }
    }
    pb_progress_clear(&prog);
    if (ctx->rank == 0 && !o->run.quiet && r.plan.ops.n > 0 && !ctx->stopped_by) {
        print_ops(&r);
        print_summary(&r);
        if (ctx->csv_path)
            printf("# results appended to %s\n", ctx->csv_path);
        fflush(stdout);
    }
    code = PB_OK;
    if (r.wrong_total > 0)
        code = pb_err_set(err, PB_EVERIFY, "verification failed: %" PRId64 " wrong elements",
                          r.wrong_total);
out:
    for (int k = 0; k < PB_GK_COUNT; k++)
        if (r.groups[k])
            ctx->be.comm->group_free(r.groups[k]);
    free(r.meas);
    free(r.rec_meas);
    pb_pattern_plan_free(&r.plan);
    return err->code ? err->code : code;
}
