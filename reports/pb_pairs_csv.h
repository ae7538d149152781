/* pb_pairs_csv.h - the link of every device pair as CSV (a, b, class,
 * links), written through libcsv: `parbench topo --csv`.
 *
 * A pairs file describes one topology, so it is written whole (replaced),
 * unlike the results file, which only ever grows. */
#ifndef PB_PAIRS_CSV_H
#define PB_PAIRS_CSV_H

#include <stddef.h>

#include "../util/pb_err.h"

typedef struct pb_pair_row {
    char a[64];
    char b[64];
    char cls[16]; /* NV, PIX, ..., NET (the class without the count) */
    int links;    /* NVLinks for NV, else 0 */
} pb_pair_row_t;

/* PB_EINPUT naming the path when it cannot be written. */
int pb_pairs_csv_write(const char *path, const pb_pair_row_t *rows, size_t n, pb_err_t *err);

/* Reads such a file back (the report's topology matrix); a missing
 * column or a bad field is PB_EINPUT naming file:line.  *rows malloc'ed. */
int pb_pairs_csv_read(const char *path, pb_pair_row_t **rows, size_t *n, pb_err_t *err);

#endif
