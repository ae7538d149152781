/* pb_csv.c - result rows to and from CSV, through libcsv.
 *
 * All quoting and parsing is libcsv's: hand-rolled CSV code is where
 * labels with commas, quotes or newlines get mangled.  String fields are
 * always quoted (csv_write); numeric fields are written bare, since their
 * text cannot contain a delimiter, which also lets spreadsheet tools see
 * them as numbers.  `wrong` == PB_RESULT_WRONG_UNCHECKED is an empty field.
 *
 * Doubles (times, bandwidths) are written with "%.9g": nine significant
 * digits is finer than anything a timer measures (sub-nanosecond for any
 * time below a second) and keeps the file readable.  It is not a bit-exact
 * round trip; that would need "%.17g" and would print noise digits.
 *
 * Numbers are formatted and parsed in the C locale's notation; parbench
 * never calls setlocale(), and pb_csv_write refuses a number whose text
 * would break the row rather than write a corrupt file. */
#include "pb_csv.h"
#include "pb_csv_records.h"

#include <csv.h>

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>


typedef struct pb_csv_col {
    const char *name;
    pb_csv_type_t type;
    size_t offset;
} pb_csv_col_t;

#define PB_CSV_COL(_name, _type) {#_name, _type, offsetof(pb_result_t, _name)}

/* One table drives the header, the writer and the reader, so the three
 * cannot disagree about the schema.  Order is the stable file schema:
 * new columns only ever go at the end. */
static const pb_csv_col_t pb_csv_cols[] = {
    PB_CSV_COL(run_id, PB_CSV_STR),
    PB_CSV_COL(timestamp, PB_CSV_STR),
    PB_CSV_COL(host, PB_CSV_STR),
    PB_CSV_COL(nodes, PB_CSV_INT),
    PB_CSV_COL(world, PB_CSV_INT),
    PB_CSV_COL(backend, PB_CSV_STR),
    PB_CSV_COL(mode, PB_CSV_STR),
    PB_CSV_COL(pattern, PB_CSV_STR),
    PB_CSV_COL(collective, PB_CSV_STR),
    PB_CSV_COL(group, PB_CSV_STR),
    PB_CSV_COL(group_size, PB_CSV_INT),
    PB_CSV_COL(link_class, PB_CSV_STR),
    PB_CSV_COL(bytes, PB_CSV_U64),
    PB_CSV_COL(dtype, PB_CSV_STR),
    PB_CSV_COL(in_place, PB_CSV_INT),
    PB_CSV_COL(iters, PB_CSV_U64),
    PB_CSV_COL(time_us_min, PB_CSV_DBL),
    PB_CSV_COL(time_us_median, PB_CSV_DBL),
    PB_CSV_COL(time_us_p99, PB_CSV_DBL),
    PB_CSV_COL(time_us_max, PB_CSV_DBL),
    PB_CSV_COL(algbw_gbps, PB_CSV_DBL),
    PB_CSV_COL(busbw_gbps, PB_CSV_DBL),
    PB_CSV_COL(wrong, PB_CSV_WRONG),
    PB_CSV_COL(label, PB_CSV_STR),
    /* appended after the first schema: optional when reading, so files
     * written before they existed still load */
    PB_CSV_COL(redop, PB_CSV_STR),
    PB_CSV_COL(slowest_rank, PB_CSV_INT),
    PB_CSV_COL(flops, PB_CSV_U64),
    PB_CSV_COL(tflops, PB_CSV_DBL),
};

#define PB_CSV_NCOLS 28
#define PB_CSV_NREQUIRED 24 /* the original schema, up to and including label */
_Static_assert(sizeof pb_csv_cols / sizeof pb_csv_cols[0] == PB_CSV_NCOLS,
               "PB_CSV_NCOLS must match the column table");

/* Worst case of one formatted row: a quoted string doubles every quote
 * and adds two, a number is far shorter, plus a separator per column. */
#define PB_CSV_ROW_MAX (PB_CSV_NCOLS * (2 * PB_RESULT_STR + 3))
#define PB_CSV_NUM_MAX 64

/* The stream buffer must hold a whole row, so that fflush hands each row
 * to the kernel in one write(2) rather than split across two. */
#define PB_CSV_IOBUF 8192
_Static_assert(PB_CSV_ROW_MAX <= PB_CSV_IOBUF, "a row must fit the stdio buffer");

/* Longest excerpt of a bad field quoted back in a message. */
#define PB_CSV_SHOW 40

struct pb_csv_writer {
    FILE *f;
    /* the header goes out with the first row, and a file this run made
     * but never wrote a row to is removed at close: a command that fails
     * before measuring leaves no header-only file behind */
    int need_header;
    int created;
    uint64_t rows;
    char iobuf[PB_CSV_IOBUF];
    char path[]; /* for messages */
};

int pb_csv_ncolumns(void)
{
    return PB_CSV_NCOLS;
}

const char *pb_csv_column(int i)
{
    if (i < 0 || i >= PB_CSV_NCOLS)
        return NULL;
    return pb_csv_cols[i].name;
}

pb_csv_type_t pb_csv_column_type(int i)
{
    return pb_csv_cols[i].type;
}

size_t pb_csv_column_offset(int i)
{
    return pb_csv_cols[i].offset;
}


/* ---------------------------------------------------------------------
 * Writing
 * --------------------------------------------------------------------- */

static int pb_csv_put_number(pb_csv_writer_t *w, char *row, size_t *len, const char *num,
                             const char *name, pb_err_t *err)
{
    size_t n = strlen(num);

    if (strpbrk(num, ",\"\r\n") != NULL)
        return pb_err_set(err, PB_ERUNTIME,
                          "%s: field '%s' formats as '%s', which would break the row "
                          "(a non-C numeric locale?)",
                          w->path, name, num);
    if (n > PB_CSV_ROW_MAX - *len)
        return pb_err_set(err, PB_ERUNTIME, "%s: row longer than %d bytes", w->path,
                          PB_CSV_ROW_MAX);
    memcpy(row + *len, num, n);
    *len += n;
    return PB_OK;
}

static int pb_csv_put_field(pb_csv_writer_t *w, const pb_csv_col_t *col, const pb_result_t *r,
                            char *row, size_t *len, pb_err_t *err)
{
    /* memcpy, not a cast: base is a char pointer, and this keeps the
     * compiler free of alignment and aliasing doubts */
    const char *base = (const char *)r + col->offset;
    char num[PB_CSV_NUM_MAX];
    int iv;
    uint64_t uv;
    int64_t wv;
    double dv;

    switch (col->type) {
    case PB_CSV_STR: {
        const char *nul = memchr(base, '\0', PB_RESULT_STR);
        if (nul == NULL)
            return pb_err_set(err, PB_EINPUT, "%s: field '%s' is not a terminated string",
                              w->path, col->name);
        size_t need = csv_write(row + *len, PB_CSV_ROW_MAX - *len, base, (size_t)(nul - base));
        if (need > PB_CSV_ROW_MAX - *len)
            return pb_err_set(err, PB_ERUNTIME, "%s: row longer than %d bytes", w->path,
                              PB_CSV_ROW_MAX);
        *len += need;
        return PB_OK;
    }
    case PB_CSV_INT:
        memcpy(&iv, base, sizeof iv);
        snprintf(num, sizeof num, "%d", iv);
        break;
    case PB_CSV_U64:
        memcpy(&uv, base, sizeof uv);
        snprintf(num, sizeof num, "%" PRIu64, uv);
        break;
    case PB_CSV_WRONG:
        memcpy(&wv, base, sizeof wv);
        if (wv == PB_RESULT_WRONG_UNCHECKED)
            return PB_OK;
        snprintf(num, sizeof num, "%" PRId64, wv);
        break;
    case PB_CSV_DBL:
        memcpy(&dv, base, sizeof dv);
        snprintf(num, sizeof num, "%.9g", dv);
        break;
    default:
        return pb_err_set(err, PB_ERUNTIME, "%s: column '%s' has no CSV type", w->path,
                          col->name);
    }
    return pb_csv_put_number(w, row, len, num, col->name, err);
}

static int pb_csv_write_header(pb_csv_writer_t *w, pb_err_t *err);

int pb_csv_write(pb_csv_writer_t *w, const pb_result_t *r, pb_err_t *err)
{
    char row[PB_CSV_ROW_MAX];
    size_t len = 0;
    int rc;

    if (w->need_header) {
        if ((rc = pb_csv_write_header(w, err)) != PB_OK)
            return rc;
        w->need_header = 0;
    }

    for (int k = 0; k < PB_CSV_NCOLS; k++) {
        if (k > 0)
            row[len++] = ','; /* in bounds: ROW_MAX counts a separator per column */
        rc = pb_csv_put_field(w, &pb_csv_cols[k], r, row, &len, err);
        if (rc != PB_OK)
            return rc;
    }
    if (len == PB_CSV_ROW_MAX)
        return pb_err_set(err, PB_ERUNTIME, "%s: row longer than %d bytes", w->path,
                          PB_CSV_ROW_MAX);
    row[len++] = '\n';

    if (fwrite(row, 1, len, w->f) != len || fflush(w->f) != 0) {
        int e = errno;
        return pb_err_set(err, PB_ERUNTIME, "cannot write CSV '%s': %s", w->path,
                          strerror(e));
    }
    w->rows++;
    return PB_OK;
}

/* Column names are plain identifiers (nothing libcsv would quote), so the
 * header goes out bare: a file starts with `run_id,` as people grep for. */
static int pb_csv_write_header(pb_csv_writer_t *w, pb_err_t *err)
{
    char line[PB_CSV_ROW_MAX];
    size_t len = 0;

    for (int k = 0; k < PB_CSV_NCOLS; k++) {
        size_t n = strlen(pb_csv_cols[k].name);
        if (k > 0)
            line[len++] = ',';
        memcpy(line + len, pb_csv_cols[k].name, n);
        len += n;
    }
    line[len++] = '\n';
    if (fwrite(line, 1, len, w->f) != len || fflush(w->f) != 0) {
        int e = errno;
        return pb_err_set(err, PB_EINPUT, "cannot write CSV '%s': %s", w->path, strerror(e));
    }
    return PB_OK;
}

typedef struct pb_csv_hdrcheck {
    const char *path;
    int seen;
} pb_csv_hdrcheck_t;

/* Only the first record matters; later ones are still parsed so that a
 * quote left open by a torn row is caught before we append after it. */
static int pb_csv_on_existing_record(void *arg, size_t line, const pb_csv_rec_t *rec,
                                     pb_err_t *err)
{
    pb_csv_hdrcheck_t *hc = arg;
    size_t ncols = (size_t)PB_CSV_NCOLS;

    (void)line;
    if (hc->seen)
        return PB_OK;
    hc->seen = 1;

    for (size_t i = 0; i < rec->nfields && i < ncols; i++) {
        if (rec->flen[i] != strlen(pb_csv_cols[i].name) ||
            memcmp(rec->field[i], pb_csv_cols[i].name, rec->flen[i]) != 0)
            return pb_err_set(err, PB_EINPUT,
                              "%s: existing header differs from parbench's (column %zu is "
                              "'%.*s', expected '%s'); use another file",
                              hc->path, i + 1, PB_CSV_SHOW, rec->field[i],
                              pb_csv_cols[i].name);
    }
    if (rec->nfields < ncols)
        return pb_err_set(err, PB_EINPUT,
                          "%s: existing header differs from parbench's (it ends after "
                          "column %zu, expected '%s' next); use another file",
                          hc->path, rec->nfields, pb_csv_cols[rec->nfields].name);
    if (rec->nfields > ncols)
        return pb_err_set(err, PB_EINPUT,
                          "%s: existing header differs from parbench's (column %zu is "
                          "'%.*s', parbench's ends after column %zu); use another file",
                          hc->path, ncols + 1, PB_CSV_SHOW, rec->field[ncols], ncols);
    return PB_OK;
}

static int pb_csv_prepare(pb_csv_writer_t *w, pb_err_t *err)
{
    long size;
    int rc;

    if (fseek(w->f, 0, SEEK_END) != 0 || (size = ftell(w->f)) < 0) {
        int e = errno;
        return pb_err_set(err, PB_EINPUT, "cannot write CSV '%s': %s", w->path, strerror(e));
    }
    if (size == 0) {
        w->need_header = 1;
        return PB_OK;
    }

    /* Rows go out whole, so a file not ending in a newline was cut short
     * (killed mid-write, disk full); appending would glue our first row
     * onto the torn one. */
    if (fseek(w->f, -1, SEEK_END) != 0 || getc(w->f) != '\n')
        return pb_err_set(err, PB_EINPUT,
                          "%s: does not end in a newline (its last row was cut short?); "
                          "use another file",
                          w->path);

    rewind(w->f);
    pb_csv_hdrcheck_t hc = {w->path, 0};
    rc = pb_csv_parse_file(w->f, w->path, pb_csv_on_existing_record, &hc, err);
    if (rc != PB_OK)
        return rc;
    if (!hc.seen) /* only blank lines: libcsv skips them, so treat as empty */
        w->need_header = 1;
    return rc;
}

int pb_csv_open(const char *path, pb_csv_writer_t **out, pb_err_t *err)
{
    size_t plen = strlen(path);
    pb_csv_writer_t *w;
    int rc;

    *out = NULL;
    w = malloc(sizeof *w + plen + 1);
    if (w == NULL)
        return pb_err_set(err, PB_ERUNTIME, "cannot write CSV '%s': out of memory", path);
    memcpy(w->path, path, plen + 1);
    w->need_header = 0;
    w->rows = 0;
    w->created = access(path, F_OK) != 0;

    /* "a+": every write lands at the end whatever the read position, and
     * one open both checks the existing content and appends. */
    w->f = fopen(path, "a+");
    if (w->f == NULL) {
        int e = errno;
        free(w);
        return pb_err_set(err, PB_EINPUT, "cannot write CSV '%s': %s", path, strerror(e));
    }
    setvbuf(w->f, w->iobuf, _IOFBF, sizeof w->iobuf);

    rc = pb_csv_prepare(w, err);
    /* C requires a seek between reading and writing an update stream */
    if (rc == PB_OK && fseek(w->f, 0, SEEK_END) != 0) {
        int e = errno;
        rc = pb_err_set(err, PB_EINPUT, "cannot write CSV '%s': %s", path, strerror(e));
    }
    if (rc != PB_OK) {
        fclose(w->f);
        free(w);
        return rc;
    }
    *out = w;
    return PB_OK;
}

void pb_csv_close(pb_csv_writer_t *w)
{
    if (w == NULL)
        return;
    /* every row was flushed by pb_csv_write, so nothing is lost here */
    fclose(w->f);
    if (w->created && w->rows == 0)
        remove(w->path);
    free(w);
}

/* ---------------------------------------------------------------------
 * Reading
 * --------------------------------------------------------------------- */

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
        unsigned long long v;
        /* strtoull would quietly negate "-1" into a huge value */
        if (len == 0 || !isdigit((unsigned char)s[0]))
            return pb_csv_bad_number(rd, line, col->name, s, "not a number", err);
        errno = 0;
        v = strtoull(s, &end, 10);
        if (end != s + len)
            return pb_csv_bad_number(rd, line, col->name, s, "not a number", err);
#if ULLONG_MAX > UINT64_MAX
        if (v > UINT64_MAX)
            errno = ERANGE;
#endif
        if (errno == ERANGE)
            return pb_csv_bad_number(rd, line, col->name, s, "out of range", err);
        uint64_t uv = (uint64_t)v;
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

    rc = pb_csv_parse_path(path, pb_csv_on_read_record, &rd, err);
    if (rc == PB_OK && rd.nheader == 0)
        rc = pb_err_set(err, PB_EINPUT, "%s: empty file, expected a header line", path);
    if (rc != PB_OK) {
        free(rd.rows);
        return rc;
    }
    *rows = rd.rows; /* NULL when the file holds only a header */
    *nrows = rd.nrows;
    return PB_OK;
}
