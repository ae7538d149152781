/* pb_calib_file.h - the calibrated collective cost model as a file: calib.csv,
 * and its one reader (parbench calibrate writes it: bench/glue/pb_calib_csv.c;
 * the report and, through bench/, the model read it here).
 *
 * One of three calibration files, this one the file format (reports/:
 * plain rows, no model types).  The other two: model/pb_calib.h (the fit,
 * pure: the curves and how they are fitted) and bench/glue/pb_calib_csv.h
 * (the glue: the model's curves to and from these rows).
 *
 * One row per fitted piece of a piecewise latency-bandwidth (alpha-beta)
 * model, columns (header names, any order, extra columns ignored):
 *
 *   collective      allreduce, allgather, ... (pb_coll names, as in results)
 *   group_size      ranks in the group the piece was fitted on
 *   link_class      the group's slowest link (NV8, PIX, NODE, NET, ...; may be empty)
 *   dtype           optional: the element type the piece was measured in
 *                   (float, bfloat16, ...) for a reduction, whose speed
 *                   depends on it; "any", empty or no column at all (files
 *                   written before it) for a piece that serves every type
 *   piece           optional: the piece's index within its curve (0, 1, ...)
 *   bytes_lo        the piece covers sizes bytes_lo <= size <= bytes_hi
 *   bytes_hi        (sizes as in results.csv: nccl-tests' convention)
 *   latency_us      alpha: the time of an empty operation, microseconds
 *   us_per_byte     beta, exact (the model reads this one back)
 *   bandwidth_gbps  beta as a rate: size / (time - alpha), GB/s (1e9 B/s),
 *                   i.e. an algorithm bandwidth; bus bandwidth follows with
 *                   the collective's nccl-tests factor.  At least one of
 *                   us_per_byte and bandwidth_gbps; each follows from the
 *                   other (bandwidth_gbps = 1e-3 / us_per_byte) when absent
 *   points          optional: measured sizes the piece was fitted to
 *   max_err_pct     optional: the fit's largest and RMS relative errors, %
 *   rms_err_pct
 *   fit_error       optional: rms_err_pct / 100 (the report's name)
 *   per_node        optional: ranks of the group in each node when it was
 *                   measured (0 or empty: unknown; files written before it)
 *   fit_tol_pct     optional: the --fit-tol the curve was fitted with, %
 *                   (0 or empty: unknown); a piece whose max_err_pct
 *                   exceeds it answers only at its own sizes
 *
 * So a piece predicts  time_us(size) = latency_us + size / (bandwidth_gbps * 1e3).
 * The report draws these curves over the measured ones. */
#ifndef PB_REPORTS_CALIB_FILE_H
#define PB_REPORTS_CALIB_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "pb_result.h"
#include "../util/pb_err.h"

typedef struct pb_calib_row {
    char collective[PB_RESULT_STR];
    int group_size;
    char link_class[PB_RESULT_STR];
    uint64_t bytes_lo, bytes_hi;
    double latency_us;
    double bandwidth_gbps;
    double fit_error;
    char dtype[PB_RESULT_STR]; /* "" = any type */
    /* the columns the report does not draw, for the model (bench/ builds
     * its curves from these rows) */
    int piece;          /* -1: no piece column */
    double us_per_byte; /* exact beta; from bandwidth_gbps when absent */
    int points;
    double max_err_pct, rms_err_pct;
    size_t line; /* the row's line in the file, for messages */
    int per_node;       /* 0: unknown */
    double fit_tol_pct; /* 0: unknown */
} pb_calib_row_t;

/* Columns a file may lack (PB_CALIB_HAVE_* bits of pb_calib_read_cols). */
enum {
    PB_CALIB_HAVE_DTYPE = 1u << 0,
    PB_CALIB_HAVE_PIECE = 1u << 1,
    PB_CALIB_HAVE_US_PER_BYTE = 1u << 2,
    PB_CALIB_HAVE_BANDWIDTH = 1u << 3,
    PB_CALIB_HAVE_POINTS = 1u << 4,
    PB_CALIB_HAVE_MAX_ERR = 1u << 5,
    PB_CALIB_HAVE_RMS_ERR = 1u << 6,
    PB_CALIB_HAVE_FIT_ERROR = 1u << 7,
    PB_CALIB_HAVE_PER_NODE = 1u << 8,
    PB_CALIB_HAVE_FIT_TOL = 1u << 9
};

/* Does the piece apply to rows of element type `dtype` (its own, or any)? */
int pb_calib_dtype_matches(const pb_calib_row_t *c, const char *dtype);

/* Predicted time of one operation of `bytes` under this piece, us. */
double pb_calib_time_us(const pb_calib_row_t *c, uint64_t bytes);

/* Reads calib.csv; a missing column, a bad or negative number, a name
 * too long or bytes_lo > bytes_hi is PB_EINPUT naming file:line.  *rows
 * malloc'ed. */
int pb_calib_read(const char *path, pb_calib_row_t **rows, size_t *nrows, pb_err_t *err);

/* The same, and which optional columns the file has (*have). */
int pb_calib_read_cols(const char *path, pb_calib_row_t **rows, size_t *nrows, unsigned *have,
                       pb_err_t *err);

/* Writes the rows with every column above, in calibrate's order; "" as
 * dtype is written "any".  PB_EINPUT naming the path when it cannot be
 * written. */
int pb_calib_write(const char *path, const pb_calib_row_t *rows, size_t n, pb_err_t *err);

/* The model's name of a required column a file lacks: its first optional
 * column named in `need` (PB_CALIB_HAVE_* bits) that `have` lacks, or NULL. */
const char *pb_calib_missing(unsigned have, unsigned need);

#endif
