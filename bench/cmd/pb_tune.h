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
#include "../../tune/pb_tenv.h"
#include "../../tune/pb_tplan.h"
#include "../../tune/pb_trules.h"
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
    double cand_per_pair[PB_TUNE_CANDS]; /* seconds a pair of it costs, estimated */
    int cand_budget[PB_TUNE_CANDS];      /* left out by the budget */
    size_t ncands;
    pb_tres_t res[PB_TUNE_CANDS][PB_TUNE_CASES];
    double t0;    /* start of the run (this rank's clock) */
    double spent; /* seconds, agreed by every rank (the slowest's) */
    double before_s; /* seconds spent before the search: groups, the default's pass */
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

/* The job's setting (pb_tune_choose.c, rank 0): what tune.env (and for
 * Open MPI the rules file beside it) sets, and the candidate each case
 * then runs under.  A setting reaches only cases it was measured to win
 * or tie on (tune/pb_tplan.h's pb_tplan_score_reach): Open MPI's
 * algorithms through the rules file, each on the exact communicator and
 * message sizes it won (tune/pb_trules.h); NCCL's variables, which hold
 * for a whole process, only when the setting held on every case they
 * reach, or (NCCL 2.24+) scoped to the collectives where it did; what
 * is left out is said in the output and in tune.env. */
typedef struct pb_tune_job {
    long apply[PB_TUNE_CASES]; /* the candidate each case runs under; -1: the default */
    pb_tenv_item_t items[PB_TUNE_CANDS + 4]; /* exports, then the left-out notes */
    size_t nitems;
    pb_trule_t rules[PB_TUNE_CASES];
    size_t nrules;
    char rules_path[4096]; /* the rules file (Open MPI), "" when none */
    double score;          /* the job's communication under it over the default's */
} pb_tune_job_t;

/* Fills job from the verdicts (rules_path: where the rules file goes). */
void pb_tune_choose(const pb_tune_t *t, const char *rules_path, pb_tune_job_t *job);
/* Prints the job's setting and the settings left out. */
void pb_tune_print_job(const pb_tune_t *t, const pb_tune_job_t *job);
/* The budget that would have measured every candidate (--pairs each),
 * for "raise --budget to about N s". */
double pb_tune_budget_needed(const pb_tune_t *t);

/* pb_tune_out.c (rank 0) */
void pb_tune_print_cases(const pb_tune_t *t);
void pb_tune_print_cand(const pb_tune_t *t, size_t i);
/* The weighted ratio of candidate i over the job (tune/pb_tplan.h's
 * score: 0 when it is faster nowhere or not faster overall). */
double pb_tune_score(const pb_tune_t *t, size_t i);
int pb_tune_finish_out(pb_tune_t *t, pb_err_t *err);

/* pb_tune_effect.c: the step the model predicts for the job, and the
 * same step with each part's communication x its measured ratio
 * (part_ratio by pb_step.h's parts; 1: unchanged). */
void pb_tune_print_step(const pb_tune_t *t, const double *part_ratio);
/* The ratio of each of the step's parts (PB_PART_COUNT) from n cases:
 * case i of strategy strategy[i] (pb_strategy_t; -1: none), weight[i]
 * (the default's time x count) and ratio[i] under the job's setting.  A
 * part's ratio is its cases' time under the setting over their time
 * under the default, sum(weight x ratio) / sum(weight): TP and SP both
 * feed the step's TP part, each with its own measured ratio; 1 for a
 * part with no case.  Pure. */
void pb_tune_part_ratios(const int *strategy, const double *weight, const double *ratio,
                         size_t n, double *part_ratio);
/* The step's seconds with part p's communication x r[p] (pb_step.h's
 * parts): the exposed part is max(0, comm_total x r - hidden), the
 * hidden part (comm_total - part) staying hidden.  Pure. */
double pb_tune_step_scaled(const pb_step_t *st, const double *r);

#endif
