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
 * The job's setting: one value per knob for all of the job's sizes (an
 * environment variable holds one value), the one with the least time
 * over the job's cases weighted by how often a step issues each; a
 * value counts only where it was judged faster than the default
 * (tune/pb_tverdict.h), so a value with no proven gain is never chosen. */
#ifndef PB_TPLAN_H
#define PB_TPLAN_H

#include <stddef.h>

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
 * was judged faster or slower, 1 where the pairs saw no change or it was
 * not measured (what is not known to change is taken as unchanged). */
double pb_tcell_ratio(const pb_tcell_t *c);

/* A candidate's score over the job: sum(weight x ratio) / sum(weight)
 * over all n cases (weight: the default's time x count per step), where
 * it was judged faster in at least one case and the sum comes below 1;
 * else 0 (never chosen).  A candidate whose results were wrong anywhere
 * scores 0. */
double pb_tplan_score(const pb_tcell_t *row, const double *weight, size_t n);

/* The job's setting from the candidates' scores (0: not a winner): for
 * Open MPI, per knob the value of lowest score (each knob drives its own
 * collective, so the winners add up); for NCCL, whose knobs act together
 * on one communicator, the one candidate (single or combined) of lowest
 * score.  Writes candidate indices to chosen (room for n); returns how
 * many. */
size_t pb_tplan_choose(pb_knob_lib_t lib, const pb_tcand_t *cands, const double *score,
                       size_t n, size_t *chosen);

/* A candidate as text: "NCCL_ALGO=Ring NCCL_PROTO=Simple" ("default" for
 * none); with labels ("ring" for 4) where label is set. */
void pb_tcand_format(const pb_tcand_t *c, int label, char *buf, size_t len);

#endif
