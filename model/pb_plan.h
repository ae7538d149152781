/* pb_plan.h - search the layouts of a model on N GPUs and rank them by
 * predicted step time.
 *
 * Enumerated: tp (powers of two dividing heads and KV heads, at most 64),
 * cp (1..16, powers of two), pp (every count the layers split over,
 * patterns/pb_stages.h), the stage split (the model's own, and for pp > 1
 * also one layer fewer on the first and the last stage, the embedding and
 * the loss counted as a layer each: Megatron's --account-for-embedding/
 * loss-in-pipeline-split), vp (at most 16; pp > 1), ep (MoE: divisors of
 * dp*cp and of the experts), dp what is left, micro-batch (1, 2, 4, 8),
 * recomputation (none, selective, full, layer:2, and op for torchtitan and
 * eager FSDP), optimizer sharding (ZeRO 0, 1 =
 * distributed optimizer, 2, 3), flash attention on and off, and for a TP
 * group of more than one GPU within a node TP communication overlap off
 * and on (on: the --tp-overlap fraction given, else PB_PLAN_TP_OVERLAP;
 * across nodes it does not run: pb_step_tp_overlap_runs); sequence
 * parallelism whenever tp > 1
 * (it only saves memory: the same bytes on the wire).  Dropped: any
 * layout pb_layout_check refuses, and any whose memory band (pb_band.h,
 * pb_mem_band) lies wholly over what the allocator can reserve; a tight
 * one, whose band reaches it, is kept and marked.  The rest is ranked by
 * pb_step_model's step time. */
#ifndef PB_PLAN_H
#define PB_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "pb_band.h"
#include "pb_step.h"

/* TP overlap "on" where no fraction is given: Transformer Engine's
 * userbuffer overlaps hide the TP all-gathers and reduce-scatters behind
 * the GEMMs, all of them, but take PB_UB_SMS of the GPU's SMs from those
 * GEMMs while they run: pb_step charges that (pb_step_ub_cost, per GPU
 * from hw->sms). */
#define PB_PLAN_TP_OVERLAP 1.0

typedef struct pb_plan_cfg {
    int gpus;
    /* recomp, flash, tp_overlap and traffic.zero (with HSDP over a node,
     * pb_layout_t shard) are searched over;
     * step.tp_overlap > 0 is the fraction "on" means */
    pb_step_cfg_t step;
    /* the memory record (pb_band.h, pb_mem_band): a layout is dropped
     * only when its memory band says it does not fit; NULL/0: the central
     * prediction decides */
    const pb_band_run_t *mem_runs;
    size_t nmem_runs;
} pb_plan_cfg_t;

typedef struct pb_plan_entry {
    pb_layout_t layout;
    uint64_t mbs;
    pb_recomp_t recomp;
    int zero;
    int flash;
    double tp_overlap;
    uint64_t pp_trim; /* the split: the model's own (its pp_trim), or 2 */
    pb_step_t st;
    pb_mem_band_t mem; /* fits or tight: the memory band and verdict */
} pb_plan_entry_t;

typedef struct pb_plan_result {
    pb_plan_entry_t *e; /* sorted, fastest first */
    size_t n, cap;
    uint64_t considered, invalid, oom;
    uint64_t tight; /* of the ranked, those whose memory band reaches capacity */
    /* the memory bands met so far, by mechanisms (pb_band.h) */
    pb_band_t band[PB_MECH_ALL + 1];
    unsigned char band_known[PB_MECH_ALL + 1];
    /* Why layouts were refused, for a user told that none runs
     * (pb_plan_why_none): of `invalid`, those whose mbs x dp does not
     * divide the global batch; the first refusal of that kind and of any
     * other, in pb_layout_check's words; the pipeline sizes that split the
     * layers neither evenly nor with lighter ends (no layout is built for
     * them, so they are in no count). */
    uint64_t bad_batch;
    char batch_msg[160], other_msg[160];
    int unsplit[8], nunsplit;
} pb_plan_result_t;

/* The model (mbs, stage split) and the step settings entry e was
 * predicted with, from the model and the configuration the search
 * started from (mo may be NULL). */
void pb_plan_entry_setup(const pb_model_t *m, const pb_plan_cfg_t *c, const pb_plan_entry_t *e,
                         pb_model_t *mo, pb_step_cfg_t *so);

int pb_plan(const pb_model_t *m, const pb_plan_cfg_t *c, const pb_cost_t *cost,
            pb_plan_result_t *out, pb_err_t *err);
void pb_plan_free(pb_plan_result_t *r);

/* Why nothing runs when no layout was refused for memory either, as the
 * rest of the sentence "no layout of M runs on N GPUs: ...": the tp and
 * cp the search could take (and why), the pipeline sizes that do not
 * split the layers, and what the layouts left broke, with what to change
 * for a batch that divides none of them. */
void pb_plan_why_none(const pb_model_t *m, const pb_plan_cfg_t *c, const pb_plan_result_t *r,
                      char *buf, size_t len);

/* "tp 8 sp, pp 4 vp 2, dp 32, mbs 1, selective, zero 1" and what else
 * differs from the plain case: "no-flash", "tp-overlap", "ends -1" */
void pb_plan_describe(const pb_plan_entry_t *e, char *buf, size_t len);
/* Why `worse` is slower than `better`: the part of the step that grew
 * most, in words ("bubble 18 % vs 9 %", "TP=16 crosses nodes"). */
void pb_plan_reason(const pb_plan_entry_t *better, const pb_plan_entry_t *worse, char *buf,
                    size_t len);

#endif
