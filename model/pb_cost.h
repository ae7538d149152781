/* pb_cost.h - the time of one collective operation, from a calibration
 * when it covers the case, else from the hardware preset.
 *
 * Rules (doc/prediction.md, "Calibration"):
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
 *    where the asked type was measured at a size the other curve also
 *    covers, the other curve's answer is multiplied by the ratio of the two
 *    types' times there (pb_calib_dtype_ratio: bf16 measured at 1 MiB
 *    only, float across sizes), and the answer says so (dtype_ratio);
 *  - link: a group within one node uses curves measured within a node (any
 *    class but NET), a group spanning nodes uses NET curves;
 *  - shape: a curve keeps what it was measured on (group size n0, ranks
 *    per node g0, link).  One of the same shape answers as measured.
 *    Another is moved to the asked shape through the collective's
 *    algorithm, never by rescaling the whole curve (pb_cost_place_us,
 *    doc/CALIBRATION.md):
 *      within a node: the bus bandwidth held (ring: every GPU's link
 *      carries the bus bytes at any n), the latency by ring steps
 *      (n-1)/(n0-1), all-reduce by tree depth log2(n)/log2(n0);
 *      across nodes: the measured bandwidth term becomes a rate per NIC
 *      (the group's traffic leaves each node over the NICs of its g0
 *      members there), the rate is capped at the NIC's line rate x
 *      net_eff of the hardware (after --hw-set) and the asked shape's
 *      traffic per NIC is sent at it; the latency follows NCCL's latency
 *      composition (tree all-reduce: 2((g-1) intra + log2(nodes) inter
 *      hops); ring all-gather/reduce-scatter: n-nodes intra and nodes-1
 *      inter steps);
 *    the nearest curve answers: group size first (log distance, the larger
 *    on a tie), then ranks per node;
 *  - ceilings: no answer is faster than the links it crosses allow: the
 *    least bytes any algorithm must move over the NICs of a node (across
 *    nodes) or over one GPU's NVLink (within a node), at the line rate for
 *    a measured shape and at the line rate x efficiency for a moved one;
 *    an answer held there is said to be capped;
 *  - band: every calibrated answer has an optimistic and a pessimistic
 *    end (pb_cost_t.bound): the fit's worst error around the piece, and
 *    for a curve moved across nodes the two readings of its rate per NIC
 *    (with or without the 2-node tree's gain);
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
    /* 0: the central answer; -1 / +1: the optimistic / pessimistic end
     * of what a measured or transferred collective may take (the band of
     * pb_cost_src_t: lo_us, hi_us).  The preset always answers its
     * nominal value (its error is the step model's to state).  Kept after
     * hw and calib so that {&hw, calib} initialisers stay nominal. */
    int bound;
} pb_cost_t;

/* What held an answer at a link's ceiling (pb_cost_src_t.capped). */
enum { PB_CAP_NONE = 0, PB_CAP_NIC = 1, PB_CAP_NVLINK = 2 };

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
    /* a curve of another group size or placement answered, moved to the
     * asked one by the algorithm model: its shape (from_per_node 0:
     * unknown) and the one asked (to_per_node 0: unknown) */
    int transferred;
    int from_n, from_per_node, to_n, to_per_node;
    int capped;           /* PB_CAP_*: the nominal answer held at a ceiling */
    double lo_us, hi_us;  /* the band: optimistic and pessimistic ends */
    /* a reduction answered by a curve of another type (PB_CAL_OTHER) whose
     * own type was measured where that curve was too: the curve's answer
     * times the ratio measured there (pb_calib_dtype_ratio), and the size
     * (ratio_at 0: none, the other type's time as it is) */
    double dtype_ratio;
    uint64_t ratio_at;
} pb_cost_src_t;

/* pb_cost_us, saying where the time came from (src may be NULL).  A
 * group across nodes (net) of unknown placement: one rank per node
 * assumed (the fewest NICs: the conservative reading). */
double pb_cost_src_us(const pb_cost_t *c, pb_coll_t coll, pb_dtype_t dtype, int n,
                      int net, uint64_t bytes, double imbalance, pb_cost_src_t *src);

/* The same for a group placed with `per_node` of its n ranks in each node
 * (net = 0: all n in one node, per_node is then n whatever is passed; 0:
 * unknown).  Across nodes the preset is pb_cost_preset_rail_us. */
double pb_cost_place_us(const pb_cost_t *c, pb_coll_t coll, pb_dtype_t dtype, int n, int net,
                        int per_node, uint64_t bytes, double imbalance, pb_cost_src_t *src);

/* The latency NCCL's (RCCL's on an AMD preset, pb_hw_is_amd) tuning model
 * gives the LL protocol of a collective on n ranks, g a node, over nodes
 * nodes, in microseconds (doc/MODEL.md "Collectives"): what moves a
 * measured latency to another group shape across nodes. */
double pb_cost_ll_latency_us(const pb_hw_t *hw, pb_coll_t coll, int n, int g, int nodes);

/* A collective's time from the preset alone. */
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
