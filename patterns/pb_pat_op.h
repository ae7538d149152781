/* pb_pat_op.h - one communication operation as a parallel strategy issues
 * it, per rank and per training step.
 *
 * Collectives and element types are the core's (core/pb_coll.h,
 * core/pb_dtype.h), the ones the backends measure, so a record can be
 * measured as it stands.  Sizes follow nccl-tests' convention (the largest
 * buffer one rank touches): the message for all-reduce and send/recv, the
 * gathered output for all-gather, the full input for reduce-scatter, one
 * rank's send buffer for all-to-all(v). */
#ifndef PB_PAT_OP_H
#define PB_PAT_OP_H

#include <stdint.h>

#include "../core/pb_coll.h"
#include "../core/pb_dtype.h"

typedef enum pb_gkind {
    PB_GK_TP,
    PB_GK_CP,
    PB_GK_DP,
    PB_GK_PP,
    PB_GK_EP,
    PB_GK_EDP,
    /* HSDP (pb_layout_t shard): the data-parallel group cut into shard
     * groups of consecutive members, and the replica groups across them;
     * one rank each without a shard group */
    PB_GK_SHARD,
    PB_GK_REPL,
    PB_GK_COUNT
} pb_gkind_t;

typedef enum pb_phase { PB_PH_FWD, PB_PH_BWD, PB_PH_OPT } pb_phase_t;

typedef enum pb_strategy {
    PB_STRAT_TP,
    PB_STRAT_SP, /* tensor parallelism with sequence parallelism */
    PB_STRAT_PP,
    PB_STRAT_DP,
    PB_STRAT_EP,
    PB_STRAT_CP,
    PB_STRAT_COUNT
} pb_strategy_t;

/* Send/recv partners within the group (by group rank): a pipeline is an
 * open chain (the last stage sends nothing forward), a ring wraps. */
typedef enum pb_p2p {
    PB_P2P_NONE,
    PB_P2P_NEXT,      /* send to rank+1, receive from rank-1, no wrap */
    PB_P2P_PREV,      /* send to rank-1, receive from rank+1, no wrap */
    PB_P2P_RING_NEXT, /* send to rank+1 mod n, receive from rank-1 mod n */
    PB_P2P_RING_PREV
} pb_p2p_t;

/* Where in a pipeline an operation runs: on every stage (the layers'
 * traffic; everything when there is one stage), or only on the first
 * (the embedding's) or the last (the output layer's and the loss's). */
typedef enum pb_pat_stage { PB_STAGE_EVERY, PB_STAGE_FIRST, PB_STAGE_LAST } pb_pat_stage_t;

typedef struct pb_pat_op {
    pb_strategy_t strategy;
    pb_coll_t coll;
    pb_gkind_t group;
    int group_size;
    uint64_t bytes; /* per rank, nccl-tests' size convention (above) */
    pb_dtype_t dtype;
    uint64_t count; /* times per training step, on the busiest rank */
    pb_phase_t phase;
    int overlap;      /* can hide behind compute */
    pb_p2p_t p2p;     /* send/recv partners */
    double imbalance; /* all-to-all-v: hottest destination's load / mean */
    const char *what; /* a static description */
    /* 1: issued in every forward or backward pass of every micro-batch,
     * spread over the layers (TP, SP, EP, CP, ZeRO-3 parameters); 0: once
     * per step (gradient buckets, optimizer) or where the pipeline
     * schedule puts it (PP).  The executed step (bench/cmd/pb_cmd_step.c)
     * places operations by it. */
    int per_pass;
    pb_pat_stage_t stage; /* PB_STAGE_EVERY unless the pipeline has ends */
} pb_pat_op_t;

const char *pb_gkind_name(pb_gkind_t k);
const char *pb_phase_name(pb_phase_t p);
/* A training type (model or gradient dtype): float, bfloat16 or half, by
 * any name pb_dtype_parse takes (f32, bf16, fp16, ...); 0 ok, -1 unknown
 * or not a training type. */
int pb_pat_dtype_parse(const char *s, pb_dtype_t *out);
const char *pb_strategy_name(pb_strategy_t s);
/* " (first stage only)", " (last stage only)" or "": what a listing
 * appends to an operation's description */
const char *pb_pat_stage_note(pb_pat_stage_t s);
int pb_strategy_parse(const char *s, pb_strategy_t *out);

#endif
