/* pb_tune.h - parbench tune's run, shared by its files: pb_cmd_tune.c
 * (the command: options, checks, the order of the stages),
 * pb_tune_cases.c (the job's operations and their groups, the default's
 * pass), pb_tune_pairs.c (a candidate timed against the default, pair by
 * pair, within the budget) and pb_tune_out.c (the tables, tune.csv,
 * tune.env and the effect on the step).
 *
 * A case is one distinct operation of the job (collective, group kind,
 * size, type) with how often a step issues it.  A candidate is a setting
 * (tune/pb_tplan.h's pb_tcand_t); every candidate that can change a
 * case's collective is timed on it against the default, on groups split
 * after the setting was made (the default's groups, split before any,
 * keep the launch's). */
#ifndef PB_TUNE_H
#define PB_TUNE_H

#include "../../tune/pb_knob.h"
#include "../../tune/pb_tplan.h"
#include "../../tune/pb_tverdict.h"
#include "../../model/pb_step.h"
#include "../glue/pb_pattern_plan.h"
#include "../run/pb_ctx.h"
#include "../run/pb_exec.h"

#define PB_TUNE_CASES 32
#define PB_TUNE_CANDS 96
#define PB_TUNE_KINDS (PB_GK_COUNT + 1) /* the layout's kinds, then --op's group */
#define PB_TUNE_OPKIND PB_GK_COUNT

typedef struct pb_tune_case {
    pb_op_t op;
    int kind;     /* pb_gkind_t, or PB_TUNE_OPKIND */
    int strategy; /* pb_strategy_t of the record, -1 for --op */
    int gsize;
    uint64_t count; /* per step (1 for --op) */
    double def_s;   /* the default's median from the first pass */
    double def_wall; /* seconds that measurement took, all in */
    /* past the heaviest cases that make up PB_TUNE_COVER of the job's
     * communication: reported, not tuned (a model's job only) */
    int minor;
} pb_tune_case_t;

/* The share of a job's communication time whose cases are tuned, the
 * heaviest first: what is left can move the job's time by at most 1 %
 * of it, whatever a setting does to it, and would take the budget of the
 * cases that matter (a DP bucket issued once a step beside a TP
 * all-reduce issued 131,072 times). */
#define PB_TUNE_COVER 0.99
/* Pairs below which a candidate is not started: 6 is the fewest whose
 * 95 % interval can lie wholly on one side of 1 (five pairs all one way
 * happen by chance 2/32 = 6.25 % of the time when nothing changed);
 * up to 10 the interval is the pairs' whole range (tune/pb_tverdict.h). */
#define PB_TUNE_MIN_PAIRS 6

/* One candidate on one case: its state and verdict (tune/pb_tplan.h),
 * and what the tables and tune.csv show beside them. */
typedef struct pb_tres {
    pb_tcell_t c;
    double def_med, cand_med; /* seconds: the medians of the pairs' sides */
    int64_t wrong;            /* -1: not checked */
    int cut;                  /* pairs cut short by the budget */
} pb_tres_t;

typedef struct pb_tune {
    pb_ctx_t *ctx;
    const pb_options_t *o;
    pb_knob_lib_t lib;
    int have_plan;
    pb_pattern_plan_t plan;
    pb_group_t *def[PB_TUNE_KINDS]; /* the default's groups */
    pb_tune_case_t cases[PB_TUNE_CASES];
    size_t ncases;
    pb_tcand_t cands[PB_TUNE_CANDS];
    char cand_note[PB_TUNE_CANDS][128]; /* why a candidate failed or was left out */
    size_t cand_pairs[PB_TUNE_CANDS];   /* pairs per case it was given */
    size_t ncands;
    pb_tres_t res[PB_TUNE_CANDS][PB_TUNE_CASES];
    double t0;    /* start of the run (this rank's clock) */
    double spent; /* seconds, agreed by every rank (the slowest's) */
    size_t nskipped_budget;
    char skipped_knobs[256]; /* knobs that need a launch per value, not searched */
} pb_tune_t;

/* pb_cmd_tune.c: the command's run on the launched ranks */
int pb_tune_cmd(pb_ctx_t *ctx, pb_err_t *err);

/* pb_tune_cases.c */
/* The run's clock starts (pb_tune_clock counts from here). */
void pb_tune_clock_start(pb_tune_t *t);
int pb_tune_cases(pb_tune_t *t, pb_err_t *err);
int pb_tune_split(pb_tune_t *t, int kind, pb_group_t **out, pb_err_t *err);
int pb_tune_default_pass(pb_tune_t *t, pb_err_t *err);
void pb_tune_case_name(const pb_tune_t *t, const pb_tune_case_t *c, char *buf, size_t len);
/* A case's share of the job: the default's time x how often a step
 * issues it (what orders the cases, the knobs and the job's score). */
double pb_tune_case_weight(const pb_tune_case_t *c);
/* The case's group as the results name it: tp, dp, ... or world, split. */
const char *pb_tune_group_name(const pb_tune_t *t, const pb_tune_case_t *c);
/* Seconds since the run began, the same number on every rank (the
 * slowest's), so that every rank takes the same budget decision. */
double pb_tune_clock(pb_tune_t *t);
/* Buffers for case c (on its default group: the candidate's groups have
 * the same size and memory); agreed by every rank. */
int pb_tune_bufs(pb_tune_t *t, const pb_tune_case_t *c, pb_bufs_t *b, pb_err_t *err);
/* One timing of op on g under `setting` (for the watchdog's message):
 * the harness's median (the slowest rank's: the same on every rank) and
 * the seconds it took.  Returns 1 when a signal stopped it. */
int pb_tune_time(pb_tune_t *t, pb_group_t *g, const pb_op_t *op, pb_bufs_t *b,
                 const char *setting, double *med, double *wall);
/* op verified once on g: every rank's wrong elements, summed. */
int64_t pb_tune_verify(pb_tune_t *t, pb_group_t *g, const pb_op_t *op, pb_bufs_t *b);

/* pb_tune_pairs.c: candidate i on every case it can change */
int pb_tune_measure(pb_tune_t *t, size_t i, pb_err_t *err);

/* pb_tune_out.c (rank 0) */
void pb_tune_print_cases(const pb_tune_t *t);
void pb_tune_print_cand(const pb_tune_t *t, size_t i);
/* The weighted ratio of candidate i over the job (tune/pb_tplan.h's
 * score: 0 when it is faster nowhere or not faster overall). */
double pb_tune_score(const pb_tune_t *t, size_t i);
int pb_tune_finish_out(pb_tune_t *t, pb_err_t *err);

/* pb_tune_effect.c: the step the model predicts for the job, and the
 * same step with each strategy's communication x its measured ratio
 * (strat_ratio by pb_strategy_t; 1: unchanged). */
void pb_tune_print_step(const pb_tune_t *t, const double *strat_ratio);
/* The step's seconds with part p's communication x r[p] (pb_step.h's
 * parts): the exposed part is max(0, comm_total x r - hidden), the
 * hidden part (comm_total - part) staying hidden.  Pure. */
double pb_tune_step_scaled(const pb_step_t *st, const double *r);

#endif
