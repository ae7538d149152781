/* pb_calib.h - collective times fitted from measurements.
 *
 * For each (collective, group size, link class) the measured times are
 * fitted piecewise by size range, each piece time(x) = alpha + beta*x
 * (latency plus bytes over bandwidth).  NCCL switches algorithm and
 * protocol (LL, LL128, Simple; ring, tree, NVLS) with the size, so one
 * line misses a real curve by tens of percent; a few pieces follow it.
 *
 * The fit minimises relative error (a 10 us error matters at 20 us, not at
 * 20 ms): within a piece, least squares of (alpha + beta*x)/t - 1, with
 * alpha, beta >= 0.  Pieces come from a dynamic programme over the sorted
 * sizes: the fewest pieces whose worst relative error is within `tol`
 * (pieces of two or three sizes always qualify, so a noisy curve still
 * fits, with more pieces), ties broken by the smaller squared error.
 *
 * Reductions (all-reduce, reduce-scatter) are fitted per data type: their
 * speed depends on it (Open MPI reduces bf16, f16 and fp8 with user-defined
 * operators in software: on 2 ranks of the development machine a 256 KiB
 * all-reduce takes 57 us in float and 348 us in bfloat16; NCCL reduces
 * bf16 near float's per-byte speed, fp8 and integers not).  The other
 * collectives only move bytes, so every type's points merge into one curve
 * that serves any type.
 *
 * model/ is pure: it takes plain measured points, not CSV rows; bench/
 * converts result rows into pb_meas_t. */
#ifndef PB_CALIB_H
#define PB_CALIB_H

#include <stddef.h>
#include <stdint.h>

#include "../patterns/pb_pat_op.h"
#include "../util/pb_err.h"

#define PB_LINK_STR 16
#define PB_CURVE_PIECES 24

/* One measured point: a collective of `bytes` (nccl-tests' size
 * convention, as in the CSV) on groups of n ranks over `link`. */
typedef struct pb_meas {
    pb_pat_coll_t coll;
    int n;
    char link[PB_LINK_STR]; /* link class as measured: NV12, NET, SYS, ... */
    pb_pat_dtype_t dtype; /* element type it was measured in */
    uint64_t bytes;
    double time_us; /* median */
} pb_meas_t;

typedef struct pb_piece {
    uint64_t lo, hi;  /* the measured sizes it covers */
    double alpha_us;  /* latency */
    double beta_us_b; /* microseconds per byte: 1e-3 / (GB/s) */
    int npts;
    double max_err, rms_err; /* relative, over its points */
} pb_piece_t;

typedef struct pb_curve {
    pb_pat_coll_t coll;
    int n;
    char link[PB_LINK_STR];
    /* 1: serves every type (a bytes-only collective, or a curve read from a
     * calibration file written before the dtype column); 0: fitted to
     * points of `dtype` only */
    int any_dtype;
    pb_pat_dtype_t dtype;
    int npieces;
    pb_piece_t p[PB_CURVE_PIECES];
} pb_curve_t;

typedef struct pb_calib {
    pb_curve_t *c;
    size_t n, cap;
} pb_calib_t;

void pb_calib_init(pb_calib_t *k);
void pb_calib_free(pb_calib_t *k);
int pb_calib_add(pb_calib_t *k, const pb_curve_t *c, pb_err_t *err);

/* 1 for the collectives whose time depends on the element type: those
 * that reduce (all-reduce, reduce-scatter). */
int pb_calib_coll_reduces(pb_pat_coll_t c);

/* Fits every (coll, n, link, dtype) found in pts, dtype only for the
 * reductions (the others get one curve with any_dtype set).  Repeated
 * sizes (several modes, runs; types for the others) keep their fastest
 * median: the best the link does.
 * tol: the largest relative error a piece of four or more sizes may have
 * (0.05 by default in the commands). */
int pb_calib_fit(const pb_meas_t *pts, size_t n, double tol, pb_calib_t *out, pb_err_t *err);

/* Fits one curve from points sorted by size with distinct sizes. */
int pb_curve_fit(const uint64_t *x, const double *t, size_t n, double tol, pb_curve_t *c,
                 pb_err_t *err);

/* Time in microseconds of one operation of `bytes` on the curve.  Inside a
 * piece, its law; in the gap between two pieces (where the algorithm
 * switch lies, unmeasured), the two laws blended geometrically by where
 * the size sits between them on a log scale; below the smallest measured size the
 * first piece (latency dominates there), above the largest the last piece
 * (bandwidth-bound: time grows linearly, which is what a saturated link
 * does). */
double pb_curve_eval(const pb_curve_t *c, uint64_t bytes, double *alpha_part, double *beta_part);

/* "NET" (between nodes) or within a node: the two categories the step
 * model distinguishes. */
int pb_link_is_net(const char *link);

#endif
