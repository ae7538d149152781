/* pb_tplan.h - what `parbench tune` measures, in what order, within its
 * budget, and which value of each knob the job should use.  Pure.
 *
 * The order (issue 33): the default first (every candidate is timed
 * against it, pair by pair), then one knob at a time, each of its values
 * on its own; knobs on the collectives that take the largest share of
 * the step's communication come first, so that a budget that runs out
 * leaves out what matters least.  Then, for knobs that act together on
 * the same collectives (NCCL's algorithm, protocol and channels), the
 * winners of the single-knob stage combined.  A candidate starts only
 * when its estimated cost (its pairs at the default's measured time,
 * both sides) fits in what is left of the budget.
 *
 * The job's setting: a value reaches only the cases it was measured to
 * win or tie on (pb_tplan_score_reach): Open MPI's algorithms per case,
 * through a rules file (tune/pb_trules.h); NCCL's variables, which hold
 * for every collective of a process, only when the value held on every
 * case they reach, or (NCCL 2.24+) for the collectives where it did
 * (pb_tplan_reach).  Among those, the least time over the job's cases
 * weighted by how often a step issues each; a value counts only where it
 * was judged faster than the default (tune/pb_tverdict.h), so a value
 * with no proven gain is never chosen. */
#ifndef PB_TPLAN_H
#define PB_TPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "pb_knob.h"
#include "pb_tverdict.h"

#define PB_TCAND_SET 4 /* knobs set together at most */

typedef struct pb_tcand {
    int n;
    struct {
        const pb_knob_t *knob;
        int value; /* index into the knob's values */
    } set[PB_TCAND_SET];
} pb_tcand_t;

/* One kind of operation the job issues: the collective, its share of the
 * step's communication time (any positive weight: the default's time x
 * how often a step issues it). */
typedef struct pb_top {
    const char *op;
    double weight;
} pb_top_t;

/* The single-knob candidates of library `lib` for the operations ops
 * (each knob once per value), knobs in order of the largest weight among
 * the operations they affect.  Returns how many there are; writes up to
 * cap into out. */
size_t pb_tplan_singles(pb_knob_lib_t lib, const pb_top_t *ops, size_t nops, pb_tcand_t *out,
                        size_t cap);

/* Whether a candidate estimated at est seconds starts: spent + est <=
 * budget (budget 0: no limit). */
int pb_tplan_fits(double budget, double spent, double est);

/* Combines single winners: score[i] is single i's time over the
 * default's, weighted over the job's cases, where it was judged faster
 * in at least one (0: not a winner).  Per knob the lowest score wins;
 * the winning knobs that are applied to a new communicator together
 * (NCCL's: MPI_T knobs each drive their own collective, so their winners
 * need no combined measurement) are set together.  Returns 1 with the
 * candidate in out when at least two knobs combine, else 0. */
int pb_tplan_combo(const pb_tcand_t *singles, size_t n, const double *score, pb_tcand_t *out);

/* A candidate on one of the job's cases. */
typedef enum pb_tcell_state {
    PB_TCELL_NONE,    /* the candidate cannot change this case's collective */
    PB_TCELL_SKIPPED, /* not measured: the budget, or the candidate failed */
    PB_TCELL_DONE,    /* measured: v holds the verdict */
    PB_TCELL_WRONG    /* measured, and its results failed verification */
} pb_tcell_state_t;

typedef struct pb_tcell {
    pb_tcell_state_t state;
    pb_tverdict_t v;
} pb_tcell_t;

/* The ratio a candidate brings to a case: its measured median where it
 * was judged faster or slower, 1 where the pairs saw no change, were too
 * few for a verdict or it was not measured (what is not known to change
 * is taken as unchanged). */
double pb_tcell_ratio(const pb_tcell_t *c);

/* Whether a candidate won or tied on a case: measured, and judged faster
 * or no change.  A setting goes into the job's env file only for cases
 * where it holds: not where it was slower, wrong, left unmeasured or
 * measured with too few pairs for a verdict. */
int pb_tcell_holds(const pb_tcell_t *c);

/* A candidate's score when the job applies it to the cases in reach
 * only (reach[i] nonzero): sum(weight x ratio) / sum(weight) over all n
 * cases, the ratio counted in reach and 1 elsewhere; 0 (never exported)
 * unless it holds (pb_tcell_holds) on every case in reach, was faster on
 * one of them, was wrong nowhere and comes below 1.  What the job's
 * setting is chosen by: a setting never reaches a case it was not
 * measured to win or tie on. */
double pb_tplan_score_reach(const pb_tcell_t *row, const int *reach, const double *weight,
                            size_t n);

/* What the job's env file would make candidate c reach (reach[i] for
 * each of the n cases, ops[i] its collective, row[i] c's cell there):
 *  - PB_TREACH_ALL: it holds (pb_tcell_holds) on every case one of its
 *    knobs can change; reach: those cases;
 *  - PB_TREACH_SCOPED: it does not, but with per_coll (NCCL 2.24+) and
 *    every knob of c able to name collectives (pb_knob_t's per_coll) it
 *    can be exported for the collectives NCCL can name on whose every
 *    case it holds: their names into funcs ("allreduce,allgather", in
 *    the order of the cases), reach: their cases;
 *  - PB_TREACH_NONE: neither; reach: every case it can change, on which
 *    pb_tplan_score_reach then gives 0 (never exported).
 * funcs is "" unless scoped. */
enum { PB_TREACH_NONE, PB_TREACH_ALL, PB_TREACH_SCOPED };
int pb_tplan_reach(const pb_tcand_t *c, const char *const *ops, const pb_tcell_t *row, size_t n,
                   int per_coll, int *reach, char *funcs, size_t len);

/* The budget the whole search would take, for "raise --budget to about
 * N s": the time before the search (the groups and the default's pass,
 * `before` seconds) plus `pairs` pairs of every candidate at per_pair[i]
 * seconds a pair (its cases' default times, both sides: what
 * pb_tune_measure estimates).  n candidates. */
double pb_tplan_budget(double before, const double *per_pair, size_t n, uint64_t pairs);

/* A candidate's score over the job: sum(weight x ratio) / sum(weight)
 * over all n cases (weight: the default's time x count per step), where
 * it was judged faster in at least one case and the sum comes below 1;
 * else 0 (never chosen).  A candidate whose results were wrong anywhere
 * scores 0. */
double pb_tplan_score(const pb_tcell_t *row, const double *weight, size_t n);

/* The winners among the candidates' scores (0: not a winner): for Open
 * MPI, per knob the value of lowest score (each knob drives its own
 * collective, so the winners add up); for NCCL, whose knobs act together
 * on one communicator, the one candidate (single or combined) of lowest
 * score - how `parbench tune` picks NCCL's setting, from the scores of
 * pb_tplan_score_reach (Open MPI's is chosen per case instead:
 * bench/cmd/pb_tune_choose.c).  Writes candidate indices to chosen (room
 * for n); returns how many. */
size_t pb_tplan_choose(pb_knob_lib_t lib, const pb_tcand_t *cands, const double *score,
                       size_t n, size_t *chosen);

/* A candidate as text: "NCCL_ALGO=Ring NCCL_PROTO=Simple" ("default" for
 * none); with labels ("ring" for 4) where label is set. */
void pb_tcand_format(const pb_tcand_t *c, int label, char *buf, size_t len);

#endif
