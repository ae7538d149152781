/* pb_csv.h - result rows to and from CSV, through libcsv.
 *
 * Writing: one complete row per call, flushed, so a run that dies keeps
 * every finished measurement (a row is written whole or not at all as far
 * as one fwrite+fflush allows: the row is formatted into memory first).
 * Appending to an existing file is allowed only when its header is exactly
 * ours; a file with another header is refused, never silently mixed. */
#ifndef PB_CSV_H
#define PB_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "pb_csv_schema.h"
#include "pb_result.h"
#include "../util/pb_err.h"

typedef struct pb_csv_writer pb_csv_writer_t;

/* Opens `path` for appending rows: checks the header of an existing
 * file; a new or empty one gets the header with its first row, and a file
 * this call created is removed again at close if no row came (a command
 * that failed leaves no header-only file).  PB_EINPUT (with the path and
 * the reason) for an unwritable path or a different header. */
int pb_csv_open(const char *path, pb_csv_writer_t **out, pb_err_t *err);
int pb_csv_write(pb_csv_writer_t *w, const pb_result_t *r, pb_err_t *err);
void pb_csv_close(pb_csv_writer_t *w);

/* Reads every row of a results file.  Columns are matched by header name,
 * so files with extra (newer) columns read fine; a missing required
 * column, a malformed number or a ragged row is PB_EINPUT naming file and
 * line.  *rows is malloc'ed; free() it. */
int pb_csv_read(const char *path, pb_result_t **rows, size_t *nrows, pb_err_t *err);

#endif
