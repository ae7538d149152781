/* pb_cost.h - the time of one collective operation, from a calibration
 * when it covers the case, else from the hardware preset.
 *
 * Rules (README, "Step model"):
 *  - data type: a reduction (all-reduce, reduce-scatter) takes the curves
 *    of its own element type; the other collectives move bytes and take
 *    their one curve whatever the type.  A reduction whose type was not
 *    measured borrows, in this order: a curve of no recorded type (a
 *    calibration file older than the dtype column: it stood for every
 *    type), a type of the same element size (bf16 for f16 and back: the
 *    same bytes per element, reduced the same way on both backends - in
 *    software by Open MPI, natively by NCCL), then any other type; among
 *    several of one rank the slowest at that size, so an unmeasured type
 *    is never predicted faster than a measured one of the same rank (the
 *    fastest-type-wins rule this replaces was 6x optimistic for bf16 on
 *    the host backend).  Such answers are reported apart (PB_CAL_OTHER);
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
 *  - sizes: a curve answers only sizes it reaches (pb_curve_reach):
 *    inside its measured range [bytes_lo of its first piece, bytes_hi of
 *    its last], or up to PB_CALIB_EXTEND (2x) past an end whose piece has
 *    a bandwidth term (extrapolated, counted apart); a single-size curve
 *    reaches its one size only.  Past that the next curve answers, in
 *    the order above (another group size of the same rank, then the next
 *    rank of type), and when none reaches the size, the preset, counted
 *    as out of range: never a size-independent time for a size nobody
 *    measured;
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

/* What answered pb_cost_us: the preset, a curve of the operation's own
 * type (or of any type, for a collective that does not reduce), or a
 * reduction's curve of another or unrecorded type. */
enum { PB_CAL_PRESET = 0, PB_CAL_OWN = 1, PB_CAL_OTHER = 2 };

/* Microseconds for one operation of element type `dtype`; *calibrated
 * (may be NULL) is set to a PB_CAL_* (non-zero: a measured curve
 * answered). */
double pb_cost_us(const pb_cost_t *c, pb_coll_t coll, pb_dtype_t dtype, int n, int net,
                  uint64_t bytes, double imbalance, int *calibrated);

/* Where one answer of pb_cost_src_us came from: what a prediction counts
 * and reports (pb_step_calib_note). */
typedef struct pb_cost_src {
    int cal;          /* PB_CAL_*: who answered */
    int extrapolated; /* a curve answered, up to PB_CALIB_EXTEND past its range */
    int passed;       /* a curve answered, but a better-ranked one (own
                       * type; all-to-all-v's own) was measured and did not
                       * reach the size */
    int out_of_range; /* the preset answered although the collective was
                       * measured on that link: no curve reaches the size */
    uint64_t asked;   /* the size looked up (all-to-all-v on the all-to-all
                       * curve: bytes x imbalance) */
    uint64_t lo, hi;  /* out_of_range: the sizes measured, smallest to largest */
} pb_cost_src_t;

/* pb_cost_us, saying where the time came from (src may be NULL). */
double pb_cost_src_us(const pb_cost_t *c, pb_coll_t coll, pb_dtype_t dtype, int n,
                      int net, uint64_t bytes, double imbalance, pb_cost_src_t *src);

/* The same from the preset alone. */
double pb_cost_preset_us(const pb_hw_t *hw, pb_coll_t coll, int n, int net, uint64_t bytes,
                         double imbalance);

/* The preset for a group spanning nodes with `per_node` of its members in
 * each node: NCCL's rings and trees run one channel per NIC (rail
 * layout), so the group's traffic leaving a node spreads over the NICs of
 * its members there - "8x200Gbit/s IB cards and we measure 192GB/s
 * AllReduce BusBW" on DGX A100 (AddyLaddy, NVIDIA/nccl#812) - up to the
 * NVLink rate its ring also crosses.  All-to-all "cannot aggregate the
 * bandwidth of multiple NICs" (nccl-tests#267): one NIC's share. */
double pb_cost_preset_rail_us(const pb_hw_t *hw, pb_coll_t coll, int n, int per_node,
                              uint64_t bytes, double imbalance);

#endif
