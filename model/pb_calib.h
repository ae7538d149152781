/* pb_calib.h - collective times fitted from measurements.
 *
 * One of three calibration files, this one the fit (pure model/): the
 * curves, their pieces and the fit.  The other two: reports/pb_calib_file.h
 * (the file format: calib.csv as plain rows, read and written with
 * libcsv) and bench/glue/pb_calib_csv.h (the glue: these curves to and
 * from those rows).
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
#ifndef PB_MODEL_CALIB_H
#define PB_MODEL_CALIB_H

#include <stddef.h>
#include <stdint.h>

#include "../core/pb_coll.h"
#include "../core/pb_dtype.h"
#include "../util/pb_err.h"

#define PB_LINK_STR 16
#define PB_CURVE_PIECES 24

/* One measured point: a collective of `bytes` (nccl-tests' size
 * convention, as in the CSV) on groups of n ranks over `link`, per_node of
 * them in each node. */
typedef struct pb_meas {
    pb_coll_t coll;
    int n;
    char link[PB_LINK_STR]; /* link class as measured: NV12, NET, SYS, ... */
    pb_dtype_t dtype; /* element type it was measured in */
    uint64_t bytes;
    double time_us; /* median */
    /* ranks of the group in each node (a group within one node: n); 0 =
     * unknown (rows that do not say how the group was placed).  What a
     * curve across nodes needs to be moved to another placement: the
     * NICs a group uses are those of its members in each node. */
    int per_node;
} pb_meas_t;

typedef struct pb_piece {
    uint64_t lo, hi;  /* the measured sizes it covers */
    double alpha_us;  /* latency */
    double beta_us_b; /* microseconds per byte: 1e-3 / (GB/s) */
    int npts;
    double max_err, rms_err; /* relative, over its points */
} pb_piece_t;

typedef struct pb_curve {
    pb_coll_t coll;
    int n;
    char link[PB_LINK_STR];
    /* 1: serves every type (a bytes-only collective, or a curve read from a
     * calibration file written before the dtype column); 0: fitted to
     * points of `dtype` only */
    int any_dtype;
    pb_dtype_t dtype;
    /* ranks per node it was measured with (pb_meas_t.per_node; 0 unknown) */
    int per_node;
    /* the tolerance it was fitted with (0: unknown, a file written before
     * the column): a piece whose worst error exceeds it is loose
     * (pb_piece_loose) */
    double tol;
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

/* A collective a calibration can hold curves of, by name (pb_coll_parse):
 * those the parallel strategies issue (patterns/), all but broadcast and
 * reduce.  0 ok, -1 unknown or not one of them.  Of these, the ones whose
 * time depends on the element type are those that reduce (pb_coll_reduces:
 * all-reduce, reduce-scatter). */
int pb_calib_coll_parse(const char *s, pb_coll_t *out);

/* calibrate's default --fit-tol, and the tolerance a curve of unknown
 * tolerance is judged by */
#define PB_CALIB_TOL_DEFAULT 0.05
/* a piece of this many sizes or more is held to the tolerance; fewer,
 * which a line fits closely by construction, are not */
#define PB_CALIB_TOL_PTS 4

/* Fits every (coll, n, link, per_node, dtype) found in pts, dtype only for the
 * reductions (the others get one curve with any_dtype set).  Repeated
 * sizes (several modes, runs; types for the others) keep their fastest
 * median: the best the link does.
 * tol: the largest relative error a piece of four or more sizes may have
 * (0.05 by default in the commands).  A key with one size becomes a
 * single-size curve (pb_curve_single): kept for that size, never a law. */
int pb_calib_fit(const pb_meas_t *pts, size_t n, double tol, pb_calib_t *out, pb_err_t *err);

/* Fits one curve from points sorted by size with distinct sizes.
 * A curve is non-decreasing in bytes: NCCL's time never falls as the
 * message grows, and a fit that does (a noisy size, a busy machine)
 * would make a larger model cheaper to train.  So the times are first
 * made non-decreasing by isotonic regression (pool adjacent violators:
 * each run of sizes that goes down is replaced by its mean), the pieces
 * are fitted to those, and each piece's errors (max_err, rms_err) are
 * then taken against the measured times, so a piece that misses them by
 * more than `tol` says so (pb_piece_loose).  c->tol is set to tol. */
int pb_curve_fit(const uint64_t *x, const double *t, size_t n, double tol, pb_curve_t *c,
                 pb_err_t *err);

/* Time in microseconds of one operation of `bytes` on the curve: the raw
 * law, whatever the size.  Inside a piece, its law; in the gap between two
 * pieces (where the algorithm switch lies, unmeasured), the two laws
 * blended geometrically by where the size sits between them on a log
 * scale; below the smallest measured size the first piece, above the
 * largest the last.  The cost lookup (pb_cost.h) asks pb_curve_reach
 * first and never uses a curve for a size out of its reach. */
double pb_curve_eval(const pb_curve_t *c, uint64_t bytes, double *alpha_part, double *beta_part);
/* pb_curve_eval is non-decreasing in bytes for every curve: each piece's
 * law is (alpha, beta >= 0); a piece never answers below the curve's
 * value at the end of the piece before it (the running maximum); a gap
 * blends the two laws only where the next one is not below the last
 * (else it interpolates the two end values geometrically). */

/* A piece of two or more sizes whose worst error against its measured
 * times exceeds the curve's tolerance (PB_CALIB_TOL_DEFAULT for a curve
 * of unknown tolerance, and then only pieces of 2-3 sizes, which the fit
 * always accepted): its law is not trusted between its sizes, so it
 * answers only at its own end sizes (pb_curve_reach). */
int pb_piece_loose(const pb_curve_t *c, int k);

/* The worst error of the piece(s) answering `bytes` (in a gap: the larger
 * of its two neighbours'): the band a measured time carries. */
double pb_curve_err(const pb_curve_t *c, uint64_t bytes);

/* A curve of one measured size (every key of `calibrate` with a single
 * size: e.g. a pattern run's one message size).  One size gives no
 * bandwidth: the fit is a pure latency, the measured time, which says
 * nothing about any other size.  Such a curve is still fitted and
 * written (one piece, bytes_lo = bytes_hi, points 1: the mark, which
 * files written before this rule carry too) so that the size measured
 * keeps its measured time, but it reaches that size alone. */
int pb_curve_single(const pb_curve_t *c);

/* How far past its measured sizes a curve's law is trusted: a factor of
 * PB_CALIB_EXTEND beyond either end, and only where the end piece has a
 * bandwidth term (latency + bytes / bandwidth extrapolates sanely a
 * little way; a latency-only piece would give the same time at any size,
 * which is what made a 1 MiB point answer for 8 MiB, issue 14). */
#define PB_CALIB_EXTEND 2.0

/* Where `bytes` sits against the curve's measured range [lo, hi] (the
 * first piece's lo, the last's hi; gaps between pieces are inside):
 * PB_REACH_IN inside it; PB_REACH_NEAR within PB_CALIB_EXTEND past an end
 * whose piece has a bandwidth term; PB_REACH_OUT otherwise (and always
 * for another size on a single-size curve).  A loose piece
 * (pb_piece_loose) reaches only its own end sizes: inside it, in a gap
 * beside it, or past an end it holds, the answer is OUT, so the next
 * curve or the preset answers. */
enum { PB_REACH_IN = 0, PB_REACH_NEAR = 1, PB_REACH_OUT = 2 };
int pb_curve_reach(const pb_curve_t *c, uint64_t bytes);

/* The measured range of a curve: its smallest and largest size. */
uint64_t pb_curve_lo(const pb_curve_t *c);
uint64_t pb_curve_hi(const pb_curve_t *c);

/* A reduction of type dt answered by curve c of another type (or of no
 * recorded type) because dt's own curves do not reach the size x: the
 * ratio dt's time bears to c's where both were measured, which c's
 * answer is multiplied by (issue 50: float measured from 8 B to 64 MiB,
 * bf16 at 1 MiB only, 3.3x float's time there under Open MPI's software
 * reduction - float's curve as is put bf16 at 8 MiB 3.3x too fast).
 * Where: a size of one of dt's curves of c's collective, group size, link
 * and placement (a piece's bytes_lo or bytes_hi: a measured size) that c
 * reaches inside its range (PB_REACH_IN); of several, the nearest to x on
 * a log scale.  The ratio is dt's curve over c's there; *at (may be NULL)
 * the size, 0 and 1.0 returned when there is none. */
double pb_calib_dtype_ratio(const pb_calib_t *k, const pb_curve_t *c, pb_dtype_t dt,
                            uint64_t x, uint64_t *at);

#endif
