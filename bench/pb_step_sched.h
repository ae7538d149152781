/* pb_step_sched.h - the pipeline schedule of one training step, per stage.
 *
 * Pure: the ordered list of what one pipeline stage does - forward and
 * backward passes of micro-batches and the point-to-point exchanges
 * between them - exactly as Megatron-LM's schedules issue them
 * (megatron/core/pipeline_parallel/schedules.py): GPipe (all forwards,
 * then all backwards) and 1F1B (warm-up forwards, steady one-forward-
 * one-backward with combined send/receive pairs, cool-down backwards).
 * The combined pairs are what keeps blocking exchanges deadlock-free: a
 * stage sending its activation forward receives the next stage's
 * gradient in the same exchange. */
#ifndef PB_STEP_SCHED_H
#define PB_STEP_SCHED_H

#include <stddef.h>

#include "../util/pb_err.h"

typedef enum pb_sched_kind { PB_SCHED_GPIPE, PB_SCHED_1F1B } pb_sched_kind_t;

typedef enum pb_act {
    PB_ACT_FWD,          /* forward pass of micro-batch mb */
    PB_ACT_BWD,          /* backward pass of micro-batch mb */
    PB_ACT_RECV_FWD,     /* activation from the previous stage */
    PB_ACT_SEND_FWD,     /* activation to the next stage */
    PB_ACT_RECV_BWD,     /* gradient from the next stage */
    PB_ACT_SEND_BWD,     /* gradient to the previous stage */
    PB_ACT_SEND_FWD_RECV_BWD, /* one exchange with the next stage */
    PB_ACT_SEND_BWD_RECV_FWD  /* one exchange with the previous stage */
} pb_act_t;

typedef struct pb_step_action {
    pb_act_t act;
    int mb; /* the micro-batch the action belongs to */
} pb_step_action_t;

typedef struct pb_sched {
    pb_step_action_t *a;
    size_t n;
} pb_sched_t;

/* The actions of stage `s` of `p` for `m` micro-batches.  Exchanges with
 * a missing neighbour (before the first stage, after the last) are left
 * out.  PB_EINPUT for sizes that make no pipeline. */
int pb_sched_build(pb_sched_kind_t k, int p, int s, int m, pb_sched_t *out, pb_err_t *err);
void pb_sched_free(pb_sched_t *s);

const char *pb_act_name(pb_act_t a);
int pb_sched_parse(const char *s, pb_sched_kind_t *out);
const char *pb_sched_name(pb_sched_kind_t k);

#endif
