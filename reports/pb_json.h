/* pb_json.h - result rows as JSON Lines (one object per line), through
 * jansson: `--json FILE` beside `--csv`.
 *
 * JSON Lines rather than one array: a run appends rows as it measures
 * them, exactly like the CSV, so a run that dies keeps every finished row
 * and the file is valid after every line; an array would have to be
 * rewritten (or left without its closing bracket) on every row, and two
 * runs appended to one file would not make one valid document.  `jq -s`
 * turns the file into an array when one is wanted.
 *
 * Field names and order are the CSV columns' (pb_csv_column); numbers are
 * JSON numbers (doubles with the CSV's 9 significant digits, so both files
 * hold the same values), `wrong` is null when the row was not checked. */
#ifndef PB_JSON_H
#define PB_JSON_H

#include <stddef.h>

#include "pb_result.h"
#include "../util/pb_err.h"

typedef struct pb_json_writer pb_json_writer_t;

/* Opens `path` for appending; PB_EINPUT naming the path when it cannot. */
int pb_json_open(const char *path, pb_json_writer_t **out, pb_err_t *err);
/* One whole line per row, flushed. */
int pb_json_write(pb_json_writer_t *w, const pb_result_t *r, pb_err_t *err);
void pb_json_close(pb_json_writer_t *w);

/* Reads every row of a JSON Lines results file (blank lines skipped);
 * bad JSON or a field of the wrong type is PB_EINPUT naming file:line.
 * *rows is malloc'ed; free() it. */
int pb_json_read(const char *path, pb_result_t **rows, size_t *nrows, pb_err_t *err);

#endif
