/* pb_plan.h - search the layouts of a model on N GPUs and rank them by
 * predicted step time.
 *
 * Enumerated: tp (powers of two dividing heads and KV heads, at most 64),
 * cp (1..16, powers of two), pp (divisors of layers + pp_trim), vp
 * (divisors of the layers per stage, at most 16; pp > 1), ep (MoE:
 * divisors of dp*cp and of the experts), dp what is left, micro-batch
 * (1, 2, 4, 8), recomputation (none, selective, full) and optimizer
 * sharding (none, distributed optimizer); sequence parallelism whenever
 * tp > 1 (it only saves memory: the same bytes on the wire).  Dropped: any
 * layout pb_layout_check refuses, and any that does not fit the GPU's
 * usable memory.  The rest is ranked by pb_step_model's step time. */
#ifndef PB_PLAN_H
#define PB_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "pb_step.h"

typedef struct pb_plan_cfg {
    int gpus;
    pb_step_cfg_t step; /* recomp and traffic.zero are searched over */
} pb_plan_cfg_t;

typedef struct pb_plan_entry {
    pb_layout_t layout;
    uint64_t mbs;
    pb_recomp_t recomp;
    int zero;
    pb_step_t st;
} pb_plan_entry_t;

typedef struct pb_plan_result {
    pb_plan_entry_t *e; /* sorted, fastest first */
    size_t n, cap;
    uint64_t considered, invalid, oom;
} pb_plan_result_t;

int pb_plan(const pb_model_t *m, const pb_plan_cfg_t *c, const pb_cost_t *cost,
            pb_plan_result_t *out, pb_err_t *err);
void pb_plan_free(pb_plan_result_t *r);

/* "tp 8 sp, pp 4 vp 2, dp 32, mbs 1, selective, dist-opt" */
void pb_plan_describe(const pb_plan_entry_t *e, char *buf, size_t len);
/* Why `worse` is slower than `better`: the part of the step that grew
 * most, in words ("bubble 18 % vs 9 %", "TP=16 crosses nodes"). */
void pb_plan_reason(const pb_plan_entry_t *better, const pb_plan_entry_t *worse, char *buf,
                    size_t len);

#endif
