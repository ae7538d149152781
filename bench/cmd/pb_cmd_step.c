/* parbench step: runs a warm-up step and the timed ones on every rank
 * (pb_step_run.c), gathers every rank's breakdown to rank 0 for the
 * report (pb_step_report.c), writes the last step's timeline (--trace)
 * and verifies every distinct operation afterwards (--check): nothing
 * is checked inside a timed step. */
#include "pb_cmd_step.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/pb_trace.h"
#include "pb_step_report.h"
#include "../run/pb_step_run.h"
#include "../cli/pb_opt_common.h"
#include "../../patterns/pb_step_sched.h"

static void span_event(const pb_step_exec_t *s, int rank, const pb_step_span_t *sp, double shift,
                       pb_trace_event_t *e)
{
    memset(e, 0, sizeof *e);
    e->pid = rank;
    e->ts_us = (sp->t0 + shift) * 1e6;
    e->dur_us = (sp->t1 - sp->t0) * 1e6;
    e->mb = -1;
    e->chunk = -1;
    if (sp->act == PB_STEP_SPAN_DP) {
        snprintf(e->name, sizeof e->name, "dp wait");
        snprintf(e->cat, sizeof e->cat, "dp");
    } else if (sp->act == PB_ACT_XCHG) {
        pb_xchg_name(sp->parts, e->detail, sizeof e->detail);
        snprintf(e->name, sizeof e->name, "xchg %.50s", e->detail);
        snprintf(e->cat, sizeof e->cat, "pp");
    } else {
        e->mb = sp->mb;
        e->chunk = sp->chunk;
        if (s->v > 1)
            snprintf(e->name, sizeof e->name, "%s mb %d chunk %d", pb_act_name(sp->act), sp->mb,
                     sp->chunk);
        else
            snprintf(e->name, sizeof e->name, "%s mb %d", pb_act_name(sp->act), sp->mb);
        snprintf(e->cat, sizeof e->cat, "compute");
    }
}

/* Collective: every rank's spans of the last step to rank 0, written as
 * a Chrome trace there.  Returns the agreed status. */
static int write_trace(pb_step_exec_t *s, pb_err_t *err)
{
    pb_ctx_t *ctx = s->ctx;
    int R = ctx->size, code = PB_OK;
    /* 0: it stopped growing */
    uint64_t mine = s->tracing ? (uint64_t)(s->nspans * sizeof *s->spans) : 0;
    uint64_t *bytes = ctx->rank == 0 ? calloc((size_t)R, sizeof *bytes) : NULL;
    uint64_t *displs = ctx->rank == 0 ? calloc((size_t)R, sizeof *displs) : NULL;
    if (ctx->rank == 0 && (bytes == NULL || displs == NULL))
        pb_ctx_abort(ctx, &(pb_err_t){PB_ERUNTIME, "out of memory for the trace"});
    if (pb_ctl_gather(ctx->world, &mine, bytes, sizeof mine, 0) != PB_OK)
        pb_ctx_abort(ctx, &(pb_err_t){PB_ERUNTIME, "the gather of the trace sizes failed"});
    /* One host: every rank reads one CLOCK_MONOTONIC, so the ranks' step
     * starts are placed exactly on rank 0's time line and the order of
     * events across ranks is real.  Across nodes the clocks are unrelated:
     * every rank starts at the barrier that opens the step (within the
     * barrier's skew, microseconds on a fabric). */
    double *origins = ctx->rank == 0 ? calloc((size_t)R, sizeof *origins) : NULL;
    if (ctx->rank == 0 && origins == NULL)
        pb_ctx_abort(ctx, &(pb_err_t){PB_ERUNTIME, "out of memory for the trace"});
    if (pb_ctl_gather(ctx->world, &s->origin, origins, sizeof s->origin, 0) != PB_OK)
        pb_ctx_abort(ctx, &(pb_err_t){PB_ERUNTIME, "the gather of the step starts failed"});
    size_t total = 0;
    for (int r = 0; ctx->rank == 0 && r < R; r++) {
        displs[r] = (uint64_t)total;
        total += (size_t)bytes[r];
    }
    pb_step_span_t *sp = ctx->rank == 0 ? malloc(total ? total : 1) : NULL;
    if (ctx->rank == 0 && sp == NULL)
        pb_ctx_abort(ctx, &(pb_err_t){PB_ERUNTIME, "out of memory for the trace"});
    if (pb_ctl_gatherv(ctx->world, s->spans, mine, sp, bytes, displs, 0) != PB_OK)
        pb_ctx_abort(ctx, &(pb_err_t){PB_ERUNTIME, "the gather of the trace failed"});
    if (ctx->rank == 0) {
        size_t n = total / sizeof *sp;
        pb_trace_event_t *ev = malloc((n ? n : 1) * sizeof *ev);
        char(*label)[32] = malloc((size_t)R * sizeof *label);
        if (ev == NULL || label == NULL) {
            code = pb_err_set(err, PB_ERUNTIME, "out of memory for the trace");
        } else {
            size_t k = 0;
            for (int r = 0; r < R; r++) {
                snprintf(label[r], sizeof label[r], "stage %d",
                         pb_layout_coord(&s->plan.layout, r, PB_DIM_PP));
                double shift = ctx->nodes == 1 ? origins[r] - origins[0] : 0.0;
                for (uint64_t j = 0; j < bytes[r] / sizeof *sp; j++, k++)
                    span_event(s, r, &sp[(size_t)(displs[r] / sizeof *sp + j)], shift, &ev[k]);
            }
            code = pb_trace_write(ctx->opt->step.trace_path, ev, k, (const char(*)[32])label, R, err);
            if (code == PB_OK)
                printf("# trace of the last step: %s\n", ctx->opt->step.trace_path);
        }
        free(ev);
        free(label);
    }
    free(sp);
    free(origins);
    free(bytes);
    free(displs);
    return pb_ctx_agree(ctx, code, err);
}

/* A trace path that cannot be written is bad input: refused before any
 * step runs, not after them. */
static int trace_writable(const pb_ctx_t *ctx, pb_err_t *err)
{
    if (ctx->rank != 0 || ctx->opt->step.trace_path == NULL)
        return PB_OK;
    FILE *f = fopen(ctx->opt->step.trace_path, "w");
    if (f == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot write the trace '%s': %s",
                          ctx->opt->step.trace_path, strerror(errno));
    fclose(f);
    return PB_OK;
}

int pb_step_cmd(pb_ctx_t *ctx, pb_err_t *err)
{
    const pb_options_t *o = ctx->opt;
    pb_step_exec_t s;
    memset(&s, 0, sizeof s);
    int n = (int)(o->step.steps > 1 ? o->step.steps - 1 : 1);
    double *mine = calloc((size_t)n * PB_STEP_COLS, sizeof *mine);
    double *all = ctx->rank == 0 ? calloc((size_t)n * PB_STEP_COLS * (size_t)ctx->size,
                                          sizeof *all)
                                 : NULL;
    int code = mine && (ctx->rank != 0 || all) ? PB_OK
                                                : pb_err_set(err, PB_ERUNTIME, "out of memory");
    if (code == PB_OK)
        code = trace_writable(ctx, err);
    code = pb_ctx_agree(ctx, code, err); /* rank 0 alone knows about the file */
    if (code == PB_OK)
        code = pb_step_build(&s, ctx, err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        goto out;
    int done = 0;
    for (int i = -1; i < n; i++) { /* i = -1: the warm-up step */
        if (pb_ctx_stopping(ctx))
            break;
        double sec = 0.0;
        if (pb_step_one(&s, &sec, err))
            pb_ctx_abort(ctx, err);
        if (i < 0)
            continue;
        mine[(size_t)i * PB_STEP_COLS] = sec;
        memcpy(&mine[(size_t)i * PB_STEP_COLS + 1], s.spent, sizeof s.spent);
        done = i + 1;
    }
    if (done == 0) { /* stopped before a timed step */
        code = PB_OK;
        goto out;
    }
    /* rank r's steps land at all[r * n * cols]: a plain gather */
    if (pb_ctl_gather(ctx->world, mine, all, (uint64_t)n * PB_STEP_COLS * sizeof *mine, 0) !=
        PB_OK)
        pb_ctx_abort(ctx, &(pb_err_t){PB_ERUNTIME, "the gather of the step times failed"});
    if (o->step.trace_path && (code = write_trace(&s, err)) != PB_OK)
        goto out;
    int64_t wrong = PB_RESULT_WRONG_UNCHECKED;
    if (o->step.check && !ctx->stopped_by && pb_step_verify(&s, &wrong, err))
        pb_ctx_abort(ctx, err);
    if (ctx->rank == 0) {
        if (done < n) /* a stop: report the whole steps only */
            for (int r = 1; r < ctx->size; r++)
                memmove(&all[(size_t)r * (size_t)done * PB_STEP_COLS],
                        &all[(size_t)r * (size_t)n * PB_STEP_COLS],
                        (size_t)done * PB_STEP_COLS * sizeof *all);
        pb_step_report(&s, all, done, wrong);
        if (ctx->csv_path)
            printf("# results appended to %s\n", ctx->csv_path);
    }
    code = wrong > 0 ? pb_err_set(err, PB_EVERIFY, "verification failed: %" PRId64 " wrong elements",
                                  wrong)
                     : PB_OK;
out:
    pb_step_release(&s);
    free(mine);
    free(all);
    return err->code ? err->code : code;
}

/* ---- the command: its options and table row ----------------------- */

static int set_schedule(pb_options_t *o, const pb_opt_spec_t *s, const char *v,
                        const char *shown, pb_err_t *err)
{
    (void)s, (void)shown;
    pb_sched_kind_t k;
    if (pb_sched_parse(v, &k) != 0)
        return pb_err_set(err, PB_EINPUT, "--schedule takes 1f1b, gpipe or interleaved, not '%s'",
                          v);
    o->step.schedule = (int)k;
    return PB_OK;
}

static int set_steps(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                     pb_err_t *err)
{
    (void)s;
    if (pb_parse_u64(shown, v, 1, &o->step.steps, err) != PB_OK)
        return err->code;
    if (o->step.steps < 2) /* nothing would be timed */
        return pb_err_set(err, PB_EINPUT,
                          "--steps %s: the first step is a warm-up, so at least 2 are needed", v);
    return PB_OK;
}

static const pb_opt_spec_t step_specs[] = {
    {"schedule", 0, "S", set_schedule, 0, 0,
     "1f1b, gpipe or interleaved (Megatron's, with --vp chunks\n"
     "per stage; the default when --vp is above 1, else 1f1b)",
     "1f1b gpipe interleaved", NULL},
    {"compute-scale", 0, "X", pb_opt_pos, PB_OFF(step.compute_scale), 0,
     "multiply the stand-in's durations by X (default 1): a\n"
     "70B-shaped step fits a small machine, communication exact",
     NULL, NULL},
    {"steps", 0, "N", set_steps, 0, 0,
     "steps to run, N >= 2: the first is a warm-up, the N - 1\nothers are timed (default 3)", NULL,
     NULL},
    {"check", 0, NULL, pb_opt_flag, PB_OFF(step.check), 0,
     "verify every distinct operation after the timed steps", NULL, NULL},
    {"trace", 0, "FILE", pb_opt_file, PB_OFF(step.trace_path), 0,
     "write the last step's timeline of every rank (passes,\n"
     "exchanges, DP waits) as a Chrome trace (chrome://tracing,\n"
     "ui.perfetto.dev)",
     "@file", NULL},
    {"no-comm", 0, NULL, pb_opt_flag, PB_OFF(step.no_comm), 0,
     "test switch: no collectives, 4-byte pipeline exchanges:\n"
     "the measured idle time is the pipeline bubble alone",
     NULL, NULL},
};
static const pb_opt_group_t step_group = PB_GROUP("step:", step_specs, NULL);

static void step_defaults(pb_options_t *o)
{
    pb_run_defaults(o);
    pb_model_defaults(o);
    o->step.schedule = -1; /* interleaved with --vp, else 1f1b */
    o->step.compute_scale = 1.0;
    o->step.steps = 3;
}

/* a step's rows are worth keeping even when no file was named: they
 * append to one file, each run under its own run_id */
static int step_finish(pb_options_t *o, pb_err_t *err)
{
    /* step runs the schedules it executes (--schedule); DualPipe is
     * modelled, not executed */
    if (o->predict.pp_schedule)
        return pb_err_set(err, PB_EINPUT,
                          "step executes --schedule's schedules (1f1b, gpipe, interleaved): "
                          "--pp-schedule belongs to model and plan");
    if (o->run.csv_path == NULL && o->run.json_path == NULL)
        o->run.csv_path = PB_STEP_DEFAULT_CSV;
    if (pb_predict_finish(o, err) != PB_OK)
        return err->code;
    return pb_run_finish(o, err);
}

const pb_cmd_desc_t pb_cmd_step = {
    PB_CMD_STEP, "step", "one training step's communication schedule, executed (parbench step --help)",
    "usage: parbench step [model and layout options] [OPTIONS]\n"
    "\n"
    "Executes one training step's communication schedule on the launched ranks:\n"
    "each pipeline stage runs its micro-batches in schedule order, standing in for\n"
    "each layer's compute with a timed spin and issuing the layer's TP/SP, EP and\n"
    "CP operations on its real groups; pipeline exchanges happen where Megatron's\n"
    "schedule puts them; DP buckets go out during the last backward pass; the\n"
    "optimizer's collectives close the step.  Prints measured time per category\n"
    "(slowest rank) beside the prediction, and writes rows with pattern step\n"
    "(to --csv FILE, default " PB_STEP_DEFAULT_CSV ").\n",
    {{&step_group, NULL},
     {&pb_grp_model, NULL},
     {&pb_grp_layout, NULL},
     {&pb_grp_train, NULL},
     {&pb_grp_predict_run, NULL},
     {&pb_grp_output, NULL},
     {&pb_grp_launch, NULL},
     {&pb_grp_help, NULL}},
    "", 0, step_defaults, step_finish, NULL, NULL, pb_step_cmd, 0, NULL};
