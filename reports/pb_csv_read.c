/* pb_csv_read.c - result rows from CSV, through libcsv (pb_csv.h).
 * Columns are matched by header name against pb_csv_schema.h's table;
 * numbers are parsed in the C locale's notation, whole fields only. */
#include "pb_csv.h"
#include "pb_csv_records.h"
#include "../util/pb_num.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct pb_csv_reader {
    const char *path;
    size_t nheader;          /* 0 until the header record has been read */
    int map[PB_CSV_NCOLS];   /* file column of our column k, -1 if absent */
    pb_result_t *rows;
    size_t nrows, cap;
} pb_csv_reader_t;

static int pb_csv_bad_number(const pb_csv_reader_t *rd, size_t line, const char *name,
                             const char *s, const char *why, pb_err_t *err)
{
    return pb_err_set(err, PB_EINPUT, "%s:%zu: field '%s' is %s: '%.*s'", rd->path, line,
                      name, why, PB_CSV_SHOW, s);
}

/* strto* skip leading white space and accept a sign; a field is a number
 * only if it is all number, which the end pointer and this check decide. */
static int pb_csv_starts_number(const char *s, size_t len)
{
    return len > 0 && !isspace((unsigned char)s[0]);
}

/* Signed columns (int, wrong) hold negatives, so this one takes a sign and
 * keeps strtoll; unsigned columns take digits only, through pb_num_u64n. */
static int pb_csv_parse_i64(const pb_csv_reader_t *rd, size_t line, const pb_csv_col_t *col,
                            const char *s, size_t len, int64_t lo, int64_t hi, int64_t *out,
                            pb_err_t *err)
{
    char *end;
    long long v;

    if (!pb_csv_starts_number(s, len))
        return pb_csv_bad_number(rd, line, col->name, s, "not a number", err);
    errno = 0;
    v = strtoll(s, &end, 10);
    if (end != s + len)
        return pb_csv_bad_number(rd, line, col->name, s, "not a number", err);
    if (errno == ERANGE || v < lo || v > hi)
        return pb_csv_bad_number(rd, line, col->name, s, "out of range", err);
    *out = (int64_t)v;
    return PB_OK;
}

static int pb_csv_parse_field(const pb_csv_reader_t *rd, size_t line, const pb_csv_col_t *col,
                              const char *s, size_t len, pb_result_t *row, pb_err_t *err)
{
    char *base = (char *)row + col->offset; /* written with memcpy, see put_field */
    char *end;
    int64_t i64;
    int rc;

    switch (col->type) {
    case PB_CSV_STR:
        if (len > PB_RESULT_STR - 1)
            return pb_err_set(err, PB_EINPUT, "%s:%zu: field '%s' is longer than %d bytes",
                              rd->path, line, col->name, PB_RESULT_STR - 1);
        if (memchr(s, '\0', len) != NULL)
            return pb_err_set(err, PB_EINPUT, "%s:%zu: field '%s' contains a NUL byte",
                              rd->path, line, col->name);
        memcpy(base, s, len);
        base[len] = '\0';
        return PB_OK;

    case PB_CSV_INT:
        rc = pb_csv_parse_i64(rd, line, col, s, len, INT_MIN, INT_MAX, &i64, err);
        if (rc == PB_OK) {
            int iv = (int)i64;
            memcpy(base, &iv, sizeof iv);
        }
        return rc;

    case PB_CSV_WRONG:
        i64 = PB_RESULT_WRONG_UNCHECKED;
        rc = len == 0 ? PB_OK
                      : pb_csv_parse_i64(rd, line, col, s, len, INT64_MIN, INT64_MAX, &i64,
                                         err);
        if (rc == PB_OK)
            memcpy(base, &i64, sizeof i64);
        return rc;

    case PB_CSV_U64: {
        uint64_t uv = 0;
        /* digits only: no sign, so "-1" is not a number (not 2^64 - 1) */
        rc = pb_num_u64n(s, len, 0, UINT64_MAX, &uv);
        if (rc == PB_NUM_NAN)
            return pb_csv_bad_number(rd, line, col->name, s, "not a number", err);
        if (rc != PB_NUM_OK)
            return pb_csv_bad_number(rd, line, col->name, s, "out of range", err);
        memcpy(base, &uv, sizeof uv);
        return PB_OK;
    }

    case PB_CSV_DBL: {
        double v;
        if (!pb_csv_starts_number(s, len))
            return pb_csv_bad_number(rd, line, col->name, s, "not a number", err);
        errno = 0;
        v = strtod(s, &end);
        if (end != s + len)
            return pb_csv_bad_number(rd, line, col->name, s, "not a number", err);
        /* ERANGE also flags underflow, whose tiny result is fine to keep */
        if (errno == ERANGE && (v > DBL_MAX || v < -DBL_MAX))
            return pb_csv_bad_number(rd, line, col->name, s, "out of range", err);
        memcpy(base, &v, sizeof v);
        return PB_OK;
    }
    }
    return pb_err_set(err, PB_ERUNTIME, "%s: column '%s' has no CSV type", rd->path,
                      col->name);
}

static int pb_csv_read_header(pb_csv_reader_t *rd, const pb_csv_rec_t *rec, pb_err_t *err)
{
    for (size_t j = 0; j < rec->nfields; j++) {
        for (int k = 0; k < PB_CSV_NCOLS; k++) {
            if (rec->flen[j] != strlen(pb_csv_cols[k].name) ||
                memcmp(rec->field[j], pb_csv_cols[k].name, rec->flen[j]) != 0)
                continue;
            /* two columns of one name: no way to tell which one is meant */
            if (rd->map[k] >= 0)
                return pb_err_set(err, PB_EINPUT,
                                  "%s: column '%s' appears twice (columns %d and %zu)",
                                  rd->path, pb_csv_cols[k].name, rd->map[k] + 1, j + 1);
            if (j > INT_MAX)
                return pb_err_set(err, PB_EINPUT, "%s: too many columns", rd->path);
            rd->map[k] = (int)j;
        }
    }
    for (int k = 0; k < PB_CSV_NREQUIRED; k++)
        if (rd->map[k] < 0)
            return pb_err_set(err, PB_EINPUT, "%s: missing column '%s'", rd->path,
                              pb_csv_cols[k].name);
    rd->nheader = rec->nfields;
    return PB_OK;
}

static int pb_csv_on_read_record(void *arg, size_t line, const pb_csv_rec_t *rec,
                                 pb_err_t *err)
{
    pb_csv_reader_t *rd = arg;
    pb_result_t *row;
    int rc;

    if (rd->nheader == 0)
        return pb_csv_read_header(rd, rec, err);

    if (rec->nfields != rd->nheader)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: %zu fields, header has %zu", rd->path,
                          line, rec->nfields, rd->nheader);

    if (rd->nrows == rd->cap) {
        size_t cap = rd->cap ? rd->cap * 2 : 64;
        pb_result_t *rows = NULL;
        if (cap <= SIZE_MAX / sizeof *rows)
            rows = realloc(rd->rows, cap * sizeof *rows);
        if (rows == NULL)
            return pb_err_set(err, PB_ERUNTIME, "%s:%zu: out of memory reading CSV",
                              rd->path, line);
        rd->rows = rows;
        rd->cap = cap;
    }
    row = &rd->rows[rd->nrows];
    memset(row, 0, sizeof *row);
    /* absent column: unknown (redop stays "", flops and tflops 0) */
    row->slowest_rank = -1;

    for (int k = 0; k < PB_CSV_NCOLS; k++) {
        int j = rd->map[k];
        if (j < 0)
            continue;
        rc = pb_csv_parse_field(rd, line, &pb_csv_cols[k], rec->field[j], rec->flen[j], row,
                                err);
        if (rc != PB_OK)
            return rc;
    }
    rd->nrows++;
    return PB_OK;
}

int pb_csv_read(const char *path, pb_result_t **rows, size_t *nrows, pb_err_t *err)
{
    pb_csv_reader_t rd = {.path = path, .nheader = 0, .rows = NULL, .nrows = 0, .cap = 0};
    int rc;

    *rows = NULL;
    *nrows = 0;
    for (int k = 0; k < PB_CSV_NCOLS; k++)
        rd.map[k] = -1;

    rc = pb_csv_parse_table(path, pb_csv_on_read_record, &rd, &rd.nheader, err);
    if (rc != PB_OK) {
        free(rd.rows);
        return rc;
    }
    *rows = rd.rows; /* NULL when the file holds only a header */
    *nrows = rd.nrows;
    return PB_OK;
}
