/* pb_cost.h - the time of one collective operation, from a calibration
 * when it covers the case, else from the hardware preset.
 *
 * Rules (README, "Step model"):
 *  - link: a group within one node uses curves measured within a node (any
 *    class but NET), a group spanning nodes uses NET curves;
 *  - group size not measured: the curve of the nearest measured size n0
 *    (log distance; the larger on a tie) of the same collective and link,
 *    scaled by the ring algorithm: the bandwidth term by the ratio of
 *    bus-bandwidth factors (all-reduce 2(n-1)/n, all-gather, reduce-
 *    scatter, all-to-all (n-1)/n, send/recv 1), the latency term by the
 *    ratio of ring steps (n-1)/(n0-1), except all-reduce, whose small
 *    messages NCCL runs on a tree: log2(n)/log2(n0);
 *  - all-to-all-v without its own curve: the all-to-all curve at the
 *    hottest destination's share (bytes x imbalance);
 *  - sizes outside the measured range: pb_curve_eval's extrapolation;
 *  - nothing measured for the collective on that link: the preset,
 *    time = latency + wire bytes / (link bandwidth x efficiency), the
 *    link being NVLink per direction within a node and the node's NICs
 *    shared by its GPUs across nodes; latency grows with log2(n)/3 past 8
 *    ranks (tree depth). */
#ifndef PB_COST_H
#define PB_COST_H

#include <stdint.h>

#include "pb_calib.h"
#include "pb_hw.h"

typedef struct pb_cost {
    const pb_hw_t *hw;
    const pb_calib_t *calib; /* NULL: presets only */
} pb_cost_t;

/* Microseconds for one operation; *calibrated (may be NULL) says whether
 * a measured curve answered. */
double pb_cost_us(const pb_cost_t *c, pb_pat_coll_t coll, int n, int net, uint64_t bytes,
                  double imbalance, int *calibrated);

/* The same from the preset alone. */
double pb_cost_preset_us(const pb_hw_t *hw, pb_pat_coll_t coll, int n, int net, uint64_t bytes,
                         double imbalance);

#endif
