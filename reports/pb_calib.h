/* pb_calib.h - the calibrated collective cost model as a file: calib.csv.
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
 *   bytes_lo        the piece covers sizes bytes_lo <= size <= bytes_hi
 *   bytes_hi        (sizes as in results.csv: nccl-tests' convention)
 *   latency_us      alpha: the time of an empty operation, microseconds
 *   bandwidth_gbps  beta as a rate: size / (time - alpha), GB/s (1e9 B/s),
 *                   i.e. an algorithm bandwidth; bus bandwidth follows with
 *                   the collective's nccl-tests factor
 *   fit_error       relative RMS error of the fit over the piece's measured
 *                   points (0.05 = 5 %)
 *
 * So a piece predicts  time_us(size) = latency_us + size / (bandwidth_gbps * 1e3).
 * The report draws these curves over the measured ones. */
#ifndef PB_REPORTS_CALIB_H
#define PB_REPORTS_CALIB_H

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
} pb_calib_row_t;

/* Does the piece apply to rows of element type `dtype` (its own, or any)? */
int pb_calib_dtype_matches(const pb_calib_row_t *c, const char *dtype);

/* Predicted time of one operation of `bytes` under this piece, us. */
double pb_calib_time_us(const pb_calib_row_t *c, uint64_t bytes);

/* Reads calib.csv; a missing column, a bad number, bytes_lo > bytes_hi or
 * a bandwidth <= 0 is PB_EINPUT naming file:line.  *rows malloc'ed. */
int pb_calib_read(const char *path, pb_calib_row_t **rows, size_t *nrows, pb_err_t *err);

#endif
