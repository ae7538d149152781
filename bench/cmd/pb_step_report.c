/* The executed step's report.
 *
 * A step takes as long as its slowest rank, so the headline breakdown is
 * that rank's, step by step (median over the timed steps), beside the
 * model's prediction of the same step with the difference per part.  The
 * measured categories map onto the model's parts one to one, except the
 * pipeline: a rank cannot tell, inside an exchange, the transfer from the
 * wait for its neighbour, which is where the bubble shows, so the time in
 * exchanges is compared with the model's PP transfers plus its bubble. */
#include "pb_step_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/pb_stats.h"
#include "../glue/pb_pattern_print.h"

/* the model's part(s) each measured category is compared with */
static double predicted(const pb_step_exec_t *s, int c)
{
    const double *p = s->pred.part;
    switch (c) {
    case PB_SC_COMPUTE:
        return p[PB_PART_COMPUTE];
    case PB_SC_TP:
        return p[PB_PART_TP];
    case PB_SC_EP:
        return p[PB_PART_EP];
    case PB_SC_CP:
        return p[PB_PART_CP];
    case PB_SC_PP:
        return p[PB_PART_PP] + p[PB_PART_BUBBLE];
    case PB_SC_DP:
        return p[PB_PART_DP];
    default:
        return s->opt_s;
    }
}

static double predicted_total(const pb_step_exec_t *s)
{
    double t = 0.0;
    for (int c = 0; c < PB_SC_COUNT; c++)
        t += predicted(s, c);
    return t;
}

static const char *const shown[PB_SC_COUNT] = {"compute", "tp exposed", "ep", "cp",
                                               "pp + bubble", "dp exposed", "optimizer"};

static void row(const pb_step_exec_t *s, const char *what, const char *group, const char *mode,
                const pb_stats_t *st, int rank, int64_t wrong, pb_result_t *r)
{
    pb_ctx_result_base(s->ctx, r);
    snprintf(r->mode, sizeof r->mode, "%s", mode);
    snprintf(r->pattern, sizeof r->pattern, "step");
    snprintf(r->collective, sizeof r->collective, "%s", what);
    snprintf(r->group, sizeof r->group, "%s", group);
    r->group_size = s->ctx->size;
    snprintf(r->dtype, sizeof r->dtype, "%s", pb_dtype_name(s->plan.model.dtype));
    r->iters = st->n;
    r->time_us_min = st->min * 1e6;
    r->time_us_median = st->median * 1e6;
    r->time_us_p99 = st->p99 * 1e6;
    r->time_us_max = st->max * 1e6;
    r->wrong = wrong;
    r->slowest_rank = rank;
    snprintf(r->redop, sizeof r->redop, "none");
    snprintf(r->label, sizeof r->label, "%s", pb_sched_name(s->kind));
}

static void emit(pb_step_exec_t *s, pb_result_t *r)
{
    pb_err_t e;
    pb_err_clear(&e);
    if (pb_ctx_emit(s->ctx, r, &e) != PB_OK)
        fprintf(stderr, "parbench: %s\n", e.msg);
}

static void header(const pb_step_exec_t *s, int n, int slowest)
{
    const pb_ctx_t *ctx = s->ctx;
    const pb_options_t *o = ctx->opt;
    const pb_model_t *m = &s->plan.model;
    const pb_layout_t *l = &s->plan.layout;
    printf("# parbench %s | step | backend %s: %s\n", PB_VERSION, ctx->be.comm->name, ctx->version);
    pb_ctx_print_oversub(ctx, stdout);
    printf("# model %s: %" PRIu64 " layers, hidden %" PRIu64 ", seq %" PRIu64 ", mbs %" PRIu64
           " | layout tp %d cp %d ep %d dp %d pp %d%s | schedule %s, %d micro-batches, ",
           m->name, m->layers, m->hidden, m->seq, m->mbs, l->size[PB_DIM_TP], l->size[PB_DIM_CP],
           l->size[PB_DIM_EP], l->size[PB_DIM_DP], l->size[PB_DIM_PP], l->sp ? " sp" : "",
           pb_sched_name(s->kind), s->m);
    if (s->v > 1)
        printf("%d chunks of %d layer%s per stage\n", s->v, s->layers, s->layers == 1 ? "" : "s");
    else
        printf("%d layers per stage\n", s->layers);
    pb_pattern_print_raised(stdout, &s->plan, "# ");
    printf("# compute stand-in: %.3g ms forward, %.3g ms backward per layer and micro-batch "
           "(the model's busiest stage at %.4g TFLOP/s x compute scale %g)%s\n",
           s->t_fwd * 1e3, s->t_bwd * 1e3, pb_step_tflops(o), o->step.compute_scale,
           o->step.no_comm ? " | communication off (test switch)" : "");
    printf("# DP buckets and parameter gathers: %s\n",
           s->async ? "launched without waiting, overlapped with compute (the wait is exposed DP)"
                    : "this backend cannot overlap them: they block, exposed whole");
    printf("# %d timed step%s after 1 warm-up; a step lasts as long as its slowest rank "
           "(most often rank %d): its breakdown, median over steps\n",
           n, n == 1 ? "" : "s", slowest);
}

/* all[] holds, per rank r and timed step i, PB_STEP_COLS numbers: the
 * step's time, then each category's. */
static double at(const double *all, int n, int r, int i, int k)
{
    return all[((size_t)r * (size_t)n + (size_t)i) * PB_STEP_COLS + (size_t)k];
}

/* Each step's slowest rank into slow[i]; returns the rank slowest most
 * often (times_slowest: R zeroed counters). */
static int slowest_ranks(const double *all, int n, int R, int *slow, int *times_slowest)
{
    for (int i = 0; i < n; i++) {
        for (int r = 1; r < R; r++)
            if (at(all, n, r, i, 0) > at(all, n, slow[i], i, 0))
                slow[i] = r;
        times_slowest[slow[i]]++;
    }
    int slowest = 0;
    for (int r = 1; r < R; r++)
        if (times_slowest[r] > times_slowest[slowest])
            slowest = r;
    return slowest;
}

/* The headline: each category of the slowest rank of each step, median
 * over steps, beside the model's; a measured and a model row each.
 * Returns the step's own statistics in *step. */
static void breakdown(pb_step_exec_t *s, const double *all, int n, const int *slow,
                      int slowest, int64_t wrong, double *col, double *scratch,
                      pb_stats_t *step)
{
    const pb_options_t *o = s->ctx->opt;
    printf("%-14s %13s %13s %12s %8s\n", "part", "measured_ms", "predicted_ms", "diff_ms",
           "diff");
    pb_result_t res;
    memset(step, 0, sizeof *step);
    for (int c = 0; c <= PB_SC_COUNT; c++) { /* the categories, then the step */
        int k = c < PB_SC_COUNT ? 1 + c : 0;
        for (int i = 0; i < n; i++)
            col[i] = at(all, n, slow[i], i, k);
        pb_stats_t st;
        pb_stats_compute(col, (size_t)n, scratch, &st);
        if (k == 0)
            *step = st;
        double pred = c < PB_SC_COUNT ? predicted(s, c) : predicted_total(s);
        const char *name = c < PB_SC_COUNT ? shown[c] : "step";
        char rel[16] = "-";
        if (pred > 0.0)
            snprintf(rel, sizeof rel, "%+.0f%%", 100.0 * (st.median - pred) / pred);
        if (o->step.no_comm && c != PB_SC_COMPUTE && c != PB_SC_PP && c < PB_SC_COUNT)
            continue; /* nothing ran */
        printf("%-14s %13.3f %13.3f %12.3f %8s\n", name, st.median * 1e3, pred * 1e3,
               (st.median - pred) * 1e3, rel);
        const char *what = c < PB_SC_COUNT ? pb_step_cat_name(c) : "step";
        row(s, what, "world", "latency", &st, slowest, wrong, &res);
        emit(s, &res);
        pb_stats_t ps = {1, pred, pred, pred, pred, pred, pred, pred};
        row(s, what, "world", "model", &ps, -1, PB_RESULT_WRONG_UNCHECKED, &res);
        emit(s, &res);
    }
}

/* The lines under the table: the step's spread, the pipeline's share,
 * where the prediction came from. */
static void notes(const pb_step_exec_t *s, const double *all, int n, const int *slow,
                  const pb_stats_t *step, double *col, double *scratch)
{
    const pb_options_t *o = s->ctx->opt;
    printf("# step over %d timed steps: min %.3f, median %.3f, max %.3f ms (spread %.1f%% of "
           "the median)\n", n, step->min * 1e3, step->median * 1e3, step->max * 1e3,
           step->median > 0 ? 100.0 * (step->max - step->min) / step->median : 0.0);
    const double *p = s->pred.part;
    printf("# the model's pipeline: %.3f ms of exchanges on the critical path + %.3f ms bubble "
           "((p-1)/(v m) = %.1f%% of the work; Narayanan et al. 2021)\n",
           p[PB_PART_PP] * 1e3, p[PB_PART_BUBBLE] * 1e3,
           100.0 * (s->stages - 1) / ((double)s->v * s->m));
    /* the bubble as a share of the whole step, what --no-comm isolates */
    for (int i = 0; i < n; i++)
        col[i] = at(all, n, slow[i], i, 0) - at(all, n, slow[i], i, 1 + PB_SC_COMPUTE) -
                 at(all, n, slow[i], i, 1 + PB_SC_OPT);
    pb_stats_t idle;
    pb_stats_compute(col, (size_t)n, scratch, &idle);
    printf("# not compute: %.3f ms = %.1f%% of the step (the stand-ins for compute and the "
           "optimizer aside; with communication off, the bubble alone: (p-1)/(v m + p-1) = "
           "%.1f%%)\n", idle.median * 1e3,
           step->median > 0 ? 100.0 * idle.median / step->median : 0.0,
           100.0 * (s->stages - 1) / ((double)s->v * s->m + s->stages - 1));
    printf("# predicted from %s; cp: each ring step travels beside one block of attention, "
           "the wait is exposed (the model hides them behind all of it)\n",
           s->calibrated ? "the calibration (--calib)" : "the hardware preset (--hw, default a100)");
    if (s->calibrated && s->pred.ops_other_dtype)
        printf("# %d operation kinds are reductions calibrated with another data type (theirs "
               "was not measured, or not at that size)\n",
               s->pred.ops_other_dtype);
    if (s->calibrated) {
        char note[512];
        pb_step_calib_note(&s->pred, o->predict.hw ? o->predict.hw : "a100", note, sizeof note);
        printf("# %s\n", note);
    }
}

/* Every rank's medians as CSV rows; printed for every rank up to 32, past
 * that for each pipeline stage's slowest (by the last step), so that the
 * table stays readable and its cost O(ranks). */
static void per_rank(pb_step_exec_t *s, const double *all, int n, int64_t wrong, double *col,
                     double *scratch, double *stage_max)
{
    const pb_layout_t *l = &s->plan.layout;
    int R = s->ctx->size, pp = l->size[PB_DIM_PP];
    for (int q = 0; q < pp; q++)
        stage_max[q] = -1.0;
    for (int q = 0; q < R; q++) {
        int st = pb_layout_coord(l, q, PB_DIM_PP);
        if (at(all, n, q, n - 1, 0) > stage_max[st])
            stage_max[st] = at(all, n, q, n - 1, 0);
    }
    printf("# per rank, median over steps (ms):\n%-6s %5s %10s", "rank", "stage", "step");
    for (int c = 0; c < PB_SC_COUNT; c++)
        printf(" %10s", pb_step_cat_name(c));
    printf("\n");
    pb_result_t res;
    for (int r = 0; r < R; r++) {
        int stage = pb_layout_coord(l, r, PB_DIM_PP);
        double med[PB_STEP_COLS];
        for (int k = 0; k < PB_STEP_COLS; k++) {
            for (int i = 0; i < n; i++)
                col[i] = at(all, n, r, i, k);
            pb_stats_t st;
            pb_stats_compute(col, (size_t)n, scratch, &st);
            med[k] = st.median;
            if (k > 0) {
                row(s, pb_step_cat_name(k - 1), "rank", "latency", &st, r, wrong, &res);
                snprintf(res.label, sizeof res.label, "rank %d stage %d", r, stage);
                emit(s, &res);
            }
        }
        if (R > 32 && at(all, n, r, n - 1, 0) < stage_max[stage])
            continue; /* not its stage's slowest */
        printf("%-6d %5d %10.3f", r, stage, med[0] * 1e3);
        for (int k = 1; k < PB_STEP_COLS; k++)
            printf(" %10.3f", med[k] * 1e3);
        printf("\n");
    }
}

void pb_step_report(pb_step_exec_t *s, const double *all, int n, int64_t wrong)
{
    int R = s->ctx->size, pp = s->plan.layout.size[PB_DIM_PP];
    double *col = malloc((size_t)n * sizeof *col);
    double *scratch = malloc((size_t)n * sizeof *scratch);
    double *stage_max = malloc((size_t)(pp > 0 ? pp : 1) * sizeof *stage_max);
    int *slow = calloc((size_t)n, sizeof *slow);
    int *times_slowest = calloc((size_t)R, sizeof *times_slowest);
    if (col && scratch && stage_max && slow && times_slowest) {
        int slowest = slowest_ranks(all, n, R, slow, times_slowest);
        header(s, n, slowest);
        pb_stats_t step;
        breakdown(s, all, n, slow, slowest, wrong, col, scratch, &step);
        notes(s, all, n, slow, &step, col, scratch);
        per_rank(s, all, n, wrong, col, scratch, stage_max);
        if (wrong >= 0)
            printf("# check: %" PRId64 " wrong elements over every distinct operation\n", wrong);
    } else {
        fprintf(stderr, "parbench: out of memory for the step report\n");
    }
    free(col);
    free(scratch);
    free(stage_max);
    free(slow);
    free(times_slowest);
}
