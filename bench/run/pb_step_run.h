/* pb_step_run.h - executing one training step on this rank.
 *
 * The state the step command's files share: the plan (model, layout, op
 * list), this rank's groups, the operations each layer issues, the
 * compute stand-in's durations, and what each category of work took.
 * cmd/pb_cmd_step.c runs steps and gathers, cmd/pb_step_report.c prints;
 * pb_step_run.c builds a step, pb_step_pass.c runs one. */
#ifndef PB_STEP_RUN_H
#define PB_STEP_RUN_H

#include <stdint.h>

#include "../../model/pb_step.h"
#include "pb_ctx.h"
#include "pb_exec.h"
#include "../glue/pb_pattern_plan.h"
#include "../../patterns/pb_step_sched.h"

/* What a rank's time goes to.  PP is the time inside pipeline exchanges:
 * the transfer and the wait for the neighbour, which is where the
 * pipeline's bubble shows; DP is what the gradient buckets and parameter
 * gathers leave exposed (issue, and the wait for what is still running). */
enum pb_step_cat { PB_SC_COMPUTE, PB_SC_TP, PB_SC_EP, PB_SC_CP, PB_SC_PP, PB_SC_DP, PB_SC_OPT,
                   PB_SC_COUNT };
const char *pb_step_cat_name(int c);

/* One traced span (--trace): a pass, an exchange, a DP wait. */
typedef struct pb_step_span {
    int act;       /* pb_act_t, or PB_STEP_SPAN_DP */
    int mb, chunk; /* passes */
    unsigned parts;
    double t0, t1; /* seconds from the step's common start */
} pb_step_span_t;
#define PB_STEP_SPAN_DP 100

typedef struct pb_step_op {
    pb_op_t op;
    pb_group_t *g;
    int cat;         /* pb_step_cat */
    int phase;       /* pb_phase_t */
    int per_pass;    /* layer by layer in every pass (else once a step) */
    int overlapped;  /* launched without waiting (DP buckets, parameter gathers) */
    int ring;        /* a ring-attention step: overlaps a block of attention (CP) */
    uint64_t per_mb; /* operations per pass, or per step */
    char doing[sizeof(((pb_group_t *)0)->doing)]; /* the group's while it runs */
} pb_step_op_t;

typedef struct pb_step_exec {
    pb_ctx_t *ctx;
    pb_pattern_plan_t plan;
    pb_group_t *groups[PB_GK_COUNT];
    pb_step_op_t *ops;
    size_t nops;
    uint64_t pp_bytes[2]; /* activation, gradient exchange sizes */
    pb_dtype_t pp_dtype;
    pb_bufs_t bufs;    /* layer operations' buffers, as large as the largest */
    pb_bufs_t dpbufs;  /* overlapped operations' own buffers */
    pb_bufs_t ppbufs;  /* two send and two receive slots for the exchanges */
    int async;         /* overlapped operations really overlap (set_async) */
    uint64_t nbuckets; /* gradient buckets per step, over every bucket kind */
    int m, v, layers;  /* micro-batches, chunks per stage, layers per chunk */
    int stage, stages;
    double t_fwd, t_bwd; /* stand-in seconds per layer per micro-batch */
    double opt_s;        /* stand-in seconds of the optimizer's update */
    double spent[PB_SC_COUNT];
    pb_sched_kind_t kind;
    pb_sched_t sched;
    /* the model's prediction of the same step */
    pb_step_t pred;
    int calibrated; /* its collectives came from --calib */
    /* last backward pass of each chunk: where its gradient buckets go */
    size_t *last_bwd;
    /* --trace: the spans of the latest step, from its start at `origin`
     * (CLOCK_MONOTONIC seconds) */
    double origin;
    pb_step_span_t *spans;
    size_t nspans, capspans;
    int tracing;
} pb_step_exec_t;

/* The compute rate the stand-in assumes (TFLOP/s per GPU). */
double pb_step_tflops(const pb_options_t *o);

/* Collective: plan, groups, operations, buffers and schedule. */
int pb_step_build(pb_step_exec_t *s, pb_ctx_t *ctx, pb_err_t *err);
/* Collective: one step; *sec = this rank's time from the common start. */
int pb_step_one(pb_step_exec_t *s, double *sec, pb_err_t *err);
/* Collective: every distinct operation once, verified; *wrong summed over
 * the world. */
int pb_step_verify(pb_step_exec_t *s, int64_t *wrong, pb_err_t *err);
void pb_step_release(pb_step_exec_t *s);

#endif
