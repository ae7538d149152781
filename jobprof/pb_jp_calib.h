/* pb_jp_calib.h - the job's achieved bus bandwidth against this cluster's
 * calibrated curves (parbench calibrate's calib.csv, model/pb_calib.h):
 * per communicator, operation, type and size, the efficiency achieved /
 * predicted, and the rows far below the curve.
 *
 * Achieved: the median duration of the instances of that row
 * (pb_jp_inst.h; the median, so that one operation held up by a
 * straggler does not speak for the size).  Predicted: the cost model's
 * time (model/pb_cost.h, pb_cost_place_us: the curve of the collective,
 * type, group size and placement, moved to the asked shape by its rules)
 * for the communicator's size, spanning nodes or not, with its members
 * per node.  Both are times of one size, so efficiency = predicted time
 * / achieved time = achieved busbw / predicted busbw (the bus factor is
 * the same on both sides).  A row the calibration has no curve for
 * (the preset answered) is listed as not covered, never judged.
 *
 * Placement: the comm's recorded node count where known (members spread
 * evenly), else node = global rank / gpus_per_node (launchers fill nodes
 * in rank order).  Send and receive: the pair (the rank and its peer)
 * as a 2-rank sendrecv. */
#ifndef PB_JP_CALIB_H
#define PB_JP_CALIB_H

#include <stddef.h>
#include <stdint.h>

#include "pb_jobprof.h"
#include "pb_jp_inst.h"
#include "../model/pb_cost.h"

typedef struct pb_jp_eff {
    int comm;
    pb_jkind_t kind;
    pb_coll_t coll;
    pb_dtype_t dtype;
    uint64_t bytes;
    int n, net, per_node;  /* the shape asked of the calibration */
    uint64_t count;        /* timed instances */
    double achieved_us;    /* their median duration */
    double achieved_busbw; /* GB/s */
    int covered;           /* 1: a calibrated curve answered */
    double predicted_us;   /* the cost model's time (covered only) */
    double predicted_busbw;
    double eff;            /* predicted_us / achieved_us (covered only) */
    int below;             /* covered and eff < threshold */
} pb_jp_eff_t;

typedef struct pb_jp_calcmp {
    pb_jp_eff_t *rows; /* by comm, operation, size */
    size_t n;
    double threshold;
    size_t covered, below;
    double median_eff; /* over covered rows, 0 when none */
} pb_jp_calcmp_t;

/* gpus_per_node: for comms whose node count was not recorded (0: the
 * cost's hardware's).  Only operations parbench measures, of known
 * duration. */
int pb_jp_calib_cmp(const pb_jobprof_t *jp, const pb_jp_insts_t *in, const pb_cost_t *cost,
                    int gpus_per_node, double threshold, pb_jp_calcmp_t *out, pb_err_t *err);
void pb_jp_calcmp_free(pb_jp_calcmp_t *c);

#endif
