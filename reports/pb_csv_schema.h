/* pb_csv_schema.h - the columns of a results file: names, types and
 * places in pb_result_t, in the file's order.  One table drives the CSV
 * header, writer (pb_csv.c) and reader (pb_csv_read.c), and JSON walks it
 * too, so none can disagree about the schema.  Public through pb_csv.h. */
#ifndef PB_CSV_SCHEMA_H
#define PB_CSV_SCHEMA_H

#include <stddef.h>

#include "pb_result.h"

/* The header line's column names, in order. */
int pb_csv_ncolumns(void);
const char *pb_csv_column(int i);

/* Each column's type and place in pb_result_t (0 <= i < ncolumns): other
 * formats (JSON) walk the same table, so they carry exactly the CSV's
 * fields under the CSV's names. */
typedef enum pb_csv_type {
    PB_CSV_STR,   /* char[PB_RESULT_STR] */
    PB_CSV_INT,   /* int */
    PB_CSV_U64,   /* uint64_t */
    PB_CSV_WRONG, /* int64_t, PB_RESULT_WRONG_UNCHECKED <-> empty field */
    PB_CSV_DBL    /* double */
} pb_csv_type_t;
pb_csv_type_t pb_csv_column_type(int i);
size_t pb_csv_column_offset(int i);

/* The table itself, for the writer and the reader. */
typedef struct pb_csv_col {
    const char *name;
    pb_csv_type_t type;
    size_t offset;
} pb_csv_col_t;

#define PB_CSV_NCOLS 30
#define PB_CSV_NREQUIRED 24 /* the original schema, up to and including label */

extern const pb_csv_col_t pb_csv_cols[PB_CSV_NCOLS];

/* Longest excerpt of a bad field quoted back in a message. */
#define PB_CSV_SHOW 40

#endif
