/* pb_pat_op.h - one communication operation as a parallel strategy issues
 * it, per rank and per training step.
 *
 * patterns/ is pure (no MPI, no backend), so it names its own collective
 * kinds and element types here; bench/ maps them onto the backend's
 * pb_coll_t / pb_dtype_t by name.  Sizes follow nccl-tests' convention
 * (the largest buffer one rank touches), so a record can be measured as it
 * stands: the message for all-reduce and send/recv, the gathered output for
 * all-gather, the full input for reduce-scatter, one rank's send buffer for
 * all-to-all(v). */
#ifndef PB_PAT_OP_H
#define PB_PAT_OP_H

#include <stdint.h>

typedef enum pb_pat_coll {
    PB_PAT_ALLREDUCE,
    PB_PAT_ALLGATHER,
    PB_PAT_REDUCESCATTER,
    PB_PAT_ALLTOALL,
    PB_PAT_ALLTOALLV,
    PB_PAT_SENDRECV
} pb_pat_coll_t;

/* Group kinds of the layout.  DP includes CP (Megatron reduces gradients
 * over the data-parallel-with-context-parallel group); EP and EDP are the
 * expert groups (expert-parallel, expert-data-parallel). */
typedef enum pb_gkind {
    PB_GK_TP,
    PB_GK_CP,
    PB_GK_DP,
    PB_GK_PP,
    PB_GK_EP,
    PB_GK_EDP,
    PB_GK_COUNT
} pb_gkind_t;

typedef enum pb_phase { PB_PH_FWD, PB_PH_BWD, PB_PH_OPT } pb_phase_t;

/* The training types first (what a model or its gradients are in); the
 * rest are the other element types the backends measure, named here so a
 * calibration measured in them (an fp8 or integer all-reduce reduces at
 * its own speed) keeps its type. */
typedef enum pb_pat_dtype {
    PB_PDT_F32,
    PB_PDT_BF16,
    PB_PDT_F16,
    PB_PDT_F64,
    PB_PDT_I32,
    PB_PDT_I8,
    PB_PDT_F8E4M3,
    PB_PDT_F8E5M2,
    PB_PDT_COUNT
} pb_pat_dtype_t;

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

typedef struct pb_pat_op {
    pb_strategy_t strategy;
    pb_pat_coll_t coll;
    pb_gkind_t group;
    int group_size;
    uint64_t bytes; /* per rank, nccl-tests' size convention (above) */
    pb_pat_dtype_t dtype;
    uint64_t count; /* times per training step, on the busiest rank */
    pb_phase_t phase;
    int overlap;      /* can hide behind compute */
    pb_p2p_t p2p;     /* send/recv partners */
    double imbalance; /* all-to-all-v: hottest destination's load / mean */
    const char *what; /* a static description */
    /* 1: issued in every forward or backward pass of every micro-batch,
     * spread over the layers (TP, SP, EP, CP, ZeRO-3 parameters); 0: once
     * per step (gradient buckets, optimizer) or where the pipeline
     * schedule puts it (PP).  The executed step (bench/pb_step_cmd.c)
     * places operations by it. */
    int per_pass;
} pb_pat_op_t;

const char *pb_pat_coll_name(pb_pat_coll_t c);
const char *pb_gkind_name(pb_gkind_t k);
const char *pb_phase_name(pb_phase_t p);
const char *pb_pat_dtype_name(pb_pat_dtype_t t);
uint64_t pb_pat_dtype_size(pb_pat_dtype_t t);
/* A training type (model or gradient dtype): float/f32/fp32, bfloat16/bf16,
 * half/f16/fp16; 0 ok, -1 unknown. */
int pb_pat_dtype_parse(const char *s, pb_pat_dtype_t *out);
/* Any type by the name pb_pat_dtype_name gives it (the backend's, as
 * results.csv writes it); 0 ok, -1 unknown. */
int pb_pat_dtype_from_name(const char *s, pb_pat_dtype_t *out);
const char *pb_strategy_name(pb_strategy_t s);
int pb_strategy_parse(const char *s, pb_strategy_t *out);

/* Bytes one rank sends over the wire for one operation of `bytes` on n
 * ranks with the bandwidth-optimal (ring) algorithms: all-reduce
 * 2(n-1)/n, all-gather, reduce-scatter and all-to-all(v) (n-1)/n (the
 * block to itself stays), send/recv 1.  The factors of nccl-tests' bus
 * bandwidth, so bytes / time compares with busbw. */
uint64_t pb_pat_wire_bytes(pb_pat_coll_t c, int n, uint64_t bytes);

#endif
