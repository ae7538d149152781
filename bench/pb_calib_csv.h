/* pb_calib_csv.h - a calibration to and from CSV (libcsv), one row per
 * fitted piece:
 *   collective, group_size, link_class, dtype, piece, bytes_lo, bytes_hi,
 *   latency_us, us_per_byte, bandwidth_gbps, points, max_err_pct,
 *   rms_err_pct, fit_error
 * dtype is the element type a reduction's curve was measured in (results'
 * names: float, bfloat16, ...) or "any" for a curve that serves every
 * type (the collectives that only move bytes).  Files written before the
 * dtype column still read: their curves are "any".  Columns are found by
 * header name.  us_per_byte is the exact slope (read back);
 * bandwidth_gbps = 1e-3 / us_per_byte is for people (GB = 1e9 B).
 * A curve measured at one size only is written as one piece with
 * bytes_lo = bytes_hi, points 1, us_per_byte 0: no bandwidth comes from one
 * size, and the model uses it for that size alone (pb_curve_single; files
 * written before this rule read the same way, no column added). */
#ifndef PB_CALIB_CSV_H
#define PB_CALIB_CSV_H

#include "../model/pb_calib.h"

int pb_calib_csv_write(const char *path, const pb_calib_t *k, pb_err_t *err);
int pb_calib_csv_read(const char *path, pb_calib_t *k, pb_err_t *err);

/* The name written in the dtype column: the type's, or "any". */
const char *pb_calib_dtype_label(const pb_curve_t *c);

#endif
