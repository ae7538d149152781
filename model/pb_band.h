/* pb_band.h - how far a predicted step may be from the real one.
 *
 * A prediction is only as good as the model's record on runs like it.
 * The record is the model's own error on published runs (the file
 * model/published_runs.csv, built into parbench): err = predicted /
 * published - 1 per run.  A prediction takes the runs that used the same
 * mechanisms (experts, a PyTorch-native or JAX stack, fp8 GEMMs, a
 * pipeline, sharded parameters, context parallelism); where fewer than
 * PB_BAND_MIN_RUNS share all of them, the least telling mechanism is let
 * go first (context parallelism, then sharding, the pipeline, fp8, the
 * stack, experts) until enough runs remain.
 *
 * The spread of those errors is the band, read so that about four runs
 * in five fall inside: the j-th smallest and the j-th largest of the m
 * errors, j = floor((m + 1) / 10), at least 1.  Whatever the errors'
 * distribution, a further run like these (exchangeable with them) falls
 * between the j-th smallest and j-th largest of m with probability
 * (m + 1 - 2j) / (m + 1) (the order statistics' distribution-free
 * coverage, Wilks 1941), which is 4/5 or more for that j once m >= 9:
 * hence PB_BAND_MIN_RUNS.  (The 10th-90th percentiles of fewer than
 * about 40 runs hold less: 0.65 at m = 10.)  Always widened to hold 0,
 * so a band contains its own prediction.  A real step of a run like
 * these is then likely between predicted / (1 + err_hi) and
 * predicted / (1 + err_lo).  Measured collectives add their own spread:
 * the step evaluated with every calibrated collective at the optimistic
 * and at the pessimistic end of its range (pb_cost_t's bound) gives
 * lo_s and hi_s, and pb_band_range widens those.
 *
 * Pure: the errors come in as numbers (bench/ predicts the runs). */
#ifndef PB_BAND_H
#define PB_BAND_H

#include <stddef.h>

#include "../patterns/pb_layout.h"
#include "../patterns/pb_model.h"
#include "pb_step.h"

/* mechanisms, most telling first: the order they are let go is reverse */
enum {
    PB_MECH_MOE = 1u << 0,   /* experts (all-to-alls, routing) */
    PB_MECH_PIPE = 1u << 1,  /* pp > 1: the bubble and the send/recv */
    PB_MECH_SHARD = 1u << 2, /* ZeRO-2/3, FSDP: per-layer gathers */
    PB_MECH_CP = 1u << 3,    /* context parallelism: the K,V ring */
    /* a PyTorch-native or JAX stack (fsdp, torchtitan, maxtext): other
     * kernels, hooks and schedules than Megatron's (pb_framework.h) */
    PB_MECH_NATIVE = 1u << 4,
    PB_MECH_FP8 = 1u << 5, /* fp8 GEMMs and their casts */
    PB_MECH_ALL = (1u << 6) - 1
};

/* the fewest runs whose smallest and largest error hold a further run's
 * with probability 4/5: (m - 1) / (m + 1) >= 0.8 from m = 9 */
#define PB_BAND_MIN_RUNS 9
/* j = floor((m + 1) / 10): (m + 1 - 2j) / (m + 1) >= 0.8, a further run
 * inside 4 times in 5 (pb_band.c) */
#define PB_BAND_TRIM_DIV 10
/* the fastest a model may have run too slow: err > -1 for a positive
 * prediction; -0.99 keeps 1 + err at least 0.01 in the division */
#define PB_BAND_ERR_FLOOR (-0.99)

/* The mechanisms a prediction uses. */
unsigned pb_band_mech(const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c);

/* The mechanisms of `care` (a pb_band_t's match), as mech has them or
 * not: "dense, a pipeline", "experts, no pipeline, sharded parameters";
 * "" when care is 0. */
void pb_band_mech_words(unsigned mech, unsigned care, char *buf, size_t len);

typedef struct pb_band_run {
    unsigned mech;
    double err; /* predicted / published - 1 */
} pb_band_run_t;

typedef struct pb_band {
    double err_lo, err_hi; /* err_lo <= 0 <= err_hi */
    int runs;              /* the runs it rests on */
    unsigned match;        /* the mechanisms they share with the prediction */
    unsigned mech;         /* the prediction's */
} pb_band_t;

/* The band of a prediction using `mech`, from the n runs.  PB_EINPUT
 * when there are none. */
int pb_band_from_runs(const pb_band_run_t *runs, size_t n, unsigned mech, pb_band_t *out,
                      pb_err_t *err);

/* The likely range of the real step, from the step at the optimistic and
 * pessimistic ends of its measured collectives (lo_s <= hi_s; both the
 * central prediction without a calibration). */
void pb_band_range(const pb_band_t *b, double lo_s, double hi_s, double *likely_lo,
                   double *likely_hi);

/* The memory band and verdict of a step: the band of the model's memory
 * errors on the measured runs most like it (runs: predicted / measured -
 * 1 of model/memory_runs.csv, like with like), applied to what the
 * allocator reserves, against what it can reserve (pb_mem_cap.h). */
typedef struct pb_mem_band {
    pb_band_t band;
    double lo, hi;    /* bytes reserved, likely */
    pb_mem_fit_t fit; /* fits, tight, does not fit */
} pb_mem_band_t;

/* PB_EINPUT when there are no runs. */
int pb_mem_band(const pb_band_run_t *runs, size_t n, unsigned mech, const pb_step_t *st,
                pb_mem_band_t *out, pb_err_t *err);

#endif
