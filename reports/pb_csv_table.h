/* pb_csv_table.h - a whole CSV table written through libcsv: the tables
 * parbench replaces rather than appends to (topology pairs, tune.csv,
 * replay's table, a recorded job's operations).  One place opens, heads,
 * fills and closes them, so a failed write reads the same everywhere;
 * the results file, which only grows, has its own writer (pb_csv.h). */
#ifndef PB_CSV_TABLE_H
#define PB_CSV_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "../util/pb_err.h"

/* A string field, quoted by libcsv (so commas, quotes and newlines in it
 * survive), then `sep` (',' or '\n'; 0: nothing).  0 ok, -1 failed. */
int pb_csv_put_str(FILE *f, const char *s, char sep);

/* Row i of `rows` written as one line (its '\n' included); 0 ok. */
typedef int (*pb_csv_row_fn_t)(FILE *f, const void *rows, size_t i);

/* Writes (replaces) path: the header line (without its '\n'), then row()
 * for i = 0 .. n-1.  PB_EINPUT naming path when it cannot be opened,
 * PB_ERUNTIME when a write fails. */
int pb_csv_table_write(const char *path, const char *header, pb_csv_row_fn_t row,
                       const void *rows, size_t n, pb_err_t *err);

#endif
