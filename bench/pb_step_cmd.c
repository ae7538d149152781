/* The executed reference step.
 *
 * Every rank runs its pipeline stage's schedule (pb_step_sched.c) for
 * one step: each forward and backward pass walks the stage's layers,
 * standing in for the layer's compute with a timed spin and issuing the
 * layer's share of the TP/SP, EP and CP operations of the patterns' op
 * list on the rank's real groups; pipeline exchanges happen where
 * Megatron's schedule puts them; the DP gradient buckets go out during
 * the last backward pass as DDP launches them, and the optimizer's
 * collectives close the step.  Each category's time is measured on each
 * rank; the step takes as long as its slowest rank.
 *
 * On the host backend every operation blocks, so a bucket that DDP would
 * overlap with backward compute is exposed here; the table says so. */
#include "pb_step_cmd.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pb_exec.h"
#include "pb_model_cmd.h"
#include "pb_pattern_cmd.h"
#include "pb_pattern_plan.h"
#include "pb_stats.h"
#include "pb_step_sched.h"

#define PB_STEP_DEFAULT_TFLOPS 156.0

/* What a rank's time goes to. */
enum cat { C_COMPUTE, C_TP, C_EP, C_CP, C_PP, C_DP, C_OPT, C_COUNT };
static const char *const cat_names[C_COUNT] = {"compute", "tp", "ep", "cp", "pp", "dp", "optimizer"};

typedef struct sop {
    pb_op_t op;
    pb_group_t *g;
    enum cat cat;
    pb_phase_t phase;
    int per_pass;    /* in every pass, layer by layer (else once a step) */
    uint64_t per_mb; /* operations per pass, or per step */
} sop_t;

typedef struct step {
    pb_ctx_t *ctx;
    pb_pattern_plan_t plan;
    pb_group_t *groups[PB_GK_COUNT];
    sop_t *ops;
    size_t nops;
    pb_op_t pp_fwd, pp_bwd; /* template exchanges on the PP group */
    pb_bufs_t bufs;         /* one pair of buffers, as large as the largest op */
    int m, layers, stage, stages;
    double t_fwd, t_bwd; /* stand-in seconds per layer per micro-batch */
    double spent[C_COUNT];
} step_t;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The compute stand-in: the CPU stays busy for `sec`, as a GPU would be
 * (a sleeping rank would lend its core to an oversubscribed neighbour). */
static void spin(double sec)
{
    double end = now_s() + sec;
    while (now_s() < end)
        ;
}

static enum cat cat_of(pb_gkind_t g)
{
    switch (g) {
    case PB_GK_TP:
        return C_TP;
    case PB_GK_EP:
        return C_EP;
    case PB_GK_CP:
        return C_CP;
    case PB_GK_PP:
        return C_PP;
    default:
        return C_DP;
    }
}

static int map_op(const pb_pat_op_t *r, const pb_group_t *g, pb_op_t *op, pb_err_t *err)
{
    return pb_pattern_backend_op(r, g, op, err) < 0 ? err->code : PB_OK;
}

/* Forward FLOPs of one layer for one micro-batch on one rank: 2 per
 * multiply-add over the layer's weights for every token, plus the
 * attention scores and values (2 * 2 * b * s^2 * h, Narayanan et al.
 * 2021), split over tp and, for the sequence, over cp. */
static double layer_fwd_flops(const pb_model_t *m, const pb_layout_t *l)
{
    double tokens = (double)m->mbs * (double)m->seq / l->size[PB_DIM_CP];
    double w = (double)pb_model_dense_layer_params(m);
    double attn = 4.0 * (double)m->mbs * (double)m->seq * (double)m->seq * (double)m->hidden /
                  l->size[PB_DIM_CP];
    return (2.0 * tokens * w + attn) / l->size[PB_DIM_TP];
}

static int build(step_t *s, pb_err_t *err)
{
    pb_ctx_t *ctx = s->ctx;
    const pb_options_t *o = ctx->opt;
    if (pb_pattern_plan(o, ctx->size, &s->plan, err))
        return err->code;
    const pb_model_t *m = &s->plan.model;
    const pb_layout_t *l = &s->plan.layout;
    if (l->vp > 1)
        return pb_err_set(err, PB_EINPUT, "--vp %d: the interleaved schedule is not executed yet; "
                          "use --schedule 1f1b or gpipe without --vp", l->vp);
    s->m = (int)pb_traffic_micro(m, l);
    s->layers = (int)pb_traffic_stage_layers(m, l);
    s->stages = l->size[PB_DIM_PP];
    s->stage = pb_layout_coord(l, ctx->rank, PB_DIM_PP);
    /* the rate the stand-in assumes: --tflops, else an A100's dense bf16
     * peak at the model's default achievable fraction (312 x 0.5) */
    double rate = (o->tflops > 0.0 ? o->tflops : PB_STEP_DEFAULT_TFLOPS) * 1e12;
    s->t_fwd = layer_fwd_flops(m, l) / rate * o->compute_scale;
    /* backward: twice the forward; full recomputation runs it again */
    s->t_bwd = s->t_fwd * (2.0 + (s->plan.cfg.recompute ? 1.0 : 0.0));

    /* every rank splits every kind, in the same order */
    for (int k = 0; k < PB_GK_COUNT; k++) {
        int gid, idx;
        pb_layout_group(l, (pb_gkind_t)k, ctx->rank, &gid, &idx, NULL);
        if (ctx->be.ops->split(ctx->world_group, gid, idx, &s->groups[k], err))
            return err->code;
    }
    const pb_op_list_t *ops = &s->plan.ops;
    s->ops = calloc(ops->n ? ops->n : 1, sizeof *s->ops);
    if (s->ops == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    uint64_t most = 8;
    int have_fwd = 0, have_bwd = 0;
    for (size_t i = 0; i < ops->n; i++) {
        const pb_pat_op_t *r = &ops->ops[i];
        pb_group_t *g = s->groups[r->group];
        if (r->group == PB_GK_PP) { /* the schedule decides where these go */
            pb_op_t *t = r->phase == PB_PH_FWD ? &s->pp_fwd : &s->pp_bwd;
            if (map_op(r, g, t, err))
                return err->code;
            *(r->phase == PB_PH_FWD ? &have_fwd : &have_bwd) = 1;
            t->p2p = 1;
            if (t->bytes > most)
                most = t->bytes;
            continue;
        }
        sop_t *so = &s->ops[s->nops++];
        if (map_op(r, g, &so->op, err))
            return err->code;
        so->g = g;
        so->cat = cat_of(r->group);
        so->phase = r->phase;
        /* layer-wise operations repeat per micro-batch; gradient buckets
         * and optimizer collectives once a step */
        so->per_pass = r->per_pass;
        so->per_mb = r->per_pass ? (r->count + (uint64_t)s->m - 1) / (uint64_t)s->m : r->count;
        if (so->per_mb == 0)
            so->per_mb = 1;
        uint64_t need = pb_op_buffer_bytes(&so->op, g->size);
        if (need > most)
            most = need;
    }
    if (s->stages > 1 && !(have_fwd && have_bwd))
        return pb_err_set(err, PB_ERUNTIME, "the pipeline exchanges are missing from the op list");
    if (o->step_no_comm) { /* the bubble test: only the schedule's order remains */
        s->nops = 0;
        s->pp_fwd.bytes = s->pp_bwd.bytes = 4;
        s->pp_fwd.dtype = s->pp_bwd.dtype = PB_F32;
        s->pp_fwd.coll = s->pp_bwd.coll = PB_SENDRECV;
    }
    int code = pb_bufs_alloc(s->groups[PB_GK_TP], most, &s->bufs, err);
    if (pb_ctx_agree(ctx, code, err))
        return err->code;
    for (size_t i = 0; i < s->nops; i++)
        if (pb_op_setup(&s->ops[i].op, s->ops[i].g, &s->bufs, err) ||
            pb_op_fill(s->ops[i].g, &s->ops[i].op, &s->bufs, err))
            return err->code;
    return PB_OK;
}

static int run_op(step_t *s, pb_group_t *g, pb_op_t *op, enum cat c, pb_err_t *err)
{
    double t0 = now_s();
    if (pb_op_run(g, op, &s->bufs, err) || g->be->ops->sync(g, err))
        return err->code;
    s->spent[c] += now_s() - t0;
    return PB_OK;
}

/* Layer l's share of the per-pass operations of one phase: op i's n
 * operations are spread evenly over the stage's layers. */
static int layer_ops(step_t *s, pb_phase_t ph, int l, pb_err_t *err)
{
    for (size_t i = 0; i < s->nops; i++) {
        sop_t *so = &s->ops[i];
        if (so->phase != ph || !so->per_pass)
            continue;
        uint64_t L = (uint64_t)s->layers;
        uint64_t k = so->per_mb * (uint64_t)(l + 1) / L - so->per_mb * (uint64_t)l / L;
        for (uint64_t j = 0; j < k; j++)
            if (run_op(s, so->g, &so->op, so->cat, err))
                return err->code;
    }
    return PB_OK;
}

/* The gradient buckets, launched as the last backward pass reaches the
 * layers that fill them (backward runs from the last layer down). */
static int dp_ops(step_t *s, int layer_from_top, pb_err_t *err)
{
    for (size_t i = 0; i < s->nops; i++) {
        sop_t *so = &s->ops[i];
        if (so->per_pass || so->phase != PB_PH_BWD)
            continue;
        uint64_t L = (uint64_t)s->layers, l = (uint64_t)layer_from_top;
        uint64_t k = so->per_mb * (l + 1) / L - so->per_mb * l / L;
        for (uint64_t j = 0; j < k; j++)
            if (run_op(s, so->g, &so->op, C_DP, err))
                return err->code;
    }
    return PB_OK;
}

static int pass(step_t *s, int fwd, int last_bwd, pb_err_t *err)
{
    for (int i = 0; i < s->layers; i++) {
        double t0 = now_s();
        spin(fwd ? s->t_fwd : s->t_bwd);
        s->spent[C_COMPUTE] += now_s() - t0;
        if (layer_ops(s, fwd ? PB_PH_FWD : PB_PH_BWD, fwd ? i : s->layers - 1 - i, err))
            return err->code;
        if (!fwd && last_bwd && dp_ops(s, i, err))
            return err->code;
    }
    return PB_OK;
}

static int exchange(step_t *s, unsigned parts, pb_err_t *err)
{
    pb_group_t *g = s->groups[PB_GK_PP];
    int me = g->rank, prev = me - 1, next = me + 1 < g->size ? me + 1 : -1;
    const unsigned sn = PB_X_BIT(PB_X_SEND_NEXT), rp = PB_X_BIT(PB_X_RECV_PREV),
                   sp = PB_X_BIT(PB_X_SEND_PREV), rn = PB_X_BIT(PB_X_RECV_NEXT);
    pb_op_t op = parts == rn || parts == sp ? s->pp_bwd : s->pp_fwd;
    if (parts == rp)
        op.to = -1, op.from = prev;
    else if (parts == sn)
        op.to = next, op.from = -1;
    else if (parts == rn)
        op.to = -1, op.from = next;
    else if (parts == sp)
        op.to = prev, op.from = -1;
    else if (parts == (sn | rn))
        op.to = next, op.from = next;
    else if (parts == (sp | rp))
        op.to = prev, op.from = prev;
    else
        return pb_err_set(err, PB_EINPUT, "a pipeline exchange of parts 0x%x is not executed yet",
                          parts);
    if (pb_op_setup(&op, g, &s->bufs, err))
        return err->code;
    op.p2p = 1;
    return run_op(s, g, &op, C_PP, err);
}

/* One step on this rank: seconds from the common start to its end. */
static int one_step(step_t *s, const pb_sched_t *sc, double *sec, pb_err_t *err)
{
    memset(s->spent, 0, sizeof s->spent);
    int last_bwd = -1;
    for (size_t i = 0; i < sc->n; i++)
        if (sc->a[i].act == PB_ACT_BWD)
            last_bwd = (int)i;
    pb_group_t *w = s->ctx->world_group;
    if (w->be->ops->barrier(w, err))
        return err->code;
    double t0 = now_s();
    for (size_t i = 0; i < sc->n; i++) {
        pb_act_t a = sc->a[i].act;
        int code = a == PB_ACT_FWD || a == PB_ACT_BWD
                       ? pass(s, a == PB_ACT_FWD, (int)i == last_bwd, err)
                       : exchange(s, sc->a[i].parts, err);
        if (code)
            return code;
    }
    for (size_t i = 0; i < s->nops; i++) /* the optimizer's collectives */
        if (s->ops[i].phase == PB_PH_OPT)
            for (uint64_t j = 0; j < s->ops[i].per_mb; j++)
                if (run_op(s, s->ops[i].g, &s->ops[i].op, C_OPT, err))
                    return err->code;
    *sec = now_s() - t0;
    return PB_OK;
}

/* Every distinct operation of the step, verified once (--check), after
 * the timed steps: nothing is checked inside a timed region. */
static int verify(step_t *s, int64_t *wrong, pb_err_t *err)
{
    pb_ctx_t *ctx = s->ctx;
    uint64_t w = 0;
    int corrupt = ctx->opt->fault == PB_FAULT_CORRUPT && ctx->opt->fault_rank == ctx->rank;
    for (size_t i = 0; i < s->nops; i++) {
        uint64_t one = 0;
        if (pb_op_verify(s->ops[i].g, &s->ops[i].op, &s->bufs, corrupt && i == 0, &one, err))
            return err->code;
        w += one;
    }
    if (s->stages > 1) { /* one exchange in each direction along the pipeline */
        pb_group_t *g = s->groups[PB_GK_PP];
        pb_op_t op = s->pp_fwd;
        op.to = g->rank + 1 < g->size ? g->rank + 1 : -1;
        op.from = g->rank - 1;
        uint64_t one = 0;
        if (pb_op_setup(&op, g, &s->bufs, err) || pb_op_verify(g, &op, &s->bufs, 0, &one, err))
            return err->code;
        w += one;
    }
    int64_t lw = (int64_t)w;
    MPI_Allreduce(&lw, wrong, 1, MPI_INT64_T, MPI_SUM, ctx->world);
    return PB_OK;
}

/* The prediction of the same step: the model (model/pb_step.c) at the
 * stand-in's compute rate, so its compute equals the spins' exactly and
 * every other part is the collective model (calibrated with --calib,
 * else the --hw preset) applied to the same op list. */
static int predict(const step_t *s, pb_step_t *p, int *calibrated, pb_err_t *err)
{
    const pb_options_t *o = s->ctx->opt;
    double tflops = (o->tflops > 0.0 ? o->tflops : PB_STEP_DEFAULT_TFLOPS) / o->compute_scale;
    pb_options_t po = *o;
    po.tflops = 0.0; /* the rate is passed explicitly */
    return pb_model_predict(&po, &s->plan.model, &s->plan.layout, tflops, p, calibrated, err);
}

static void fill_row(const step_t *s, const char *what, const pb_stats_t *st, pb_result_t *r)
{
    pb_ctx_result_base(s->ctx, r);
    snprintf(r->mode, sizeof r->mode, "latency");
    snprintf(r->pattern, sizeof r->pattern, "step");
    snprintf(r->collective, sizeof r->collective, "%s", what);
    snprintf(r->group, sizeof r->group, "world");
    r->group_size = s->ctx->size;
    snprintf(r->dtype, sizeof r->dtype, "%s", pb_pat_dtype_name(s->plan.model.dtype));
    r->iters = st->n;
    r->time_us_min = st->min * 1e6;
    r->time_us_median = st->median * 1e6;
    r->time_us_p99 = st->p99 * 1e6;
    r->time_us_max = st->max * 1e6;
    snprintf(r->redop, sizeof r->redop, "none");
}

static void report(step_t *s, double *steps, double (*cats)[C_COUNT], int n, int slowest,
                   int64_t wrong)
{
    pb_ctx_t *ctx = s->ctx;
    const pb_options_t *o = ctx->opt;
    double *scratch = malloc((size_t)n * sizeof *scratch);
    double *col = malloc((size_t)n * sizeof *col);
    if (scratch == NULL || col == NULL) {
        free(scratch);
        free(col);
        return;
    }
    pb_stats_t st;
    pb_stats_compute(steps, (size_t)n, scratch, &st);
    pb_step_t pr;
    int calibrated = 0;
    pb_err_t perr;
    pb_err_clear(&perr);
    int have_pred = o->step_no_comm ? 0 : predict(s, &pr, &calibrated, &perr) == PB_OK;
    /* which model part each measured category is compared with */
    static const int part_of[C_COUNT] = {PB_PART_COMPUTE, PB_PART_TP, PB_PART_EP, PB_PART_CP,
                                         PB_PART_PP, PB_PART_DP, -1};
    double ideal = s->m * s->layers * (s->t_fwd + s->t_bwd);
    double bubble = (s->stages - 1) * s->layers * (s->t_fwd + s->t_bwd);
    const pb_model_t *m = &s->plan.model;
    const pb_layout_t *l = &s->plan.layout;
    printf("# parbench %s | step | backend %s: %s\n", PB_VERSION, ctx->be.ops->name, ctx->version);
    printf("# model %s: %" PRIu64 " layers, hidden %" PRIu64 ", seq %" PRIu64 ", mbs %" PRIu64
           " | layout tp %d cp %d ep %d dp %d pp %d%s | schedule %s, %d micro-batches, %d layers per stage\n",
           m->name, m->layers, m->hidden, m->seq, m->mbs, l->size[PB_DIM_TP], l->size[PB_DIM_CP],
           l->size[PB_DIM_EP], l->size[PB_DIM_DP], l->size[PB_DIM_PP], l->sp ? " sp" : "",
           pb_sched_name(o->schedule), s->m, s->layers);
    printf("# compute stand-in: %.3g ms forward, %.3g ms backward per layer and micro-batch "
           "(%.4g TFLOP/s x compute scale %g)%s\n",
           s->t_fwd * 1e3, s->t_bwd * 1e3, o->tflops > 0.0 ? o->tflops : PB_STEP_DEFAULT_TFLOPS,
           o->compute_scale,
           o->step_no_comm ? " | communication off (test switch)" : "");
    printf("# %d timed step%s after 1 warm-up; the step is the slowest rank's (rank %d); "
           "its time per category below\n", n, n == 1 ? "" : "s", slowest);
    if (ctx->be.ops == pb_backend_find("mpi"))
        printf("# host backend: operations block, so DP buckets DDP would overlap are exposed\n");
    printf("%-12s %14s %14s %9s\n", "category", "measured_ms", "predicted_ms", "share");
    for (int c = 0; c < C_COUNT; c++) {
        for (int i = 0; i < n; i++)
            col[i] = cats[i][c];
        pb_stats_t cs;
        pb_stats_compute(col, (size_t)n, scratch, &cs);
        char pred[32] = "-";
        if (c == C_COMPUTE)
            snprintf(pred, sizeof pred, "%.3f", ideal * 1e3);
        else if (have_pred && part_of[c] >= 0)
            snprintf(pred, sizeof pred, "%.3f", pr.part[part_of[c]] * 1e3);
        printf("%-12s %14.3f %14s %8.1f%%\n", cat_names[c], cs.median * 1e3, pred,
               st.median > 0 ? 100.0 * cs.median / st.median : 0.0);
        pb_result_t r;
        fill_row(s, cat_names[c], &cs, &r);
        r.wrong = wrong;
        r.slowest_rank = slowest;
        if (ctx->csv)
            pb_csv_write(ctx->csv, &r, &(pb_err_t){0, ""});
    }
    double pp_share = 0.0;
    for (int i = 0; i < n; i++)
        col[i] = steps[i] - cats[i][C_COMPUTE];
    pb_stats_t idle;
    pb_stats_compute(col, (size_t)n, scratch, &idle);
    pp_share = st.median > 0 ? idle.median / st.median : 0.0;
    double pred_idle = have_pred ? pr.total - pr.part[PB_PART_COMPUTE] : bubble;
    printf("%-12s %14.3f %14.3f %8.1f%%  (everything but compute: bubble + exposed communication)\n",
           "not compute", idle.median * 1e3, pred_idle * 1e3, 100.0 * pp_share);
    if (have_pred)
        printf("%-12s %14s %14.3f   (the model's pipeline fill and drain)\n", "  bubble", "-",
               pr.part[PB_PART_BUBBLE] * 1e3);
    printf("%-12s %14.3f %14.3f   bubble (p-1)/(m+p-1) = %.1f%% of the ideal step\n", "step",
           st.median * 1e3, (have_pred ? pr.total - pr.part[PB_PART_OPT] : ideal + bubble) * 1e3,
           100.0 * (s->stages - 1) / (double)(s->m + s->stages - 1));
    if (have_pred)
        printf("# predicted: the model at the stand-in's rate; collectives from %s; the model's\n"
               "# optimizer update (%.3f ms of Adam arithmetic) is left out: nothing runs it here\n",
               calibrated ? "the calibration (--calib)" : "the hardware preset (--hw, default a100)",
               pr.part[PB_PART_OPT] * 1e3);
    else if (!o->step_no_comm)
        printf("# predicted: compute and the bubble only (%s)\n", perr.msg);
    if (wrong >= 0)
        printf("# check: %" PRId64 " wrong elements over every distinct operation\n", wrong);
    pb_result_t r;
    fill_row(s, "step", &st, &r);
    r.wrong = wrong;
    r.slowest_rank = slowest;
    if (ctx->csv)
        pb_csv_write(ctx->csv, &r, &(pb_err_t){0, ""});
    free(scratch);
    free(col);
}

int pb_step_cmd(pb_ctx_t *ctx, pb_err_t *err)
{
    const pb_options_t *o = ctx->opt;
    step_t s;
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    pb_sched_t sc = {NULL, 0};
    int n = (int)(o->steps > 1 ? o->steps - 1 : 1);
    double *steps = calloc((size_t)n, sizeof *steps);
    double (*cats)[C_COUNT] = calloc((size_t)n, sizeof *cats);
    int code = steps && cats ? build(&s, err) : pb_err_set(err, PB_ERUNTIME, "out of memory");
    if (code == PB_OK)
        code = pb_sched_build(o->schedule, s.stages, s.stage, s.m, s.plan.layout.vp, &sc, err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        goto out;
    int slowest = 0;
    for (int i = -1; i < n; i++) { /* i = -1: the warm-up step */
        double sec = 0.0;
        if (one_step(&s, &sc, &sec, err))
            pb_ctx_abort(ctx, err);
        if (i < 0)
            continue;
        /* the slowest rank's step, and that rank's categories */
        struct { double v; int r; } mine = {sec, ctx->rank}, worst;
        MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE_INT, MPI_MAXLOC, ctx->world);
        double c[C_COUNT];
        memcpy(c, s.spent, sizeof c);
        MPI_Bcast(c, C_COUNT, MPI_DOUBLE, worst.r, ctx->world);
        steps[i] = worst.v;
        memcpy(cats[i], c, sizeof c);
        slowest = worst.r;
    }
    int64_t wrong = PB_RESULT_WRONG_UNCHECKED;
    if (o->check && verify(&s, &wrong, err))
        pb_ctx_abort(ctx, err);
    if (ctx->rank == 0)
        report(&s, steps, cats, n, slowest, wrong);
    code = wrong > 0 ? pb_err_set(err, PB_EVERIFY, "verification failed: %" PRId64 " wrong elements",
                                  wrong)
                     : PB_OK;
out:
    pb_sched_free(&sc);
    if (s.bufs.send)
        pb_bufs_free(s.groups[PB_GK_TP], &s.bufs);
    for (int k = 0; k < PB_GK_COUNT; k++)
        if (s.groups[k])
            ctx->be.ops->group_free(s.groups[k]);
    free(s.ops);
    pb_pattern_plan_free(&s.plan);
    free(steps);
    free(cats);
    return err->code ? err->code : code;
}
