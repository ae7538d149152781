/* pb_tune_effect.c - what the job's setting would do to a training step:
 * the step the model predicts for the job's model and layout (--hw,
 * --calib as for parbench model), and the same step with each
 * part's communication scaled by the ratio measured here on its cases
 * (TP and SP both feed the step's TP part: its ratio weighs each by its
 * time, so neither overwrites the other).
 *
 * The model splits each strategy's communication into the time it takes
 * (comm_total) and what of it lies on the critical path (part): the
 * difference hides behind compute.  A faster collective shrinks the time
 * it takes; the window it hides in stays the same, so the exposed part
 * becomes max(0, comm_total x ratio - hidden).  A slower one grows the
 * exposed part the same way. */
#include <stdio.h>

#include "pb_tune.h"
#include "../glue/pb_predict.h"

/* The step model's part of each strategy's communication. */
static int part_of(int strategy)
{
    switch ((pb_strategy_t)strategy) {
    case PB_STRAT_TP:
    case PB_STRAT_SP:
        return PB_PART_TP;
    case PB_STRAT_PP:
        return PB_PART_PP;
    case PB_STRAT_DP:
        return PB_PART_DP;
    case PB_STRAT_EP:
        return PB_PART_EP;
    case PB_STRAT_CP:
        return PB_PART_CP;
    case PB_STRAT_COUNT:
        break;
    }
    return -1;
}

void pb_tune_part_ratios(const int *strategy, const double *weight, const double *ratio,
                         size_t n, double *part_ratio)
{
    double def[PB_PART_COUNT] = {0}, tuned[PB_PART_COUNT] = {0};
    for (size_t i = 0; i < n; i++) {
        int p = strategy[i] >= 0 ? part_of(strategy[i]) : -1;
        if (p < 0)
            continue;
        def[p] += weight[i];
        tuned[p] += weight[i] * ratio[i];
    }
    for (int p = 0; p < PB_PART_COUNT; p++)
        part_ratio[p] = def[p] > 0.0 ? tuned[p] / def[p] : 1.0;
}

/* The step's seconds with part p's communication scaled by r[p]. */
double pb_tune_step_scaled(const pb_step_t *st, const double *r)
{
    double total = st->total;
    for (int p = 0; p < PB_PART_COUNT; p++) {
        if (r[p] == 1.0 || st->comm_total[p] <= 0.0)
            continue;
        double hidden = st->comm_total[p] - st->part[p];
        hidden = hidden > 0.0 ? hidden : 0.0;
        double exposed = st->comm_total[p] * r[p] - hidden;
        total += (exposed > 0.0 ? exposed : 0.0) - st->part[p];
    }
    return total;
}

void pb_tune_print_step(const pb_tune_t *t, const double *r)
{
    const pb_options_t *o = t->o;
    pb_step_t st;
    int calibrated = 0;
    pb_err_t err;
    pb_err_clear(&err);
    if (pb_model_predict(&t->plan.model, &t->plan.layout, &o->predict, &o->model.train,
                         o->predict.tflops, &st, &calibrated, &err) != PB_OK) {
        printf("# step model: no prediction for this job (%s)\n", err.msg);
        return;
    }
    double tuned = pb_tune_step_scaled(&st, r);
    printf("# step model (%s, collectives %s): %.3f s per step under the default; with each "
           "part's communication x its ratio measured here: %.3f s (%+.2f%%); exposed "
           "communication changes, what hides behind compute stays hidden\n",
           o->predict.hw ? o->predict.hw : "a100", calibrated ? "from --calib" : "from the preset",
           st.total, tuned, st.total > 0.0 ? 100.0 * (tuned / st.total - 1.0) : 0.0);
}
