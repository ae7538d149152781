/* pb_calib_csv.h - the model's calibration (model/pb_calib.h) to and
 * from calib.csv.  The file, its columns and its one reader and writer
 * are reports/' (reports/pb_calib_file.h); here the model's curves become its
 * plain rows and back, which only bench/ may do (it sees both).
 * One of three calibration files, this one the glue (curves <-> file
 * rows); the other two are model/pb_calib.h (the fit, pure) and
 * reports/pb_calib_file.h (the file format).
 * Reading wants the columns calibrate writes for the model (piece,
 * us_per_byte, points, max_err_pct, rms_err_pct; dtype optional, for
 * files written before it: their curves are "any"); a file without them
 * is "not a calibration file".  A curve measured at one size only is one
 * piece with bytes_lo = bytes_hi, points 1, us_per_byte 0: no bandwidth
 * comes from one size, and the model uses it for that size alone
 * (pb_curve_single).  Two columns follow the others: per_node (the
 * group's ranks per node when measured; absent, empty or 0 in files
 * written before it: unknown, which the model transfers conservatively)
 * and fit_tol_pct (the tolerance of the fit; unknown in older files:
 * pieces of 2-3 sizes are then judged against the default 5 %). */
#ifndef PB_CALIB_CSV_H
#define PB_CALIB_CSV_H

#include "../../model/pb_calib.h"

int pb_calib_csv_write(const char *path, const pb_calib_t *k, pb_err_t *err);
int pb_calib_csv_read(const char *path, pb_calib_t *k, pb_err_t *err);

/* The name written in the dtype column: the type's, or "any". */
const char *pb_calib_dtype_label(const pb_curve_t *c);

#endif
