/* pb_csv_records.h - libcsv driven record by record: every CSV reader of
 * parbench (results, calibration, topology pairs) shares this driver, so
 * a malformed file is reported the same way (file:line) everywhere. */
#ifndef PB_CSV_RECORDS_H
#define PB_CSV_RECORDS_H

#include <stddef.h>
#include <stdio.h>

#include "../util/pb_err.h"

typedef struct pb_csv_rec {
    char *buf;           /* the fields' bytes, each followed by a NUL */
    size_t len, cap;
    size_t *off;         /* field i starts at buf + off[i] ... */
    size_t *flen;        /* ... and is flen[i] bytes long */
    const char **field;  /* buf + off[i], filled once buf stops moving */
    size_t nfields, fcap;
} pb_csv_rec_t;

typedef int (*pb_csv_record_fn_t)(void *arg, size_t line, const pb_csv_rec_t *rec,
                                  pb_err_t *err);

/* Feeds the whole of `f` to libcsv (strict: a stray quote is an error,
 * not silently kept as data) and hands each record, with the line it
 * starts on, to `record`; the first failure stops the parse. */
int pb_csv_parse_file(FILE *f, const char *path, pb_csv_record_fn_t record, void *arg,
                      pb_err_t *err);

/* The same for the file at `path`: PB_EINPUT "cannot read CSV" naming it
 * when it does not open. */
int pb_csv_parse_path(const char *path, pb_csv_record_fn_t record, void *arg, pb_err_t *err);

/* pb_csv_parse_path for a table: a file that ends before its header
 * record (*nheader still 0 once parsed: the record callback sets it) is
 * PB_EINPUT "PATH: empty file, expected a header line". */
int pb_csv_parse_table(const char *path, pb_csv_record_fn_t record, void *arg,
                       const size_t *nheader, pb_err_t *err);

/* The index of the field named `name` in a header record, -1 if none. */
int pb_csv_rec_find(const pb_csv_rec_t *rec, const char *name);

#endif
