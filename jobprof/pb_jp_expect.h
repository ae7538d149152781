/* pb_jp_expect.h - the traffic the patterns predict for the job's model
 * and layout (patterns/pb_traffic.h: pb_pat_op_t, per step on the
 * busiest rank) against what was recorded, per dimension: operations
 * missing, extra ones, sizes that differ, counts that differ.
 *
 * Both sides are reduced to (dimension, collective, size) -> operations
 * per step on the busiest rank:
 *  - predicted: the pattern operations' counts summed per key (the
 *    group kind is the dimension);
 *  - recorded: every rank's records on the comms of that dimension
 *    (pb_jp_infer) counted per key, the largest rank's count, divided
 *    by the steps recorded.  A pattern send/recv is one exchange in a
 *    direction - a stage sends to the next and receives from the one
 *    before (forward) or the reverse (backward), an end stage doing only
 *    one of the two - so a rank's recorded count of it is, per
 *    direction, the larger of its sends and its receives that way (the
 *    peer one place up or down the comm, or around it for a ring), both
 *    directions added; p2p of no such direction (NCCL's all-to-all as
 *    sends and receives, say) counts the larger of the two.  A sampled
 *    recording (one operation in `every` kept) has its counts multiplied
 *    by `every`.
 * A comm whose members are the whole world stands for any dimension
 * whose groups are the whole world (they look alike; pb_jp_infer calls
 * it world).
 *
 * Matching: a predicted key takes the recorded key of its dimension and
 * collective within size_tol (relative) of its size, the nearest;
 * unmatched, the nearest recorded size of that dimension and collective
 * makes a size mismatch; else it is missing.  Recorded keys left over
 * are extra (operations the patterns do not model: a loss all-reduce,
 * Megatron's embedding group, a function parbench does not measure is
 * left out).  A matched key whose count per step differs is a count
 * mismatch.
 *
 * Steps: given, or estimated as the ratio recorded / predicted that most
 * matched keys agree on (whole numbers only; ties: the smaller): with
 * the model right, every matched key says the same.  None: counts are
 * not compared (steps 0). */
#ifndef PB_JP_EXPECT_H
#define PB_JP_EXPECT_H

#include <stddef.h>
#include <stdint.h>

#include "pb_jobprof.h"
#include "../patterns/pb_pat_op.h"

typedef enum pb_jx {
    PB_JX_MATCH,   /* size and count agree (count not compared: steps unknown) */
    PB_JX_COUNT,   /* size agrees, count per step does not */
    PB_JX_SIZE,    /* predicted one size, recorded another */
    PB_JX_MISSING, /* predicted, not recorded */
    PB_JX_EXTRA    /* recorded, not predicted */
} pb_jx_t;

typedef struct pb_jp_xrow {
    pb_jdim_t dim;      /* predicted: its group's; extra: the comm's */
    pb_coll_t coll;
    uint64_t exp_bytes; /* 0: extra */
    uint64_t exp_count; /* per step, busiest rank; 0: extra */
    uint64_t rec_bytes; /* 0: missing */
    uint64_t rec_total; /* the busiest rank's count over the recording; 0: missing */
    double rec_count;   /* rec_total / steps; -1 steps unknown */
    pb_jx_t verdict;
} pb_jp_xrow_t;

typedef struct pb_jp_expect {
    pb_jp_xrow_t *rows; /* predicted keys in their order, then extra ones */
    size_t n;
    uint64_t steps;
    int steps_given;    /* 1: given; 0: estimated (or unknown: steps 0) */
    size_t nverdict[PB_JX_EXTRA + 1];
} pb_jp_expect_t;

const char *pb_jx_name(pb_jx_t v); /* "ok", "count", "size", "missing", "extra" */
pb_jdim_t pb_jp_gkind_dim(pb_gkind_t k);

/* world: the job's ranks (for comms standing for world-wide groups);
 * steps: 0 to estimate. */
int pb_jp_expect(const pb_jobprof_t *jp, const pb_pat_op_t *ops, size_t nops, int world,
                 uint64_t steps, double size_tol, pb_jp_expect_t *out, pb_err_t *err);
void pb_jp_expect_free(pb_jp_expect_t *x);

#endif
